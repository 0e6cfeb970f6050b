"""The NeMo-Gym resources server, posted to as NeMo-Gym's agent posts to it.

Requests are built from the mirrored NeMo-Gym 0.4.0 models (``rewards.nemo_gym_models``):
a ``BaseVerifyRequest`` whose ``responses_create_params`` hold the question as an easy
input message and whose ``response`` is a Responses-API ``NeMoGymResponse`` (a reasoning
item, then the assistant's output message), dumped to JSON and posted through an
in-process ASGI client (``httpx.ASGITransport``).  Every response is parsed with a
strict JSON parser and validated as NeMo-Gym's ``SimpleAgent`` validates it
(``BaseVerifyResponse`` with extra fields allowed): gold 1, flipped 0, unreadable 0; a
sample the verifier cannot score has no reward — ``valid`` false, no components, and
NeMo-Gym's failure sentinel, which sends it to the failures file — never an exception
and never a 500.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("pydantic")

from pydantic import ConfigDict  # noqa: E402

from causal_oracle.environments import create  # noqa: E402
from causal_oracle.rewards import RewardConfig, Scorer  # noqa: E402
from causal_oracle.rewards.http import strict_json  # noqa: E402
from causal_oracle.rewards.nemo_gym import (  # noqa: E402
    FAILURE_CLASS_KEY,
    TERMINAL_KEY,
    CausalOracleVerifyRequest,
    application,
    server_config,
)
from causal_oracle.rewards.nemo_gym_models import (  # noqa: E402
    AggregateMetrics,
    BaseVerifyResponse,
    NeMoGymEasyInputMessage,
    NeMoGymResponse,
    NeMoGymResponseCreateParamsNonStreaming,
    NeMoGymResponseOutputMessage,
    NeMoGymResponseOutputText,
    NeMoGymResponseReasoningItem,
    NeMoGymSummary,
)

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "examples" / "nemo_gym" / "resources_servers" / "causal_oracle"
FLIP = {"Yes": "No", "No": "Yes"}


class SimpleAgentVerifyResponse(BaseVerifyResponse):
    """NeMo-Gym 0.4.0 ``responses_api_agents/simple_agent/app.py``: how the agent reads
    a verify response before handing it to rollout collection."""

    model_config = ConfigDict(extra="allow")


def request(question: str, reply: str, thinking: str = "Yes? No?", **row: Any
            ) -> dict[str, Any]:
    """A verify request built from NeMo-Gym's models, as JSON."""
    body = CausalOracleVerifyRequest(
        responses_create_params=NeMoGymResponseCreateParamsNonStreaming(
            input=[NeMoGymEasyInputMessage(role="user", content=question)],
            temperature=1.0),
        response=NeMoGymResponse(
            id="resp_1", created_at=0.0, model="policy", object="response",
            parallel_tool_calls=True, tool_choice="auto", tools=[],
            output=[NeMoGymResponseReasoningItem(id="rs_1", summary=[NeMoGymSummary(
                        text=thinking, type="summary_text")]),
                    NeMoGymResponseOutputMessage(id="msg_1", content=[
                        NeMoGymResponseOutputText(annotations=[], text=reply)])]),
        **row)
    return body.model_dump(mode="json")


def post(route: str, bodies: list[Any], raw: bool = False,
         config: RewardConfig | None = None) -> list[httpx.Response]:
    """POST each body to the app (in process), scoring in this process."""
    async def run() -> list[httpx.Response]:
        with Scorer(config or RewardConfig(workers=0)) as scorer:
            transport = httpx.ASGITransport(app=application(scorer))
            async with httpx.AsyncClient(transport=transport, base_url="http://gym") as c:
                return [await (c.post(route, content=b) if raw else c.post(route, json=b))
                        for b in bodies]
    return asyncio.run(run())


def verified(responses: list[httpx.Response]) -> list[dict[str, Any]]:
    out = []
    for r in responses:
        assert r.status_code == 200, r.text
        body = strict_json(r.content)  # no NaN, no Infinity
        SimpleAgentVerifyResponse.model_validate(body)  # NeMo-Gym's schema: reward a float
        out.append(body)
    return out


@pytest.fixture(scope="module")
def items() -> list[dict[str, Any]]:
    data = create("causal_corr2cause", seed=5, size=3, min_nodes=3, max_nodes=4)
    return [{"question": e["question"], "answer": e["answer"]} for e in data]


def test_gold_flipped_and_unreadable(items: list[dict[str, Any]]) -> None:
    bodies = []
    for it in items:
        bodies += [request(it["question"], f"<answer>{it['answer']}</answer>",
                           thinking=f"Surely {FLIP[it['answer']]}."),
                   request(it["question"], f"The answer is {FLIP[it['answer']]}."),
                   request(it["question"], "I cannot tell.")]
    out = verified(post("/verify", bodies))
    for i in range(0, len(out), 3):
        gold, flipped, unreadable = out[i:i + 3]
        assert gold["reward"] == 1.0 and gold["valid"] and not gold["verifier_failed"]
        assert gold["reward_components"] == {"correct": 1.0, "readable": 1.0, "format": 1.0}
        assert flipped["reward"] == 0.0 and flipped["reward_components"] == {
            "correct": 0.0, "readable": 1.0, "format": 0.0}
        assert unreadable["reward"] == 0.0 and unreadable["reward_components"] == {
            "correct": 0.0, "readable": 0.0, "format": 0.0}
        assert FAILURE_CLASS_KEY not in gold and FAILURE_CLASS_KEY not in unreadable
    # the request comes back with its reward, as NeMo-Gym's responses carry it
    assert out[0]["responses_create_params"] == bodies[0]["responses_create_params"]
    assert out[0]["response"]["output"][1]["content"][0]["text"].startswith("<answer>")


def test_an_unscorable_sample_is_routed_to_the_failures(items: list[dict[str, Any]]) -> None:
    q = items[0]["question"]
    out = verified(post("/verify", [request("What is 2 + 2?", "4"),
                                    request(q, "No " * 100_000)]))  # over 256 KiB
    for body, status, terminal in zip(out, ("no_question", "budget"), (True, None),
                                      strict=True):
        assert not body["valid"] and body["verifier_failed"]
        assert body["reward_components"] is None and body["details"]["status"] == status
        assert body[FAILURE_CLASS_KEY] == "verifier_failed"
        assert body.get(TERMINAL_KEY) is terminal
        assert body["details"]["reason"]


def test_row_fields_take_precedence_and_come_back(items: list[dict[str, Any]]) -> None:
    q = items[1]["question"]
    premise, hypothesis = q.split("\nHypothesis:")[0].removeprefix("Premise:").strip(), \
        q.split("\nHypothesis:")[1].split("\n")[0].strip()
    [body] = verified(post("/verify", [request("Answer the question.", items[1]["answer"],
                                               premise=premise, hypothesis=hypothesis,
                                               source_index=1)]))
    assert body["reward"] == 1.0 and body["source_index"] == 1 and body["premise"] == premise


def test_the_example_rows_score_their_expected_answers() -> None:
    rows = [json.loads(line) for line in (SERVER / "data" / "example.jsonl").open()]
    bodies = [request(r["responses_create_params"]["input"][0]["content"],
                      r["expected_answer"]) for r in rows]
    out = verified(post("/verify", bodies))
    assert [b["reward"] for b in out] == [1.0] * len(rows)
    assert {r["source_dataset"] for r in rows} == {"causal_corr2cause", "causal_cibench",
                                                  "causal_graph", "causal_ladder"}


@pytest.mark.parametrize(("body", "status", "says"), [
    (b'{"responses_create_params": {"input": "q", "temperature": NaN}}', 400, "not JSON"),
    (b"[1, 2]", 422, "schema"),
    (b'{"responses_create_params": {"input": "q", "nonsense": 1}}', 422, "schema"),
    (b"{" * 100_000, 400, "not JSON"),
])
def test_bad_bodies_are_named_never_500(body: bytes, status: int, says: str) -> None:
    [r] = post("/verify", [body], raw=True)
    assert r.status_code == status and says in strict_json(r.content)["error"]


def test_aggregate_metrics_and_the_other_routes(items: list[dict[str, Any]]) -> None:
    q, a = items[0]["question"], items[0]["answer"]
    out = verified(post("/verify", [request(q, a), request(q, FLIP[a]),
                                    request("What is 2 + 2?", "4")]))
    rows = [{**b, "_ng_task_index": i % 2} for i, b in enumerate(out)]
    [agg] = post("/aggregate_metrics", [{"verify_responses": rows}])
    metrics = AggregateMetrics.model_validate(strict_json(agg.content))
    assert metrics.agent_metrics["num_rollouts"] == 3
    assert metrics.agent_metrics["num_scored"] == 2
    assert metrics.key_metrics == {"mean/reward": 0.5, "mean/correct": 0.5}
    assert [g["_ng_task_index"] for g in metrics.group_level_metrics] == [0, 1]
    [seed] = post("/seed_session", [{}])
    assert seed.status_code == 200 and seed.json() == {}


def test_the_layout_and_config_nemo_gym_starts() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((SERVER / "configs" / "causal_oracle.yaml").read_text())
    entry = config["causal_oracle"]["resources_servers"]["causal_oracle"]
    assert entry["entrypoint"] == "app.py" and (SERVER / "app.py").is_file()
    agent = config["causal_oracle_simple_agent"]["responses_api_agents"]["simple_agent"]
    assert agent["resources_server"] == {"type": "resources_servers", "name": "causal_oracle"}
    assert (ROOT / "examples" / "nemo_gym" / agent["datasets"][0]["jsonl_fpath"]).is_file()
    # what NeMo-Gym's launcher hands the child process: the merged config and its key
    merged = {**config}
    merged["causal_oracle"]["resources_servers"]["causal_oracle"].update(
        host="127.0.0.1", port=41234)
    env = {"NEMO_GYM_CONFIG_DICT": json.dumps(merged), "NEMO_GYM_CONFIG_PATH": "causal_oracle"}
    got = server_config(env)
    assert (got["host"], got["port"], got["cap_s"]) == ("127.0.0.1", 41234, 5.0)
    assert server_config({}) == {}


def test_stored_rollouts_rescore_offline(items: list[dict[str, Any]], tmp_path: Path) -> None:
    """A NeMo-Gym rollouts file (the verify responses, one a line) re-graded offline by
    ``causal-oracle rescore`` with ``--prompt-column responses_create_params``, and with
    a format weight compared."""
    from causal_oracle.clients.rescore import Setting, rescore

    q, a = items[0]["question"], items[0]["answer"]
    out = verified(post("/verify", [request(q, f"<answer>{a}</answer>"),
                                    request(q, FLIP[a]), request("What is 2 + 2?", "4")]))
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(b) + "\n" for b in out))
    result = rescore(path, Setting(), Setting(format_weight=0.5),
                     prompt_column="responses_create_params")
    assert [s.reward.reward for s in result.samples] == [1.0, 0.0, None]
    assert [s.other.reward for s in result.samples if s.other] == [1.5, 0.0, None]
    assert [s.row for s in result.changed] == [1]


def test_app_py_starts_as_nemo_gyms_launcher_starts_it() -> None:
    """``python app.py`` with the environment NeMo-Gym's launcher sets: the server comes
    up on the configured port, answers liveness and verifies over real HTTP."""
    import os
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    entry = {"entrypoint": "app.py", "host": "127.0.0.1", "port": port, "workers": 0}
    env = {**os.environ, "NEMO_GYM_CONFIG_PATH": "causal_oracle",
           "NEMO_GYM_CONFIG_DICT": json.dumps(
               {"causal_oracle": {"resources_servers": {"causal_oracle": entry}}})}
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=SERVER, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                assert httpx.get(url + "/", timeout=2).json() == {"status": "ok"}
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.2)
        r = httpx.post(url + "/verify", json=request("What is 2 + 2?", "4"), timeout=30)
        body = strict_json(r.content)
        assert r.status_code == 200 and body[FAILURE_CLASS_KEY] == "verifier_failed"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


C2 = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
      "statistical relations among these 2 variables are as follows: A correlates with B."
      "\nHypothesis: A directly causes B.")  # gold: No


def test_a_reasoning_weight_adds_its_reward_components() -> None:
    replies = ["A and B are adjacent. The answer is No.",
               "A is independent of B. The answer is No.", "No."]
    config = RewardConfig(workers=0, reasoning_weight=0.5)
    got = verified(post("/verify", [request(C2, r) for r in replies], config=config))
    assert [g["reward"] for g in got] == [1.5, 1.0, 1.0]
    parts = [{k: g["reward_components"][k] for k in ("reasoning", "lucky", "unsupported")}
             for g in got]
    assert parts == [{"reasoning": 1.0, "lucky": 0.0, "unsupported": 0.0},
                     {"reasoning": 0.0, "lucky": 1.0, "unsupported": 0.0},
                     {"reasoning": 0.0, "lucky": 0.0, "unsupported": 1.0}]
    assert got[1]["details"]["reasoning"]["false_claims"] == 1
    plain = verified(post("/verify", [request(C2, replies[0])]))[0]
    assert set(plain["reward_components"]) == {"correct", "readable", "format"}
    assert "reasoning" not in plain["details"] and plain["reward"] == 1.0
