"""A self-contained HTML audit report for every family: counts, breakdowns, findings.

``causal-oracle audit DATA --html OUT.html`` writes one file that needs no network
when viewed: the style, the script (``clients.html_page``) and the data are inlined,
charts and graphs are inline SVG.  The page renders the audit's JSON report
(``clients.audit_report``), so its counts are the CLI's and the JSON's:

* **Header** — the source file, the date, the project's version.
* **Summary** — the counts by outcome (the columns the CLI table shows,
  ``clients.audit_table.columns``), per family and per value of each facet the family
  declares (``Family.facets``: Corr2Cause's relation and number of variables, CLadder's
  rung, query type and graph, CLEAR's task, graph and question types, CI-Bench's task,
  IE's kind), the legend in each family's words, bar charts of each facet, and the
  cause classes.
* **Findings** — every disagreement, ambiguous, undetermined, inconsistent, unreadable
  and internal-error row (and the rows whose 3-class relation alone differs), with text,
  outcome, family and cause-class filters and sortable columns.  Clicking a row opens
  its drill-down: the reason (an unreadable row's parse error with its line, column and
  caret), the cause classes, and — re-derived in-process from the input row — its
  drawing in its family's own form (``Family.audit_drawing``: Corr2Cause's class and a
  member; the CLEAR, CI-Bench and IE graph with the deciding path or set highlighted;
  CLadder's graph, estimand, formula, stated numbers, bounds and rule) and explanation.

Drill-downs carry drawings for the first ``MAX_EXPLAINED`` findings so that a
15,000-finding report stays small; the rest show what their record alone draws
(``Family.record_drawing``: Corr2Cause's class from the certificate).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from causal_oracle.clients.audit import read_rows
from causal_oracle.clients.audit_table import HEADS, columns
from causal_oracle.clients.columns import Columns, canonical
from causal_oracle.clients.html_page import bars, counts_table, findings_section, page
from causal_oracle.clients.outputs import atomic_output
from causal_oracle.entry import InputError, default
from causal_oracle.entry.audit_record import Outcome
from causal_oracle.entry.registry import REGISTRY

MAX_EXPLAINED = 500

#: the report's lists of findings, each with the outcome its rows have
_LISTS = (("disagreements", "disagree"), ("ambiguous", "ambiguous"),
          ("undetermined", "undetermined"), ("inconsistent", "inconsistent"),
          ("unreadable", "unreadable"), ("internal_errors", "internal_error"),
          ("three_class_disagreements", "3-class"))


def _facets_text(facets: dict[str, str] | None) -> str:
    return " · ".join(f"{k} {v}" for k, v in (facets or {}).items())


def _oracle(e: dict[str, Any]) -> str:
    if "derived_label" in e:
        return f"{e['derived_label']} ({e['derived_relation']})"
    derived = e.get("derived")
    return derived if isinstance(derived, str) else json.dumps(derived, ensure_ascii=False)


def findings(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every listed row of the report, as the page's findings table shows it."""
    out = []
    for key, outcome in _LISTS:
        for e in data.get(key, []):
            causes = e.get("causes") or []
            reason = e.get("error") if "error" in e else e.get("reason")
            if outcome == "3-class":
                gold, oracle = e.get("gold_relation"), e.get("derived_relation")
            elif "error" in e:
                gold, oracle = None, None
            else:
                gold, oracle = e.get("gold"), _oracle(e)
            out.append({"row": e["row"], "id": e.get("id"), "type": outcome,
                        "family": e.get("family"), "facets": _facets_text(e.get("facets")),
                        "question": e.get("hypothesis") or e.get("task") or "",
                        "gold": gold if isinstance(gold, str | int | None) else
                        json.dumps(gold, ensure_ascii=False), "oracle": oracle,
                        "reason": reason, "causes": [c["kind"] for c in causes],
                        "cause_text": "; ".join(f"{c['kind']}: {c['detail']}"
                                                for c in causes),
                        "fields": e})
    return sorted(out, key=lambda f: f["row"])


def _draw(source: Path | None, cols: Columns, profile: str,
          found: list[dict[str, Any]]) -> None:
    """Add each finding's ``drawing`` (``Service.audit_drawing``), re-reading the input
    rows of the first ``MAX_EXPLAINED`` findings that have a family."""
    wanted: dict[int, dict[str, Any]] = {}
    for f in found:
        if f["family"] is not None and f["type"] not in ("unreadable", "internal_error"):
            wanted.setdefault(f["row"], f)
        if len(wanted) >= MAX_EXPLAINED:
            break
    if source is None or not wanted:
        return _record_drawings(found)
    service = default()
    for index, row in read_rows(source):
        f = wanted.get(index)
        if f is None or isinstance(row, str):
            continue
        try:
            item = service.item(canonical(row, cols.given()))
        except InputError as error:
            f["drawing"] = {"explanation": f"(could not re-read: {error})"}
            continue
        if item is not None:
            f["drawing"] = service.audit_drawing(item, f["fields"], profile).to_json()
    for f in found:  # the same row can be listed twice (a finding and a 3-class swap)
        if "drawing" not in f and wanted.get(f["row"], {}).get("drawing"):
            f["drawing"] = wanted[f["row"]]["drawing"]
    _record_drawings(found)


def _record_drawings(found: list[dict[str, Any]]) -> None:
    """A drawing from its record alone (``Family.record_drawing``) for every finding
    ``_draw`` did not re-derive."""
    for f in found:
        if "drawing" not in f and f["family"] in REGISTRY:
            drawing = REGISTRY.get(f["family"]).record_drawing(f["fields"])
            if drawing.pictures or drawing.facts or drawing.explanation:
                f["drawing"] = drawing.to_json()


def _counts_table(data: dict[str, Any], shown: list[str]) -> str:
    """The counts: overall, per family (several), per facet value (``id``: the
    overall row's cells are ``count-<outcome>``)."""
    rows: list[tuple[str, dict[str, Any], str]] = [("overall", data["summary"], "count")]
    families = data.get("families", {})
    for name, family in families.items():
        if len(families) > 1:
            rows.append((f"family {name}", family["summary"], ""))
        labels = {f.name: f for f in REGISTRY.get(name).facets} if name in REGISTRY else {}
        for facet, values in family["facets"].items():
            rows += [(labels[facet].row_label(value) if facet in labels else
                      f"{facet} {value}", counts, "") for value, counts in values.items()]
    return counts_table([("items", "items")] + [(h, HEADS[Outcome(h)]) for h in shown], rows)


def _legend(families: list[str]) -> str:
    items = []
    for family in REGISTRY:
        if family.name not in families:
            continue
        words = "".join(f"<li><b>{HEADS[o]}</b>: {html.escape(text)}</li>"
                        for o, text in family.legend().items())
        items.append(f"<details open><summary>{html.escape(family.name)}</summary>"
                     f"<ul>{words}</ul></details>")
    return '<div class="legend">' + "".join(items) + "</div>"


def _charts(data: dict[str, Any]) -> str:
    charts = []
    for name, family in data.get("families", {}).items():
        for facet, values in family["facets"].items():
            charts.append(bars(f"{name}: by {facet}", [(v, c) for v, c in values.items()]))
    if data.get("causes"):
        charts.append(bars("Cause classes", [(k, {"disagree": v})
                                             for k, v in data["causes"].items()]))
    return '<div class="charts">' + "".join(charts) + "</div>"


def render_html(data: dict[str, Any], source: Path | None = None,
                cols: Columns | None = None, profile: str = "corr2cause",
                title: str = "causal-oracle audit") -> str:
    """The report as one HTML string (no external resources)."""
    found = findings(data)
    _draw(source, cols or Columns(), profile, found)
    for f in found:
        f.pop("fields")
    families = list(data.get("families", {}))
    shown = [o.value for o in columns(families, data["summary"])]
    s = data["summary"]
    src = data.get("source", {}).get("path") or (str(source) if source else "rows in memory")
    said = ", ".join(f"{s.get(h, 0)} {h.replace('_', ' ')}" for h in shown)
    table = findings_section(
        [("row", "row"), ("family", "family"), ("type", "outcome"), ("facets", "facets"),
         ("question", "question"), ("gold", "gold"), ("oracle", "oracle"),
         ("reason", "reason / error")],
        [("outcome", "type", "every outcome", sorted({f["type"] for f in found})),
         ("family", "family", "every family", families),
         ("cause", "causes", "every cause class",
          sorted({c for f in found for c in f["causes"]}))],
        {"findings": found, "sort": "row"})
    return page(title, src, f"""<p id="overall">{s['items']} items: {html.escape(said)}.
{data.get('certificates_checked', 0)} certificates re-checked.</p>
{_counts_table(data, shown)}
{_legend(families)}
{_charts(data)}
<h2>Findings</h2>
{table}""")


def write_html(data: dict[str, Any], out: Path, *, source: Path | None = None,
               cols: Columns | None = None, profile: str = "corr2cause") -> None:
    page = render_html(data, source, cols, profile)
    with atomic_output(out) as handle:
        handle.write(page)


__all__ = ["MAX_EXPLAINED", "findings", "render_html", "write_html"]
