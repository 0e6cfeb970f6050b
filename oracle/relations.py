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

from causal_oracle.oracle.graph import Dag, path_along, reach, reach_from
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


class Reading(enum.Enum):
    """The formal relation a hypothesis names under a profile: the one map from
    (relation kind, surface form, profile) to a graph property of (P, Q).

    ``EDGE`` P → Q.  ``MEDIATED`` a directed path P → C ⇝ Q through a mediator C (an
    edge P → Q may exist too).  ``ANCESTOR_NOT_PARENT`` a directed path and no edge.
    ``COMMON_CHILD`` / ``COMMON_PARENT`` a C ∉ {P, Q} with P → C ← Q / P ← C → Q.
    ``COMMON_DESCENDANT`` / ``COMMON_ANCESTOR`` a C ∉ {P, Q} reachable from both /
    reaching both.  ``DISJOINT_EFFECT`` / ``DISJOINT_CAUSE`` the same by two directed
    paths that share only C (C is reached from P avoiding Q and from Q avoiding P).
    """

    EDGE = "edge"
    MEDIATED = "mediated"
    ANCESTOR_NOT_PARENT = "ancestor_not_parent"
    COMMON_CHILD = "common_child"
    COMMON_PARENT = "common_parent"
    COMMON_DESCENDANT = "common_descendant"
    COMMON_ANCESTOR = "common_ancestor"
    DISJOINT_EFFECT = "disjoint_effect"
    DISJOINT_CAUSE = "disjoint_cause"


#: the readings as the witness and truth functions test them: a module constant, where
#: ``Reading.EDGE`` is an attribute look-up through the enum's metaclass (≈ 80 ns in
#: Python 3.11, ten of them per witness before this)
_EDGE, _MEDIATED, _NOT_PARENT = Reading.EDGE, Reading.MEDIATED, Reading.ANCESTOR_NOT_PARENT
#: readings that follow children (the rest follow parents), by a common child or parent,
#: by common descendants or ancestors, by paths that share only their meeting node
_DOWNWARD = (Reading.COMMON_CHILD, Reading.COMMON_DESCENDANT, Reading.DISJOINT_EFFECT)
_ADJACENT = (Reading.COMMON_CHILD, Reading.COMMON_PARENT)
_REACHED = (Reading.COMMON_DESCENDANT, Reading.COMMON_ANCESTOR)
_DISJOINT = (Reading.DISJOINT_EFFECT, Reading.DISJOINT_CAUSE)


def reading(kind: RelationKind, form: SurfaceForm, profile: Profile) -> Reading:
    """What the hypothesis ``kind``/``form`` means under ``profile`` (module docstring).

    >>> reading(RelationKind.COMMON_EFFECT, SurfaceForm.COLLIDER_EXISTS, Profile.STRICT)
    <Reading.COMMON_CHILD: 'common_child'>
    """
    if kind is RelationKind.DIRECT_CAUSE:
        return Reading.EDGE
    if kind is RelationKind.INDIRECT_CAUSE:
        return (Reading.ANCESTOR_NOT_PARENT if _literal_not_direct(profile, form)
                else Reading.MEDIATED)
    downward = kind is RelationKind.COMMON_EFFECT
    if _strict(profile):
        return Reading.COMMON_CHILD if downward else Reading.COMMON_PARENT
    if profile is Profile.LOOSE:
        return Reading.COMMON_DESCENDANT if downward else Reading.COMMON_ANCESTOR
    return Reading.DISJOINT_EFFECT if downward else Reading.DISJOINT_CAUSE


def _strict(profile: Profile) -> bool:
    return profile in (Profile.STRICT, Profile.COMPELLED)


def _literal_not_direct(profile: Profile, form: SurfaceForm) -> bool:
    """Whether "a cause, but not directly" means ancestor and *not* parent here."""
    return form is SurfaceForm.MEDIATORS_NOT_DIRECTLY or (
        _strict(profile) and form is SurfaceForm.CAUSE_NOT_DIRECT)


def _indirect_path(kids: tuple[int, ...], p: int, q: int) -> tuple[int, ...] | None:
    children = kids[p] & ~(1 << q)
    while children:
        low = children & -children
        c = low.bit_length() - 1
        rest = path_along(kids, c, q, avoid=1 << p)
        if rest is not None:
            return (p, *rest)
        children ^= low
    return None


def _common(dag: Dag, kids: tuple[int, ...], p: int, q: int, downward: bool, disjoint: bool
            ) -> Witness | None:
    step = kids if downward else dag.parents
    pm, qm = 1 << p, 1 << q
    if disjoint:  # reached from p avoiding q, and from q avoiding p
        shared = reach(step, step[p] & ~qm, qm) & reach(step, step[q] & ~pm, pm)
    else:
        shared = reach(step, step[p]) & reach(step, step[q])
    shared &= ~(pm | qm)
    if not shared:
        return None
    c = (shared & -shared).bit_length() - 1
    if disjoint:
        return _cut_disjoint(kids, p, q, c, downward)
    if downward:
        first, second = path_along(kids, p, c), path_along(kids, q, c)
    else:
        first, second = path_along(kids, c, p), path_along(kids, c, q)
    assert first is not None and second is not None
    return (tuple(first), tuple(second))


def _cut_disjoint(kids: tuple[int, ...], p: int, q: int, c: int, downward: bool) -> Witness:
    """Two paths sharing only their meeting node, found by cutting at the first common node."""
    pm, qm = 1 << p, 1 << q
    if downward:
        a = path_along(kids, p, c, avoid=qm)
        b = path_along(kids, q, c, avoid=pm)
    else:  # reverse orientation: paths from c, compare in reverse
        a = path_along(kids, c, p, avoid=qm)
        b = path_along(kids, c, q, avoid=pm)
        a, b = a[::-1], b[::-1]  # type: ignore[index]
    assert a is not None and b is not None
    on_b = 0
    for v in b:
        on_b |= 1 << v
    i = 0
    while not on_b >> a[i] & 1:  # the first node of a on b (c is on both)
        i += 1
    a_cut, b_cut = a[: i + 1], b[: b.index(a[i]) + 1]
    if downward:
        return (tuple(a_cut), tuple(b_cut))
    return (tuple(a_cut[::-1]), tuple(b_cut[::-1]))


def witness(dag: Dag, kind: RelationKind, form: SurfaceForm, p: int, q: int,
            profile: Profile = Profile.CORR2CAUSE) -> Witness | None:
    """The relation's witness in ``dag``, or ``None`` when it does not hold."""
    return witness_reading(dag, reading(kind, form, profile), p, q)


def witness_reading(dag: Dag, r: Reading, p: int, q: int) -> Witness | None:
    """``witness`` of the reading ``r`` (``reading``'s result) for (p, q)."""
    if r is _EDGE:
        return ((p, q),) if dag.has_edge(p, q) else None
    kids = dag.children()
    if r is _NOT_PARENT:
        if dag.has_edge(p, q):
            return None
        path = path_along(kids, p, q)
        return (tuple(path),) if path else None
    if r is _MEDIATED:
        found = _indirect_path(kids, p, q)
        return (found,) if found else None
    downward = r in _DOWNWARD
    if r in _ADJACENT:
        shared = kids[p] & kids[q] if downward else dag.parents[p] & dag.parents[q]
        shared &= ~((1 << p) | (1 << q))
        if not shared:
            return None
        c = (shared & -shared).bit_length() - 1
        return ((p, c), (q, c)) if downward else ((c, p), (c, q))
    return _common(dag, kids, p, q, downward, disjoint=r in _DISJOINT)


def holds(dag: Dag, kind: RelationKind, form: SurfaceForm, p: int, q: int,
          profile: Profile = Profile.CORR2CAUSE) -> bool:
    """Whether the relation holds, by reachability on bitmasks (no path is built).

    Agrees with ``witness(...) is not None`` (tested); this is the fast path used to
    label items, ``witness`` is called only for the certificate.
    """
    return holds_reading(dag, reading(kind, form, profile), p, q)


def holds_reading(dag: Dag, r: Reading, p: int, q: int) -> bool:
    """Whether ``r`` holds for the ordered pair (p, q) in ``dag`` (``Reading``)."""
    pm, qm = 1 << p, 1 << q
    if r is _EDGE:
        return bool(dag.parents[q] & pm)
    kids = dag.children()
    if r is _NOT_PARENT:
        return not dag.parents[q] & pm and bool(dag.descendants(p) & qm)
    if r is _MEDIATED:
        # q reachable from a child of p other than q itself (in a DAG walks are paths)
        start = kids[p] & ~qm
        return bool(start) and bool(reach_from(kids, start, 0) & qm)
    step = kids if r in _DOWNWARD else dag.parents
    if r in _ADJACENT:
        return bool(step[p] & step[q] & ~(pm | qm))
    if r in _REACHED:
        return bool(reach_from(step, step[p], 0) & reach_from(step, step[q], 0) & ~(pm | qm))
    return bool(reach_from(step, step[p] & ~qm, qm) & reach_from(step, step[q] & ~pm, pm)
                & ~(pm | qm))
