"""The verifiers environment, driven as verifiers drives it: ``env.evaluate`` end to end.

The model is a real ``openai.AsyncOpenAI`` client whose HTTP transport is an in-process
fake (``httpx.MockTransport``): no network.  It reads each question from the request and
answers right, wrong or unreadably by the row it belongs to; the rewards verifiers
computes must be 1.0 / 0.0 / 0.0.  The rubric's own entry point is called directly too,
with an item the verifier cannot finish (NaN: settled, never a silent 0).
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest

vf = pytest.importorskip("verifiers")
if getattr(vf, "SingleTurnEnv", None) is None:  # verifiers >= 0.3: another environment API
    pytest.skip("verifiers without SingleTurnEnv", allow_module_level=True)
httpx = pytest.importorskip("httpx")
openai = pytest.importorskip("openai")

from causal_oracle.entry import InputError  # noqa: E402
from causal_oracle.environments.verifiers_env import (  # noqa: E402
    FAILED_METRIC,
    REWARD_NAME,
    load_environment,
)

FLIP = {"Yes": "No", "No": "Yes", "entailment": "contradiction",
        "contradiction": "neutral", "neutral": "entailment"}
EVAL_SIZE = 12


def _policy(i: int, gold: str) -> tuple[str, float]:
    """What the fake model replies to row ``i`` and the reward that reply earns."""
    if i % 3 == 0:
        return (f"<think>Yes? No? Let me check the colliders.</think>\n**Answer:** {gold}"
                if i % 6 == 0 else f"{gold}."), 1.0
    if i % 3 == 1:
        return f"The answer is {FLIP[gold]}.", 0.0
    return "I cannot tell from the premise.", 0.0


def _fake_client(replies: dict[str, str], seen: list[str]) -> Any:
    """An ``AsyncOpenAI`` whose server is a function: the chat-completions protocol."""

    def handle(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        body = json.loads(request.content)
        question = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        if isinstance(question, list):
            question = "".join(p.get("text", "") for p in question)
        seen.append(question)
        return httpx.Response(200, json={
            "id": f"chatcmpl-{len(seen)}", "object": "chat.completion", "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": replies[question]}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}})

    return openai.AsyncOpenAI(api_key="test", base_url="http://fake.invalid/v1",
                              http_client=httpx.AsyncClient(transport=httpx.MockTransport(handle)))


@pytest.fixture(scope="module")
def env() -> Any:
    return load_environment("causal_corr2cause", size=8, seed=3, eval_size=EVAL_SIZE,
                            system_prompt="Think, then answer.", min_nodes=3, max_nodes=5,
                            balanced=True)


def test_splits_rows_and_info(env: Any) -> None:
    train, held = env.get_dataset(), env.get_eval_dataset()
    assert len(train) == 8 and len(held) == EVAL_SIZE
    assert not set(train["question"]) & set(held["question"])
    row = held[0]
    assert row["prompt"][0] == {"role": "system", "content": "Think, then answer."}
    assert row["prompt"][-1] == {"role": "user", "content": row["question"]}
    info = json.loads(row["info"])
    assert info["source_dataset"] == "causal_corr2cause" and info["source_index"] == 0
    assert {"item", "difficulty"} <= set(info)  # and "task" where the dataset names one
    # the same arguments give the same rows (items are drawn from seed + idx)
    again = load_environment("causal_corr2cause", size=8, seed=3, eval_size=EVAL_SIZE,
                             min_nodes=3, max_nodes=5, balanced=True)
    assert again.get_eval_dataset()["info"] == held["info"]


def test_evaluate_end_to_end_with_a_fake_openai_server(env: Any) -> None:
    held = env.get_eval_dataset()
    replies, expected = {}, {}
    for i, row in enumerate(held):
        replies[row["question"]], expected[row["example_id"]] = _policy(i, row["answer"])
    seen: list[str] = []
    client = vf.OpenAIChatCompletionsClient(_fake_client(replies, seen))
    results = asyncio.run(env.evaluate(client=client, model="fake-model",
                                       sampling_args={"temperature": 0.0},
                                       rollouts_per_example=2, max_concurrent=4,
                                       on_progress=lambda *a: None))
    outputs = results["outputs"]
    assert len(outputs) == 2 * EVAL_SIZE and len(seen) == 2 * EVAL_SIZE
    for out in outputs:
        assert out["reward"] == expected[out["example_id"]], out["completion"]
        assert out["metrics"][REWARD_NAME] == out["reward"]
        assert out["metrics"][FAILED_METRIC] == 0.0 and not out.get("error")
    assert set(expected.values()) == {0.0, 1.0}
    mean = sum(expected.values()) / len(expected)
    assert results["metadata"]["avg_reward"] == pytest.approx(mean)


def _state(env: Any, row: dict[str, Any], reply: str, **override: Any) -> Any:
    info = {**json.loads(row["info"]), **override}
    state = vf.State()
    state.update(prompt=row["prompt"], answer=row["answer"], info=info, trajectory=[],
                 completion=[{"role": "assistant", "content": reply}])
    return state


def test_the_rubric_scores_one_rollout_directly(env: Any) -> None:
    row = env.get_eval_dataset()[1]
    right, wrong = _state(env, row, row["answer"]), _state(env, row, FLIP[row["answer"]])
    asyncio.run(env.rubric.score_rollout(right))
    asyncio.run(env.rubric.score_rollout(wrong))
    assert (right["reward"], wrong["reward"]) == (1.0, 0.0)
    assert right["metrics"][REWARD_NAME] == 1.0 and right["metrics"][FAILED_METRIC] == 0.0


def _group(env: Any) -> list[Any]:
    row = env.get_eval_dataset()[0]
    return [_state(env, row, row["answer"]), _state(env, row, FLIP[row["answer"]]),
            _state(env, row, "Yes", item="What is 2 + 2?")]  # no family reads this item


def test_an_unfinished_verifier_is_settled_not_zeroed(env: Any,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    group = _group(env)
    with caplog.at_level("WARNING", logger="causal_oracle.environments"):
        asyncio.run(env.rubric.score_group(group))  # the env's rubric, as verifiers calls it
    ok, bad, failed = group
    assert (ok["reward"], bad["reward"], failed["reward"]) == (1.0, 0.0, 0.0)
    assert math.isnan(failed["metrics"][REWARD_NAME])
    assert failed["metrics"][FAILED_METRIC] == 1.0 and ok["metrics"][FAILED_METRIC] == 0.0
    assert isinstance(failed["error"], vf.Error) and ok.get("error") is None
    assert "no benchmark recognises this text" in str(failed["error"])  # with the reason
    assert "no score for causal_corr2cause item 0" in caplog.text
    # alone, the rubric's group advantages leave the unscored rollout out of the baseline
    alone = _group(env)
    asyncio.run(env.rubric.rubrics[0].score_group(alone))
    assert [s["advantage"] for s in alone] == [0.5, -0.5, 0.0]


def test_a_reasoning_weight_adds_the_reasoning_function() -> None:
    env = load_environment("causal_corr2cause", size=2, seed=5, eval_size=0, min_nodes=3,
                           max_nodes=3, reasoning_weight=0.5)
    row = env.get_dataset()[0]
    names = [f.__name__ for f in env.rubric.rubrics[0].funcs] if hasattr(
        env.rubric, "rubrics") else [f.__name__ for f in env.rubric.funcs]
    assert "causal_reasoning" in names
    gold = row["answer"]
    true_claim = _state(env, row, f"<think>A and C are adjacent.</think> The answer is {gold}.")
    no_claim = _state(env, row, f"The answer is {gold}.")
    for state in (true_claim, no_claim):
        asyncio.run(env.rubric.score_rollout(state))
    assert true_claim["metrics"]["causal_reasoning"] == 1.0
    assert no_claim["metrics"]["causal_reasoning"] == 0.0
    assert (true_claim["reward"], no_claim["reward"]) == (1.5, 1.0)
    plain = load_environment("causal_corr2cause", size=2, seed=5, eval_size=0, min_nodes=3,
                             max_nodes=3)
    state = _state(plain, row, f"<think>A and C are adjacent.</think> The answer is {gold}.")
    asyncio.run(plain.rubric.score_rollout(state))
    assert "causal_reasoning" not in state["metrics"] and state["reward"] == 1.0


def test_verifiers_own_loader_finds_the_module() -> None:
    env = vf.load_environment("causal_oracle.environments.verifiers_env", size=2, eval_size=2,
                              format_weight=0.25)
    assert isinstance(env, vf.SingleTurnEnv)
    ours = env.rubric.rubrics[0]  # verifiers groups it with its turn-count monitor
    assert [f.__name__ for f in ours.funcs] == [REWARD_NAME, "answer_format"]
    assert ours.weights == [1.0, 0.25]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"dataset": "causal_nonesuch"}, "unknown dataset 'causal_nonesuch'; known: "),
    ({"min_nodez": 3}, "min_nodez"),
    ({"min_nodes": 6, "max_nodes": 3}, "nodes"),
    ({"size": 0}, "size >= 1"),
    ({"size": 10, "eval_seed": 5}, "overlap"),
    ({"format_pattern": "<answer>("}, "format_pattern"),
])
def test_bad_arguments_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        load_environment(**kwargs)


def test_the_hub_package_loads_through_verifiers_v0(monkeypatch: pytest.MonkeyPatch) -> None:
    """``environments/causal_oracle_env`` (the Environments Hub package, ``prime env
    install causal-oracle-env``) gives verifiers 0.2 its ``load_environment``; its v1
    names are not importable here, and say why."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "environments"
                                    / "causal_oracle_env"))
    env = vf.load_environment("causal-oracle-env", dataset="causal_graph", size=2,
                              eval_size=2, max_nodes=5)
    assert isinstance(env, vf.SingleTurnEnv) and env.env_id == "causal_graph"
    import causal_oracle_env

    with pytest.raises(AttributeError, match=r"verifiers >= 0\.4"):
        _ = causal_oracle_env.CertifiedTaskset
