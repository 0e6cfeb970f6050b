"""Audit as a CI gate: fail on chosen findings, JUnit XML, and a diff against a baseline.

A generator author runs ``causal-oracle audit DATA --fail-on ...`` in CI.  The
gate turns an audit report (``clients.audit_report.AuditReport.to_json()``) into

* an exit status — ``exits.EXIT_GATE`` (3) when any selected finding is present:
  ``disagree`` (a gold the oracle rejects), ``ambiguous``, ``undetermined``,
  ``inconsistent`` (a premise no model fits), ``unreadable`` (a row that cannot be
  read, or one the oracle failed on: an internal error), ``new`` (a disagreement
  absent from the baseline) — counted from the report's one summary, so the message
  says what the table shows;
* a JUnit XML file with one test case per item, its class the item's family: a
  disagreement or an inconsistent premise is a failure carrying the reason (cause
  classes and the oracle's verdict), an unreadable row or internal error an error, an
  ambiguous or undetermined item skipped with its reason;
* a baseline comparison: disagreements keyed by item id (row number and
  hypothesis when there is no id) split into *new*, *fixed* and *unchanged*.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from causal_oracle.clients.outputs import atomic_output
from causal_oracle.entry import InputError


class Finding(enum.Enum):
    DISAGREE = "disagree"
    AMBIGUOUS = "ambiguous"
    UNDETERMINED = "undetermined"
    INCONSISTENT = "inconsistent"
    UNREADABLE = "unreadable"
    NEW = "new"


def parse_fail_on(text: str) -> frozenset[Finding]:
    """``"disagree,new"`` → the findings; bad names are an ``InputError``."""
    out = set()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            out.add(Finding(part))
        except ValueError:
            raise InputError(f"--fail-on: unknown finding {part!r}; expected a comma-separated "
                             f"list of {', '.join(f.value for f in Finding)}") from None
    return frozenset(out)


def item_key(entry: dict[str, Any]) -> str:
    """The identity of a finding across runs: its id, else row number and hypothesis."""
    if entry.get("id") is not None:
        return str(entry["id"])
    return f"row {entry['row']}: {entry.get('hypothesis', '')}"


def compare_baseline(report: dict[str, Any], baseline_path: Path) -> dict[str, Any]:
    """``{"baseline", "new", "fixed", "unchanged"}`` (lists of keys) for disagreements."""
    try:
        old = json.loads(baseline_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"--baseline: no such file: {baseline_path}") from None
    except json.JSONDecodeError as error:
        raise InputError(f"--baseline {baseline_path}: line {error.lineno}, column "
                         f"{error.colno}: invalid JSON: {error.msg}") from None
    except UnicodeDecodeError as error:
        raise InputError(f"--baseline {baseline_path}: byte {error.start}: not UTF-8 "
                         "text") from None
    except RecursionError:
        raise InputError(f"--baseline {baseline_path}: JSON nested too deeply") from None
    if not isinstance(old, dict) or not isinstance(old.get("disagreements"), list):
        raise InputError(f"--baseline {baseline_path}: not an audit report (no "
                         f"'disagreements' list)")
    before = {item_key(e) for e in old["disagreements"]}
    now = [item_key(e) for e in report["disagreements"]]
    now_set = set(now)
    return {"baseline": str(baseline_path),
            "new": [k for k in now if k not in before],
            "fixed": sorted(before - now_set),
            "unchanged": [k for k in now if k in before]}


def triggered(report: dict[str, Any], fail_on: frozenset[Finding]) -> list[str]:
    """Human-readable reasons the gate fails (empty: it passes)."""
    reasons = []
    s = report["summary"]
    if Finding.DISAGREE in fail_on and s["disagree"]:
        reasons.append(f"{s['disagree']} disagreement(s)")
    if Finding.AMBIGUOUS in fail_on and s["ambiguous"]:
        reasons.append(f"{s['ambiguous']} ambiguous item(s)")
    if Finding.UNDETERMINED in fail_on and s["undetermined"]:
        reasons.append(f"{s['undetermined']} undetermined item(s)")
    if Finding.INCONSISTENT in fail_on and s["inconsistent"]:
        reasons.append(f"{s['inconsistent']} item(s) on inconsistent premises")
    if Finding.UNREADABLE in fail_on and s["unreadable"]:
        reasons.append(f"{s['unreadable']} unreadable row(s)")
    if Finding.UNREADABLE in fail_on and s["internal_error"]:
        reasons.append(f"{s['internal_error']} row(s) the oracle failed on (internal error)")
    if Finding.NEW in fail_on:
        if "baseline_diff" not in report:
            raise InputError("--fail-on new needs --baseline OLD.json")
        new = report["baseline_diff"]["new"]
        if new:
            reasons.append(f"{len(new)} new disagreement(s) since the baseline")
    return reasons


def _causes(entry: dict[str, Any]) -> str:
    return "; ".join(f"{c['kind']}: {c['detail']}" for c in entry.get("causes") or [])


def _failure(e: dict[str, Any]) -> tuple[str, str]:
    """A disagreement's JUnit message and detail, in its family's form."""
    if "derived_label" not in e:  # a task family's row
        return (f"{e.get('task')}: the gold answer differs from the oracle's",
                json.dumps({"gold": e.get("gold"), "oracle": e.get("derived")},
                           ensure_ascii=False))
    return (f"gold {e['gold']}, oracle {e['derived_label']} ({e['derived_relation']}, holds "
            f"in {e['holds_in']} of {e['class_size']})", _causes(e))


def _families(report: dict[str, Any]) -> dict[int, str]:
    """Each row's family, from the report's ``families`` row runs."""
    out: dict[int, str] = {}
    for name, family in report.get("families", {}).items():
        for first, last in family["rows"]:
            for row in range(first, last + 1):
                out[row] = name
    return out


def write_junit(report: dict[str, Any], out: Path, rows: list[tuple[int, Any]],
                suite: str = "causal-oracle audit") -> None:
    """One ``testcase`` per item of ``rows``: ``(row reference, id)`` in input order, the
    reference as the report writes it (1-based file line, or record number); its
    ``classname`` is the item's family."""
    failures: dict[int, tuple[str, str, str]] = {}
    for e in report["disagreements"]:
        failures[e["row"]] = ("disagreement", *_failure(e))
    for e in report["inconsistent"]:
        failures[e["row"]] = ("inconsistent", "the premise fits no model", e["reason"])
    skipped = {e["row"]: f"{kind}: {e.get('reason')}"
               for kind in ("ambiguous", "undetermined") for e in report.get(kind, [])}
    errors = {e["row"]: ("unreadable", e["error"]) for e in report["unreadable"]}
    errors.update({e["row"]: ("internal_error", e["error"])
                   for e in report.get("internal_errors", [])})
    families = _families(report)
    total = report["summary"]["items"]
    root = ET.Element("testsuite", name=suite, tests=str(total), failures=str(len(failures)),
                      errors=str(len(errors)), skipped=str(len(skipped)),
                      time=str(report.get("seconds", 0)))
    unit = report.get("source", {}).get("unit", "row")
    for row, rid in rows:
        name = f"{unit} {row}" + (f" {rid}" if rid is not None else "")
        case = ET.SubElement(root, "testcase", classname=families.get(row, "unread"),
                             name=name)
        if row in failures:
            kind, message, detail = failures[row]
            node = ET.SubElement(case, "failure", type=kind, message=message)
            node.text = detail
        elif row in errors:
            kind, error = errors[row]
            ET.SubElement(case, "error", type=kind, message=error)
        elif row in skipped:
            ET.SubElement(case, "skipped", message=skipped[row])
    with atomic_output(out, "wb") as handle:
        ET.ElementTree(root).write(handle, encoding="utf-8", xml_declaration=True)


def gate_lines(report: dict[str, Any]) -> list[str]:
    """What the CLI prints about the baseline comparison."""
    diff = report.get("baseline_diff")
    if not diff:
        return []
    lines = [f"baseline {diff['baseline']}: {len(diff['new'])} new, {len(diff['fixed'])} "
             f"fixed, {len(diff['unchanged'])} unchanged disagreement(s)"]
    for key in diff["new"][:10]:
        lines.append(f"  new: {key}")
    for key in diff["fixed"][:10]:
        lines.append(f"  fixed: {key}")
    return lines
