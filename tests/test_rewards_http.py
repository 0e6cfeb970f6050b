"""The HTTP reward endpoint, started as users start it and called with a real HTTP client.

``causal-oracle serve --http-port 0`` (alone, and beside the gRPC port) on 127.0.0.1;
NeMo-Gym's ``/verify`` and OpenRLHF's ``/get_reward`` shapes, the batch endpoint,
health, and the refusals (not JSON, wrong shape, too large).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from conftest import load_rows  # noqa: E402

from causal_oracle.entry import default, join_input  # noqa: E402

ROW = load_rows("n4")[40]
ITEM = join_input(ROW["premise"], ROW["hypothesis"])
RIGHT = "Yes." if default().verify(ROW["premise"], ROW["hypothesis"]).label else "No."
WRONG = "No." if RIGHT == "Yes." else "Yes."


def _start(*options: str) -> tuple[subprocess.Popen[str], dict[str, int]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "causal_oracle.clients.cli", "serve", "--workers", "1",
         *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    ports: dict[str, int] = {}
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while "http" not in ports and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if found := re.search(r"over HTTP on http://127\.0\.0\.1:(\d+)", line):
            ports["http"] = int(found.group(1))
        elif found := re.search(r"serving \S+ on 127\.0\.0\.1:(\d+)", line):
            ports["grpc"] = int(found.group(1))
    if "http" not in ports:
        proc.kill()
        pytest.fail(f"the server did not start: {proc.stdout.read()}")
    return proc, ports


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(20) == 0
    finally:
        proc.kill()


@pytest.fixture(scope="module")
def http_only() -> Iterator[str]:
    proc, ports = _start("--http-port", "0")
    assert "grpc" not in ports
    yield f"http://127.0.0.1:{ports['http']}"
    _stop(proc)


def test_health(http_only: str) -> None:
    body = httpx.get(f"{http_only}/health").json()
    assert body["status"] == "ok" and "corr2cause" in body["families"]


def test_verify_in_the_nemo_gym_shape(http_only: str) -> None:
    def request(text: str) -> dict:
        return {"responses_create_params": {"input": [
                    {"role": "system", "content": "Answer carefully."},
                    {"role": "user", "content": ITEM}]},
                "response": {"id": "r1", "object": "response", "output": [
                    {"type": "reasoning", "summary": []},
                    {"type": "message", "role": "assistant", "status": "completed",
                     "content": [{"type": "output_text", "text": text, "annotations": []}]}]},
                "expected_answer": "ignored"}

    right = httpx.post(f"{http_only}/verify", json=request(RIGHT)).json()
    assert right["reward"] == 1.0 and right["details"]["status"] == "correct"
    assert right["expected_answer"] == "ignored"  # the request comes back with the reward
    assert httpx.post(f"{http_only}/verify", json=request(WRONG)).json()["reward"] == 0.0
    unreadable = httpx.post(f"{http_only}/verify", json=request("¯\\_(ツ)_/¯")).json()
    assert unreadable["reward"] == 0.0 and unreadable["details"]["status"] == "unreadable"
    none = request(RIGHT)
    none["responses_create_params"]["input"][1]["content"] = "What is 2 + 2?"
    failed = httpx.post(f"{http_only}/verify", json=none).json()
    assert failed["reward"] is None and failed["details"]["reason"]


def _refuse(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def test_get_reward_in_the_openrlhf_shape(http_only: str) -> None:
    prompt = f"{ITEM}\nIs the hypothesis necessarily true given the premise? Answer Yes or No.\n"
    replies = [RIGHT, WRONG, "", "x" * 300_000]
    response = httpx.post(f"{http_only}/get_reward", timeout=30, json={
        "query": [prompt + r for r in replies], "prompts": [prompt] * 4, "labels": [""] * 4})
    out = json.loads(response.text, parse_constant=_refuse)  # strict JSON: null, not NaN
    assert out["rewards"] == [1.0, 0.0, 0.0, None]
    assert out["valid"] == [True, True, True, False] and "bytes" in out["reasons"][3]
    assert out["extra_logs"]["verifier_failed"] == [0.0, 0.0, 0.0, 1.0]


def test_batch_and_refusals(http_only: str) -> None:
    items = [{"prompt": [{"role": "user", "content": "Answer the question."}],
              "completion": RIGHT, "premise": ROW["premise"], "hypothesis": ROW["hypothesis"]},
             {"prompt": "", "completion": WRONG, "ground_truth": ITEM}]
    results = httpx.post(f"{http_only}/batch", json={"items": items}).json()["results"]
    assert [r["reward"] for r in results] == [1.0, 0.0]
    assert httpx.post(f"{http_only}/batch", content=b"{not json").status_code == 400
    assert httpx.post(f"{http_only}/batch", json={"items": 3}).status_code == 400
    assert httpx.post(f"{http_only}/get_reward",
                      json={"query": ["a"], "prompts": []}).status_code == 400
    too_many = {"query": [""] * 70_000, "prompts": [""] * 70_000}
    assert httpx.post(f"{http_only}/get_reward", json=too_many).status_code == 413


C2 = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
      "statistical relations among these 2 variables are as follows: A correlates with B."
      "\nHypothesis: A directly causes B.")  # gold: No
REASONED = ["A and B are adjacent. The answer is No.",
            "A is independent of B. The answer is No.", "No."]


def test_the_reasoning_components_when_asked(http_only: str) -> None:
    items = [{"prompt": C2, "completion": r} for r in REASONED]
    plain = httpx.post(f"{http_only}/batch", json={"items": items}).json()["results"]
    assert [r["reward"] for r in plain] == [1.0, 1.0, 1.0]
    assert not any("reasoning" in r for r in plain)  # not asked: unchanged
    asked = httpx.post(f"{http_only}/batch", json={"items": items, "reasoning": True},
                       timeout=30).json()["results"]
    assert [r["reward"] for r in asked] == [1.0, 1.0, 1.0]  # the weight stays 0
    assert [r["reasoning"] for r in asked] == [
        {"reasoning": 1.0, "lucky": False, "unsupported": False, "claims": 1,
         "false_claims": 0},
        {"reasoning": 0.0, "lucky": True, "unsupported": False, "claims": 1,
         "false_claims": 1},
        {"reasoning": None, "lucky": False, "unsupported": True, "claims": 0,
         "false_claims": 0}]
    one = [dict(items[0], reasoning=True), items[1]]
    got = httpx.post(f"{http_only}/batch", json={"items": one}).json()["results"]
    assert "reasoning" in got[0] and "reasoning" not in got[1]
    prompt = C2 + "\n"
    logs = httpx.post(f"{http_only}/get_reward", json={
        "query": [prompt + r for r in REASONED], "prompts": [prompt] * 3,
        "reasoning": True}).json()["extra_logs"]
    assert logs["reasoning"] == [1.0, 0.0, None] and logs["lucky"] == [0.0, 1.0, 0.0]
    assert logs["unsupported"] == [0.0, 0.0, 1.0]
    bad = httpx.post(f"{http_only}/batch", json={"items": items, "reasoning": "yes"})
    assert bad.status_code == 400 and "reasoning must be true or false" in bad.text


def test_http_beside_grpc() -> None:
    proc, ports = _start("--http-port", "0", "--port", "0")
    try:
        assert ports.get("grpc")
        body = httpx.post(f"http://127.0.0.1:{ports['http']}/batch", json={
            "items": [{"prompt": ITEM, "completion": RIGHT}]}).json()
        assert body["results"][0]["reward"] == 1.0
        from causal_oracle.clients.remote import OracleClient

        with OracleClient(f"127.0.0.1:{ports['grpc']}") as client:
            assert client.verify(ROW["premise"], ROW["hypothesis"]).label in (0, 1)
    finally:
        _stop(proc)


def test_doctest_of_the_endpoint_module() -> None:
    import doctest

    from causal_oracle.rewards import http

    result = doctest.testmod(http)
    assert result.failed == 0 and result.attempted > 0


def test_the_body_reader_agrees_with_json_on_every_edge() -> None:
    """``strict_json`` reads with orjson where orjson reads exactly what ``json`` reads,
    and with ``json`` elsewhere: the same values, the same refusals."""
    from causal_oracle.rewards.http import strict_json

    same = [b'{"a": [1, -2.5e-3, "x\\u00e9", null, true]}', b'[18446744073709551615]',
            b'[123456789012345678901234567890]', b'[-9223372036854775809]', b'[1e300]',
            '["🤔\u202e", "ꙮ"]'.encode(), b'["\\ud800 lone", "\\udfff"]',
            b'\xef\xbb\xbf{"bom": 1}', '{"utf16": 1}'.encode("utf-16"), b'[' * 2000 + b']' * 2000]
    for body in same:
        try:
            expected = json.loads(body)
        except RecursionError:
            with pytest.raises(RecursionError):
                strict_json(body)
            continue
        got = strict_json(bytearray(body))
        assert got == expected and json.dumps(got) == json.dumps(expected)
    assert strict_json(b"[123456789012345678901234567890]") == [123456789012345678901234567890]
    for refused in (b"[NaN]", b"[Infinity]", b"[-Infinity]", b"[1e400]", b"{", b"\xff"):
        with pytest.raises(ValueError):
            strict_json(refused)


def test_a_batch_is_queued_at_once_and_answered_in_order() -> None:
    import asyncio

    from causal_oracle.rewards import RewardConfig, Sample, Scorer

    samples = [Sample(ITEM, RIGHT), Sample(ITEM, WRONG), Sample("Toy?", "yes"),
               Sample(ITEM, "x" * (RewardConfig().text_bytes + 1))]
    with Scorer(RewardConfig(workers=1)) as scorer:
        futures = scorer.submit_many(samples)
        assert futures[3].done()  # over the limit: answered at once, never sent
        in_order = [f.result(60).status for f in futures]
        again = asyncio.run(scorer.score_many_async(samples))
        assert [r.status for r in again] == in_order
        assert [r.reward for r in again[:2]] == [1.0, 0.0]
        assert asyncio.run(scorer.score_many_async([])) == []
