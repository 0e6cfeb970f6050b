"""The ``Oracle`` protocol over gRPC: what every surface asks, answered by a server.

``RemoteOracle`` wraps an ``OracleClient`` (``clients.remote``) so that a surface
typed against ``entry.oracle_protocol.Oracle`` — the audit's ``--server``, ``eval``'s
scorer, the CLI — works with a server exactly as with the in-process service:
``verify``/``verify_input`` go through the ``Verify`` call (no certificate unless a
caller asks for one), ``answer``/``grade`` through ``Answer``, and
``check_reasoning`` through ``Answer`` with ``reasoning`` (the reply's checked claims as
``ReasoningResult.to_json()`` gives them, less the final grade).  The ``Answer`` response
names the task, not the family: the family is read off the task by this process's
registry (``Registry.get``; "" for a task only the server knows), so a result names its
family as the in-process service's does.

    >>> from causal_oracle.entry.oracle_protocol import Oracle
    >>> issubclass(RemoteOracle, Oracle)
    True
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from causal_oracle.clients.remote import OracleClient
from causal_oracle.clients.remote_codec import RemoteError, RemoteResult
from causal_oracle.entry import REGISTRY, Grade, InputError, Profile, TaskAnswer
from causal_oracle.proto.pack import reasoning_json


class RemoteOracle:
    """The ``entry.oracle_protocol.Oracle`` answered by a gRPC service (``verify`` /
    ``verify_input`` with the signatures of ``entry.Service``, ``answer`` and ``grade``
    through the ``Answer`` call), for every surface that takes an ``Oracle`` (e.g.
    ``clients.audit.run_audit(verifier=…)``).  Certificates are fetched only when a
    caller asks for one.  The ``Answer`` call reads questions under the default profile
    only: another profile is an ``InputError``."""

    fatal_errors = (RemoteError,)

    def __init__(self, client: OracleClient) -> None:
        self.client = client

    def verify(self, premise: str, hypothesis: str,
               profile: str | Profile = Profile.CORR2CAUSE) -> RemoteResult:
        return self.client.verify_result(premise, hypothesis, profile=_name(profile),
                                         certificate="none")

    def verify_input(self, text: str, profile: str | Profile = Profile.CORR2CAUSE
                     ) -> RemoteResult:
        return self.client.verify_result(input=text, profile=_name(profile),
                                         certificate="none")

    def answer(self, prompt: str, task: str | None = None, *,
               model_answer: str | None = None, profile: str | Profile = Profile.CORR2CAUSE,
               explain: bool = True) -> TaskAnswer:
        """The ``Answer`` call (``explain`` False: the service's explanation is kept
        anyway, as the call returns it)."""
        _default_profile(profile)
        return _with_family(self.client.answer_result(prompt, task, model_answer=model_answer))

    def grade(self, prompt: str, reply: str, task: str | None = None, *,
              profile: str | Profile = Profile.CORR2CAUSE) -> Grade:
        _default_profile(profile)
        graded = _with_family(self.client.answer_result(prompt, task, model_answer=reply)).grade
        if graded is None:  # the service always grades a model_answer it was sent
            raise RemoteError("the service returned no grade for the reply")
        return graded

    def check_reasoning(self, prompt: str, reply: str, task: str | None = None, *,
                        profile: str | Profile = Profile.CORR2CAUSE) -> dict[str, Any]:
        """The reply's claims checked by the service: ``ReasoningResult.to_json()``
        without ``family``, ``task`` and ``final``."""
        _default_profile(profile)
        response = self.client.answer(prompt, task, model_answer=reply, reasoning=True)
        if not response.HasField("reasoning"):
            raise RemoteError("the service returned no reasoning for the reply")
        return reasoning_json(response.reasoning)


def _with_family(result: TaskAnswer) -> TaskAnswer:
    """``result`` with the family of its task (the wire carries the task only)."""
    try:
        family = REGISTRY.get(result.task).name
    except InputError:
        return result
    grade = None if result.grade is None else replace(result.grade, family=family)
    return replace(result, family=family, grade=grade)


def _name(profile: str | Profile) -> str:
    return profile.value if isinstance(profile, Profile) else str(profile)


def _default_profile(profile: str | Profile) -> None:
    if _name(profile) != Profile.CORR2CAUSE.value:
        raise InputError(f"the gRPC Answer call reads questions under the "
                         f"{Profile.CORR2CAUSE.value!r} profile only, not {_name(profile)!r}; "
                         "use verify for other profiles")


__all__ = ["RemoteOracle"]
