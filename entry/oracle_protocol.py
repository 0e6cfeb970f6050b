"""The one way every surface calls the oracle: the ``Oracle`` protocol.

The CLI, the harness plug-ins, the reward scorers, ``eval`` and the audit ask the same
four questions of the oracle, whether it runs in this process or behind the gRPC
server:

* ``answer(prompt, task)`` — the certified answer to a question of any registered
  family (a ``TaskAnswer``; with ``model_answer``, its ``grade`` too);
* ``grade(prompt, reply, task)`` — a model's reply graded (a ``Grade``);
* ``verify(premise, hypothesis)`` / ``verify_input(text)`` — a hypothesis labelled
  against a premise by the family that labels pairs (``Family.labels_pairs``): a
  ``Verified`` result (label, relation, class size, whether the certificate was
  re-checked, the reason).

``entry.service.Service`` implements it in-process; ``clients.remote.RemoteOracle``
over gRPC.  ``SolvingOracle`` is what only the in-process service offers beyond it —
the registry, a question's checked solution, the service's memory scope, the verbs of
the family that labels pairs (``PairVerbs``) — for the families' item generators, which
need the solution the text reads as.  A surface types its oracle as ``Oracle`` and
works with either; ``isinstance(x, Oracle)`` checks the methods are there
(``runtime_checkable``).

    >>> from causal_oracle.entry import default
    >>> isinstance(default(), Oracle)
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from causal_oracle.entry.registry import Family, Options, Registry
from causal_oracle.entry.results import Grade, TaskAnswer
from causal_oracle.oracle.relations import Profile


class Verdict(Protocol):
    """A pair's verdict: what every ``Verified`` result's ``verdict`` holds."""

    @property
    def relation(self) -> str: ...

    @property
    def label(self) -> int | None: ...

    @property
    def class_size(self) -> int: ...

    @property
    def holds_in(self) -> int | None: ...

    @property
    def ambiguous(self) -> bool: ...


class Verified(Protocol):
    """A labelled premise–hypothesis pair, in-process (``VerifyResult``) or remote
    (``RemoteResult``)."""

    @property
    def verdict(self) -> Verdict: ...

    def reason(self) -> str: ...

    def summary(self) -> dict[str, object]: ...

    def explain(self, fmt: str = "text") -> str: ...


@runtime_checkable
class Oracle(Protocol):
    """What every surface asks of the oracle (module docstring)."""

    def answer(self, prompt: str, task: str | None = None, *,
               model_answer: str | None = None, profile: str | Profile = Profile.CORR2CAUSE,
               explain: bool = True) -> TaskAnswer:
        """The certified answer to ``prompt`` (and the grade of ``model_answer``)."""
        ...

    def grade(self, prompt: str, reply: str, task: str | None = None, *,
              profile: str | Profile = Profile.CORR2CAUSE) -> Grade:
        """A model's reply to ``prompt`` graded."""
        ...

    def verify(self, premise: str, hypothesis: str,
               profile: str | Profile = Profile.CORR2CAUSE) -> Verified:
        """A hypothesis labelled against a premise."""
        ...

    def verify_input(self, text: str, profile: str | Profile = Profile.CORR2CAUSE
                     ) -> Verified:
        """Like ``verify`` for the layout ``"Premise: …\\nHypothesis: …"``."""
        ...


class PairVerbs(Protocol):
    """The premise–hypothesis verbs of the family that declares them
    (``Family.labels_pairs``; its ``memory`` in the service implements them).  Results
    are the family's (Corr2Cause: ``VerifyResult``, ``FastVerdict``)."""

    def verify(self, premise: str, hypothesis: str, profile: str | Profile = ...) -> Any: ...

    def verify_input(self, text: str, profile: str | Profile = ...) -> Any: ...

    def verify_objects(self, premise: Any, hypothesis: Any,
                       profile: str | Profile = ...) -> Any: ...

    def grade_result(self, result: Any, reply: str) -> Grade: ...

    def label_fast_many(self, premise: str, hypotheses: Sequence[str],
                        profile: Profile = ...) -> list[Any]: ...

    def verify_fast_many(self, premise: str, hypotheses: Sequence[str],
                         profile: Profile = ...) -> list[Any]: ...

    def premise_of(self, text: str) -> Any: ...

    def hypothesis_of(self, text: str) -> Any: ...

    def item_of(self, text: str) -> tuple[Any, Any]: ...

    def analysis_of(self, premise: Any) -> Any: ...


class SolvingOracle(Oracle, Protocol):
    """The in-process service as the families' item generators use it: the ``Oracle``
    verbs, the registry, the checked solution of a text and the service's scope (the
    memory its families' caches live in while a solution is inspected)."""

    registry: Registry

    def solved(self, family: Family[Any, Any], text: str, options: Options
               ) -> tuple[Any, Any]:
        """(question, checked solution) of ``text`` read by ``family``."""
        ...

    def scope(self) -> AbstractContextManager[None]:
        """The service's memory in force for a block."""
        ...

    def pairs(self) -> PairVerbs:
        """The premise–hypothesis verbs of the family that labels pairs."""
        ...


__all__ = ["Oracle", "PairVerbs", "SolvingOracle", "Verdict", "Verified"]
