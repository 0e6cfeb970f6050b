"""Truth of a hypothesis in one DAG, under a semantics profile, with a witness.

Profiles (DESIGN.md 3.1).  For an ordered pair (P, Q):

``corr2cause`` (default; the generator's intent, textbook notions)
    * direct cause: ``P → Q`` is an edge;
    * indirect cause: a directed path ``P → … → Q`` of length ≥ 2 exists (a direct
      edge may exist too);
    * collider: some ``C ∉ {P, Q}`` has directed paths ``P ⇝ C`` and ``Q ⇝ C``
      sharing only C.  Such paths exist iff C is reachable from P avoiding Q and
      from Q avoiding P (cut both paths at their first common node);
    * confounder: the mirror image, paths ``C ⇝ P`` and ``C ⇝ Q`` sharing only C.

``loose``
    collider / confounder mean any common descendant / ancestor ``C ∉ {P, Q}``.

``strict`` (the words read literally)
    collider / confounder mean a common child / parent; "P is a cause for Q, but
    not a direct one" means P is an ancestor and *not* a parent of Q.

A witness is a tuple of directed paths (node lists): one path for causes, two
paths ending (collider) or starting (confounder) at the same node.  ``None``
means the relation fails; the checker then re-derives the absence itself.
"""

from __future__ import annotations

import enum
from functools import lru_cache

from causal_oracle.oracle.graph import Dag, bits, children_of, directed_path, reach_from
from causal_oracle.oracle.statements import RelationKind, SurfaceForm

Witness = tuple[tuple[int, ...], ...]


class Profile(enum.Enum):
    """The semantics profile that reads a hypothesis (DESIGN.md §3.1).

    ``CORR2CAUSE`` (default): textbook notions, collider/confounder by directed
    paths sharing only the third node; ``LOOSE``: any common descendant/ancestor;
    ``STRICT``: common child/parent, "a cause but not a direct one" = ancestor and
    not parent.
    """

    CORR2CAUSE = "corr2cause"
    LOOSE = "loose"
    STRICT = "strict"
    #: Corr2Cause++ gold: the relation is read strictly, but in *one* graph, the
    #: CPDAG's directed (compelled) edges — see ``oracle.compelled``.  In a single DAG
    #: it reads exactly like ``STRICT``.
    COMPELLED = "compelled"


def _strict(profile: Profile) -> bool:
    return profile in (Profile.STRICT, Profile.COMPELLED)


def _literal_not_direct(profile: Profile, form: SurfaceForm) -> bool:
    """Whether "a cause, but not directly" means ancestor and *not* parent here."""
    return form is SurfaceForm.MEDIATORS_NOT_DIRECTLY or (
        _strict(profile) and form is SurfaceForm.CAUSE_NOT_DIRECT)


def _indirect_path(dag: Dag, p: int, q: int) -> tuple[int, ...] | None:
    for c in bits(dag.children()[p]):
        if c == q:
            continue
        rest = directed_path(dag, c, q, avoid=1 << p) if c != q else None
        if rest is not None:
            return (p, *rest)
    return None


def _common(dag: Dag, p: int, q: int, downward: bool, disjoint: bool) -> Witness | None:
    reach = dag.descendants if downward else dag.ancestors
    pm, qm = 1 << p, 1 << q
    if disjoint:
        shared = reach(p, avoid=qm) & reach(q, avoid=pm) & ~(pm | qm)
    else:
        shared = reach(p) & reach(q) & ~(pm | qm)
    if not shared:
        return None
    c = next(bits(shared))
    if disjoint:
        return _cut_disjoint(dag, p, q, c, downward)
    if downward:
        first, second = directed_path(dag, p, c), directed_path(dag, q, c)
    else:
        first, second = directed_path(dag, c, p), directed_path(dag, c, q)
    assert first is not None and second is not None
    return (tuple(first), tuple(second))


def _cut_disjoint(dag: Dag, p: int, q: int, c: int, downward: bool) -> Witness:
    """Two paths sharing only their meeting node, found by cutting at the first common node."""
    pm, qm = 1 << p, 1 << q
    if downward:
        a = directed_path(dag, p, c, avoid=qm)
        b = directed_path(dag, q, c, avoid=pm)
    else:  # reverse orientation: paths from c, compare in reverse
        a = directed_path(dag, c, p, avoid=qm)
        b = directed_path(dag, c, q, avoid=pm)
        a, b = a[::-1], b[::-1]  # type: ignore[index]
    assert a is not None and b is not None
    b_nodes = set(b)
    meet = next(v for v in a if v in b_nodes)
    a_cut, b_cut = a[: a.index(meet) + 1], b[: b.index(meet) + 1]
    if downward:
        return (tuple(a_cut), tuple(b_cut))
    return (tuple(a_cut[::-1]), tuple(b_cut[::-1]))


def witness(dag: Dag, kind: RelationKind, form: SurfaceForm, p: int, q: int,
            profile: Profile = Profile.CORR2CAUSE) -> Witness | None:
    """The relation's witness in ``dag``, or ``None`` when it does not hold."""
    if kind is RelationKind.DIRECT_CAUSE:
        return ((p, q),) if dag.has_edge(p, q) else None
    if kind is RelationKind.INDIRECT_CAUSE:
        if _literal_not_direct(profile, form):
            if dag.has_edge(p, q):
                return None
            path = directed_path(dag, p, q)
            return (tuple(path),) if path else None
        path = _indirect_path(dag, p, q)
        return (path,) if path else None
    downward = kind is RelationKind.COMMON_EFFECT
    if _strict(profile):
        if downward:
            shared = dag.children()[p] & dag.children()[q]
        else:
            shared = dag.parents[p] & dag.parents[q]
        if not shared:
            return None
        c = next(bits(shared))
        return ((p, c), (q, c)) if downward else ((c, p), (c, q))
    return _common(dag, p, q, downward, disjoint=profile is Profile.CORR2CAUSE)


def holds(dag: Dag, kind: RelationKind, form: SurfaceForm, p: int, q: int,
          profile: Profile = Profile.CORR2CAUSE) -> bool:
    """Whether the relation holds, by reachability on bitmasks (no path is built).

    Agrees with ``witness(...) is not None`` (tested); this is the fast path used to
    label items, ``witness`` is called only for the certificate.
    """
    pm, qm = 1 << p, 1 << q
    if kind is RelationKind.DIRECT_CAUSE:
        return bool(dag.parents[q] & pm)
    kids = dag.children()
    if kind is RelationKind.INDIRECT_CAUSE:
        if _literal_not_direct(profile, form):
            return not dag.parents[q] & pm and bool(dag.descendants(p) & qm)
        # q reachable from a child of p other than q itself (in a DAG walks are paths)
        start = kids[p] & ~qm
        return bool(start) and bool(reach_from(kids, start, 0) & qm)
    step = kids if kind is RelationKind.COMMON_EFFECT else dag.parents
    if _strict(profile):
        return bool(step[p] & step[q] & ~(pm | qm))
    if profile is Profile.LOOSE:
        return bool(reach_from(step, step[p], 0) & reach_from(step, step[q], 0) & ~(pm | qm))
    return bool(reach_from(step, step[p] & ~qm, qm) & reach_from(step, step[q] & ~pm, pm)
                & ~(pm | qm))


@lru_cache(maxsize=65536)
def _closure(step: tuple[int, ...]) -> tuple[int, ...]:
    """For each node, every node reachable from it along ``step`` (itself excluded)."""
    reach = list(step)
    changed = True
    while changed:
        changed = False
        for v, mask in enumerate(reach):
            grown = mask
            for w in bits(mask):
                grown |= reach[w]
            if grown != mask:
                reach[v] = grown
                changed = True
    return tuple(reach)


def holds_in_members(dags: tuple[Dag, ...], kind: RelationKind, form: SurfaceForm, p: int, q: int,
                     profile: Profile = Profile.CORR2CAUSE) -> list[bool]:
    """``[holds(d, kind, form, p, q, profile) for d in dags]``, with the case analysis
    done once for the whole class and reachability read off per-member closures
    (the labelling hot path)."""
    pm, qm = 1 << p, 1 << q
    both = pm | qm
    if kind is RelationKind.DIRECT_CAUSE:
        return [bool(d.parents[q] & pm) for d in dags]
    if kind is RelationKind.INDIRECT_CAUSE:
        if _literal_not_direct(profile, form):
            return [not d.parents[q] & pm and bool(_closure(children_of(d.parents))[p] & qm)
                    for d in dags]
        out = []
        for d in dags:
            kids = children_of(d.parents)
            desc = _closure(kids)
            through = 0
            for c in bits(kids[p] & ~qm):
                through |= (1 << c) | desc[c]
            out.append(bool(through & qm))
        return out
    downward = kind is RelationKind.COMMON_EFFECT
    out = []
    for d in dags:
        step = children_of(d.parents) if downward else d.parents
        if _strict(profile):
            out.append(bool(step[p] & step[q] & ~both))
        elif profile is Profile.LOOSE:
            reach = _closure(step)
            out.append(bool(reach[p] & reach[q] & ~both))
        else:
            out.append(bool(reach_from(step, step[p] & ~qm, qm)
                            & reach_from(step, step[q] & ~pm, pm) & ~both))
    return out
