"""Reading a reply to a CaLM effect question: a probability, a yes/no, or both.

CaLM asks for JSON — ``{"ANSWER": "Yes", "PROB": "0.1234"}`` for ATE/CDE/ETT/NDE/NIE,
``{"PROB": "0.1234"}`` for PN/PS — but the certified grade reads any common form:

* the number: the value of the last ``"prob"`` key (any case, quoted or not), else the
  last decimal number after the last "answer" / "答案" (or in the reply's last line);
* the yes/no: ``parser.calm_reply.read_yes_no`` after the JSON key is spelt in lower case
  (CaLM writes ``"ANSWER"``).

Every search is ``str.rfind`` or one anchored scan over at most ``SPAN`` characters.

>>> read_probability('{"ANSWER": "Yes", "PROB": "0.0300"}')
Fraction(3, 100)
>>> read_probability("So PN is about -0.2716.")
Fraction(-679, 2500)
"""

from __future__ import annotations

from fractions import Fraction

from causal_oracle.parser.calm_reply import read_yes_no
from causal_oracle.parser.errors import ParseError

SPAN = 400
_DIGITS = "0123456789"


def _number_at(text: str, start: int) -> tuple[str, int] | None:
    """The first decimal number at or after ``start`` within ``SPAN`` characters."""
    end = min(len(text), start + SPAN)
    i = start
    while i < end:
        c = text[i]
        if c in _DIGITS or (c in "-−" and i + 1 < end and text[i + 1] in _DIGITS):
            j = i + 1
            while j < end and (text[j] in _DIGITS or (text[j] == "." and j + 1 < end
                                                       and text[j + 1] in _DIGITS)):
                j += 1
            return text[i:j].replace("−", "-"), j
        i += 1
    return None


def _last_number(text: str) -> str | None:
    found, pos = None, 0
    while pos < len(text):
        hit = _number_at(text, pos)
        if hit is None:
            nxt = pos + SPAN
            if nxt >= len(text):
                break
            pos = nxt
            continue
        found, pos = hit
    return found


def read_probability(text: str) -> Fraction:
    """The number a reply gives (``ParseError`` when it gives none)."""
    low = text.lower()
    key = low.rfind('"prob"')
    if key < 0:
        key = low.rfind("prob:")
    if key >= 0:
        hit = _number_at(text, key + 5)
        if hit is not None:
            return Fraction(hit[0])
    for marker in ("answer", "答案"):
        at = low.rfind(marker)
        if at >= 0:
            number = _last_number(text[at:at + SPAN])
            if number is not None:
                return Fraction(number)
    last_line = text.strip().rsplit("\n", 1)[-1]
    number = _last_number(last_line[-SPAN:])
    if number is None:
        raise ParseError("cannot parse CaLM answer: expected a probability such as "
                         '{"PROB": "0.1234"}', context=text[-200:], what="CaLM answer")
    return Fraction(number)


def read_effect_yes_no(text: str) -> bool:
    """The yes/no a reply gives, CaLM's ``"ANSWER"`` key read as ``"answer"``."""
    at = text.upper().rfind('"ANSWER"')
    if at >= 0:
        text = text[:at] + '"answer"' + text[at + 8:]
    return read_yes_no(text)


__all__ = ["read_effect_yes_no", "read_probability"]
