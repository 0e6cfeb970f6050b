"""The Corr2Cause++ family: the same task in its own dialect, labelled by ``compelled``.

Corr2Cause++ publishes JSON arrays of ``{"query", "label", "relation_type",
"forced_edges"}``; ``query`` is ``"Premise:\\n…\\n\\nHypothesis: …"`` in its own premise
dialect ("…whose causal structure forms a directed acyclic graph and satisfies
faithfulness. All the conditional independence relations are: …", read by
``parser/corr2cause.lark``), ``label`` the gold (1/0), ``forced_edges`` the CPDAG's
directed edges the generator used.  Its answer is the ``compelled`` label
(``oracle.compelled``, the dataset's own semantics: the relation in the graph of the
CPDAG's directed edges), re-derived by its checker; an item is *ambiguous* when
``compelled`` disagrees with ``corr2cause`` or ``strict`` (the per-member readings,
verified as usual); an audit also checks ``forced_edges`` against the CPDAG.

    >>> from causal_oracle.entry import REGISTRY
    >>> REGISTRY.select("Premise:\\nSuppose there is a closed system of 3 variables, A, B "
    ...                 "and C, whose causal structure forms a directed acyclic graph and "
    ...                 "satisfies faithfulness. All the conditional independence relations "
    ...                 "are: A indep B.\\n\\nHypothesis: A directly affects C.").name
    'corr2cause++'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from causal_oracle.entry.audit_record import Drawing, Facet
from causal_oracle.entry.audit_record import Outcome as Audit
from causal_oracle.entry.families.corr2cause import (
    FAMILY as CORR2CAUSE,
)
from causal_oracle.entry.families.corr2cause import (
    Corr2CauseQuestion,
    VerifyResult,
    check_limits,
)
from causal_oracle.entry.gold import binary_gold, hypothesis_of_input, row_key
from causal_oracle.entry.limits import Limits
from causal_oracle.entry.registry import Family, Item, Judgement, Options, Rendered
from causal_oracle.oracle import compelled
from causal_oracle.oracle.errors import CertificateRejected, InputError, OracleError
from causal_oracle.oracle.reasoning.facts import class_facts
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.oracle.relations import Profile
from causal_oracle.parser.replies import prepare
from causal_oracle.parser.task_answers import parse_corr2cause_answer

NAME = "corr2cause++"
_DIALECT = "whose causal structure forms a directed acyclic graph"


@dataclass(frozen=True, slots=True)
class CompelledResult:
    """The per-member result (``corr2cause`` profile) and the ``compelled`` label."""

    base: VerifyResult
    compelled: compelled.CompelledVerdict | None  # None: the premise is inconsistent

    @property
    def labels(self) -> dict[str, int | None]:
        v = self.base.verdict
        return {"compelled": None if self.compelled is None else self.compelled.label,
                "corr2cause": v.label, "strict": v.labels_by_profile.get(Profile.STRICT.value)}


class Corr2CausePlusPlus(Family[Corr2CauseQuestion, CompelledResult]):
    """Corr2Cause++ items, answered by the ``compelled`` profile (DESIGN.md §3.1)."""

    name = NAME
    tasks = (NAME,)
    binary = True
    instruction = CORR2CAUSE.instruction

    def detect(self, text: str) -> bool:
        return CORR2CAUSE.detect(text) and _DIALECT in text

    def parse(self, text: str, options: Options) -> Corr2CauseQuestion:
        return CORR2CAUSE.parse(text, Options(options.task, Profile.CORR2CAUSE))

    def check_limits(self, question: Corr2CauseQuestion, limits: Limits) -> None:
        check_limits(question.premise, limits)

    def solve(self, question: Corr2CauseQuestion) -> CompelledResult:
        base = CORR2CAUSE.solve(question)
        if base.relation == "inconsistent":
            return CompelledResult(base, None)
        return CompelledResult(base, compelled.label(base.analysis, base.hypothesis))

    def check(self, question: Corr2CauseQuestion, solution: CompelledResult) -> CompelledResult:
        base = CORR2CAUSE.check(question, solution.base)
        if solution.compelled is not None:
            ok, why = compelled.check(base.analysis, base.hypothesis, solution.compelled)
            if not ok:
                raise CertificateRejected(f"the compelled checker rejected the label: {why}")
        return CompelledResult(base, solution.compelled)

    def render(self, question: Corr2CauseQuestion, solution: CompelledResult) -> Rendered:
        label = None if solution.compelled is None else solution.compelled.label
        labels = solution.labels
        data = {"label": label, "relation": "inconsistent" if label is None else
                "entailment" if label else "contradiction",
                "class_size": solution.base.class_size, "labels_by_profile": labels,
                "ambiguous": len(set(labels.values())) > 1}
        return Rendered(data, "" if label is None else "yes" if label else "no")

    def explain(self, question: Corr2CauseQuestion, solution: CompelledResult) -> str:
        text = solution.base.explain("text")
        if solution.compelled is None:
            return text
        names = question.premise.variables
        edges = ", ".join(f"{names[a]}→{names[b]}" for a, b in solution.compelled.edges)
        word = "holds" if solution.compelled.label else "does not hold"
        return (f"{text}\n\nCompelled reading (Corr2Cause++): the relation {word} in the graph "
                f"of the CPDAG's directed edges ({edges or 'none'}).")

    def dot(self, question: Corr2CauseQuestion, solution: CompelledResult) -> str | None:
        return CORR2CAUSE.dot(question, solution.base)

    def derivation(self, question: Corr2CauseQuestion, solution: CompelledResult) -> Any:
        data = CORR2CAUSE.derivation(question, solution.base)
        names = question.premise.variables
        data["compelled"] = None if solution.compelled is None else {
            "label": solution.compelled.label,
            "edges": [[names[a], names[b]] for a, b in solution.compelled.edges]}
        return data

    def reasoning_facts(self, question: Corr2CauseQuestion, solution: CompelledResult
                        ) -> Facts:
        """The premise's class, with the compelled answer."""
        label = None if solution.compelled is None else bool(solution.compelled.label)
        return class_facts(solution.base.analysis, label)

    def read_reply(self, question: Corr2CauseQuestion, text: str) -> Any:
        return parse_corr2cause_answer(prepare(text))

    def judge(self, question: Corr2CauseQuestion, solution: CompelledResult, claim: Any
              ) -> Judgement:
        if solution.compelled is None:
            return CORR2CAUSE.judge(question, solution.base, claim)
        said = getattr(claim, "yes", None)
        if said is None:  # a 3-class word: entailment means yes
            said = getattr(claim, "relation", "") == "entailment"
        expected = "yes" if solution.compelled.label else "no"
        normalised = "yes" if said else "no"
        return Judgement(normalised == expected, normalised,
                         f"read as {normalised!r}; the compelled answer is {expected!r}",
                         expected=expected)

    def row(self, raw: Mapping[str, Any]) -> Item | None:
        if "query" not in raw or "forced_edges" not in raw:
            return None
        gold = raw.get("label")
        return Item(self.name, NAME, str(raw["query"]), gold, binary_gold(gold), row_key(raw),
                    raw)

    # -- audit records: Corr2Cause's facets, its drawing with the compelled edges
    facets: ClassVar[tuple[Facet, ...]] = CORR2CAUSE.facets
    outcome_words: ClassVar[Mapping[Audit, str]] = {
        Audit.AGREE: "the compelled label is the gold",
        Audit.DISAGREE: "the compelled label is not the gold",
        Audit.AMBIGUOUS: "the compelled, corr2cause and strict readings label it differently",
        Audit.INCONSISTENT: "no DAG fits the premise (no label)",
    }

    def facet_values(self, fields: Mapping[str, Any]) -> dict[str, str]:
        return CORR2CAUSE.facet_values(fields)

    def audit_drawing(self, service: Any, item: Item, fields: Mapping[str, Any],
                      profile: Profile = Profile.CORR2CAUSE) -> Drawing:
        drawn = CORR2CAUSE.audit_drawing(service, item, fields, Profile.CORR2CAUSE)
        question, solution = service.solved(self, item.prompt, Options(NAME))
        with service.scope():
            explanation = self.explain(question, solution)
        edges = ", ".join(fields.get("compelled_edges") or []) or "none"
        return Drawing(drawn.pictures, (("compelled edges", edges),), explanation)

    def audit_fields(self, service: Any, item: Item, profile: Profile,
                     verifier: Any = None) -> dict[str, Any]:
        """The audit's record of one row (always in-process: the ``compelled`` label is
        not a gRPC profile)."""
        return audit_row_safe(service, dict(item.raw), item.binary)


def _edges(value: Any) -> set[tuple[str, str]] | None:
    """``[["A", "B"], …]``, ``["A->B", …]`` or ``"A->B, …"`` → {(tail, head)}."""
    if isinstance(value, str):
        value = [v for v in value.replace(";", ",").split(",") if v.strip()]
    if not isinstance(value, list):
        return None
    out = set()
    for e in value:
        if isinstance(e, str) and "->" in e:
            a, b = (s.strip() for s in e.split("->", 1))
        elif isinstance(e, list | tuple) and len(e) == 2:
            a, b = str(e[0]), str(e[1])
        else:
            return None
        out.add((a, b))
    return out


def audit_row(service: Any, row: dict[str, Any], gold: int) -> dict[str, Any]:
    """One item → the fields of a Corr2Cause audit record (raises ``InputError``)."""
    text = str(row["query"])
    base = service.memory_of(CORR2CAUSE).verify_input(text, Profile.CORR2CAUSE)
    out: dict[str, Any] = {
        "kind": "corr2cause", "gold": gold, "gold_relation": None,
        "hypothesis": hypothesis_of_input(text),
        "relation_kind": f"c2c++ {row.get('relation_type', base.hypothesis.kind.value)}",
        "num_nodes": base.premise.n}
    v = base.verdict
    if v.relation == "inconsistent":
        out.update(derived_label=None, derived_relation="inconsistent", class_size=0,
                   holds_in=0, ambiguous=False, certificate_checked=base.check.ok,
                   reason=base.reason())
        return out
    verdict = compelled.label(base.analysis, base.hypothesis)
    ok, why = compelled.check(base.analysis, base.hypothesis, verdict)
    if not ok:
        raise OracleError(f"the compelled checker rejected the label: {why}")
    strict = v.labels_by_profile.get(Profile.STRICT.value)
    labels = {"compelled": verdict.label, "corr2cause": v.label, "strict": strict}
    names = base.premise.variables
    forced = _edges(row.get("forced_edges"))
    mine = {(names[a], names[b]) for a, b in verdict.edges}
    out.update(derived_label=verdict.label,
               derived_relation="entailment" if verdict.label else "contradiction",
               class_size=v.class_size, holds_in=v.holds_in,
               ambiguous=len(set(labels.values())) > 1,
               certificate_checked=base.check.ok and ok, labels_by_profile=labels,
               forced_edges_ok=forced == mine,
               compelled_edges=sorted(f"{a}->{b}" for a, b in mine))
    if out["ambiguous"]:
        out["ambiguous_reason"] = f"the readings label it differently: {labels}"
    if verdict.label != gold:
        out["certificate"] = {"compelled_edges": out["compelled_edges"],
                              "witness": verdict.witness, "labels_by_profile": labels}
    return out


def audit_row_safe(service: Any, row: dict[str, Any], gold: int | None) -> dict[str, Any]:
    if gold is None:
        return {"error": "field 'label' is missing or not a 0/1 label"}
    try:
        return audit_row(service, row, gold)
    except InputError as error:
        return {"error": error.describe()}
    except OracleError as error:
        return {"error": f"{type(error).__name__}: {error}"}


FAMILY = Corr2CausePlusPlus()

__all__ = ["FAMILY", "NAME", "CompelledResult", "Corr2CausePlusPlus", "audit_row"]
