"""The quick path's answer: agreeing rows counted per group, the rest as records.

Most rows of a good dataset agree with their certified answer, and an audit's report
lists no agreeing row: it only counts them (``entry.audit_summary``).  A family that
answers rows in bulk (``Family.quick_audit``, e.g. Corr2Cause reading a premise's
items off its relation tables) therefore hands back, per group of rows it answered
together, an ``Agreeing`` block — which rows agree, and the counts a summary adds for
them (their facet values, how many carry a 3-class gold relation) — and no
``AuditRecord`` per row.  A surface that does want every record (``audit --records``)
asks the block for them (``Agreeing.records``): each is the record the full path
(``Service.audit_record``) gives that row, built only then.

The rows a family answers otherwise (e.g. Corr2Cause's ambiguous ones) come as
records; ``QuickAudit`` holds both, by position in the chunk of rows it was given.

    >>> from causal_oracle.entry.audit_record import AuditRecord, Outcome
    >>> block = Agreeing("ie", [0, 2], [1, 3], {"task": {"IE": 2}}, 0,
    ...                  lambda k: AuditRecord([1, 3][k], None, Outcome.AGREE, "ie"))
    >>> quick = QuickAudit({}, [block])
    >>> sorted(quick.answered()), [r.row for r in quick.all_records().values()]
    ([0, 2], [1, 3])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from causal_oracle.entry.audit_record import AuditRecord


@dataclass(slots=True)
class Agreeing:
    """Rows of one family that agree with their certified answer, counted.

    ``positions`` (in the chunk of rows the family was given) and ``rows`` (their
    file lines) ascend together; ``facets`` counts the rows per facet name and value
    (each row has every facet, so each facet's counts sum to the rows); ``three_class``
    is how many carry a 3-class gold relation (which, for an agreeing row, is the
    derived one); ``make(i)`` builds the record of ``positions[i]``'s row."""

    family: str
    positions: list[int]
    rows: list[int]
    facets: dict[str, dict[str, int]]
    three_class: int
    make: Callable[[int], AuditRecord]

    def __len__(self) -> int:
        return len(self.positions)

    def records(self) -> list[AuditRecord]:
        """Every row's record, in row order (as the full path gives them)."""
        return [self.make(i) for i in range(len(self.positions))]


@dataclass(slots=True)
class QuickAudit:
    """What a family answered of a chunk of rows: ``records`` by position, and
    ``agreeing`` blocks; any position in neither takes the full path."""

    records: dict[int, AuditRecord] = field(default_factory=dict)
    agreeing: list[Agreeing] = field(default_factory=list)

    def answered(self) -> set[int]:
        """The positions answered here (records and blocks)."""
        out = set(self.records)
        for block in self.agreeing:
            out.update(block.positions)
        return out

    def all_records(self) -> dict[int, AuditRecord]:
        """Every answered position's record, the blocks' built now."""
        out = dict(self.records)
        for block in self.agreeing:
            out.update(zip(block.positions, block.records(), strict=True))
        return out

    def update(self, other: QuickAudit) -> None:
        """Add ``other``'s answers for the positions not answered here yet (a later
        family's; its blocks are kept whole when they answer only such positions)."""
        taken = self.answered()
        for block in other.agreeing:
            if taken.isdisjoint(block.positions):
                self.agreeing.append(block)
                taken.update(block.positions)
            else:
                for position, record in zip(block.positions, block.records(), strict=True):
                    if position not in taken:
                        self.records[position] = record
                        taken.add(position)
        for position, record in other.records.items():
            if position not in taken:
                self.records[position] = record
                taken.add(position)


__all__ = ["Agreeing", "QuickAudit"]
