"""A ``verifiers`` v1 taskset over the certified procedural datasets.

Verifiers 0.4 replaced its environment API (``SingleTurnEnv``, ``Rubric``: the v0 API
of ``environments.verifiers_env``) with ``verifiers.v1``: a *taskset* yields typed
*tasks*; a *harness* runs the model on each task (for a question and its reply,
verifiers' tool-less ``null`` chat harness); the task scores the finished *trace* with
its ``@vf.reward`` methods.  This module is such a taskset: ``CertifiedTaskset``
yields one ``CertifiedTask`` per item of a catalogued dataset
(``environments.base.CATALOGUE``), and the task's reward ``certified_answer`` grades
the trace's last reply (text after a ``</think>`` when there is one) through the
dataset's own ``scored``, that is, through the oracle, against the item's text:

* 1.0 — the reply is right;
* 0.0 — it is wrong, or cannot be read as an answer;
* **no reward** — the verifier could not finish (its budget, its cap, an item without
  a right answer, a bug): the reward *raises* ``Unscored`` with the reason.
  Verifiers' scoring boundary records it on the trace as a ``TaskError``
  (``trace.errors``, ``trace.ok`` false, ``trace.rewards["certified_answer"]``
  left ``None``): the rollout is dropped with its error, never paid 0.

Each task carries its own timeouts (``TaskData.timeout``): scoring may take
``scoring_timeout`` seconds (``REWARD_CAP_S``, 5 s, by default) — the reward's own
cap, inside which the solvers' cooperative budget (80 % of it) stops them; verifiers'
scoring deadline sits one second later, so a slow sample always ends as the reward's
error (a failed rollout), never as a deadline stop that would leave the trace ``ok``.

An optional format term, ``answer_format`` (1.0 when the reply matches
``format_pattern``), has weight ``format_weight`` (0 by default: recorded, not paid).
An optional reasoning term, ``causal_reasoning`` (the share of the whole reply's
checkable causal claims that are true against the certificate, thinking included; 0
without one), is paid with ``reasoning_weight``; at 0 (the default) the tasks are
plain ``CertifiedTask``s that neither compute nor record it.

Verifiers finds a taskset by package: ``--env.taskset.id causal-oracle-env`` imports
the module ``causal_oracle_env`` (``environments/causal_oracle_env/``, the Environments
Hub package), whose ``__all__`` exports ``CertifiedTaskset`` and, as its default
harness, ``CertifiedHarness`` (verifiers' ``null`` chat harness).  Importing this
module needs verifiers 0.4 or later (``ImportError`` naming it otherwise).

Examples
--------
With verifiers 0.4 installed (``tests/test_verifiers_v1.py`` runs this in its own venv)::

    from causal_oracle.environments.verifiers_taskset import load_taskset
    tasks = list(load_taskset(dataset="causal_corr2cause", size=3))
    tasks[0].data.answer          # 'Yes' or 'No', certified by the oracle
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from pydantic import Field, field_validator

from causal_oracle.entry import budget
from causal_oracle.entry.limits import REWARD_CAP_S
from causal_oracle.environments.base import CertifiedDataset, create

VERIFIERS_V1_REQUIREMENT = "verifiers>=0.4"
_HINT = (f"the verifiers v1 taskset needs {VERIFIERS_V1_REQUIREMENT!r} (pip install "
         "'verifiers>=0.4'); with verifiers 0.2 use causal_oracle.environments.verifiers_env")


def _release(text: str) -> tuple[int, ...]:
    """``"0.4.0"`` → ``(0, 4)``: the release's major and minor numbers."""
    parts = [p for p in text.split(".")[:2] if p.isdigit()]
    return tuple(int(p) for p in parts)


try:
    from importlib.metadata import version as _version

    # verifiers 0.2 ships an early preview of verifiers.v1 with another API: refused
    if _release(_version("verifiers")) < (0, 4):
        raise ImportError(f"{_HINT} (found verifiers {_version('verifiers')})")
    import verifiers.v1 as vf
    from verifiers.v1.harnesses.null import NullHarness
except ImportError as error:
    raise ImportError(str(error) if _HINT in str(error) else _HINT) from error

log = logging.getLogger("causal_oracle.environments.verifiers")

#: the reward's name (``trace.rewards`` key)
REWARD_NAME = "certified_answer"
#: the optional format term's name
FORMAT_NAME = "answer_format"
#: the optional reasoning term's name
REASONING_NAME = "causal_reasoning"
DEFAULT_FORMAT_PATTERN = r"<answer>.*?</answer>"
#: verifiers' scoring deadline past the reward's own cap
DEADLINE_GRACE_S = 1.0
#: the solvers' cooperative budget's share of the cap
BUDGET_SHARE = 0.8


class Unscored(Exception):
    """The verifier could not finish: this rollout has no reward (the message says why)."""


class CertifiedTasksetConfig(vf.TasksetConfig):
    """The taskset's knobs (``--env.taskset.*``): which dataset, which items, the cap."""

    dataset: str = "causal_corr2cause"
    """A name in ``environments.base.CATALOGUE``."""
    size: int = Field(1000, ge=1)
    """Items ``seed, …, seed + size - 1``."""
    seed: int = 0
    knobs: dict[str, Any] = Field(default_factory=dict)
    """The dataset's own knobs (``min_nodes``, ``three_class``, …)."""
    question_prompt: str | None = None
    """A system message put before every question (none by default: each question
    says how to answer)."""
    scoring_timeout: float = Field(REWARD_CAP_S, gt=0)
    """The reward's cap per rollout, in seconds."""
    format_weight: float = 0.0
    format_pattern: str = DEFAULT_FORMAT_PATTERN
    reasoning_weight: float = 0.0
    """Weight of ``causal_reasoning`` (0: the term is left out)."""

    @field_validator("format_pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"format_pattern: {error}") from None
        return value


class CertifiedData(vf.TaskData):
    """One item: its question (``prompt``), certified answer and metadata, and what
    the reward needs to grade a reply on its own (the dataset, its knobs, the cap)."""

    answer: str
    dataset: str
    knobs: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    cap_s: float = REWARD_CAP_S
    format_pattern: str = DEFAULT_FORMAT_PATTERN


@lru_cache(maxsize=64)
def _grader(dataset: str, knobs: str) -> CertifiedDataset:
    """The dataset that grades replies to items of ``dataset`` with ``knobs`` (JSON)."""
    return create(dataset, seed=0, size=1, **json.loads(knobs))


def reply_of(trace: Any) -> str:
    """The trace's last reply, the text after its last ``</think>`` when there is one."""
    text = trace.last_reply or ""
    cut = text.rfind("</think>")
    return text[cut + len("</think>"):].strip() if cut >= 0 else text


def grade(data: CertifiedData, reply: str) -> float:
    """1.0 right, 0.0 wrong or unreadable; ``Unscored`` when the verifier could not
    finish (within the solvers' budget: ``BUDGET_SHARE`` of the cap)."""
    entry = {"answer": data.answer, "metadata": data.metadata}
    with budget(data.cap_s * BUDGET_SHARE):
        grader = _grader(data.dataset, json.dumps(data.knobs, sort_keys=True))
        score, reason = grader.scored(reply, entry)
    if math.isnan(score):
        raise Unscored(f"the verifier could not finish, so this rollout has no reward: "
                       f"{reason}")
    return score


class CertifiedTask(vf.Task[CertifiedData, vf.State, vf.TaskConfig]):
    """A certified item: the reward grades the reply with the oracle (module docstring)."""

    @vf.reward
    async def certified_answer(self, task: CertifiedData, trace: vf.Trace) -> float:
        reply = reply_of(trace)
        try:
            return await asyncio.wait_for(asyncio.to_thread(grade, task, reply),
                                          task.cap_s)
        except TimeoutError:
            raise Unscored(f"no reward: scoring ran past its cap of {task.cap_s:g} s"
                           ) from None
        except Unscored as error:
            log.warning("no score for %s item %s: %s", task.dataset, task.idx, error)
            raise

    @vf.reward(weight=0.0)
    async def answer_format(self, task: CertifiedData, trace: vf.Trace) -> float:
        """1.0 when the reply matches ``format_pattern`` (weight: ``format_weight``)."""
        return 1.0 if re.search(task.format_pattern, trace.last_reply or "", re.S) else 0.0


def reasoning_share(data: CertifiedData, reply: str) -> float:
    """The share of ``reply``'s checkable causal claims that are true (0.0 without
    one); ``Unscored`` when the verifier could not finish."""
    entry = {"answer": data.answer, "metadata": data.metadata}
    with budget(data.cap_s * BUDGET_SHARE):
        grader = _grader(data.dataset, json.dumps(data.knobs, sort_keys=True))
        share, reason = grader.reasoning_score(reply, entry)
    if reason is not None:
        raise Unscored(f"the verifier could not finish the reasoning check: {reason}")
    return share


class ReasonedTask(CertifiedTask):
    """A certified item whose reasoning is also checked (``reasoning_weight``)."""

    @vf.reward(weight=0.0)
    async def causal_reasoning(self, task: CertifiedData, trace: vf.Trace) -> float:
        """The share of the reply's checkable causal claims that are true."""
        text = trace.last_reply or ""  # the claim reader reads <think> blocks itself
        try:
            return await asyncio.wait_for(asyncio.to_thread(reasoning_share, task, text),
                                          task.cap_s)
        except TimeoutError:
            raise Unscored(f"no reward: the reasoning check ran past its cap of "
                           f"{task.cap_s:g} s") from None


class CertifiedTaskset(vf.Taskset[CertifiedTask, CertifiedTasksetConfig]):
    """The items ``seed … seed + size - 1`` of a catalogued dataset as tasks."""

    def __init__(self, config: CertifiedTasksetConfig) -> None:
        for name, weight in ((FORMAT_NAME, config.format_weight),
                             (REASONING_NAME, config.reasoning_weight)):
            if weight and name not in config.task.rewards:
                rewards = {**config.task.rewards, name: vf.RewardFunctionConfig(weight=weight)}
                config = config.model_copy(
                    update={"task": config.task.model_copy(update={"rewards": rewards})})
        super().__init__(config)
        # made here, so a bad dataset or knob fails when the taskset is loaded
        self.items = create(config.dataset, seed=config.seed, size=config.size,
                            **config.knobs)
        _grader(config.dataset, json.dumps(config.knobs, sort_keys=True))

    def load(self) -> Iterator[CertifiedTask]:
        c = self.config
        timeout = vf.TaskTimeout(scoring=c.scoring_timeout + DEADLINE_GRACE_S)
        kind = ReasonedTask if c.reasoning_weight else CertifiedTask
        for entry in self.items:
            meta = entry["metadata"]
            yield kind(CertifiedData(
                id=f"{c.dataset}/{c.seed}/{meta['source_index']}",
                name=f"{c.dataset} item {meta['source_index']}",
                prompt=entry["question"], system_prompt=c.question_prompt,
                answer=str(entry["answer"]), dataset=c.dataset, knobs=c.knobs,
                metadata=meta, cap_s=c.scoring_timeout, format_pattern=c.format_pattern,
                timeout=timeout), c.task)


class CertifiedHarness(NullHarness):
    """Verifiers' tool-less chat harness: the question in, one reply out."""


def load_taskset(**config: Any) -> CertifiedTaskset:
    """``CertifiedTaskset(CertifiedTasksetConfig(**config))``: ``InputError`` for an
    unknown dataset or knob, pydantic's ``ValidationError`` for a field of the wrong type."""
    return CertifiedTaskset(CertifiedTasksetConfig(**config))


__all__ = ["DEFAULT_FORMAT_PATTERN", "FORMAT_NAME", "REASONING_NAME", "REWARD_NAME",
           "VERIFIERS_V1_REQUIREMENT", "CertifiedData", "CertifiedHarness", "CertifiedTask",
           "CertifiedTaskset", "CertifiedTasksetConfig", "ReasonedTask", "Unscored", "grade",
           "load_taskset", "reasoning_share", "reply_of"]
