"""Formal objects of a Corr2Cause question: premises and hypotheses.

A *premise* names ``n`` variables and lists statements about them:

* a **correlation** ``X correlates with Y`` states marginal dependence;
* an **independence** ``X ⊥ Y | S`` states that X and Y are independent given
  the set S (S may be empty: "X is independent of Y").

Under the closed-world reading of DESIGN.md 3.1 the listed independencies are
*all* the conditional independencies among the variables: every (pair,
conditioning set) that is not listed is a dependence.

A *hypothesis* asserts one causal relation about an ordered pair (P, Q):

=================  ========================================================
``DIRECT_CAUSE``   P → Q is an edge
``INDIRECT_CAUSE`` P causes Q through at least one mediator
``COMMON_EFFECT``  P and Q have a collider (common effect)
``COMMON_CAUSE``   P and Q have a confounder (common cause)
=================  ========================================================

The exact truth conditions per semantics profile live in ``oracle.relations``.
Variables are referred to by index into ``Premise.variables``; the objects are
immutable and hashable so that analyses can be cached by content.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """Where a statement sits in its source text (0-based offsets, 1-based line/column)."""

    start: int
    end: int
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Independence:
    """``x ⊥ y | given`` with ``x < y`` (indices) and ``given`` a bitmask of indices."""

    x: int
    y: int
    given: int
    span: Span | None = field(default=None, compare=False, hash=False)

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.x, self.y, self.given)


@dataclass(frozen=True, slots=True)
class Correlation:
    """``x`` correlates with ``y`` (marginal dependence), ``x < y``."""

    x: int
    y: int
    span: Span | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, slots=True, eq=False)
class Premise:
    """A closed system of variables with its correlation and independence statements."""

    variables: tuple[str, ...]
    correlations: tuple[Correlation, ...]
    independences: tuple[Independence, ...]
    text: str = field(default="", compare=False, hash=False)
    _keys: frozenset[tuple[int, int, int]] = field(init=False, repr=False, compare=False,
                                                   hash=False)
    _hash: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # Premises are cache keys for every analysis: compute the statement set and the
        # hash once instead of re-hashing hundreds of statements per lookup.
        keys = frozenset(s.key for s in self.independences)
        object.__setattr__(self, "_keys", keys)
        object.__setattr__(self, "_hash", hash((self.variables, keys, frozenset(
            (c.x, c.y) for c in self.correlations))))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Premise):
            return NotImplemented
        return (self._hash == other._hash and self.variables == other.variables
                and self._keys == other._keys and self.correlations == other.correlations)

    @property
    def n(self) -> int:
        return len(self.variables)

    def independence_keys(self) -> frozenset[tuple[int, int, int]]:
        """The closed-world set of independencies as ``(x, y, given_mask)`` triples."""
        return self._keys

    def index(self, name: str) -> int:
        return self.variables.index(name)

    def names(self, mask: int) -> list[str]:
        """Names of the variables in a bitmask, in declaration order."""
        return [v for i, v in enumerate(self.variables) if mask >> i & 1]

    def sentence(self, x: int, y: int, given: int) -> str:
        """``x ⊥ y | given`` in the benchmark's words, as the Corr2Cause premises write it:
        "A is independent of B", "A and B are independent given C and D"."""
        v = self.variables
        if not given:
            return f"{v[x]} is independent of {v[y]}"
        return f"{v[x]} and {v[y]} are independent given {join_names(self.names(given))}"


def join_names(names: Sequence[str]) -> str:
    """"A", "A and B", "A, B and C": a list of names the way the premises write one ("" for
    none)."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class RelationKind(enum.Enum):
    DIRECT_CAUSE = "direct_cause"
    INDIRECT_CAUSE = "indirect_cause"
    COMMON_EFFECT = "common_effect"
    COMMON_CAUSE = "common_cause"


class SurfaceForm(enum.Enum):
    """Which template the hypothesis used (the ``strict`` profile reads some literally)."""

    DIRECTLY_CAUSES = "directly causes"
    DIRECTLY_AFFECTS = "directly affects"
    CAUSES_SOMETHING_ELSE = "causes something else which causes"
    CAUSE_NOT_DIRECT = "is a cause for, but not a direct one"
    THROUGH_MEDIATORS = "influences through some mediator(s)"
    COLLIDER_EXISTS = "there exists at least one collider (i.e., common effect)"
    TOGETHER_CAUSE = "together cause some other variable(s)"
    CONFOUNDER_EXISTS = "there exists at least one confounder (i.e., common cause)"
    CAUSE_BOTH = "some variable(s) cause(s) both"
    # Corr2Cause++ templates
    DIRECTLY_AFFECTED_BY = "is directly affected by"
    MEDIATORS_NOT_DIRECTLY = "influences through some mediator(s) but not directly"
    COLLIDER_COMMON_CHILD = "there exists at least one collider (i.e., a common child)"
    CONFOUNDER_COMMON_PARENT = "there exists at least one confounder (i.e., a common parent)"


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """A causal relation claimed about the ordered pair (``first``, ``second``) of names."""

    kind: RelationKind
    first: str
    second: str
    form: SurfaceForm

    def describe(self) -> str:
        p, q = self.first, self.second
        return {
            RelationKind.DIRECT_CAUSE: f"{p} directly causes {q}",
            RelationKind.INDIRECT_CAUSE: f"{p} causes {q} through a mediator",
            RelationKind.COMMON_EFFECT: f"{p} and {q} have a common effect (collider)",
            RelationKind.COMMON_CAUSE: f"{p} and {q} have a common cause (confounder)",
        }[self.kind]
