"""The CaLM part that answers its numeric effect tasks: ATE, CDE, ETT, NDE, NIE (``-B_*-natural``
yes/no, ``-P_*-basic``/``-hard`` a probability to 4 decimals) and PN, PS (Tian–Pearl bounds).

* reading: ``parser.calm_effects`` (a Lark grammar over the numbers and the question, the
  names replaced by placeholders), records and rendered prompts of every style alike;
* answering: ``oracle.calm.effects_solve`` — exact rationals over the stated numbers, the
  adjustment set read off the numbers and checked against the graph, and an enclosure of
  the value over every number that prints the same; re-checked by
  ``oracle.calm.check_effects`` (path enumeration and nested counterfactual worlds);
* grading: a probability is right when it lies within half a unit of the fourth decimal of
  the enclosure (the stated numbers are rounded, so is the reply); a yes/no follows CaLM's
  rule (yes when the effect is positive — negative for its ETT — and at least 0.001 away
  from zero), ungradable when numbers that print the same could flip it.

A task id without its variant (``ATE-any`` … ``PS-any``) is what a bare prompt reads as:
CaLM renders the natural, basic and hard variants with one template.  Audit causes:
``degenerate_question`` (treatment = outcome), ``hidden_effect_threshold`` (the sign says
yes, CaLM's |effect| < 0.001 rule says no), ``rounded_intermediates`` (the gold differs
from the exact value at 4 decimals but lies in the rounding enclosure),
``translation_reverses_question`` (the question names treatment and outcome the other
way round from the instruction).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, ClassVar

from causal_oracle.entry.audit_record import Picture
from causal_oracle.entry.families.calm_part import (
    DEGENERATE,
    HIDDEN_THRESHOLD,
    REVERSED,
    ROUNDED,
    CalmPart,
    CalmQuestion,
)
from causal_oracle.entry.families.drawing import digraph
from causal_oracle.entry.registry import GoldJudgement, Judgement, Rendered
from causal_oracle.oracle.calm.effects import NEAR_ZERO, EffectAnswer
from causal_oracle.oracle.calm.effects_model import HALF_UNIT, EffectKind, EffectQuestion
from causal_oracle.oracle.calm.effects_solve import EffectSolution, solve
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.oracle.errors import CertificateRejected, InputError
from causal_oracle.oracle.reasoning.facts import dag_facts
from causal_oracle.oracle.reasoning.model import Facts, Quantity, Value
from causal_oracle.parser.calm_effects import read_record, read_text, record_text
from causal_oracle.parser.calm_effects_reply import read_effect_yes_no, read_probability
from causal_oracle.parser.calm_effects_story import render_basic, split_prompt
from causal_oracle.parser.calm_prompt import item_text

_EFFECTS = ("ATE", "CDE", "ETT", "NDE", "NIE")
#: task id → (kind, answered yes/no)
TASKS: dict[str, tuple[EffectKind, bool]] = {}
for _k in _EFFECTS:
    TASKS[f"{_k}-B_{_k}-natural"] = (EffectKind(_k), True)
    TASKS[f"{_k}-P_{_k}-basic"] = (EffectKind(_k), False)
    TASKS[f"{_k}-P_{_k}-hard"] = (EffectKind(_k), False)
for _k in ("PN", "PS"):
    TASKS[f"{_k}-P_{_k}-basic"] = (EffectKind(_k), False)
    TASKS[f"{_k}-P_{_k}-hard"] = (EffectKind(_k), False)
for _k in (*_EFFECTS, "PN", "PS"):
    TASKS[f"{_k}-any"] = (EffectKind(_k), False)

_OPENERS = {Lang.EN: ("Input Info:",), Lang.CN: ("输入信息：",)}
_YES_NO = {Lang.EN: ("No", "Yes"), Lang.CN: ("否", "是")}
_INSTRUCTION = {Lang.EN: "\nInstruction:", Lang.CN: "\n指令："}


def _four(value: Fraction) -> str:
    return f"{float(value):.4f}"


class EffectsPart(CalmPart[EffectQuestion, EffectSolution]):
    """CaLM's numeric effect tasks (see the module docstring)."""

    name = "effects"
    tasks = tuple(TASKS)
    openers: ClassVar[Mapping[Lang, tuple[str, ...]]] = _OPENERS

    # -- reading ---------------------------------------------------------------------
    def recognise(self, text: str, lang: Lang) -> str | None:
        if _INSTRUCTION[lang] not in text or not any(o in text for o in _OPENERS[lang]):
            return None
        try:
            item = item_text(text, _OPENERS[lang])
        except InputError:
            return None
        at = item.find(_INSTRUCTION[lang])
        line = item[at:item.find("\n", at + 1)]
        for kind in EffectKind:
            if f"({kind.value})" in line or f", {kind.value})" in line:
                return f"{kind.value}-any"
        return None

    def task_of_record(self, record: Mapping[str, Any]) -> str | None:
        """The kind from the instruction's "(ATE)" / ", ATE)"; the natural variant when
        the gold is a yes/no word, else the variant-less id."""
        background = record.get("Background")
        instruction = record.get("Instruction")
        if not isinstance(background, Mapping) or not isinstance(instruction, str):
            return None
        for kind in EffectKind:
            if f"({kind.value})" in instruction or f", {kind.value})" in instruction:
                k = kind.value
                natural = f"{k}-B_{k}-natural"
                return natural if (isinstance(record.get("gt_answer"), str)
                                   and natural in TASKS) else f"{k}-any"
        return None

    def from_record(self, task: str, record: Mapping[str, Any], lang: Lang) -> EffectQuestion:
        q = read_record(record, lang)
        return self._matches(task, q)

    def from_prompt(self, task: str, text: str, lang: Lang) -> EffectQuestion:
        q = read_text(split_prompt(item_text(text, _OPENERS[lang])))
        return self._matches(task, q)

    def _matches(self, task: str, q: EffectQuestion) -> EffectQuestion:
        kind = TASKS[self.canonical(task)][0]
        if q.kind is not kind:
            raise InputError(f"the task {task!r} asks for {kind.value}, the text for "
                             f"{q.kind.value}")
        return q

    def prompt(self, task: str, record: Mapping[str, Any], lang: Lang) -> str:
        kind = TASKS[self.canonical(task)][0]
        return render_basic(record_text(record, lang), kind in (EffectKind.PN, EffectKind.PS))

    def gold(self, task: str, record: Mapping[str, Any]) -> Any:
        if "gt_answer" not in record:
            return None
        value = record["gt_answer"]
        if TASKS[self.canonical(task)][1]:
            words = {"yes": 1, "是": 1, "no": 0, "否": 0}
            if not isinstance(value, str) or value.strip().lower() not in words:
                raise InputError(f"gt_answer {value!r} is not Yes/No (是/否)")
            return words[value.strip().lower()]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(f"gt_answer {value!r} is not a number")
        return value

    # -- answering -------------------------------------------------------------------
    def solve(self, question: CalmQuestion) -> EffectSolution:
        return solve(question.formal)

    def check(self, question: CalmQuestion, solution: EffectSolution) -> EffectSolution:
        from causal_oracle.oracle.calm.check_effects import check_effect

        if solution.answer is not None:
            check_effect(question.formal, solution.answer)
        elif not solution.reason:
            raise CertificateRejected("an undetermined effect must say why")
        return solution

    def _yes_no(self, question: CalmQuestion) -> bool:
        return TASKS[question.task][1]

    def render(self, question: CalmQuestion, solution: EffectSolution) -> Rendered:
        a = solution.answer
        if a is None:
            return Rendered(None, f"undetermined: {solution.reason}")
        if self._yes_no(question):
            assert a.yes is not None
            return Rendered(a.yes, _YES_NO[question.lang][a.yes])
        return Rendered(float(a.value), _four(a.value))

    def explain(self, question: CalmQuestion, solution: EffectSolution) -> str:
        q: EffectQuestion = question.formal
        a = solution.answer
        if a is None:
            return f"undetermined: {solution.reason}"
        ident = a.identification
        parts = [f"{q.kind.value} of {q.names[q.treatment]} on {q.names[q.outcome]}: "
                 f"{ident.strategy}"]
        if ident.adjustment:
            parts.append("adjusting for " + ", ".join(q.names[v] for v in ident.adjustment))
        if ident.mediators:
            parts.append("mediators " + ", ".join(q.names[v] for v in ident.mediators))
        parts.append(f"value {_four(a.value)} (exact {a.value}; every value the printed "
                     f"numbers allow lies in [{_four(a.interval.lo)}, {_four(a.interval.hi)}])")
        if a.yes is not None:
            parts.append(f"CaLM's rule: {'yes' if a.yes else 'no'}")
        return "; ".join(parts)

    # -- grading ---------------------------------------------------------------------
    def read_reply(self, question: CalmQuestion, text: str) -> Any:
        if self._yes_no(question):
            return read_effect_yes_no(text)
        return read_probability(text)

    def judge(self, question: CalmQuestion, solution: EffectSolution, claim: Any
              ) -> Judgement:
        a = solution.answer
        if a is None:
            return Judgement(None, str(claim), solution.reason, gradable=False)
        if self._yes_no(question):
            shown = _YES_NO[question.lang][bool(claim)]
            if a.rule_straddles:
                return Judgement(None, shown, "numbers that print the same give either "
                                 "answer under CaLM's rule", gradable=False)
            ok = bool(claim) == a.yes
            return Judgement(ok, shown, "matches" if ok else "differs")
        value = Fraction(claim)
        ok = a.interval.lo - HALF_UNIT <= value <= a.interval.hi + HALF_UNIT
        return Judgement(ok, _four(value), f"certified range [{_four(a.interval.lo)}, "
                         f"{_four(a.interval.hi)}]")

    def judge_gold(self, question: CalmQuestion, solution: EffectSolution, gold: Any
                   ) -> GoldJudgement:
        derived = self.render(question, solution).text
        if gold is None:
            return GoldJudgement(None, None, derived, reason="the record has no gold")
        claim = bool(gold) if self._yes_no(question) else Fraction(str(gold))
        verdict = self.judge(question, solution, claim)
        return GoldJudgement(verdict.correct, gold, derived, ambiguous=not verdict.gradable,
                             reason=None if verdict.correct else verdict.reason)

    def causes(self, question: CalmQuestion, solution: EffectSolution, gold: Any
               ) -> tuple[str, ...]:
        q: EffectQuestion = question.formal
        out = []
        if q.degenerate:
            out.append(DEGENERATE)
        if q.reversed_question:
            out.append(REVERSED)
        a = solution.answer
        if a is not None and hidden_threshold(q, a):
            out.append(HIDDEN_THRESHOLD)
        if (a is not None and gold is not None and not self._yes_no(question)
                and round(float(gold), 4) != round(float(a.value), 4)
                and a.interval.lo - HALF_UNIT <= Fraction(str(gold)) <= a.interval.hi
                + HALF_UNIT):
            out.append(ROUNDED)
        return tuple(out)

    def dot(self, question: CalmQuestion, solution: EffectSolution) -> str | None:
        q: EffectQuestion = question.formal
        edges = [(q.names[a], q.names[b]) for a, b in q.edges]
        marked = {q.names[q.treatment], q.names[q.outcome]}
        a = solution.answer
        if a is not None:
            marked |= {q.names[v] for v in a.identification.adjustment}
        return digraph("calm", list(q.names), edges, marked_nodes=marked,
                       title=f"{question.task}: {self.render(question, solution).text}")

    def picture(self, question: CalmQuestion, solution: EffectSolution) -> Picture | None:
        q: EffectQuestion = question.formal
        marked = {q.names[q.treatment], q.names[q.outcome]}
        if solution.answer is not None:
            marked |= {q.names[v] for v in solution.answer.identification.adjustment}
        return Picture(f"{question.task}: {self.render(question, solution).text}",
                       tuple(q.names), tuple((q.names[a], q.names[b]) for a, b in q.edges),
                       marked=tuple(sorted(marked)))

    def derivation(self, question: CalmQuestion, solution: EffectSolution) -> Any:
        a = solution.answer
        if a is None:
            return {"undetermined": solution.reason}
        q: EffectQuestion = question.formal
        return {"kind": a.kind.value, "value": str(a.value), "value_4dp": _four(a.value),
                "interval": [str(a.interval.lo), str(a.interval.hi)], "yes": a.yes,
                "strategy": a.identification.strategy,
                "adjustment": [q.names[v] for v in a.identification.adjustment],
                "mediators": [q.names[v] for v in a.identification.mediators]}

    def reasoning_facts(self, question: CalmQuestion, solution: EffectSolution) -> Facts:
        """The graph; the stated probabilities and the exact effect (its enclosure over
        every number that prints the same) as numbers; the treatment and outcome as the
        query; the yes/no of a natural task where CaLM's rule decides it.  A probability
        written with numerals is not decidable (``_unnumbered``): the stated ones are
        keyed by this reading's value numbering, which a reply cannot know."""
        q: EffectQuestion = question.formal
        numbers = {Quantity("P", tuple(sorted(s.event)), tuple(sorted(s.given))):
                   Value(float(s.value), float(s.value)) for s in q.stated}
        a = solution.answer
        answer = None
        if a is not None:
            numbers[Quantity(q.kind.value.lower())] = Value(float(a.interval.lo),
                                                            float(a.interval.hi))
            if self._yes_no(question) and not a.rule_straddles:
                answer = a.yes
        return dag_facts(q.names, q.edges, query=(q.treatment, q.outcome), numbers=numbers,
                         answer=answer, unnumbered=_unnumbered(q))


def _unnumbered(q: EffectQuestion) -> str:
    """Why a numeral value is not fixed on this item: its text names each value in words
    (value 0 here is the word the text gives first, CaLM's own numbering is another), so
    "P(C=0|B=1)" may mean either word."""
    named = next(((q.names[v], pair) for v, pair in enumerate(q.values)
                  if len(pair) == 2 and all(pair) and "?" not in pair), None)
    example = f" (e.g. {named[0]}: {named[1][0]}/{named[1][1]})" if named else ""
    return (f"the item names its variables' values only in words{example}, never which "
            "is 0 or 1")


def hidden_threshold(q: EffectQuestion, a: EffectAnswer) -> bool:
    """Whether CaLM's |effect| < 0.001 rule, not the sign, decides the yes/no."""
    if a.yes is None or a.value == 0 or abs(a.value) >= NEAR_ZERO:
        return False
    return (a.value < 0) if q.kind is EffectKind.ETT else (a.value > 0)


PART = EffectsPart()

__all__ = ["PART", "TASKS", "EffectsPart", "hidden_threshold"]
