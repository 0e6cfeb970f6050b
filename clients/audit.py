"""Dataset audit: re-derive every gold label of a source and report each disagreement.

``run_audit`` reads any source ``clients.readers`` reads (JSONL, JSON arrays, CSV/TSV,
the IE ``|`` templates, Parquet, ``datasets`` directories) in chunks, audits each row
(``clients.row_audit``: through the entry layer, every registered benchmark family,
into one ``AuditRecord`` each — but the rows a family's quick path finds agreeing,
which it counts per premise group, ``entry.audit_quick``), with worker processes when
asked (a large JSON-lines file is split by byte ranges, each ending with the last row
of a premise, and each worker decodes its own lines and sends back a partial report:
counts and the rows the report lists), and adds the records and counts to an
``AuditReport`` (``clients.audit_report``, which states the report's contract).  A
``sink`` (e.g. ``clients.audit_records.RecordWriter``, behind ``audit --records``)
receives every row's record as its chunk completes (an agreeing row's built then).
``audit_rows`` does the same for rows in memory.
"""

from __future__ import annotations

import gc
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import orjson

from causal_oracle.clients import columns as roles
from causal_oracle.clients import readers
from causal_oracle.clients.audit_report import AuditReport
from causal_oracle.clients.exits import quiet_pool
from causal_oracle.clients.row_audit import DEFAULT_COLUMNS, Columns, audit_row, table_labels
from causal_oracle.entry import Profile
from causal_oracle.entry.audit_quick import Agreeing, QuickAudit
from causal_oracle.entry.audit_record import INTERNAL, AuditRecord, failed
from causal_oracle.entry.oracle_protocol import Oracle

#: receives every record of an audit, chunk by chunk, in row order
Sink = Callable[[list[AuditRecord]], None]

CHUNK = 1000
_PROFILES = frozenset(p.value for p in Profile)


def read_rows(path: Path, named: bool = True) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(row reference, parsed row or an error message) for any source ``readers`` reads;
    the reference is the 1-based file line (record number for binary formats); ``named``:
    rows completed from their file's name (``readers.named_row``), else as the file holds
    them."""
    for record in readers.read_records(path, named):
        yield record.ref, record.row if record.row is not None else str(record.error)


def _row(number: int, text: bytes, name: readers.RowNamer | None = None
         ) -> dict[str, Any] | str:
    """One JSON line decoded: orjson straight to the row for the usual object line (no
    ``Record`` in between), ``readers.json_line`` — whose reading and error messages are
    the contract — for any other (a BOM, bad bytes, not an object, not JSON); ``name``:
    the row namer of the file it was read from (``readers.row_namer``), which its row is
    offered."""
    row: Any = None
    if text[:1] == b"{":
        try:
            row = orjson.loads(text)
        except orjson.JSONDecodeError:
            row = None
    if not isinstance(row, dict):
        record = readers.json_line(number, text)
        if record.row is None:
            return str(record.error)
        row = record.row
    return name(row) if name is not None else row


def _line_rows(lines: Iterable[bytes], first: int, name: readers.RowNamer | None
               ) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(file line, row or error) of each non-blank line, numbered from ``first``; the
    usual object line decoded here, any other by ``_row``."""
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    for number, text in enumerate(lines, first):
        if text[:1] == b"{":
            try:
                row = loads(text)
            except decode_error:
                row = None
            if type(row) is dict:
                yield number, (row if name is None else name(row))
                continue
        if text and not text.isspace():
            yield number, _row(number, text, name)


def _raw_rows(source: readers.Source) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """Like ``read_rows``, JSON lines decoded straight to rows (``_line_rows``)."""
    if source.format is not readers.Format.JSONL or len(source.files) > 1:
        for record in source.records():
            yield record.ref, record.row if record.row is not None else str(record.error)
        return
    file = source.files[0][0]
    with file.open("rb") as handle:
        yield from _line_rows(handle, 1, readers.row_namer(file))


class Audited(NamedTuple):
    """A chunk audited: the records of the rows audited one by one or recorded by a
    quick path (position in the chunk, record; in row order), and the quick path's
    counted agreeing rows (``entry.audit_quick.Agreeing``)."""

    records: list[tuple[int, AuditRecord]]
    agreeing: list[Agreeing]

    def add_to(self, report: AuditReport) -> None:
        for _, record in self.records:
            report.add(record)
        for block in self.agreeing:
            report.add_agreeing(block)

    def every_record(self) -> list[AuditRecord]:
        """Every row's record, in row order (the blocks' built now: for a ``Sink``)."""
        if not self.agreeing:
            return [record for _, record in self.records]
        out = dict(self.records)
        for block in self.agreeing:
            out.update(zip(block.positions, block.records(), strict=True))
        return [out[position] for position in sorted(out)]


def _work(args: tuple[list[tuple[int, dict[str, Any] | str]], Columns, str],
          verifier: Oracle | None = None) -> Audited:
    chunk, cols, profile = args
    fatal = getattr(verifier, "fatal_errors", ())
    rows = chunk  # (file line, decoded row or the error that kept it from being read)
    quick = verifier is None and profile in _PROFILES
    fast = table_labels(rows, cols, Profile(profile)) if quick else QuickAudit()
    answered = fast.records
    counted: set[int] = set()
    for block in fast.agreeing:
        counted.update(block.positions)
    out = []
    for position, (index, row) in enumerate(rows):
        if position in counted:
            continue
        if isinstance(row, str):
            out.append((position, failed(index, None, row)))
            continue
        done = answered.get(position)
        if done is not None:
            out.append((position, done))
            continue
        try:
            out.append((position, audit_row(index, row, cols, profile, verifier)))
        except fatal:
            raise
        except Exception as error:
            out.append((position, failed(index, row.get(cols.id),
                                         f"{INTERNAL}{type(error).__name__}: {error}")))
    return Audited(out, fast.agreeing)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cyclic garbage collector paused (restored after).  An audit allocates a
    dict per row and keeps its caches and the listed rows' records; each allocation
    burst triggers collections that walk all of them again — a sixth of a worker's
    CPU, and most of the parent's time unpickling the workers' reports.  Audit rows
    and records form no reference cycles (reference counting frees them); anything
    cyclic left meanwhile is collected once the collector runs again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _add(report: AuditReport, audited: Audited, sink: Sink | None) -> None:
    audited.add_to(report)
    if sink is not None:
        sink(audited.every_record())


def _chunks(rows: Iterator[tuple[int, dict[str, Any] | str]], cols: Columns, profile: str
            ) -> Iterator[tuple[list[tuple[int, dict[str, Any] | str]], Columns, str]]:
    chunk: list[tuple[int, dict[str, Any] | str]] = []
    for item in rows:
        chunk.append(item)
        if len(chunk) >= CHUNK:
            yield chunk, cols, profile
            chunk = []
    if chunk:
        yield chunk, cols, profile


def run_audit(path: Path, *, cols: Columns = DEFAULT_COLUMNS, profile: str = "corr2cause",
              workers: int = 1, progress: Callable[[int, int, float], None] | None = None,
              verifier: Oracle | None = None, sink: Sink | None = None) -> AuditReport:
    """Audit every row of ``path``; ``workers > 1`` uses a process pool.  With a
    ``verifier`` (a service client) rows are verified through it, one process.
    ``sink`` receives every record, in row order, as its chunk completes."""
    report = AuditReport()
    start = time.perf_counter()
    source = readers.open_source(path)
    columns = source.columns()
    roles.check_named(cols.given(), columns, source.has_column)
    detected = readers.detect_columns(columns, cols.given())
    cols = Columns(**detected.names)
    report.source = {"path": str(path), "format": source.describe(), "unit": source.unit,
                     "columns": columns, "layout": detected.layout,
                     "detected": detected.message}
    total = source.count() if progress else 0

    def step() -> None:
        if progress:
            progress(report.summary.items, total, time.perf_counter() - start)

    chunks = _chunks(_raw_rows(source), cols, profile)
    if workers > 1 and verifier is None and source.unit == "line" \
            and source.format is readers.Format.JSONL:
        ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        tasks = ((rng, cols, profile, sink is not None)
                 for rng in _byte_ranges(path, premise=cols.premise))
        with quiet_pool(ctx, workers) as pool, _no_cycle_collection():
            for partial, records in pool.imap(_audit_range, tasks):
                report.merge(partial)
                if sink is not None:
                    sink(records)
                step()
    elif workers > 1 and verifier is None:
        ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        with quiet_pool(ctx, workers) as pool, _no_cycle_collection():
            kept = ((*args, sink is not None) for args in chunks)
            for partial, records in pool.imap(_audit_chunk, kept):
                report.merge(partial)
                if sink is not None:
                    sink(records)
                step()
    else:
        for args in chunks:
            with _no_cycle_collection():
                _add(report, _work(args, verifier), sink)
            step()
    report.seconds = time.perf_counter() - start
    return report


def audit_rows(rows: Iterable[dict[str, Any]], *, cols: Columns = DEFAULT_COLUMNS,
               profile: str = "corr2cause", sink: Sink | None = None) -> AuditReport:
    """Audit rows already in memory (dicts in any of the layouts ``run_audit`` reads),
    in this process; rows are numbered from 0 in the order given."""
    report = AuditReport()
    start = time.perf_counter()
    indexed: Iterator[tuple[int, dict[str, Any] | str]] = (
        (i, row if isinstance(row, dict) else f"row {i}: expected a dict, got "
         f"{type(row).__name__}") for i, row in enumerate(rows))
    for args in _chunks(indexed, cols, profile):
        _add(report, _work(args), sink)
    report.seconds = time.perf_counter() - start
    return report


# ---------------------------------------------------------------------------
# Parallel JSONL audits: each worker reads its own byte range of the file and
# returns a partial report, so the parent neither decodes nor ships rows.
# ---------------------------------------------------------------------------
_RANGE_BYTES = 4 << 20


class _Range(NamedTuple):
    path: str
    start: int
    end: int
    first_line: int  # 1-based number of the range's first line


#: at most this many lines are added to a range to keep a premise's rows in one range
_GROUP_LINES = 4096


def _byte_ranges(path: Path, size: int | None = None, premise: str | None = None
                 ) -> Iterator[_Range]:
    """Ranges of about ``size`` bytes that end on line boundaries, with line numbers;
    with ``premise`` (its column's name), a range goes on to the end of the run of rows
    that share its last row's premise, so that one worker reads them all (and derives
    the premise's class once) — up to ``_GROUP_LINES`` lines more."""
    size = size or _RANGE_BYTES
    line = 1
    with path.open("rb") as handle:
        start = 0
        while True:
            handle.seek(start)
            block = handle.read(size)
            if not block:
                return
            lines = _newlines(block)
            end = start + len(block)
            if len(block) == size:
                rest = handle.readline()
                more = b""
                if premise is not None:
                    last = (block[block.rfind(b"\n") + 1:] + rest if rest else
                            block[block.rfind(b"\n", 0, len(block) - 1) + 1:])
                    more = _same_premise(handle, last, premise)
                lines += rest.count(b"\n") + more.count(b"\n")
                end += len(rest) + len(more)
            yield _Range(str(path), start, end, line)
            line += lines
            start = end


def _newlines(block: bytes) -> int:
    """How many line ends ``block`` holds (numpy counts a 4 MiB block at memory speed,
    twice as fast as ``bytes.count``: the parent counts every byte of the file)."""
    return int(np.count_nonzero(np.frombuffer(block, dtype=np.uint8) == 10))


def _premise_of(text: bytes, premise: str) -> Any:
    try:
        row = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return row.get(premise) if type(row) is dict else None


def _same_premise(handle: Any, text: bytes, premise: str) -> bytes:
    """The lines next read from ``handle`` whose rows have the premise of the row on
    the line ``text`` (b"" when it has none); ``handle`` is left after them."""
    last = _premise_of(text, premise)
    if not isinstance(last, str):
        return b""
    taken: list[bytes] = []
    for _ in range(_GROUP_LINES):
        at = handle.tell()
        text = handle.readline()
        if not text or _premise_of(text, premise) != last:
            handle.seek(at)
            break
        taken.append(text)
    return b"".join(taken)


def _audit_range(args: tuple[_Range, Columns, str, bool]
                 ) -> tuple[AuditReport, list[AuditRecord]]:
    """Audit one byte range: its partial report, and its records when the parent
    streams them (``keep``)."""
    rng, cols, profile, keep = args
    with open(rng.path, "rb") as handle:
        handle.seek(rng.start)
        data = handle.read(rng.end - rng.start)
    with _no_cycle_collection():
        rows = list(_line_rows(data.split(b"\n"), rng.first_line,
                               readers.row_namer(rng.path)))
        return _audit_chunk((rows, cols, profile, keep))


def _audit_chunk(args: tuple[list[tuple[int, dict[str, Any] | str]], Columns, str, bool]
                 ) -> tuple[AuditReport, list[AuditRecord]]:
    """A worker's chunk audited: its partial report (counts, and the records of the
    rows it lists), and every record only when the parent streams them (``keep``) —
    what goes back to the parent is no larger than the report needs."""
    rows, cols, profile, keep = args
    report = AuditReport()
    with _no_cycle_collection():
        audited = _work((rows, cols, profile))
        audited.add_to(report)
        return report, audited.every_record() if keep else []
