"""Markov equivalence classes up to relabelling: one canonical form per class.

Two DAGs are Markov equivalent iff they share skeleton and v-structures (Verma & Pearl
1990), so ``(skeleton, v-structures)`` names a *labelled* class (``mec_key``).  Two
labelled classes are the same up to relabelling when some permutation of the variables
maps one key onto the other; the *canonical form* of a class is the smallest relabelled
key.  Trying all ``n!`` permutations is wasteful: a permutation can only map a node to a
node with the same invariant (degree, collider and v-tail counts, refined once by the
neighbours' invariants), so only the permutations inside each block of equal invariants
are compared.

    >>> from causal_oracle.oracle.graph import Dag
    >>> chain = Dag.from_edges(3, [(0, 1), (1, 2)])       # 0 -> 1 -> 2
    >>> backwards = Dag.from_edges(3, [(2, 1), (1, 0)])   # 2 -> 1 -> 0: another labelling
    >>> canonical(3, mec_key(chain))[0] == canonical(3, mec_key(backwards))[0]
    True
    >>> collider = Dag.from_edges(3, [(0, 1), (2, 1)])    # 0 -> 1 <- 2: another class
    >>> canonical(3, mec_key(chain))[0] == canonical(3, mec_key(collider))[0]
    False

A class with automorphisms has several permutations giving its canonical form
(``canonical_forms`` returns them all: the Corr2Cause item keys are made of them); a
class whose blocks would need more than ``limit`` relabellings is not canonicalised
(None).  The Corr2Cause family's reference generator
(``entry.families.corr2cause_generator_reference``) writes one premise per canonical
class, and its item keys (``entry.families.corr2cause_generator_keys``) key an item by
its class's canonical form.
"""

from __future__ import annotations

import itertools
import math

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.graph import Dag

#: sampled classes are compared up to relabelling when that takes at most this many
#: relabellings (highly symmetric ones are compared as labelled classes)
MAX_RELABELLINGS = 5040

Key = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int, int], ...]]


def mec_key(dag: Dag) -> Key:
    """The labelled class of ``dag``: sorted skeleton and v-structures."""
    return tuple(sorted(dag.skeleton())), tuple(sorted(dag.v_structures()))


def _relabel(key: Key, perm: tuple[int, ...]) -> Key:
    skel, vs = key
    return (tuple(sorted((min(perm[a], perm[b]), max(perm[a], perm[b])) for a, b in skel)),
            tuple(sorted((min(perm[a], perm[b]), perm[c], max(perm[a], perm[b]))
                         for a, c, b in vs)))


def canonical(n: int, key: Key, limit: int | None = None
              ) -> tuple[Key, tuple[int, ...]] | None:
    """(canonical key, the permutation old index → new index that gives it); ``None`` when
    more than ``limit`` relabellings would have to be compared."""
    forms = canonical_forms(n, key, limit)
    return None if forms is None else (forms[0], forms[1][0])


def canonical_forms(n: int, key: Key, limit: int | None = None
                    ) -> tuple[Key, tuple[tuple[int, ...], ...]] | None:
    """(canonical key, *every* permutation old index → new index that gives it — more
    than one when the class has automorphisms); ``None`` as for ``canonical``."""
    skel, vs = key
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for a, b in skel:
        nbrs[a].append(b)
        nbrs[b].append(a)
    base = [(len(nbrs[v]), sum(c == v for _, c, _ in vs), sum(v in (a, b) for a, _, b in vs))
            for v in range(n)]
    refined = [(base[v], tuple(sorted(base[w] for w in nbrs[v]))) for v in range(n)]
    order = sorted(range(n), key=lambda v: refined[v])
    blocks = [list(group) for _, group in itertools.groupby(order, key=lambda v: refined[v])]
    if limit is not None and math.prod(math.factorial(len(b)) for b in blocks) > limit:
        return None
    best: Key | None = None
    perms: list[tuple[int, ...]] = []
    for arrangement in itertools.product(*(itertools.permutations(b) for b in blocks)):
        checkpoint()
        perm = [0] * n
        for new, old in enumerate(itertools.chain.from_iterable(arrangement)):
            perm[old] = new
        candidate = _relabel(key, tuple(perm))
        if best is None or candidate < best:
            best, perms = candidate, [tuple(perm)]
        elif candidate == best:
            perms.append(tuple(perm))
    assert best is not None
    return best, tuple(perms)


__all__ = ["MAX_RELABELLINGS", "Key", "canonical", "canonical_forms", "mec_key"]
