"""The entry layer: one object that owns every limit, the budget and the caches.

Every face of the oracle — the CLI, the library API, audit, eval and the gRPC
server — goes through a ``Service``.  They parse (or hand the service the text to
parse), call one method, and pack what comes back; they never reason and never
keep their own limits.  The service:

* refuses input over a **limit** before any work (``Limits``: bytes of text,
  statements, variables) with ``BudgetExceeded`` (gRPC ``RESOURCE_EXHAUSTED``);
* runs the solvers and their checkers under a **cooperative time budget**
  (``oracle.budget``): loops call ``checkpoint()``, so an overrun raises
  ``BudgetExceeded`` in the loop's own frame — no signals, nothing to swallow;
* keeps the **caches** as one bounded object (``Caches``: parsed premises and
  hypotheses, checked Corr2Cause results), so memory is bounded by
  ``Limits.cache_items`` whatever the traffic;
* turns a certificate the independent checker rejects into
  ``CertificateRejected`` (a bug, never an answer).

    >>> s = Service(Limits(budget_s=5.0))
    >>> r = s.verify("Suppose there is a closed system of 2 variables, A and B. All the "
    ...              "statistical relations among these 2 variables are as follows: "
    ...              "A correlates with B.", "A directly causes B.")
    >>> r.relation, r.class_size
    ('neutral', 2)
    >>> try:
    ...     s.verify("x" * 300_000, "A directly causes B.")
    ... except BudgetExceeded as error:
    ...     print(error)
    the premise is 300,000 bytes; the limit is 262,144 bytes
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cache
from threading import Lock
from typing import Any, Generic, NamedTuple, TypeVar

from causal_oracle.oracle.budget import budget
from causal_oracle.oracle.check import CheckResult, check
from causal_oracle.oracle.check_table import ClassCheck, relation_name
from causal_oracle.oracle.check_tasks import CertificateRejected as TaskCertificateRejected
from causal_oracle.oracle.check_tasks import check_answer, check_set_verdict
from causal_oracle.oracle.equivalence import MAX_VARIABLES, ClassAnalysis, analyse
from causal_oracle.oracle.errors import BudgetExceeded, InputError, OracleError
from causal_oracle.oracle.explain import (
    dag_text,
    explain_dot,
    explain_json,
    explain_text,
    path_text,
)
from causal_oracle.oracle.labels import Verdict, label
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.relation_table import ORDINAL, RelationTable, table_of
from causal_oracle.oracle.relations import Profile, Reading, reading
from causal_oracle.oracle.statements import Hypothesis, Premise, RelationKind, SurfaceForm
from causal_oracle.oracle.tasks.backdoor import backdoor_sets
from causal_oracle.oracle.tasks.boolean_scm import counterfactual, factual
from causal_oracle.oracle.tasks.explain import explain as explain_task
from causal_oracle.oracle.tasks.explain import format_path
from causal_oracle.oracle.tasks.grading import grade as grade_claim
from causal_oracle.oracle.tasks.intervention import intervention_effect
from causal_oracle.oracle.tasks.model import (
    Answer,
    BackdoorAnswer,
    InterventionAnswer,
    PathsAnswer,
    Question,
    RelationClaim,
    TaskGraph,
    ValuesAnswer,
    task_of,
)
from causal_oracle.oracle.tasks.paths import causal_paths
from causal_oracle.parser import parse_hypothesis, parse_item, parse_premise
from causal_oracle.parser.cibench import detect_task, parse_cibench
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.ie import parse_ie
from causal_oracle.parser.task_answers import parse_answer, parse_corr2cause_answer

DEFAULT_BUDGET_S = 60.0  # per item, in-process and in the server alike
DEFAULT_CACHE_ITEMS = 32_768  # items kept per cache (here, and the server's response cache)
TASKS = ("CP", "BA", "FI", "CI", "IE")
CLEAR = "CLEAR"  # the CLEAR benchmark's graph questions (oracle.clear.entry)
ALL_TASKS = (*TASKS, CLEAR)
UNREADABLE = "UNREADABLE"


class CertificateRejected(OracleError):
    """The independent checker rejected a certificate: a bug, never shown as an answer."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Every limit of one request; ``budget_s`` None means no time budget."""

    text_bytes: int = 256 * 1024
    statements: int = 4096
    variables: int = MAX_VARIABLES
    budget_s: float | None = DEFAULT_BUDGET_S
    cache_items: int = DEFAULT_CACHE_ITEMS


# ---- caches -------------------------------------------------------------------------------

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A bounded least-recently-used map (thread-safe); ``size`` 0 keeps nothing."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = Lock()

    def get_or(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = make()
        self.put(key, value)
        return value

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


@dataclass
class Caches:
    """All the service's memory: each map bounded by ``Limits.cache_items``."""

    size: int
    premises: LRU[str, Premise] = field(init=False)
    hypotheses: LRU[str, Hypothesis] = field(init=False)
    checked: LRU[tuple[Premise, Hypothesis, Profile], VerifyResult] = field(init=False)
    #: per premise, the solver's and the checker's relation tables (``Service.label_fast_many``):
    #: True once the premise was seen, False when it has none; few are kept, as bulk
    #: callers send each premise's items together
    tables: LRU[Premise, ClassTables | bool] = field(init=False)
    #: hypothesis text → what it asks of a relation table (emptied when full)
    plans: dict[str, _Plan] = field(init=False)

    def __post_init__(self) -> None:
        self.premises, self.hypotheses = LRU(self.size), LRU(self.size)
        self.checked = LRU(self.size)
        self.tables = LRU(min(self.size, TABLES_KEPT))
        self.plans = {}

    def clear(self) -> None:
        for c in (self.premises, self.hypotheses, self.checked, self.tables, self.plans):
            c.clear()


# ---- Corr2Cause labels read off relation tables ---------------------------------------------

TABLES_KEPT = 64
#: the profiles whose binary labels decide ``ambiguous`` (``labels.label``)
_MEMBER_PROFILES = tuple(p for p in Profile if p is not Profile.COMPELLED)


@cache
def _readings(kind: RelationKind, form: SurfaceForm) -> frozenset[Reading]:
    """The distinct readings of a hypothesis over the member profiles."""
    return frozenset(reading(kind, form, profile) for profile in _MEMBER_PROFILES)


@dataclass(frozen=True, slots=True)
class ClassTables:
    """One premise's class with the solver's relation table and the checker's own."""

    solver: RelationTable
    checker: ClassCheck
    #: variable name → index
    index: dict[str, int]


class _Plan(NamedTuple):
    """A hypothesis as table look-ups: its pair, its reading under the profile, the
    readings of every member profile (for ``ambiguous``), and the checker's name."""

    first: str
    second: str
    kind: RelationKind
    reading: int
    readings: tuple[int, ...]
    checker: str
    profile: Profile


_NO_PLAN = object()


class FastVerdict(NamedTuple):
    """An item's label read off its premise's relation tables (``Service.label_fast_many``).

    The fields mean what ``VerifyResult``'s do; every one was confirmed by the
    checker's own table (same class, same count).  No certificate is built.
    """

    relation: str
    label: int
    holds_in: int
    class_size: int
    ambiguous: bool
    kind: RelationKind
    num_nodes: int


# ---- Corr2Cause results ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class VerifyResult:
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
        if v.relation == "inconsistent":
            return self.analysis.conflicts[0].message

        def witness(w: tuple[tuple[int, ...], ...]) -> str:
            return " and ".join(path_text(self.premise, p) for p in w)

        if v.relation == "neutral":
            w = cert.witnesses[0]
            assert w is not None
            some = "some" if v.holds_in is None else v.holds_in
            return (f"holds in {some} of {v.class_size} members, e.g. "
                    f"{dag_text(self.premise, cert.members[0])} (via {witness(w)}), but not in "
                    f"{dag_text(self.premise, cert.members[1])}")
        if v.relation == "entailment":
            w = cert.witnesses[0]
            assert w is not None
            return (f"holds in all {v.class_size} member(s) of the class, e.g. via "
                    f"{witness(w)} in {dag_text(self.premise, cert.members[0])}")
        return (f"holds in none of the {v.class_size} member(s) of the class, e.g. not in "
                f"{dag_text(self.premise, cert.members[0])}")

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


def grade_answer(result: VerifyResult, text: str) -> dict[str, object]:
    """Grade a model's answer to a verified Corr2Cause item (the one reading of answers).

    Returns ``{"correct", "normalised", "expected", "reason", "gradable"}``.  A
    3-class word is graded against the 3-class relation, a yes/no form against the
    binary label.  ``correct`` is None when the answer cannot be read
    (``normalised`` is then ``"UNREADABLE"``) or when the premise is inconsistent
    (``gradable`` False: no answer is right).
    """
    try:
        claim = parse_corr2cause_answer(text)
    except ParseError as error:
        return {"correct": None, "normalised": UNREADABLE, "expected": None,
                "reason": error.describe(), "gradable": True}
    if isinstance(claim, RelationClaim):
        normalised, expected = claim.relation, result.relation
    else:
        normalised = "yes" if claim.yes else "no"
        expected = None if result.label is None else ("yes" if result.label else "no")
    if result.relation == "inconsistent":
        return {"correct": None, "normalised": normalised, "expected": None,
                "reason": "the premise is inconsistent: no DAG fits it, so no answer is",
                "gradable": False}
    return {"correct": normalised == expected, "normalised": normalised, "expected": expected,
            "reason": f"read as {normalised!r}; the oracle's answer is {expected!r}",
            "gradable": True}


# ---- CI-Bench / IE helpers ----------------------------------------------------------------

_SOLVERS: dict[str, Callable[[Any], Answer]] = {
    "CP": causal_paths, "BA": backdoor_sets, "FI": factual, "CI": counterfactual,
    "IE": intervention_effect,
}


def task_graph(question: Question) -> TaskGraph:
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


# ---- the service ----------------------------------------------------------------------------

class Service:
    """Limits + budget + caches around the parsers, solvers and checkers."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.caches = Caches(self.limits.cache_items)

    # -- limits
    def check_text(self, text: str, what: str) -> None:
        """``BudgetExceeded`` when ``text`` is over ``Limits.text_bytes``."""
        limit = self.limits.text_bytes
        if len(text) > limit // 4 and len(text.encode("utf-8", "surrogatepass")) > limit:
            raise BudgetExceeded(f"the {what} is {len(text.encode('utf-8', 'surrogatepass')):,}"
                                 f" bytes; the limit is {limit:,} bytes")

    def check_premise(self, premise: Premise) -> None:
        if premise.n > self.limits.variables:
            raise BudgetExceeded(f"the premise has {premise.n} variables; the limit is "
                                 f"{self.limits.variables}")
        statements = len(premise.correlations) + len(premise.independences)
        if statements > self.limits.statements:
            raise BudgetExceeded(f"the premise has {statements:,} statements; the limit is "
                                 f"{self.limits.statements:,}")

    # -- parsing (limits first; cached)
    def premise_of(self, text: str) -> Premise:
        self.check_text(text, "premise")
        premise = self.caches.premises.get_or(text, lambda: parse_premise(text))
        self.check_premise(premise)
        return premise

    def hypothesis_of(self, text: str) -> Hypothesis:
        self.check_text(text, "hypothesis")
        return self.caches.hypotheses.get_or(text, lambda: parse_hypothesis(text))

    def item_of(self, text: str) -> tuple[Premise, Hypothesis]:
        self.check_text(text, "input")
        premise, hypothesis = parse_item(text)
        self.check_premise(premise)
        return premise, hypothesis

    # -- Corr2Cause
    def verify_objects(self, premise: Premise, hypothesis: Hypothesis,
                       profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
        prof = profile if isinstance(profile, Profile) else Profile(profile)
        key = (premise, hypothesis, prof)
        hit = self.caches.checked.get(key)
        if hit is not None:
            return hit
        self.check_premise(premise)
        with budget(self.limits.budget_s):
            analysis = analyse(premise)
            verdict = label(analysis, hypothesis, prof)
            result = check(premise, hypothesis, verdict.certificate)
        if not result.ok:
            raise CertificateRejected(f"the checker rejected the certificate: {result.reason}")
        out = VerifyResult(premise, hypothesis, analysis, verdict, result, prof)
        self.caches.checked.put(key, out)
        return out

    def verify(self, premise: str, hypothesis: str,
               profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
        """Label a Corr2Cause hypothesis against a premise."""
        return self.verify_objects(self.premise_of(premise.strip()),
                                   self.hypothesis_of(hypothesis.strip()), profile)

    def verify_input(self, text: str, profile: str | Profile = Profile.CORR2CAUSE
                     ) -> VerifyResult:
        """Like ``verify`` for the published layout ``"Premise: …\\nHypothesis: …"``."""
        return self.verify_objects(*self.item_of(text), profile)

    def label_fast(self, premise: str, hypothesis: str,
                   profile: Profile = Profile.CORR2CAUSE) -> FastVerdict | None:
        """``label_fast_many`` for one item."""
        return self.label_fast_many(premise, (hypothesis,), profile)[0]

    def label_fast_many(self, premise: str, hypotheses: Sequence[str],
                        profile: Profile = Profile.CORR2CAUSE) -> list[FastVerdict | None]:
        """``verify`` for bulk callers: labels read off the premise's relation tables.

        The solver's table (``oracle.relation_table``) gives each verdict and
        ``holds_in``; the checker's own table (``oracle.check_table``), built from the
        class it re-derives itself, must give the same, or the item is left to
        ``verify``.  An item's entry is None — the caller then calls ``verify``, which
        builds and checks the certificate or raises the error — when it is not an
        easy one: unreadable or over a limit, an inconsistent premise, a class too
        large to list or to tabulate, the same variable twice, the ``compelled``
        profile, or tables that disagree.  Tables pay from a premise's second item
        on: a lone item of a premise not seen before is also left to ``verify``.
        Tables are kept for the most recent premises only, so items should come
        grouped by premise, as datasets list them.
        """
        none: list[FastVerdict | None] = [None] * len(hypotheses)
        if profile is Profile.COMPELLED or not hypotheses:
            return none
        try:
            prem = self.premise_of(premise.strip())
        except OracleError:
            return none
        tables = self.caches.tables.get(prem)
        if tables is None and len(hypotheses) == 1:  # a lone first item: no table yet
            self.caches.tables.put(prem, True)
            return none
        if tables is None or tables is True:
            try:
                tables = self._tables(prem)
            except OracleError:
                tables = False
            self.caches.tables.put(prem, tables)
        if tables is False:
            return none
        assert isinstance(tables, ClassTables)
        index = tables.index
        solver, checker = tables.solver, tables.checker
        size = solver.size
        out = none
        plans = self.caches.plans
        outcomes = (Outcome.ENTAILMENT, Outcome.NEUTRAL, Outcome.CONTRADICTION)
        for i, text in enumerate(hypotheses):
            plan = plans.get(text, _NO_PLAN)
            if plan is _NO_PLAN or plan.profile is not profile:  # type: ignore[union-attr]
                plan = self._plan(text, profile)
            if plan is None:
                continue
            p, q = index.get(plan.first), index.get(plan.second)
            if p is None or q is None or p == q:
                continue
            holds_in = solver.counts_at(plan.reading)[p][q]
            if checker.count(plan.checker, p, q) != holds_in:
                continue
            relation = outcomes[0 if holds_in == size else 1 if holds_in else 2]
            ambiguous = False
            if len(plan.readings) > 1:  # the profiles read it differently: do labels differ?
                entailed = solver.counts_at(plan.readings[0])[p][q] == size
                ambiguous = any((solver.counts_at(r)[p][q] == size) != entailed
                                for r in plan.readings[1:])
            out[i] = FastVerdict(relation, int(relation is Outcome.ENTAILMENT), holds_in, size,
                                 ambiguous, plan.kind, prem.n)
        return out

    def _plan(self, text: str, profile: Profile) -> _Plan | None:
        """What a hypothesis asks of the tables under ``profile`` (None: unreadable;
        kept by text, for the last profile asked)."""
        plans = self.caches.plans
        try:
            hyp = self.hypothesis_of(text.strip())
        except OracleError:
            plan = None
        else:
            kind, form = hyp.kind, hyp.form
            plan = _Plan(hyp.first, hyp.second, kind, ORDINAL[reading(kind, form, profile)],
                         tuple(sorted(ORDINAL[r] for r in _readings(kind, form))),
                         relation_name(kind.value, form.value, profile.value), profile)
        if len(plans) >= self.caches.size:
            plans.clear()
        if plan is not None:  # unreadable texts are asked again (``hypothesis_of`` caches)
            plans[text] = plan
        return plan

    def _tables(self, premise: Premise) -> ClassTables | bool:
        """Both tables of a consistent, listed, small enough class; False otherwise."""
        with budget(self.limits.budget_s):
            analysis = analyse(premise)
            if not analysis.listed:
                return False
            solver = table_of(analysis)
            if not solver.dense:
                return False
            checker = ClassCheck.verify(premise, analysis.member_edges)
        if isinstance(checker, str) or checker.size != solver.size:
            return False  # the full path re-checks and reports it
        return ClassTables(solver, checker,
                           {name: i for i, name in enumerate(premise.variables)})

    # -- CI-Bench and IE
    def parse_question(self, prompt: str, task: str | None = None) -> Question:
        """Parse ``prompt`` as a ``task`` question (detected from the text when None)."""
        self.check_text(prompt, "prompt")
        wanted = task.upper() if task else detect_task(prompt)
        if wanted is not None and wanted not in TASKS:
            raise InputError(f"unknown task {task!r}; expected one of {', '.join(ALL_TASKS)}")
        if wanted == "IE":
            return parse_ie(prompt)
        return parse_cibench(prompt, wanted)

    def solve(self, question: Question) -> Answer:
        """Derive the answer and re-verify its certificate within the budget."""
        task = task_of(question)
        with budget(self.limits.budget_s):
            result = _SOLVERS[task](question)
            check_answer(task, question, result)
        return result

    def answer(self, prompt: str, task: str | None = None, *, model_answer: str | None = None
               ) -> dict[str, Any]:
        """``{"task", "answer", "answer_text", "certificate_checked", "explanation"}``, and
        ``"grade"`` (as ``grade`` returns it) when a ``model_answer`` is given; the question
        is parsed and solved once."""
        if model_answer is not None:
            self.check_text(model_answer, "model_answer")
        if self._is_clear(prompt, task):
            from causal_oracle.oracle.clear import entry

            self.check_text(prompt, "prompt")
            with budget(self.limits.budget_s):
                out = entry.answer(prompt)
                if model_answer is not None:
                    out["grade"] = entry.grade(prompt, model_answer)
            return out
        question = self.parse_question(prompt, task)
        result = self.solve(question)
        out = {"task": task_of(question), "answer": answer_json(question, result),
               "answer_text": answer_text(question, result), "certificate_checked": True,
               "explanation": explain_task(question, result)}
        if model_answer is not None:
            out["grade"] = self._grade(question, result, model_answer)
        return out

    def grade(self, prompt: str, text: str, task: str | None = None) -> dict[str, Any]:
        """``{"task", "correct", "normalised", "reason", "expected", "certificate_checked"}``;
        ``correct`` None and ``normalised`` UNREADABLE when the answer cannot be read."""
        self.check_text(text, "model_answer")
        if self._is_clear(prompt, task):
            from causal_oracle.oracle.clear import entry

            self.check_text(prompt, "prompt")
            with budget(self.limits.budget_s):
                return {**entry.grade(prompt, text), "certificate_checked": True}
        question = self.parse_question(prompt, task)
        return self._grade(question, self.solve(question), text)

    def _is_clear(self, prompt: str, task: str | None) -> bool:
        """A CLEAR question: named so, or (no task given) opening like a CLEAR graph."""
        if task:
            return task.upper() == CLEAR
        from causal_oracle.parser.clear import looks_like_clear

        return looks_like_clear(prompt)

    def _grade(self, question: Question, result: Answer, text: str) -> dict[str, Any]:
        name = task_of(question)
        out: dict[str, Any] = {"task": name, "expected": answer_text(question, result),
                               "certificate_checked": True}
        try:
            claim = parse_answer(name, text)
        except ParseError as error:
            out.update(correct=None, normalised=UNREADABLE, reason=error.describe())
            return out
        with budget(self.limits.budget_s):
            verdict = grade_claim(question, result, claim)
            if verdict.verdict is not None and verdict.set_mask is not None:
                check_set_verdict(question, verdict.set_mask, verdict.verdict)
        out.update(correct=verdict.correct, normalised=verdict.normalised, reason=verdict.reason)
        return out


DEFAULT = Service()
"""The process's service (the CLI's and the library's); ``configure`` replaces it."""


def configure(limits: Limits) -> Service:
    """Replace the process's default service (e.g. for ``--budget``)."""
    global DEFAULT
    DEFAULT = Service(limits)
    return DEFAULT


def default() -> Service:
    return DEFAULT


__all__ = ["ALL_TASKS", "CLEAR", "DEFAULT_BUDGET_S", "DEFAULT_CACHE_ITEMS", "TASKS", "UNREADABLE",
           "CertificateRejected", "Limits",
           "Service", "TaskCertificateRejected", "VerifyResult", "answer_json", "answer_text",
           "configure", "default", "grade_answer", "task_graph"]
