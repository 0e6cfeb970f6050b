"""A ``verifiers`` environment over the certified procedural datasets.

``verifiers`` (Prime Intellect's library of RL environments, ``pip install
'causal-oracle[verifiers]'``) loads an environment from a module that exposes
``load_environment(**kwargs)``.  This module is one: it turns any catalogued dataset
(``environments.base.CATALOGUE``: ``causal_corr2cause``, …) into a single-turn
environment whose rubric grades a reply through the dataset's own ``score_answer``,
that is, through the oracle, against the item's text rather than a stored label.

The environment is built from two disjoint item streams of the same dataset: the
training split is items ``seed, …, seed + size - 1`` and the evaluation split, by
default, items ``seed + size, …`` (its seed is ``seed + size``), so no item of one is
drawn from the random state of an item of the other.  Each row holds the question,
the certified answer and, in ``info`` (a JSON string, which verifiers decodes), the
item's metadata: ``item`` (the text the oracle answers), ``task``, ``difficulty``, …

The rubric's reward ``certified_answer`` reads the last assistant message (text after
a ``</think>`` when there is one) and returns

* 1.0 — the reply is right;
* 0.0 — it is wrong, or cannot be read as an answer;
* NaN — the verifier could not finish (budget, limits, an item without a right
  answer, a bug); the reason is logged.

Verifiers multiplies and sums rewards and, for a group, subtracts the group mean, so
one NaN would make every advantage of its group NaN, while ``None`` would be turned
into 0 by its reward-call wrapper without a word.  The rubric therefore settles such
a rollout deliberately: the metric ``certified_answer`` stays NaN (the record), the
metric ``verifier_failed`` is 1, ``state["error"]`` is set (a ``verifiers.Error``
with the reason, so the rollout's output carries ``error``; not an ``InfraError``,
which ``max_retries`` would re-run for nothing), its reward is 0.0 and, where this
rubric computes group advantages, its advantage is 0.0 and it is left out of its
group's mean.  A trainer should drop rollouts whose ``error`` is set (or whose
``verifier_failed`` is 1) rather than read their 0.0 as a wrong answer.

An optional format term (``format_weight``, default 0) rewards a reply whose text
matches ``format_pattern`` (``<answer>…</answer>`` by default).  An optional reasoning
term (``reasoning_weight``, default 0: left out) is the rubric function
``causal_reasoning``: the share of the reply's checkable causal claims that are true
against the certificate (``entry.reasoning``; 0 without one), read from the whole reply,
thinking included.

Importing this module needs neither ``verifiers`` nor ``datasets``; calling
``load_environment`` does (``ImportError`` naming the extra otherwise).  It matches the
environment API of verifiers 0.2 (``SingleTurnEnv``, ``Rubric``, ``Parser``; tested with
0.2.1).  Verifiers 0.4 removed that API (its ``verifiers.v1`` tasksets and harnesses
replace it: ``environments.verifiers_taskset`` is this environment as a v1 taskset); a
release without ``SingleTurnEnv`` is refused with a clear message.

Examples
--------
>>> from causal_oracle.environments.verifiers_env import load_environment
>>> env = load_environment("causal_corr2cause", size=20, eval_size=5)  # doctest: +SKIP
>>> row = env.get_eval_dataset()[0]  # doctest: +SKIP
>>> sorted(row)  # doctest: +SKIP
['answer', 'example_id', 'info', 'prompt', 'question']

or, through verifiers' loader, ``vf.load_environment(
"causal_oracle.environments.verifiers_env", dataset="causal_corr2cause", size=1000)``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from causal_oracle.entry import InputError
from causal_oracle.environments.base import CertifiedDataset, create

if TYPE_CHECKING:
    import verifiers as vf

log = logging.getLogger("causal_oracle.environments.verifiers")

#: the verifiers releases whose environment API this module matches
VERIFIERS_REQUIREMENT = "verifiers>=0.2.1,<0.3"
#: what a reply must contain for the optional format term
DEFAULT_FORMAT_PATTERN = r"<answer>.*?</answer>"
#: the reward's name: the metric verifiers records for it
REWARD_NAME = "certified_answer"
#: the metric set to 1.0 where the verifier could not finish
FAILED_METRIC = "verifier_failed"
#: the state key that holds why a rollout has no score
REASON_KEY = "causal_oracle_reason"


def _verifiers() -> Any:
    """The ``verifiers`` module, or ``ImportError`` saying what to install."""
    hint = f"pip install 'causal-oracle[verifiers]' (or '{VERIFIERS_REQUIREMENT}')"
    try:
        import datasets  # noqa: F401  (verifiers' datasets are Hugging Face datasets)
        import verifiers
    except ImportError as error:
        raise ImportError(f"the verifiers environment needs verifiers: {hint}") from error
    if getattr(verifiers, "SingleTurnEnv", None) is None:
        version = getattr(verifiers, "__version__", "unknown")
        raise ImportError(f"verifiers {version} has no SingleTurnEnv (0.4 replaced that "
                          f"environment API with verifiers.v1); this environment needs {hint}")
    return verifiers


def _info(info: Any) -> dict[str, Any]:
    """A row's ``info`` as a dict (verifiers decodes the JSON string; a direct call may not)."""
    if isinstance(info, str):
        info = json.loads(info) if info else {}
    return dict(info) if isinstance(info, Mapping) else {}


def _whole(completion: Any) -> str:
    """The text of a completion: the string, or its assistant messages' text joined (the
    claim reader reads the reasoning inside ``<think>`` blocks itself)."""
    if isinstance(completion, str):
        text = completion
    else:
        parts = [m.get("content") for m in completion or () if isinstance(m, Mapping)
                 and m.get("role") == "assistant"]
        text = "\n".join(p for p in parts if isinstance(p, str))
    return text


def _rows(data: CertifiedDataset) -> list[dict[str, Any]]:
    """The dataset's items as verifiers rows: question, answer, info (JSON metadata)."""
    rows = []
    for entry in data:
        try:
            info = json.dumps(entry["metadata"], sort_keys=True)
        except (TypeError, ValueError) as error:
            raise InputError(f"{data.name} item {entry['metadata'].get('source_index')}: "
                             f"metadata is not JSON-serialisable: {error}") from None
        rows.append({"question": entry["question"], "answer": str(entry["answer"]),
                     "info": info})
    return rows


def _unscored(state: Mapping[str, Any]) -> bool:
    value = (state.get("metrics") or {}).get(REWARD_NAME)
    return isinstance(value, float) and math.isnan(value)


@cache
def _rubric_class(vf: Any) -> type:
    """``vf.Rubric`` that settles rollouts the verifier could not score (module docstring)."""

    class CertifiedRubric(vf.Rubric):  # type: ignore[misc,name-defined]
        """A rubric whose NaN (unscored) rollouts get reward 0, advantage 0, an error and
        ``verifier_failed`` = 1, and stay out of their group's mean."""

        async def score_rollout(self, state: Any) -> None:
            await super().score_rollout(state)
            self.settle([state], group=False)

        async def score_group(self, states: list[Any]) -> None:
            await super().score_group(states)
            self.settle(states, group=True)

        def settle(self, states: list[Any], group: bool) -> None:
            for state in states:
                metrics = state.get("metrics")
                if isinstance(metrics, dict) and REWARD_NAME in metrics:
                    metrics[FAILED_METRIC] = 1.0 if _unscored(state) else 0.0
            failed = [s for s in states if _unscored(s)]
            if not failed:
                return
            for state in failed:
                state["reward"] = 0.0
                if state.get("error") is None:
                    reason = state.get(REASON_KEY) or "see the causal_oracle.environments log"
                    state["error"] = vf.Error(f"causal-oracle: the verifier could not finish, "
                                              f"so this rollout has no reward: {reason}")
            if not group:
                return
            scored = [s["reward"] for s in states if not _unscored(s)]
            mean = sum(scored) / len(scored) if scored else 0.0
            for state in states:
                state["advantage"] = 0.0 if _unscored(state) else state["reward"] - mean
                for step in state.get("trajectory") or []:
                    for key in ("advantage", "reward"):
                        value = step.get(key)
                        if isinstance(value, float) and math.isnan(value):
                            step[key] = state[key]

    return CertifiedRubric


def load_environment(dataset: str = "causal_corr2cause", size: int = 1000, seed: int = 0,
                     eval_size: int = 200, system_prompt: str | None = None, *,
                     eval_seed: int | None = None, format_weight: float = 0.0,
                     format_pattern: str = DEFAULT_FORMAT_PATTERN,
                     reasoning_weight: float = 0.0,
                     **knobs: Any) -> vf.SingleTurnEnv:
    """A verifiers ``SingleTurnEnv`` over the catalogued dataset ``dataset``.

    Parameters
    ----------
    dataset : str
        A name in ``environments.base.CATALOGUE``.
    size, seed : int
        The training split: items ``seed, …, seed + size - 1``.
    eval_size : int
        Items in the evaluation split (0: none; verifiers then evaluates on training items).
    system_prompt : str or None
        A system message put before every question (none by default: each question
        already says how to answer).
    eval_seed : int or None
        The evaluation split's seed; ``seed + size`` by default.  Its items may not
        overlap the training items (``InputError``).
    format_weight, format_pattern
        Weight of the optional format term (1.0 when the reply's text matches the
        regular expression ``format_pattern``); 0 leaves the term out.
    reasoning_weight : float
        Weight of the optional reasoning term ``causal_reasoning`` (the share of the
        reply's checkable causal claims that are true); 0 leaves it out.
    **knobs
        The dataset's own knobs (``min_nodes``, ``three_class``, …).

    Returns
    -------
    verifiers.SingleTurnEnv
        Rows ``question``, ``answer``, ``info`` (the item's metadata as JSON); rubric
        ``certified_answer`` (and ``answer_format`` when weighted); the datasets are
        drawn when verifiers first asks for them.

    Raises
    ------
    InputError
        An unknown dataset or knob, a bad knob value, negative sizes, overlapping splits.
    ImportError
        verifiers (of a release with ``SingleTurnEnv``) or datasets is not installed.
    """
    for label, value in (("size", size), ("seed", seed), ("eval_size", eval_size)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{label} must be an integer, not {value!r}")
    if size < 1 or eval_size < 0:
        raise InputError(f"need size >= 1 and eval_size >= 0 (got {size}, {eval_size})")
    for label, weight in (("format_weight", format_weight),
                          ("reasoning_weight", reasoning_weight)):
        if isinstance(weight, bool) or not isinstance(weight, int | float) or \
                not math.isfinite(weight):
            raise InputError(f"{label} must be a finite number, not {weight!r}")
    held_seed = seed + size if eval_seed is None else eval_seed
    if eval_size and held_seed < seed + size and seed < held_seed + eval_size:
        raise InputError(f"evaluation items {held_seed}…{held_seed + eval_size - 1} overlap "
                         f"training items {seed}…{seed + size - 1}; choose another eval_seed")
    try:
        pattern = re.compile(format_pattern, re.DOTALL)
    except re.error as error:
        raise InputError(f"format_pattern: {error}") from None
    train = create(dataset, seed=seed, size=size, **knobs)
    held = create(dataset, seed=held_seed, size=eval_size, **knobs) if eval_size else None

    vf = _verifiers()
    from datasets import Dataset

    parser = vf.MaybeThinkParser()

    async def certified_answer(completion: Any, answer: Any, info: Any, state: Any) -> float:
        """1.0 right, 0.0 wrong or unreadable, NaN when the verifier could not finish."""
        meta = _info(info)
        try:
            text = parser.parse_answer(completion)
            entry = {"answer": answer, "metadata": meta}
            score, reason = await asyncio.to_thread(train.scored, text, entry)
            if reason is not None:
                log.warning("no score for %s item %s: %s", dataset, meta.get("source_index"),
                            reason)
        except Exception as error:  # a bug must not read as a wrong answer: no score
            log.exception("no score for %s item %s", dataset, meta.get("source_index"))
            score, reason = math.nan, f"{type(error).__name__}: {error}"
        if math.isnan(score) and isinstance(state, dict):
            state[REASON_KEY] = reason
        return score

    def answer_format(completion: Any) -> float:
        """1.0 when the reply's text matches ``format_pattern``."""
        text = parser.parse_answer(completion) or ""
        return 1.0 if pattern.search(text) else 0.0

    async def causal_reasoning(completion: Any, answer: Any, info: Any) -> float:
        """The share of the reply's checkable causal claims that are true (NaN when the
        verifier could not finish)."""
        entry = {"answer": answer, "metadata": _info(info)}
        share, _ = await asyncio.to_thread(train.reasoning_score, _whole(completion), entry)
        return share

    funcs: list[Any] = [certified_answer]
    weights = [1.0]
    if format_weight:
        funcs.append(answer_format)
        weights.append(float(format_weight))
    if reasoning_weight:
        funcs.append(causal_reasoning)
        weights.append(float(reasoning_weight))
    rubric = _rubric_class(vf)(funcs=funcs, weights=weights, parser=parser)
    env_args = {"dataset": dataset, "size": size, "seed": seed, "eval_size": eval_size,
                "eval_seed": held_seed, "format_weight": format_weight, **knobs}
    if reasoning_weight:
        env_args["reasoning_weight"] = reasoning_weight
    return vf.SingleTurnEnv(
        dataset=lambda: Dataset.from_list(_rows(train)),
        eval_dataset=(lambda: Dataset.from_list(_rows(held))) if held is not None else None,
        system_prompt=system_prompt, parser=parser, rubric=rubric,
        env_id=dataset, env_args=env_args)


__all__ = ["DEFAULT_FORMAT_PATTERN", "FAILED_METRIC", "REASON_KEY", "REWARD_NAME",
           "VERIFIERS_REQUIREMENT", "load_environment"]
