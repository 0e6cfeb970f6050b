"""Benchmark items for evaluation: one ``Item`` per row of a dataset.

A row is read by the first registered benchmark family that claims it
(``entry.registry``: Corr2Cause in the generator's or the published layout,
Corr2Cause++, CI-Bench, intervention effects, CLEAR, and any family registered
later) — the same rows ``causal-oracle audit`` reads, with the same gold.

Files are read by ``clients.readers`` (JSONL, JSON arrays, CSV/TSV, the IE ``|``
templates, Parquet, ``datasets`` directories); aliased column names are mapped to
their roles.  Every item gets a stable key: the row's own id (its family says which
column), else ``row-<line>`` (the 1-based file line, or record number for binary
formats); a key seen before in the same file gets ``#<line>`` appended.  Resuming a
run relies on these keys, so they never depend on the order items are evaluated in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_oracle.clients import readers
from causal_oracle.entry import REGISTRY, InputError, default, split_input

#: the family whose items are a premise and a hypothesis (split for prompts, scored in
#: three classes too): the registry's pair family
CORR2CAUSE = REGISTRY.pair_family().name


def all_tasks() -> tuple[str, ...]:
    """Every task name rows may carry, family names included (``--task`` choices)."""
    return REGISTRY.tasks()


def task_names(text: str) -> tuple[str, ...]:
    """The row task names ``text`` (a family or task name, any case) stands for."""
    family = REGISTRY.get(text)
    wanted = text.strip().casefold()
    named = [t for t in family.tasks if t.casefold() == wanted]
    return tuple(named) or family.tasks


@dataclass(frozen=True)
class Item:
    """One benchmark item, ready to be prompted and scored."""

    key: str
    row: int
    task: str                    # the row's task: "corr2cause", CP/BA/FI/CI/IE, "CLEAR", …
    prompt: str                  # the benchmark's own text: published layout for Corr2Cause
    premise: str = ""
    hypothesis: str = ""
    gold: int | None = None      # binary gold (yes=1/no=0) of a yes/no family's row
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    family: str = CORR2CAUSE

    @property
    def binary(self) -> bool:
        """Answered yes/no (scored by logits or by reading the reply)."""
        return REGISTRY.get(self.family).binary


def item_of(index: int, row: dict[str, Any]) -> Item:
    """The ``Item`` of one parsed row; raises ``InputError`` for a row no family reads."""
    item = default().item(row)
    if item is None:
        raise InputError(f"row {index}: no benchmark reads this row (families: "
                         f"{', '.join(REGISTRY.names())}); got columns "
                         f"{', '.join(sorted(row)) or 'none'}")
    premise = hypothesis = ""
    if item.family == CORR2CAUSE:
        premise, hypothesis = split_input(item.prompt)
    # a yes/no gold is scored by a yes/no family's reply reader; another family's rows
    # (CaLM's -B tasks among its choice and numeric ones) are judged by its own gold
    # reading (``oracle_gold_agree``)
    gold = item.binary if REGISTRY.get(item.family).binary else None
    return Item(item.key or f"row-{index}", index, item.task, item.prompt, premise, hypothesis,
                gold, row, item.family)


def load_items(path: Path, tasks: Iterable[str] | None = None,
               limit: int | None = None, skipped: list[str] | None = None,
               columns: dict[str, str] | None = None) -> list[Item]:
    """Read ``path`` (any source ``readers`` reads); keep the items of ``tasks`` (all
    when None), the first ``limit`` of them.  Unreadable rows are left out and described
    in ``skipped``; ``InputError`` when the source is missing, empty or has no readable
    row (the message lists the columns found)."""
    source = readers.open_source(path)
    detected = readers.detect_columns(source.columns())
    rename = {name: role for role, name in detected.names.items() if name != role}
    if columns:  # the caller's names win over what was detected
        rename = {name: role for name, role in rename.items() if role not in columns}
        rename.update({name: role for role, name in columns.items() if name != role})
    wanted = {name for t in tasks for name in task_names(t)} if tasks else None
    items: list[Item] = []
    seen: Counter[str] = Counter()
    problems: list[str] = [] if skipped is None else skipped
    for record in source.records():
        index = record.ref
        if record.row is None:
            problems.append(readers.at_row(source.unit, index, record.error))
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
                        item.hypothesis, item.gold, item.raw, item.family)
        items.append(item)
        if limit is not None and len(items) >= limit:
            break
    if not items:
        first = f"; first unreadable: {problems[0]}" if problems else ""
        raise InputError(f"{path}: no items" + (f" of task(s) {', '.join(sorted(wanted))}"
                                                if wanted else "")
                         + f"; {detected.message}{first}. To fix: {readers.fix_hint([])}")
    return items
