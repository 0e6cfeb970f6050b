"""The closing verdict of a long model answer: reasoning first, the verdict last.

Models asked a yes/no (or entailment/neutral/contradiction) question rarely reply
with the bare word: they reason, then close with "So the answer is **No**.",
"Therefore, the hypothesis is not valid.", "\\boxed{Yes}" or "Yes, because …".
The answer grammar (``parser.task_answers``) reads replies that *open* with the
verdict or carry an "Answer:" line; this module is its fallback for the rest.

Only the **last non-empty line** is read, and only when it states exactly one
verdict in one of these forms (case-insensitive, markdown and LaTeX removed):

* the verdict alone: ``Yes.`` / ``**No**`` / ``Contradiction``;
* the verdict, a separator, then an explanation: ``No, because …`` / ``Yes - the …``;
* a lead-in and the verdict: ``… the (final) answer is: no``, ``Verdict: yes``,
  ``Conclusion: No``, ``Label: neutral``, ``The relation is entailment``,
  ``… the hypothesis holds: yes``, ``\\boxed{No}``;
* ``… the hypothesis is (therefore) [not] valid/true/correct/invalid/false/incorrect``.

A line naming two verdicts ("could be yes or no") or a negated negative ("not
invalid") gives None, as does everything else: an unread answer is reported as
UNREADABLE, never guessed.  Every pattern is a plain regular expression without
nested repetition over at most the last 400 characters, so reading is linear.

Public function: ``closing_verdict``.
"""

from __future__ import annotations

import re

_YES = ("yes", "true", "valid", "correct")
_NO = ("no", "false", "invalid", "incorrect")
_RELATIONS = ("entailment", "neutral", "contradiction")
_WORDS = "|".join((*_YES, *_NO, *_RELATIONS))

_MARKUP = re.compile(r"\*\*|__|`|\$|\\text\{|\\textbf\{|\\boxed\{|[{}]")
_ALONE = re.compile(rf"^(?:{_WORDS})[.!]?$")
_OPENING = re.compile(rf"^({_WORDS})(?:[,.;:!]| -| —| –) ")
_LEAD_IN = re.compile(
    rf"(?:answer|verdict|conclusion|label|relation|holds)(?: is)?(?: therefore)?:? ({_WORDS})"
    r"[.!]?$")
_HYPOTHESIS = re.compile(
    r"hypothesis is (?:therefore |thus |hence )?(not )?(valid|true|correct|invalid|false|"
    r"incorrect)[.!]?$")
_ANY_WORD = re.compile(rf"\b(?:{_WORDS})\b")


def _kind(word: str) -> str:
    if word in _YES:
        return "yes"
    if word in _NO:
        return "no"
    return word


def closing_verdict(text: str) -> str | None:
    """``"yes"``, ``"no"``, a 3-class relation, or None when the last line states none.

    >>> closing_verdict("Let me think. A and B are independent.\\nSo the answer is **No**.")
    'no'
    >>> closing_verdict("Reasoning…\\nTherefore, the hypothesis is not valid.")
    'no'
    >>> closing_verdict("It could be yes or no.") is None
    True
    """
    tail = text[-400:].strip()
    if not tail:
        return None
    line = tail.splitlines()[-1]
    line = _MARKUP.sub("", line).strip().lower()
    words = {_kind(w) for w in _ANY_WORD.findall(line)}
    match = _HYPOTHESIS.search(line)
    if match:
        negated, word = bool(match.group(1)), _kind(match.group(2))
        if negated and word == "no":
            return None
        rest = line[:match.start()] + line[match.end():]
        return None if _ANY_WORD.search(rest) else ("no" if negated else word)
    if len(words) != 1:
        return None
    for pattern in (_ALONE, _OPENING, _LEAD_IN):
        found = pattern.search(line)
        if found:
            return _kind(found.group(1) if found.groups() else found.group(0).rstrip(".!"))
    return None


__all__ = ["closing_verdict"]
