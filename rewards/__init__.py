"""Verifiable rewards for reinforcement learning, from the oracle's certified answers.

A *verifiable reward* scores a model's completion by checking it, not by a learned
judge: 1 when the completion gives the certified answer to the question in its
prompt, 0 when it gives another answer or none that can be read, and **no reward**
(``None``/NaN, with its reason) when the verifier could not finish — never a silent
0 (DESIGN 6).  Any registered benchmark family is read from the prompt's own text.

* ``rewards.trainers`` — ``trl_reward`` / ``trl_reward_async`` (TRL ``GRPOTrainer``;
  ``trl_reasoning_reward`` the reasoning component as a reward function of its own),
  ``compute_score`` / ``compute_score_async`` / ``compute_score_batch`` (verl),
  ``reward_func`` (OpenRLHF);
* ``rewards.nemo_gym`` — a NeMo-Gym resources server (``/verify`` with ``reward`` and
  ``reward_components``), its models mirrored in ``rewards.nemo_gym_models``;
* ``rewards.scoring`` — ``Sample``, ``Reward``, ``RewardConfig``, ``Verifier``;
* ``rewards.pool`` — ``Scorer``: a hard per-sample time cap in worker processes;
* ``rewards.http`` — the HTTP/JSON endpoint (``causal-oracle serve --http-port``;
  needs the ``rl`` extra: Starlette and uvicorn), strict JSON throughout;
  ``rewards.http_security`` — its TLS, mutual TLS and shared-secret token;
* ``rewards.prompts`` — where the question and the reply sit in a trainer's data;
* ``rewards.inputs`` — a trainer's values made into text, or refused naming the field
  (status ``invalid``: no adapter ever raises on a sample's values).

    >>> from causal_oracle.rewards import RewardConfig, configure, trl_reward
    >>> _ = configure(RewardConfig(workers=0))
    >>> trl_reward(["Premise: Suppose there is a closed system of 2 variables, A and B. All "
    ...             "the statistical relations among these 2 variables are as follows: A "
    ...             "correlates with B.\\nHypothesis: A directly causes B."],
    ...            [[{"role": "assistant", "content": "No: B could cause A."}]])
    [1.0]

Nothing here imports torch.
"""

from causal_oracle.rewards.pool import Scorer
from causal_oracle.rewards.scoring import ReasoningParts, Reward, RewardConfig, Sample, Verifier
from causal_oracle.rewards.trainers import (
    compute_score,
    compute_score_async,
    compute_score_batch,
    configure,
    reward_func,
    scorer,
    trl_reasoning_reward,
    trl_reward,
    trl_reward_async,
)

__all__ = ["ReasoningParts", "Reward", "RewardConfig", "Sample", "Scorer", "Verifier",
           "compute_score", "compute_score_async", "compute_score_batch", "configure",
           "reward_func", "scorer",
           "trl_reasoning_reward", "trl_reward", "trl_reward_async"]
