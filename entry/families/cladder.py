"""The CLadder family: yes/no questions on rungs 1–3, answered exactly, graded, audited.

A CLadder prompt is the background (the causal graph in words), the given information
(percentages, mechanisms, observations) and the question, joined by spaces
(``parser.cladder``).  ``solve`` answers it exactly over the box of printed values
(``oracle.cladder.solve``): ``yes``, ``no`` or ``undetermined`` with the reason
(``rounding``, ``not identifiable``); ``check`` has ``oracle.cladder.check`` re-derive it.

Rows (``row``):

* ``background`` + ``given_info`` + ``question`` (+ ``answer``): the fields joined;
* one ``prompt`` / ``input`` / ``text`` field holding the whole question (+ ``label`` or
  ``answer``);
* the benchmark repository's question files (``given_info``, ``question``, ``answer``,
  ``meta.model_id``): the background comes from the model file named by
  ``load_models`` (``causal-oracle audit --cladder-models test-model-meta.json``).
  The generator's metadata (``meta.given_info``, ``groundtruth``, ``reasoning``) is never
  read; the model's ``params`` only explain a disagreement (``oracle.cladder.causes``).

A row's audit fields (``audit_fields``) are a task record named
``CLadder rung R <query type> / <graph>``, with the row's id, ``undetermined`` and its
reason when the text does not decide the answer (then ``agree`` is None), and the
cause classes of each disagreement; its facets are that name, the rung, the query
type and the graph; a finding is drawn as the graph, the estimand, formula, stated
numbers, bounds and rule (``audit_drawing``).

    >>> from causal_oracle.entry import default
    >>> a = default().answer("Imagine a self-contained, hypothetical world with only the "
    ...     "following conditions, and without any unmentioned factors or causal "
    ...     "relationships: Husband has a direct effect on wife and alarm clock. Wife has a "
    ...     "direct effect on alarm clock. For husbands that don't set the alarm, the "
    ...     "probability of ringing alarm is 26%. For husbands that set the alarm, the "
    ...     "probability of ringing alarm is 85%. Will alarm set by husband increase the "
    ...     "chance of ringing alarm?")
    >>> a.task, a.answer_text, a.answer["bounds"]
    ('CLadder', 'yes', ['29/50', '3/5'])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from causal_oracle.entry.audit_record import Drawing, Facet, Picture
from causal_oracle.entry.audit_record import Outcome as Audit
from causal_oracle.entry.families.drawing import digraph
from causal_oracle.entry.gold import binary_gold, row_key
from causal_oracle.entry.limits import Limits
from causal_oracle.entry.registry import (
    Family,
    Generator,
    GoldJudgement,
    Item,
    Judgement,
    Options,
    Rendered,
    Resource,
)
from causal_oracle.oracle.cladder.causes import classify, cpts_of
from causal_oracle.oracle.cladder.explain import explain as explain_words
from causal_oracle.oracle.cladder.model import CladderQuestion, QueryType, StatedKind, shape_of
from causal_oracle.oracle.cladder.solve import (
    BOTH_VALID,
    CladderSolution,
    Outcome,
    solve,
)
from causal_oracle.oracle.errors import BudgetExceeded, InputError, OracleError, clip
from causal_oracle.oracle.reasoning.facts import dag_facts
from causal_oracle.oracle.reasoning.model import Facts, Quantity, Value
from causal_oracle.parser.cladder import looks_like_cladder, parse_cladder, read_reply
from causal_oracle.parser.cladder_vocabulary import fold
from causal_oracle.parser.replies import prepare

TASK = "CLadder"
#: the option that names the benchmark's model file (``Cladder.resources``)
MODELS_OPTION = "cladder-models"
#: the checker enumerates every assignment of a deterministic question's variables
MAX_VARIABLES = 12
_TEXT_FIELDS = ("prompt", "input", "text")
_MODELS: dict[str, Mapping[str, Any]] = {}


def load_models(path: str | Path) -> int:
    """Read the benchmark's model file (a JSON list of models with ``model_id`` and
    ``background``) so that rows of its question files can be read; returns how many."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read the CLadder model file {path}: "
                         f"{clip(str(error))}") from None
    except RecursionError:  # '[' * 100000: deeper than any model file
        raise InputError(f"cannot read the CLadder model file {path}: its JSON is nested "
                         "too deeply") from None
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of models")
    count = 0
    for model in data:
        if isinstance(model, Mapping) and "model_id" in model and "background" in model:
            _MODELS[str(model["model_id"])] = model
            count += 1
    return count


def _names(model: Mapping[str, Any]) -> dict[str, str]:
    """The model's variable names (X, V2, …) → the names its background uses."""
    mapping = model.get("variable_mapping") or {}
    return {k[:-4]: fold(str(v)) for k, v in mapping.items() if k.endswith("name")}


#: the effects a reasoning text may state as a number ("the ATE is 0.59")
_EFFECTS = (QueryType.ATE, QueryType.NDE, QueryType.NIE, QueryType.ETT)


def _verdict(solution: CladderSolution) -> str:
    return solution.outcome.value


def _partial_data(question: CladderQuestion, p: Any) -> dict[str, Any]:
    """The partial-identification certificate as JSON: the method, the outer range and
    the witness models (each its value and parameters)."""
    g = question.graph

    def model(w: Any) -> dict[str, Any]:
        params = {}
        for (v, values), prob in w.cpts:
            given = ", ".join(f"{g.names[u]}={b}" for u, b in zip(g.parents_of(v), values,
                                                                   strict=True))
            params[f"P({g.names[v]}=1{' | ' + given if given else ''})"] = str(prob)
        for (rx, ry), prob in w.types:
            params[f"type(r_x={rx}, r_y={ry})"] = str(prob)
        return {"value": str(w.value), "model": params}

    return {"method": p.method.value, "lower": str(p.lower), "upper": str(p.upper),
            "witnesses": {"low": model(p.low), "high": model(p.high),
                          "exact_low": model(p.exact_low), "exact_high": model(p.exact_high)}}


class Cladder(Family[CladderQuestion, CladderSolution]):
    """CLadder questions (DESIGN.md §3.6)."""

    name = "cladder"
    tasks = (TASK,)
    binary = True
    instruction = "Answer yes or no."
    resources = (Resource(MODELS_OPTION, "MODELS.json",
                          "CLadder's model file (test-model-meta.json): the backgrounds of "
                          "the rows of its question files, joined by meta.model_id"),)

    def load_resource(self, option: str, path: str | Path) -> int:
        if option != MODELS_OPTION:
            return super().load_resource(option, path)
        return load_models(path)

    def detect(self, text: str) -> bool:
        return looks_like_cladder(text)

    def generators(self) -> tuple[Generator, ...]:
        from causal_oracle.entry.families.cladder_generator import GENERATOR  # on first use
        return (GENERATOR,)

    def parse(self, text: str, options: Options) -> CladderQuestion:
        return parse_cladder(text)

    def check_limits(self, question: CladderQuestion, limits: Limits) -> None:
        most = min(limits.variables, MAX_VARIABLES)
        if question.graph.n > most:
            raise BudgetExceeded(f"{question.graph.n} variables; the limit is {most}")
        count = sum(len(r.statements) for r in question.readings)
        if count > limits.statements:
            raise BudgetExceeded(f"{count} stated numbers; the limit is {limits.statements}")

    def task_of(self, question: CladderQuestion) -> str:
        return TASK

    def solve(self, question: CladderQuestion) -> CladderSolution:
        return solve(question)

    def check(self, question: CladderQuestion, solution: CladderSolution) -> CladderSolution:
        # the checker (numpy, networkx) loads on the first CLadder check, not at start-up
        from causal_oracle.oracle.cladder.check import check as independent_check

        independent_check(question, solution)
        return replace(solution, checked=True)

    def render(self, question: CladderQuestion, solution: CladderSolution) -> Rendered:
        first = solution.findings[0]
        bounds = None
        if first.lower is not None and first.upper is not None and \
                len(solution.findings) == 1:
            bounds = [str(first.lower.value), str(first.upper.value)]
        data = {"answer": solution.outcome.value,
                "reason": None if solution.reason is None else solution.reason.value,
                "query_type": question.kind.value, "rung": question.kind.rung,
                "quantity": first.quantity, "identification": first.strategy,
                "formula": first.formula, "bounds": bounds, "flags": list(solution.flags),
                "readings": len(question.readings)}
        if first.partial is not None and len(solution.findings) == 1:
            data["partial"] = _partial_data(question, first.partial)
        return Rendered(data, _verdict(solution))

    def explain(self, question: CladderQuestion, solution: CladderSolution) -> str:
        return explain_words(question, solution)

    def dot(self, question: CladderQuestion, solution: CladderSolution) -> str | None:
        g = question.graph
        edges = [(g.names[p], g.names[v]) for v in range(g.n) for p in g.parents_of(v)]
        hidden = {name for name, seen in zip(g.names, g.observed, strict=True) if not seen}
        first = solution.findings[0]
        return digraph("cladder", g.names, edges, hidden=hidden,
                       title=f"{question.kind.value}: {solution.outcome.value}"
                       + (f" ({first.formula})" if first.formula else ""))

    def reasoning_facts(self, question: CladderQuestion, solution: CladderSolution) -> Facts:
        """The model's graph; its stated probabilities and the query's exact effect as
        numbers; X and Y naming the query's treatment and outcome."""
        g, reading, finding = question.graph, question.readings[0], solution.findings[0]
        numbers = {Quantity("P", tuple(sorted(s.event)), tuple(sorted(s.given))):
                   Value(float(s.value.lo), float(s.value.hi))
                   for s in reading.statements if s.kind is StatedKind.PROBABILITY}
        if finding.kind in _EFFECTS and finding.lower and finding.upper:
            numbers[Quantity(finding.kind.value)] = Value(float(finding.lower.value),
                                                          float(finding.upper.value))
        query, aliases = None, {}
        if reading.query.treatment is not None:
            query = (reading.query.treatment[0], reading.query.outcome[0])
            aliases = {"X": query[0], "Y": query[1]}
        edges = [(p, c) for c in range(g.n) for p in range(g.n) if g.parents[c] >> p & 1]
        hidden = sum(1 << i for i, seen in enumerate(g.observed) if not seen)
        answer = {"yes": True, "no": False}.get(solution.outcome.value)
        return dag_facts(g.names, edges, hidden=hidden, query=query, numbers=numbers,
                         answer=answer, aliases=aliases)

    def read_reply(self, question: CladderQuestion, text: str) -> Any:
        return read_reply(prepare(text))

    def judge(self, question: CladderQuestion, solution: CladderSolution, claim: Any
              ) -> Judgement:
        said = str(claim)
        if solution.outcome is Outcome.UNDETERMINED:
            if said == "undetermined":
                return Judgement(True, said, "the text does not determine the answer")
            assert solution.reason is not None
            return Judgement(None, said, f"no answer is certified: undetermined "
                             f"({solution.reason.value})", gradable=False)
        expected = solution.outcome.value
        return Judgement(said == expected, said, f"read as {said!r}; certified {expected}")

    # -- rows
    def row(self, raw: Mapping[str, Any]) -> Item | None:
        prompt = None
        model: Mapping[str, Any] | None = None
        if isinstance(raw.get("background"), str) and "given_info" in raw and \
                "question" in raw:
            prompt = " ".join(str(raw[k]).strip() for k in ("background", "given_info",
                                                           "question"))
        elif "given_info" in raw and "question" in raw and isinstance(raw.get("meta"),
                                                                        Mapping) \
                and "model_id" in raw["meta"]:
            model = _MODELS.get(str(raw["meta"]["model_id"]))
            if model is None:
                raise InputError(f"the row names model {raw['meta']['model_id']!r}: give the "
                                 "benchmark's model file (--cladder-models, "
                                 "test-model-meta.json) for its background")
            prompt = " ".join(str(x).strip() for x in (model["background"], raw["given_info"],
                                                       raw["question"]))
        else:
            for key in _TEXT_FIELDS:
                value = raw.get(key)
                if isinstance(value, str) and looks_like_cladder(value):
                    prompt = value
                    break
        if prompt is None:
            return None
        gold = raw.get("answer", raw.get("label"))
        key = row_key(raw)
        for alternative in ("desc_id", "question_id"):
            if key is None and raw.get(alternative) not in (None, ""):
                key = str(raw[alternative])
        kept = dict(raw)
        if model is not None:
            kept["_model"] = model
        return Item(self.name, TASK, prompt, gold, binary_gold(gold), key, kept)

    def judge_gold(self, question: CladderQuestion, solution: CladderSolution, item: Item
                   ) -> GoldJudgement:
        if item.binary is None:
            raise InputError(f"the answer {item.gold!r} is not yes or no")
        gold = "yes" if item.binary else "no"
        derived = solution.outcome.value
        if solution.outcome is Outcome.UNDETERMINED:
            assert solution.reason is not None
            return GoldJudgement(None, gold, derived, False,
                                 f"undetermined ({solution.reason.value})")
        if BOTH_VALID in solution.flags:
            # both offered adjustment sets valid: neither method is "more correct", and a
            # gold that prefers one is not wrong either (DESIGN §3.6: ambiguous, not
            # disagree)
            return GoldJudgement(None, gold, derived, True, _both_valid(question))
        return GoldJudgement(derived == gold, gold, derived, False)

    # -- audit records
    facets: ClassVar[tuple[Facet, ...]] = (Facet("task", "by_task"), Facet("rung"),
                                           Facet("query type"), Facet("graph"))
    outcome_words: ClassVar[Mapping[Audit, str]] = {
        Audit.AMBIGUOUS: "the text leaves the answer to a reading (e.g. both offered "
                         "adjustment sets are valid: the gold's preference is not wrong)",
        Audit.UNDETERMINED: "the printed numbers do not determine the answer (rounding) or "
                            "the query is not identifiable from what is stated",
    }

    def facet_values(self, fields: Mapping[str, Any]) -> dict[str, str]:
        return {"task": str(fields["task"]), "rung": str(fields["rung"]),
                "query type": str(fields["query_type"]), "graph": str(fields["graph"])}

    def audit_drawing(self, service: Any, item: Item, fields: Mapping[str, Any],
                      profile: Any = None) -> Drawing:
        """The graph, the estimand, its identification and formula, the stated numbers,
        the bounds and the rule, and the explanation."""
        question, solution = service.solved(self, item.prompt, Options(TASK))
        with service.scope():
            explanation = self.explain(question, solution)
            data = self.render(question, solution).data
        graph = question.graph
        edges = tuple((graph.names[a], graph.names[b]) for a, b in graph.edges())
        query = question.readings[0].query
        ends = [lit[0] for lit in (query.treatment, query.outcome) if lit is not None]
        facts = [("estimand", data["quantity"]), ("identification", data["identification"]),
                 ("formula", data["formula"] or "—"),
                 ("bounds", " … ".join(data["bounds"]) if data["bounds"] else "—")]
        first = solution.findings[0]
        if first.rule is not None:
            facts.append(("rule", str(first.rule)))
        if solution.flags:
            facts.append(("flags", ", ".join(solution.flags)))
        for stated in question.readings[0].statements:
            event = ", ".join(graph.lit(lit) for lit in stated.event)
            given = ", ".join(graph.lit(lit) for lit in stated.given)
            value = stated.value.text or f"[{stated.value.lo}, {stated.value.hi}]"
            facts.append(("stated", f"{stated.kind.value} of {event}"
                          + (f" given {given}" if given else "") + f": {value}"))
        return Drawing((Picture("the graph (treatment and outcome marked)", graph.names, edges,
                                marked=tuple(graph.names[v] for v in ends)),),
                       tuple((k, str(v)) for k, v in facts), explanation)

    def audit_fields(self, service: Any, item: Item, profile: Any, verifier: Any = None
                     ) -> dict[str, Any]:
        """The audit record of one row: the generic task record, named by rung, query
        type and graph, with ``undetermined`` (its reason) and, for a disagreement, its
        cause classes and the certified ``answer`` (quantity, identification, bounds)."""
        out: dict[str, Any] = {"kind": "task", "task": TASK, "id": item.key, "agree": None,
                               "certificate_checked": False, "derived": None,
                               "gold": item.gold}
        try:
            question, solution = service.solved(self, item.prompt, Options(TASK))
            judged = self.judge_gold(question, solution, item)
        except OracleError as error:
            out["error"] = error.describe() if isinstance(error, InputError) else str(error)
            return out
        kind = question.kind
        shape = _shape(question)
        out.update(task=f"{TASK} rung {kind.rung} {kind.value} / {shape}",
                   certificate_checked=solution.checked, agree=judged.agree,
                   derived=judged.derived, gold=judged.gold, ambiguous=judged.ambiguous,
                   reason=judged.reason, rung=kind.rung, query_type=kind.value, graph=shape)
        if judged.ambiguous and judged.reason is None:
            out["ambiguous_reason"] = ("both offered adjustment sets are valid" if BOTH_VALID
                                       in solution.flags else "the text admits two readings")
        if solution.flags:
            out["flags"] = list(solution.flags)
        if solution.outcome is Outcome.UNDETERMINED:
            assert solution.reason is not None
            out["undetermined"] = solution.reason.value
        elif judged.agree is False:
            cpts = None
            model = item.raw.get("_model")
            if isinstance(model, Mapping) and isinstance(model.get("params"), Mapping):
                cpts = cpts_of(question.graph, model["params"], _names(model))
            out["causes"] = classify(question, solution, bool(item.binary), cpts)
            out["answer"] = self.render(question, solution).data
        return out


def _both_valid(question: CladderQuestion) -> str:
    """Why a backadj question whose two methods both adjust validly is ambiguous."""
    names = question.graph.names
    sets = [", ".join(names[v] for v in chosen) or "nothing"
            for chosen in question.readings[0].query.methods]
    listed = "; ".join(f"Method {i} adjusts for {s}" for i, s in enumerate(sets, 1))
    return (f"both methods are valid backdoor adjustments ({listed}): neither is more "
            "correct, so the question has no single answer")


def _shape(question: CladderQuestion) -> str:
    """The benchmark's graph name (for reports): with the question's treatment, or for a
    marginal question the first variable that makes it one of the ten."""
    query = question.readings[0].query
    y = query.outcome[0]
    x = query.treatment if query.treatment is not None else query.counterfactual
    candidates = [x[0]] if x is not None else [v for v in range(question.graph.n) if v != y]
    for v in candidates:
        name = shape_of(question.graph, v, y)
        if name != "other":
            return name
    return "other"


FAMILY = Cladder()

__all__ = ["FAMILY", "TASK", "Cladder", "load_models"]
