"""Benchmark items for evaluation: one ``Item`` per row of a JSONL or CSV file.

Three row shapes are read (the same files ``causal-oracle audit`` reads):

* Corr2Cause, generator layout — ``premise``, ``hypothesis``, optional ``label``
  (binary gold, 1 iff entailment), ``id``;
* Corr2Cause, published layout — ``input`` ("Premise: …\\nHypothesis: …"), ``label``;
* CI-Bench and intervention-effect (IE) items — ``task`` ∈ CP/BA/FI/CI/IE and
  ``prompt``; CI-Bench gold is the row's ``truth``, IE gold its ``label`` (yes/no).

Files are read by ``clients.readers`` (JSONL, JSON arrays, CSV/TSV, the IE ``|``
templates, Parquet, ``datasets`` directories); aliased column names are mapped to
these roles.  Every item gets a stable key: the row's ``id`` (``uid`` for CI-Bench),
else ``row-<line>`` (the 1-based file line, or record number for binary formats);
a key seen before in the same file gets ``#<line>`` appended.
Resuming a run relies on these keys, so they never depend on the order items
are evaluated in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_oracle.clients import readers
from causal_oracle.oracle.errors import InputError

CORR2CAUSE = "corr2cause"
TASK_NAMES = ("CP", "BA", "FI", "CI", "IE")
ALL_TASKS = (CORR2CAUSE, *TASK_NAMES)
BINARY_TASKS = (CORR2CAUSE, "IE")  # answered yes/no: scored by logits or by the grammar


@dataclass(frozen=True)
class Item:
    """One benchmark item, ready to be prompted and scored."""

    key: str
    row: int
    task: str                    # "corr2cause" or CP/BA/FI/CI/IE
    prompt: str                  # the benchmark's own text: published layout for Corr2Cause
    premise: str = ""
    hypothesis: str = ""
    gold: int | None = None      # binary gold (Corr2Cause label, IE yes=1/no=0)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def binary(self) -> bool:
        return self.task in BINARY_TASKS


def _gold_binary(value: object) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value in (0, 1):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("1", "true", "yes", "valid"):
            return 1
        if text in ("0", "false", "no", "invalid"):
            return 0
    return None


def split_input(text: str) -> tuple[str, str]:
    """Premise and hypothesis text of the published layout ``"Premise: …\\nHypothesis: …"``."""
    at = text.rfind("Hypothesis:")
    if at < 0:
        raise InputError("the input has no 'Hypothesis:' part")
    premise = text[:at].strip()
    if premise.startswith("Premise:"):
        premise = premise[len("Premise:"):].strip()
    return premise, text[at + len("Hypothesis:"):].strip()


def item_of(index: int, row: dict[str, Any]) -> Item:
    """The ``Item`` of one parsed row; raises ``InputError`` for a row of no known shape."""
    key = str(row.get("id") or row.get("uid") or f"row-{index}")
    if "task" in row and "prompt" in row:
        task = str(row["task"]).strip().upper()
        if task not in TASK_NAMES:
            raise InputError(f"row {index}: unknown task {row['task']!r}")
        if task != "IE" and row.get("uid"):
            key = str(row["uid"])
        elif task == "IE" and not row.get("id") and row.get("source") and row.get("row"):
            key = f"{row['source']}:{row['row']}"
        gold = _gold_binary(row.get("label")) if task == "IE" else None
        return Item(key, index, task, str(row["prompt"]), gold=gold, raw=row)
    if "premise" in row and "hypothesis" in row:
        premise, hypothesis = str(row["premise"]).strip(), str(row["hypothesis"]).strip()
    elif "input" in row:
        premise, hypothesis = split_input(str(row["input"]))
    else:
        raise InputError(f"row {index}: expected premise/hypothesis, input, or task/prompt "
                         f"fields; got {', '.join(sorted(row)) or 'none'}")
    prompt = f"Premise: {premise}\nHypothesis: {hypothesis}"
    return Item(key, index, CORR2CAUSE, prompt, premise, hypothesis,
                _gold_binary(row.get("label")), row)


def load_items(path: Path, tasks: Iterable[str] | None = None,
               limit: int | None = None, skipped: list[str] | None = None) -> list[Item]:
    """Read ``path`` (any source ``readers`` reads); keep the items of ``tasks`` (all
    when None), the first ``limit`` of them.  Unreadable rows are left out and described
    in ``skipped``; ``InputError`` when the source is missing, empty or has no readable
    row (the message lists the columns found)."""
    source = readers.open_source(path)
    detected = readers.detect_columns(source.columns())
    rename = {name: role for role, name in detected.names.items() if name != role}
    wanted = {t if t == CORR2CAUSE else t.upper() for t in tasks} if tasks else None
    items: list[Item] = []
    seen: Counter[str] = Counter()
    problems: list[str] = [] if skipped is None else skipped
    for record in source.records():
        index = record.ref
        if record.row is None:
            problems.append(f"{source.unit} {index}: {record.error}")
            continue
        row = {rename.get(k, k): v for k, v in record.row.items()} if rename else record.row
        try:
            item = item_of(index, row)
        except InputError as error:
            problems.append(error.describe())
            continue
        if wanted is not None and item.task not in wanted:
            continue
        seen[item.key] += 1
        if seen[item.key] > 1:
            item = Item(f"{item.key}#{index}", item.row, item.task, item.prompt, item.premise,
                        item.hypothesis, item.gold, item.raw)
        items.append(item)
        if limit is not None and len(items) >= limit:
            break
    if not items:
        first = f"; first unreadable: {problems[0]}" if problems else ""
        raise InputError(f"{path}: no items" + (f" of task(s) {', '.join(sorted(wanted))}"
                                                if wanted else "")
                         + f"; {detected.message}{first}. To fix: {readers.fix_hint([])}")
    return items
