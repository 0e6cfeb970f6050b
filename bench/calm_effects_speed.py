"""Throughput of CaLM's numeric effect tasks (ATE, CDE, ETT, NDE, NIE, PN, PS), with the
ratio to parsing alone, all measured in this one run.

Run from the repository root:

    .venv/bin/python bench/calm_effects_speed.py [--passes 3]

On every effect record of the shared sample copied under ``tests/data/calm`` (lite and
full, English and Chinese) and on its ``basic`` rendering:

* *parse*: the record read into an ``EffectQuestion`` (the reference);
* *answer + re-check*: read, solved (exact value and the enclosure over the printed
  numbers) and re-checked by the independent checker;
* *prompt answer + re-check*: the same from the rendered prompt (the style wrapper found,
  the item read).

Each pass starts with the name-pattern cache cleared, so no item is read faster for
having been read before.  Rates are items per second of this process's CPU time (the
best of ``--passes``), so that a machine shared with other work still measures one
core's throughput; the target is at least 500 items/s per core with re-check.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "calm"


def _items() -> list[tuple[str, Any, dict[str, Any], str]]:
    from causal_oracle.entry.families.calm_effects import PART, TASKS
    from causal_oracle.oracle.calm.model import Lang

    out = []
    for folder in ("lite_sample", "full_sample"):
        for path in sorted((DATA / folder).glob("*.json")):
            task, lang = path.stem[:-3], Lang(path.stem[-2:])
            if task not in TASKS:
                continue
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    record = json.loads(line)
                    out.append((task, lang, record, PART.prompt(task, record, lang)))
    return out


def _rate(items: list[Any], step: Callable[[Any], object], passes: int
          ) -> tuple[float, float]:
    """Items per CPU second and per wall-clock second (the best pass of each)."""
    cpu = wall = float("inf")
    for _ in range(passes):
        start, start_wall = time.process_time(), time.perf_counter()
        for item in items:
            step(item)
        cpu = min(cpu, time.process_time() - start)
        wall = min(wall, time.perf_counter() - start_wall)
    return len(items) / cpu, len(items) / wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    from causal_oracle.entry.families.calm_effects import PART
    from causal_oracle.oracle.calm.check_effects import check_effect
    from causal_oracle.oracle.calm.effects_solve import solve
    from causal_oracle.parser.calm_effects import read_record

    items = _items()

    def parse(item: Any) -> object:
        return read_record(item[2], item[1])

    def answer(item: Any) -> object:
        q = read_record(item[2], item[1])
        solution = solve(q)
        assert solution.answer is not None
        check_effect(q, solution.answer)
        return solution

    def from_prompt(item: Any) -> object:
        q = PART.from_prompt(item[0], item[3], item[1])
        solution = solve(q)
        assert solution.answer is not None
        check_effect(q, solution.answer)
        return solution

    parse(items[0])  # build the grammar once, outside the timing
    reference, reference_wall = _rate(items, parse, args.passes)
    print(f"CaLM effect items: {len(items)} (lite + full sample, EN + CN); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"parse only:               {reference:8.0f} items/CPU-s "
          f"({reference_wall:.0f} items/s wall)")
    for label, step in (("answer + re-check", answer),
                        ("prompt answer + re-check", from_prompt)):
        rate, wall = _rate(items, step, args.passes)
        print(f"{label + ':':26}{rate:8.0f} items/CPU-s ({wall:.0f} items/s wall; "
              f"{rate / reference:.2f} × parsing alone; target ≥ 500/s per core: "
              f"{'met' if rate >= 500 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
