"""Reward functions in the call shapes of the trainers: TRL, verl, OpenRLHF.

Each trainer calls a reward function its own way; each adapter here turns that call
into ``Sample``s (``rewards.scoring``), scores them on one ``Scorer`` (the hard
per-sample cap of ``rewards.pool``) and returns what that trainer expects:

* **TRL** ``GRPOTrainer(reward_funcs=trl_reward)`` calls ``trl_reward(prompts=…,
  completions=…, completion_ids=…, **dataset_columns)``; prompts and completions are
  strings or chat-message lists.  Returns ``list[float | None]`` — ``None`` where the
  verifier gave no reward (TRL ignores it).  ``trl_reward_async`` is the ``async def``
  twin for TRL's asynchronous reward functions.  ``trl_reasoning_reward`` (and its
  ``_async`` twin) is the reasoning component as a reward function of its own, for
  ``reward_funcs=[trl_reward, trl_reasoning_reward]`` with TRL's ``reward_weights``:
  the share of the reply's checkable causal claims that are true (0 without one).
* **verl** ``custom_reward_function.name=compute_score`` calls ``compute_score(
  data_source, solution_str, ground_truth, extra_info)``: the question is
  ``extra_info["prompt"]`` (string or messages) or else the item text in
  ``ground_truth``.  Returns ``{"score", "acc", "unreadable", "verifier_failed",
  "relation", "task", "status", "reason"}`` and ``"format"`` when a format term is
  configured (the same keys for every sample, as verl's reward managers collect them
  per key); ``score`` and ``acc`` (and ``format``) are NaN without a reward, and no
  other value is ever NaN.  With a reasoning weight configured every result also
  has ``reasoning`` (the share of true claims; NaN without a checkable claim or a
  reward), ``lucky`` and ``unsupported`` (0/1).
  ``compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos)``
  is the batched form (verl's ``BatchRewardManager``), ``compute_score_async`` the
  ``async def`` form that verl's reward loop awaits (``NaiveRewardManager.run_single``,
  verl 0.9) instead of running it in an executor.
* **OpenRLHF** ``--remote_rm_url reward_func.py`` calls ``reward_func(queries,
  prompts, labels)``: each query is the prompt followed by the completion.  Returns
  ``{"rewards", "scores", "extra_logs"}`` as lists (NaN without a reward; with a
  reasoning weight, ``extra_logs`` also holds ``reasoning``, ``lucky``, ``unsupported``).

The reasoning weight (``RewardConfig.reasoning_weight``, ``CAUSAL_ORACLE_REWARD_
REASONING_WEIGHT``; 0 by default, every result then unchanged) adds that weight × the
share of true claims to each reward (``rewards.scoring``).

Columns named ``premise``, ``hypothesis`` and ``task`` (TRL dataset columns, verl's
``extra_info``) take precedence over the prompt's text.  Every value a trainer hands
over crosses ``rewards.inputs``: a missing one (None, NaN, "") is absent, one that is
not text (a number, a dict) makes its sample ``invalid`` — no reward, the reason naming
the field — and no adapter ever raises on a sample's values.  The scorer is the process's
default (``configure`` replaces it; the ``CAUSAL_ORACLE_REWARD_*`` environment
variables set it up for trainers that import a function by name).

    >>> _ = configure(RewardConfig(workers=0))
    >>> item = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
    ...         "statistical relations among these 2 variables are as follows: A correlates "
    ...         "with B.\\nHypothesis: A directly causes B.")
    >>> trl_reward([item, item, "What is 2 + 2?"], ["No.", "Yes.", "4"])
    [1.0, 0.0, None]
    >>> compute_score("corr2cause", "Neutral.", item)["score"]
    1.0
    >>> reward_func([item + "\\nNo."], [item], [""])["rewards"]
    [1.0]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from causal_oracle.rewards.inputs import Refused, clean_text, column_at, column_value, text_value
from causal_oracle.rewards.pool import Scorer
from causal_oracle.rewards.prompts import completion_text, text_of, user_turn
from causal_oracle.rewards.scoring import Reward, RewardConfig, Sample

COLUMNS = ("premise", "hypothesis", "task")
NAN = float("nan")

_DEFAULT: Scorer | None = None
_DEFAULT_LOCK = threading.Lock()


def config_from_env(environ: Mapping[str, str] | None = None) -> RewardConfig:
    """``RewardConfig`` from ``CAUSAL_ORACLE_REWARD_WORKERS``, ``…_CAP_S``,
    ``…_BUDGET_S``, ``…_FORMAT_WEIGHT``, ``…_FORMAT_PATTERN``, ``…_PROFILE``,
    ``…_REASONING_WEIGHT`` (unset: the defaults; the budget at most 80 % of the cap:
    ``RewardConfig.within``)."""
    env = os.environ if environ is None else environ
    base = RewardConfig()
    get = lambda name, default: env.get(f"CAUSAL_ORACLE_REWARD_{name}") or default  # noqa: E731
    budget = get("BUDGET_S", None)
    return RewardConfig.within(float(get("CAP_S", base.cap_s)),
                               None if budget is None else float(budget),
                               workers=int(get("WORKERS", base.workers)),
                               profile=str(get("PROFILE", base.profile)),
                               format_weight=float(get("FORMAT_WEIGHT", base.format_weight)),
                               format_pattern=str(get("FORMAT_PATTERN", base.format_pattern)),
                               reasoning_weight=float(get("REASONING_WEIGHT",
                                                          base.reasoning_weight)))


def configure(config: RewardConfig | None = None) -> Scorer:
    """Replace the process's default scorer (closing the old one) and return it."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        old, _DEFAULT = _DEFAULT, Scorer(config or config_from_env())
    if old is not None:
        old.close()
    return _DEFAULT


def scorer() -> Scorer:
    """The process's default scorer (made from the environment on first use)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Scorer(config_from_env())
        return _DEFAULT


def prompt_text(prompt: Any) -> str:
    """The text of a prompt: the last user message of chat messages, the last user turn
    of a string with a chat template applied, or the string itself (lone surrogates
    replaced: ``rewards.inputs``).  Request parameters stand for their prompt: an OpenAI
    Responses request (NeMo-Gym's ``responses_create_params``) for its ``input`` (its
    ``instructions`` when the input is empty), a chat-completions request for its
    ``messages``."""
    if isinstance(prompt, Mapping):
        if "input" in prompt:
            prompt = prompt["input"] or prompt.get("instructions") or ""
        elif "messages" in prompt:
            prompt = prompt["messages"]
    if isinstance(prompt, str):
        return clean_text(user_turn(prompt))
    return clean_text(text_of(prompt))


def reply_text(completion: Any) -> str:
    """``completion_text`` with lone surrogates replaced."""
    return clean_text(completion_text(completion))


def sample_of(read: Callable[[], Sample]) -> Sample:
    """``read()``, or an ``invalid`` sample saying which value was refused."""
    try:
        return read()
    except Refused as error:
        return Sample("", "", problem=str(error))


# ---- TRL ------------------------------------------------------------------------------------

def trl_samples(prompts: Sequence[Any], completions: Sequence[Any],
                columns: Mapping[str, Any]) -> list[Sample]:
    """TRL's arguments as samples (dataset columns are lists aligned with completions, or
    one value every sample shares)."""
    def one(i: int) -> Sample:
        return Sample(prompt_text(prompts[i]) if i < len(prompts) else "",
                      reply_text(completions[i]),
                      **{c: column_at(columns[c], i, c) for c in COLUMNS if c in columns})
    return [sample_of(lambda i=i: one(i)) for i in range(len(completions))]


def trl_reward(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
               ) -> list[float | None]:
    """TRL ``GRPOTrainer`` reward function: 1 correct, 0 wrong or unreadable (+ the
    format term), ``None`` where the verifier gave no reward."""
    rewards = scorer().score_many(trl_samples(prompts, completions, kwargs))
    return [r.reward for r in rewards]


async def trl_reward_async(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
                           ) -> list[float | None]:
    """``trl_reward`` for TRL's asynchronous reward functions (never blocks the loop)."""
    rewards = await scorer().score_many_async(trl_samples(prompts, completions, kwargs))
    return [r.reward for r in rewards]


def reasoning_value(r: Reward) -> float | None:
    """A reward's reasoning component: the share of its reply's checkable claims that
    are true, 0.0 without one, None where the verifier gave no reward."""
    if r.failed or r.parts is None:
        return None
    return r.parts.reasoning or 0.0


def _asking(samples: list[Sample]) -> list[Sample]:
    return [replace(s, reasoning=True) for s in samples]


def trl_reasoning_reward(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
                         ) -> list[float | None]:
    """TRL reward function of the reasoning component alone (``reasoning_value``)."""
    rewards = scorer().score_many(_asking(trl_samples(prompts, completions, kwargs)))
    return [reasoning_value(r) for r in rewards]


async def trl_reasoning_reward_async(prompts: Sequence[Any], completions: Sequence[Any],
                                     **kwargs: Any) -> list[float | None]:
    """``trl_reasoning_reward`` for TRL's asynchronous reward functions."""
    rewards = await scorer().score_many_async(
        _asking(trl_samples(prompts, completions, kwargs)))
    return [reasoning_value(r) for r in rewards]


def reasoning_logs(r: Reward) -> dict[str, float]:
    """``reasoning`` (NaN: no checkable claim or no reward), ``lucky``, ``unsupported``
    (0/1) as the trainers log them."""
    p = r.parts
    return {"reasoning": NAN if p is None or p.reasoning is None else p.reasoning,
            "lucky": float(p is not None and p.lucky),
            "unsupported": float(p is not None and p.unsupported)}


# ---- verl -----------------------------------------------------------------------------------

def verl_sample(solution_str: Any, ground_truth: Any, extra_info: Any) -> Sample:
    """One verl call's values as a sample (``extra_info`` values are this sample's own)."""
    def read() -> Sample:
        info = extra_info if isinstance(extra_info, Mapping) else {}
        prompt = info.get("prompt", info.get("question"))
        fallback = column_value(ground_truth, "ground_truth") \
            if isinstance(ground_truth, str) else None
        return Sample(prompt_text(prompt) if prompt is not None else "",
                      reply_text(solution_str),
                      **{c: column_value(info.get(c), f"extra_info[{c!r}]") for c in COLUMNS},
                      fallback=fallback)
    return sample_of(read)


def verl_result(r: Reward, with_format: bool | None = None,
                with_reasoning: bool | None = None) -> dict[str, Any]:
    """A reward as verl logs it (the same keys for every sample): NaN only in ``score``,
    ``acc`` and ``format`` of a sample without a reward (and in ``reasoning``);
    ``format`` only when the format term is configured (``with_format``; None: the
    default scorer's config), ``reasoning``/``lucky``/``unsupported`` only with a
    reasoning weight (``with_reasoning``, likewise)."""
    if with_format is None:
        with_format = scorer().config.format_weight != 0
    if with_reasoning is None:
        with_reasoning = scorer().config.reasoning_weight != 0
    out: dict[str, Any] = {
        "score": NAN if r.reward is None else r.reward,
        "acc": NAN if r.acc is None else r.acc,
        "unreadable": float(r.status == "unreadable"),
        "verifier_failed": float(r.failed),
        "relation": r.relation or "", "task": r.task or "", "status": r.status,
        "reason": r.reason}
    if with_format:
        out["format"] = NAN if r.format_ok is None else float(r.format_ok)
    if with_reasoning:
        out.update(reasoning_logs(r))
    return out


def compute_score(data_source: Any, solution_str: Any, ground_truth: Any,
                  extra_info: Any = None, **kwargs: Any) -> dict[str, Any]:
    """verl reward function (``NaiveRewardManager``'s call)."""
    return verl_result(scorer().score_many([verl_sample(solution_str, ground_truth,
                                                        extra_info)])[0])


async def compute_score_async(data_source: Any, solution_str: Any, ground_truth: Any,
                              extra_info: Any = None, **kwargs: Any) -> dict[str, Any]:
    """``compute_score`` for verl's reward loop, awaited on its event loop (never blocks it;
    ``reward_router_address`` and the other keywords the loop may pass are ignored)."""
    rewards = await scorer().score_many_async([verl_sample(solution_str, ground_truth,
                                                           extra_info)])
    return verl_result(rewards[0])


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[Any],
                        ground_truths: Sequence[Any], extra_infos: Sequence[Any] | None = None,
                        **kwargs: Any) -> list[dict[str, Any]]:
    """verl batched reward function (``BatchRewardManager``'s call)."""
    n = len(solution_strs)
    truths = list(ground_truths) if ground_truths is not None else []
    infos = list(extra_infos) if extra_infos is not None else []
    samples = [verl_sample(solution_strs[i], truths[i] if i < len(truths) else None,
                           infos[i] if i < len(infos) else None) for i in range(n)]
    return [verl_result(r) for r in scorer().score_many(samples)]


# ---- OpenRLHF -------------------------------------------------------------------------------

def openrlhf_samples(queries: Sequence[Any], prompts: Sequence[Any],
                     labels: Sequence[Any] | None) -> list[Sample]:
    """Each query is its prompt followed by the completion (a query or prompt that is not
    text makes its sample ``invalid``)."""
    def one(i: int) -> Sample:
        query = text_value(queries[i], f"queries[{i}]")
        prompt = text_value(prompts[i], f"prompts[{i}]") if i < len(prompts) else ""
        at = query.find(prompt) if prompt else -1
        completion = query[at + len(prompt):] if at >= 0 else ""
        label = labels[i] if labels is not None and i < len(labels) else None
        return Sample(prompt_text(prompt) if at >= 0 else "", completion,
                      fallback=clean_text(label) if isinstance(label, str) and label else None)
    return [sample_of(lambda i=i: one(i)) for i in range(len(queries))]


def openrlhf_result(rewards: Sequence[Reward]) -> dict[str, Any]:
    """OpenRLHF's lists (NaN without a reward, as ``torch.tensor`` takes them)."""
    values = [NAN if r.reward is None else r.reward for r in rewards]
    logs = {"acc": [NAN if r.acc is None else r.acc for r in rewards],
            "unreadable": [float(r.status == "unreadable") for r in rewards],
            "verifier_failed": [float(r.failed) for r in rewards]}
    if scorer().config.reasoning_weight != 0:
        each = [reasoning_logs(r) for r in rewards]
        logs.update({k: [e[k] for e in each] for k in ("reasoning", "lucky", "unsupported")})
    return {"rewards": values, "scores": list(values), "extra_logs": logs}


def reward_func(queries: Sequence[Any], prompts: Sequence[Any], labels: Sequence[Any] | None,
                **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF custom reward function (``--remote_rm_url FILE.py``)."""
    return openrlhf_result(scorer().score_many(openrlhf_samples(queries, prompts, labels)))


__all__ = ["COLUMNS", "compute_score", "compute_score_async", "compute_score_batch",
           "config_from_env", "configure",
           "openrlhf_result", "openrlhf_samples", "prompt_text", "reasoning_logs",
           "reasoning_value", "reply_text", "reward_func", "sample_of",
           "scorer", "trl_reasoning_reward", "trl_reasoning_reward_async", "trl_reward",
           "trl_reward_async", "trl_samples", "verl_result",
           "verl_sample"]
