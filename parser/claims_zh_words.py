"""Cut one Chinese sentence into words: the item's names, the templates' words, numbers.

Chinese has no spaces, so ``scan_words`` makes the words itself, in one scan of the
sentence, taking at each character the first that applies:

1. **"d-分离"** (and "d分离", "D-分离"; "d-连通") — one word; an upper-case D with no
   hyphen is the variable D where the item has one;
2. **a value word** right after "X为"/"X是"/"X=" — the number of that value, where the
   item named its variables' values (``ZhNames.values``: "在X为低的条件下" reads X=0
   only when the item says 低 is X's value 0; with no values given it is no word of
   the templates, and its clause is no claim);
3. **a name** of the item (or one the reply defined) — longest first, a one-letter Latin
   name only in its own case and never inside a Latin word ("A" in "ATE");
4. **the longest word of the templates' vocabulary** at a CJK character ("父节点"
   before "父"), only the lengths the vocabulary has at that character tried; a
   character in no word is a word no template has;
5. a number ("0.1234", "-0.08", "26%"), a run of Latin letters (lower-cased), an arrow,
   full-width punctuation as its ASCII form; quotes are dropped.

>>> names = ZhNames({"A": 0, "B": 1}, values={0: ("低", "高")})
>>> text = "在A为低的条件下，A和B d-分离"
>>> [t[0] for t in scan_words(text, 0, len(text), names, frozenset({"条件", "下"}),
...                           {"条": (2,), "下": (1,)})]
['在', 'V0', '为', '0', '的', '条件', '下', ',', 'V0', '和', 'V1', 'd分离']
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from causal_oracle.parser.claims_text import KIND, TEXT, Kind, Token, token

#: dropped before a bound name ("节点B是节点C的原因")
INTRODUCERS = frozenset({"节点", "变量", "结点"})

_PUNCT = {"，": ",", ",": ",", "、": "、", "：": ":", ":": ":", "（": "(", "(": "(",
          "）": ")", ")": ")", "｛": "{", "{": "{", "｝": "}", "}": "}", "＝": "=",
          "=": "=", "｜": "|", "|": "|", "＞": ">", ">": ">", "＜": "<", "<": "<",
          "≈": "≈"}
_QUOTES = frozenset("“”‘’\"'「」『』《》`*【】[]")
_ARROWS = (("<->", "<->"), ("<-->", "<->"), ("-->", "->"), ("->", "->"), ("<--", "<-"),
           ("<-", "<-"), ("--", "--"), ("→", "->"), ("⟶", "->"), ("←", "<-"),
           ("⟵", "<-"), ("↔", "<->"), ("⟷", "<->"))


#: "d-分离"/"d分离" (d-separated) and "d-连通" (d-connected): read as one word each
_D_WORDS = (("分离", "d分离"), ("分隔", "d分离"), ("连通", "d连通"), ("连接", "d连接"),
            ("相连", "d连通"))
_HYPHENS = frozenset("-‐－–—")
_D_FIRST = frozenset(tail[0] for tail, _ in _D_WORDS)
#: the words after a variable that set its value ("X为高", "X=1")
_SETTERS = frozenset({"为", "是", "=", "等于"})

#: a CJK ideograph (one character class: a linear search, in C)
_IDEOGRAPH = re.compile("[\u3400-\u9fff\uf900-\ufaff]")


def has_chinese(text: str) -> bool:
    """Whether ``text`` has a CJK ideograph (its sentences are read by this module)."""
    return _IDEOGRAPH.search(text) is not None


def is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


_LATIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _latin(ch: str) -> bool:
    return ch in _LATIN




class ZhNames:
    """The item's names (and a reply's own) by first character, longest first; the
    variables "any node" ranges over; and, where the item names them, each variable's
    value words (``values``: index → (the word of value 0, the word of value 1), as the
    item's own text gives them: "在X为低的条件下" reads X=0 only when the item says 低 is
    X's value 0)."""

    def __init__(self, index: Mapping[str, int],
                 values: Mapping[int, tuple[str, str]] | None = None) -> None:
        self.table: dict[str, list[tuple[str, int]]] = {}
        #: every character a name may start with (both cases of a Latin one)
        self.first: set[str] = set()
        self.defined = 0
        for name, i in index.items():
            self.add(name, i)
        #: every variable of the item (what "任何节点" ranges over)
        self.universe = tuple(sorted(set(index.values())))
        #: index → its value words, longest first, each with its value
        self.values: dict[int, tuple[tuple[str, int], ...]] = {}
        for i, pair in (values or {}).items():
            words = [(w, n) for n, w in enumerate(pair[:2]) if w]
            if len({w for w, _ in words}) == len(words):
                self.values[i] = tuple(sorted(words, key=lambda o: -len(o[0])))

    def value_at(self, text: str, i: int, stop: int, var: int) -> tuple[int, int] | None:
        """The value word of variable ``var`` starting at ``text[i]`` (its value and end)."""
        for word, value in self.values.get(var, ()):
            if text.startswith(word, i) and i + len(word) <= stop:
                return value, i + len(word)
        return None

    def add(self, name: str, index: int) -> None:
        name = " ".join(name.split())
        if not name:
            return
        key = name if len(name) == 1 else name.lower()  # one letter: its own case only
        self.first.update((key[0], key[0].upper()))
        options = self.table.setdefault(key[0], [])
        options.append((key, index))
        options.sort(key=lambda o: -len(o[0]))

    def at(self, text: str, i: int, stop: int) -> tuple[int, int] | None:
        """The name starting at ``text[i]`` (its index and end), if any."""
        options = self.table.get(text[i]) or self.table.get(text[i].lower())
        if not options:
            return None
        for key, index in options:
            end = i + len(key)
            if end > stop:
                continue
            piece = text[i:end]
            if (piece if len(key) == 1 else piece.lower()) != key:
                continue
            if _latin(key[-1]) and end < stop and _latin(text[end]):
                continue  # "A" inside "ATE"
            if _latin(key[0]) and i > 0 and _latin(text[i - 1]):
                continue
            return index, end
        return None


def scan_words(text: str, start: int, stop: int, names: ZhNames, vocabulary: frozenset[str],
          lengths: Mapping[str, tuple[int, ...]]) -> list[Token]:
    """The tokens of ``text[start:stop]`` (one sentence), one linear scan
    (``vocabulary``: the templates' Chinese words; ``lengths``: their lengths by first
    character, longest first)."""
    first, values = names.first, names.values
    out: list[Token] = []
    i = start
    while i < stop:
        ch = text[i]
        if ch.isspace() or ch in _QUOTES:
            i += 1
            continue
        if ch in "dD" and not (i > start and text[i - 1] in _LATIN):
            end = _d_word(text, i, stop, names)
            if end is not None:
                out.append(token(end[0], i, end[1]))
                i = end[1]
                continue
        if values and len(out) > 1 and out[-1][TEXT] in _SETTERS \
                and out[-2][KIND] is Kind.VAR:
            said = names.value_at(text, i, stop, int(out[-2][TEXT][1:]))
            if said is not None:  # "X为低": the value the item gives 低
                out.append(token(str(said[0]), i, said[1], Kind.NUMBER, raw=text[i:said[1]]))
                i = said[1]
                continue
        hit = names.at(text, i, stop) if ch in first else None
        if hit is not None:
            index, end = hit
            if out and out[-1][TEXT] in INTRODUCERS:
                out.pop()
            out.append(token(f"V{index}", i, end, Kind.VAR))
            i = end
            continue
        if is_cjk(ch):
            size = 1  # a lone character in no word: a word no template has
            for n in lengths.get(ch, ()):
                if i + n <= stop and (n == 1 or text[i:i + n] in vocabulary):
                    size = n
                    break
            out.append(token(text[i:i + size], i, i + size))
            i += size
            continue
        if ch.isdigit() or (ch in "-−" and i + 1 < stop and text[i + 1].isdigit()
                            and (not out or out[-1][KIND] is not Kind.NUMBER)
                            and not (i > start and text[i - 1] in _LATIN)):
            j = i + 1
            while j < stop and (text[j].isdigit() or (text[j] == "." and j + 1 < stop
                                                      and text[j + 1].isdigit())):
                j += 1
            if j < stop and text[j] in "%％":
                j += 1
            raw = text[i:j]
            out.append(token(raw.replace("−", "-").replace("％", "%"), i, j, Kind.NUMBER,
                             raw=raw))
            i = j
            continue
        if ch in _LATIN:
            j = i + 1
            while j < stop and text[j] in _LATIN:
                j += 1
            raw = text[i:j]
            word = "P" if raw in ("P", "p", "Pr") and j < stop and text[j] in "(（" \
                else raw.lower()
            out.append(token(word, i, j, Kind.WORD, raw=raw))
            i = j
            continue
        for arrow, name in _ARROWS:
            if text.startswith(arrow, i):
                out.append(token(name, i, i + len(arrow), Kind.SYMBOL))
                i += len(arrow)
                break
        else:
            symbol = _PUNCT.get(ch)
            if symbol is not None:
                out.append(token(symbol, i, i + 1, Kind.SYMBOL))
            else:
                out.append(token("\0", i, i + 1, Kind.SYMBOL))  # in no template
            i += 1
    return out


def _d_word(text: str, i: int, stop: int, names: ZhNames) -> tuple[str, int] | None:
    """"d-分离" (or "d分离", "D-分离") at ``text[i]``: the word and its end.  An upper-case
    D without the hyphen is the variable D where the item has one ("D分离A和B")."""
    j = i + 1
    hyphen = j < stop and text[j] in _HYPHENS
    j += hyphen
    if j >= stop or text[j] not in _D_FIRST:
        return None
    for tail, word in _D_WORDS:
        if text.startswith(tail, j) and j + len(tail) <= stop:
            if text[i] == "D" and not hyphen and names.at(text, i, stop) is not None:
                return None
            return word, j + len(tail)
    return None


__all__ = ["INTRODUCERS", "ZhNames", "has_chinese", "is_cjk", "scan_words"]
