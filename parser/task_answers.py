"""Model answers for CP, BA, FI/CI and IE → ``oracle.tasks.model`` claims.

Language models answer in many small variations; the grammar accepts what they
write and nothing that would have to be guessed:

* CP — one path per line, ``a -> b -> c`` (``→`` too, names with or without
  "the"), or ``None``;
* BA — a set: ``a, b and c`` / ``{a, b}`` / one per line, or ``None``;
* FI/CI — ``X, happened`` / ``X, not happen`` / ``X, didn't happen`` /
  ``X, will (not) happen`` lines (straight or typographic apostrophes);
* IE — ``yes`` / ``no`` (also true/false, valid/invalid).

Before parsing, ``normalise`` keeps the inside of ``<answer>…</answer>`` if
present, drops an "Answer:" prefix and markdown emphasis, unifies arrows and
apostrophes and trims blank lines.  Anything the grammar rejects is a
``ParseError``; callers report it as ``UNREADABLE`` (never as a wrong answer).

Public functions: ``normalise``, ``parse_answer``.
"""

from __future__ import annotations

import re
from pathlib import Path

from lark import Token, Transformer, v_args

from causal_oracle.oracle.tasks.model import (
    Claim,
    PathsClaim,
    RelationClaim,
    SetClaim,
    ValuesClaim,
    YesNoClaim,
)
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.grammar import load_grammar, run_parser
from causal_oracle.parser.verdicts import closing_verdict

_GRAMMAR = Path(__file__).with_name("task_answers.lark")
_TERMINAL_NAMES = {"WORD": "a word of a name", "_NL": "a new line", "$END": "end of text",
                   "_ARROW": "'->'"}
_START = {"CP": "paths_answer", "BA": "set_answer", "FI": "values_answer",
          "CI": "values_answer", "IE": "yes_no_answer"}

_OPEN_TAG = re.compile(r"<answer>", re.IGNORECASE)
_CLOSE_TAG = re.compile(r"</answer>", re.IGNORECASE)
_ARROWS = re.compile(r"→|⟶|-->|=>|–>|—>")
_ANSWER_LINE = re.compile(r"^[ \t*]*(?:final\s+)?answer\s*:", re.IGNORECASE | re.MULTILINE)
_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*:\s*", re.IGNORECASE)


def normalise(text: str) -> str:
    """The answer text with tags, prefix, markdown, odd arrows/apostrophes removed.

    >>> normalise("<answer> Answer: **Yes** </answer>")
    'Yes'
    >>> normalise("Answer:\\n\\nthe a → the b\\n\\n")
    'the a -> the b'
    """
    tagged = _last_tagged(text)
    if tagged is not None:
        text = tagged
    text = text.replace("\r\n", "\n").replace("**", "").replace("`", "")
    answer_lines = list(_ANSWER_LINE.finditer(text))
    if answer_lines:  # reasoning first, then a closing "Answer: …" line: keep what follows it
        text = text[answer_lines[-1].start():]
    text = _PREFIX.sub("", text, count=1)
    text = _unify_arrows(text)
    text = text.replace("’", "'").replace("‘", "'").replace("`", "'")
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


def _last_tagged(text: str) -> str | None:
    """The inside of the last ``<answer>…</answer>`` pair (pairs read left to right, each
    tag closing at the first ``</answer>`` after it), or None; linear in the text.

    >>> _last_tagged("<answer>a</answer> <answer><answer>b</answer>")
    '<answer>b'
    """
    opens = [m.end() for m in _OPEN_TAG.finditer(text)]
    closes = [(m.start(), m.end()) for m in _CLOSE_TAG.finditer(text)]
    found, i, j = None, 0, 0
    while i < len(opens):
        while j < len(closes) and closes[j][0] < opens[i]:
            j += 1
        if j == len(closes):
            break
        found = text[opens[i]:closes[j][0]]
        after = closes[j][1]
        while i < len(opens) and opens[i] - len("<answer>") < after:
            i += 1
    return found


def _unify_arrows(text: str) -> str:
    """Every arrow spelling → ``" -> "``, eating the whitespace around it; linear (a
    ``\\s*`` on both sides of an alternation in one regex is quadratic on long blanks)."""
    pieces = _ARROWS.split(text)
    last = len(pieces) - 1
    return " -> ".join((p.lstrip() if i else p).rstrip() if i < last else
                       (p.lstrip() if i else p) for i, p in enumerate(pieces))


class _ToClaims(Transformer):
    def name(self, items: list[Token]) -> str:
        return " ".join(str(t) for t in items)

    def path(self, items: list[str]) -> tuple[str, ...]:
        return tuple(items)

    def paths_answer(self, items: list[tuple[str, ...]]) -> PathsClaim:
        return PathsClaim(tuple(items))

    def no_paths(self, items: list[object]) -> PathsClaim:
        return PathsClaim(())

    def name_list(self, items: list[str]) -> tuple[str, ...]:
        return tuple(items)

    def set_answer(self, items: list[tuple[str, ...]]) -> SetClaim:
        return SetClaim(items[0])

    def empty_set(self, items: list[object]) -> SetClaim:
        return SetClaim(())

    def happened(self, items: list[object]) -> bool:
        return True

    def not_happened(self, items: list[object]) -> bool:
        return False

    @v_args(inline=True)
    def value(self, name: str, status: bool) -> tuple[str, bool]:
        return name, status

    def values_answer(self, items: list[tuple[str, bool]]) -> ValuesClaim:
        return ValuesClaim(tuple(items))

    def yes_no_answer(self, items: list[Token]) -> YesNoClaim:
        return YesNoClaim(items[0].type == "YES")


_TRANSFORMER = _ToClaims()


def parse_answer(task: str, text: str) -> Claim:
    """Parse a model's answer to a ``task`` (CP, BA, FI, CI, IE) question.

    >>> parse_answer("CP", "Answer: the a -> the b\\na → c -> b")
    PathsClaim(paths=(('a', 'b'), ('a', 'c', 'b')))
    >>> parse_answer("CI", "The x, didn’t happen.")
    ValuesClaim(values=(('x', False),))
    >>> parse_answer("IE", "<answer>No</answer>")
    YesNoClaim(yes=False)
    """
    start = _START[task.upper()]
    try:
        claim = run_parser(load_grammar(_GRAMMAR, start), _TERMINAL_NAMES, normalise(text),
                           f"{task.upper()} answer", _TRANSFORMER)
    except ParseError:
        verdict = closing_verdict(text) if start == "yes_no_answer" else None
        if verdict not in ("yes", "no"):
            raise
        return YesNoClaim(verdict == "yes")  # reasoning, then a closing verdict line
    return claim  # type: ignore[return-value]


_THREE_CLASS = ("entailment", "neutral", "contradiction")


def parse_corr2cause_answer(text: str) -> YesNoClaim | RelationClaim:
    """Read a model's answer to a Corr2Cause item: a 3-class word or a yes/no form.

    The 3-class words (entailment, neutral, contradiction) are read when the
    answer opens with one; anything else goes through the yes/no grammar
    (yes/no, valid/invalid, true/false, tags, a closing "Answer:" line).  Raises
    ``ParseError`` when neither reads.

    >>> parse_corr2cause_answer("Answer: **Neutral**.")
    RelationClaim(relation='neutral')
    >>> parse_corr2cause_answer("<answer>valid</answer>")
    YesNoClaim(yes=True)
    """
    words = normalise(text).lower().replace(".", " ").split()
    if words and words[0] in _THREE_CLASS:
        return RelationClaim(words[0])
    try:
        return parse_answer("IE", text)  # type: ignore[return-value]
    except ParseError:
        verdict = closing_verdict(text)  # "… The relation is neutral."
        if verdict not in _THREE_CLASS:
            raise
        return RelationClaim(str(verdict))
