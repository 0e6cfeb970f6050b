"""One dataset row, audited through the entry layer: its family, its ``AuditRecord``.

``audit_row`` hands a row to the registry (``entry``): the first family that claims it
reads it (its gold included) and the service builds the row's ``AuditRecord``
(``entry.audit_record``: one outcome, the family's facets, gold, derived answer,
reason, certificate, causes).  A row no family claims, or one that cannot be read, is
an ``unreadable`` record saying why.  ``Columns`` names the dataset's columns for the
roles the families read.  The quick path (``table_labels``) answers the agreeing
Corr2Cause rows of a premise from one look-up in its relation tables
(``Service.label_fast_many``); every other row takes ``audit_row``.
"""

from __future__ import annotations

from typing import Any

from causal_oracle.clients.columns import DEFAULT_COLUMNS, Columns, canonical
from causal_oracle.entry import FastVerdict, InputError, Profile, Service, binary_gold, default
from causal_oracle.entry.audit_record import AuditRecord, failed, record_of
from causal_oracle.entry.families.corr2cause import AMBIGUOUS
from causal_oracle.entry.registry import Family

QUICK_PROFILES = ("corr2cause", "loose", "strict")
#: the families whose rows a remote verifier (``--server``) labels; every other
#: family's rows are computed in-process and marked ``in_process``
SERVED_REMOTELY = frozenset({"corr2cause"})


def audit_row(index: int, row: dict[str, Any], cols: Columns, profile: str,
              verifier: Any = None, service: Service | None = None) -> AuditRecord:
    """Audit one row through the entry layer; returns its record (never raises on bad
    input: an ``unreadable`` record says why).

    The row's family is the first registered one that claims it (``entry.registry``);
    ``verifier`` (e.g. ``clients.remote.RemoteVerifier``) labels Corr2Cause rows instead
    of the in-process service; rows of other families are computed in-process and
    marked ``in_process``."""
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
    if verifier is not None and item.family not in SERVED_REMOTELY:
        record.fields["in_process"] = True
    return record


_QUICK_SKIP = frozenset(("task_type", "query", "task"))  # CLEAR, Corr2Cause++, task rows


def _quick_gold(row: dict[str, Any], cols: Columns) -> int | None:
    """The gold label of a plain Corr2Cause row the table path may answer, else None."""
    if not row.keys().isdisjoint(_QUICK_SKIP):
        return None
    if not isinstance(row.get(cols.premise), str) or not isinstance(row.get(cols.hypothesis),
                                                                     str):
        return None
    return binary_gold(row.get(cols.label))


def _quick_outcome(index: int, row: dict[str, Any], cols: Columns, gold: int,
                   fast: FastVerdict | None, family: Family[Any, Any]) -> AuditRecord | None:
    """``audit_row``'s record for a row whose label (read off the premise's relation
    tables, ``Service.label_fast_many``) agrees with gold; None for every other row
    (disagreements, inconsistent premises, bad input), which ``audit_row`` handles
    with a certificate."""
    if fast is None or fast.label != gold:
        return None
    gold_relation = row.get(cols.relation)
    if gold_relation in _RELATIONS and gold_relation != fast.relation:
        return None
    fields = {"kind": "corr2cause", "hypothesis": row[cols.hypothesis], "gold": gold,
              "gold_relation": gold_relation, "relation_kind": fast.kind.value,
              "num_nodes": fast.num_nodes, "derived_label": fast.label,
              "derived_relation": fast.relation, "class_size": fast.class_size,
              "holds_in": fast.holds_in, "ambiguous": fast.ambiguous,
              "certificate_checked": True}
    if fast.ambiguous:
        fields["ambiguous_reason"] = AMBIGUOUS
    return record_of(family.name, family.facet_values(fields), index, row.get(cols.id), fields)


_RELATIONS = ("entailment", "neutral", "contradiction")


def table_labels(rows: list[tuple[int, dict[str, Any] | str]], cols: Columns,
                  profile: Profile) -> dict[int, AuditRecord]:
    """Records of the agreeing Corr2Cause rows, by position in ``rows``, from one table
    look-up per run of consecutive rows that share a premise
    (``Service.label_fast_many``)."""
    done: dict[int, AuditRecord] = {}
    family = default().registry.get("corr2cause")
    i = 0
    while i < len(rows):
        row = rows[i][1]
        gold = _quick_gold(row, cols) if isinstance(row, dict) else None
        if gold is None:
            i += 1
            continue
        assert isinstance(row, dict)
        premise = row[cols.premise]
        run = [(i, row, gold)]
        i += 1
        while i < len(rows):
            other = rows[i][1]
            if not isinstance(other, dict) or other.get(cols.premise) != premise:
                break
            other_gold = _quick_gold(other, cols)
            if other_gold is None:
                break
            run.append((i, other, other_gold))
            i += 1
        try:
            verdicts = default().label_fast_many(
                premise, [r[cols.hypothesis] for _, r, _ in run], profile)
        except Exception:  # the rows take the full path, which reports what went wrong
            continue
        for (position, member, member_gold), fast in zip(run, verdicts, strict=True):
            outcome = _quick_outcome(rows[position][0], member, cols, member_gold, fast,
                                     family)
            if outcome is not None:
                done[position] = outcome
    return done


__all__ = ["DEFAULT_COLUMNS", "QUICK_PROFILES", "SERVED_REMOTELY", "Columns", "audit_row",
           "table_labels"]
