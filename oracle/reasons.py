"""Structural reasons: why a relation holds in every member, or in none, read off the CPDAG.

Listing every member with "— fails" proves a contradiction but does not say
*why*.  An expert argues from the class's shared structure instead, and the
CPDAG of the class carries all of it:

* every member contains every **compelled** (directed) edge of the CPDAG, so a
  witness made of compelled edges alone holds in every member (entailment);
* every member's edges lie in the **possible graph** — compelled edges in their
  direction, reversible edges in both — so a relation that needs a directed path
  the possible graph lacks holds in no member (contradiction).

Each reason names its kind (``ReasonKind``):

``non_adjacent``
    "P directly causes Q" fails everywhere because P and Q are non-adjacent in
    every member (step 1: the statement that separates them);
``compelled_edge``
    the edge between P and Q is compelled one way in every member (the Meek
    step that orients it) — entailment for P→Q, contradiction for Q→P;
``sink`` / ``source``
    P has no children (parents) in any member: every edge at P is compelled
    into (out of) it, so nothing P would have to cause (be caused by) exists;
``no_possible_path``
    no route from P to Q through a mediator can be directed in any member;
``no_common_descendant`` / ``no_common_ancestor``
    what P can reach in some member and what Q can reach share nothing but
    themselves, so no collider (confounder) exists;
``compelled_witness``
    the compelled edges alone contain the relation's witness.

When no structural reason exists the explanation falls back to the member list.
The reasons are sound by construction (each is checked on the compelled graph or
on the possible graph with the same ``relations.holds`` that labels items).
Also here: the sentence for step 2 when the premise has no classifiable
unshielded triple, and the orientation steps behind an inconsistency.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from causal_oracle.oracle.equivalence import ClassAnalysis, ConflictKind
from causal_oracle.oracle.graph import Dag, bits, directed_path, reach_from
from causal_oracle.oracle.labels import Verdict
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.relations import Profile, witness
from causal_oracle.oracle.statements import Hypothesis, Premise, RelationKind, SurfaceForm
from causal_oracle.oracle.structure import Structure


class ReasonKind(enum.Enum):
    NON_ADJACENT = "non_adjacent"
    COMPELLED_EDGE = "compelled_edge"
    SINK = "sink"
    SOURCE = "source"
    NO_POSSIBLE_PATH = "no_possible_path"
    NO_COMMON_DESCENDANT = "no_common_descendant"
    NO_COMMON_ANCESTOR = "no_common_ancestor"
    COMPELLED_WITNESS = "compelled_witness"
    NON_COLLIDER = "non_collider"


@dataclass(frozen=True, slots=True)
class Reason:
    kind: ReasonKind
    text: str
    #: the variable a sink / source reason is about
    node: int | None = None


def _names(premise: Premise, mask: int) -> str:
    found = premise.names(mask)
    if not found:
        return "nothing"
    return found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]


def _graphs(analysis: ClassAnalysis) -> tuple[Dag, Dag]:
    """(compelled graph, possible graph) as parent bitmasks."""
    n = analysis.premise.n
    compelled = Dag.from_edges(n, analysis.cpdag_directed)
    both = list(analysis.cpdag_directed)
    for a, b in analysis.cpdag_undirected:
        both += [(a, b), (b, a)]
    return compelled, Dag.from_edges(n, both)


def _rule_text(analysis: ClassAnalysis, tail: int, head: int) -> str:
    v = analysis.premise.variables
    for o in analysis.cpdag.orientations if analysis.cpdag else ():
        if (o.tail, o.head) == (tail, head):
            if o.rule == "collider":
                return "it is part of a collider (step 2)"
            return f"Meek rule {o.rule[1:]} via {', '.join(v[i] for i in o.via)} (step 3)"
    return "every member orients it so (step 4)"


def _literal_strict(kind: RelationKind, form: SurfaceForm, profile: Profile) -> bool:
    return (kind is RelationKind.INDIRECT_CAUSE and profile is Profile.STRICT
            and form is SurfaceForm.CAUSE_NOT_DIRECT)


def reason_for(analysis: ClassAnalysis, hypothesis: Hypothesis, verdict: Verdict,
               profile: Profile = Profile.CORR2CAUSE) -> Reason | None:
    """``structural_reason`` for a parsed hypothesis (its pair from the certificate)."""
    p, q = verdict.certificate.pair
    return structural_reason(analysis, verdict, hypothesis.kind, hypothesis.form, p, q, profile)


def structural_reason(analysis: ClassAnalysis, verdict: Verdict, kind: RelationKind,
                      form: SurfaceForm, p: int, q: int,
                      profile: Profile = Profile.CORR2CAUSE) -> Reason | None:
    """The structural reason for an entailment or a contradiction, or ``None``."""
    if verdict.relation not in (Outcome.ENTAILMENT, Outcome.CONTRADICTION) \
            or not analysis.consistent:
        return None
    premise = analysis.premise
    v = premise.variables
    P, Q = v[p], v[q]
    compelled, possible = _graphs(analysis)
    adjacent = (min(p, q), max(p, q)) in analysis.structure.adjacent
    if verdict.relation == Outcome.ENTAILMENT:
        if _literal_strict(kind, form, profile) and adjacent:
            return None
        w = witness(compelled, kind, form, p, q, profile)
        if w is None:
            return None
        if kind is RelationKind.DIRECT_CAUSE:
            return Reason(ReasonKind.COMPELLED_EDGE,
                          f"{P}→{Q} is compelled in every member: {_rule_text(analysis, p, q)}")
        paths = " and ".join("→".join(v[i] for i in path) for path in w)
        return Reason(ReasonKind.COMPELLED_WITNESS,
                      f"the compelled edges alone give {paths}, and every member contains "
                      f"every compelled edge")
    # contradiction
    if kind is RelationKind.DIRECT_CAUSE:
        if not adjacent:
            s = analysis.structure.separated_by[(min(p, q), max(p, q))]
            given = f" given {_names(premise, s.given)}" if s.given else ""
            return Reason(ReasonKind.NON_ADJACENT,
                          f"{P} and {Q} are non-adjacent in every member (step 1: the premise "
                          f"states {v[s.x]} and {v[s.y]} are independent{given})")
        if compelled.has_edge(q, p):
            return Reason(ReasonKind.COMPELLED_EDGE,
                          f"the edge between {P} and {Q} is compelled as {Q}→{P} in every "
                          f"member: {_rule_text(analysis, q, p)}")
        return None
    if _literal_strict(kind, form, profile):
        if compelled.has_edge(p, q):
            return Reason(ReasonKind.COMPELLED_EDGE,
                          f"{P}→{Q} is compelled in every member ({_rule_text(analysis, p, q)}),"
                          f" so {P} is always a direct cause of {Q}")
        if not possible.descendants(p) >> q & 1:
            return Reason(ReasonKind.NO_POSSIBLE_PATH,
                          f"no directed path from {P} to {Q} exists in any member: "
                          f"{P} can reach only {_names(premise, possible.descendants(p))}")
        return None
    kids, parents = possible.children(), possible.parents
    if _possible(kids, parents, kind, p, q, profile):
        if kind is RelationKind.COMMON_EFFECT and profile is Profile.CORR2CAUSE:
            return _non_collider(analysis, compelled, possible, p, q)
        return None
    if kind in (RelationKind.INDIRECT_CAUSE, RelationKind.COMMON_EFFECT):
        for node, other in ((p, q), (q, p)):
            if kind is RelationKind.INDIRECT_CAUSE and node == q:
                break
            if not kids[node] & ~(1 << other) or (kind is RelationKind.COMMON_EFFECT
                                                  and not kids[node]):
                into = "every other edge at" if kids[node] else "every edge at"
                return Reason(ReasonKind.SINK,
                              f"{v[node]} has no children in any member"
                              f"{' other than ' + v[other] if kids[node] else ''}: {into} "
                              f"{v[node]} is compelled into it", node)
        if kind is RelationKind.INDIRECT_CAUSE:
            reach = reach_from(kids, kids[p] & ~(1 << q), 1 << p)
            return Reason(ReasonKind.NO_POSSIBLE_PATH,
                          f"no route from {P} to {Q} through a mediator can be directed in any "
                          f"member: through its possible children other than {Q}, {P} can "
                          f"reach only {_names(premise, reach)}")
        return Reason(ReasonKind.NO_COMMON_DESCENDANT,
                      f"what {P} can reach in some member "
                      f"({_names(premise, possible.descendants(p))}) and what {Q} can reach "
                      f"({_names(premise, possible.descendants(q))}) share no third variable, "
                      f"so {P} and {Q} have no common effect in any member")
    for node in (p, q):
        if not parents[node]:
            return Reason(ReasonKind.SOURCE,
                          f"{v[node]} has no parents in any member: every edge at {v[node]} is "
                          f"compelled out of it, so nothing causes {v[node]}", node)
    return Reason(ReasonKind.NO_COMMON_ANCESTOR,
                  f"what can reach {P} in some member ({_names(premise, possible.ancestors(p))})"
                  f" and what can reach {Q} ({_names(premise, possible.ancestors(q))}) share no "
                  f"third variable, so {P} and {Q} have no common cause in any member")


def _non_collider(analysis: ClassAnalysis, compelled: Dag, possible: Dag, p: int,
                  q: int) -> Reason | None:
    """Paths P⇝M and Q⇝M that share only M enter M from two different variables x, y; if
    x and y are non-adjacent, x→M←y is a v-structure, so both edges are compelled.  When no
    candidate M has such an entry pair, no member has a collider of P and Q."""
    v = analysis.premise.variables
    adjacent = analysis.structure.adjacent
    kids, parents = possible.children(), possible.parents
    both = (1 << p) | (1 << q)
    from_p = reach_from(kids, kids[p] & ~both, both) | (1 << p)
    from_q = reach_from(kids, kids[q] & ~both, both) | (1 << q)
    meets = from_p & from_q & ~both
    for m in bits(meets):
        for x in bits(parents[m] & from_p & ~(1 << q)):
            for y in bits(parents[m] & from_q & ~(1 << p)):
                if x != y and ((min(x, y), max(x, y)) in adjacent
                               or (compelled.has_edge(x, m) and compelled.has_edge(y, m))):
                    return None
    where = ", ".join(v[m] for m in bits(meets))
    return Reason(ReasonKind.NON_COLLIDER,
                  f"{v[p]} and {v[q]} could only meet at {where}, each time entering from two "
                  f"non-adjacent variables that the premise does not make a collider there "
                  f"(step 2), so no member has paths from {v[p]} and {v[q]} that meet only at "
                  f"a common effect")


def _possible(kids: tuple[int, ...], parents: tuple[int, ...], kind: RelationKind, p: int,
              q: int, profile: Profile) -> bool:
    """Whether the relation could hold in a DAG whose edges lie in the possible graph.

    Directed paths in a DAG never revisit a node, so walks in the possible graph are
    cut where they return to their start; a relation that fails here fails in every
    member (each member's edges lie in the possible graph)."""
    pm, qm = 1 << p, 1 << q
    if kind is RelationKind.INDIRECT_CAUSE:
        return bool(reach_from(kids, kids[p] & ~qm & ~pm, pm) & qm)
    step = kids if kind is RelationKind.COMMON_EFFECT else parents
    if profile is Profile.STRICT:
        return bool(step[p] & step[q] & ~(pm | qm))
    if profile is Profile.LOOSE:
        return bool(reach_from(step, step[p] & ~pm, pm) & reach_from(step, step[q] & ~qm, qm)
                    & ~(pm | qm))
    both = pm | qm
    return bool(reach_from(step, step[p] & ~both, both) & reach_from(step, step[q] & ~both, both))


def colliders_intro(premise: Premise, structure: Structure) -> list[str]:
    """Step 2's opening when no unshielded triple can be classified (``[]`` otherwise)."""
    if structure.triples:
        return []
    v = premise.variables
    if not structure.conflicts:
        return ["   No unshielded triples (no two non-adjacent variables share a neighbour), "
                "so no colliders."]
    out = []
    for c in structure.conflicts:
        out.append(f"   {v[c.x]}—{v[c.middle]}—{v[c.y]} is an unshielded triple that cannot be "
                   f"classified: {v[c.middle]} is in one separating set of {v[c.x]} and "
                   f"{v[c.y]} and missing from another (step 3 below).")
    return out


def opening_steps(analysis: ClassAnalysis) -> list[str]:
    """For an unexplained independence: the orientation steps that make the conditioned
    node a descendant of the collider the open path passes through."""
    premise = analysis.premise
    v = premise.variables
    out: list[str] = []
    for c in analysis.conflicts:
        if (c.kind is not ConflictKind.UNEXPLAINED_INDEPENDENCE or not c.path
                or c.candidate is None or c.triple is None):
            continue
        dag, given = c.candidate, c.triple[2]
        for u, m, w in zip(c.path, c.path[1:], c.path[2:], strict=False):
            if not (dag.has_edge(u, m) and dag.has_edge(w, m)) or given >> m & 1:
                continue
            opener = next(bits(dag.descendants(m) & given), None)
            if opener is None:
                continue
            route = directed_path(dag, m, opener)
            if not route:
                continue
            steps = []
            for t, h in zip(route, route[1:], strict=False):
                steps.append(f"{v[t]}→{v[h]} ({_orientation_of(analysis, t, h)})")
            out.append(f"   {v[opener]} is a descendant of the collider {v[m]} in every such "
                       f"DAG: " + ", ".join(steps) + ".")
    return out


def _orientation_of(analysis: ClassAnalysis, t: int, h: int) -> str:
    for o in analysis.cpdag.orientations if analysis.cpdag else ():
        if (o.tail, o.head) == (t, h):
            v = analysis.premise.variables
            if o.rule == "collider":
                return "a collider the statements force"
            if o.rule == "R1":
                c = v[o.via[0]]
                return (f"forced by Meek rule 1: {c}→{v[t]} and {c}, {v[h]} are non-adjacent, so "
                        f"{v[h]}→{v[t]} would make a new collider {c}→{v[t]}←{v[h]}")
            if o.rule == "R2":
                c = v[o.via[0]]
                return (f"forced by Meek rule 2: {v[t]}→{c}→{v[h]}, so {v[h]}→{v[t]} would "
                        f"close a cycle")
            return f"forced by Meek rule {o.rule[1:]} via {', '.join(v[i] for i in o.via)}"
    return "the orientation of the candidate DAG; the other direction gives the same open path"
