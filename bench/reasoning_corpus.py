"""Claim recall, precision and verdicts on the reasoning corpus, per family and file.

Run from the repository root:

    .venv/bin/python bench/reasoning_corpus.py

For each file of ``tests/data/reasoning/`` (hand-written chains in English and
Chinese, SmolLM2 replies, the perturbation corpus) and each family: claims annotated,
claims read, precision (read claims that match an annotation), recall (annotations
matched by a read claim), right verdicts among the matched, planted false claims found
false with a witness, false positives (claims read where none is annotated), and
contradictions reported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from reasoning_measure import Tally, measure  # noqa: E402

import causal_oracle as co  # noqa: E402
from causal_oracle.entry import REGISTRY  # noqa: E402

FILES = ("chains.jsonl", "chains_zh.jsonl", "smollm2.jsonl", "perturbed.jsonl")


def main() -> None:
    REGISTRY.load_resource("cladder-models", ROOT / "tests/data/cladder/test-model-meta.json")
    print(f"{'file':<16}{'family':<14}{'annotated':>10}{'read':>6}{'precision':>10}"
          f"{'recall':>8}{'verdicts':>10}{'false found':>12}{'false pos.':>11}{'contra.':>8}")
    for name in FILES:
        rows = [json.loads(line) for line in
                (ROOT / "tests/data/reasoning" / name).read_text().splitlines() if line]
        per: dict[str, tuple[Tally, list[int]]] = {}
        for row in rows:
            result = co.check_reasoning(row["prompt"], row["reply"])
            tally, clashes = per.setdefault(result.family, (Tally(), [0]))
            measure(row["reply"], row["claims"], result, tally)
            clashes[0] += len(result.contradictions)
        for family, (t, clashes) in sorted(per.items()):
            print(f"{name:<16}{family:<14}{t.annotated:>10}{t.found:>6}{t.precision:>10.2f}"
                  f"{t.recall:>8.2f}{t.verdict_right:>5}/{t.matched_annotations:<4}"
                  f"{t.false_caught:>6}/{t.false_planted:<5}{len(t.spurious):>11}"
                  f"{clashes[0]:>8}")


if __name__ == "__main__":
    main()
