"""The Markov equivalence class of a closed-world premise, or why there is none.

The DAGs consistent with a premise are exactly those whose complete set of
d-separations equals the listed independencies (DESIGN.md 3.1, faithfulness).
Such a DAG must have the skeleton and the colliders of ``oracle.structure``; all
DAGs with that skeleton and those v-structures are Markov equivalent and share
one set of d-separations (Verma & Pearl 1990).  So ``analyse``

1. derives skeleton and colliders, rejecting sepset conflicts;
2. enumerates the candidates with the SAT encoding (none → the colliders clash);
3. compares one candidate's d-separations with the statements: equal → the
   candidates are the class; different → no DAG fits.  The conflicts are every
   listed statement the candidate does not have (with the path that stays open),
   then the first d-separation it has that the premise does not list (with each
   path between the pair and the node that blocks it, or the fact that none
   joins them) — the search for unlisted ones stops at the first.

A premise whose "X correlates with Y" sentences contradict the listed marginal
independencies is inconsistent as well.  Results are cached by premise content.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import itemgetter

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.counting import class_size
from causal_oracle.oracle.dsep import (
    SLICED_LIMIT,
    blocked_paths,
    d_separated,
    open_path,
    reachable,
    separating_sets,
)
from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.oracle.extensions import listed_extensions
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.meek import Cpdag, orient
from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.sat_encoding import enumerate_members
from causal_oracle.oracle.statements import Independence, Premise, join_names
from causal_oracle.oracle.structure import Structure, derive_structure

#: the bitmask core's limit; the practical limits are text size and the time budget
MAX_VARIABLES = 32
MAX_MEMBERS = 50_000
#: classes up to this size are listed (``members``); larger ones are decided by SAT
#: queries (``oracle.sat_labels``) and only counted
LIST_LIMIT = 1024
#: how many blocked paths the message of a missing independence names
MAX_BLOCKED_SHOWN = 4
#: a member's edges, sorted
Edges = tuple[tuple[int, int], ...]


class ConflictKind(StrEnum):
    """Which statement (or statements) no DAG can satisfy.

    A ``StrEnum``: each member is its word (``repr`` included), which certificates,
    reports and the independent checker carry as plain data.
    """

    #: "X correlates with Y" and "X is independent of Y" are both stated
    CORRELATION = "correlation"
    #: a pair is separated both with and without a common neighbour of the two
    SEPSET = "sepset"
    #: no acyclic orientation of the skeleton has exactly the forced colliders
    COLLIDERS = "colliders"
    #: a listed independence that no candidate DAG has (a path stays open)
    UNEXPLAINED_INDEPENDENCE = "unexplained_independence"
    #: a d-separation every candidate has, but the premise does not list
    MISSING_INDEPENDENCE = "missing_independence"

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True, slots=True)
class Conflict:
    """Why no DAG reproduces the premise (``kind``: see ``ConflictKind``)."""

    kind: ConflictKind
    message: str
    statement: Independence | None = None
    #: (x, y, given) of the offending (in)dependence
    triple: tuple[int, int, int] | None = None
    #: an open path (for unexplained independencies)
    path: tuple[int, ...] | None = None
    #: a candidate DAG the argument refers to
    candidate: Dag | None = None


@dataclass(frozen=True, slots=True)
class ClassAnalysis:
    premise: Premise
    structure: Structure
    cpdag: Cpdag | None
    members: tuple[Dag, ...]
    conflicts: tuple[Conflict, ...]
    #: members as sorted edge lists, and the class CPDAG (directed iff all members agree)
    member_edges: tuple[tuple[tuple[int, int], ...], ...] = ()
    cpdag_directed: tuple[tuple[int, int], ...] = ()
    cpdag_undirected: tuple[tuple[int, int], ...] = ()
    #: the class size, counted by Clique-Picking (``oracle.counting``)
    count: int = 0
    #: one member (the first found), also when the class is too large to list
    representative: Dag | None = None

    @property
    def consistent(self) -> bool:
        return not self.conflicts

    @property
    def size(self) -> int:
        return self.count if self.consistent else 0

    @property
    def listed(self) -> bool:
        """Whether ``members`` is the whole class (small classes only)."""
        return self.consistent and len(self.members) == self.count


def _fmt(premise: Premise, x: int, y: int, given: int) -> str:
    names = premise.variables
    if not given:
        return f"{names[x]} ⊥ {names[y]}"
    return f"{names[x]} ⊥ {names[y]} | {', '.join(premise.names(given))}"


def _arrowed(premise: Premise, dag: Dag, path: tuple[int, ...]) -> str:
    out = premise.variables[path[0]]
    for u, v in zip(path, path[1:], strict=False):
        out += (" → " if dag.has_edge(u, v) else " ← ") + premise.variables[v]
    return out


def _why_open(premise: Premise, dag: Dag, path: tuple[int, ...], given: int) -> str:
    """Name the conditioned node (or descendant) that opens each collider on ``path``."""
    names = premise.variables
    notes = []
    for u, m, w in zip(path, path[1:], path[2:], strict=False):
        if dag.has_edge(u, m) and dag.has_edge(w, m):
            if given >> m & 1:
                notes.append(f"the collider {names[m]} is in the conditioning set")
            else:
                opener = dag.descendants(m) & given
                who = ", ".join(premise.names(opener))
                notes.append(f"the collider {names[m]} is opened by its descendant {who}, "
                             f"which is conditioned on")
    return f" ({'; '.join(notes)})" if notes else ""


def _correlation_conflicts(premise: Premise) -> list[Conflict]:
    marginal = {(s.x, s.y): s for s in premise.independences if s.given == 0}
    out = []
    for c in premise.correlations:
        if (c.x, c.y) in marginal:
            a, b = premise.variables[c.x], premise.variables[c.y]
            out.append(Conflict(ConflictKind.CORRELATION,
                                f"the premise says {a} correlates with {b} and also that "
                                f"{a} is independent of {b}", marginal[(c.x, c.y)],
                                (c.x, c.y, 0)))
    return out


def _faithfulness_conflicts(premise: Premise, candidate: Dag) -> list[Conflict]:
    """Where ``candidate``'s d-separations differ from the listed independencies.

    The candidates are Markov equivalent, so they share their d-separations and one
    stands for all.  A listed statement is *unexplained* exactly when the candidate
    leaves a path open (``open_path`` finds it: the witness the message shows).  The
    first d-separation the premise does not list is *missing*; one is enough to
    empty the class, so the lazy walk over the candidate's separations stops there
    (a dense premise on many variables is never walked through its 2^(n-2) sets per
    pair), and the listed statements it had not reached yet are tested one by one
    (the plain d-separation test first: most of them hold).  Up to ``SLICED_LIMIT``
    variables the walks of every pair and set run at once first
    (``dsep.separating_sets``): a faithful premise, the usual case, is confirmed by
    comparing one mask of separating sets per pair.
    """
    keys = premise.independence_keys()
    if premise.n <= SLICED_LIMIT and _listed_exactly(keys, separating_sets(candidate)):
        return []
    missing, reached = _first_unlisted(candidate, keys)
    if missing is None and len(reached) == len(keys):
        return []  # every separation listed, every listed one reached: faithful
    listed = {s.key: s for s in premise.independences}
    out = []
    for key in sorted(keys - reached):
        checkpoint()
        if missing is not None and d_separated(candidate, *key):
            continue  # separated: the walk stopped before it got there (the cheap test)
        found = open_path(candidate, *key)
        if found is None:  # separated: a conflict is only ever reported with its open path
            continue
        path = tuple(found)
        out.append(Conflict(
            ConflictKind.UNEXPLAINED_INDEPENDENCE,
            f"the premise states {premise.sentence(*key)} ({_fmt(premise, *key)}), but every "
            f"DAG with the skeleton and colliders the other statements force connects them "
            f"given that set: the path {_arrowed(premise, candidate, path)} is open"
            f"{_why_open(premise, candidate, path, key[2])}", listed[key], key, path, candidate))
    if missing is not None:
        out.append(Conflict(
            ConflictKind.MISSING_INDEPENDENCE,
            f"the premise does not list \"{premise.sentence(*missing)}\", yet every DAG with "
            f"the skeleton and colliders the statements force has {_fmt(premise, *missing)}: "
            f"{_why_blocked(premise, candidate, *missing)}; so under the closed-world reading "
            f"the premise makes them dependent, which no DAG reproduces",
            None, missing, None, candidate))
    return out


def _listed_exactly(keys: frozenset[tuple[int, int, int]], sets: dict[tuple[int, int], int]
                    ) -> bool:
    """Whether ``keys`` are exactly the separations ``sets`` gives (``dsep.separating_sets``'
    form: bit Z of ``sets[(x, y)]`` set iff Z separates x and y): as many, and each one
    there (a set of distinct triples, so that is equality)."""
    if sum(mask.bit_count() for mask in sets.values()) != len(keys):
        return False
    return all(given >= 0 and sets.get((x, y), 0) >> given & 1 for x, y, given in keys)


def _first_unlisted(dag: Dag, keys: frozenset[tuple[int, int, int]]
                    ) -> tuple[tuple[int, int, int] | None, set[tuple[int, int, int]]]:
    """The first of ``dag``'s d-separations (in ``oracle.dsep.separations``' order)
    that ``keys`` does not list, or None, and the listed ones met before it.

    The walk of ``separations``, with one walk fewer wherever the conditioning set
    already holds every non-adjacent partner of ``x`` (a walk that could separate
    nothing): dense classes have many such sets."""
    n = dag.n
    kids = dag.children()
    full = (1 << n) - 1
    reached: set[tuple[int, int, int]] = set()
    for x in range(n):
        far = full & ~(1 << x) & ~dag.parents[x] & ~kids[x] & ~((1 << (x + 1)) - 1)
        if not far:
            continue
        rest = full & ~(1 << x)
        given = 0
        while True:
            checkpoint()
            candidates = far & ~given
            if candidates:
                separated = candidates & ~reachable(dag, x, given, kids)
                while separated:
                    low = separated & -separated
                    key = (x, low.bit_length() - 1, given)
                    if key not in keys:
                        return key, reached
                    reached.add(key)
                    separated ^= low
            given = (given - rest) & rest
            if given == 0:
                break
    return None, reached


def _why_blocked(premise: Premise, dag: Dag, x: int, y: int, given: int) -> str:
    """Why ``given`` d-separates ``x`` and ``y`` in ``dag``: no path joins them, or the
    paths (up to ``MAX_BLOCKED_SHOWN`` groups, ``oracle.dsep.blocked_paths``) with the
    node that blocks each.  A group that every way on from its blocker shares is
    written up to the blocker: "A → B → … D" (every edge on out of B), "A → C ← … D"
    (every edge on into C), "A ← B … D" (any edge on)."""
    names = premise.variables
    cuts, more = blocked_paths(dag, x, y, given, MAX_BLOCKED_SHOWN)
    if not cuts:
        return f"no path joins {names[x]} and {names[y]}"
    notes = []
    for prefix, m in cuts:
        conditioned = bool(given >> m & 1)
        shown = _arrowed(premise, dag, prefix)
        if prefix[-1] == m:
            if not conditioned:
                shown += " ←"
            elif dag.has_edge(prefix[-2], m):
                shown += " →"
            shown += f" … {names[y]}"
        elif prefix[-1] != y:
            shown += f" … {names[y]}"
        if conditioned:
            why = "a non-collider in the conditioning set"
        elif given:
            why = "a collider that is not in the conditioning set and has no descendant there"
        else:
            why = "a collider"
        notes.append(f"{shown} at {names[m]}, {why}")
    ending = "; and more paths, each blocked as well" if more else ""
    cond = f"given {join_names(premise.names(given))}" if given else "with nothing conditioned on"
    return (f"every path between {names[x]} and {names[y]} is blocked {cond} — "
            + "; ".join(notes) + ending)


def _sepset_conflicts(premise: Premise, structure: Structure) -> list[Conflict]:
    out = []
    names = premise.variables
    for c in structure.conflicts:
        out.append(Conflict(
            ConflictKind.SEPSET,
            f"{names[c.middle]} is adjacent to both {names[c.x]} and {names[c.y]}, which are "
            f"non-adjacent; the premise separates them both with {names[c.middle]} "
            f"({_fmt(premise, *c.with_middle.key)}) and without it "
            f"({_fmt(premise, *c.without_middle.key)}), but in a DAG {names[c.middle]} is "
            f"either a collider (in no separating set) or not (in every one)",
            c.with_middle, c.with_middle.key))
    return out


def analyse(premise: Premise) -> ClassAnalysis:
    """Equivalence class of ``premise`` with provenance, or the conflicts that empty it."""
    if premise.n > MAX_VARIABLES:
        raise BudgetExceeded(f"premises with more than {MAX_VARIABLES} variables are not "
                             f"supported (got {premise.n})")
    return _analyse_cached(premise, premise.text)


@memoised(limit=8192)
def _analyse_cached(premise: Premise, text: str) -> ClassAnalysis:
    """``analyse`` remembered by premise *and text*: equal premises (the same statements
    in another order or layout) share a class but not their words, and the analysis
    quotes the statements (sepsets, conflicts, positions) of its own text."""
    structure = derive_structure(premise)
    conflicts = _correlation_conflicts(premise) + _sepset_conflicts(premise, structure)
    if conflicts:
        return ClassAnalysis(premise, structure, None, (), tuple(conflicts))
    cpdag = orient(structure)
    listed = _listed_by_extension(structure, cpdag)
    if listed is not None:
        return _consistent(premise, structure, cpdag, listed[0][1], listed)
    found = enumerate_members(structure, limit=MAX_MEMBERS)
    first = next(found, None)
    if first is None:
        names = premise.variables
        colliders = ", ".join(f"{names[t.x]}→{names[t.middle]}←{names[t.y]}"
                              for t in structure.colliders)
        return ClassAnalysis(premise, structure, cpdag, (), (Conflict(
            ConflictKind.COLLIDERS,
            f"the colliders the statements force ({colliders}) cannot all hold in one "
            f"acyclic graph without creating another collider or a cycle"),))
    count = class_size(premise.n, cpdag.directed, cpdag.undirected)
    if count > LIST_LIMIT:
        found.close()
        return _consistent(premise, structure, cpdag, first, None, count)
    members = [first]
    for member in found:
        checkpoint()
        members.append(member)
    return _consistent(premise, structure, cpdag, first, _by_edges(members))


def _listed_by_extension(structure: Structure, cpdag: Cpdag
                         ) -> list[tuple[Edges, Dag]] | None:
    """The class of a small, well-formed CPDAG by orientation search
    (``oracle.extensions``), or None: the SAT encoding then decides — classes too
    large to list, clashing colliders, and any search that does not find exactly the
    counted members with the forced colliders (the directed part of a malformed CPDAG
    is not searched, so the first member is checked to be acyclic too)."""
    if cpdag.clashes:
        return None
    count = class_size(structure.n, cpdag.directed, cpdag.undirected)
    if count > LIST_LIMIT:
        return None
    # one more than counted is enough to see a mismatch (a malformed CPDAG)
    members = listed_extensions(structure.n, cpdag.directed, cpdag.undirected, count + 1)
    colliders = {(t.x, t.middle, t.y) for t in structure.colliders}
    if not members or len(members) != count or not members[0][1].is_acyclic() \
            or members[0][1].v_structures() != colliders \
            or members[0][1].skeleton() != frozenset(structure.adjacent):
        return None
    return members


def _consistent(premise: Premise, structure: Structure, cpdag: Cpdag, first: Dag,
                members: list[tuple[Edges, Dag]] | None, count: int = 0) -> ClassAnalysis:
    """The analysis once one member (``first``) is known: faithfulness on it, then
    the class — listed when ``members`` (each with its edges, sorted by them: ``_by_edges``)
    is given, else counted (``count``)."""
    conflicts = _faithfulness_conflicts(premise, first)
    if conflicts:
        return ClassAnalysis(premise, structure, cpdag, (), tuple(conflicts))
    if members is None:
        return ClassAnalysis(premise, structure, cpdag, (), (), (),
                             tuple(sorted(cpdag.directed)), tuple(sorted(cpdag.undirected)),
                             count, first)
    ordered = tuple(m for _, m in members)
    edges = tuple(e for e, _ in members)
    directed, undirected = _cpdag_of(edges)
    return ClassAnalysis(premise, structure, cpdag, ordered, (), edges,
                         tuple(sorted(directed)), tuple(sorted(undirected)), len(ordered),
                         ordered[0])


def _by_edges(members: list[Dag]) -> list[tuple[Edges, Dag]]:
    """The members with their sorted edges, in the order of those edge lists (each
    member's edges read once: its sort key, its listed edges, the class CPDAG)."""
    keyed = []
    for dag in members:
        edges = []
        for head, mask in enumerate(dag.parents):
            while mask:
                low = mask & -mask
                edges.append((low.bit_length() - 1, head))
                mask ^= low
        edges.sort()
        keyed.append((tuple(edges), dag))
    keyed.sort(key=itemgetter(0))
    return keyed


def class_cpdag(members: tuple[Dag, ...]) -> tuple[frozenset[tuple[int, int]],
                                                   frozenset[tuple[int, int]]]:
    """(directed, undirected) edges: directed iff every member agrees on the direction."""
    return _cpdag_of([m.edges() for m in members])


def _cpdag_of(members: Sequence[Sequence[tuple[int, int]]]
              ) -> tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]]:
    """``class_cpdag`` of the members' edge lists."""
    if not members:
        return frozenset(), frozenset()
    common = set(members[0])
    for m in members[1:]:
        common.intersection_update(m)
    undirected = {(min(t, h), max(t, h)) for t, h in members[0] if (t, h) not in common}
    return frozenset(common), frozenset(undirected)
