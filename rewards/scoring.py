"""A verifiable reward: one completion scored against the oracle's certified answer.

Reinforcement learning with verifiable rewards turns a checker into a training
signal.  Here the checker is exact: the question is read from the prompt itself (any
registered benchmark family), its answer derived and certified by the entry layer,
and the completion graded as every other surface grades it (``Service.answer`` with
``model_answer``).  The reward (DESIGN 6) is

==============================  =======================================================
the completion is               reward
==============================  =======================================================
correct                         1 (+ the format term)
wrong                           0 (+ the format term)
unreadable (no verdict)         0 (+ the format term)
the question has no right       ``None``: ``ungradable`` (an inconsistent premise)
answer
the sample's inputs are not     ``None``: ``invalid`` (a column that is not text, a
usable                          missing query: ``rewards.inputs``; the reason names it)
the verifier could not finish   ``None``: ``no_question`` (no family reads the prompt),
                                ``budget`` (the time budget spent, or a prompt or reply
                                over the size limit), ``timeout`` (the hard
                                per-sample cap of ``rewards.pool``), ``error`` (a bug)
==============================  =======================================================

so a trainer never sees "the verifier failed" as a silent 0.  The optional format
term adds ``format_weight`` when ``format_pattern`` occurs in the reply.

The optional reasoning term (``reasoning_weight``, 0 by default: off, and the reward
and its record unchanged) checks the reply's causal claims against the certificate
(``entry.reasoning``) and adds ``reasoning_weight`` × the share of its checkable claims
that are true (0 when it makes none).  The components ride on the reward as
``Reward.parts`` (``ReasoningParts``): ``reasoning`` (that share, None without a
checkable claim), ``lucky`` (a right answer with a false claim), ``unsupported`` (a
right answer with no checkable claim) — also computed at weight 0 for a sample that
asks (``Sample.reasoning``: TRL's separate ``trl_reasoning_reward``, an HTTP request
with ``"reasoning": true``).

Optional dataset columns take precedence over the prompt: ``premise`` and
``hypothesis`` (a Corr2Cause item), ``task`` (a family or task name).  ``fallback``
is text to read the question from when the prompt holds none (verl's
``ground_truth``, OpenRLHF's label).

A ``Verifier`` answers and grades with any ``Oracle`` (``entry.oracle_protocol``): its
own in-process ``Service`` by default (with the configuration's budget and size
limits), or one given, such as the gRPC client's ``RemoteOracle``.  Prompts are read,
and reasoning checked, in this process by its own service (a reasoning check needs the
solved question, which no remote oracle sends).

    >>> v = Verifier(RewardConfig(workers=0))
    >>> item = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
    ...         "statistical relations among these 2 variables are as follows: A correlates "
    ...         "with B.\\nHypothesis: A directly causes B.\\n"
    ...         "Is the hypothesis necessarily true given the premise? Answer Yes or No.")
    >>> [v.score(Sample(item, reply)).reward for reply in ("No.", "Yes.", "Maybe?")]
    [1.0, 0.0, 0.0]
    >>> v.score(Sample("What is 2 + 2?", "4")).status
    'no_question'
"""

from __future__ import annotations

import logging
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry import (
    BudgetExceeded,
    CertificateRejected,
    InputError,
    Limits,
    OracleError,
    Service,
    budget,
    join_input,
)
from causal_oracle.entry.caches import LRU
from causal_oracle.entry.limits import REWARD_CAP_S
from causal_oracle.entry.oracle_protocol import Oracle
from causal_oracle.entry.reasoning import check_reasoning
from causal_oracle.entry.service import profile_of
from causal_oracle.rewards.inputs import QUOTE_CHARS, excerpt
from causal_oracle.rewards.prompts import candidates

log = logging.getLogger("causal_oracle.rewards")

#: statuses whose reward is a number; every other status has reward None
SCORED = ("correct", "wrong", "unreadable")
FAILED = ("invalid", "ungradable", "no_question", "budget", "timeout", "error")
QUESTIONS_KEPT = 4096  # prompts whose question window is remembered per verifier
LOG_CHARS = QUOTE_CHARS + 200  # a reason: its own words and at most QUOTE_CHARS of input
BUDGET_SHARE = 0.8  # the cooperative solver budget's share of the hard cap, by default


@dataclass(frozen=True, slots=True)
class RewardConfig:
    """How completions are scored.

    ``cap_s`` is the hard wall-clock cap per sample (a worker past it is killed and
    replaced: ``rewards.pool``; the sample gets no reward, status ``timeout``, never 0),
    the one setting of it — ``RewardConfig``, ``CAUSAL_ORACLE_REWARD_CAP_S`` and
    ``causal-oracle serve --reward-cap`` all default to ``REWARD_CAP_S`` (5 s);
    ``budget_s`` the cooperative solver budget inside it (``within`` derives it);
    ``workers`` the worker processes (0: score in this process, cooperative budget
    only); ``format_weight`` × [``format_pattern`` occurs in the reply] is added to
    every numeric reward; ``profile`` the Corr2Cause semantics.
    """

    cap_s: float = REWARD_CAP_S
    budget_s: float = REWARD_CAP_S * BUDGET_SHARE
    workers: int = 2
    profile: str = "corr2cause"
    format_weight: float = 0.0
    format_pattern: str = r"<answer>.*?</answer>"
    text_bytes: int = Limits().text_bytes
    #: × the share of the reply's checkable claims that are true (0: off)
    reasoning_weight: float = 0.0

    @classmethod
    def within(cls, cap_s: float, budget_s: float | None = None, **fields: Any) -> RewardConfig:
        """A config whose cooperative budget fits the hard cap ``cap_s``: ``budget_s``
        (when given) but at most ``BUDGET_SHARE`` of the cap, so the solvers stop on
        their own before the worker is killed.  Checked."""
        share = cap_s * BUDGET_SHARE
        return cls(cap_s=cap_s, budget_s=share if budget_s is None else min(budget_s, share),
                   **fields).checked()

    def checked(self) -> RewardConfig:
        """The config, or ``InputError`` saying which field is wrong."""
        if not self.cap_s > 0 or not 0 < self.budget_s <= self.cap_s:
            raise InputError(f"need 0 < budget_s <= cap_s, got budget_s={self.budget_s}, "
                             f"cap_s={self.cap_s}")
        if self.workers < 0:
            raise InputError(f"workers must be 0 or more, got {self.workers}")
        if not math.isfinite(self.reasoning_weight):
            raise InputError(f"reasoning_weight must be a finite number, got "
                             f"{self.reasoning_weight}")
        try:
            re.compile(self.format_pattern)
        except re.error as error:
            raise InputError(f"format_pattern: {error}") from None
        return self


@dataclass(frozen=True, slots=True)
class Sample:
    """One completion to score: the prompt's text (chat messages already unwrapped:
    ``rewards.prompts``), the completion's text, and the optional columns.  ``problem``
    says why the trainer's values could not be used (``rewards.inputs``): such a sample
    is never scored (status ``invalid``)."""

    prompt: str
    completion: str
    task: str | None = None
    premise: str | None = None
    hypothesis: str | None = None
    fallback: str | None = None
    problem: str | None = None
    #: compute the reasoning components even when the config's weight is 0
    reasoning: bool = False


@dataclass(frozen=True, slots=True)
class ReasoningParts:
    """The reasoning components of a scored completion (``entry.reasoning``'s summary
    of its claims): ``reasoning`` the share of checkable claims that are true (None:
    none), ``lucky``, ``unsupported``, how many claims were checkable and how many false."""

    reasoning: float | None
    lucky: bool
    unsupported: bool
    claims: int
    false_claims: int

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class Reward:
    """A scored completion: ``reward`` (None: no reward, ``status`` and ``reason`` say
    why), what the reply was read as and what the oracle expected."""

    reward: float | None
    status: str
    reason: str
    task: str | None = None
    family: str | None = None
    expected: str | None = None
    read_as: str | None = None
    relation: str | None = None
    format_ok: bool | None = None
    seconds: float = 0.0
    #: the reasoning components (None: not asked for)
    parts: ReasoningParts | None = None

    @property
    def failed(self) -> bool:
        """True when the verifier gave no reward."""
        return self.reward is None

    @property
    def acc(self) -> float | None:
        """1.0 correct, 0.0 wrong or unreadable, None without a verdict."""
        return {"correct": 1.0, "wrong": 0.0, "unreadable": 0.0}.get(self.status)

    def as_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (``reasoning``: the components, only when
        they were asked for)."""
        out = {f: getattr(self, f) for f in self.__dataclass_fields__ if f != "parts"}
        if self.parts is not None:
            out["reasoning"] = self.parts.as_dict()
        return out


def failure(status: str, reason: str, seconds: float = 0.0) -> Reward:
    """A sample the verifier gave no reward, logged with its reason (the reason and the
    log line bounded: ``LOG_CHARS``)."""
    reason = excerpt(reason, LOG_CHARS)
    log.warning("no reward (%s): %s", status, reason)
    return Reward(None, status, reason, seconds=seconds)


def oversized(sample: Sample, config: RewardConfig) -> Reward | None:
    """The failure of a sample that is refused before any work (a worker never receives
    it): ``invalid`` when its inputs could not be used, ``budget`` when its reply or
    prompt is over the size limit; else None."""
    if sample.problem is not None:
        return failure("invalid", sample.problem)
    limit = config.text_bytes
    for what, text in (("model_answer", sample.completion), ("prompt", sample.prompt)):
        if len(text) > limit // 4:
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > limit:
                return failure("budget", f"the {what} is {size:,} bytes; the limit is "
                               f"{limit:,} bytes")
    return None


class Verifier:
    """Scores samples: one in-process ``Service`` (limits, budget, caches) that reads the
    prompts and checks reasoning, the ``oracle`` that answers and grades (that service
    unless one is given) and the question window found for each prompt."""

    def __init__(self, config: RewardConfig | None = None, oracle: Oracle | None = None
                 ) -> None:
        self.config = (config or RewardConfig()).checked()
        self.service = Service(Limits(budget_s=self.config.budget_s,
                                      text_bytes=self.config.text_bytes))
        self.oracle: Oracle = oracle or self.service
        self._questions: LRU[tuple[str, str | None], tuple[str, str | None]] = \
            LRU(QUESTIONS_KEPT)
        self._format = re.compile(self.config.format_pattern, re.S) \
            if self.config.format_weight else None
        self._instructions = tuple(f.instruction for f in self.service.registry)

    def question(self, sample: Sample) -> tuple[str, str | None]:
        """(the benchmark text, the task) a sample asks; ``InputError`` when none reads."""
        task = sample.task or None
        if sample.premise and sample.hypothesis:
            return join_input(sample.premise.strip(), sample.hypothesis.strip()), task
        first: OracleError | None = None
        for source in (sample.prompt, sample.fallback):
            if not source:
                continue
            hit = self._questions.get((source, task))
            if hit is not None:
                return hit
            self.service.check_text(source, "prompt")
            for i, window in enumerate(candidates(source, self._instructions)):
                try:
                    family = self.service.family_of(window, task)
                    if i and task and not family.detect(window):
                        continue
                    self.oracle.answer(window, task, profile=self.config.profile,
                                       explain=False)
                except BudgetExceeded:
                    raise
                except InputError as error:
                    first = first or error
                    continue
                self._questions.put((source, task), (window, task))
                return window, task
        raise first or InputError("the sample has no prompt")

    def score(self, sample: Sample) -> Reward:
        """The reward of one sample (never raises)."""
        early = oversized(sample, self.config)
        if early is not None:
            return early
        start = time.perf_counter()

        def took() -> float:
            return round(time.perf_counter() - start, 6)

        try:
            with budget(self.config.budget_s):
                return self._score(sample, start)
        except BudgetExceeded as error:
            return failure("budget", str(error), took())
        except InputError as error:
            return failure("no_question", "no benchmark question could be read from the "
                           f"prompt: {excerpt(error.describe())}", took())
        except CertificateRejected as error:
            log.error("certificate rejected (a bug): %s", excerpt(str(error), LOG_CHARS))
            return failure("error", f"certificate rejected: {error}", took())
        except Exception as error:  # a bug: no reward, never a crash of the training step
            log.exception("internal error while scoring")
            return failure("error", f"{type(error).__name__}: {error}", took())

    def _score(self, sample: Sample, start: float) -> Reward:
        text, task = self.question(sample)
        reply = sample.completion
        fmt = None if self._format is None else bool(self._format.search(reply))
        bonus = self.config.format_weight if fmt else 0.0
        answer = self.oracle.answer(text, task, model_answer=reply,
                                    profile=self.config.profile, explain=False)
        grade = answer.grade
        assert grade is not None
        data = answer.answer
        relation = data.get("relation") if isinstance(data, dict) else None
        seconds = round(time.perf_counter() - start, 6)
        if not grade.gradable:
            return failure("ungradable", grade.reason, seconds)
        status = "unreadable" if not grade.readable else \
            "correct" if grade.correct else "wrong"
        value = (1.0 if status == "correct" else 0.0) + bonus
        parts = None
        if self.config.reasoning_weight or sample.reasoning:
            parts = self._parts(text, task, reply)
            value += self.config.reasoning_weight * (parts.reasoning or 0.0)
            seconds = round(time.perf_counter() - start, 6)
        return Reward(value, status, excerpt(grade.reason, LOG_CHARS), grade.task,
                      answer.family, grade.expected,
                      grade.normalised, relation if isinstance(relation, str) else None, fmt,
                      seconds, parts)

    def _parts(self, text: str, task: str | None, reply: str) -> ReasoningParts:
        checked = check_reasoning(self.service, text, reply, task,
                                  profile=profile_of(self.config.profile))
        return ReasoningParts(checked.score, checked.lucky, checked.unsupported,
                              checked.checkable, checked.false_claims)


__all__ = ["FAILED", "SCORED", "ReasoningParts", "Reward", "RewardConfig", "Sample", "Verifier",
           "failure", "oversized"]
