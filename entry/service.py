"""The entry layer: one object that owns every limit, the budget and the caches.

Every face of the oracle — the CLI, the library API, audit, eval, the harness plug-ins
and the gRPC server — goes through a ``Service``.  They hand it text (or a dataset
row), call one method, and format what comes back; they never reason and never keep
their own limits.  The service finds the benchmark family of the text in the registry
(``entry.registry``), and:

* refuses input over a **limit** before any work (``Limits``: bytes of text,
  statements, variables) with ``BudgetExceeded`` (gRPC ``RESOURCE_EXHAUSTED``);
* runs the family's parser, solver and independent checker under a **cooperative
  time budget** (``oracle.budget``): loops call ``checkpoint()``, so an overrun raises
  ``BudgetExceeded`` in the loop's own frame — no signals, nothing to swallow;
* keeps the **caches** as one bounded object (``Caches``: solved questions, the
  solvers' memoised functions, and each family's own memory — ``Family.memory``, e.g.
  Corr2Cause's parsed premises and relation tables), so memory is bounded by
  ``Limits.cache_items`` whatever the traffic; ``clear_caches`` empties them;
* turns a certificate the independent checker rejects into ``CertificateRejected``
  (a bug, never an answer).

Verbs: ``answer``, ``explain`` and ``grade`` (any registered family), ``audit_record``
(a dataset row's ``AuditRecord``; ``audit_item`` its family's fields;
``audit_drawing`` a finding drawn for a report; ``quick_audit`` the rows families
answer in bulk), and the premise–hypothesis verbs ``verify`` / ``verify_input`` /
``grade_result`` / ``label_fast_many`` of the family that declares them
(``Family.labels_pairs``), reached through ``pairs()``: the service names no family.

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

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from threading import Lock
from typing import Any

from causal_oracle.entry import families as _built_in  # noqa: F401  (registers them)
from causal_oracle.entry.audit_quick import QuickAudit
from causal_oracle.entry.audit_record import AuditRecord, Drawing, record_of
from causal_oracle.entry.caches import LRU
from causal_oracle.entry.limits import DEFAULT_BUDGET_S, DEFAULT_CACHE_ITEMS, Limits
from causal_oracle.entry.oracle_protocol import PairVerbs
from causal_oracle.entry.registry import (
    REGISTRY,
    Family,
    FamilyMemory,
    Item,
    Options,
    Registry,
    profile_of,
)
from causal_oracle.entry.results import UNREADABLE, Explanation, Grade, TaskAnswer
from causal_oracle.oracle.budget import budget
from causal_oracle.oracle.errors import (
    BudgetExceeded,
    CertificateRejected,
    InputError,
    OracleError,
)
from causal_oracle.oracle.memo import Memory, using
from causal_oracle.oracle.relations import Profile

# ---- caches -------------------------------------------------------------------------------

@dataclass
class Caches:
    """All the service's memory: each map bounded by ``Limits.cache_items``."""

    size: int
    #: (family, text, options) → (question, checked solution), every family's answers
    solved: LRU[tuple[str, str, Options], tuple[Any, Any]] = field(init=False)
    #: family name → the family's own memory (``Family.memory``), made on first use
    families: dict[str, FamilyMemory] = field(init=False)

    #: the solvers' and checkers' memoised functions (``oracle.memo``), in use while the
    #: service works
    memory: Memory = field(init=False)

    def __post_init__(self) -> None:
        self.memory = Memory(self.size)
        self.solved = LRU(self.size)
        self.families = {}

    def clear(self) -> None:
        for c in (self.solved, self.memory, *self.families.values()):
            c.clear()


# ---- the service ----------------------------------------------------------------------------

class Service:
    """Limits + budget + caches around the registered families' parsers, solvers and
    checkers."""

    def __init__(self, limits: Limits | None = None, registry: Registry | None = None) -> None:
        self.limits = limits or Limits()
        self.registry = registry or REGISTRY
        self.caches = Caches(self.limits.cache_items)
        self._lock = Lock()

    def clear_caches(self) -> None:
        """Empty every cache the service holds."""
        self.caches.clear()

    @contextmanager
    def scope(self) -> Iterator[None]:
        """The time budget and the service's memory (``oracle.memo``) around solver work."""
        with budget(self.limits.budget_s), using(self.caches.memory):
            yield

    def memory_of(self, family: Family[Any, Any]) -> Any:
        """``family``'s own memory in this service (``Family.memory``; made on first
        use, emptied by ``clear_caches``); ``InputError`` for a family that keeps none."""
        held = self.caches.families.get(family.name)
        if held is None:
            with self._lock:
                held = self.caches.families.get(family.name)
                if held is None:
                    held = family.memory(self)
                    if held is None:
                        raise InputError(f"the {family.name} family keeps no memory of "
                                         "its own")
                    self.caches.families[family.name] = held
        return held

    def pairs(self) -> PairVerbs:
        """The premise–hypothesis verbs (``verify`` …) of the family that declares them
        (``Registry.pair_family``), bound to this service's limits and caches."""
        return self.memory_of(self.registry.pair_family())  # type: ignore[no-any-return]

    # -- limits
    def check_text(self, text: str, what: str) -> None:
        """``BudgetExceeded`` when ``text`` is over ``Limits.text_bytes``."""
        limit = self.limits.text_bytes
        if len(text) > limit // 4 and len(text.encode("utf-8", "surrogatepass")) > limit:
            raise BudgetExceeded(f"the {what} is {len(text.encode('utf-8', 'surrogatepass')):,}"
                                 f" bytes; the limit is {limit:,} bytes")

    # -- any family
    def family_of(self, text: str, task: str | None = None,
                  profile: Profile = Profile.CORR2CAUSE) -> Family[Any, Any]:
        """The family that answers ``text`` (named by ``task``, else detected; a profile
        another family implements, e.g. ``compelled``, picks that family)."""
        family = self.registry.select(text, task)
        other = family.profile_families.get(profile)
        return family if other is None else self.registry.get(other)

    def solved(self, family: Family[Any, Any], text: str, options: Options
               ) -> tuple[Any, Any]:
        """(question, checked solution) of ``text`` read by ``family`` (cached by text)."""
        key = (family.name, text, options)
        hit = self.caches.solved.get(key)
        if hit is not None:
            return hit
        self.check_text(text, "prompt")
        with self.scope():
            question = family.parse(text, options)
            family.check_limits(question, self.limits)
            solution = family.check(question, family.solve(question))
        out = (question, solution)
        self.caches.solved.put(key, out)
        return out

    def answer(self, prompt: str, task: str | None = None, *, model_answer: str | None = None,
               profile: str | Profile = Profile.CORR2CAUSE, explain: bool = True) -> TaskAnswer:
        """The certified answer to ``prompt`` (and the grade of ``model_answer``, when
        given; the question is parsed and solved once).  ``explain`` False leaves
        ``explanation`` empty (reward callers grade many replies and read no prose)."""
        self.check_text(prompt, "prompt")
        if model_answer is not None:
            self.check_text(model_answer, "model_answer")
        options = Options(task, profile_of(profile))
        family = self.family_of(prompt, task, options.profile)
        question, solution = self.solved(family, prompt, options)
        with self.scope():
            rendered = family.render(question, solution)
            explanation = family.explain(question, solution) if explain else ""
            graded = None if model_answer is None else \
                self.graded(family, question, solution, model_answer)
        return TaskAnswer(family.task_of(question), rendered.data, rendered.text, explanation,
                          True, family.name, graded)

    def explain(self, prompt: str, task: str | None = None, *,
                profile: str | Profile = Profile.CORR2CAUSE) -> Explanation:
        """Why the certified answer to ``prompt`` is right: in words, as data and as a
        graph (the family's ``explain``, ``derivation`` and ``dot`` hooks)."""
        self.check_text(prompt, "prompt")
        options = Options(task, profile_of(profile))
        family = self.family_of(prompt, task, options.profile)
        question, solution = self.solved(family, prompt, options)
        with self.scope():
            rendered = family.render(question, solution)
            return Explanation(family.name, family.task_of(question), rendered.data,
                               rendered.text, family.explain(question, solution), True,
                               family.derivation(question, solution),
                               family.dot(question, solution))

    def grade(self, prompt: str, reply: str, task: str | None = None, *,
              profile: str | Profile = Profile.CORR2CAUSE) -> Grade:
        """Grade a model's reply to ``prompt``; ``readable`` False, ``correct`` False and
        ``normalised`` ``UNREADABLE`` when the reply cannot be read (``reason`` says where)."""
        self.check_text(prompt, "prompt")
        self.check_text(reply, "model_answer")
        options = Options(task, profile_of(profile))
        family = self.family_of(prompt, task, options.profile)
        question, solution = self.solved(family, prompt, options)
        with self.scope():
            return self.graded(family, question, solution, reply)

    def graded(self, family: Family[Any, Any], question: Any, solution: Any, reply: str
               ) -> Grade:
        """A reply to a solved question of ``family`` read and judged (``grade``'s core,
        for a family's own verbs; call it inside ``scope``)."""
        name = family.task_of(question)
        try:
            claim = family.read_reply(question, reply)
        except InputError as error:
            return Grade(name, False, UNREADABLE, family.render(question, solution).text,
                         error.describe(), readable=False, family=family.name)
        verdict = family.judge(question, solution, claim)
        expected = verdict.expected if verdict.expected is not None else \
            family.render(question, solution).text
        return Grade(name, verdict.correct is True, verdict.normalised,
                     expected if verdict.gradable else None, verdict.reason, verdict.gradable,
                     family=family.name)

    def item(self, raw: Mapping[str, Any]) -> Item | None:
        """The ``Item`` of a dataset row (the first family that claims it), or None."""
        return self.registry.row(raw)

    def audit_item(self, item: Item, profile: str | Profile = Profile.CORR2CAUSE,
                   verifier: Any = None) -> dict[str, Any]:
        """The fields of the audit record of one dataset row (``Family.audit_fields``;
        never raises on bad input: ``error`` says why).  ``verifier`` (a remote service)
        labels the rows of the families it can."""
        family = self.registry.get(item.family)
        with using(self.caches.memory):
            return family.audit_fields(self, item, profile_of(profile), verifier)

    def audit_record(self, item: Item, row: int, profile: str | Profile = Profile.CORR2CAUSE,
                     verifier: Any = None, rid: Any = None) -> AuditRecord:
        """The ``AuditRecord`` of one dataset row (``row``: its file line; ``rid``: its id
        column, unless the family names it), its outcome decided by
        ``entry.audit_record.record_of`` and its facets by the family."""
        family = self.registry.get(item.family)
        with using(self.caches.memory):
            fields = family.audit_fields(self, item, profile_of(profile), verifier)
        facets = {} if "error" in fields else family.facet_values(fields)
        return record_of(family.name, facets, row, rid, fields)

    def audit_drawing(self, item: Item, fields: Mapping[str, Any],
                      profile: str | Profile = Profile.CORR2CAUSE) -> Drawing:
        """A finding drawn in its family's form (``Family.audit_drawing``), for reports;
        ``Drawing`` with the error as its explanation when it cannot be re-derived."""
        family = self.registry.get(item.family)
        try:
            with using(self.caches.memory):
                return family.audit_drawing(self, item, fields, profile_of(profile))
        except OracleError as error:
            return Drawing(explanation=f"(could not re-derive: {error})")

    def task_record(self, item: Item, profile: str | Profile = Profile.CORR2CAUSE
                    ) -> dict[str, Any]:
        """The audit record of a row of any family: ``{"kind": "task", "task", "agree",
        "certificate_checked", "derived", "gold"}`` (+ ``ambiguous`` and ``reason`` when
        the family reports them, ``error`` when the row could not be audited)."""
        family = self.registry.get(item.family)
        out: dict[str, Any] = {"kind": "task", "task": item.task, "agree": None,
                               "certificate_checked": False, "derived": None,
                               "gold": item.gold}
        try:
            question, solution = self.solved(family, item.prompt,
                                             Options(item.task, profile_of(profile)))
            out["task"] = family.task_of(question)
            out["certificate_checked"] = True
            with self.scope():
                judged = family.judge_gold(question, solution, item)
        except CertificateRejected as error:  # a bug, never a finding: say so
            out["error"] = f"internal error: CertificateRejected: {error}"
            return out
        except OracleError as error:
            out["error"] = error.describe() if isinstance(error, InputError) else str(error)
            return out
        out.update(agree=judged.agree, derived=judged.derived, gold=judged.gold)
        if item.gold is None and judged.agree is None:
            out["no_gold"] = True  # nothing to compare the answer with: ``answered``
        if judged.ambiguous or judged.reason is not None:
            out.update(ambiguous=judged.ambiguous, reason=judged.reason)
        return out

    def quick_audit(self, rows: Sequence[tuple[int, Any]], columns: Mapping[str, str],
                    profile: str | Profile = Profile.CORR2CAUSE) -> QuickAudit:
        """The rows, by position in ``rows``, the families answer in bulk
        (``Family.quick_audit``, under one of its ``quick_profiles``; the first family
        to answer a row answers it): agreeing rows counted in blocks, others as
        records, each the record ``audit_record`` would give (``entry.audit_quick``);
        the rest take ``audit_record``."""
        prof = profile_of(profile)
        done = QuickAudit()
        with using(self.caches.memory):
            for family in self.registry:
                if prof in family.quick_profiles:
                    done.update(family.quick_audit(self, rows, columns, prof))
        return done

    # -- the premise–hypothesis verbs, as the public API has them (``pairs()``)
    def verify(self, premise: str, hypothesis: str,
               profile: str | Profile = Profile.CORR2CAUSE) -> Any:
        """Label a hypothesis against a premise (``pairs().verify``)."""
        return self.pairs().verify(premise, hypothesis, profile)

    def verify_input(self, text: str, profile: str | Profile = Profile.CORR2CAUSE) -> Any:
        """Like ``verify`` for the published layout ``"Premise: …\\nHypothesis: …"``."""
        return self.pairs().verify_input(text, profile)

    def grade_result(self, result: Any, reply: str) -> Grade:
        """Grade a reply to a verified item (``verify``'s result)."""
        return self.pairs().grade_result(result, reply)

    def label_fast_many(self, premise: str, hypotheses: Sequence[str],
                        profile: Profile = Profile.CORR2CAUSE) -> list[Any]:
        """``verify`` for bulk callers: labels read off the premise's tables, None where
        ``verify`` must decide (``pairs().label_fast_many``)."""
        return self.pairs().label_fast_many(premise, hypotheses, profile)


DEFAULT = Service(Limits.in_process())
"""The process's service (the CLI's and the library's, ``Limits.in_process()``);
``configure`` replaces it."""


def configure(limits: Limits) -> Service:
    """Replace the process's default service (e.g. for ``--budget``)."""
    global DEFAULT
    DEFAULT = Service(limits)
    return DEFAULT


@contextmanager
def configured(limits: Limits) -> Iterator[Service]:
    """The process's default service replaced for the duration of a block (a CLI verb's
    ``--budget``), and the previous one restored after it, so that a caller running the
    CLI in-process keeps its own limits and caches."""
    global DEFAULT
    previous = DEFAULT
    DEFAULT = Service(limits)
    try:
        yield DEFAULT
    finally:
        DEFAULT = previous


def default() -> Service:
    return DEFAULT


__all__ = ["DEFAULT_BUDGET_S", "DEFAULT_CACHE_ITEMS", "UNREADABLE", "Limits", "PairVerbs",
           "Service", "configure", "configured", "default", "profile_of"]
