"""CaLM graph tasks: items per second with the certificate re-checked, against parsing alone.

Run from the repository root:

    .venv/bin/python bench/calm_speed.py            # the shared sample (tests/data/calm)
    .venv/bin/python bench/calm_speed.py --repeat 5

Every AR-B, CA-B, CEI-B, BAS-C, FAS-C and IV-C item of the lite and full samples (EN and
CN) is rendered by CaLM's own prompt builders in its ``basic`` style and in all nine
styles, then, on one core, in this one run:

* *parse*: the family reads the prompt (style wrapper and examples split off, the item
  read into its formal question) — the reference;
* *answer + re-check*: parse, solve (ID algorithm, backdoor/front-door/instrument tests)
  and the independent checker's re-derivation, as ``Service.solved`` does — without the
  service's text caches, so every item is worked out afresh.

It prints items per CPU-second of this process (``time.process_time``: per core, and
steady on a shared machine, where wall-clock rates fall with the load) for both, the
wall-clock rate beside it, and the ratio (answer + re-check time / parse time).  The
target is ≥ 2,000 items/s per core with the re-check.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_calm_graph import FILES, rendered  # noqa: E402  (CaLM's builders, as the tests load them)

from causal_oracle.entry import REGISTRY  # noqa: E402
from causal_oracle.entry.families.calm import split_task  # noqa: E402
from causal_oracle.entry.registry import Options  # noqa: E402
from causal_oracle.parser.calm_prompt import Style  # noqa: E402


def prompts(styles: tuple[Style, ...]) -> list[tuple[str, str]]:
    out = []
    for path in FILES:
        task, lang = split_task(path.stem)
        assert lang is not None
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                for style in styles:
                    out.append((task, rendered(task, lang, style, record, "Yes")))
    return out


def _timed(run: object) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one call of ``run``."""
    cpu, wall = time.process_time(), time.perf_counter()
    run()  # type: ignore[operator]
    return time.process_time() - cpu, time.perf_counter() - wall


def measure(items: list[tuple[str, str]], repeat: int) -> dict[str, tuple[float, float]]:
    """The best (CPU, wall) seconds of parsing alone and of answering with the re-check."""
    family = REGISTRY.get("calm")

    def parse() -> None:
        for task, text in items:
            family.parse(text, Options(task))

    def answer() -> None:
        for task, text in items:
            question = family.parse(text, Options(task))
            family.check(question, family.solve(question))

    best = {"parse": (float("inf"),) * 2, "answer + re-check": (float("inf"),) * 2}
    for _ in range(repeat):
        for name, run in (("parse", parse), ("answer + re-check", answer)):
            cpu, wall = _timed(run)
            best[name] = (min(best[name][0], cpu), min(best[name][1], wall))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
    for label, styles in (("basic style", (Style.BASIC,)), ("all nine styles", tuple(Style))):
        items = prompts(styles)
        n = len(items)
        best = measure(items, args.repeat)
        shown = "   ".join(f"{name} {n / cpu:7,.0f}/s per core ({n / wall:,.0f}/s wall)"
                           for name, (cpu, wall) in best.items())
        ratio = best["answer + re-check"][0] / best["parse"][0]
        print(f"{label:16} {n:5} prompts: {shown}   ratio {ratio:.1f}x parse time")


if __name__ == "__main__":
    main()
