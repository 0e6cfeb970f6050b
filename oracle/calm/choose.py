"""CaLM's graph questions answered: ancestors and parents, backdoor, front-door and
instrument sets among three options.

Every test is d-separation (``oracle.dsep``, Bayes-ball on the bitmask core) or
reachability (``oracle.graph``).  The criteria, as CaLM's prompts state them (its
zero-shot-IcL task descriptions and its manual-CoT examples; ``docs/families/calm.md``):

* **ancestor** (AR-B "Does X cause Y?", CA-B FA): a directed path X → … → Y of length ≥ 1;
  **parent** (CA-B FP): an edge X → Y.  Neither holds for X = Y (flagged degenerate).
* **backdoor set** Z for (X, Y): Z holds no descendant of X (nor X, Y), and Z blocks
  every path from X to Y with an arrow into X — Z d-separates X and Y once X's outgoing
  edges are removed.  *minimal*: valid and no proper subset valid; *maximal*: valid and
  no valid proper superset among the observed vertices; *mix*: valid.
* **front-door set** Z: (1) Z intercepts every directed path X → … → Y; (2) no
  back-door path from X to Z is open (X, Z d-separated by ∅ without X's outgoing
  edges); (3) X blocks every back-door path from Z to Y (Z, Y d-separated by {X}
  without Z's outgoing edges).
* **instrument set** Z (CaLM's reading, from its CoT: "A causes D … meaning A and D are
  d-connected; A is not directly related to E … d-separated"): every z ∈ Z is a parent
  of X, and Z, Y are d-separated once X's outgoing edges are removed.  Pearl's textbook
  reading asks only that Z and X be d-connected (Z need not cause X directly).
* the CoT prompts of max-BAS, mix-BAS and FAS say "A is unobserved": a set holding a
  hidden vertex is not a valid answer; the answer in the other reading (A observed) is
  kept as ``Picked.alternative`` so the items whose answer depends on it are reported.
"""

from __future__ import annotations

from itertools import combinations

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.calm.model import (
    CalmGraph,
    Choice,
    Criterion,
    Picked,
    Reading,
    Relation,
    RelationKind,
    Verdict,
)
from causal_oracle.oracle.dsep import bayes_ball
from causal_oracle.oracle.graph import Dag, bits, directed_path, reach


def relation(q: Relation) -> Verdict:
    """Is ``q.first`` a proper ancestor (a parent) of ``q.second``; the path if so."""
    g = q.graph
    a, b = g.index(q.first), g.index(q.second)
    if a == b:
        return Verdict(False, degenerate=True)
    if q.kind is RelationKind.PARENT:
        return Verdict(True, (q.first, q.second)) if g.dag.has_edge(a, b) else Verdict(False)
    path = directed_path(g.dag, a, b)
    return Verdict(True, g.named_path(path)) if path else Verdict(False)


# ---- d-separation on the bitmask core -------------------------------------------------
class _View:
    """One question's graph with what its tests reuse: the child masks, the graph with
    the edges out of a vertex set removed, the descendants of a vertex set."""

    def __init__(self, graph: CalmGraph, literal: bool = False) -> None:
        self.graph = graph
        self.literal = literal  # directed paths outcome → … → treatment count as back-door
        self.names = graph.names
        self.dag = graph.dag
        self.kids = graph.dag.children()
        self._cuts: dict[int, tuple[Dag, tuple[int, ...]]] = {}
        self._below: dict[int, int] = {}

    def named(self, mask: int) -> tuple[str, ...]:
        return self.graph.named(mask)

    def whole(self) -> tuple[Dag, tuple[int, ...]]:
        return self.dag, self.kids

    def cut(self, mask: int) -> tuple[Dag, tuple[int, ...]]:
        """The DAG without the edges out of ``mask``, and its child masks."""
        if mask not in self._cuts:
            self._cuts[mask] = (
                Dag(self.dag.n, tuple(p & ~mask for p in self.dag.parents)),
                tuple(0 if mask >> i & 1 else k for i, k in enumerate(self.kids)))
        return self._cuts[mask]

    def below(self, mask: int) -> int:
        """``mask`` and its descendants."""
        if mask not in self._below:
            self._below[mask] = reach(self.kids, mask)
        return self._below[mask]


def _separated(cut: tuple[Dag, tuple[int, ...]], a: int, b: int, given: int) -> bool:
    """Whether vertex sets ``a`` and ``b`` are d-separated by ``given`` in ``cut`` (a DAG
    and its child masks)."""
    dag, kids = cut
    for v in bits(a):
        up, down = bayes_ball(dag, v, given, kids)
        if (up | down) & b:
            return False
    return True


def _backdoor(g: _View, x: int, y: int, z: int, hidden: int) -> str | None:
    """Why ``z`` is not a backdoor set for (x, y), or None when it is one."""
    if z & hidden:
        return f"it holds the unobserved {', '.join(g.named(z & hidden))}"
    if z & (x | y):
        return "it holds the treatment or the outcome"
    bad = z & g.below(x)
    if bad:
        return f"{', '.join(g.named(bad))} descends from the treatment"
    if g.literal or not g.below(y) & x:
        if not _separated(g.cut(x), x, y, z):
            return "a back-door path stays open"
        return None
    if _open_backdoor_path(g, x, y, z):  # the outcome causes the treatment (CaLM's CoT)
        return "a back-door path stays open"
    return None


def _open_backdoor_path(g: _View, x: int, y: int, z: int) -> bool:
    """Whether ``z`` leaves open a path from ``x`` to ``y`` that starts with an arrow into
    ``x`` and is not a directed path ``y`` → … → ``x`` (CaLM's back-door path when the
    outcome is an ancestor of the treatment: its mix-BAS CoT example counts the empty set
    valid for (C, A) in A → C).  Simple paths are walked depth first, a prefix dropped as
    soon as it is blocked; the budget bounds the walk."""
    parents, kids = g.dag.parents, g.kids
    opened = reach(parents, z)  # An(z): a collider there is open
    # a frame: (vertex, arrow into it from the previous edge, all edges toward x, visited)
    stack = [(p, False, True, x | 1 << p) for p in bits(parents[x.bit_length() - 1])]
    while stack:
        checkpoint()
        v, arrow_in, toward, seen = stack.pop()
        bit = 1 << v
        if bit & y:
            if not toward:
                return True
            continue
        for w in bits((parents[v] | kids[v]) & ~seen):
            into_v = bool(parents[v] >> w & 1)  # the edge w → v
            collider = arrow_in and into_v
            if (collider and not opened & bit) or (not collider and z & bit):
                continue
            stack.append((w, not into_v, toward and into_v, seen | 1 << w))
    return False


def _frontdoor(g: _View, x: int, y: int, z: int, hidden: int) -> str | None:
    """Why ``z`` is not a front-door set for (x, y), or None when it is one."""
    if z & hidden:
        return f"it holds the unobserved {', '.join(g.named(z & hidden))}"
    if z & (x | y):
        return "it holds the treatment or the outcome"
    avoid = z
    if reach(g.kids, g.kids[x.bit_length() - 1] & ~avoid, avoid) & y:
        return "a directed path from the treatment avoids it"
    if not _separated(g.cut(x), x, z, 0):
        return "a back-door path from the treatment to it is open"
    if not _separated(g.cut(z), z, y, x):
        return "the treatment leaves a back-door path from it to the outcome open"
    return None


def _instrument(g: _View, x: int, y: int, z: int, textbook: bool) -> str | None:
    """Why ``z`` is not an instrument set for (x, y) (CaLM's reading, or Pearl's)."""
    if not z or z & (x | y):
        return "it is empty or holds the treatment or the outcome"
    if textbook:
        if _separated(g.whole(), z, x, 0):
            return "it is d-separated from the treatment"
    elif z & ~g.dag.parents[x.bit_length() - 1]:
        return f"{', '.join(g.named(z & ~g.dag.parents[x.bit_length() - 1]))} does not cause " \
               "the treatment directly"
    if not _separated(g.cut(x), z, y, 0):
        return "it is d-connected to the outcome other than through the treatment"
    return None


def _subsets_valid(g: _View, x: int, y: int, z: int, hidden: int) -> int | None:
    """A valid proper subset of ``z`` (as a mask), or None."""
    members = list(bits(z))
    for size in range(len(members)):
        for pick in combinations(members, size):
            checkpoint()
            sub = sum(1 << v for v in pick)
            if _backdoor(g, x, y, sub, hidden) is None:
                return sub
    return None


def _superset_valid(g: _View, x: int, y: int, z: int, hidden: int) -> int | None:
    """A valid proper superset of ``z`` among the observed non-descendants, or None.

    Every backdoor set lies in R = the observed non-descendants of X but Y.  A
    d-separator W with I ⊆ W ⊆ R exists iff R ∩ An(X ∪ Y ∪ I) is one (van der Zander,
    Liśkiewicz & Textor 2019, the constrained separator), in the graph without X's
    outgoing edges: so a valid W ⊋ z exists iff, for some v ∈ R ∖ z, the set
    R ∩ An(X ∪ Y ∪ z ∪ {v}) is valid — one test per vertex.  (When the outcome causes the
    treatment, CaLM's reading is not d-separation: the supersets are enumerated, largest
    first, under the budget.)"""
    region = ((1 << len(g.names)) - 1) & ~(g.below(x) | y | hidden)
    room = region & ~z
    if not g.literal and g.below(y) & x:
        extra = list(bits(room))
        for size in range(len(extra), 0, -1):
            for pick in combinations(extra, size):
                checkpoint()
                sup = z | sum(1 << v for v in pick)
                if _backdoor(g, x, y, sup, hidden) is None:
                    return sup
        return None
    cut_parents = g.cut(x)[0].parents
    for v in bits(room):
        checkpoint()
        candidate = reach(cut_parents, x | y | z | 1 << v) & region
        if _backdoor(g, x, y, candidate, hidden) is None:
            return candidate
    return None


def why_not(q: Choice, option: frozenset[str], hidden: frozenset[str],
            reading: Reading | None = None, view: _View | None = None) -> str | None:
    """Why ``option`` fails ``q.criterion`` with ``hidden`` unobserved (None: it holds),
    in CaLM's reading or in ``reading``.  A maximal backdoor set is, in CaLM's reading, a
    valid option that no other valid option contains (``_maximal_among_options``)."""
    m = q.graph.mask
    x, y, z, h = m((q.treatment,)), m((q.outcome,)), m(option), m(hidden)
    g = view or _View(q.graph, reading is Reading.LITERAL_BACKDOOR)
    c = q.criterion
    if c is Criterion.FRONTDOOR:
        return _frontdoor(g, x, y, z, h)
    if c is Criterion.INSTRUMENT:
        return _instrument(g, x, y, z, reading is Reading.PEARL_INSTRUMENT)
    why = _backdoor(g, x, y, z, h)
    if why is not None or c is Criterion.BACKDOOR_ANY:
        return why
    if c is Criterion.BACKDOOR_MIN:
        sub = _subsets_valid(g, x, y, z, h)
        return None if sub is None else f"its subset {{{', '.join(g.named(sub))}}} is valid"
    if reading is not Reading.MAXIMAL_OVERALL:
        return None  # valid; maximality among the options is decided by ``choose``
    sup = _superset_valid(g, x, y, z, h)
    return None if sup is None else f"the larger {{{', '.join(g.named(sup))}}} is valid"


def _maximal_among_options(q: Choice, reasons: list[str | None]) -> list[str | None]:
    """CaLM's maximal backdoor set: of the valid options, those no other valid option
    strictly contains."""
    valid = [o for o, r in zip(q.options, reasons, strict=True) if r is None]
    out = list(reasons)
    for k, (o, r) in enumerate(zip(q.options, reasons, strict=True)):
        bigger = next((b for b in valid if o < b), None)
        if r is None and bigger is not None:
            out[k] = f"the option {{{', '.join(sorted(bigger))}}} is a larger valid set"
    return out


def _valid(q: Choice, view: _View, hidden: frozenset[str], reading: Reading | None
           ) -> list[str | None]:
    reasons = [why_not(q, o, hidden, reading, view) for o in q.options]
    if q.criterion is Criterion.BACKDOOR_MAX and reading is not Reading.MAXIMAL_OVERALL:
        reasons = _maximal_among_options(q, reasons)
    return reasons


def choose(q: Choice) -> Picked:
    """The options that meet the criterion in CaLM's reading, and in the others."""
    if q.treatment == q.outcome:
        return Picked((), (), ("the treatment is the outcome",) * len(q.options), True)
    view = _View(q.graph)
    reasons = _valid(q, view, q.hidden, None)
    others: list[tuple[Reading, list[str | None]]] = []
    if q.hidden:
        others.append((Reading.A_OBSERVED, _valid(q, view, frozenset(), None)))
    if q.criterion is Criterion.BACKDOOR_MAX:
        others.append((Reading.MAXIMAL_OVERALL, _valid(q, view, q.hidden, Reading.MAXIMAL_OVERALL)))
    backdoor = q.criterion in (Criterion.BACKDOOR_MIN, Criterion.BACKDOOR_MAX,
                               Criterion.BACKDOOR_ANY)
    x, y = q.graph.mask((q.treatment,)), q.graph.mask((q.outcome,))
    if backdoor and view.below(y) & x:
        others.append((Reading.LITERAL_BACKDOOR,
                       _valid(q, _View(q.graph, literal=True), q.hidden, None)))
    if q.criterion is Criterion.INSTRUMENT:
        others.append((Reading.PEARL_INSTRUMENT,
                       _valid(q, view, q.hidden, Reading.PEARL_INSTRUMENT)))

    def numbers(rs: list[str | None]) -> tuple[int, ...]:
        return tuple(k + 1 for k, r in enumerate(rs) if r is None)

    return Picked(numbers(reasons), tuple((r, numbers(rs)) for r, rs in others),
                  tuple(r or "meets the criterion" for r in reasons))


__all__ = ["choose", "relation", "why_not"]
