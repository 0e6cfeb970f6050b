"""CLEAR questions: items per second solved, and re-checked, against parsing alone.

Run from the repository root:

    .venv/bin/python bench/clear_speed.py              # the shared sample and the test subset
    .venv/bin/python bench/clear_speed.py --repeat 5 FILE.jsonl …

Every readable row of the files (``description`` + ``question``, as CLEAR writes them;
by default ``../shared/data/clear/items_sample.jsonl`` where it is, and
``tests/data/clear/items_subset.jsonl``) is read by the family, then, on one core, in
this one run:

* *parse*: the family reads the prompt into its question — the reference;
* *solve*: the solvers (paths, m-separation, adjustment sets, the ID algorithm, Markov
  equivalence, … on the one mixed-graph type's bitmasks), parsed questions given;
* *re-check*: the independent checker (networkx) re-derives each answer.

It prints items per CPU-second of this process (``time.process_time``: steady on a
shared machine) for each, the best of ``--repeat`` runs, and the ratios solve / parse
and re-check / parse.  Solvers are called without the service's memory, so every
question is worked out afresh.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from causal_oracle.entry import REGISTRY
from causal_oracle.entry.registry import Options
from causal_oracle.oracle.errors import OracleError

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = [ROOT.parent / "shared" / "data" / "clear" / "items_sample.jsonl",
           ROOT / "tests" / "data" / "clear" / "items_subset.jsonl"]


def prompts(paths: list[Path]) -> list[str]:
    out = []
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                out.append(row["description"].strip() + "\n" + row["question"].strip())
    return out


def _best_cpu(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="CLEAR JSONL files")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
    paths = args.files or [p for p in DEFAULT if p.is_file()]
    family = REGISTRY.get("clear")
    options = Options("CLEAR")
    texts = []
    for text in prompts(paths):
        try:
            family.parse(text, options)
        except OracleError:
            continue  # unreadable rows are the audit's business, not this benchmark's
        texts.append(text)
    questions = [family.parse(text, options) for text in texts]
    solutions = [family.solve(q) for q in questions]
    times = {
        "parse": _best_cpu(lambda: [family.parse(t, options) for t in texts], args.repeat),
        "solve": _best_cpu(lambda: [family.solve(q) for q in questions], args.repeat),
        "re-check": _best_cpu(lambda: [family.check(q, s) for q, s in
                                       zip(questions, solutions, strict=True)], args.repeat),
    }
    n = len(texts)
    print(f"{n} CLEAR questions from {', '.join(p.name for p in paths)}")
    print("   ".join(f"{name} {n / cpu:7,.0f}/s per core" for name, cpu in times.items()))
    print(f"ratio solve / parse {times['solve'] / times['parse']:.2f}x   "
          f"re-check / parse {times['re-check'] / times['parse']:.2f}x")


if __name__ == "__main__":
    main()
