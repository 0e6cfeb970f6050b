"""Start-up cost: ``import causal_oracle`` against ``python -c pass``, and a first answer.

    python bench/startup.py [--runs 3] [--tries 5]

Each run starts fresh interpreters (the best of ``--tries`` each, interleaved so that a
busy machine weighs on all of them alike) for:

* ``pass`` — ``python -c pass``, the reference;
* ``import`` — ``python -c "import causal_oracle"``: the goal is ≤ 5× ``pass``;
* ``verify`` — importing and answering one Corr2Cause question (the first use loads the
  entry layer and the Corr2Cause family, not the other families' checkers);
* ``cibench`` — importing and answering one CI-Bench question.

It prints min and median over the runs of each time and of its ratio to ``pass``, and
which heavy libraries (numpy, networkx, z3, pysat, lark) each first use loaded.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

HEAVY = ("numpy", "networkx", "z3", "pysat", "lark", "causal_oracle.oracle.cladder.check",
         "causal_oracle.oracle.clear.check")
_REPORT = f"import sys, json; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
PREMISE = ("Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
           "relations among these 3 variables are as follows: A correlates with C. B "
           "correlates with C. However, A is independent of B.")
CIBENCH = ("X has a causal effect on y.\\nQuestion:\\nWe want to estimate the causal effect "
           "of thex on they.\\nBased on the information above, please identify all the "
           "causal paths between them.")
SCRIPTS = {
    "pass": "pass",
    "import": "import causal_oracle",
    "verify": f"import causal_oracle as co; co.verify({PREMISE!r}, 'A directly causes C.')",
    "cibench": f"import causal_oracle as co; co.answer('{CIBENCH}')",
}


def _time(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t0


def _loaded(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", f"{code}\n{_REPORT}"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tries", type=int, default=5)
    args = ap.parse_args()
    best: dict[str, list[float]] = {name: [] for name in SCRIPTS}
    for _ in range(args.runs):
        times: dict[str, list[float]] = {name: [] for name in SCRIPTS}
        for _ in range(args.tries):
            for name, code in SCRIPTS.items():
                times[name].append(_time(code))
        for name in SCRIPTS:
            best[name].append(min(times[name]))
    print(f"{'what':<9}{'seconds min/med':>18}{'× pass min/med':>17}  heavy modules loaded")
    for name, code in SCRIPTS.items():
        ratios = [t / p for t, p in zip(best[name], best["pass"], strict=True)]
        print(f"{name:<9}{min(best[name]):>9.3f}/{statistics.median(best[name]):<8.3f}"
              f"{min(ratios):>8.2f}/{statistics.median(ratios):<8.2f}"
              f"  {', '.join(_loaded(code)) or '-'}")


if __name__ == "__main__":
    main()
