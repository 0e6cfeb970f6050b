"""The CI-Bench (CP, BA, FI, CI) and intervention-effect (IE) families.

Both read a question into the task model (``oracle.tasks.model``: a ``TaskGraph`` or a
boolean SCM over one), solve it with the task solvers (causal paths, backdoor sets,
factual and counterfactual values, the effect of an intervention), have
``oracle.tasks.check`` re-verify the answer, and grade replies with
``oracle.tasks.grading`` (any valid adjustment set is correct, not one reference set).

Dataset rows: ``{"task": "CP"|"BA"|"FI"|"CI", "prompt", "truth"}`` (CI-Bench; the
truth's ``causal_paths``, ``backdoor_adjustment_needed`` with ``a_minimal_valid_set`` /
``parents_valid_set``, or ``values``) and ``{"task": "IE", "prompt", "label":
"yes"|"no"}``.  A CI-Bench row agrees when CP has the same set of paths, FI/CI the same
values, and BA the same decision whether adjustment is needed with every set given in
the truth judged valid.

    >>> from causal_oracle.entry import default
    >>> a = default().answer("a has a causal effect on b.\\nQuestion:\\nWe want to estimate "
    ...                      "the causal effect of thea on theb.\\nBased on the information "
    ...                      "above, please identify all the causal paths between them.")
    >>> a.task, a.answer_text
    ('CP', 'a -> b')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from causal_oracle.entry.audit_record import Drawing, Facet, Picture
from causal_oracle.entry.families.drawing import digraph, path_edges
from causal_oracle.entry.families.ie_templates import template_task_row
from causal_oracle.entry.gold import binary_gold, row_key
from causal_oracle.entry.registry import (
    Family,
    Generator,
    GoldJudgement,
    Item,
    Judgement,
    Options,
    Rendered,
)
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.reasoning.facts import dag_facts
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.oracle.tasks.backdoor import backdoor_sets, check_set
from causal_oracle.oracle.tasks.boolean_scm import counterfactual, factual
from causal_oracle.oracle.tasks.check import check_answer, check_set_verdict
from causal_oracle.oracle.tasks.explain import explain as explain_task
from causal_oracle.oracle.tasks.explain import format_path
from causal_oracle.oracle.tasks.grading import grade as grade_claim
from causal_oracle.oracle.tasks.intervention import intervened_graph, intervention_effect
from causal_oracle.oracle.tasks.model import (
    Answer,
    BackdoorAnswer,
    BackdoorQuestion,
    InterventionAnswer,
    InterventionQuestion,
    PathsAnswer,
    Question,
    TaskGraph,
    ValuesAnswer,
    task_of,
)
from causal_oracle.oracle.tasks.paths import causal_paths
from causal_oracle.parser.cibench import detect_task, parse_cibench
from causal_oracle.parser.ie import parse_ie
from causal_oracle.parser.replies import prepare
from causal_oracle.parser.task_answers import parse_answer

_SOLVERS: dict[str, Callable[[Any], Answer]] = {
    "CP": causal_paths, "BA": backdoor_sets, "FI": factual, "CI": counterfactual,
    "IE": intervention_effect,
}


def task_graph(question: Question) -> TaskGraph:
    """The graph a question is asked about (an SCM's graph for FI/CI)."""
    return question.graph if hasattr(question, "graph") else question.scm.graph  # type: ignore[union-attr]


def answer_json(question: Question, result: Answer) -> Any:
    """The answer in JSON form (names, not indices)."""
    g = task_graph(question)
    names = g.names
    if isinstance(result, PathsAnswer):
        return [[names[i] for i in p] for p in result.paths]
    if isinstance(result, BackdoorAnswer):
        return {"adjustment_needed": result.needed,
                "minimal_sets": [list(g.mask_names(m)) for m in result.minimal_sets],
                "parents_set": list(g.mask_names(result.parents_set)),
                "parents_set_valid": result.parents_set_valid}
    if isinstance(result, ValuesAnswer):
        return {names[q]: v for q, v in result.values}
    assert isinstance(result, InterventionAnswer)
    return {"answer": "yes" if result.yes else "no", "holds_before": result.holds_before,
            "kappa": result.kappa, "witness": [names[i] for i in result.witness]}


def answer_text(question: Question, result: Answer) -> str:
    """The answer as a model is expected to write it."""
    g = task_graph(question)
    if isinstance(result, PathsAnswer):
        return "\n".join(format_path(g, p) for p in result.paths) or "None"
    if isinstance(result, BackdoorAnswer):
        if not result.minimal_sets:
            return "no valid adjustment set exists"
        best = min(result.minimal_sets, key=lambda m: (bin(m).count("1"), m))
        return ", ".join(g.mask_names(best)) or "None"
    if isinstance(result, ValuesAnswer):
        return "\n".join(f"{g.names[q]}, {'happened' if v else 'not happen'}"
                         for q, v in result.values)
    assert isinstance(result, InterventionAnswer)
    return "yes" if result.yes else "no"


def graph_dot(question: Question, solution: Answer) -> str:
    """The question's graph in DOT: the paths found (CP), the smallest minimal adjustment
    set (BA), the queried variables (FI/CI) or the witness path (IE) in red."""
    g = task_graph(question)
    names = g.names
    nodes: set[str] = set()
    edges: set[tuple[str, str]] = set()
    if isinstance(solution, PathsAnswer):
        edges = path_edges([names[i] for i in p] for p in solution.paths)
    elif isinstance(solution, BackdoorAnswer) and solution.minimal_sets:
        nodes = set(g.mask_names(min(solution.minimal_sets,
                                     key=lambda m: (bin(m).count("1"), m))))
    elif isinstance(solution, ValuesAnswer):
        nodes = {names[q] for q, _ in solution.values}
    elif isinstance(solution, InterventionAnswer):
        edges = path_edges([[names[i] for i in solution.witness]])
    return digraph(task_of(question).lower(), names,
                   sorted((names[a], names[b]) for a, b in g.edges), marked_nodes=nodes,
                   marked_edges=edges, title=f"{task_of(question)}: "
                   f"{answer_text(question, solution).replace(chr(10), '; ')}")


def task_pictures(question: Question, solution: Answer) -> tuple[Picture, ...]:
    """The task's graph with what decides the answer highlighted: CP's paths, BA's
    smallest valid adjustment set (and the causes and effects), FI/CI's queried events,
    IE's witness path — and, for IE, the graph after the interventions."""
    g = task_graph(question)
    names = g.names
    edges = tuple(sorted((names[a], names[b]) for a, b in g.edges))
    if isinstance(solution, PathsAnswer):
        hot = tuple(sorted(path_edges([names[i] for i in p] for p in solution.paths)))
        return (Picture("the graph: every causal path in red", names, edges, highlight=hot),)
    if isinstance(solution, BackdoorAnswer):
        assert isinstance(question, BackdoorQuestion)
        best = min(solution.minimal_sets, key=lambda m: (bin(m).count("1"), m)) \
            if solution.minimal_sets else 0
        return (Picture("the graph: a smallest valid adjustment set marked", names, edges,
                        marked=g.mask_names(best)),)
    if isinstance(solution, ValuesAnswer):
        return (Picture("the graph: the queried events marked", names, edges,
                        marked=tuple(names[q] for q, _ in solution.values)),)
    assert isinstance(solution, InterventionAnswer) and \
        isinstance(question, InterventionQuestion)
    cut = {i.node for i in question.interventions}
    after = tuple((names[a], names[b]) for a, b in sorted(g.edges) if b not in cut)
    ends = (names[question.source], names[question.target])
    return (Picture("the graph before the interventions", names, edges, marked=ends),
            Picture("after the interventions (the witness in red)", names, after,
                    highlight=tuple(sorted(path_edges([[names[i] for i in solution.witness]]))),
                    marked=tuple(names[n] for n in sorted(cut))))


class _TaskFamily(Family[Question, Answer]):
    """What CI-Bench and IE share: the task model, its solvers, checker and grader."""

    def task_of(self, question: Question) -> str:
        return task_of(question)

    def solve(self, question: Question) -> Answer:
        return _SOLVERS[task_of(question)](question)

    def check(self, question: Question, solution: Answer) -> Answer:
        check_answer(task_of(question), question, solution)
        return solution

    def render(self, question: Question, solution: Answer) -> Rendered:
        return Rendered(answer_json(question, solution), answer_text(question, solution))

    def explain(self, question: Question, solution: Answer) -> str:
        return explain_task(question, solution)

    def dot(self, question: Question, solution: Answer) -> str | None:
        return graph_dot(question, solution)

    def reasoning_facts(self, question: Question, solution: Answer) -> Facts:
        """The task's graph (IE: after its interventions), with BA's first cause and
        effect as the query and IE's yes/no."""
        if isinstance(question, InterventionQuestion):
            g = intervened_graph(question)
            query: tuple[int, int] | None = (question.source, question.target)
        else:
            g = task_graph(question)
            causes, effects = getattr(question, "causes", ()), getattr(question, "effects", ())
            query = (causes[0], effects[0]) if causes and effects else None
        answer = solution.yes if isinstance(solution, InterventionAnswer) else None
        return dag_facts(g.names, g.edges, query=query, answer=answer)

    def read_reply(self, question: Question, text: str) -> Any:
        return parse_answer(task_of(question), prepare(text))

    def judge(self, question: Question, solution: Answer, claim: Any) -> Judgement:
        verdict = grade_claim(question, solution, claim)
        if verdict.verdict is not None and verdict.set_mask is not None:
            check_set_verdict(question, verdict.set_mask, verdict.verdict)
        return Judgement(verdict.correct, verdict.normalised, verdict.reason)

    def audit_drawing(self, service: Any, item: Item, fields: Mapping[str, Any],
                      profile: Any = None) -> Drawing:
        question, solution = service.solved(self, item.prompt, Options(item.task))
        with service.scope():
            return Drawing(task_pictures(question, solution),
                           explanation=self.explain(question, solution))

    def _row_task(self, raw: Mapping[str, Any]) -> str | None:
        """The row's task when it is one of ours (``task`` and ``prompt`` columns)."""
        if "prompt" not in raw or "task" not in raw:
            return None
        task = str(raw["task"]).strip().upper()
        return task if task in self.tasks else None


class CIBench(_TaskFamily):
    """CI-Bench causal paths (CP), backdoor adjustment (BA), factual (FI) and
    counterfactual (CI) questions (DESIGN.md §3.2)."""

    name = "cibench"
    tasks = ("CP", "BA", "FI", "CI")

    def detect(self, text: str) -> bool:
        return detect_task(text) in self.tasks

    def generators(self) -> tuple[Generator, ...]:
        from causal_oracle.entry.families.cibench_generator import GENERATOR  # on first use
        return (GENERATOR,)

    def parse(self, text: str, options: Options) -> Question:
        task = options.task.upper() if options.task and options.task.upper() in self.tasks \
            else None
        return parse_cibench(text, task)

    def row(self, raw: Mapping[str, Any]) -> Item | None:
        task = self._row_task(raw)
        if task is None:
            return None
        return Item(self.name, task, str(raw["prompt"]), raw.get("truth"), None,
                    str(raw.get("uid") or "") or row_key(raw), raw)

    def judge_gold(self, question: Question, solution: Answer, item: Item) -> GoldJudgement:
        truth = item.gold or {}
        derived = answer_json(question, solution)
        if not isinstance(truth, Mapping):
            raise InputError(f"the truth field is {type(truth).__name__}, not an object")
        names = task_graph(question).names
        try:
            if isinstance(solution, PathsAnswer):
                mine = {tuple(names[i] for i in p) for p in solution.paths}
                gold = truth["causal_paths"]
                return GoldJudgement(mine == {tuple(p) for p in gold}, gold, derived)
            if isinstance(solution, BackdoorAnswer):
                assert isinstance(question, BackdoorQuestion)
                g = question.graph
                ok = solution.needed == bool(truth["backdoor_adjustment_needed"])
                for key in ("a_minimal_valid_set", "parents_valid_set"):
                    if truth.get(key) is not None:
                        z = sum(1 << g.index(n) for n in truth[key])
                        verdict = check_set(question, z)
                        check_set_verdict(question, z, verdict)
                        ok = ok and verdict.valid
                gold = {k: truth.get(k) for k in ("backdoor_adjustment_needed",
                                                  "a_minimal_valid_set", "parents_valid_set")}
                return GoldJudgement(ok, gold, derived)
            assert isinstance(solution, ValuesAnswer)
            gold = truth["values"]
            return GoldJudgement([v for _, v in solution.values] == list(gold), gold, derived)
        except (KeyError, TypeError, ValueError, InputError) as error:  # e.g. a number for a list
            raise InputError(f"row has no usable truth: {type(error).__name__}: {error}") \
                from error


class InterventionEffect(_TaskFamily):
    """Intervention-effect questions: does X still cause Y after do(·)? (DESIGN.md §3.3)"""

    name = "ie"
    tasks = ("IE",)
    binary = True
    instruction = "Answer yes or no."

    def detect(self, text: str) -> bool:
        return detect_task(text) == "IE"

    def parse(self, text: str, options: Options) -> Question:
        return parse_ie(text)

    def row(self, raw: Mapping[str, Any]) -> Item | None:
        if self._row_task(raw) is None:
            return None
        gold = raw.get("label")
        key = row_key(raw)
        if not raw.get("id") and raw.get("source") and raw.get("row"):
            key = f"{raw['source']}:{raw['row']}"
        return Item(self.name, "IE", str(raw["prompt"]), gold, binary_gold(gold), key, raw)

    def template_row(self, raw: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """A row of an upstream template file (``dag|prompt|question|label``) as an IE
        row (``entry.families.ie_templates``)."""
        return template_task_row(raw)

    facets: ClassVar[tuple[Facet, ...]] = (Facet("task", "by_task"), Facet("kind"))

    def audit_fields(self, service: Any, item: Item, profile: Any, verifier: Any = None
                     ) -> dict[str, Any]:
        """The generic task record, with what the question asks (``kind``: cause, path
        or edge)."""
        out: dict[str, Any] = service.task_record(item, profile)
        if "error" not in out:
            question, _ = service.solved(self, item.prompt, Options(item.task))
            out["ie_kind"] = question.kind.value
        return out

    def facet_values(self, fields: Mapping[str, Any]) -> dict[str, str]:
        return {"task": str(fields.get("task") or "IE"), "kind": str(fields["ie_kind"])}

    def judge_gold(self, question: Question, solution: Answer, item: Item) -> GoldJudgement:
        assert isinstance(solution, InterventionAnswer)
        if item.binary is None:
            raise InputError(f"the label {item.gold!r} is not yes or no")
        return GoldJudgement(int(solution.yes) == item.binary, "yes" if item.binary else "no",
                             answer_json(question, solution))


__all__ = ["CIBench", "InterventionEffect", "answer_json", "answer_text", "graph_dot",
           "task_graph"]
