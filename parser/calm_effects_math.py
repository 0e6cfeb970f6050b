"""CaLM's ``data_info_math`` held against the text it copies: where they differ.

Every effect record carries ``data_info`` (the numbers in words, what a model sees) and
``data_info_math`` ("P(D=1|B=1)=0.0673; P(A=0,B=0)=0.0613; …"), a convenience copy by
letters.  The copy is not always faithful; ``compare`` lists how, for a record already
read (``parser.calm_effects.read_record``, whose variables are numbered by letter):

* ``garbled``: entries that lost their variables ("P=0.4812", in Chinese files);
* ``dropped``: numbers the text states and the copy omits (ETT-hard items drop P(y | x));
* ``extra``: numbers in the copy the text does not state;
* ``inconsistent``: a variable whose value word the copy codes as 0 in one entry and 1 in
  another.

Numbers are matched by the variables they are about and their printed digits; only
``str.split``/``str.partition`` scans.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from causal_oracle.oracle.calm.effects_model import EffectQuestion


@dataclass(slots=True)
class MathDiff:
    garbled: int = 0
    dropped: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    inconsistent: list[str] = field(default_factory=list)

    @property
    def faithful(self) -> bool:
        return not (self.garbled or self.dropped or self.extra or self.inconsistent)


def _letters(graph: str) -> list[str]:
    head = graph.find("nodes ")
    head = head + 6 if head >= 0 else graph.find("个节点") + 3
    out = []
    for ch in graph[head:]:
        if ch.isascii() and ch.isupper():
            out.append(ch)
        elif ch in "和a" or ch.isdigit():
            break
    return out


def _assignments(text: str) -> list[tuple[str, int]] | None:
    out = []
    for part in text.split(","):
        name, eq, value = part.strip().partition("=")
        if not eq or value.strip() not in ("0", "1"):
            return None
        out.append((name.strip(), int(value)))
    return out


def compare(record: Mapping[str, Any], q: EffectQuestion) -> MathDiff:
    background = record.get("Background") or {}
    math = str(background.get("data_info_math") or "")
    letters = _letters(str(background.get("graph") or ""))
    diff = MathDiff()
    ours: Counter[tuple[frozenset[str], frozenset[str], str]] = Counter()
    words: dict[tuple[str, int], int] = {}  # (letter, our value) → the copy's value
    for s in q.stated:
        ours[(frozenset(letters[v] for v, _ in s.event if v < len(letters)),
              frozenset(letters[v] for v, _ in s.given if v < len(letters)),
              s.text)] += 1
    theirs: Counter[tuple[frozenset[str], frozenset[str], str]] = Counter()
    coded: list[tuple[list[tuple[str, int]], str]] = []
    for entry in math.split(";"):
        entry = entry.strip()
        if not entry:
            continue
        head, _, number = entry.rpartition("=")
        if not head.startswith("P(") or not head.endswith(")"):
            diff.garbled += 1
            continue
        event_text, _, given_text = head[2:-1].partition("|")
        event = _assignments(event_text)
        given = _assignments(given_text) if given_text else []
        if event is None or given is None:
            diff.garbled += 1
            continue
        theirs[(frozenset(n for n, _ in event), frozenset(n for n, _ in given),
                number.strip())] += 1
        coded.append((event + given, number.strip()))
    diff.dropped = sorted(_show(k) for k in (ours - theirs))
    diff.extra = sorted(_show(k) for k in (theirs - ours))
    by_key: dict[tuple[frozenset[str], str], list[Any]] = {}
    for s in q.stated:
        names = frozenset(letters[v] for v, _ in (*s.event, *s.given) if v < len(letters))
        by_key.setdefault((names, s.text), []).append(s)
    for assignment, number in coded:
        found = by_key.get((frozenset(n for n, _ in assignment), number), [])
        if len(found) != 1:  # not in the text, or one number printed twice: no evidence
            continue
        s = found[0]
        mine = {letters[v]: a for v, a in (*s.event, *s.given) if v < len(letters)}
        for name, value in assignment:
            if name in mine:
                seen = words.setdefault((name, mine[name]), value)
                if seen != value:
                    diff.inconsistent.append(f"{name} coded {seen} and {value}")
    return diff


def _show(key: tuple[frozenset[str], frozenset[str], str]) -> str:
    event, given, number = key
    cond = f"|{','.join(sorted(given))}" if given else ""
    return f"P({','.join(sorted(event))}{cond})={number}"
