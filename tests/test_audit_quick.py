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

import pytest
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


@pytest.fixture(params=["columns", "row by row"])
def labelling(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every premise group labelled in columns, or every one row by row."""
    from causal_oracle.entry.families import corr2cause_audit

    monkeypatch.setattr(corr2cause_audit, "COLUMNS_FROM",
                        1 if request.param == "columns" else 10**9)
    return str(request.param)


def test_quick_records_are_the_full_paths(labelling: str) -> None:
    from causal_oracle.clients.row_audit import audit_row, roles_of
    from causal_oracle.entry import Limits, Profile, Service

    rows = list(enumerate(load_rows("n4")[:300] + load_rows("n5_sample")[:100], 1))
    service = Service(Limits(budget_s=None))
    answer = service.quick_audit(rows, roles_of(DEFAULT_COLUMNS), Profile.CORR2CAUSE)
    quick = answer.all_records()
    assert len(quick) > 250 and answer.agreeing
    full = Service(Limits(budget_s=None))
    for position, record in quick.items():
        index, row = rows[position]
        assert record == audit_row(index, row, DEFAULT_COLUMNS, "corr2cause", service=full)


def test_blocks_count_what_their_records_would(labelling: str) -> None:
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


def test_group_labels_are_label_fast_manys_verdicts() -> None:
    """A premise group's labels, read off the tables in columns, are the verdicts
    ``label_fast_many`` gives each row (None where it gives none)."""
    from causal_oracle.entry import Profile, Service
    from causal_oracle.entry.families.corr2cause_columns import label_columns

    rows = load_rows("n4")[:400] + load_rows("n5_sample")[:200]
    service = Service()
    memory = service.pairs()
    groups: dict[str, list[str]] = {}
    for row in rows:
        groups.setdefault(row["premise"], []).append(row["hypothesis"])
    groups["not a premise"] = ["A directly causes B.", "B directly causes A."]
    checked = 0
    for premise, texts in groups.items():
        texts = [*texts, "Z directly causes A.", "not a hypothesis", "A directly causes A."]
        expected = memory.label_fast_many(premise, texts)
        labels = label_columns(memory, premise, texts, Profile.CORR2CAUSE)
        if labels is None:
            assert not any(expected), premise
            continue
        for j, verdict in enumerate(expected):
            assert bool(labels.answered[j]) == (verdict is not None)
            if verdict is not None:
                assert labels.verdict(j) == verdict
                checked += 1
    assert checked > 400


def test_byte_ranges_keep_a_premises_rows_together(tmp_path: Path) -> None:
    from causal_oracle.clients.audit import _byte_ranges

    rows = load_rows("n4")
    path = tmp_path / "rows.jsonl"
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path.write_bytes(data)
    ranges = list(_byte_ranges(path, 20_000, premise="premise"))
    assert len(ranges) > 5 and ranges[0].start == 0 and ranges[-1].end == len(data)
    line = 1
    for before, after in zip(ranges, ranges[1:], strict=False):
        assert before.end == after.start and before.first_line == line
        line += data[before.start:before.end].count(b"\n")
        assert rows[after.first_line - 2]["premise"] != rows[after.first_line - 1]["premise"]
    plain = list(_byte_ranges(path, 20_000))
    assert any(rows[r.first_line - 2]["premise"] == rows[r.first_line - 1]["premise"]
               for r in plain[1:])
