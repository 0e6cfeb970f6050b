"""Model answers for CP, BA, FI/CI and IE → ``oracle.tasks.model`` claims.

Language models answer in many small variations; the grammar accepts what they
write and nothing that would have to be guessed:

* CP — one path per line, ``a -> b -> c`` (``→`` too, names with or without
  "the"), or ``None``;
* BA — a set: ``a, b and c`` / ``{a, b}`` / one per line, or ``None``;
* FI/CI — ``X, happened`` / ``X, not happen`` / ``X, didn't happen`` /
  ``X, will (not) happen`` lines (straight or typographic apostrophes);
* IE — ``yes`` / ``no`` (also true/false, valid/invalid).

The reply is cleaned and its answer located by ``parser.replies`` (the one reading
core of every family: think blocks, chat wrappers, code fences and ``\\boxed{}``
dropped; the inside of the last ``<answer>…</answer>``; from the last "Answer:" line
on); ``normalise`` then unifies arrows and apostrophes and trims blank lines.  A
located answer over ``replies.MAX_SPAN`` characters is not parsed.  Anything the
grammar rejects is a ``ParseError``; callers report it as ``UNREADABLE`` (never as a
wrong answer).

Public functions: ``normalise``, ``parse_answer``.
"""

from __future__ import annotations

import re
from contextlib import suppress
from functools import cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from causal_oracle.oracle.budget import checkpoint
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
from causal_oracle.parser.replies import MAX_SPAN, Reply, prepare, too_long
from causal_oracle.parser.verdicts import closing_verdict

_GRAMMAR = Path(__file__).with_name("task_answers.lark")
_TERMINAL_NAMES = {"WORD": "a word of a name", "_NL": "a new line", "$END": "end of text",
                   "_ARROW": "'->'"}
_START = {"CP": "paths_answer", "BA": "set_answer", "FI": "values_answer",
          "CI": "values_answer", "IE": "yes_no_answer"}

_ARROWS = re.compile(r"→|⟶|-->|=>|–>|—>")


def normalise(text: str) -> str:
    """The located answer (``parser.replies``: the cleaned reply, its last ``<answer>``
    pair, from its last "Answer:" line on) with odd arrows/apostrophes unified and blank
    lines dropped.

    >>> normalise("<answer> Answer: **Yes** </answer>")
    'Yes'
    >>> normalise("Answer:\\n\\nthe a → the b\\n\\n")
    'the a -> the b'
    """
    return _tidy(prepare(text).answer)


def _tidy(text: str) -> str:
    text = _unify_arrows(text.replace("\r\n", "\n"))
    text = text.replace("’", "'").replace("‘", "'")
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


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
    reply = prepare(text)
    what = f"{task.upper()} answer"
    try:
        span = reply.answer
        if len(span) > MAX_SPAN:
            raise too_long(span, what)
        parser, tidy = load_grammar(_GRAMMAR, start), _tidy(span)
        claim = _yes_no(parser, tidy, reply) if start == "yes_no_answer" else None
        if claim is None:
            claim = run_parser(parser, _TERMINAL_NAMES, tidy, what, _TRANSFORMER)
    except ParseError:
        verdict = closing_verdict(reply) if start == "yes_no_answer" else None
        if verdict not in ("yes", "no"):
            raise
        return YesNoClaim(verdict == "yes")  # reasoning, then a closing verdict line
    return claim  # type: ignore[return-value]


@cache
def _opening(parser: Lark) -> re.Pattern[str]:
    """How every yes/no answer starts: blanks the grammar ignores, then its ``YES`` or
    ``NO`` terminal (the grammar's own patterns, flags and all; the blanks taken
    possessively, as the lexer takes them: no backtracking).  A span that does not
    start so is no answer, and Lark need not be asked (its error, made for a long
    reply whose verdict is on its closing line, costs more than the rest of reading)."""
    ignored = "|".join(parser.get_terminal(name).pattern.to_regexp()
                       for name in parser.ignore_tokens)
    answer = "|".join(parser.get_terminal(name).pattern.to_regexp() for name in ("YES", "NO"))
    return re.compile(f"(?:{ignored})*+(?:{answer})" if ignored else f"(?:{answer})")


def _yes_no(parser: Lark, tidy: str, reply: Reply) -> Claim | None:
    """The yes/no answer of ``tidy`` (the located span), else of the reply's closing
    line; None when neither reads — only then is the grammar's error (with the terminals
    it expected) built, by ``run_parser``: most long replies are read by their closing
    line, and that error would be thrown away.  A span that does not open as an answer
    (``_opening``) is not given to Lark at all."""
    checkpoint()
    tree = None
    if _opening(parser).match(tidy) is not None:  # else it cannot parse: Lark not asked
        with suppress(UnexpectedInput):
            tree = parser.parse(tidy)
    if tree is None:
        verdict = closing_verdict(reply)
        return YesNoClaim(verdict == "yes") if verdict in ("yes", "no") else None
    try:
        return _TRANSFORMER.transform(tree)  # type: ignore[no-any-return]
    except VisitError:
        return None  # ``run_parser`` says why


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
    reply = prepare(text)
    words = _tidy(reply.answer[:64]).lower().replace(".", " ").split()
    if words and words[0] in _THREE_CLASS:
        return RelationClaim(words[0])
    try:
        return parse_answer("IE", reply)  # type: ignore[return-value]
    except ParseError:
        verdict = closing_verdict(reply)  # "… The relation is neutral."
        if verdict not in _THREE_CLASS:
            raise
        return RelationClaim(str(verdict))
