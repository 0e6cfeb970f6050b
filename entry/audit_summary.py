"""One summary of an audit, computed from its records and nothing else.

Every surface of an audit — the CLI table, the JSON report, the gate's message, JUnit,
the baseline diff, the corrected-data writer and the HTML page — shows the counts of
one ``Summary``.  It is built by adding ``AuditRecord``s (``entry.audit_record``) one at
a time, by counting a quick path's agreeing rows a block at a time
(``entry.audit_quick.Agreeing``: the counts their records would add), or by merging
the summaries of worker processes:

* ``overall`` — a ``Counts``: items and how many have each ``Outcome`` (exclusive, so
  they sum to items), plus the reasons of the undetermined ones;
* ``families`` — per family: its ``Counts``, the rows it read (as ranges), and a
  ``Counts`` per value of each facet its records carry (``Family.facets``; a row its
  family could not read has no facet values, so it counts in its family only);
* ``causes`` — how many records have each cause class (``oracle.causes``, the CLadder
  and CLEAR cause classes alike);
* ``findings`` — every record whose outcome is not ``agree`` or ``answered``, in the order added
  (rows are file lines, so a merged summary is sorted by row);
* two Corr2Cause-style checks read off the record's fields, not its family: the
  3-class relation against a gold ``relation`` column (``three_class``,
  ``three_class_findings``: agreeing rows whose relation differs) and a
  ``forced_edges`` column against the CPDAG's directed edges.

    >>> from causal_oracle.entry.audit_record import record_of
    >>> s = Summary()
    >>> s.add(record_of("ie", {"task": "IE"}, 1, None, {"agree": True}))
    >>> s.add(record_of("ie", {"task": "IE"}, 2, None, {"agree": False}))
    >>> s.overall.to_json()["disagree"], s.overall.items, len(s.findings)
    (1, 2, 1)
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

from causal_oracle.entry.audit_quick import Agreeing
from causal_oracle.entry.audit_record import AuditRecord, Outcome

RELATIONS = ("entailment", "neutral", "contradiction")
_OUTCOMES = tuple(Outcome)  # iterating the enum class itself is slow, and done per Counts
_NOT_FINDINGS = (Outcome.AGREE, Outcome.ANSWERED)


@dataclass
class Counts:
    """Items and their outcomes (exclusive: ``sum(counts.values()) == items``)."""

    items: int = 0
    counts: dict[Outcome, int] = field(default_factory=lambda: dict.fromkeys(_OUTCOMES, 0))
    #: undetermined items by reason (e.g. CLadder's ``not identifiable``)
    reasons: dict[str, int] = field(default_factory=dict)

    def __getitem__(self, outcome: Outcome) -> int:
        return self.counts[outcome]

    # each outcome's count by name (``report.summary.disagree``)
    @property
    def agree(self) -> int:
        return self.counts[Outcome.AGREE]

    @property
    def disagree(self) -> int:
        return self.counts[Outcome.DISAGREE]

    @property
    def ambiguous(self) -> int:
        return self.counts[Outcome.AMBIGUOUS]

    @property
    def undetermined(self) -> int:
        return self.counts[Outcome.UNDETERMINED]

    @property
    def inconsistent(self) -> int:
        return self.counts[Outcome.INCONSISTENT]

    @property
    def unreadable(self) -> int:
        return self.counts[Outcome.UNREADABLE]

    @property
    def internal_error(self) -> int:
        return self.counts[Outcome.INTERNAL_ERROR]

    @property
    def answered(self) -> int:
        return self.counts[Outcome.ANSWERED]

    def add(self, record: AuditRecord) -> None:
        self.items += 1
        self.counts[record.outcome] += 1
        if record.outcome is Outcome.UNDETERMINED:
            reason = str(record.reason)
            self.reasons[reason] = self.reasons.get(reason, 0) + 1

    def add_agreeing(self, rows: int) -> None:
        """Count ``rows`` more agreeing items."""
        self.items += rows
        self.counts[Outcome.AGREE] += rows

    def merge(self, other: Counts) -> None:
        self.items += other.items
        for outcome, count in other.counts.items():
            self.counts[outcome] += count
        for reason, count in other.reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + count

    def to_json(self) -> dict[str, Any]:
        """``{items, agree, disagree, ambiguous, undetermined, inconsistent, unreadable,
        internal_error, answered}`` (+ ``undetermined_reasons`` when there are undetermined
        items)."""
        out: dict[str, Any] = {"items": self.items,
                               **{o.value: self.counts[o] for o in Outcome}}
        if self.reasons:
            out["undetermined_reasons"] = dict(sorted(self.reasons.items()))
        return out


@dataclass
class FamilySummary:
    """One family's share of an audit."""

    counts: Counts = field(default_factory=Counts)
    #: facet name → facet value → counts
    facets: dict[str, dict[str, Counts]] = field(default_factory=dict)
    #: the rows it read, as [first, last] runs of consecutive records
    rows: list[list[int]] = field(default_factory=list)

    def add(self, record: AuditRecord) -> None:
        self.counts.add(record)
        for name, value in record.facets.items():
            values = self.facets.setdefault(name, {})
            counts = values.get(value)
            if counts is None:
                counts = values[value] = Counts()
            counts.add(record)
        self.add_run(record.row, record.row)

    def add_run(self, first: int, last: int) -> None:
        """Add the rows ``first``…``last`` to ``rows`` (kept sorted, consecutive runs
        joined, whatever order rows come in: a quick path counts a group's agreeing
        rows before the full path adds the rows between them)."""
        rows = self.rows
        if not rows or rows[-1][1] < first - 1:
            rows.append([first, last])
        elif rows[-1][0] <= first:  # the usual case: it joins or lies in the last run
            if rows[-1][1] < last:
                rows[-1][1] = last
        else:
            at = bisect.bisect_left(rows, first, key=lambda run: run[1] + 1)
            rows.insert(at, [first, last])
            # every run before ``at`` ends before first - 1; join those after it that
            # touch or overlap it
            while at + 1 < len(rows) and rows[at + 1][0] <= rows[at][1] + 1:
                rows[at][0] = min(rows[at][0], rows[at + 1][0])
                rows[at][1] = max(rows[at][1], rows[at + 1][1])
                del rows[at + 1]

    def add_agreeing(self, block: Agreeing) -> None:
        """Count a quick path's agreeing rows (``entry.audit_quick``)."""
        k = len(block)
        self.counts.add_agreeing(k)
        for name, values in block.facets.items():
            mine = self.facets.setdefault(name, {})
            for value, count in values.items():
                counts = mine.get(value)
                if counts is None:
                    counts = mine[value] = Counts()
                counts.add_agreeing(count)
        rows = block.rows
        if rows[-1] - rows[0] == k - 1:  # consecutive lines: one run
            self.add_run(rows[0], rows[-1])
            return
        first = last = rows[0]
        for row in rows:
            if row > last + 1:
                self.add_run(first, last)
                first = row
            last = row
        self.add_run(first, last)

    def merge(self, other: FamilySummary) -> None:
        self.counts.merge(other.counts)
        for name, values in other.facets.items():
            mine = self.facets.setdefault(name, {})
            for value, counts in values.items():
                mine.setdefault(value, Counts()).merge(counts)
        for first, last in other.rows:
            self.add_run(first, last)


def cause_name(cause: dict[str, Any]) -> str:
    """A cause class as the report counts it (an inconsistent premise's with its detail)."""
    if cause["kind"] == "premise_inconsistent":
        return f"premise_inconsistent ({cause['detail']})"
    return str(cause["kind"])


@dataclass
class Summary:
    """The summary of an audit (see the module docstring)."""

    overall: Counts = field(default_factory=Counts)
    families: dict[str, FamilySummary] = field(default_factory=dict)
    causes: dict[str, int] = field(default_factory=dict)
    findings: list[AuditRecord] = field(default_factory=list)
    certificates_checked: int = 0
    three_class: dict[str, int] = field(default_factory=lambda: {"agree": 0, "disagree": 0})
    three_class_findings: list[AuditRecord] = field(default_factory=list)
    forced_edges: dict[str, int] = field(default_factory=lambda: {"checked": 0, "wrong": 0})
    forced_edges_wrong: list[dict[str, Any]] = field(default_factory=list)
    #: rows a remote audit computed in-process (families the server does not audit)
    in_process: int = 0

    def add(self, record: AuditRecord) -> None:
        self.overall.add(record)
        if record.family is not None:
            family = self.families.get(record.family)
            if family is None:
                family = self.families[record.family] = FamilySummary()
            family.add(record)
        if record.outcome not in _NOT_FINDINGS:
            self.findings.append(record)
        self.certificates_checked += record.checked
        for cause in record.causes:
            name = cause_name(cause)
            self.causes[name] = self.causes.get(name, 0) + 1
        fields = record.fields
        if not fields:
            return
        self.in_process += bool(fields.get("in_process"))
        if "forced_edges_ok" in fields:
            self.forced_edges["checked"] += 1
            if not fields["forced_edges_ok"]:
                self.forced_edges["wrong"] += 1
                self.forced_edges_wrong.append({"row": record.row, "id": record.id,
                                                "cpdag_directed": fields["compelled_edges"]})
        if record.outcome is not Outcome.INCONSISTENT and \
                fields.get("gold_relation") in RELATIONS and "derived_relation" in fields:
            same = fields["gold_relation"] == fields["derived_relation"]
            self.three_class["agree" if same else "disagree"] += 1
            if not same and fields.get("derived_label") == fields.get("gold"):
                self.three_class_findings.append(record)

    def add_agreeing(self, block: Agreeing) -> None:
        """Count a quick path's agreeing rows (``entry.audit_quick``): what ``add`` of
        each of their records would count (agree, certificate checked, no cause, and
        a 3-class agreement for each row with a gold relation)."""
        k = len(block)
        if not k:
            return
        self.overall.add_agreeing(k)
        family = self.families.get(block.family)
        if family is None:
            family = self.families[block.family] = FamilySummary()
        family.add_agreeing(block)
        self.certificates_checked += k
        self.three_class["agree"] += block.three_class

    def merge(self, other: Summary) -> None:
        """Add a worker's summary (its rows are file lines: nothing to renumber)."""
        self.overall.merge(other.overall)
        for name, family in other.families.items():
            self.families.setdefault(name, FamilySummary()).merge(family)
        for name, count in other.causes.items():
            self.causes[name] = self.causes.get(name, 0) + count
        self.findings += other.findings
        self.certificates_checked += other.certificates_checked
        for key in self.three_class:
            self.three_class[key] += other.three_class[key]
        self.three_class_findings += other.three_class_findings
        for key in self.forced_edges:
            self.forced_edges[key] += other.forced_edges[key]
        self.forced_edges_wrong += other.forced_edges_wrong
        self.in_process += other.in_process

    def of(self, outcome: Outcome) -> list[AuditRecord]:
        """The findings with ``outcome``, in row order."""
        return [r for r in self.findings if r.outcome is outcome]


__all__ = ["RELATIONS", "Counts", "FamilySummary", "Summary", "cause_name"]
