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

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple

from causal_oracle.entry.audit_record import Drawing, Facet, Picture
from causal_oracle.entry.audit_record import Outcome as Audit
from causal_oracle.entry.gold import binary_gold, hypothesis_of_input, row_key, split_input
from causal_oracle.entry.limits import Limits
from causal_oracle.entry.registry import Family, Item, Judgement, Options, Rendered
from causal_oracle.oracle.causes import classify
from causal_oracle.oracle.check import CheckResult, check
from causal_oracle.oracle.equivalence import ClassAnalysis, analyse
from causal_oracle.oracle.errors import BudgetExceeded, CertificateRejected, OracleError
from causal_oracle.oracle.explain import (
    dag_text,
    explain_dot,
    explain_json,
    explain_text,
    reason_line,
)
from causal_oracle.oracle.labels import Verdict, label
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.reasoning.facts import class_facts
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.statements import Hypothesis, Premise
from causal_oracle.oracle.tasks.model import RelationClaim
from causal_oracle.parser import parse_item
from causal_oracle.parser.replies import prepare
from causal_oracle.parser.task_answers import parse_corr2cause_answer

NAME = "corr2cause"
RELATIONS = ("entailment", "neutral", "contradiction")


class Corr2CauseQuestion(NamedTuple):
    premise: Premise
    hypothesis: Hypothesis
    profile: Profile = Profile.CORR2CAUSE


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """A labelled Corr2Cause item: the class, the verdict and the checker's result."""

    premise: Premise
    hypothesis: Hypothesis
    analysis: ClassAnalysis
    verdict: Verdict
    check: CheckResult
    profile: Profile

    @property
    def label(self) -> int | None:
        """The binary label: 1 iff entailment; None when the premise is inconsistent."""
        return self.verdict.label

    @property
    def relation(self) -> str:
        """``entailment``, ``neutral``, ``contradiction`` or ``inconsistent``."""
        return self.verdict.relation

    @property
    def class_size(self) -> int:
        """The number of DAGs in the Markov equivalence class (0 when inconsistent)."""
        return self.verdict.class_size

    @property
    def holds_in(self) -> int | None:
        """In how many members of the class the hypothesis holds (None: too many to list)."""
        return self.verdict.holds_in

    @property
    def ambiguous(self) -> bool:
        """True when the binary label differs between semantics profiles."""
        return self.verdict.ambiguous

    def reason(self) -> str:
        """One line saying why the label is what it is."""
        v, cert = self.verdict, self.verdict.certificate
        if v.relation == Outcome.INCONSISTENT:
            return self.analysis.conflicts[0].message
        return reason_line(self.premise, v.relation, v.class_size, v.holds_in,
                           cert.witnesses[0],
                           [dag_text(self.premise, m) for m in cert.members[:2]])

    def summary(self) -> dict[str, object]:
        v = self.verdict
        return {
            "label": v.label,
            "relation": v.relation,
            "class_size": v.class_size,
            "holds_in": v.holds_in,
            "ambiguous": v.ambiguous,
            "labels_by_profile": v.labels_by_profile,
            "profile": self.profile.value,
            "certificate_checked": self.check.ok,
            "reason": self.reason(),
        }

    def explain(self, fmt: str = "text") -> str:
        if fmt == "json":
            return json.dumps(explain_json(self.analysis, self.hypothesis, self.verdict,
                                           self.check.ok), indent=2, ensure_ascii=False)
        if fmt == "dot":
            return explain_dot(self.analysis, self.verdict, self.hypothesis)
        return explain_text(self.analysis, self.hypothesis, self.verdict, self.profile)


_UNCHECKED = CheckResult(False, "not checked yet")


def check_limits(premise: Premise, limits: Limits) -> None:
    """``BudgetExceeded`` when ``premise`` has more variables or statements than allowed."""
    if premise.n > limits.variables:
        raise BudgetExceeded(f"the premise has {premise.n} variables; the limit is "
                             f"{limits.variables}")
    statements = len(premise.correlations) + len(premise.independences)
    if statements > limits.statements:
        raise BudgetExceeded(f"the premise has {statements:,} statements; the limit is "
                             f"{limits.statements:,}")


def judge_reply(result: VerifyResult, claim: Any) -> Judgement:
    """Grade a read reply: a 3-class word against the relation, yes/no against the label."""
    if isinstance(claim, RelationClaim):
        normalised, expected = claim.relation, result.relation
    else:
        normalised = "yes" if claim.yes else "no"
        expected = None if result.label is None else ("yes" if result.label else "no")
    if result.relation == Outcome.INCONSISTENT:
        return Judgement(None, normalised,
                         "the premise is inconsistent: no DAG fits it, so no answer is",
                         gradable=False)
    return Judgement(normalised == expected, normalised,
                     f"read as {normalised!r}; the oracle's answer is {expected!r}",
                     expected=expected)


def expected_reply(result: VerifyResult) -> str | None:
    """The oracle's yes/no answer (None: the premise is inconsistent)."""
    if result.relation == Outcome.INCONSISTENT:
        return None
    return "yes" if result.label else "no"


class Corr2Cause(Family[Corr2CauseQuestion, VerifyResult]):
    """Corr2Cause items (DESIGN.md §3.1), any profile but ``compelled``."""

    name = NAME
    tasks = (NAME,)
    binary = True
    instruction = "Is the hypothesis necessarily true given the premise? Answer Yes or No."
    profile_families: ClassVar[dict[Profile, str]] = {Profile.COMPELLED: "corr2cause++"}

    def detect(self, text: str) -> bool:
        return text.lstrip().startswith("Premise:") and "Hypothesis:" in text

    def parse(self, text: str, options: Options) -> Corr2CauseQuestion:
        premise, hypothesis = parse_item(text)
        return Corr2CauseQuestion(premise, hypothesis, options.profile)

    def check_limits(self, question: Corr2CauseQuestion, limits: Limits) -> None:
        check_limits(question.premise, limits)

    def solve(self, question: Corr2CauseQuestion) -> VerifyResult:
        premise, hypothesis, profile = question
        analysis = analyse(premise)
        return VerifyResult(premise, hypothesis, analysis, label(analysis, hypothesis, profile),
                            _UNCHECKED, profile)

    def check(self, question: Corr2CauseQuestion, solution: VerifyResult) -> VerifyResult:
        result = check(question.premise, question.hypothesis, solution.verdict.certificate)
        if not result.ok:
            raise CertificateRejected(f"the checker rejected the certificate: {result.reason}")
        return replace(solution, check=result)

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
        result = service.verify_input(item.prompt, profile)
        if result.verdict.relation == Outcome.INCONSISTENT:
            return Drawing(explanation=result.explain("text"))
        names = list(result.premise.variables)
        cert = result.verdict.certificate.to_json(names)
        gold = fields.get("gold")
        return Drawing(class_pictures(cert, names, gold if isinstance(gold, int) else None),
                       explanation=result.explain("text"))

    def audit_fields(self, service: Any, item: Item, profile: Profile,
                     verifier: Any = None) -> dict[str, Any]:
        """The audit's record of one row, labelled by ``verifier`` (a remote service with
        ``verify``/``verify_input``) or, when None, by ``service``."""
        verifier = verifier or service
        raw = item.raw
        gold = item.binary
        if gold is None:
            return {"error": "field 'label' is missing or not a 0/1 label"}
        try:
            if "premise" in raw and "hypothesis" in raw:
                hypothesis = str(raw["hypothesis"])
                result = verifier.verify(str(raw["premise"]), hypothesis, profile.value)
            else:
                text = str(raw["input"])
                hypothesis = hypothesis_of_input(text)
                result = verifier.verify_input(text, profile.value)
        except CertificateRejected as error:  # a bug, never a finding: say so
            return {"error": f"internal error: CertificateRejected: {error}"}
        except OracleError as error:
            return {"error": error.describe() if hasattr(error, "describe")
                    else f"{type(error).__name__}: {error}"}
        return record_of(service, item, result, hypothesis, gold, profile)


def record_of(service: Any, item: Item, result: Any, hypothesis: str, gold: int,
              profile: Profile) -> dict[str, Any]:
    """The audit record of a labelled row (``result``: a ``VerifyResult`` or a remote
    service's result, which carries no class: ``service`` then parses and analyses the
    row's text here, so that local and remote audits classify alike)."""
    raw = item.raw
    v = result.verdict
    out: dict[str, Any] = dict(
        kind="corr2cause", hypothesis=hypothesis, gold=gold,
        gold_relation=raw.get("relation"), relation_kind=result.hypothesis.kind.value,
        num_nodes=result.premise.n, derived_label=v.label, derived_relation=v.relation,
        class_size=v.class_size, holds_in=v.holds_in, ambiguous=v.ambiguous,
        certificate_checked=result.check.ok)
    if v.ambiguous:
        out["ambiguous_reason"] = AMBIGUOUS
    if v.relation == Outcome.INCONSISTENT:
        out["reason"] = result.reason()
    elif v.label != gold:
        out["certificate"] = v.certificate.to_json(result.premise.variables)
    gold_relation = out["gold_relation"] if out["gold_relation"] in RELATIONS else None
    if v.relation == Outcome.INCONSISTENT or v.label != gold or (
            gold_relation is not None and gold_relation != v.relation):
        if isinstance(result, VerifyResult):
            analysis, parsed = result.analysis, result.hypothesis
        elif "premise" in raw and "hypothesis" in raw:
            parsed = service.hypothesis_of(hypothesis.strip())
            analysis = analyse(service.premise_of(str(raw["premise"]).strip()))
        else:
            premise_obj, parsed = service.item_of(str(raw["input"]))
            analysis = analyse(premise_obj)
        prob = raw.get("prob")
        causes = classify(analysis, parsed, v, gold=gold, gold_relation=gold_relation,
                          gold_prob=float(prob) if isinstance(prob, int | float) else None,
                          profile=profile)
        out["causes"] = [c.to_json() for c in causes]
    return out


AMBIGUOUS = "the semantics profiles label it differently"


def _witness_edges(witness: list[list[str]] | None) -> tuple[tuple[str, str], ...]:
    return tuple((a, b) for path in witness or [] for a, b in zip(path, path[1:],
                                                                    strict=False))


def class_pictures(cert: Mapping[str, Any], names: list[str], gold: int | None
                   ) -> tuple[Picture, ...]:
    """A certificate (``Certificate.to_json``) drawn: the class (CPDAG, the relation's
    witness highlighted) and one member — the counter-example when the gold claims
    entailment, else a member with the witness."""
    members, witnesses = cert.get("members") or [], cert.get("witnesses") or []
    with_w = next((i for i, w in enumerate(witnesses) if w is not None), None)
    without = next((i for i, w in enumerate(witnesses) if w is None), None)
    pictures = [Picture(f"class: CPDAG ({cert.get('class_size')} member(s))", tuple(names),
                        tuple(map(tuple, cert.get("cpdag_directed") or [])),
                        tuple(map(tuple, cert.get("cpdag_undirected") or [])),
                        highlight=_witness_edges(witnesses[with_w]) if with_w is not None
                        else ())]
    pick = without if gold == 1 and without is not None else with_w
    if pick is None:
        pick = without
    if pick is not None and pick < len(members):
        kind = "counter-example" if witnesses[pick] is None else "witness"
        pictures.append(Picture(f"member {pick + 1}: {kind}", tuple(names),
                                tuple(map(tuple, members[pick])),
                                highlight=_witness_edges(witnesses[pick])))
    return tuple(pictures)  # type: ignore[arg-type]


FAMILY = Corr2Cause()

__all__ = [
    "AMBIGUOUS",
    "FAMILY",
    "NAME",
    "Corr2Cause",
    "Corr2CauseQuestion",
    "VerifyResult",
    "check_limits",
    "class_pictures",
    "expected_reply",
    "judge_reply",
    "record_of",
]
