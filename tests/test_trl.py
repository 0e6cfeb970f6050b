"""The TRL adapter in TRL's own call path: ``GRPOTrainer`` scoring a batch.

A real ``GRPOTrainer`` (TRL 1.16: the ``trl`` extra, beside the CPU torch of ``gpu``)
over a tiny model built here — a one-layer Llama whose vocabulary is a dozen words, no
download — with TRL's ``rollout_func`` hook standing in for generation: it hands the
trainer fixed completions (token ids of the tiny vocabulary, which the trainer decodes
itself).  ``_generate_and_score_completions`` — the step's whole scoring path — then
calls ``trl_reward`` (sync) and ``trl_reward_async`` (TRL's event loop) with its own
arguments (``prompts``, ``completions``, ``completion_ids``, the dataset's columns,
``trainer_state``, ``log_extra``, ``log_metric``), turns ``None`` into NaN, marks a row
every function left unscored as excluded, and computes the group advantages.  The
tests read what the trainer made of it: gold 1, flipped 0, unreadable 0, an unscorable
completion NaN with advantage 0 and left out of its group's baseline and the logged
mean — never an exception.
"""

from __future__ import annotations

import math
import os
from typing import Any

import pytest

trl = pytest.importorskip("trl")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
datasets = pytest.importorskip("datasets")
tokenizers = pytest.importorskip("tokenizers")

from causal_oracle.rewards import (  # noqa: E402
    RewardConfig,
    configure,
    trl_reasoning_reward,
    trl_reward,
    trl_reward_async,
)
from causal_oracle.rewards.trainers import trl_reasoning_reward_async  # noqa: E402

ITEM = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
        "statistical relations among these 2 variables are as follows: A correlates with B."
        "\nHypothesis: A directly causes B.")  # gold: No
WORDS = ["[PAD]", "[EOS]", "[UNK]", "Yes", "No", "maybe", "The", "answer", "is", ".", "A", "B",
         "and", "are", "adjacent", "independent", "of"]
OVER = 65_600  # "Yes " × 65,600 = 262,400 bytes: over the 256 KiB reply limit
GROUPS = [  # (prompt, the four completions of its group)
    (ITEM, ["No .", "The answer is Yes", "maybe", " ".join(["Yes"] * OVER)]),
    ("What is 2 + 2?", ["Yes", "No", "maybe", "No ."]),  # no benchmark reads it
]


def _tokenizer() -> Any:
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(
        {w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.decoder = tokenizers.decoders.WordPiece()  # words joined by spaces
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]",
                                                pad_token="[PAD]", eos_token="[EOS]")


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is experimental
    configure(RewardConfig(workers=0))  # score in this process (restored below)
    tokenizer = _tokenizer()
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=len(WORDS), hidden_size=8, intermediate_size=16, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, pad_token_id=0, bos_token_id=1,
        eos_token_id=1))
    rows = [{"prompt": prompt} for prompt, replies in GROUPS for _ in replies]
    replies = [reply for _, group in GROUPS for reply in group]

    def rollout(prompts: list[Any], trainer: Any) -> dict[str, Any]:
        assert prompts == [row["prompt"] for row in rows]
        ids = [tokenizer(reply)["input_ids"] + [tokenizer.eos_token_id] for reply in replies]
        return {"prompt_ids": [[2, 2]] * len(prompts), "completion_ids": ids,
                "logprobs": [[-1.0] * len(i) for i in ids]}

    args = trl.GRPOConfig(output_dir=str(tmp_path_factory.mktemp("grpo")),
                          per_device_train_batch_size=len(rows), num_generations=4,
                          max_completion_length=8, report_to="none", use_cpu=True)
    trainer = trl.GRPOTrainer(model=model, processing_class=tokenizer,
                              reward_funcs=[trl_reward, trl_reward_async], args=args,
                              train_dataset=datasets.Dataset.from_list(rows),
                              rollout_func=rollout)
    seen: dict[str, Any] = {}
    calculate = trainer._calculate_rewards

    def spy(*a: Any, **k: Any) -> Any:  # the trainer's own method, its result kept
        seen["per_func"] = calculate(*a, **k)
        return seen["per_func"]

    trainer._calculate_rewards = spy
    trainer.model.train()
    try:
        out = trainer._generate_and_score_completions(rows)
    finally:
        configure()
    return {"per_func": seen["per_func"].tolist(), "advantages": out["advantages"].tolist(),
            "metrics": {k: v[-1] for k, v in trainer._metrics["train"].items()}}


def test_trl_version() -> None:
    assert tuple(int(p) for p in trl.__version__.split(".")[:2]) >= (1, 16)


def test_sync_and_async_rewards_as_the_trainer_sees_them(scored: dict[str, Any]) -> None:
    per_func = scored["per_func"]
    assert len(per_func) == 8 and all(len(row) == 2 for row in per_func)
    sync, async_ = [row[0] for row in per_func], [row[1] for row in per_func]
    assert sync[:3] == [1.0, 0.0, 0.0]  # gold, flipped, unreadable
    assert all(math.isnan(r) for r in sync[3:])  # over the size limit; no question read
    same = [a == s or (math.isnan(a) and math.isnan(s))
            for a, s in zip(async_, sync, strict=True)]
    assert same == [True] * 8


def test_unscorable_completions_are_excluded_not_zeroed(scored: dict[str, Any]) -> None:
    adv = scored["advantages"]
    # group 1: rewards 1, 0, 0 and one excluded: baseline 1/3 over the three scored
    assert adv[0] > 0 > adv[1] and adv[1] == pytest.approx(adv[2])
    assert adv[0] == pytest.approx(-2 * adv[1], rel=1e-3)
    assert adv[3] == 0.0 and adv[4:] == [0.0] * 4  # no signal from what was not scored
    metrics = scored["metrics"]
    assert metrics["rewards/trl_reward/mean"] == pytest.approx(1 / 3)
    assert metrics["reward"] == pytest.approx(2 / 3)  # the two functions' sum, scored rows
    assert not any(math.isnan(v) for v in metrics.values() if isinstance(v, float))


#: one group: a true claim and the right answer, a false claim and the right answer
#: (lucky), the right answer alone (unsupported), a true claim and the wrong answer
REASONED = ["A and B are adjacent . The answer is No",
            "A is independent of B . The answer is No", "No",
            "A and B are adjacent . The answer is Yes"]


def _trainer_scores(tmp: Any, funcs: list[Any], weights: list[float], config: RewardConfig
                    ) -> dict[str, Any]:
    """Score ``REASONED`` for ``ITEM`` through GRPOTrainer's own scoring path."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    configure(config)
    tokenizer = _tokenizer()
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=len(WORDS), hidden_size=8, intermediate_size=16, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, pad_token_id=0, bos_token_id=1,
        eos_token_id=1))
    rows = [{"prompt": ITEM} for _ in REASONED]

    def rollout(prompts: list[Any], trainer: Any) -> dict[str, Any]:
        ids = [tokenizer(reply)["input_ids"] + [tokenizer.eos_token_id] for reply in REASONED]
        return {"prompt_ids": [[2, 2]] * len(prompts), "completion_ids": ids,
                "logprobs": [[-1.0] * len(i) for i in ids]}

    args = trl.GRPOConfig(output_dir=str(tmp), per_device_train_batch_size=len(rows),
                          num_generations=4, max_completion_length=12, report_to="none",
                          use_cpu=True, reward_weights=weights)
    trainer = trl.GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=funcs,
                              args=args, train_dataset=datasets.Dataset.from_list(rows),
                              rollout_func=rollout)
    seen: dict[str, Any] = {}
    calculate = trainer._calculate_rewards

    def spy(*a: Any, **k: Any) -> Any:
        seen["per_func"] = calculate(*a, **k)
        return seen["per_func"]

    trainer._calculate_rewards = spy
    trainer.model.train()
    try:
        trainer._generate_and_score_completions(rows)
    finally:
        configure()
    return {"per_func": seen["per_func"].tolist(),
            "metrics": {k: v[-1] for k, v in trainer._metrics["train"].items()}}


def test_the_reasoning_component_as_a_reward_function_of_its_own(
        tmp_path: Any) -> None:
    """``reward_funcs=[trl_reward, trl_reasoning_reward]`` with TRL's ``reward_weights``:
    the answer and the share of true claims, weighted by the trainer."""
    got = _trainer_scores(tmp_path, [trl_reward, trl_reasoning_reward,
                                     trl_reasoning_reward_async], [1.0, 0.5, 0.0],
                          RewardConfig(workers=0))
    answer, reasoning, again = zip(*got["per_func"], strict=True)
    assert list(answer) == [1.0, 1.0, 1.0, 0.0]  # the default reward: unchanged
    assert list(reasoning) == [1.0, 0.0, 0.0, 1.0] == list(again)
    assert got["metrics"]["reward"] == pytest.approx((1.5 + 1.0 + 1.0 + 0.5) / 4)


def test_a_reasoning_weight_folds_the_component_into_the_reward(tmp_path: Any) -> None:
    got = _trainer_scores(tmp_path, [trl_reward], [1.0],
                          RewardConfig(workers=0, reasoning_weight=0.5))
    assert [row[0] for row in got["per_func"]] == [1.5, 1.0, 1.0, 0.5]
