"""Explanations: the derivation of a label in words, as JSON, or as Graphviz DOT.

The text follows the order a person would argue in (DESIGN.md 4):

1. the closed world: which pairs are adjacent and, for each missing edge, the
   statement that removes it;
2. colliders with their witness statements ("C is a collider A→C←B: A is
   independent of B, but not given C") and the unshielded non-colliders;
3. orientations forced by the Meek rules ("C→D is forced: otherwise D would be
   a new collider");
4. the class, and the conclusion: the relation's witness in every member, its
   absence in every member, or one member where it holds and one where it fails.

For an inconsistent premise the explanation is the conflict.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from causal_oracle.oracle.equivalence import ClassAnalysis
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.labels import Verdict
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.reasons import colliders_intro, opening_steps, reason_for
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.statements import (
    Hypothesis,
    Independence,
    Premise,
    RelationKind,
    SurfaceForm,
    join_names,
)

MAX_LISTED_MEMBERS = 12
#: ``reason_line``'s outcomes as constants (an enum member is an attribute look-up through
#: the enum's metaclass, ≈ 80 ns in Python 3.11: on the bulk path's per-item line)
_NEUTRAL, _ENTAILMENT = Outcome.NEUTRAL, Outcome.ENTAILMENT


def statement_text(premise: Premise, s: Independence) -> str:
    return premise.sentence(*s.key)


def dag_text(premise: Premise, dag: Dag | tuple[tuple[int, int], ...]) -> str:
    edges = dag.edges() if isinstance(dag, Dag) else list(dag)
    if not edges:
        return "(no edges)"
    v = premise.variables
    return ", ".join(f"{v[t]}→{v[h]}" for t, h in edges)


def path_text(premise: Premise, path: tuple[int, ...]) -> str:
    v = premise.variables
    return "→".join([v[i] for i in path])


def reason_line(premise: Premise, relation: str, class_size: int, holds_in: int | None,
                witness: tuple[tuple[int, ...], ...] | None, shown: Sequence[str]) -> str:
    """One line saying why a consistent premise's label is what it is: ``shown`` are
    members as ``dag_text`` writes them, ``witness`` the relation's witness in
    ``shown[0]`` (for entailment and neutral), ``shown[1]`` a member where it fails
    (neutral).  The one wording of every surface (a verified
    result's ``reason()`` and the bulk path's, ``corr2cause_bulk``)."""
    if relation == _NEUTRAL:
        assert witness is not None
        some = "some" if holds_in is None else holds_in
        return (f"holds in {some} of {class_size} members, e.g. {shown[0]} "
                f"(via {_witness_text(premise, witness)}), but not in {shown[1]}")
    if relation == _ENTAILMENT:
        assert witness is not None
        return (f"holds in all {class_size} member(s) of the class, e.g. via "
                f"{_witness_text(premise, witness)} in {shown[0]}")
    return f"holds in none of the {class_size} member(s) of the class, e.g. not in {shown[0]}"


def _relation_words(h: Hypothesis, profile: Profile) -> str:
    strictly = profile is Profile.STRICT
    loose = profile is Profile.LOOSE
    p, q = h.first, h.second
    if h.kind is RelationKind.DIRECT_CAUSE:
        return f"{p}→{q} is an edge"
    if h.kind is RelationKind.INDIRECT_CAUSE:
        if strictly and h.form is SurfaceForm.CAUSE_NOT_DIRECT:
            return f"{p} is an ancestor but not a parent of {q}"
        return f"a directed path from {p} to {q} through at least one mediator exists"
    what = "effect" if h.kind is RelationKind.COMMON_EFFECT else "cause"
    if strictly:
        return f"{p} and {q} have a common {'child' if what == 'effect' else 'parent'}"
    if loose:
        return f"{p} and {q} have a common {'descendant' if what == 'effect' else 'ancestor'}"
    return (f"some third variable is a common {what} of {p} and {q} through directed paths "
            f"that share only that variable")


def _witness_text(premise: Premise, w: tuple[tuple[int, ...], ...]) -> str:
    return " and ".join([path_text(premise, path) for path in w])


def explain_text(analysis: ClassAnalysis, hypothesis: Hypothesis, verdict: Verdict,
                 profile: Profile = Profile.CORR2CAUSE) -> str:
    premise = analysis.premise
    v = premise.variables
    lines: list[str] = []
    lines.append(f"Premise: {premise.n} variables ({join_names(list(v))}), "
                 f"{len(premise.independences)} independence statement(s). Closed world: "
                 f"every pair and conditioning set not listed is dependent.")
    s = analysis.structure
    lines.append("")
    lines.append("1. Adjacencies")
    for x in range(premise.n):
        for y in range(x + 1, premise.n):
            if (x, y) in s.adjacent:
                lines.append(f"   {v[x]} — {v[y]} adjacent: no statement makes them "
                             f"independent given any set.")
            else:
                lines.append(f"   {v[x]} and {v[y]} are not adjacent: the premise states "
                             f"{statement_text(premise, s.separated_by[(x, y)])}.")
    lines.append("")
    lines.append("2. Colliders")
    lines.extend(colliders_intro(premise, s))
    for t in s.triples:
        a, m, b = v[t.x], v[t.middle], v[t.y]
        if t.collider:
            lines.append(f"   {m} is a collider {a}→{m}←{b}: "
                         f"{statement_text(premise, t.witness)}, but not given {m}.")
        else:
            lines.append(f"   {a}—{m}—{b} is not a collider: "
                         f"{statement_text(premise, t.witness)}.")
    if not analysis.consistent:
        lines.append("")
        lines.append("3. Conflict: no DAG reproduces the premise")
        for c in analysis.conflicts[:5]:
            lines.append(f"   {c.message}.")
        if len(analysis.conflicts) > 5:
            lines.append(f"   … and {len(analysis.conflicts) - 5} more mismatches.")
        lines.extend(opening_steps(analysis))
        lines.append("")
        lines.append(f"Conclusion: the premise is inconsistent; \"{hypothesis.describe()}\" "
                     f"has no label.")
        return "\n".join(lines)
    lines.append("")
    lines.append("3. Orientations forced")
    forced = [o for o in (analysis.cpdag.orientations if analysis.cpdag else ())
              if o.rule != "collider"]
    if not forced:
        lines.append("   None beyond the colliders.")
    for o in forced:
        t, h = v[o.tail], v[o.head]
        if o.rule == "R1":
            c = v[o.via[0]]
            lines.append(f"   {t}→{h} is forced: otherwise {t} would be a new collider "
                         f"{c}→{t}←{h} ({c} and {h} are not adjacent).")
        elif o.rule == "R2":
            c = v[o.via[0]]
            lines.append(f"   {t}→{h} is forced: otherwise {t}→{c}→{h}→{t} would be a cycle.")
        elif o.rule == "R3":
            c, d = (v[i] for i in o.via)
            lines.append(f"   {t}→{h} is forced (Meek rule 3): {c}→{h}←{d} with {c}, {d} "
                         f"non-adjacent and {t} adjacent to both; {h}→{t} would force a "
                         f"cycle or a new collider.")
        else:
            d, c = (v[i] for i in o.via)
            lines.append(f"   {t}→{h} is forced (Meek rule 4) via {d}→{c}→{h}.")
    directed, undirected = verdict.certificate.cpdag_directed, verdict.certificate.cpdag_undirected
    lines.append("")
    lines.append(f"4. Equivalence class: {analysis.size} member(s). CPDAG: directed "
                 f"{dag_text(premise, directed)}; undirected "
                 f"{', '.join(f'{v[a]}—{v[b]}' for a, b in undirected) or '(none)'}.")
    lines.append("")
    cert = verdict.certificate
    lines.append(f"5. Hypothesis \"{hypothesis.describe()}\" ({profile.value} reading: "
                 f"{_relation_words(hypothesis, profile)})")
    if verdict.relation == Outcome.NEUTRAL:
        w = cert.witnesses[0]
        assert w is not None
        some = "some" if verdict.holds_in is None else str(verdict.holds_in)
        lines.append(f"   Holds in {some} of {verdict.class_size} members, e.g. "
                     f"{dag_text(premise, cert.members[0])} (witness {_witness_text(premise, w)});")
        lines.append(f"   fails in {dag_text(premise, cert.members[1])}.")
    elif (reason := reason_for(analysis, hypothesis, verdict, profile)) is not None:
        entailed = verdict.relation == Outcome.ENTAILMENT
        lines.append(f"   Structural reason ({reason.kind.value}): {reason.text}.")
        lines.append(f"   So it {'holds' if entailed else 'fails'} in "
                     f"all {verdict.class_size} member(s) (each listed in the certificate).")
    else:
        shown = list(zip(cert.members, cert.witnesses, strict=True))[:MAX_LISTED_MEMBERS]
        for i, (m, w) in enumerate(shown, 1):
            tail = f"holds: {_witness_text(premise, w)}" if w is not None else "fails"
            lines.append(f"   member {i}: {dag_text(premise, m)} — {tail}")
        if not cert.complete:
            lines.append(f"   The class is too large to list; a SAT query finds no member "
                         f"{'without' if verdict.relation == Outcome.ENTAILMENT else 'with'} the "
                         f"relation (re-derived by the checker's own z3 query).")
        elif len(cert.members) > MAX_LISTED_MEMBERS:
            lines.append(f"   … {len(cert.members) - MAX_LISTED_MEMBERS} more members, each "
                         f"{'with' if verdict.relation == Outcome.ENTAILMENT else 'without'} the "
                         f"relation (all in the certificate).")
    lines.append("")
    conclusion = {
        Outcome.ENTAILMENT: "entailment (valid): the relation holds in every member",
        Outcome.CONTRADICTION: "contradiction (invalid): the relation holds in no member",
        Outcome.NEUTRAL: "neutral (invalid): the relation holds in some members only",
    }[verdict.relation]
    lines.append(f"Conclusion: {conclusion}.")
    if verdict.ambiguous:
        lines.append("Note: ambiguous — the profiles disagree on the binary label: "
                     + ", ".join(f"{k}={val}" for k, val in verdict.labels_by_profile.items())
                     + ".")
    return "\n".join(lines)


def explain_json(analysis: ClassAnalysis, hypothesis: Hypothesis, verdict: Verdict,
                 checked: bool) -> dict[str, Any]:
    premise = analysis.premise
    s = analysis.structure
    v = premise.variables
    return {
        "variables": list(v),
        "hypothesis": {"relation": hypothesis.kind.value, "form": hypothesis.form.value,
                       "first": hypothesis.first, "second": hypothesis.second},
        "label": verdict.label,
        "relation": verdict.relation,
        "class_size": verdict.class_size,
        "holds_in": verdict.holds_in,
        "ambiguous": verdict.ambiguous,
        "labels_by_profile": verdict.labels_by_profile,
        "adjacencies": [[v[a], v[b]] for a, b in sorted(s.adjacent)],
        "non_adjacencies": [{"pair": [v[a], v[b]], "because": statement_text(premise, st)}
                            for (a, b), st in sorted(s.separated_by.items())],
        "colliders": [{"triple": [v[t.x], v[t.middle], v[t.y]],
                       "because": statement_text(premise, t.witness)}
                      for t in s.colliders],
        "orientations": [{"edge": [v[o.tail], v[o.head]], "rule": o.rule,
                          "via": [v[i] for i in o.via]}
                         for o in (analysis.cpdag.orientations if analysis.cpdag else ())],
        "conflicts": [c.message for c in analysis.conflicts],
        "structural_reason": None if (r := reason_for(analysis, hypothesis, verdict)) is None
        else {"kind": r.kind.value, "text": r.text},
        "certificate": verdict.certificate.to_json(v),
        "certificate_checked": checked,
    }


def explain_dot(analysis: ClassAnalysis, verdict: Verdict,
                hypothesis: Hypothesis | None = None) -> str:
    """The CPDAG in DOT with the hypothesis and a legend; every edge of the first witness
    (compelled or reversible) is drawn in red, reversible ones in the witness's direction."""
    premise = analysis.premise
    v = premise.variables
    cert = verdict.certificate
    highlight: set[tuple[int, int]] = set()
    first_witness = next((w for w in cert.witnesses if w is not None), None)
    if first_witness:
        for path in first_witness:
            highlight |= set(zip(path, path[1:], strict=False))
    asked = f"{hypothesis.describe()}? " if hypothesis is not None else ""
    out = ["digraph cpdag {", '  rankdir=LR; node [shape=circle];',
           f"  label={json.dumps(f'{asked}{verdict.relation}, class size {verdict.class_size}')};",
           "  labelloc=t;"]
    for name in v:
        out.append(f'  "{name}";')
    for t, h in cert.cpdag_directed:
        color = ' color="red" penwidth=2' if (t, h) in highlight else ""
        out.append(f'  "{v[t]}" -> "{v[h]}" [{color.strip()}];')
    for a, b in cert.cpdag_undirected:
        if (a, b) in highlight or (b, a) in highlight:
            t, h = (a, b) if (a, b) in highlight else (b, a)
            out.append(f'  "{v[t]}" -> "{v[h]}" [color="red" penwidth=2 style=dashed];')
        else:
            out.append(f'  "{v[a]}" -> "{v[b]}" [dir=none];')
    if cert.conflict is not None:
        out.append(f'  conflict [shape=box label={json.dumps(cert.conflict.message)}];')
    out += ['  subgraph cluster_legend {', '    label="legend"; fontsize=10; style=dashed;',
            '    node [shape=plaintext fontsize=10];',
            '    l1 [label="X -> Y: compelled (every member)"];',
            '    l2 [label="X - Y: reversible (members differ)"];',
            '    l3 [label="red: witness of the hypothesis (dashed: reversible edge, as the '
            'witness member orients it)"];',
            '    l1 -> l2 -> l3 [style=invis];', '  }', "}"]
    return "\n".join(out)
