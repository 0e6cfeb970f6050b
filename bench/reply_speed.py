"""Grading speed of long replies: every family, every adversarial shape, 256 KiB vs 1 KiB.

    python bench/reply_speed.py [--repeat N] [--kib 256]

For one question of every family (Corr2Cause, Corr2Cause++, IE, the CI-Bench tasks CP,
BA, FI and CI, CLEAR and CLadder) it grades, through ``Service.grade``, a reply of each
adversarial shape at ``--kib`` KiB and, as the reference measured in the same run, the
same shape at 1 KiB.  It prints the min and median seconds of each and their ratio; a
linear reader gives a ratio near the size ratio or below (the fixed cost of grading
dominates at 1 KiB), a quadratic one the square.  The goal: every 256 KiB reply in
under 50 ms.  The question is solved once before timing (the service caches it), so
the times are reply reading and judging.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from causal_oracle.entry.limits import Limits
from causal_oracle.entry.service import Service
from causal_oracle.parser.replies import MAX_SPAN

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def prompts() -> dict[str, str]:
    """One question per family (and per CI-Bench task)."""
    rows = [json.loads(line) for line in
            (DATA / "cibench" / "items_sample.jsonl").open(encoding="utf-8")]
    out = {
        "corr2cause": "Premise: Suppose there is a closed system of 3 variables, A, B and C. "
                      "All the statistical relations among these 3 variables are as follows: "
                      "A correlates with C. B correlates with C. However, A is independent "
                      "of B.\nHypothesis: A directly causes C.",
        "corr2causepp": json.loads((DATA / "corr2causepp" / "sample.json").read_text(
            encoding="utf-8"))[0]["query"],
        "ie": "I'm going to describe a causal graphical directed acyclic model. There are "
              "three variables: Z, L and A. Z causes L. L causes A.  These are all the causal "
              "relationships in the graph. \nIn this causal graphical model, does Z cause A?",
        "clear MC": "Given a DAG (directed acyclic graph) with nodes P, G, S, N and directed "
                    "edges P->N, G->S, P->S, P->G.\nWhich of the following is one of "
                    "descendants of node P?\nA. S\nB. T\nC. E\nD. W",
        "clear FA": "Given an ADMG (acyclic directed mixed graph) with nodes I, Y, H, U, "
                    "directed edges I->H, I->Y, I->U, H->U, Y->H and bi-directed edges H<->U, "
                    "I<->Y.\nIt can be uniquely partitioned into a set C(G) of subgraphs, each "
                    "a maximal C-component. Write down such partition of the given graph.",
        "cladder": "Imagine a self-contained, hypothetical world with only the following "
                   "conditions, and without any unmentioned factors or causal relationships: "
                   "Husband has a direct effect on wife and alarm clock. Wife has a direct "
                   "effect on alarm clock. For husbands that don't set the alarm, the "
                   "probability of ringing alarm is 26%. For husbands that set the alarm, the "
                   "probability of ringing alarm is 85%. Will alarm set by husband increase "
                   "the chance of ringing alarm?",
    }
    for task in ("CP", "BA", "FI", "CI"):
        out[f"cibench {task}"] = next(r["prompt"] for r in rows if r["task"] == task)
    return out


def _fill(unit: str, size: int, tail: str = "") -> str:
    return unit * max(1, (size - len(tail)) // len(unit)) + tail


BOUND = "Answer: + longest list"
#: adversarial reply shapes: size in characters → reply
SHAPES: dict[str, Callable[[int], str]] = {
    "unclosed <answer>": lambda n: _fill("<answer>", n, "") + "AA",
    "<answer> pairs": lambda n: _fill("<answer>A</answer> ", n),
    "</answer> first": lambda n: _fill("</answer><answer>", n),
    "separators": lambda n: _fill(", ; -> ", n),
    "whitespace": lambda n: "A" + " " * (n - 2) + "B",
    "newlines": lambda n: _fill("\n \n", n, "yes"),
    "node list": lambda n: _fill("A, B, C, ", n, "D"),
    "answer + spaces": lambda n: _fill("answer" + " " * 26, n),
    "answer: + spaces": lambda n: _fill("x answer" + " " * 20 + ":", n),
    "Answer: lines": lambda n: _fill("Answer: \n", n),
    "answer is": lambda n: _fill("the answer is ", n),
    "think blocks": lambda n: _fill("<think>", n, "yes"),
    "</think> closes": lambda n: _fill("</think>yes ", n),
    "think pairs": lambda n: _fill("<think></think>", n, "yes"),
    "boxed": lambda n: _fill("\\boxed{", n, "}"),
    "emphasis": lambda n: _fill("**`", n, "No"),
    "reasoning, then Answer:": lambda n: _fill("Let me think about it step by step. ", n,
                                               "\nAnswer: yes"),
    "yes words": lambda n: _fill("yes ", n),
    # the longest answer still parsed: reasoning, then a node list of MAX_SPAN characters
    # (at 1 KiB too: the list alone is MAX_SPAN long, so the ratio is about 1)
    BOUND: lambda n: _fill("Let me think. ", n - MAX_SPAN, "\nAnswer: ")
    + _fill("A, B, C, ", MAX_SPAN - 1, "D"),
}


def _times(service: Service, prompt: str, reply: str, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        service.grade(prompt, reply)
        out.append(time.perf_counter() - start)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kib", type=int, default=256)
    args = parser.parse_args(argv)
    service = Service(Limits.in_process())
    big, small = args.kib * 1024, 1024
    worst, bound = 0.0, 0.0
    print(f"{'family':<14} {'shape':<24} {'1 KiB min/med ms':>17} "
          f"{f'{args.kib} KiB min/med ms':>19} {'ratio':>7}")
    for family, prompt in prompts().items():
        service.grade(prompt, "yes")  # parse and solve once: the cache holds the question
        for shape, make in SHAPES.items():
            ref = _times(service, prompt, make(small), args.repeat)
            long = _times(service, prompt, make(big), args.repeat)
            if shape == BOUND:
                bound = max(bound, min(long))
            else:
                worst = max(worst, min(long))
            print(f"{family:<14} {shape:<24} "
                  f"{min(ref) * 1e3:8.2f}/{statistics.median(ref) * 1e3:<8.2f}"
                  f" {min(long) * 1e3:9.2f}/{statistics.median(long) * 1e3:<9.2f}"
                  f" {min(long) / min(ref):7.1f}")
    print(f"slowest {args.kib} KiB reply (min of {args.repeat}): {worst * 1e3:.1f} ms "
          f"(goal: under 50 ms); with the longest answer still parsed ({BOUND!r}): "
          f"{bound * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
