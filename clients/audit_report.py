"""The audit report: the audit's records summed up once, and that summary as JSON.

Input is any source ``clients.readers`` reads (JSONL, JSON arrays, CSV/TSV, the IE
``|`` templates, Parquet, ``datasets`` directories) with either
``premise``/``hypothesis``/``label`` fields (the upstream generator's files), the
published ``input``/``label`` layout (``"Premise: …\\nHypothesis: …"``) or task rows
(``task``/``prompt``); column names can be given or are auto-detected.  A row is
referenced by its 1-based file line (record number for binary formats).  The rows are
audited by ``clients.row_audit`` into ``AuditRecord``s (``entry.audit_record``: one
outcome each); this module adds them to one ``Summary`` (``entry.audit_summary``) and
writes it.  Every other surface — the table (``clients.audit_table``), the gate and
JUnit (``clients.gate``), the corrected data (``clients.corrected``), the HTML page
(``clients.html_report``) — renders this JSON or the records behind it, so they all
show the same counts.

Report contract (``OUT.json``), relied on by scripts:

* ``summary``: ``{items, agree, disagree, ambiguous, undetermined, inconsistent,
  unreadable, internal_error, answered}`` (``answered``: rows without gold, whose answer is
  in no list) — each item has exactly one outcome, so they sum to
  ``items`` (+ ``undetermined_reasons``: ``{reason: count}`` when there are undetermined
  items);
* ``disagreements``: ``{row, id, hypothesis, gold, derived_label,
  derived_relation, class_size, holds_in, certificate_checked}`` per disagreeing row
  (plus ``gold_relation``, ``relation_kind``, ``num_nodes``, ``causes`` and the
  ``certificate``); a task family's rows: ``{row, id, task, gold, derived,
  certificate_checked, reason}`` (+ ``causes`` and ``answer`` where the family explains
  them, e.g. CLadder);
* ``ambiguous`` and ``undetermined``: the rows with that outcome, in the same form as a
  disagreement, with their ``reason``;
* ``three_class_disagreements``: rows whose binary label agrees with gold but whose
  3-class relation does not (``{row, id, hypothesis, gold_relation,
  derived_relation, class_size, holds_in, certificate_checked, causes}``);
* ``causes``: how many records have each cause (``oracle.causes``), and each
  listed row its ``causes``;
* ``inconsistent``: ``[{row, id, reason, num_nodes, causes}]``; ``unreadable``:
  ``[{row, id, error}]`` (the error with line, column and caret when located);
  ``internal_errors``: ``[{row, id, error}]``; every listed row also names its
  ``family`` (None for a line no family could read) and, but for the unreadable, its
  ``facets``;
* ``source``: ``{path, format, unit, columns, layout, detected}`` — what was read and how;
* ``families``: per family ``{summary, facets: {facet: {value: counts}}, rows}`` (``rows``:
  the ``[first, last]`` runs of rows it read), the facets being those the family
  declares (``Family.facets``);
* also the ``three_class``, ``by_relation``, ``by_num_nodes``, ``by_task`` breakdowns
  (the facets that declare those keys), ``certificates_checked``, ``forced_edges``,
  ``seconds``.

Changed in the one-record report: ``summary`` (and every breakdown) counts ambiguous
items apart from agree/disagree, and gains ``undetermined`` and ``internal_error``
(``undetermined`` was a ``{reason: count}`` dict, now ``undetermined_reasons``); an
ambiguous row is listed under ``ambiguous``, no longer under ``disagreements``; an
internal error is under ``internal_errors``, no longer under ``unreadable``; listed rows
gained ``family`` and ``facets``; the report gained ``families``, ``ambiguous``,
``undetermined`` and ``internal_errors``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from causal_oracle.clients.audit_table import summary_table
from causal_oracle.entry.audit_quick import Agreeing
from causal_oracle.entry.audit_record import AuditRecord, Outcome
from causal_oracle.entry.audit_summary import Counts, Summary
from causal_oracle.entry.registry import REGISTRY

_CORR2CAUSE_KEYS = ("row", "id", "hypothesis", "gold", "derived_label", "derived_relation",
                    "class_size", "holds_in", "certificate_checked", "gold_relation",
                    "relation_kind", "num_nodes", "causes", "certificate")
_TASK_KEYS = ("row", "id", "task", "gold", "derived", "certificate_checked", "reason")
_THREE_CLASS_KEYS = ("row", "id", "hypothesis", "gold_relation", "derived_relation",
                     "class_size", "holds_in", "certificate_checked", "causes")


def finding_entry(record: AuditRecord) -> dict[str, Any]:
    """A listed row of the report (a disagreement, an ambiguous or undetermined row) in
    its family's form — a labelled row's fields (``derived_label``) or a task row's —
    with its ``family`` and ``facets``."""
    fields = {**record.fields, "row": record.row, "id": record.id}
    if "derived_label" in fields:
        entry = {k: fields.get(k) for k in _CORR2CAUSE_KEYS}
    else:
        entry = {k: fields.get(k) for k in _TASK_KEYS}
        for extra in ("causes", "answer"):  # families that explain them (CLadder)
            if extra in fields:
                entry[extra] = fields[extra]
    entry.update(family=record.family, facets=record.facets)
    return entry


def _error_entry(record: AuditRecord) -> dict[str, Any]:
    return {"row": record.row, "id": record.id, "error": record.reason,
            "family": record.family}


def _with_reason(record: AuditRecord) -> dict[str, Any]:
    return {**finding_entry(record), "reason": record.reason}


def _natural(item: tuple[str, Any]) -> tuple[int, int, str]:
    key = item[0]
    return (0, int(key), "") if key.isdigit() else (1, 0, key)


@dataclass
class AuditReport:
    """An audit's summary (``totals``), where its rows came from and how long it took."""

    totals: Summary = field(default_factory=Summary)
    source: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, record: AuditRecord) -> None:
        self.totals.add(record)

    def add_agreeing(self, block: Agreeing) -> None:
        """Count a quick path's agreeing rows (``entry.audit_quick``)."""
        self.totals.add_agreeing(block)

    def merge(self, other: AuditReport) -> None:
        """Add a worker's partial report (its rows are already file lines)."""
        self.totals.merge(other.totals)

    # -- what the surfaces read
    @property
    def summary(self) -> Counts:
        return self.totals.overall

    @property
    def certificates_checked(self) -> int:
        return self.totals.certificates_checked

    @property
    def in_process(self) -> int:
        """Rows a remote audit (``--server``) computed in-process."""
        return self.totals.in_process

    @in_process.setter
    def in_process(self, rows: int) -> None:
        self.totals.in_process = rows

    @property
    def three_class(self) -> dict[str, int]:
        return self.totals.three_class

    @property
    def causes(self) -> dict[str, int]:
        return self.totals.causes

    @property
    def findings(self) -> list[AuditRecord]:
        return self.totals.findings

    @property
    def disagreements(self) -> list[dict[str, Any]]:
        return [finding_entry(r) for r in self.totals.of(Outcome.DISAGREE)]

    @property
    def inconsistent(self) -> list[dict[str, Any]]:
        return [{"row": r.row, "id": r.id, "reason": r.reason,
                 "num_nodes": r.fields.get("num_nodes"), "causes": r.causes,
                 "family": r.family, "facets": r.facets}
                for r in self.totals.of(Outcome.INCONSISTENT)]

    @property
    def unreadable(self) -> list[dict[str, Any]]:
        return [_error_entry(r) for r in self.totals.of(Outcome.UNREADABLE)]

    @property
    def internal_errors(self) -> list[dict[str, Any]]:
        return [_error_entry(r) for r in self.totals.of(Outcome.INTERNAL_ERROR)]

    @property
    def three_class_disagreements(self) -> list[dict[str, Any]]:
        return [{**{k: {**r.fields, "row": r.row, "id": r.id}.get(k)
                    for k in _THREE_CLASS_KEYS}, "family": r.family, "facets": r.facets}
                for r in self.totals.three_class_findings]

    def breakdowns(self) -> dict[str, dict[str, Counts]]:
        """The legacy breakdowns (``by_relation``, ``by_num_nodes``, ``by_task``): the
        facets whose ``Facet.report_key`` names them, merged across families."""
        out: dict[str, dict[str, Counts]] = {"by_relation": {}, "by_num_nodes": {},
                                              "by_task": {}}
        for name, family in self.totals.families.items():
            for facet in _facets(name):
                if facet.report_key is None:
                    continue
                into = out.setdefault(facet.report_key, {})
                for value, counts in family.facets.get(facet.name, {}).items():
                    into.setdefault(value, Counts()).merge(counts)
        return out

    def to_json(self) -> dict[str, Any]:
        t = self.totals
        return {
            "summary": t.overall.to_json(),
            "source": self.source,
            "three_class": t.three_class,
            **{key: {k: v.to_json() for k, v in sorted(values.items(), key=_natural)}
               for key, values in self.breakdowns().items()},
            "families": {name: {
                "summary": f.counts.to_json(),
                "facets": {facet: {k: v.to_json() for k, v in sorted(values.items(),
                                                                      key=_natural)}
                           for facet, values in f.facets.items()},
                "rows": f.rows} for name, f in sorted(t.families.items())},
            "causes": dict(sorted(t.causes.items())),
            "certificates_checked": t.certificates_checked,
            "forced_edges": {**t.forced_edges, "wrong_rows": t.forced_edges_wrong},
            **({"in_process_rows": t.in_process} if t.in_process else {}),
            "seconds": round(self.seconds, 3),
            "disagreements": self.disagreements,
            "ambiguous": [_with_reason(r) for r in t.of(Outcome.AMBIGUOUS)],
            "undetermined": [_with_reason(r) for r in t.of(Outcome.UNDETERMINED)],
            "three_class_disagreements": self.three_class_disagreements,
            "inconsistent": self.inconsistent,
            "unreadable": self.unreadable,
            "internal_errors": self.internal_errors,
        }


def _facets(family: str) -> Iterator[Any]:
    """The facets ``family`` declares (none when it is not registered here)."""
    if family in REGISTRY:
        yield from REGISTRY.get(family).facets


__all__ = ["AuditReport", "finding_entry", "summary_table"]
