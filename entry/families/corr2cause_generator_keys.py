"""Corr2Cause item keys: the same question under any renaming of its variables.

Two Corr2Cause items ask the *same question* when one is the other with its variables
renamed: the premise describes the same Markov equivalence class up to relabelling,
and the hypothesis asks the same relation about corresponding variables.  So the
**item key** is a hash of

* the premise's class in canonical form (``entry.canonical.canonical_forms``: the
  smallest relabelled (skeleton, v-structures) key), and
* the hypothesis's relation kind with its pair mapped into canonical indices — the
  smallest image over every canonicalising permutation, so automorphic pairs of a
  symmetric class share a key, and unordered for the symmetric relations (common
  cause, common effect).

Paraphrased templates of one relation share the key (they ask the same question); the
semantics profile is not part of it.  Premises that fit no DAG, and classes too
symmetric to canonicalise cheaply (more than ``MAX_RELABELLINGS`` relabellings), are
keyed by their statements over the declared variable order instead ("labelled" keys:
invariant under renaming that keeps the declaration order).

What a key is for — the train/test split by its hash, exclusion of published test
items, the provenance of a generated row — is the same for every generator
(``entry.freshness``).  The service that reads a text item is passed in, as to every
family generator (``entry.oracle_protocol.SolvingOracle``).

    >>> from causal_oracle.entry import default
    >>> from causal_oracle.entry.freshness import split_of
    >>> keys = ItemKeys(default())
    >>> a = keys.key("Suppose there is a closed system of 3 variables, A, B and C. All the "
    ...              "statistical relations among these 3 variables are as follows: A "
    ...              "correlates with C. B correlates with C. However, A is independent of B.",
    ...              "A directly causes C.")
    >>> b = keys.key("Suppose there is a closed system of 3 variables, Z, Y and X. All the "
    ...              "statistical relations among these 3 variables are as follows: Z "
    ...              "correlates with Y. X correlates with Y. However, Z is independent of X.",
    ...              "X directly causes Y.")
    >>> a == b, a.startswith("c2c:"), split_of(a) == split_of(b)
    (True, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from causal_oracle.entry.caches import LRU
from causal_oracle.entry.canonical import MAX_RELABELLINGS, canonical_forms, mec_key
from causal_oracle.entry.freshness import digest
from causal_oracle.entry.oracle_protocol import SolvingOracle
from causal_oracle.oracle.equivalence import analyse
from causal_oracle.oracle.statements import Hypothesis, Premise, RelationKind

SYMMETRIC = frozenset((RelationKind.COMMON_CAUSE, RelationKind.COMMON_EFFECT))
CLASSES_KEPT = 4096


@dataclass(frozen=True, slots=True)
class _Class:
    """A premise's class as a key needs it: its canonical form and the permutations
    into it (``labelled``: keyed by statements, not up to relabelling)."""

    form: Any
    perms: tuple[tuple[int, ...], ...]
    index: dict[str, int]
    labelled: bool


class ItemKeys:
    """Item keys (see the module docstring), each premise's class computed once;
    ``service`` reads the items given as text."""

    def __init__(self, service: SolvingOracle) -> None:
        self.service = service
        self._classes: LRU[Premise, _Class] = LRU(CLASSES_KEPT)

    def key(self, premise: str, hypothesis: str) -> str:
        """The key of a Corr2Cause item given as text (``InputError`` when unreadable)."""
        return self.key_of(self.service.pairs().premise_of(premise.strip()),
                           self.service.pairs().hypothesis_of(hypothesis.strip()))

    def key_of(self, premise: Premise, hypothesis: Hypothesis) -> str:
        """The key of a parsed item."""
        cls = self._classes.get_or(premise, lambda: self._class(premise))
        i, j = cls.index.get(hypothesis.first, -1), cls.index.get(hypothesis.second, -1)
        pairs = [(p[i] if i >= 0 else -1, p[j] if j >= 0 else -1) for p in cls.perms]
        if hypothesis.kind in SYMMETRIC:
            pairs = [(min(a, b), max(a, b)) for a, b in pairs]
        body = {"class": cls.form, "relation": hypothesis.kind.value, "pair": min(pairs)}
        return ("c2c-labelled:" if cls.labelled else "c2c:") + digest(body)[:32]

    def _class(self, premise: Premise) -> _Class:
        n = premise.n
        index = {name: k for k, name in enumerate(premise.variables)}
        analysis = analyse(premise)
        member = analysis.representative or (analysis.members[0] if analysis.members
                                              else None)
        if analysis.consistent and member is not None:
            forms = canonical_forms(n, mec_key(member), limit=MAX_RELABELLINGS)
            if forms is not None:
                return _Class([n, forms[0]], forms[1], index, False)
        statements = sorted(s.key for s in premise.independences)
        return _Class([n, statements], (tuple(range(n)),), index, True)


__all__ = ["CLASSES_KEPT", "SYMMETRIC", "ItemKeys"]
