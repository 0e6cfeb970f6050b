"""The quick path's counted agreeing rows add what their records would.

A quick path hands back agreeing rows as ``Agreeing`` blocks (``entry.audit_quick``),
counted by ``Summary.add_agreeing`` with no record per row.  Here: the summary built
from blocks equals the one built by adding every row's record in row order, rows come
out as the same runs whatever order they are added in, and ``--records`` (a sink)
still receives every row's record.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from conftest import load_rows

from causal_oracle.clients.audit import _work, audit_rows, run_audit
from causal_oracle.clients.audit_report import AuditReport
from causal_oracle.clients.row_audit import DEFAULT_COLUMNS
from causal_oracle.entry.audit_summary import FamilySummary


def _by_records(rows: list[tuple[int, dict[str, object] | str]]) -> AuditReport:
    """The report built the slow way: every row's record, added in row order."""
    report = AuditReport()
    for record in _work((rows, DEFAULT_COLUMNS, "corr2cause")).every_record():
        report.add(record)
    return report


def test_blocks_count_what_their_records_would() -> None:
    rows: list[tuple[int, dict[str, object] | str]] = list(enumerate(load_rows("n4"), 1))
    rows.insert(40, (41, "line 41: not JSON"))  # an unreadable row inside a premise's run
    rows = [(i, row) for i, (_, row) in enumerate(rows, 1)]
    audited = _work((rows, DEFAULT_COLUMNS, "corr2cause"))
    assert audited.agreeing and sum(len(b) for b in audited.agreeing) > len(rows) // 2
    quick = AuditReport()
    audited.add_to(quick)
    slow = _by_records(rows)
    assert quick.to_json() == slow.to_json()
    assert quick.totals.families["corr2cause"].rows == [[1, 40], [42, len(rows)]]
    every = audited.every_record()
    assert [r.row for r in every] == [i for i, _ in rows]


def test_rows_make_the_same_runs_in_any_order() -> None:
    rng = random.Random(7)
    for _ in range(200):
        rows = sorted(rng.sample(range(1, 60), rng.randint(1, 40)))
        ordered, shuffled = FamilySummary(), FamilySummary()
        for row in rows:
            ordered.add_run(row, row)
        runs = []
        i = 0
        while i < len(rows):  # cut into random consecutive pieces, added out of order
            j = i + 1
            while j < len(rows) and rows[j] == rows[j - 1] + 1 and rng.random() < 0.7:
                j += 1
            runs.append((rows[i], rows[j - 1]))
            i = j
        rng.shuffle(runs)
        for first, last in runs:
            shuffled.add_run(first, last)
        assert shuffled.rows == ordered.rows, (rows, runs)
        expected, start = [], rows[0]
        for a, b in zip(rows, [*rows[1:], None], strict=True):
            if b != a + 1:
                expected.append([start, a])
                start = b
        assert ordered.rows == expected


def test_a_sink_gets_every_rows_record(tmp_path: Path) -> None:
    rows = load_rows("n4")[:400]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for workers in (1, 2):
        got: list[object] = []
        report = run_audit(path, workers=workers, sink=got.extend)
        assert [r.row for r in got] == list(range(1, 401))  # type: ignore[attr-defined]
        assert report.summary.items == 400
        assert sum(r.outcome.value == "agree" for r in got) == report.summary.agree  # type: ignore[attr-defined]
    memory = audit_rows(rows)
    assert memory.summary.to_json() == report.summary.to_json()
