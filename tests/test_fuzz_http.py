"""HTTP endpoint fuzz: random requests — every route and method, bodies of the right
shape with mutated values (every type, NaN, Infinity, huge numbers, lone surrogate
escapes, nested messages), byte-level damage (cut, spliced, not UTF-8), wrong content
types — never get a 500 or a body that is not strict JSON: 200 with a result per
sample (a reward that is finite or ``null`` with ``valid`` false), or a 4xx with
``{"error": …}``.  In process (the ASGI app, Starlette's test client) and, in the slow
run, a few hundred requests over a real socket to ``causal-oracle serve``.  The default
run is a few hundred requests; the ``slow`` run 20,000 (``FUZZ_COUNT``; ``FUZZ_SEED``)."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fuzz_values import ITEMS, REPLIES, messages, scalar, seed, slow_count, value

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from causal_oracle.rewards import RewardConfig, Scorer  # noqa: E402
from causal_oracle.rewards.http import application  # noqa: E402

ROUTES = ("/batch", "/verify", "/get_reward", "/health", "/nope", "/batch/", "/")
OK = {200, 400, 404, 405, 413}


def _strict(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} on the wire")
    return json.loads(text, parse_constant=refuse)


def _text_or_value(rng: random.Random, pool: tuple[str, ...]) -> Any:
    return messages(rng, rng.choice(pool)) if rng.random() < 0.6 else value(rng)


def _body(rng: random.Random, path: str) -> Any:
    n = rng.randrange(0, 4)
    if path.startswith("/batch"):
        items = [{k: (_text_or_value(rng, ITEMS) if k == "prompt" else
                      _text_or_value(rng, REPLIES) if k == "completion" else scalar(rng))
                  for k in ("prompt", "completion", "premise", "hypothesis", "task",
                            "ground_truth") if rng.random() < (0.9 if k in ("prompt",
                                                                             "completion")
                                                                else 0.2)}
                 if rng.random() < 0.9 else value(rng) for _ in range(n)]
        return {"items": items} if rng.random() < 0.9 else value(rng)
    if path == "/verify":
        body: Any = {"responses_create_params": {"input": _text_or_value(rng, ITEMS)},
                     "response": _text_or_value(rng, REPLIES)}
        for k in ("task", "premise", "meta", "expected_answer"):
            if rng.random() < 0.2:
                body[k] = value(rng)
        return body if rng.random() < 0.9 else value(rng)
    prompts = [rng.choice(ITEMS) if rng.random() < 0.7 else scalar(rng) for _ in range(n)]
    queries = [p + rng.choice(REPLIES) if isinstance(p, str) else scalar(rng) for p in prompts]
    body = {"query": queries, "prompts": prompts if rng.random() < 0.9 else prompts[:-1]}
    if rng.random() < 0.5:
        body["labels"] = [scalar(rng) for _ in range(n)]
    return body if rng.random() < 0.9 else value(rng)


def _encode(rng: random.Random, body: Any) -> bytes:
    raw = json.dumps(body, allow_nan=True, ensure_ascii=rng.random() < 0.7).encode(
        "utf-8", "surrogatepass")
    damage = rng.randrange(12)
    if damage == 0 and raw:
        return raw[:rng.randrange(len(raw))]
    if damage == 1:
        at = rng.randrange(len(raw) + 1)
        return raw[:at] + rng.choice((b"\xff", b"NaN", b"\\ud800", b"1e999", b",", b"]",
                                      b'"', b"\x00")) + raw[at:]
    if damage == 2:
        return b"[" * rng.randrange(1, 5000) + b"]" * rng.randrange(5000)
    return raw


def request(rng: random.Random) -> tuple[str, str, bytes]:
    path = rng.choice(ROUTES[:3]) if rng.random() < 0.85 else rng.choice(ROUTES)
    method = "GET" if path == "/health" and rng.random() < 0.8 else \
        "POST" if rng.random() < 0.9 else rng.choice(("GET", "PUT", "DELETE"))
    return method, path, _encode(rng, _body(rng, path))


def check(method: str, path: str, body: bytes, status: int, text: str) -> str:
    """The contract for one response; returns its outcome for the counts."""
    assert status in OK, (status, method, path, body[:200], text[:300])
    out = _strict(text)
    assert isinstance(out, dict)
    if status != 200:
        assert isinstance(out.get("error"), str) and out["error"], out
        return str(status)
    if path == "/batch":
        sent = json.loads(body)["items"]
        assert len(out["results"]) == len(sent)
        for r in out["results"]:
            assert r["valid"] == (r["reward"] is not None)
            assert r["reward"] is None or math.isfinite(r["reward"])
            assert r["valid"] or r["reason"]
    elif path == "/get_reward":
        assert len(out["rewards"]) == len(out["valid"]) == len(out["reasons"])
        for reward, valid in zip(out["rewards"], out["valid"], strict=True):
            assert valid == (reward is not None)
    elif path == "/verify":
        assert out["valid"] == (out["reward"] is not None)
    return "200"


def run(send: Callable[[str, str, bytes], tuple[int, str]], rng_seed: int, n: int
        ) -> Counter[str]:
    rng = random.Random(rng_seed)
    counts: Counter[str] = Counter()
    for _ in range(n):
        method, path, body = request(rng)
        status, text = send(method, path, body)
        counts[check(method, path, body, status, text)] += 1
    return counts


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with Scorer(RewardConfig(workers=0, budget_s=2.0, cap_s=2.0)) as scorer:
        yield TestClient(application(scorer), raise_server_exceptions=False,
                         follow_redirects=False)


def _in_process(client: TestClient) -> Callable[[str, str, bytes], tuple[int, str]]:
    def send(method: str, path: str, body: bytes) -> tuple[int, str]:
        r = client.request(method, path, content=body,
                           headers={"content-type": "application/json"})
        return r.status_code, r.text
    return send


def test_http_fuzz(client: TestClient) -> None:
    counts = run(_in_process(client), seed(30), 300)
    assert counts["200"] and counts["400"]


@pytest.mark.slow
def test_http_fuzz_slow(client: TestClient) -> None:
    counts = run(_in_process(client), seed(3030), slow_count())
    print("http (in process):", dict(counts))
    assert sum(counts.values()) == slow_count()


@pytest.mark.slow
def test_http_fuzz_real_socket() -> None:
    from test_contract_http import _serve, _stop

    proc, url = _serve("--http-port", "0")
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            def send(method: str, path: str, body: bytes) -> tuple[int, str]:
                r = http.request(method, path, content=body)
                return r.status_code, r.text
            counts = run(send, seed(303), 300)
    finally:
        _stop(proc)
    print("http (real socket):", dict(counts))
    assert sum(counts.values()) == 300
