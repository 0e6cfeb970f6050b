"""One dataset row, audited through the entry layer: its family, its ``AuditRecord``.

``audit_row`` hands a row to the registry (``entry``): the first family that claims it
reads it (its gold included) and the service builds the row's ``AuditRecord``
(``entry.audit_record``: one outcome, the family's facets, gold, derived answer,
reason, certificate, causes).  A row no family claims, or one that cannot be read, is
an ``unreadable`` record saying why.  ``Columns`` names the dataset's columns for the
roles the families read.  The quick path (``table_labels``) hands a chunk of rows to
the families that answer rows in bulk (``Service.quick_audit``, ``Family.quick_audit``:
Corr2Cause answers the agreeing rows of a premise from one look-up in its relation
tables, and counts them: ``entry.audit_quick``); every other row takes ``audit_row``.
"""

from __future__ import annotations

from typing import Any

from causal_oracle.clients.columns import DEFAULT_COLUMNS, Columns, canonical
from causal_oracle.entry import InputError, Profile, Service, binary_gold, default
from causal_oracle.entry.audit_quick import QuickAudit
from causal_oracle.entry.audit_record import AuditRecord, failed
from causal_oracle.entry.oracle_protocol import Oracle


def served_remotely(family: str, service: Service | None = None) -> bool:
    """Whether a remote verifier (``--server``) labels the rows of ``family``
    (``Family.served_remotely``); every other family's rows are computed in-process and
    marked ``in_process``."""
    return (service or default()).registry.get(family).served_remotely


def audit_row(index: int, row: dict[str, Any], cols: Columns, profile: str,
              verifier: Oracle | None = None, service: Service | None = None) -> AuditRecord:
    """Audit one row through the entry layer; returns its record (never raises on bad
    input: an ``unreadable`` record says why).

    The row's family is the first registered one that claims it (``entry.registry``);
    ``verifier`` (e.g. ``clients.remote_oracle.RemoteOracle``) labels the rows of the families
    it serves (``Family.served_remotely``) instead of the in-process service; rows of
    other families are computed in-process and marked ``in_process``."""
    service = service or default()
    raw = canonical(row, cols.given())
    try:
        item = service.item(raw)
    except InputError as error:
        return failed(index, row.get(cols.id), error.describe())
    if item is None:
        if binary_gold(row.get(cols.label)) is None:
            error = f"field {cols.label!r} is missing or not a 0/1 label"
        else:
            error = (f"row has neither {cols.input!r} nor {cols.premise!r} and "
                     f"{cols.hypothesis!r} fields")
        return failed(index, row.get(cols.id), error)
    record = service.audit_record(item, index, profile, verifier, row.get(cols.id))
    if verifier is not None and not served_remotely(item.family, service):
        record.fields["in_process"] = True
    return record


def roles_of(cols: Columns) -> dict[str, str]:
    """The dataset's column name for each role a family's quick path reads."""
    return {"premise": cols.premise, "hypothesis": cols.hypothesis, "input": cols.input,
            "label": cols.label, "relation": cols.relation, "id": cols.id}


def table_labels(rows: list[tuple[int, dict[str, Any] | str]], cols: Columns,
                 profile: Profile, service: Service | None = None) -> QuickAudit:
    """The rows, by position in ``rows``, the families answer in bulk
    (``Service.quick_audit``: e.g. a premise's agreeing rows from one look-up in its
    relation tables, counted in blocks, and its ambiguous ones as records); every
    other row takes ``audit_row``."""
    return (service or default()).quick_audit(rows, roles_of(cols), profile)


__all__ = ["DEFAULT_COLUMNS", "Columns", "audit_row", "roles_of", "served_remotely",
           "table_labels"]
