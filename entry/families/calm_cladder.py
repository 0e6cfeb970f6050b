"""The CaLM part for CaLM's CLadder-derived tasks: backdoor sets, collider bias,
correlation, explaining away, deterministic counterfactuals.

A CaLM item of these tasks is a CLadder question in CaLM's template
(``parser.calm_cladder``); this part maps it onto the CLadder family's own reader
(``parser.cladder``), solver (``oracle.cladder.solve``) and independent checker
(``oracle.cladder.check``) — nothing of CLadder is copied.  What CaLM adds:

* the task must be the one the CLadder question asks (``BAS-B_backadj`` a ``backadj``
  question, …), else ``InputError``;
* a prompt rendered without its graph (every Chinese prompt and the English full set:
  CaLM's template drops the record's ``background``) is **undetermined** with the cause
  ``graph_missing_from_prompt`` — never guessed;
* a Chinese *record* (which has its graph in ``background``) is read by
  ``parser.calm_cladder_zh`` into the same CLadder question; a phrase that does not bind
  to one variable and value is **undetermined** (``names_unbound``), as is a background
  whose graph is none of CLadder's ten (``graph_not_a_cladder_shape``); a Chinese question
  whose wording is the reverse of the English one its record's ``meta`` describes, and
  whose answer then differs from the copied gold, is flagged
  ``translation_reverses_question``;
* answers are written as CaLM expects them ("Yes"/"No", "是"/"否") and the gold
  ``gt_answer`` is "yes"/"no";
* audit causes: ``graph_missing_from_prompt``, ``names_unbound`` and
  ``graph_not_a_cladder_shape`` (Chinese records, above), ``other_valid_adjustment_set`` (a
  ``backadj`` question whose two sets are both valid: ambiguous),
  ``contradicting_counterfactual_premise``, ``translation_reverses_question``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from causal_oracle.entry.families.calm_part import (
    GRAPH_MISSING,
    REVERSED,
    CalmPart,
    CalmQuestion,
)
from causal_oracle.entry.registry import GoldJudgement, Judgement, Rendered
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.oracle.cladder.explain import explain as explain_cladder
from causal_oracle.oracle.cladder.model import CladderQuestion, QueryType
from causal_oracle.oracle.cladder.solve import (
    BOTH_VALID,
    CONTRADICTING_PREMISE,
    CladderSolution,
    Outcome,
    solve,
)
from causal_oracle.oracle.errors import CertificateRejected, InputError
from causal_oracle.parser import calm_cladder as read
from causal_oracle.parser.calm_cladder_zh import ZhReading, read_zh, split_background
from causal_oracle.parser.calm_reply import read_yes_no
from causal_oracle.parser.cladder import parse_cladder

#: CaLM's task id → the CLadder query type it asks
KINDS: Mapping[str, QueryType] = {
    "BAS-B_backadj": QueryType.BACKADJ, "CB-B_collider-bias": QueryType.COLLIDER_BIAS,
    "CORR-B_correlation": QueryType.CORRELATION, "EAE-B_exp-away": QueryType.EXP_AWAY,
    "CR-B_det-counterfactual": QueryType.DET_COUNTERFACTUAL}
_YES_NO = {Lang.EN: {True: "Yes", False: "No"}, Lang.CN: {True: "是", False: "否"}}
OTHER_VALID_SET = "other_valid_adjustment_set"
CONTRADICTING = "contradicting_counterfactual_premise"


@dataclass(frozen=True, slots=True)
class CladderFormal:
    """The part's formal question: the CLadder question, or what the text lacks."""

    question: CladderQuestion | None
    missing: str | None = None
    #: why the text does not bind (the phrase and its candidates), for ``missing``
    detail: str = ""
    #: a Chinese record whose question's wording is the reverse of its English ``meta``
    reversed_question: bool = False


@dataclass(frozen=True, slots=True)
class CladderAnswer:
    """The CLadder solution (None when the text lacks what the question needs)."""

    solution: CladderSolution | None
    missing: str | None = None
    detail: str = ""

    @property
    def decided(self) -> bool | None:
        if self.solution is None or self.solution.outcome is Outcome.UNDETERMINED:
            return None
        return self.solution.outcome is Outcome.YES


class CladderPart(CalmPart[CladderFormal, CladderAnswer]):
    """CaLM's five CLadder-derived tasks (module docstring)."""

    name = "cladder"
    tasks = tuple(KINDS)
    openers: ClassVar[Mapping[Lang, tuple[str, ...]]] = read.OPENERS
    binary = True

    # -- reading ---------------------------------------------------------------------
    def recognise(self, text: str, lang: Lang) -> str | None:
        if not any(o in text for o in read.OPENERS[lang]):
            return None
        try:
            item = read.item_of_prompt(text, lang)
        except InputError:
            return None
        return read.task_of_text(item.given_info + "\n" + item.question, lang)

    def _formal(self, task: str, item: read.CladderItem) -> CladderFormal:
        if item.missing is not None:
            return CladderFormal(None, item.missing)
        if item.lang is Lang.CN:  # a prompt that carries its graph: the background first
            return self._chinese(task, read_zh(*split_background(item.given_info),
                                               item.question))
        return self._checked(task, CladderFormal(parse_cladder(item.cladder_text())))

    def _chinese(self, task: str, zh: ZhReading, record: Mapping[str, Any] | None = None
                 ) -> CladderFormal:
        if zh.question is None:
            return CladderFormal(None, zh.unbound, zh.detail)
        reversed_question = record is not None and _reversed(record, zh.polarity)
        return self._checked(task, CladderFormal(zh.question,
                                                 reversed_question=reversed_question))

    def _checked(self, task: str, formal: CladderFormal) -> CladderFormal:
        assert formal.question is not None
        if formal.question.kind is not KINDS[self.canonical(task)]:
            raise InputError(f"the item asks a CLadder {formal.question.kind.value} question, "
                             f"not one of task {task}")
        return formal

    def from_record(self, task: str, record: Mapping[str, Any], lang: Lang) -> CladderFormal:
        item = read.item_of_record(record, lang)
        background = record.get("background")
        if lang is Lang.CN and isinstance(background, str):  # the graph is in its own field
            return self._chinese(task, read_zh(background, str(record["given_info"]),
                                               item.question), record)
        return self._formal(task, item)

    def from_prompt(self, task: str, text: str, lang: Lang) -> CladderFormal:
        return self._formal(task, read.item_of_prompt(text, lang))

    def prompt(self, task: str, record: Mapping[str, Any], lang: Lang) -> str:
        return read.render(record, lang)

    def gold(self, task: str, record: Mapping[str, Any]) -> Any:
        if "gt_answer" not in record:
            return None
        value = str(record["gt_answer"]).strip().casefold()
        if value not in ("yes", "no"):
            raise InputError(f"gt_answer {record['gt_answer']!r} is not yes or no")
        return int(value == "yes")

    # -- answering -------------------------------------------------------------------
    def solve(self, question: CalmQuestion) -> CladderAnswer:
        formal: CladderFormal = question.formal
        if formal.question is None:
            return CladderAnswer(None, formal.missing, formal.detail)
        return CladderAnswer(solve(formal.question))

    def check(self, question: CalmQuestion, solution: CladderAnswer) -> CladderAnswer:
        formal: CladderFormal = question.formal
        if formal.question is None or solution.solution is None:
            if (formal.question is None) != (solution.solution is None):
                raise CertificateRejected("the answer and the question disagree on whether "
                                          "the text can be read")
            return solution
        from causal_oracle.oracle.cladder.check import check  # numpy, networkx: lazily

        check(formal.question, solution.solution)
        return solution

    def render(self, question: CalmQuestion, solution: CladderAnswer) -> Rendered:
        decided = solution.decided
        if decided is not None:
            return Rendered(decided, _YES_NO[question.lang][decided])
        if solution.solution is None:
            return Rendered(None, f"undetermined ({solution.missing})")
        reason = solution.solution.reason
        return Rendered(None, f"undetermined ({reason.value if reason else 'not decided'})")

    def explain(self, question: CalmQuestion, solution: CladderAnswer) -> str:
        formal: CladderFormal = question.formal
        if formal.question is None or solution.solution is None:
            if solution.missing != GRAPH_MISSING:
                return f"undetermined ({solution.missing}): {solution.detail}"
            return ("the prompt lacks the question's causal graph (CaLM's template drops the "
                    "record's background): undetermined")
        return explain_cladder(formal.question, solution.solution)

    # -- grading ---------------------------------------------------------------------
    def read_reply(self, question: CalmQuestion, text: str) -> Any:
        return read_yes_no(text)

    def judge(self, question: CalmQuestion, solution: CladderAnswer, claim: Any) -> Judgement:
        said = _YES_NO[question.lang][bool(claim)]
        decided = solution.decided
        if decided is None:
            return Judgement(None, said, "no answer is certified: "
                             + self.render(question, solution).text, gradable=False)
        ok = bool(claim) == decided
        return Judgement(ok, said, "matches" if ok else "differs")

    def judge_gold(self, question: CalmQuestion, solution: CladderAnswer, gold: Any
                   ) -> GoldJudgement:
        derived = self.render(question, solution).text
        if gold is None:
            return GoldJudgement(None, None, derived, reason="the record has no gold")
        decided = solution.decided
        if decided is None:
            return GoldJudgement(None, gold, derived, reason=derived)
        agree = bool(gold) == decided
        assert solution.solution is not None
        if BOTH_VALID in solution.solution.flags:
            return GoldJudgement(agree, gold, derived, ambiguous=True,
                                 reason="both adjustment sets are valid")
        return GoldJudgement(agree, gold, derived, reason=None if agree else
                             f"oracle: {solution.solution.outcome.value}")

    def causes(self, question: CalmQuestion, solution: CladderAnswer, gold: Any
               ) -> tuple[str, ...]:
        if solution.solution is None:
            return (solution.missing or GRAPH_MISSING,)
        flags = solution.solution.flags
        out = tuple(c for f, c in ((BOTH_VALID, OTHER_VALID_SET),
                                   (CONTRADICTING_PREMISE, CONTRADICTING)) if f in flags)
        formal: CladderFormal = question.formal
        decided = solution.decided
        if formal.reversed_question and gold is not None and decided is not None and \
                bool(gold) != decided:
            out += (REVERSED,)  # the translation asks the reverse; the gold is the English one
        return out

    def derivation(self, question: CalmQuestion, solution: CladderAnswer) -> Any:
        if solution.solution is None:
            return {"answer": None, "missing": solution.missing, "detail": solution.detail}
        s = solution.solution
        return {"answer": s.outcome.value, "reason": s.reason.value if s.reason else None,
                "flags": list(s.flags)}


def _reversed(record: Mapping[str, Any], polarity: bool | None) -> bool:
    """Whether a Chinese question's wording (``polarity``: affirmative, the
    counterfactual's outcome value, or whether backadj's Method 1 adjusts) is the reverse
    of the English question the record's ``meta`` describes (``polarity``; for backadj
    the two methods' sets, ``given_info``); False without it."""
    meta = record.get("meta")
    if not isinstance(meta, Mapping) or polarity is None:
        return False
    if meta.get("query_type") == "backadj":
        sets = meta.get("given_info")
        if not isinstance(sets, list) or len(sets) != 2:
            return False
        return bool(sets[0]) != polarity
    english = meta.get("polarity")
    return isinstance(english, bool | int) and bool(english) != polarity


PART = CladderPart()

__all__ = ["KINDS", "PART", "CladderAnswer", "CladderFormal", "CladderPart"]
