"""Server memory under a long fuzz run: bounded by the server's caches, not by traffic.

    .venv/bin/python bench/server_memory.py [--calls 20000] [--cache-items 4096] [--cache-mb 128]

Starts ``causal-oracle serve`` (127.0.0.1, port 0, ``--workers``) and sends it
``--calls`` requests, each a fresh mutation of a real item of some benchmark family
(Corr2Cause ``Verify``; CI-Bench, IE, CLEAR and Corr2Cause ``Answer`` with and without a
reply), so that almost every request misses every cache and the caches fill up to their
bounds.  The resident set of the server and its workers (``grpc_load.tree_rss_mb``) is
read after a warm-up of the same length as one tenth of the run (the *reference*,
measured in this run) and then ten times during the run; the answer codes are counted
(``INTERNAL`` / ``UNKNOWN`` must be 0).  The last line is one JSON object:
``rss_mb`` (the samples), ``rss_mb_reference``, ``growth_last_half`` (the RSS at the
end over the RSS half-way: near 1 when memory is bounded), ``codes``; and the same
samples split into the server process (``server_rss_mb``: its response cache is
bounded by ``--cache-items`` entries and ``--cache-mb`` bytes) and its workers
(``workers_rss_mb``: each worker's caches hold at most ``min(--cache-items, 8192)``
entries each; most fuzzed requests fail to parse and fill nothing there, so with the
default 4,096 they are still filling after 100,000 calls: run ``--cache-items 512``
to see the level once every cache is full).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from grpc_load import start_server, tree_rss_mb  # noqa: E402

from causal_oracle.clients.remote import OracleClient  # noqa: E402

SPLICES = ("\u3000", "\t", "\n", "<answer>", " -> ", ".", ",", " and ", " given ", "A", "Z9")


def _seeds() -> list[tuple[str, str]]:
    data = ROOT / "tests" / "data"
    out = []
    for line in (data / "n4.jsonl").read_text(encoding="utf-8").splitlines()[:200]:
        row = json.loads(line)
        out.append(("verify", f"Premise: {row['premise']}\nHypothesis: {row['hypothesis']}"))
    for line in (data / "cibench" / "items_sample.jsonl").read_text().splitlines()[:100]:
        out.append(("answer", json.loads(line)["prompt"]))
    for line in (ROOT / "examples" / "ie_sample.jsonl").read_text().splitlines()[:50]:
        out.append(("answer", json.loads(line)["prompt"]))
    for line in (data / "clear" / "items_subset.jsonl").read_text().splitlines()[:100]:
        row = json.loads(line)
        out.append(("answer", f"{row['description']}\n{row['question']}"))
    return out


def _mutate(text: str, rng: random.Random) -> str:
    n = len(text)
    i, j = sorted((rng.randrange(n + 1), rng.randrange(n + 1)))
    kind = rng.randrange(3)
    if kind == 0:
        return text[:i] + text[j:]
    if kind == 1:
        return text[:j] + text[i:j] + text[j:]
    return text[:i] + rng.choice(SPLICES) + text[i:]


def _call(client: OracleClient, kind: str, text: str, rng: random.Random) -> str:
    try:
        if kind == "verify":
            client.verify(input=text)
        elif rng.random() < 0.5:
            client.answer(text, model_answer=rng.choice(("Yes", "None", "A -> B")))
        else:
            client.answer(text)
    except Exception as error:
        code = getattr(error, "code", None)
        code = code() if callable(code) else code
        return str(getattr(code, "name", type(error).__name__))
    return "OK"


def own_rss_mb(pid: int) -> float:
    """The resident set of ``pid`` alone, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache-items", type=int, default=4096)
    ap.add_argument("--cache-mb", type=int, default=128)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    seeds = _seeds()
    process, target = start_server(args.workers, ["--cache-items", str(args.cache_items),
                                                  "--cache-mb", str(args.cache_mb)])
    codes: Counter[str] = Counter()
    samples: list[float] = []
    server: list[float] = []
    try:
        with OracleClient(target, timeout=60, retries=0) as client:
            for _ in range(args.calls // 10):  # warm-up: the reference
                kind, text = rng.choice(seeds)
                _call(client, kind, _mutate(text, rng), rng)
            reference = tree_rss_mb(process.pid)
            print(f"warm-up: {args.calls // 10:,} calls; RSS {reference} MiB", flush=True)
            for k in range(args.calls):
                kind, text = rng.choice(seeds)
                codes[_call(client, kind, _mutate(text, rng), rng)] += 1
                if (k + 1) % max(1, args.calls // 10) == 0:
                    samples.append(tree_rss_mb(process.pid))
                    server.append(own_rss_mb(process.pid))
                    print(f"{k + 1:>8,} calls  RSS {samples[-1]} MiB (server process "
                          f"{server[-1]} MiB)", flush=True)
    finally:
        process.send_signal(2)
        process.wait(60)
    # a RemoteError without a code is an item the server failed (INTERNAL in the batch)
    bad = sum(codes.get(name, 0) for name in (grpc.StatusCode.INTERNAL.name, "UNKNOWN",
                                              "RemoteError"))
    half = samples[len(samples) // 2 - 1] if len(samples) > 1 else samples[-1]
    print(json.dumps({"calls": args.calls, "cache_items": args.cache_items,
                      "cache_mb": args.cache_mb, "rss_mb_reference": reference, "rss_mb": samples,
                      "server_rss_mb": server,
                      "workers_rss_mb": [round(t - s, 1) for t, s in zip(samples, server,
                                                                         strict=True)],
                      "growth_last_half": round(samples[-1] / half, 3),
                      "growth_over_reference": round(samples[-1] / reference, 3),
                      "codes": dict(codes), "internal_or_unknown": bad}))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
