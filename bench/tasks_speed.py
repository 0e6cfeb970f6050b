"""Throughput of the CI-Bench and IE oracle: items/s per task, against parsing alone.

    python bench/tasks_speed.py [--runs 3] [--repeat 2]

Runs over ``tests/data/cibench/items_sample.jsonl`` (400 items) and every IE
template row rendered with random letters.  For each task and run it measures, in the
same process and run:

* ``answer/s`` — ``Service.answer`` on every prompt with an empty answer cache (read,
  solve, the independent re-check, render, explanation): the issue's goal is
  ≥ 3,000 items/s per task;
* ``parse/s`` — reading alone, as ``answer`` reads (the recognisers
  ``parser.cibench_lines`` and ``parser.ie_lines`` where they apply);
* ``grammar/s`` — reading with the Lark grammar and transformer alone (the reference:
  what reading alone cost before the recognisers).

It prints, per task, the min and median over the runs of each rate, and the ratios
``answer/parse`` (what solving, checking and rendering cost next to reading) and
``answer/grammar`` (the whole answer against the old reading alone).  CPU time of the
process is used as the clock (``--wall`` for wall time), so other work on a shared
machine does not count.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from causal_oracle.entry import REGISTRY, Options, Service
from causal_oracle.entry.families.ie_templates import read_templates, render_ie_prompt
from causal_oracle.parser import cibench, ie

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def _items() -> list[dict]:
    rows = [json.loads(line) for line in
            (DATA / "cibench" / "items_sample.jsonl").open(encoding="utf-8")]
    rng = random.Random(0)
    for path in sorted((DATA / "ie").glob("*/*.csv")):
        rows += [render_ie_prompt(t, rng) for t in read_templates(path)]
    return rows


def _rate(rows: list[dict], repeat: int, clock: Callable[[], float],
          work: Callable[[dict], object]) -> float:
    t0 = clock()
    for _ in range(repeat):
        for row in rows:
            work(row)
    return len(rows) * repeat / (clock() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--wall", action="store_true", help="wall-clock time, not CPU time")
    args = ap.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    service = Service()
    by_task: dict[str, list[dict]] = defaultdict(list)
    for row in _items():
        by_task[row["task"]].append(row)

    def answer(row: dict) -> object:
        service.caches.solved.clear()
        return service.answer(row["prompt"], row["task"])

    def parse(row: dict) -> object:
        return REGISTRY.get(row["task"]).parse(row["prompt"], Options(row["task"]))

    def grammar(row: dict) -> object:
        return (ie if row["task"] == "IE" else cibench).parse_with_grammar(row["prompt"])

    for rows in by_task.values():  # warm the grammars and caches
        for row in rows[:3]:
            answer(row), grammar(row)
    print(f"{'task':<5}{'items':>6}  {'answer/s min/med':>17}  {'parse/s min/med':>16}  "
          f"{'grammar/s min/med':>18}  {'answer/parse':>13}  {'answer/grammar':>14}")
    for task, rows in by_task.items():
        rates: dict[str, list[float]] = defaultdict(list)
        for _ in range(args.runs):
            for name, work in (("answer", answer), ("parse", parse), ("grammar", grammar)):
                rates[name].append(_rate(rows, args.repeat, clock, work))
        a, p, g = (rates[k] for k in ("answer", "parse", "grammar"))
        ap_ratio = [x / y for x, y in zip(a, p, strict=True)]
        ag_ratio = [x / y for x, y in zip(a, g, strict=True)]

        def mm(xs: list[float], fmt: str = ".0f") -> str:
            return f"{min(xs):{fmt}}/{statistics.median(xs):{fmt}}"

        print(f"{task:<5}{len(rows):>6}  {mm(a):>17}  {mm(p):>16}  {mm(g):>18}  "
              f"{mm(ap_ratio, '.2f'):>13}  {mm(ag_ratio, '.2f'):>14}")


if __name__ == "__main__":
    main()
