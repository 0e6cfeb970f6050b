"""Backdoor adjustment (BA): which sets block every backdoor path.

A *backdoor path* from a cause ``c`` to an effect ``e`` is a path that starts
with an edge *into* ``c`` (``c ← …  e``).  A path is *blocked* by a set ``Z``
when it contains a non-collider in ``Z`` (``… → m → …`` or ``… ← f → …`` with
``m``/``f`` in ``Z``), or a *collider* (``… → k ← …``) such that neither ``k``
nor any descendant of ``k`` is in ``Z``.  Otherwise it is *open*.

The backdoor criterion (normative, DESIGN.md §3.2): ``Z`` is valid iff for
every (cause ``c``, effect ``e``):

1. ``Z`` contains no descendant of ``c`` (nor ``c`` or any cause or effect);
2. ``Z`` d-separates ``c`` and ``e`` in the graph with ``c``'s outgoing edges
   removed, i.e. blocks every backdoor path.

Example: in ``z → c → e`` with ``z → e`` the backdoor path ``c ← z → e`` is
open given ∅ and blocked by ``{z}``, so adjustment is needed and ``{z}`` is the
minimal valid set; adding the mediator of ``c → m → e`` would be rejected by
rule 1.

d-separation is the one Bayes-ball walk of ``oracle.dsep`` (Koller & Friedman
2009, Alg. 3.1); ``open_trail`` returns the open path it finds, which explains
why a set fails.  Every inclusion-minimal valid set lies within the ancestors
of the causes and effects (Tian, Paz & Pearl, 1998), so ``backdoor_sets``
enumerates subsets of those by increasing size.

Public functions: ``open_trail``, ``check_set``, ``valid_test`` (``check_set``'s
verdict alone, for many sets of one question), ``backdoor_sets``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.dsep import bayes_ball, open_path
from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.oracle.graph import reach
from causal_oracle.oracle.tasks.model import BackdoorAnswer, BackdoorQuestion, TaskGraph, bits

MAX_SUBSETS = 1 << 17  # subsets examined before giving up with BudgetExceeded


def open_trail(graph: TaskGraph, x: int, y: int, z: int) -> tuple[int, ...] | None:
    """A simple path from ``x`` to ``y`` that is open given ``z`` (bitmask), or None.

    Colliders on the trail are in An(z); other variables are outside ``z``.  This
    is ``oracle.dsep.open_path`` on the task graph; ``check_set`` calls it on the
    graph without the cause's outgoing edges, so every trail it finds starts with
    an edge into the cause: a backdoor path.

    >>> g = TaskGraph(("a", "b", "c"), frozenset({(0, 1), (2, 1)}))  # a → b ← c
    >>> open_trail(g, 0, 2, 0) is None, open_trail(g, 0, 2, 0b010)
    (True, (0, 1, 2))
    """
    if x == y:
        return (x,)
    path = open_path(graph.dag, x, y, z)
    return None if path is None else tuple(path)


@dataclass(frozen=True)
class SetVerdict:
    """Why a set is valid or not: the first failing pair and its witness."""

    valid: bool
    cause: int | None = None
    effect: int | None = None
    forbidden: int | None = None  # a member of the set that rule 1 excludes
    trail: tuple[int, ...] | None = None  # an open backdoor path (rule 2)


def forbidden_mask(graph: TaskGraph, causes: tuple[int, ...], effects: tuple[int, ...]) -> int:
    """Variables no valid set may contain (rule 1): the causes and their descendants, and
    the effects."""
    mask = 0
    for c in causes:
        mask |= graph.descendants_of(1 << c)
    for e in effects:
        mask |= 1 << e
    return mask


def check_set(question: BackdoorQuestion, z: int) -> SetVerdict:
    """Judge ``z`` (bitmask) by the backdoor criterion for every (cause, effect) pair.

    >>> g = TaskGraph(("z", "c", "e"), frozenset({(0, 1), (1, 2), (0, 2)}))
    >>> q = BackdoorQuestion(g, (1,), (2,))
    >>> check_set(q, 0).trail, check_set(q, 0b001).valid
    ((1, 0, 2), True)
    """
    graph = question.graph
    effects = sum(1 << e for e in question.effects)
    for c in question.causes:
        if not effects:
            break
        bad = z & forbidden_mask(graph, (c,), (*question.causes, *question.effects))
        if bad:
            return SetVerdict(False, c, question.effects[0], forbidden=bits(bad)[0])
        cut = graph.without_edges_out_of(c)
        up, down = bayes_ball(cut.dag, c, z)  # which effects an open trail reaches
        for e in question.effects:
            if (up | down) >> e & 1:  # the first such effect: its trail is the witness
                trail = open_trail(cut, c, e, z)
                assert trail is not None  # the same walk, recorded
                return SetVerdict(False, c, e, trail=trail)
    return SetVerdict(True)


def valid_test(question: BackdoorQuestion) -> Callable[[int], bool]:
    """``check_set(question, z).valid`` as a function of ``z``, with the cut graphs, their
    children and the forbidden sets worked out once (``backdoor_sets`` judges many sets
    of one question, and needs no trail for them).

    >>> g = TaskGraph(("z", "c", "e"), frozenset({(0, 1), (1, 2), (0, 2)}))
    >>> valid = valid_test(BackdoorQuestion(g, (1,), (2,)))
    >>> valid(0), valid(0b001)
    (False, True)
    """
    graph = question.graph
    ends = (*question.causes, *question.effects)
    effects = sum(1 << e for e in question.effects)
    whole = graph.dag
    per_cause = []
    for c in question.causes:
        cut = graph.without_edges_out_of(c).dag  # kept by the graph: check_set reads it too
        per_cause.append((c, cut, cut.children(), forbidden_mask(graph, (c,), ends)))

    def valid(z: int) -> bool:
        if not effects:
            return True
        opened = None
        for c, cut, kids, forbidden in per_cause:
            if z & forbidden or effects >> c & 1:
                return False
            if opened is None:
                # An(z), found once per set: z holds no descendant of c, so no path into
                # z leaves c, and the cut graph has the same ancestors of z
                opened = reach(whole.parents, z)
            # one walk answers every effect, and stops at the first it reaches
            up, down = bayes_ball(cut, c, z, kids, opened=opened, until=effects)
            if (up | down) & effects:
                return False
        return True

    return valid


def backdoor_sets(question: BackdoorQuestion) -> BackdoorAnswer:
    """Decide whether adjustment is needed; all inclusion-minimal valid sets; the parents set.

    >>> g = TaskGraph(("z", "c", "e"), frozenset({(0, 1), (1, 2), (0, 2)}))
    >>> a = backdoor_sets(BackdoorQuestion(g, (1,), (2,)))
    >>> a.needed, a.minimal_sets, a.parents_set, a.parents_set_valid
    (True, (1,), 1, True)
    """
    graph = question.graph
    causes, effects = question.causes, question.effects
    forbidden = forbidden_mask(graph, causes, effects)
    anc = graph.ancestors_of(sum(1 << v for v in (*causes, *effects)))
    candidates = anc & ~forbidden
    pool = bits(candidates)
    valid = valid_test(question)
    needed = not valid(0)
    minimal: list[int] = []
    if not needed:
        minimal = [0]
    else:
        examined = 0
        members = [1 << v for v in pool]
        for size in range(1, len(pool) + 1):
            for combo in combinations(members, size):
                checkpoint()
                z = sum(combo)
                covered = False
                for m in minimal:
                    if m & z == m:
                        covered = True
                        break
                if covered:  # a superset of a minimal set is not minimal
                    continue
                examined += 1
                if examined > MAX_SUBSETS:
                    raise BudgetExceeded(f"more than {MAX_SUBSETS} candidate adjustment sets")
                if valid(z):
                    minimal.append(z)
    parents = 0
    for c in causes:
        parents |= graph.parents[c]
    parents &= ~sum(1 << v for v in (*causes, *effects))
    return BackdoorAnswer(needed, tuple(minimal), parents, valid(parents), candidates)
