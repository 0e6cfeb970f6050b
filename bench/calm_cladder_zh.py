"""CaLM's Chinese CLadder records, read from the record (its ``background`` has the graph):
per task and folder, items, decided (agree / disagree with the Lite gold, by cause),
undetermined by reason; then the speed of reading alone and of reading, solving and
re-checking the certificate (one core, CPU time, in this process), and how many sentences
the LALR fast path reads, with the parse time of every sentence by Earley alone measured in
the same run as the reference.

Run from the repository root:

    .venv/bin/python bench/calm_cladder_zh.py                          # tests/data/calm_cladder
    .venv/bin/python bench/calm_cladder_zh.py ../shared/data/calm      # another copy

``causal-oracle audit`` reads the *prompt* a model sees, which CaLM renders without the
graph (``graph_missing_from_prompt``); this script reads the records themselves.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from causal_oracle.entry.families.calm_cladder import KINDS, PART
from causal_oracle.entry.families.calm_part import CalmQuestion
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.parser.calm_cladder_zh import read_zh
from causal_oracle.parser.calm_cladder_zh_grammar import grammar, normalise

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("lite_sample", "full_sample")


def rows(base: Path) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for folder in FOLDERS:
        for task in KINDS:
            path = base / folder / f"{task}_CN.json"
            if path.exists():
                with path.open(encoding="utf-8") as handle:
                    out.extend((folder, task, json.loads(line)) for line in handle)
    return out


def outcome(task: str, record: dict[str, Any]) -> str:
    formal = PART.from_record(task, record, Lang.CN)
    question = CalmQuestion(task, Lang.CN, None, formal)
    solution = PART.check(question, PART.solve(question))
    if solution.solution is None:
        return f"undetermined: {solution.missing}"
    if solution.decided is None:
        reason = solution.solution.reason
        return f"undetermined: {reason.value if reason else 'not decided'}"
    gold = PART.gold(task, record)
    if gold is None:
        return "decided (no gold)"
    if bool(gold) == solution.decided:
        return "agree"
    return "disagree: " + ",".join(PART.causes(question, solution, gold) or ("no cause",))


def sentences(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(text, start) of each sentence the reader parses: the background and the question
    whole, the given information cut at 。 and ；."""
    given = normalise(record["given_info"]).replace("；", "。").split("。")
    return [(normalise(record["background"]), "background"),
            *((s, "given") for s in given if s), (normalise(record["question"]), "question")]


def parsing(items: list[tuple[str, str, dict[str, Any]]]) -> str:
    """Sentences read by the LALR pass, and every sentence's parse time: LALR first
    (Earley where it gives up, as the reader does) against Earley alone."""
    parsers = grammar()
    listed = [s for _, _, record in items for s in sentences(record)]
    fast = 0
    start = time.process_time()
    for text, rule in listed:
        try:
            parsers.fast.parse(text, start=rule)
            fast += 1
        except Exception:  # the reader's own fallback (no LALR parse), timed with it
            parsers.earley.parse(text, start=rule)
    both = time.process_time() - start
    start = time.process_time()
    for text, rule in listed:
        parsers.earley.parse(text, start=rule)
    earley = time.process_time() - start
    return (f"sentences: {len(listed)}, {fast} read by LALR, {len(listed) - fast} by Earley; "
            f"parse time LALR first {both:.3f} s, Earley alone {earley:.3f} s "
            f"(speed-up {earley / both:.1f}x)")


def main(argv: list[str]) -> int:
    base = Path(argv[1]) if len(argv) > 1 else ROOT / "tests" / "data" / "calm_cladder"
    items = rows(base)
    table: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for folder, task, record in items:
        table[(task, folder)][outcome(task, record)] += 1
    print("| task | folder | items | outcomes |\n|---|---|---:|---|")
    for (task, folder), counts in sorted(table.items()):
        listed = ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
        print(f"| {task} | {folder} | {sum(counts.values())} | {listed} |")
    total: Counter[str] = Counter()
    for counts in table.values():
        total.update(counts)
    print(f"\ntotal {sum(total.values())}: " + ", ".join(f"{k} {n}" for k, n in
                                                        sorted(total.items())))
    start = time.process_time()
    for _, _, record in items:
        read_zh(record["background"], record["given_info"], record["question"])
    parse = time.process_time() - start
    start = time.process_time()
    for _, task, record in items:
        outcome(task, record)
    full = time.process_time() - start
    n = len(items)
    print(f"speed (one core, CPU time): read {n / parse:,.0f} items/s; read + solve + re-check "
          f"+ judge {n / full:,.0f} items/s; ratio {full / parse:.2f}")
    print(parsing(items))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
