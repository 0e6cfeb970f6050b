"""Corrected datasets: the input rows, in the input's own layout, with the oracle's labels.

``causal-oracle audit DATA --write-corrected OUT`` writes every row of ``DATA``
back in the same format (JSONL stays JSONL with the same keys; CSV keeps its
columns, e.g. the published ``input``/``label`` layout), with

* the binary ``label`` replaced by the oracle's where they disagree (the value
  keeps its type: ``1``/``0`` in JSON, ``"1"``/``"0"`` in CSV, ``true``/``false``
  stays boolean);
* the 3-class ``relation`` replaced where present and different;
* one added column, ``oracle_change``, saying what changed ("" when nothing),
  e.g. ``"label 1→0; relation entailment→neutral (over_claimed_entailment)"``;
* items on an inconsistent premise dropped (``inconsistent="drop"``, default) or
  kept with an empty label and ``oracle_change`` starting "inconsistent:"
  (``inconsistent="flag"``).  Unreadable rows (and rows the oracle failed on),
  ambiguous and undetermined items are copied unchanged and flagged with the reason:
  their gold is not shown wrong, so it is not replaced.

It reads only the audit report and the input: no reasoning happens here.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from causal_oracle.clients.audit import read_rows
from causal_oracle.clients.outputs import atomic_output
from causal_oracle.clients.row_audit import Columns

CHANGE_COLUMN = "oracle_change"


def _same_type(old: object, new: int) -> object:
    if isinstance(old, bool):
        return bool(new)
    if isinstance(old, str):
        if old.strip().lower() in ("true", "false"):
            return "true" if new else "false"
        return str(new)
    return new


def _changes(report: dict[str, Any]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for e in report["disagreements"]:
        if "derived_label" not in e:  # task items have no label column to correct
            continue
        out[e["row"]] = {"label": e["derived_label"], "relation": e["derived_relation"],
                         "old_label": e["gold"], "causes": e.get("causes") or []}
    for e in report.get("three_class_disagreements", []):
        out[e["row"]] = {"relation": e["derived_relation"], "causes": e.get("causes") or []}
    for e in report["inconsistent"]:
        out[e["row"]] = {"inconsistent": e["reason"]}
    for kind in ("ambiguous", "undetermined"):
        for e in report.get(kind, []):
            out[e["row"]] = {"flag": f"{kind}: {e.get('reason')}"}
    for e in report["unreadable"]:
        out[e["row"]] = {"flag": f"unreadable: {e['error']}"}
    for e in report.get("internal_errors", []):
        out[e["row"]] = {"flag": e["error"]}  # it starts "internal error: "
    return out


FLAGS = ("inconsistent:", "unreadable:", "ambiguous:", "undetermined:", "internal error:")


def _apply(row: dict[str, Any], change: dict[str, Any] | None, cols: Columns,
           inconsistent: str) -> dict[str, Any] | None:
    out = dict(row)
    notes: list[str] = []
    if change is None:
        out[CHANGE_COLUMN] = ""
        return out
    if "flag" in change:
        out[CHANGE_COLUMN] = change["flag"]
        return out
    if "inconsistent" in change:
        if inconsistent == "drop":
            return None
        out[cols.label] = ""
        if cols.relation in out:
            out[cols.relation] = "inconsistent"
        out[CHANGE_COLUMN] = f"inconsistent: {change['inconsistent']}"
        return out
    if "label" in change and cols.label in out:
        old = out[cols.label]
        out[cols.label] = _same_type(old, change["label"])
        notes.append(f"label {change['old_label']}→{change['label']}")
    if cols.relation in out and out[cols.relation] != change["relation"]:
        notes.append(f"relation {out[cols.relation]}→{change['relation']}")
        out[cols.relation] = change["relation"]
    kinds = ", ".join(c["kind"] for c in change["causes"])
    out[CHANGE_COLUMN] = "; ".join(notes) + (f" ({kinds})" if kinds else "")
    return out


def write_corrected(source: Path, report: dict[str, Any], out: Path, *,
                    cols: Columns | None = None, inconsistent: str = "drop") -> dict[str, int]:
    """Write the corrected copy; returns ``{"rows", "changed", "dropped", "flagged"}``."""
    if inconsistent not in ("drop", "flag"):
        raise ValueError(f"inconsistent must be 'drop' or 'flag', not {inconsistent!r}")
    cols = cols or Columns()
    changes = _changes(report)
    counts = {"rows": 0, "changed": 0, "dropped": 0, "flagged": 0}

    def rows() -> Any:
        for index, row in read_rows(source, named=False):
            if isinstance(row, str):  # an unreadable JSON line: keep its index, write nothing
                counts["dropped"] += 1
                continue
            fixed = _apply(row, changes.get(index), cols, inconsistent)
            if fixed is None:
                counts["dropped"] += 1
                continue
            counts["rows"] += 1
            if fixed[CHANGE_COLUMN]:
                counts["flagged" if fixed[CHANGE_COLUMN].startswith(FLAGS)
                       else "changed"] += 1
            yield fixed

    if source.suffix.lower() == ".csv":
        with source.open(newline="", encoding="utf-8") as handle:
            fields = list(csv.DictReader(handle).fieldnames or [])
        with atomic_output(out, newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=[*fields, CHANGE_COLUMN])
            writer.writeheader()
            for row in rows():
                writer.writerow(row)
    else:
        with atomic_output(out) as handle:
            for row in rows():
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return counts
