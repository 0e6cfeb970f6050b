"""The oracle as the evaluator sees it: a small interface, in-process by default.

A ``Scorer`` labels Corr2Cause items and answers and grades every other item:

``label(premise, hypothesis) -> (label, relation)``
    binary label (1 iff entailment; None when the premise is inconsistent) and the
    3-class relation (entailment/neutral/contradiction/inconsistent);
``answer(prompt, task) -> TaskAnswer``
    the certified answer (``answer_text``: as a model is expected to write it);
``grade(prompt, answer_text, task) -> (correct, normalised)``
    ``correct`` is None and ``normalised`` ``"UNREADABLE"`` when the answer cannot be
    read — the same reading of replies as ``causal_oracle.grade`` and the CLI;
``agrees_with_truth(row) -> bool | None``
    whether the oracle agrees with a row's gold (None: unknown).

With ``reasoning`` (``eval --reasoning``) the scorer also checks a reply's causal
claims: ``check(prompt, reply, task)`` → the counts of its ``ReasoningResult``
(``clients.reasoning_columns.counts``: ``claims`` checkable, ``false_claims``,
``score``, ``lucky``, ``unsupported``) — in-process, or with ``--server`` by the
service's ``Answer`` call with ``reasoning`` (the same counts of the same record).

``InProcessScorer`` calls the entry layer (``entry.default()``; certificates
re-checked there).  ``make_scorer(server=HOST:PORT)`` imports ``clients.remote``
lazily: its ``make_scorer(address, profile=…)`` when it has one, else
``RemoteScorer`` over its ``OracleClient`` (``Verify`` and ``Answer`` RPCs).
Every error of that path is an ``InputError`` naming what is missing.

The item metadata the metrics group by — the hypothesis' relation kind and the
number of variables — comes from the entry layer (``meta_of``), never from the scorer.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from causal_oracle.clients.evaluate.data import CORR2CAUSE, Item
from causal_oracle.clients.reasoning_columns import counts
from causal_oracle.entry import InputError, TaskAnswer, default, profile_of
from causal_oracle.entry.oracle_protocol import Oracle
from causal_oracle.entry.reasoning import check_reasoning


class Scorer(Protocol):
    def label(self, premise: str, hypothesis: str) -> tuple[int | None, str]: ...

    def answer(self, prompt: str, task: str) -> TaskAnswer: ...

    def grade(self, prompt: str, answer_text: str, task: str) -> tuple[bool | None, str]: ...

    def agrees_with_truth(self, row: dict[str, Any]) -> bool | None: ...


class _OracleScorer:
    """``label``, ``answer`` and ``grade`` through an ``Oracle`` (in-process or
    remote: ``entry.oracle_protocol``)."""

    oracle: Oracle
    profile: str

    def label(self, premise: str, hypothesis: str) -> tuple[int | None, str]:
        verdict = self.oracle.verify(premise, hypothesis, self.profile).verdict
        return verdict.label, str(verdict.relation)

    def answer(self, prompt: str, task: str) -> TaskAnswer:
        return self.oracle.answer(prompt, task, profile=self.profile)

    def grade(self, prompt: str, answer_text: str, task: str) -> tuple[bool | None, str]:
        result = self.oracle.grade(prompt, answer_text, task, profile=self.profile)
        return (result.correct if result.readable and result.gradable else None,
                result.normalised)


class InProcessScorer(_OracleScorer):
    """The in-process oracle (the entry layer's default service)."""

    name = "in-process"

    def __init__(self, profile: str = "corr2cause", reasoning: bool = False) -> None:
        self.profile = profile
        self.oracle = default()
        self.reasoning = reasoning

    def check(self, prompt: str, reply: str, task: str) -> dict[str, Any]:
        """The counts of the reply's checked claims (``InputError`` for a bad prompt)."""
        r = check_reasoning(default(), prompt, reply, task, profile=profile_of(self.profile))
        return counts(r.to_json())

    def agrees_with_truth(self, row: dict[str, Any]) -> bool | None:
        item = default().item(row)
        if item is None or item.gold in (None, {}, ""):
            return None
        agree = default().audit_item(item, self.profile).get("agree")
        return agree if isinstance(agree, bool) else None


def make_scorer(server: str | None = None, profile: str = "corr2cause",
                reasoning: bool = False) -> Any:
    """The in-process scorer, or (``server`` = HOST:PORT) the gRPC service's."""
    if server is None:
        return InProcessScorer(profile, reasoning)
    try:
        remote = importlib.import_module("causal_oracle.clients.remote")
    except ModuleNotFoundError as error:
        if error.name not in ("causal_oracle.clients.remote",):
            raise InputError(f"--server needs {error.name!r}, which is not installed "
                             f"(pip install 'causal-oracle[grpc]' or see README)") from error
        raise InputError("--server needs the gRPC client (clients/remote.py), which this "
                         "build does not have; leave --server out to use the in-process "
                         "oracle") from error
    factory = getattr(remote, "make_scorer", None)
    if factory is not None:
        return factory(server, profile=profile, **({"reasoning": True} if reasoning else {}))
    if getattr(remote, "OracleClient", None) is None:
        raise InputError("clients.remote has neither make_scorer(address, profile=…) nor "
                         "OracleClient; leave --server out to use the in-process oracle")
    return RemoteScorer(remote, server, profile, reasoning)


class RemoteScorer(_OracleScorer):
    """The gRPC service through ``clients.remote.OracleClient`` as an ``Oracle``
    (``clients.remote_oracle``): ``Verify`` labels, ``Answer`` answers and (with
    ``model_answer``) grades and (with ``reasoning``) checks the reply's claims; the
    ``Answer`` call reads the default profile only.  The
    service does not audit a CI-Bench row's truth, so ``agrees_with_truth`` is None."""

    name = "grpc"

    def __init__(self, remote: Any, address: str, profile: str = "corr2cause",
                 reasoning: bool = False) -> None:
        self.remote, self.profile, self.reasoning = remote, profile, reasoning
        self.client = remote.OracleClient(address)
        try:
            status = self.client.health()
        except Exception as error:
            said = str(error)  # clients.remote's Unreachable names the address already
            raise InputError(said if address in said else
                             f"cannot reach the oracle service at {address}: {said}") \
                from error
        if status != "SERVING":
            raise InputError(f"the oracle service at {address} is {status}")
        from causal_oracle.clients.remote_oracle import RemoteOracle

        self.oracle = RemoteOracle(self.client)

    def answer(self, prompt: str, task: str) -> TaskAnswer:  # Answer: the default profile
        return self.oracle.answer(prompt, task)

    def grade(self, prompt: str, answer_text: str, task: str) -> tuple[bool | None, str]:
        graded = self.oracle.grade(prompt, answer_text, task)
        return (graded.correct if graded.readable and graded.gradable else None,
                graded.normalised)

    def check(self, prompt: str, reply: str, task: str) -> dict[str, Any]:
        """The counts of the reply's claims, checked by the service (``Answer`` with
        ``reasoning``): the in-process scorer's counts."""
        return counts(self.oracle.check_reasoning(prompt, reply, task))

    def agrees_with_truth(self, row: dict[str, Any]) -> bool | None:
        return None


def meta_of(item: Item) -> tuple[str | None, int | None]:
    """(relation kind, number of variables) of a Corr2Cause item; (None, None) otherwise
    or when the text does not parse (the scorer then reports the error)."""
    if item.task != CORR2CAUSE:
        return None, None
    try:
        kind = default().pairs().hypothesis_of(item.hypothesis).kind.value
        n = default().pairs().premise_of(item.premise).n
    except InputError:
        return None, None
    return kind, n
