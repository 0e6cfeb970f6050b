"""Binding the phrases of a Chinese CaLM CLadder item to its graph's variables and values.

CaLM's Chinese CLadder items are machine translations, story by story: one variable is
often named in several ways (the background's "拥有兄弟", the question's "有兄弟"; "接种疫苗的
反应" and "疫苗接种反应"), and there is no story vocabulary to say which phrase means which
value.  So a phrase is bound only by rules stated here, and a phrase they do not bind
makes the item **undetermined** (``Unbound``), never guessed.

*Which variable* (``Binder.variable``): a phrase names the graph variable whose name it
equals; else the one variable whose name it contains or (two characters at least) is
contained in — when several qualify, a name that is part of another qualifying name
drops out (the longer name is the more specific).  None, or several left: unbound.

*Which value* (``Binder.lit``): variables are binary and the text names a value by a
phrase ("rixq", "非rixq", "经理签署终止信函", "经理未签署终止信函").  A phrase is the
*negation* of another when deleting one negation word (``NEGATIONS``) from it gives the
other.  Among the phrases bound to a variable, those that negate no other phrase (nor the
variable's name) must be one single phrase: that phrase is the value written 1, and a
phrase negating it the value 0 (with no such phrase, the variable's name is the value
written 1).  Two phrases of one variable that are not each other's negation ("男性" and
"女性", "去过英格兰" and "没有去英格兰") may name one value or two: unbound.  Which value
is "1" is only a label: every CLadder answer is the same under relabelling a variable's
two values, as long as each phrase keeps its meaning.

A reading runs twice (``Binder.collecting``): first every value phrase is bound to its
variable and noted, then each is given its value.

>>> b = Binder(("rixq", "xevu"))
>>> for p in ("rixq", "非rixq", "xevu"):
...     _ = b.lit(p)
>>> b.settle(); b.lit("非rixq"), b.lit("xevu")
((0, 0), (1, 1))
"""

from __future__ import annotations

from collections.abc import Sequence

from causal_oracle.oracle.cladder.model import Lit
from causal_oracle.oracle.errors import quote

NAMES_UNBOUND = "names_unbound"
#: the negation words of the translation, longest first
NEGATIONS = ("不是", "并不", "没有", "非", "不", "没", "未")
#: template words a value phrase may start with: the subject of the sentence, "是" (is)
SUBJECTS = ("某个人", "一个人", "某人", "那些")
#: at most this many phrases per item (bounded work on any input)
MAX_PHRASES = 64


class Unbound(Exception):
    """A phrase the rules do not bind: the item is read but undetermined."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.reason = NAMES_UNBOUND
        self.message = message


def clean(phrase: str) -> str:
    """A value phrase without the template's subject words, a leading "是" and a closing
    "的人" ("那些是gwet的人" → "gwet")."""
    p = phrase.strip()
    for _ in range(3):
        before = p
        for word in SUBJECTS:
            if p.startswith(word) and len(p) > len(word):
                p = p[len(word):]
        if p.startswith("是") and len(p) > 1:
            p = p[1:]
        if p.endswith("的人") and len(p) > 2:
            p = p[:-2]
        if p == before:
            break
    return p


def negations_of(phrase: str) -> set[str]:
    """Every phrase ``phrase`` negates: it with one negation word deleted."""
    out = set()
    for word in NEGATIONS:
        start = phrase.find(word)
        while start >= 0:
            rest = phrase[:start] + phrase[start + len(word):]
            if rest:
                out.add(rest)
            start = phrase.find(word, start + 1)
    return out


class Binder:
    """Binds the phrases of one item to the variables ``names`` (module docstring)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.noted: dict[int, list[str]] = {}
        self.label: dict[int, str] | None = None  # None while collecting

    @property
    def collecting(self) -> bool:
        return self.label is None

    def candidates(self, phrase: str) -> list[int]:
        """The variables ``phrase`` may name by the containment rule."""
        if phrase in self.names:
            return [self.names.index(phrase)]
        found = [i for i, n in enumerate(self.names)
                 if n in phrase or (len(phrase) >= 2 and phrase in n)]
        return [i for i in found
                if not any(j != i and self.names[i] in self.names[j] for j in found)]

    def variable(self, phrase: str, what: str) -> int:
        """The one variable ``phrase`` names (``Unbound`` otherwise)."""
        found = self.candidates(phrase)
        if len(found) == 1:
            return found[0]
        listed = ", ".join(quote(self.names[i]) for i in found) or "none"
        raise Unbound(f"{what} {quote(phrase)} names no single variable of the graph "
                      f"({', '.join(quote(n) for n in self.names)}); candidates: {listed}")

    def lit(self, phrase: str, what: str = "the phrase") -> Lit:
        """The value ``phrase`` names; while collecting, (variable, 1) and the phrase
        noted."""
        p = clean(phrase)
        v = self.variable(p, what)
        if self.label is None:
            seen = self.noted.setdefault(v, [])
            if p not in seen:
                if sum(len(s) for s in self.noted.values()) >= MAX_PHRASES:
                    raise Unbound("the item names more values than a CLadder item has")
                seen.append(p)
            return (v, 1)
        label = self.label[v]
        if p == label:
            return (v, 1)
        if label in negations_of(p):
            return (v, 0)
        raise Unbound(f"{what} {quote(p)} is neither {quote(label)} nor its negation")

    def settle(self) -> None:
        """End collecting: each variable's value written 1 (``Unbound`` when the phrases
        of a variable are not one phrase and its negations)."""
        label: dict[int, str] = {}
        for v, phrases in self.noted.items():
            known = set(phrases) | {self.names[v]}
            positive = [p for p in phrases if not negations_of(p) & known]
            if len(positive) > 1:
                raise Unbound(f"{' and '.join(quote(p) for p in positive)} both name variable "
                              f"{quote(self.names[v])} and neither negates the other: one value "
                              "or two cannot be told")
            label[v] = positive[0] if positive else self.names[v]
        self.label = label


__all__ = ["NAMES_UNBOUND", "NEGATIONS", "Binder", "Unbound", "clean", "negations_of"]
