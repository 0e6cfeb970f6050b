"""Corr2Cause's memory in a service: its parsed texts, checked results and class tables.

A ``Service`` keeps what every family shares (the solved questions, the solvers'
memoised functions); what only Corr2Cause reuses lives here, one ``Corr2CauseMemory``
per service, made by the family's ``memory`` hook and reached as
``service.memory_of(family)`` (or, for the premise–hypothesis verbs,
``service.pairs()``).  It holds, each bounded by the service's ``Limits.cache_items``:

* premises and hypotheses parsed from text (a dataset repeats a premise for each of
  its hypotheses, so each is parsed once);
* checked results by (premise, hypothesis, profile): ``verify_objects``;
* per premise, the solver's and the checker's relation tables (with the reasons the
  bulk path has written for its items), and per hypothesis text the plan of its
  look-ups (``corr2cause_bulk``): ``label_fast_many``, ``verify_fast_many``.

Every verb runs under the service's limits and time budget (``Service.scope``): text
over ``Limits.text_bytes`` and premises over the variable and statement limits raise
``BudgetExceeded`` before any work.

    >>> from causal_oracle.entry import Limits, Service
    >>> verbs = Service(Limits(budget_s=5.0)).pairs()
    >>> r = verbs.verify("Suppose there is a closed system of 2 variables, A and B. All "
    ...                  "the statistical relations among these 2 variables are as follows: "
    ...                  "A correlates with B.", "A directly causes B.")
    >>> r.relation, r.class_size
    ('neutral', 2)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from causal_oracle.entry.caches import LRU
from causal_oracle.entry.families.corr2cause_bulk import (
    TABLES_KEPT,
    ClassTables,
    FastResult,
    FastVerdict,
    Plan,
    label_fast_many,
    verify_fast_many,
)
from causal_oracle.entry.families.corr2cause_columns import GroupPlan, Key
from causal_oracle.entry.families.corr2cause_result import (
    Corr2CauseQuestion,
    VerifyResult,
    check_limits,
    check_solution,
    solve,
)
from causal_oracle.entry.limits import Limits
from causal_oracle.entry.registry import profile_of
from causal_oracle.entry.results import Grade
from causal_oracle.oracle.equivalence import ClassAnalysis, analyse
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.statements import Hypothesis, Premise
from causal_oracle.parser import parse_hypothesis, parse_item, parse_premise

T = TypeVar("T")


class Host(Protocol):
    """What the memory needs of its service (``entry.service.Service`` is one)."""

    limits: Limits

    def scope(self) -> AbstractContextManager[None]: ...

    def check_text(self, text: str, what: str) -> None: ...

    def graded(self, family: Any, question: Any, solution: Any, reply: str) -> Grade: ...


@dataclass
class Corr2CauseCaches:
    """The family's caches in one service, each bounded by ``size``."""

    size: int
    premises: LRU[str, Premise] = field(init=False)
    hypotheses: LRU[str, Hypothesis] = field(init=False)
    checked: LRU[tuple[Premise, str, Hypothesis, Profile], VerifyResult] = field(init=False)
    #: per premise, the solver's and the checker's relation tables (``label_fast_many``):
    #: True once the premise was seen, False when it has none; few are kept, as bulk
    #: callers send each premise's items together
    tables: LRU[Premise, ClassTables | bool] = field(init=False)
    #: hypothesis text → what it asks of a relation table (emptied when full)
    plans: dict[str, Plan] = field(init=False)
    #: a list of hypothesis texts on given variables → its look-ups, for an audit's
    #: premise groups (``corr2cause_columns``; emptied when full)
    groups: dict[Key, GroupPlan] = field(init=False)

    def __post_init__(self) -> None:
        self.premises, self.hypotheses = LRU(self.size), LRU(self.size)
        self.checked = LRU(self.size)
        self.tables = LRU(min(self.size, TABLES_KEPT))
        self.plans = {}
        self.groups = {}

    def clear(self) -> None:
        for c in (self.premises, self.hypotheses, self.checked, self.tables, self.plans,
                  self.groups):
            c.clear()


class Corr2CauseMemory:
    """Corr2Cause's caches in one service and the verbs that use them (module
    docstring)."""

    def __init__(self, service: Host, family: Any) -> None:
        self.service = service
        self.family = family  # the Corr2Cause family, which grades replies
        self.caches = Corr2CauseCaches(service.limits.cache_items)

    def clear(self) -> None:
        self.caches.clear()

    @contextmanager
    def scope(self) -> Iterator[None]:
        """The service's time budget and memoised functions."""
        with self.service.scope():
            yield

    # -- limits and parsing (limits first; cached)
    def check_premise(self, premise: Premise) -> None:
        check_limits(premise, self.service.limits)

    def _parsed(self, parse: Callable[[str], T], text: str) -> T:
        with self.scope():  # parsing, like solving, runs under the time budget
            return parse(text)

    def premise_of(self, text: str) -> Premise:
        self.service.check_text(text, "premise")
        premise = self.caches.premises.get_or(text, lambda: self._parsed(parse_premise, text))
        self.check_premise(premise)
        return premise

    def hypothesis_of(self, text: str) -> Hypothesis:
        self.service.check_text(text, "hypothesis")
        return self.caches.hypotheses.get_or(text, lambda: self._parsed(parse_hypothesis, text))

    def item_of(self, text: str) -> tuple[Premise, Hypothesis]:
        self.service.check_text(text, "input")
        premise, hypothesis = self._parsed(parse_item, text)
        self.check_premise(premise)
        return premise, hypothesis

    def analysis_of(self, premise: Premise) -> ClassAnalysis:
        """The equivalence class of a premise (remembered in the service's memory)."""
        self.check_premise(premise)
        with self.scope():
            return analyse(premise)

    # -- the verbs
    def verify_objects(self, premise: Premise, hypothesis: Hypothesis,
                       profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
        """Label a parsed hypothesis against a parsed premise (cached, checked)."""
        prof = profile_of(profile)
        key = (premise, premise.text, hypothesis, prof)
        hit = self.caches.checked.get(key)
        if hit is not None:
            return hit
        self.check_premise(premise)
        question = Corr2CauseQuestion(premise, hypothesis, prof)
        with self.scope():
            out = check_solution(question, solve(question))
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

    def grade_result(self, result: VerifyResult, reply: str) -> Grade:
        """Grade a reply to a verified item (``verify``'s result)."""
        question = Corr2CauseQuestion(result.premise, result.hypothesis, result.profile)
        return self.service.graded(self.family, question, result, reply)

    def label_fast(self, premise: str, hypothesis: str,
                   profile: Profile = Profile.CORR2CAUSE) -> FastVerdict | None:
        """``label_fast_many`` for one item."""
        return self.label_fast_many(premise, (hypothesis,), profile)[0]

    def label_fast_many(self, premise: str, hypotheses: Sequence[str],
                        profile: Profile = Profile.CORR2CAUSE) -> list[FastVerdict | None]:
        """``verify`` for bulk callers: labels read off the premise's relation tables
        (``corr2cause_bulk``; None where ``verify`` must decide)."""
        return label_fast_many(self, premise, hypotheses, profile)

    def verify_fast_many(self, premise: str, hypotheses: Sequence[str],
                         profile: Profile = Profile.CORR2CAUSE) -> list[FastResult | None]:
        """``verify`` for the gRPC server's batches: each label with what a Verify
        response shows besides (``corr2cause_bulk``; None where ``verify`` must decide)."""
        return verify_fast_many(self, premise, hypotheses, profile)


__all__ = ["Corr2CauseCaches", "Corr2CauseMemory"]
