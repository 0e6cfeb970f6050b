"""CaLM on the shared sample, as ``causal-oracle audit`` reports it: per task and language.

Run from the repository root:

    .venv/bin/python bench/calm_audit.py                       # tests/data/calm
    .venv/bin/python bench/calm_audit.py ../shared/data/calm   # another copy

Each sample folder (``lite_sample/``: CaLM Lite's items with their gold;
``full_sample/``: full-set items, whose gold CaLM withholds) is audited once by the CLI
itself (``causal-oracle audit FOLDER --report … --records …``, in this process): the
records as shipped carry no task, so each is read as the task and language its file's
name gives.  The script reads back the audit's JSON records and prints, per task and
language: items, agree, disagree by cause class, ambiguous, undetermined by reason,
unreadable, (full set) answered, and the cause classes flagged whatever the outcome — a
Markdown table per folder.

Then the speed, per CaLM part (the graph tasks, the numeric effect tasks), on both
folders together, each measured in a fresh process (no cache warm) and on one core
(``time.process_time``, the work alone, not the imports):

* *parse*: every row read from its file and its prompt parsed (``Family.parse``) — the
  reference;
* *audit*: ``causal-oracle audit`` end to end (read, parse, solve, re-check the
  certificate, judge the gold, write the report and the records).

It prints items per CPU-second for both and the ratio (audit time / parse time).  The
issue's targets are ≥ 2,000 items/s per core for the graph tasks and ≥ 500 for the
numeric ones, with re-check.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from causal_oracle.clients.cli import main as cli
from causal_oracle.clients.readers import read_records
from causal_oracle.entry import REGISTRY, default
from causal_oracle.entry.families.calm import part_of, split_task
from causal_oracle.entry.registry import Options

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("lite_sample", "full_sample")
COLUMNS = ("items", "agree", "disagree", "ambiguous", "undetermined", "unreadable",
           "answered")


def audit(path: Path, out: Path) -> tuple[dict[str, Any], list[dict[str, Any]], float]:
    """``causal-oracle audit PATH``'s report, its records, and the CPU seconds it took."""
    report, records = out / "report.json", out / "records.jsonl"
    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli(["audit", str(path), "--quiet", "--report", str(report), "--records",
                    str(records)])
    seconds = time.process_time() - start
    if code not in (0, 3):
        raise SystemExit(f"audit of {path} exited {code}")
    rows = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    return json.loads(report.read_text(encoding="utf-8")), rows, seconds


def _by(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counter.items())) or ""


def table(records: list[dict[str, Any]]) -> list[str]:
    """The Markdown table of one folder's records, per task and language."""
    rows: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    causes: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    reasons: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    flagged: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for r in records:
        facets = r.get("facets") or {}
        key = (str(facets.get("task", "?")), str(facets.get("language", "?")))
        rows[key]["items"] += 1
        rows[key][r["outcome"]] += 1
        flagged[key].update(c["kind"] for c in r["causes"])
        if r["outcome"] == "disagree":
            causes[key].update([c["kind"] for c in r["causes"]] or ["none"])
        if r["outcome"] in ("undetermined", "unreadable"):
            reasons[key][str(r["reason"])[:60]] += 1
    head = ["task", "lang", *COLUMNS, "disagree by cause", "undetermined / unreadable by "
            "reason", "cause classes (any outcome)"]
    out = ["| " + " | ".join(head) + " |",
           "|---|---|" + "---:|" * len(COLUMNS) + "---|---|---|"]
    total: Counter[str] = Counter()
    for key in sorted(rows):
        total.update(rows[key])
        out.append(f"| {key[0]} | {key[1]} | " + " | ".join(str(rows[key][c]) for c in COLUMNS)
                   + f" | {_by(causes[key])} | {_by(reasons[key])} | {_by(flagged[key])} |")
    everything = sum(flagged.values(), Counter())
    out.append("| **all** | | " + " | ".join(str(total[c]) for c in COLUMNS)
               + f" | {_by(sum(causes.values(), Counter()))} | "
               f"{_by(sum(reasons.values(), Counter()))} | {_by(everything)} |")
    return out


def _part(name: str) -> str:
    task, _ = split_task(Path(name).stem)
    return type(part_of(task)).__name__


def _measure(mode: str, folder: Path, out: Path) -> tuple[int, float]:
    """(items, CPU seconds) of parsing every row of ``folder`` (``parse``) or auditing it
    (``audit``), in this process — run in a fresh one, so no cache is warm."""
    if mode == "audit":
        report, _, seconds = audit(folder, out)
        return report["summary"]["items"], seconds
    calm = REGISTRY.get("calm")
    service = default()
    start = time.process_time()
    items = 0
    for path in sorted(folder.rglob("*.json")):
        for record in read_records(path):
            item = service.item(record.row or {})
            if item is not None:
                calm.parse(item.prompt, Options(item.task))
                items += 1
    return items, time.process_time() - start


def speed(data: Path, tmp: Path) -> list[str]:
    """Items/s of parsing alone and of the audit, per part, over both folders, each
    measured in a fresh process."""
    parts: dict[str, list[Path]] = defaultdict(list)
    for folder in FOLDERS:
        for path in sorted((data / folder).glob("*.json")):
            parts[_part(path.name)].append(path)
    out = ["| part | items | parse items/s | audit items/s (re-checked) | audit / parse |",
           "|---|---:|---:|---:|---:|"]
    for part, paths in sorted(parts.items()):
        folder = tmp / part
        for k, path in enumerate(paths):  # same names: a file's name is its task
            (folder / str(k)).mkdir(parents=True)
            (folder / str(k) / path.name).symlink_to(path.resolve())
        got = {}
        for mode in ("parse", "audit"):
            (tmp / f"{part}-{mode}").mkdir()
            done = subprocess.run([sys.executable, __file__, "--measure", mode, str(folder),
                                   str(tmp / f"{part}-{mode}")], capture_output=True,
                                  text=True, check=True)
            got[mode] = json.loads(done.stdout.strip().splitlines()[-1])
        n, parse, seconds = got["audit"][0], got["parse"][1], got["audit"][1]
        assert got["parse"][0] == n, (got, part)
        out.append(f"| {part} | {n} | {n / parse:,.0f} | {n / seconds:,.0f} | "
                   f"{seconds / parse:.1f} |")
    return out


def main() -> None:
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(_measure(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))))
        return
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "data" / "calm"
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for folder in FOLDERS:
            out = tmp / folder
            out.mkdir()
            report, records, _ = audit(data / folder, out)
            s = report["summary"]
            print(f"### {folder} ({s['items']} items: agree {s['agree']}, disagree "
                  f"{s['disagree']}, ambiguous {s['ambiguous']}, undetermined "
                  f"{s['undetermined']}, unreadable {s['unreadable']}, answered "
                  f"{s['answered']})\n")
            print("\n".join(table(records)) + "\n")
        print("### speed (one core, CPU time)\n")
        print("\n".join(speed(data, tmp)))


if __name__ == "__main__":
    main()
