"""Reward load as a GRPO trainer applies it: steps of 64 prompts × 8 completions.

Each step draws 64 fresh prompts from every procedural family (16 each of
``causal_corr2cause``, ``causal_cibench``, ``causal_graph`` — CLEAR — and
``causal_ladder`` — CLadder —, a new seed every step, so every step solves new questions)
and 8 completions per prompt, most of them adversarial: the right answer, a wrong one, a
long reasoning then the answer, a completion of exactly 256 KiB (the reply limit: scored)
or one byte over it (refused: no reward), an empty string, junk unicode (emoji,
right-to-left override, combining marks), a fake premise (the reply restates another
question and answers that), and a degenerate "Yes No" repetition.  A step is scored

* in-process: ``Scorer.score_many`` with worker processes (what ``trl_reward`` calls), and
* over HTTP: ``POST /get_reward`` (OpenRLHF's shape) to ``causal-oracle serve
  --http-port 0 --reward-cap CAP`` on 127.0.0.1;

and reported as p50 / p99 seconds per step against the target (p99 ≤ 1 s), the largest
per-sample time against the per-sample cap, the samples past the cap (status
``timeout``), the rewards by status, and the ratio to a reference measured in the same
run: JSON-encoding and decoding the step's OpenRLHF payload with orjson (the least any
HTTP reward call costs).  The HTTP client encodes its body with orjson too, inside the
timed step (``json.dumps`` of a step's 20 MiB of non-ASCII text alone takes longer than
scoring it: a trainer that posts 256 KiB completions should not use it).

    .venv/bin/python bench/rl_load.py [--steps 10] [--workers 2] [--cap 5] [--old-python PATH]
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from typing import Any

from causal_oracle.environments import create
from causal_oracle.rewards import RewardConfig, Sample, Scorer

PROMPTS, GROUP = 64, 8
TARGET_P99_S = 1.0  # seconds per 512-completion step, on 2 cores
FAMILIES = ("causal_corr2cause", "causal_cibench", "causal_graph", "causal_ladder")
LIMIT = RewardConfig().text_bytes  # 256 KiB: the reply limit
FAKE = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
        "statistical relations among these 2 variables are as follows: A correlates with B.\n"
        "Hypothesis: B directly causes A.\nThat premise settles it: ")
YES_NO = {"yes": "no", "no": "yes", "Yes": "No", "No": "Yes", "Yes.": "No.", "No.": "Yes."}


def completions(answer: str, other: str, index: int) -> list[str]:
    """The 8 completions of one prompt; ``other`` is another item's answer (a wrong answer
    of the right kind where the answer is not yes/no)."""
    wrong = YES_NO.get(answer, other if other != answer else "none")
    size = LIMIT + (index % 2)  # exactly the limit (scored), or one byte over (refused)
    tail = f"\nAnswer: {answer}"
    return [
        answer,
        wrong,
        "Let me reason about the graph step by step. " * 40 + f"\n**Answer:** {answer}",
        "x" * (size - len(tail)) + tail,
        "",
        "🤔\u202e\u0301" * 2_000 + "ꙮ" * 500,
        FAKE + (wrong if index % 2 else answer),
        "Yes No " * 5_000,
    ]


def step_data(step: int) -> tuple[list[str], list[str]]:
    entries = [e for name in FAMILIES
               for e in create(name, size=PROMPTS // len(FAMILIES), seed=10_000 * (step + 1))]
    prompts, replies = [], []
    for i, entry in enumerate(entries):
        other = entries[(i + 1) % len(entries)]["answer"]
        for reply in completions(entry["answer"], other, i):
            prompts.append(entry["question"])
            replies.append(reply)
    return prompts, replies


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def start_http(workers: int, cap: float, python: str | None = None
               ) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([python or sys.executable, "-m", "causal_oracle.clients.cli", "serve",
                             "--http-port", "0", "--workers", str(workers),
                             "--reward-cap", str(cap)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if found:
            return proc, int(found.group(1))
    raise SystemExit("the HTTP endpoint did not start")


def http_steps(python: str, args: argparse.Namespace,
               steps: list[tuple[list[str], list[str]]]) -> tuple[Any, ...]:
    """Each step posted to ``/get_reward`` of a server run by ``python`` (the body
    encoded with orjson inside the timed step); step 0 warms the workers up."""
    import httpx
    import orjson

    proc, port = start_http(args.workers, args.cap, python)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as client:
            times: list[float] = []
            statuses: Counter[str] = Counter()
            for n, (prompts, replies) in enumerate(steps):
                payload = {"query": [p + r for p, r in zip(prompts, replies, strict=True)],
                           "prompts": prompts, "labels": [""] * len(prompts)}
                start = time.perf_counter()
                response = client.post("/get_reward", content=orjson.dumps(payload),
                                       headers={"content-type": "application/json"})
                body = json.loads(response.text)
                if n:
                    times.append(time.perf_counter() - start)
                    statuses.update(str(v) if ok else "timeout" if "hard cap" in why
                                    else "no reward"
                                    for v, ok, why in zip(body["rewards"], body["valid"],
                                                          body["reasons"], strict=True))
    finally:
        proc.terminate()
        proc.wait(30)
    return times, statuses, None, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cap", type=float, default=5.0, help="hard cap per sample (s)")
    parser.add_argument("--old-python", metavar="PATH", help="also post every step to a "
                        "server run by this interpreter (e.g. an older checkout's venv)")
    args = parser.parse_args(argv)
    import orjson

    logging.getLogger("causal_oracle.rewards").setLevel(logging.ERROR)  # 1 line per refusal

    steps = [step_data(s) for s in range(args.steps + 1)]  # step 0 warms the workers up
    results: dict[str, Any] = {}

    reference = []
    for prompts, replies in steps[1:]:
        payload = {"query": [p + r for p, r in zip(prompts, replies, strict=True)],
                   "prompts": prompts, "labels": [""] * len(prompts)}
        start = time.perf_counter()
        orjson.loads(orjson.dumps(payload))
        reference.append(time.perf_counter() - start)

    with Scorer(RewardConfig.within(args.cap, workers=args.workers)) as scorer:
        times, statuses, slowest = [], Counter(), 0.0
        for n, (prompts, replies) in enumerate(steps):
            start = time.perf_counter()
            out = scorer.score_many([Sample(p, r) for p, r in zip(prompts, replies,
                                                                  strict=True)])
            if n:
                times.append(time.perf_counter() - start)
                statuses.update(r.status for r in out)
                slowest = max(slowest, max(r.seconds for r in out))
        results["in-process"] = (times, statuses, slowest, scorer.replaced)

    servers = [("HTTP /get_reward", sys.executable)]
    if args.old_python:
        servers.append((f"HTTP /get_reward ({args.old_python})", args.old_python))
    for name, python in servers:
        results[name] = http_steps(python, args, steps)

    ref = statistics.median(reference)
    print(f"{args.steps} steps of {PROMPTS} prompts ({', '.join(FAMILIES)}) x {GROUP} "
          f"completions, {args.workers} worker(s), cap {args.cap:g} s per sample; reference "
          f"(orjson round trip of a step's payload) p50 {ref * 1000:.1f} ms; target p99 <= "
          f"{TARGET_P99_S:g} s per step")
    print("| path | p50 s/step | p99 s/step | p50 / reference | p99 / reference | samples/s "
          "| largest sample s | past the cap | rewards |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    failed = False
    for name, (times, statuses, slowest, replaced) in results.items():
        p50, p99 = percentile(times, 0.5), percentile(times, 0.99)
        past = statuses.get("timeout", 0)
        print(f"| {name} | {p50:.3f} | {p99:.3f} | {p50 / ref:.0f}x | {p99 / ref:.0f}x | "
              f"{PROMPTS * GROUP / p50:,.0f} | "
              f"{'—' if slowest is None else f'{slowest:.3f}'} | "
              f"{past}{'' if replaced is None else f' ({replaced} replaced)'} | "
              f"{', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))} |")
        if p99 > TARGET_P99_S:
            print(f"MISS: {name} p99 {p99:.3f} s per step is over the {TARGET_P99_S:g} s "
                  "target", file=sys.stderr)
        if past or (slowest is not None and slowest > args.cap):
            print(f"FAIL: {name}: a sample ran past the cap", file=sys.stderr)
            failed = True
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
