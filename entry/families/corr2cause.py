"""The Corr2Cause family: a closed-world premise, a hypothesis, a label over the class.

A question is a ``Premise`` and a ``Hypothesis`` (``parser/corr2cause.lark``) read
under a semantics ``Profile`` (DESIGN.md §3.1).  ``solve`` analyses the premise's
Markov equivalence class (``oracle.equivalence``) and labels the hypothesis
(``oracle.labels``: entailment, neutral, contradiction — or inconsistent when no DAG
fits); ``check`` has the independent checker (``oracle.check``) re-verify the
certificate.  Replies are read by ``parser.task_answers.parse_corr2cause_answer``: a
3-class word is graded against the relation, a yes/no form against the binary label.

Rows: the generator's ``premise``/``hypothesis``/``label`` or the published
``input``/``label`` (``"Premise: …\\nHypothesis: …"``); gold read by
``entry.gold.binary_gold``.  Its audit fields (``audit_fields``) are the report's
Corr2Cause record, with the certificate and the causes of each disagreement; its
facets the relation and the number of variables; a finding is drawn as its class
(``class_pictures``).

    >>> from causal_oracle.entry import default
    >>> item = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
    ...         "statistical relations among these 2 variables are as follows: A correlates "
    ...         "with B.\\nHypothesis: A directly causes B.")
    >>> a = default().answer(item)
    >>> a.task, a.answer["relation"], a.answer_text
    ('corr2cause', 'neutral', 'no')
    >>> default().grade(item, "Neutral.").correct
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from causal_oracle.entry.audit_quick import QuickAudit
from causal_oracle.entry.audit_record import Drawing, Facet
from causal_oracle.entry.audit_record import Outcome as Audit
from causal_oracle.entry.families.corr2cause_audit import (
    AMBIGUOUS,
    QUICK_PROFILES,
    audit_fields,
    class_pictures,
    quick_audit,
    record_of,
)
from causal_oracle.entry.families.corr2cause_memory import Corr2CauseMemory
from causal_oracle.entry.families.corr2cause_result import (
    RELATIONS,
    Corr2CauseQuestion,
    VerifyResult,
    check_limits,
    check_solution,
    expected_reply,
    judge_reply,
    solve,
)
from causal_oracle.entry.gold import binary_gold, row_key, split_input
from causal_oracle.entry.limits import Limits
from causal_oracle.entry.registry import (
    Family,
    Generator,
    Item,
    Judgement,
    Options,
    Rendered,
)
from causal_oracle.oracle.explain import explain_json
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.reasoning.facts import class_facts
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.oracle.relations import Profile
from causal_oracle.parser import parse_item
from causal_oracle.parser.replies import prepare
from causal_oracle.parser.task_answers import parse_corr2cause_answer

NAME = "corr2cause"


class Corr2Cause(Family[Corr2CauseQuestion, VerifyResult]):
    """Corr2Cause items (DESIGN.md §3.1), any profile but ``compelled``."""

    name = NAME
    tasks = (NAME,)
    binary = True
    instruction = "Is the hypothesis necessarily true given the premise? Answer Yes or No."
    profile_families: ClassVar[dict[Profile, str]] = {Profile.COMPELLED: "corr2cause++"}

    def detect(self, text: str) -> bool:
        return text.lstrip().startswith("Premise:") and "Hypothesis:" in text

    def generators(self) -> tuple[Generator, ...]:
        from causal_oracle.entry.families.corr2cause_generator import GENERATOR  # on first use
        return (GENERATOR,)

    def parse(self, text: str, options: Options) -> Corr2CauseQuestion:
        premise, hypothesis = parse_item(text)
        return Corr2CauseQuestion(premise, hypothesis, options.profile)

    def check_limits(self, question: Corr2CauseQuestion, limits: Limits) -> None:
        check_limits(question.premise, limits)

    def solve(self, question: Corr2CauseQuestion) -> VerifyResult:
        return solve(question)

    def check(self, question: Corr2CauseQuestion, solution: VerifyResult) -> VerifyResult:
        return check_solution(question, solution)

    def render(self, question: Corr2CauseQuestion, solution: VerifyResult) -> Rendered:
        data = {"label": solution.label, "relation": str(solution.relation),
                "class_size": solution.class_size, "holds_in": solution.holds_in}
        return Rendered(data, expected_reply(solution) or "")

    def explain(self, question: Corr2CauseQuestion, solution: VerifyResult) -> str:
        return solution.explain("text")

    def dot(self, question: Corr2CauseQuestion, solution: VerifyResult) -> str | None:
        return solution.explain("dot")

    def derivation(self, question: Corr2CauseQuestion, solution: VerifyResult) -> Any:
        return explain_json(solution.analysis, solution.hypothesis, solution.verdict,
                            solution.check.ok)

    def reasoning_facts(self, question: Corr2CauseQuestion, solution: VerifyResult) -> Facts:
        """The premise's class: a claim holds when it holds in every member."""
        label = solution.label
        return class_facts(solution.analysis, None if label is None else bool(label))

    def read_reply(self, question: Corr2CauseQuestion, text: str) -> Any:
        return parse_corr2cause_answer(prepare(text))

    def judge(self, question: Corr2CauseQuestion, solution: VerifyResult, claim: Any
              ) -> Judgement:
        return judge_reply(solution, claim)

    def row(self, raw: Mapping[str, Any]) -> Item | None:
        if "premise" in raw and "hypothesis" in raw:
            premise, hypothesis = str(raw["premise"]).strip(), str(raw["hypothesis"]).strip()
        elif "input" in raw and "task" not in raw:
            premise, hypothesis = split_input(str(raw["input"]))
        else:
            return None
        gold = raw.get("label")
        return Item(self.name, NAME, f"Premise: {premise}\nHypothesis: {hypothesis}", gold,
                    binary_gold(gold), row_key(raw), raw)

    # -- audit records
    facets: ClassVar[tuple[Facet, ...]] = (Facet("relation", "by_relation"),
              Facet("variables", "by_num_nodes", "{value} variables"))
    outcome_words: ClassVar[Mapping[Audit, str]] = {
        Audit.AGREE: "the derived binary label is the gold, every profile labelling it alike",
        Audit.DISAGREE: "the derived binary label is not the gold, every profile labelling "
                        "it alike",
        Audit.AMBIGUOUS: "the semantics profiles label the item differently",
        Audit.INCONSISTENT: "no DAG fits the premise (no label)",
    }

    def facet_values(self, fields: Mapping[str, Any]) -> dict[str, str]:
        return {"relation": str(fields["relation_kind"]), "variables": str(fields["num_nodes"])}

    def record_drawing(self, fields: Mapping[str, Any]) -> Drawing:
        """The class of a disagreement, from the certificate its record carries."""
        cert = fields.get("certificate")
        if not isinstance(cert, Mapping):
            return Drawing()
        names = sorted({v for e in (cert.get("members") or [[]])[0] for v in e}
                       | {v for e in cert.get("cpdag_undirected") or [] for v in e}
                       | {v for e in cert.get("cpdag_directed") or [] for v in e}
                       | set(cert.get("pair") or []))
        gold = fields.get("gold")
        return Drawing(class_pictures(cert, names, gold if isinstance(gold, int) else None))

    def audit_drawing(self, service: Any, item: Item, fields: Mapping[str, Any],
                      profile: Profile = Profile.CORR2CAUSE) -> Drawing:
        """The item's explanation and its class drawn as ``class_pictures`` does."""
        result = service.memory_of(self).verify_input(item.prompt, profile)
        if result.verdict.relation == Outcome.INCONSISTENT:
            return Drawing(explanation=result.explain("text"))
        names = list(result.premise.variables)
        cert = result.verdict.certificate.to_json(names)
        gold = fields.get("gold")
        return Drawing(class_pictures(cert, names, gold if isinstance(gold, int) else None),
                       explanation=result.explain("text"))

    def audit_fields(self, service: Any, item: Item, profile: Profile,
                     verifier: Any = None) -> dict[str, Any]:
        """The audit's record of one row (``corr2cause_audit.audit_fields``), labelled by
        ``verifier`` (a remote service) or, when None, by its memory in ``service``."""
        return audit_fields(service.memory_of(self), item, profile, verifier)

    # -- the service's and the audit's hooks (``Family``)
    served_remotely = True
    labels_pairs = True
    quick_profiles: ClassVar[frozenset[Profile]] = QUICK_PROFILES

    def memory(self, service: Any) -> Corr2CauseMemory:
        """Its parsed texts, checked results and relation tables in ``service``, with
        the premise–hypothesis verbs (``corr2cause_memory``)."""
        return Corr2CauseMemory(service, self)

    def quick_audit(self, service: Any, rows: Sequence[tuple[int, Any]],
                    columns: Mapping[str, str], profile: Profile) -> QuickAudit:
        """The agreeing rows of each premise from its relation tables, counted
        (``corr2cause_audit.quick_audit``)."""
        return quick_audit(service.memory_of(self), self.name, rows, columns, profile)


FAMILY = Corr2Cause()

__all__ = [
    "AMBIGUOUS",
    "FAMILY",
    "NAME",
    "RELATIONS",
    "Corr2Cause",
    "Corr2CauseQuestion",
    "VerifyResult",
    "check_limits",
    "class_pictures",
    "expected_reply",
    "judge_reply",
    "record_of",
]
