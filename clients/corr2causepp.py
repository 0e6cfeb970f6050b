"""Audit of Corr2Cause++ items: ``{"query", "label", "relation_type", "forced_edges"}``.

Corr2Cause++ publishes JSON arrays; ``query`` is ``"Premise:\\n…\\n\\nHypothesis: …"``
in its own premise dialect (``parser/corr2cause.lark``), ``label`` the gold (1/0),
``forced_edges`` the CPDAG's directed edges the generator used.  For each item:

* the gold is compared with the ``compelled`` label (``oracle.compelled``, the
  dataset's own semantics), re-derived by its checker;
* the item is *ambiguous* when ``compelled`` disagrees with ``corr2cause`` or
  ``strict`` (the per-member readings, verified as usual);
* ``forced_edges`` is checked against the CPDAG's directed edges.

The outcome record has the shape ``clients.audit`` counts for Corr2Cause rows, plus
``forced_edges_ok``.
"""

from __future__ import annotations

from typing import Any

from causal_oracle.clients.engine import verify_input
from causal_oracle.oracle import compelled
from causal_oracle.oracle.errors import InputError, OracleError
from causal_oracle.oracle.relations import Profile


def is_pp_row(row: dict[str, Any]) -> bool:
    return "query" in row and "forced_edges" in row


def _edges(value: Any) -> set[tuple[str, str]] | None:
    """``[["A", "B"], …]``, ``["A->B", …]`` or ``"A->B, …"`` → {(tail, head)}."""
    if isinstance(value, str):
        value = [v for v in value.replace(";", ",").split(",") if v.strip()]
    if not isinstance(value, list):
        return None
    out = set()
    for e in value:
        if isinstance(e, str) and "->" in e:
            a, b = (s.strip() for s in e.split("->", 1))
        elif isinstance(e, list | tuple) and len(e) == 2:
            a, b = str(e[0]), str(e[1])
        else:
            return None
        out.add((a, b))
    return out


def audit_row(row: dict[str, Any], gold: int) -> dict[str, Any]:
    """One item → the fields of a Corr2Cause audit record (raises ``InputError``)."""
    text = str(row["query"])
    base = verify_input(text, Profile.CORR2CAUSE)
    out: dict[str, Any] = {
        "kind": "corr2cause", "gold": gold, "gold_relation": None,
        "hypothesis": text[text.rfind("Hypothesis:") + len("Hypothesis:"):].strip(),
        "relation_kind": f"c2c++ {row.get('relation_type', base.hypothesis.kind.value)}",
        "num_nodes": base.premise.n}
    v = base.verdict
    if v.relation == "inconsistent":
        out.update(derived_label=None, derived_relation="inconsistent", class_size=0,
                   holds_in=0, ambiguous=False, certificate_checked=base.check.ok,
                   reason=base.reason())
        return out
    verdict = compelled.label(base.analysis, base.hypothesis)
    ok, why = compelled.check(base.analysis, base.hypothesis, verdict)
    if not ok:
        raise OracleError(f"the compelled checker rejected the label: {why}")
    strict = v.labels_by_profile.get(Profile.STRICT.value)
    labels = {"compelled": verdict.label, "corr2cause": v.label, "strict": strict}
    names = base.premise.variables
    forced = _edges(row.get("forced_edges"))
    mine = {(names[a], names[b]) for a, b in verdict.edges}
    out.update(derived_label=verdict.label,
               derived_relation="entailment" if verdict.label else "contradiction",
               class_size=v.class_size, holds_in=v.holds_in,
               ambiguous=len(set(labels.values())) > 1,
               certificate_checked=base.check.ok and ok, labels_by_profile=labels,
               forced_edges_ok=forced == mine,
               compelled_edges=sorted(f"{a}->{b}" for a, b in mine))
    if verdict.label != gold:
        out["certificate"] = {"compelled_edges": out["compelled_edges"],
                              "witness": verdict.witness, "labels_by_profile": labels}
    return out


def audit_row_safe(row: dict[str, Any], gold: int | None) -> dict[str, Any]:
    if gold is None:
        return {"error": "field 'label' is missing or not a 0/1 label"}
    try:
        return audit_row(row, gold)
    except InputError as error:
        return {"error": error.describe()}
    except OracleError as error:
        return {"error": f"{type(error).__name__}: {error}"}
