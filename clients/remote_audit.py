"""``audit --server``: which rows the server labels, and refusing to fall back silently.

A remote audit sends the rows of the families a verifier serves
(``Family.served_remotely``) to ``causal-oracle serve``; rows of any other family can
only be computed in-process.  Doing that quietly would make ``--server`` a lie, so:

* a server that does not answer its health check is an error (exit 2, naming it);
* a file with rows of a family the server cannot audit is an error naming the server,
  those families and how many rows each has — before any work is sent;
* ``--local-fallback`` allows both: an unreachable server means the whole audit runs
  in-process, and unserved families' rows run in-process beside the remote ones.

Either way the report says which rows ran where (``where``: the server, the rows it
labelled and those computed in-process).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from causal_oracle.clients import readers
from causal_oracle.clients.audit import Sink, run_audit
from causal_oracle.clients.audit_report import AuditReport
from causal_oracle.clients.columns import canonical, check_named, detect_columns
from causal_oracle.clients.row_audit import Columns, served_remotely
from causal_oracle.entry import InputError, default


def unserved_families(path: Path, cols: Columns) -> Counter[str]:
    """Rows per family in ``path`` that a remote verifier cannot label (one read of the
    file, no parsing: the registry only says whose each row is)."""
    source = readers.open_source(path)
    columns = source.columns()
    check_named(cols.given(), columns, source.has_column)
    names = Columns(**detect_columns(columns, cols.given()).names).given()
    found: Counter[str] = Counter()
    service = default()
    for record in source.records():
        if record.row is None:
            continue
        try:
            item = service.item(canonical(record.row, names))
        except InputError:
            continue
        if item is not None and not served_remotely(item.family, service):
            found[item.family] += 1
    return found


def remote_audit(path: Path, *, server: str, remote: Any, cols: Columns, profile: str,
                 local_fallback: bool, workers: int,
                 progress: Callable[[int, int, float], None] | None,
                 sink: Sink | None = None) -> AuditReport:
    """The audit of ``path`` through ``remote`` (an ``OracleClient``), under the rules of
    the module docstring; ``InputError`` when the server cannot serve the rows."""
    from causal_oracle.clients.remote_codec import DeadlineExceeded, Unreachable
    from causal_oracle.clients.remote_oracle import RemoteOracle

    try:
        remote.health()
    except (Unreachable, DeadlineExceeded) as error:
        if not local_fallback:
            raise InputError(f"server {server} is unreachable ({error}); give "
                             f"--local-fallback to audit in-process instead") from None
        print(f"causal-oracle: server {server} is unreachable; auditing in-process "
              f"(--local-fallback)", file=sys.stderr)
        report = run_audit(path, cols=cols, profile=profile, workers=workers,
                           progress=progress, sink=sink)
        report.in_process = report.summary.items - report.summary.unreadable
        return report
    if not local_fallback:
        unserved = unserved_families(path, cols)
        if unserved:
            shown = ", ".join(f"{name} ({count} rows)" for name, count in
                              sorted(unserved.items()))
            raise InputError(f"server {server} cannot audit the rows of {shown}: they "
                             f"would run in-process; give --local-fallback to allow that")
    return run_audit(path, cols=cols, profile=profile, workers=1, progress=progress,
                     verifier=RemoteOracle(remote), sink=sink)


def where(report: AuditReport, server: str) -> dict[str, Any]:
    """Which rows ran where: ``{"server", "remote_rows", "in_process_rows"}``."""
    read = report.summary.items - report.summary.unreadable
    return {"server": server, "remote_rows": max(0, read - report.in_process),
            "in_process_rows": report.in_process}


__all__ = ["remote_audit", "unserved_families", "where"]
