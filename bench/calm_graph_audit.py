"""CaLM graph tasks on the shared sample: per task and language, how the oracle reads them.

Run from the repository root:

    .venv/bin/python bench/calm_graph_audit.py                       # tests/data/calm
    .venv/bin/python bench/calm_graph_audit.py ../shared/data/calm   # another copy

Every record of ``lite_sample/`` and ``full_sample/`` (AR-B, CA-B, CEI-B, BAS-C, FAS-C,
IV-C; EN and CN) goes through the family's audit record (parse, solve, re-check, judge
the gold).  It prints a Markdown table: items, unreadable, lite items whose gold agrees /
disagrees / is ambiguous (several valid options or none), full items answered (no gold),
and the items of each cause class (``docs/families/calm.md`` explains them).
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from causal_oracle.entry import REGISTRY, default
from causal_oracle.entry.families.calm import record_row, split_task
from causal_oracle.entry.families.calm_graph import PART

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "data" / "calm"
    service = default()
    family = REGISTRY.get("calm")
    rows: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for folder in ("lite_sample", "full_sample"):
        for path in sorted((data / folder).glob("*.json")):
            task, lang = split_task(path.stem)
            if lang is None or not PART.owns(task):
                continue
            counts = rows[(task, lang.value)]
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    item = service.item(record_row(json.loads(line), path.name))
                    assert item is not None
                    fields = family.audit_fields(service, item, "corr2cause")
                    counts["items"] += 1
                    if "error" in fields:
                        counts["unreadable"] += 1
                        continue
                    if item.gold is None:
                        counts["full: answered"] += 1
                    elif fields.get("ambiguous"):
                        counts["lite: ambiguous"] += 1
                    elif "undetermined" in fields:
                        counts["lite: undetermined"] += 1
                    else:
                        counts["lite: agree" if fields["agree"] else "lite: disagree"] += 1
                    for cause in fields["causes"]:
                        counts[cause["kind"]] += 1
    columns = ["items", "unreadable", "lite: agree", "lite: disagree", "lite: ambiguous",
               "lite: undetermined", "full: answered"]
    causes = sorted({k for c in rows.values() for k in c} - set(columns))
    print("| task | lang | " + " | ".join(columns + causes) + " |")
    print("|---|---|" + "---:|" * (len(columns) + len(causes)))
    total: Counter[str] = Counter()
    for (task, lang), counts in sorted(rows.items()):
        total.update(counts)
        print(f"| {task} | {lang} | " + " | ".join(str(counts[c]) for c in columns + causes)
              + " |")
    print("| **all** | | " + " | ".join(str(total[c]) for c in columns + causes) + " |")


if __name__ == "__main__":
    main()
