"""A complete 12-variable verify against a 3-variable one, in one process.

    python bench/verify_scaling.py [--runs 3] [--items 20]

Each run verifies ``--items`` new premises of each size (fresh variable names, so no
cache answers: each premise is read, its class derived — 12! = 479,001,600 members for
the complete 12-variable premise, decided by SAT without listing — labelled and
re-checked) with one hypothesis, and reports the mean CPU time per verify and the ratio
12-variable / 3-variable (the issue's goal: ≤ 3×).  It prints each run and the min and
median ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import time

from causal_oracle.entry import Service


def _premise(n: int, tag: str) -> tuple[list[str], str]:
    names = [f"{tag}{chr(65 + i)}" for i in range(n)]
    pairs = [f"{a} correlates with {b}." for i, a in enumerate(names) for b in names[i + 1:]]
    return names, (f"Suppose there is a closed system of {n} variables, "
                   f"{', '.join(names[:-1])} and {names[-1]}. All the statistical relations "
                   f"among these {n} variables are as follows: " + " ".join(pairs))


def _mean_verify(service: Service, n: int, items: int, rng: random.Random) -> float:
    total = 0.0
    for _ in range(items):
        names, premise = _premise(n, "".join(rng.choice(string.ascii_uppercase)
                                              for _ in range(5)))
        t0 = time.process_time()
        service.verify(premise, f"{names[0]} directly causes {names[1]}.")
        total += time.process_time() - t0
    return total / items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--items", type=int, default=20)
    args = ap.parse_args()
    service = Service()
    rng = random.Random(0)
    _mean_verify(service, 3, 3, rng), _mean_verify(service, 12, 2, rng)  # warm up
    ratios = []
    for run in range(args.runs):
        small = _mean_verify(service, 3, args.items, rng)
        large = _mean_verify(service, 12, args.items, rng)
        ratios.append(large / small)
        print(f"run {run + 1}: 3 variables {small * 1e3:.2f} ms, complete 12 variables "
              f"{large * 1e3:.2f} ms, ratio {ratios[-1]:.2f}")
    print(f"ratio min/median: {min(ratios):.2f}/{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
