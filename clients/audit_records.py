"""``audit --records OUT.jsonl``: every audited item's record, one JSON line each.

Each line is ``AuditRecord.to_json()`` (``entry.audit_record``): ``row``, ``id``,
``family``, ``facets``, ``gold``, ``derived``, ``outcome``, ``reason``, ``causes``,
``certificate_checked`` — so users can join the audit with their own data by id or
row.  The writer is the audit's ``sink``: records are written as their chunk
completes (in row order, also with ``--workers``), never held for the whole file, and
encoded with ``orjson``.  The file appears complete or not at all
(``clients.outputs.atomic_output``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import orjson

from causal_oracle.clients.outputs import atomic_output
from causal_oracle.entry.audit_record import AuditRecord

_OPTIONS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS


def _fallback(value: Any) -> Any:
    """What orjson cannot encode itself (sets, frozensets, enums' values, …) as JSON."""
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=str)
    return str(value)


class RecordWriter:
    """A sink for ``run_audit`` writing each record as a JSON line to ``handle``."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.written = 0

    def __call__(self, records: list[AuditRecord]) -> None:
        self.handle.write(b"".join(orjson.dumps(r.to_json(), default=_fallback,
                                                option=_OPTIONS) for r in records))
        self.written += len(records)


@contextmanager
def record_writer(path: str | Path) -> Iterator[RecordWriter]:
    """A ``RecordWriter`` onto ``path`` (written atomically when the block completes)."""
    with atomic_output(Path(path), "wb") as handle:
        yield RecordWriter(handle)


__all__ = ["RecordWriter", "record_writer"]
