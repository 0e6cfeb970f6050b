"""Corr2Cause's audit: the record of a row, the quick path over a premise's rows, drawings.

``audit_fields`` labels one row (through the family's memory in the service, or a
remote verifier) and states its record's fields (``record_of``): the relation and
the number of variables (its facets), gold and derived labels, the class size, and
— for a disagreement or an inconsistent premise — the certificate and the causes
(``oracle.causes``).

``quick_audit`` answers the agreeing rows of a dataset without a certificate each: a
run of consecutive rows that share a premise is labelled from one look-up in the
premise's relation tables (``corr2cause_bulk``: the solver's table confirmed by the
checker's own), gold and outcome per premise group in one pass (in columns,
``corr2cause_columns``, from ``COLUMNS_FROM`` rows; row by row below); the agreeing rows are
counted into one block per group (``entry.audit_quick.Agreeing``: no record per row
unless a surface asks for them), an ambiguous one is recorded; a row whose label
differs from its gold, an inconsistent premise or anything unusual is left to
``audit_fields``, which builds and checks the full certificate.  ``class_pictures``
draws a finding's class.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from causal_oracle.entry.audit_quick import Agreeing, QuickAudit
from causal_oracle.entry.audit_record import AuditRecord, Picture
from causal_oracle.entry.audit_record import Outcome as Found
from causal_oracle.entry.audit_record import record_of as outcome_of
from causal_oracle.entry.families.corr2cause_bulk import FastVerdict
from causal_oracle.entry.families.corr2cause_columns import GroupLabels, label_columns
from causal_oracle.entry.families.corr2cause_memory import Corr2CauseMemory
from causal_oracle.entry.families.corr2cause_result import RELATIONS, VerifyResult
from causal_oracle.entry.gold import binary_gold, hypothesis_of_input
from causal_oracle.entry.registry import Item
from causal_oracle.oracle.causes import classify
from causal_oracle.oracle.equivalence import analyse
from causal_oracle.oracle.errors import CertificateRejected, OracleError
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.relations import Profile

AMBIGUOUS = "the semantics profiles label it differently"
#: the profiles under which the quick path answers rows (every member profile)
QUICK_PROFILES = frozenset((Profile.CORR2CAUSE, Profile.LOOSE, Profile.STRICT))


def audit_fields(memory: Corr2CauseMemory, item: Item, profile: Profile,
                 verifier: Any = None) -> dict[str, Any]:
    """The audit's record of one row, labelled by ``verifier`` (a remote service with
    ``verify``/``verify_input``) or, when None, by ``memory``."""
    labeller: Any = verifier or memory
    raw = item.raw
    gold = item.binary
    if gold is None:
        return {"error": "field 'label' is missing or not a 0/1 label"}
    try:
        if "premise" in raw and "hypothesis" in raw:
            hypothesis = str(raw["hypothesis"])
            result = labeller.verify(str(raw["premise"]), hypothesis, profile.value)
        else:
            text = str(raw["input"])
            hypothesis = hypothesis_of_input(text)
            result = labeller.verify_input(text, profile.value)
    except CertificateRejected as error:  # a bug, never a finding: say so
        return {"error": f"internal error: CertificateRejected: {error}"}
    except OracleError as error:
        return {"error": error.describe() if hasattr(error, "describe")
                else f"{type(error).__name__}: {error}"}
    return record_of(memory, item, result, hypothesis, gold, profile)


def record_of(memory: Corr2CauseMemory, item: Item, result: Any, hypothesis: str, gold: int,
              profile: Profile) -> dict[str, Any]:
    """The audit record of a labelled row (``result``: a ``VerifyResult`` or a remote
    service's result, which carries no class: ``memory`` then parses and analyses the
    row's text here, so that local and remote audits classify alike)."""
    raw = item.raw
    v = result.verdict
    out: dict[str, Any] = dict(
        kind="corr2cause", hypothesis=hypothesis, gold=gold,
        gold_relation=raw.get("relation"), relation_kind=result.hypothesis.kind.value,
        num_nodes=result.premise.n, derived_label=v.label, derived_relation=v.relation,
        class_size=v.class_size, holds_in=v.holds_in, ambiguous=v.ambiguous,
        certificate_checked=result.check.ok)
    if v.ambiguous:
        out["ambiguous_reason"] = AMBIGUOUS
    if v.relation == Outcome.INCONSISTENT:
        out["reason"] = result.reason()
    elif v.label != gold:
        out["certificate"] = v.certificate.to_json(result.premise.variables)
    gold_relation = out["gold_relation"] if out["gold_relation"] in RELATIONS else None
    if v.relation == Outcome.INCONSISTENT or v.label != gold or (
            gold_relation is not None and gold_relation != v.relation):
        if isinstance(result, VerifyResult):
            analysis, parsed = result.analysis, result.hypothesis
        elif "premise" in raw and "hypothesis" in raw:
            parsed = memory.hypothesis_of(hypothesis.strip())
            analysis = analyse(memory.premise_of(str(raw["premise"]).strip()))
        else:
            premise_obj, parsed = memory.item_of(str(raw["input"]))
            analysis = analyse(premise_obj)
        prob = raw.get("prob")
        causes = classify(analysis, parsed, v, gold=gold, gold_relation=gold_relation,
                          gold_prob=float(prob) if isinstance(prob, int | float) else None,
                          profile=profile)
        out["causes"] = [c.to_json() for c in causes]
    return out



def _witness_edges(witness: list[list[str]] | None) -> tuple[tuple[str, str], ...]:
    return tuple((a, b) for path in witness or [] for a, b in zip(path, path[1:],
                                                                    strict=False))


def class_pictures(cert: Mapping[str, Any], names: list[str], gold: int | None
                   ) -> tuple[Picture, ...]:
    """A certificate (``Certificate.to_json``) drawn: the class (CPDAG, the relation's
    witness highlighted) and one member — the counter-example when the gold claims
    entailment, else a member with the witness."""
    members, witnesses = cert.get("members") or [], cert.get("witnesses") or []
    with_w = next((i for i, w in enumerate(witnesses) if w is not None), None)
    without = next((i for i, w in enumerate(witnesses) if w is None), None)
    pictures = [Picture(f"class: CPDAG ({cert.get('class_size')} member(s))", tuple(names),
                        tuple(map(tuple, cert.get("cpdag_directed") or [])),
                        tuple(map(tuple, cert.get("cpdag_undirected") or [])),
                        highlight=_witness_edges(witnesses[with_w]) if with_w is not None
                        else ())]
    pick = without if gold == 1 and without is not None else with_w
    if pick is None:
        pick = without
    if pick is not None and pick < len(members):
        kind = "counter-example" if witnesses[pick] is None else "witness"
        pictures.append(Picture(f"member {pick + 1}: {kind}", tuple(names),
                                tuple(map(tuple, members[pick])),
                                highlight=_witness_edges(witnesses[pick])))
    return tuple(pictures)  # type: ignore[arg-type]


# ---- the quick path -------------------------------------------------------------------

#: the smallest premise group labelled in columns (``corr2cause_columns``); a smaller
#: one (a sampled dataset's lone rows) is labelled row by row, where arrays cost more
COLUMNS_FROM = 16
#: columns that make a row some other family's (CLEAR, Corr2Cause++, task rows)
_QUICK_SKIP = frozenset(("task_type", "query", "task"))


def quick_audit(memory: Corr2CauseMemory, family: str, rows: Sequence[tuple[int, Any]],
                columns: Mapping[str, str], profile: Profile) -> QuickAudit:
    """The agreeing rows, counted per run of consecutive rows that share a premise, from
    one table look-up per run (module docstring); the ambiguous ones as records."""
    out = QuickAudit()
    premise_col, hypothesis_col = columns["premise"], columns["hypothesis"]
    skip = _QUICK_SKIP
    i, n = 0, len(rows)
    while i < n:
        row = rows[i][1]
        if not isinstance(row, dict) or not row.keys().isdisjoint(skip):
            i += 1
            continue
        premise = row.get(premise_col)
        if not isinstance(premise, str):
            i += 1
            continue
        start = i
        i += 1
        while i < n:  # the run of rows of this premise
            other = rows[i][1]
            if not isinstance(other, dict) or other.get(premise_col) != premise or \
                    not other.keys().isdisjoint(skip):
                break
            i += 1
        run = [r for _, r in rows[start:i]]
        texts = [r.get(hypothesis_col) for r in run]
        if not all(isinstance(h, str) for h in texts):
            continue  # the rows take the full path, which says what is wrong
        few = len(run) < COLUMNS_FROM
        try:
            verdicts = memory.label_fast_many(premise, texts, profile) if few else None
            labels = None if few else label_columns(memory, premise, texts, profile)
        except Exception:  # the rows take the full path, which reports what went wrong
            continue
        if verdicts is not None:
            _by_row(out, family, rows, start, verdicts, columns)
        elif labels is not None:
            _group(out, family, rows, start, run, labels, columns)
    return out


def _group(out: QuickAudit, family: str, rows: Sequence[tuple[int, Any]], start: int,
           run: list[Any], labels: GroupLabels, columns: Mapping[str, str]) -> None:
    """One premise's rows (``run``, from ``start``) against their table labels, in one
    pass: the agreeing ones counted into a block, the ambiguous ones recorded, the rest
    left to the full path (a label other than gold's, another gold relation, no table
    label)."""
    label_col, relation_col = columns["label"], columns["relation"]
    found = labels.outcomes([r.get(label_col) for r in run],
                            [r.get(relation_col) for r in run])

    def record(j: int) -> AuditRecord:
        line, member = rows[start + j]
        gold = binary_gold(member.get(label_col))
        assert gold is not None
        return _agreeing(family, line, member, columns, gold, member.get(relation_col),
                         labels.verdict(j))

    for j in np.flatnonzero(found.ambiguous).tolist():
        out.records[start + j] = record(j)
    agree = found.agree
    offsets = np.flatnonzero(agree).tolist()
    if not offsets:
        return
    out.agreeing.append(Agreeing(
        family, [start + j for j in offsets], [rows[start + j][0] for j in offsets],
        {"relation": labels.kind_counts(agree), "variables": {str(labels.n): len(offsets)}},
        int((agree & found.with_relation).sum()), lambda k: record(offsets[k])))


def _by_row(out: QuickAudit, family: str, rows: Sequence[tuple[int, Any]], start: int,
           verdicts: Sequence[FastVerdict | None], columns: Mapping[str, str]) -> None:
    """``_group`` row by row, for a group too small for arrays to pay: ``verdicts``
    are ``label_fast_many``'s."""
    label_col, relation_col = columns["label"], columns["relation"]
    positions: list[int] = []
    lines: list[int] = []
    kinds: dict[str, int] = {}
    with_relation = 0
    nodes = 0
    for offset, fast in enumerate(verdicts):
        if fast is None:
            continue
        position = start + offset
        line, member = rows[position]
        gold = member.get(label_col)
        if type(gold) is not int or gold not in (0, 1):
            gold = binary_gold(gold)
        if gold is None or fast.label != gold:
            continue
        gold_relation = member.get(relation_col)
        known = gold_relation in RELATIONS
        if known and gold_relation != fast.relation:
            continue
        if fast.ambiguous or fast.relation == "inconsistent":
            out.records[position] = _agreeing(family, line, member, columns, gold,
                                              gold_relation, fast)
            continue
        positions.append(position)
        lines.append(line)
        kind = fast.kind._value_  # not ``.value``: a Python-level property, on every row
        kinds[kind] = kinds.get(kind, 0) + 1
        with_relation += known
        nodes = fast.num_nodes
    if not positions:
        return

    def make(k: int) -> AuditRecord:
        position = positions[k]
        line, member = rows[position]
        fast = verdicts[position - start]
        assert fast is not None
        gold = binary_gold(member.get(label_col))
        assert gold is not None
        return _agreeing(family, line, member, columns, gold, member.get(relation_col), fast)

    out.agreeing.append(Agreeing(family, positions, lines,
                                 {"relation": kinds, "variables": {str(nodes): len(positions)}},
                                 with_relation, make))


def _agreeing(family: str, index: int, row: Mapping[str, Any], columns: Mapping[str, str],
              gold: int, gold_relation: Any, fast: FastVerdict) -> AuditRecord:
    """The record ``audit_fields`` would give a row whose table label agrees with gold
    (the same fields; its outcome, agree or ambiguous, decided where every outcome is:
    ``entry.audit_record.record_of``)."""
    kind = fast.kind._value_
    rid = row.get(columns["id"])
    fields = {"kind": "corr2cause", "hypothesis": row[columns["hypothesis"]], "gold": gold,
              "gold_relation": gold_relation, "relation_kind": kind,
              "num_nodes": fast.num_nodes, "derived_label": fast.label,
              "derived_relation": fast.relation, "class_size": fast.class_size,
              "holds_in": fast.holds_in, "ambiguous": fast.ambiguous,
              "certificate_checked": True}
    facets = {"relation": kind, "variables": str(fast.num_nodes)}
    if fast.ambiguous:
        fields["ambiguous_reason"] = AMBIGUOUS
    if fast.relation == "inconsistent":  # not a table's answer; the general reading decides
        return outcome_of(family, facets, index, rid, fields)
    # what ``record_of`` reads in these fields: ambiguous (its reason), else agree (the
    # derived label is gold's), no certificate kept, checked, no causes
    if fast.ambiguous:
        return AuditRecord(index, rid, Found.AMBIGUOUS, family, facets, gold, fast.label,
                           AMBIGUOUS, None, True, [], fields)
    return AuditRecord(index, rid, Found.AGREE, family, facets, gold, fast.label, None,
                       None, True, [], fields)


__all__ = ["AMBIGUOUS", "COLUMNS_FROM", "QUICK_PROFILES", "audit_fields", "class_pictures",
           "quick_audit", "record_of"]
