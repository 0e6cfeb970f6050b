"""The contract of a *part* of the CaLM family: the code that answers a group of its tasks.

CaLM (Chen et al. 2024) has some 30 formally generated tasks of very different kinds
(graph questions, effect computations, CLadder-derived questions).  The family
(``entry.families.calm``) is one ``Family``; each group of tasks is a ``CalmPart``
listed in its ``PARTS`` table, and every ``Family`` method is dispatched to the part that
owns the question's task.  Adding a part = writing a ``CalmPart`` subclass and one line
in ``PARTS``.

Task ids
--------
A task id is CaLM's data-file name without the language suffix: ``CEI-B_0.2-UC``,
``BAS-C_min-BAS``, ``ATE-P_ATE-basic``, ``CR-B_det-counterfactual``.  ``CalmPart.tasks``
lists the exact ids a part owns (no prefixes: the registry matches task names exactly,
case-insensitively); no two parts share an id.  The language is a ``Lang`` (EN/CN),
never part of the id.

What the family hands a part, and when
--------------------------------------
* ``row(raw)``: a CaLM record as shipped (one JSON object of ``<task>_<lang>.json``) plus
  the keys ``task`` (a task id) and ``lang`` (``"EN"``/``"CN"``) that whoever reads the
  file adds from its name (``calm.record_row``).  The family calls ``part.prompt(task,
  record, lang)`` for the text a model sees and ``part.gold(task, record)`` for the gold.
* ``parse(text, options)``: a rendered CaLM prompt in any style (``parser.calm_prompt``).
  The task is ``options.task`` when given, else the first part whose ``recognise(text,
  lang)`` names one.  The family calls ``part.from_prompt(task, text, lang)``; the part
  finds its item with ``parser.calm_prompt.item_text(text, openers)`` (the style wrapper
  and the in-context examples never reach it) and reads only that.
* ``solve`` / ``check`` / ``render`` / ``explain`` / ``read_reply`` / ``judge`` /
  ``judge_gold`` / ``dot`` / ``derivation`` / ``causes`` / ``reasoning_facts``: the
  ``CalmQuestion`` the parse produced (``question.formal`` is the part's own formal
  question) and, where named, the part's solution (whatever type its ``solve`` returns:
  a frozen record holding the answer and its certificate).

Errors: a part raises ``ParseError`` (unreadable text: where and why, quoting ≤ 200
characters) or ``InputError`` (well-formed but not a valid question); ``check`` raises
``CertificateRejected`` when the independent checker disagrees (a bug, never an answer).
A question the text does not decide (a CN CLadder prompt without its graph) is not an
error: the part's solution says ``undetermined`` and ``causes`` names why.  Solvers and
checkers call ``oracle.budget.checkpoint()`` in every loop over input.

How an audited row comes out (``Calm.audit_fields``, then ``entry.audit_record``):
``judge_gold``'s ``GoldJudgement`` decides it — ``ambiguous=True`` → AMBIGUOUS (with
``reason``); ``agree`` True/False → AGREE/DISAGREE; ``agree`` None on a row with gold →
UNDETERMINED (``reason``, or "degenerate question" when ``causes`` holds
``DEGENERATE``).  ``causes(question, solution, gold)`` gives the row's cause classes
(``"kind"`` of each ``{"kind", "detail"}`` cause the audit summary counts), whatever the
outcome: a flagged degenerate item may still agree.

Writing a part: a module ``entry/families/calm_<part>.py`` defining the subclass and a
module-level instance, its parser in ``parser/calm_<part>*.py``, its solver and checker in
``oracle/calm/`` (the checker importing only ``oracle.calm`` model modules), and one line
in ``calm.PARTS``.  ``render(...).data`` and ``derivation`` must be JSON-ready.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from causal_oracle.entry.audit_record import Picture
from causal_oracle.entry.registry import GoldJudgement, Judgement, Rendered
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.parser.calm_prompt import Style

F = TypeVar("F")  # a part's formal question
S = TypeVar("S")  # a part's solution (answer + certificate)

#: the audit cause classes shared by the parts (a part may add its own, e.g. CLadder's)
DEGENERATE = "degenerate_question"
SEVERAL_VALID = "several_valid_options"
NO_VALID = "no_valid_option"
ROUNDED = "rounded_intermediates"
HIDDEN_THRESHOLD = "hidden_effect_threshold"
REVERSED = "translation_reverses_question"
GRAPH_MISSING = "graph_missing_from_prompt"


@dataclass(frozen=True, slots=True)
class CalmQuestion:
    """One CaLM question: the task id, the language, the prompt style (None when read
    from a record or not recognised) and the part's formal question."""

    task: str
    lang: Lang
    style: Style | None
    formal: Any


class CalmPart(ABC, Generic[F, S]):
    """The code that answers a group of CaLM tasks (see the module docstring).

    Class attributes: ``name`` (a short word, unique among parts), ``tasks`` (the exact
    task ids it owns), ``openers`` (per language, the words every rendering of its items
    starts with: what ``parser.calm_prompt`` looks for), ``binary`` (its tasks are
    answered yes/no).
    """

    name: ClassVar[str]
    tasks: ClassVar[tuple[str, ...]]
    openers: ClassVar[Mapping[Lang, tuple[str, ...]]]
    binary: ClassVar[bool] = False

    def owns(self, task: str) -> bool:
        """Whether ``task`` (any case) is one of this part's task ids."""
        return any(task.casefold() == t.casefold() for t in self.tasks)

    def canonical(self, task: str) -> str:
        """``task`` spelt as in ``tasks`` (``InputError`` if not this part's)."""
        for t in self.tasks:
            if t.casefold() == task.casefold():
                return t
        raise InputError(f"the CaLM part {self.name!r} does not answer task {task!r}")

    # -- reading ---------------------------------------------------------------------
    def recognise(self, text: str, lang: Lang) -> str | None:
        """The task id a rendered prompt ``text`` reads as, or None when it is not one of
        this part's (cheap: marker tests, no parsing).  Default: None (a part whose tasks
        cannot be told apart from the text needs the task given)."""
        return None

    def task_of_record(self, record: Mapping[str, Any]) -> str | None:
        """The task id a record without a ``task`` key reads as (by its fields), or None
        (default: the part cannot tell)."""
        return None

    @abstractmethod
    def from_record(self, task: str, record: Mapping[str, Any], lang: Lang) -> F:
        """The formal question of a record as shipped (``ParseError``/``InputError``
        saying which field and why)."""

    @abstractmethod
    def from_prompt(self, task: str, text: str, lang: Lang) -> F:
        """The formal question of a rendered prompt in any style; the part reads only its
        item (``parser.calm_prompt.item_text(text, self.openers[lang])``)."""

    @abstractmethod
    def prompt(self, task: str, record: Mapping[str, Any], lang: Lang) -> str:
        """The record rendered as CaLM's ``basic`` style renders it (the text a model sees;
        ``from_prompt`` must read it back to the same formal question)."""

    @abstractmethod
    def gold(self, task: str, record: Mapping[str, Any]) -> Any:
        """The record's gold (``gt_answer``) in the part's own form, None when the
        record has none (the full set withholds it); ``InputError`` when it is there but
        unusable."""

    # -- answering -------------------------------------------------------------------
    @abstractmethod
    def solve(self, question: CalmQuestion) -> S:
        """The answer with its certificate (solvers never see text)."""

    @abstractmethod
    def check(self, question: CalmQuestion, solution: S) -> S:
        """Re-verify ``solution`` with a checker that shares no code with the solver;
        return it, or raise ``CertificateRejected``."""

    @abstractmethod
    def render(self, question: CalmQuestion, solution: S) -> Rendered:
        """The answer as data and as CaLM expects it written ("Yes"/"No", "是"/"否",
        "Option 2", a probability to 4 decimals)."""

    @abstractmethod
    def explain(self, question: CalmQuestion, solution: S) -> str:
        """Why the answer is right, in words."""

    # -- grading ---------------------------------------------------------------------
    @abstractmethod
    def read_reply(self, question: CalmQuestion, text: str) -> Any:
        """A model's reply as a claim, in any common form (through ``parser.replies``):
        Yes/No, 是/否, "Option 2"/"选项二"/"2", JSON ``{"answer": …}``/``{"prob": …}``;
        ``InputError`` saying why when unreadable."""

    @abstractmethod
    def judge(self, question: CalmQuestion, solution: S, claim: Any) -> Judgement:
        """Grade a claim against the certified answer (``correct`` None, ``gradable``
        False when no answer is right: a degenerate or ambiguous question)."""

    def judge_gold(self, question: CalmQuestion, solution: S, gold: Any) -> GoldJudgement:
        """The record's gold (``gold(...)``'s value) against the certified answer.
        Default: the gold read as a reply (``str(gold)``) and judged."""
        derived = self.render(question, solution).text
        try:
            claim = self.read_reply(question, str(gold))
        except InputError as error:
            return GoldJudgement(None, gold, derived, reason=error.describe())
        verdict = self.judge(question, solution, claim)
        return GoldJudgement(verdict.correct, gold, derived, ambiguous=not verdict.gradable,
                             reason=verdict.reason)

    # -- optional hooks --------------------------------------------------------------
    def causes(self, question: CalmQuestion, solution: S, gold: Any) -> tuple[str, ...]:
        """The audit cause classes of this item (``DEGENERATE``, ``SEVERAL_VALID``, …, or
        the part's own), whatever the gold says; default none."""
        return ()

    def dot(self, question: CalmQuestion, solution: S) -> str | None:
        """The question's graph in Graphviz DOT, or None (default)."""
        return None

    def derivation(self, question: CalmQuestion, solution: S) -> Any:
        """The explanation as JSON-ready data, or None (default)."""
        return None

    def picture(self, question: CalmQuestion, solution: S) -> Picture | None:
        """The question's graph as an audit report draws it (what ``dot`` shows), or
        None (default)."""
        return None

    def reasoning_facts(self, question: CalmQuestion, solution: S) -> Facts | None:
        """What a reply's reasoning is checked against (``Family.reasoning_facts``),
        or None (default: the part's claims are not checked)."""
        return None


__all__ = ["DEGENERATE", "GRAPH_MISSING", "HIDDEN_THRESHOLD", "NO_VALID", "REVERSED",
           "ROUNDED", "SEVERAL_VALID", "CalmPart", "CalmQuestion"]
