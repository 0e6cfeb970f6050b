"""Regenerate ``cibench_sample.jsonl`` and ``ie_sample.jsonl`` from the test data.

    python examples/make_task_samples.py

CI-Bench: the first 10 items of each task (CP, BA, FI, CI) and name type mix of
``tests/data/cibench/items_sample.jsonl``.  IE: every upstream template row
rendered once with random letters (seed 2024), keeping the upstream label.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from causal_oracle.entry.families.ie_templates import read_templates, render_ie_prompt

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
OUT = ROOT / "examples"


def main() -> None:
    rows = [json.loads(line) for line in
            (DATA / "cibench" / "items_sample.jsonl").open(encoding="utf-8")]
    picked = []
    for task in ("CP", "BA", "FI", "CI"):
        of_task = [r for r in rows if r["task"] == task]
        picked += [r for r in of_task if r["name_type"] == "specific"][:5]
        picked += [r for r in of_task if r["name_type"] == "bio"][:5]
    with (OUT / "cibench_sample.jsonl").open("w", encoding="utf-8") as handle:
        for row in picked:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    rng = random.Random(2024)
    with (OUT / "ie_sample.jsonl").open("w", encoding="utf-8") as handle:
        for path in sorted((DATA / "ie").glob("*/*.csv")):
            for template in read_templates(path):
                item = render_ie_prompt(template, rng)
                handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    print(f"wrote {len(picked)} CI-Bench items and IE items to {OUT}")


if __name__ == "__main__":
    main()
