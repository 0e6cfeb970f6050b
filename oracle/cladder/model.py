"""Formal objects for CLadder questions: a small binary causal graph, the quantities the
text states, and what the question asks.

A CLadder question (Jin et al., NeurIPS 2023) describes a causal graph over binary
variables in words ("Husband has a direct effect on wife and alarm clock. … V2 is
unobserved."), states some probabilities as rounded percentages, and asks a yes/no
question on one of Pearl's three rungs.  Its formal reading is:

* a ``Graph``: variables (by name, observed or not) and parent bitmasks;
* the stated quantities, each a ``Stated`` number: the probability of an event given a
  condition (``P(Y=1 | X=0) ∈ [0.085, 0.095]`` for a printed "9%": a printed value stands
  for every value that prints so, half a unit of its last digit either side), or a
  correlation for one stratum;
* deterministic ``Mechanism`` sentences and observed ``evidence`` (deterministic
  counterfactual questions);
* the ``Query``: its kind (``QueryType``, ten of them), the treatment and outcome
  values, the polarity of the question's wording and what else the kind needs.

Variables are indices into ``Graph.names``; a value assignment is a ``Lit``, the pair
``(variable, 0 or 1)``.  A text whose phrases can be read in more than one way (the
story vocabulary gives two values the same words) has several ``Reading`` s.

>>> g = Graph.build(["x", "m", "y"], [("x", "m"), ("m", "y"), ("x", "y")])
>>> g.parents_of(2), g.is_ancestor(0, 2), g.is_ancestor(2, 0)
((0, 1), True, False)
>>> Interval.percent("41").lo, Interval.percent("41").hi
(Fraction(81, 200), Fraction(83, 200))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from itertools import permutations

from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.memo import memoised

Lit = tuple[int, int]
"""A value assignment: (variable index, value 0 or 1)."""


class QueryType(StrEnum):
    """The ten CLadder query types (``meta.query_type`` in the benchmark's files)."""

    MARGINAL = "marginal"
    CORRELATION = "correlation"
    EXP_AWAY = "exp_away"
    ATE = "ate"
    BACKADJ = "backadj"
    COLLIDER_BIAS = "collider_bias"
    ETT = "ett"
    NDE = "nde"
    NIE = "nie"
    DET_COUNTERFACTUAL = "det-counterfactual"

    @property
    def rung(self) -> int:
        """Pearl's rung: 1 association, 2 intervention, 3 counterfactual."""
        return _RUNG[self]


_RUNG = {QueryType.MARGINAL: 1, QueryType.CORRELATION: 1, QueryType.EXP_AWAY: 1,
         QueryType.ATE: 2, QueryType.BACKADJ: 2, QueryType.COLLIDER_BIAS: 2,
         QueryType.ETT: 3, QueryType.NDE: 3, QueryType.NIE: 3,
         QueryType.DET_COUNTERFACTUAL: 3}


@dataclass(frozen=True, slots=True)
class Interval:
    """A closed interval of rationals, with the text it was read from."""

    lo: Fraction
    hi: Fraction
    text: str = ""

    @classmethod
    def printed(cls, number: str, scale: int = 1, clip: tuple[int, int] | None = (0, 1)
                ) -> Interval:
        """The values that print as ``number`` (a decimal, divided by ``scale``): half a
        unit of its last digit either side, clipped to ``clip``."""
        whole, _, fraction = number.strip().partition(".")
        digits = len(fraction)
        units = int(whole + fraction)  # the value in units of its last digit
        unit = 2 * 10 ** digits * scale
        lo, hi = Fraction(2 * units - 1, unit), Fraction(2 * units + 1, unit)
        if clip is not None:
            lo, hi = max(lo, Fraction(clip[0])), min(hi, Fraction(clip[1]))
        return cls(lo, hi, number)

    @classmethod
    def percent(cls, number: str) -> Interval:
        """A printed percentage (``"41"`` for "41%")."""
        return cls.printed(number, 100)

    @classmethod
    def point(cls, value: Fraction) -> Interval:
        return cls(value, value, str(value))

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int | Fraction) and self.lo <= value <= self.hi

    def __hash__(self) -> int:  # integers hash fast; a Fraction's hash takes a modular inverse
        return hash((self.lo.numerator, self.lo.denominator, self.hi.numerator,
                     self.hi.denominator))


@dataclass(frozen=True, slots=True)
class Graph:
    """A DAG over named binary variables: ``parents[i]`` is the bitmask of i's parents.
    Its structure (descendants, acyclicity) is the one DAG type's, ``dag``
    (``oracle.graph``); the names and which variables are observed are CLadder's."""

    names: tuple[str, ...]
    parents: tuple[int, ...]
    observed: tuple[bool, ...]
    dag: Dag = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dag", Dag(len(self.names), self.parents))

    @classmethod
    def build(cls, names: Sequence[str], edges: Iterable[tuple[str, str]],
              unobserved: Iterable[str] = ()) -> Graph:
        index = {n: i for i, n in enumerate(names)}
        parents = [0] * len(names)
        for a, b in edges:
            parents[index[b]] |= 1 << index[a]
        hidden = set(unobserved)
        return cls(tuple(names), tuple(parents), tuple(n not in hidden for n in names))

    @property
    def n(self) -> int:
        return len(self.names)

    def parents_of(self, v: int) -> tuple[int, ...]:
        return tuple(i for i in range(self.n) if self.parents[v] >> i & 1)

    def children_of(self, v: int) -> tuple[int, ...]:
        return tuple(i for i in range(self.n) if self.parents[i] >> v & 1)

    def edges(self) -> tuple[tuple[int, int], ...]:
        return tuple((a, b) for b in range(self.n) for a in self.parents_of(b))

    def descendants(self, v: int) -> int:
        """Bitmask of v's descendants, v excluded (``Dag.descendants``)."""
        return self.dag.descendants(v)

    def is_ancestor(self, a: int, b: int) -> bool:
        """Whether there is a directed path a ⇝ b (a ≠ b)."""
        return bool(self.descendants(a) >> b & 1)

    def topological(self) -> tuple[int, ...]:
        """The variables, each after its parents: in passes over the indices, a variable
        placed as soon as its parents are (the order CLadder's derivations are written
        in; ``Dag.topological_order`` orders ready variables first-in first-out)."""
        order: list[int] = []
        placed = 0
        for _ in range(self.n):
            for v in range(self.n):
                if not placed >> v & 1 and self.parents[v] & ~placed == 0:
                    order.append(v)
                    placed |= 1 << v
        return tuple(order)

    def is_acyclic(self) -> bool:
        return self.dag.is_acyclic()

    def lit(self, lit: Lit) -> str:
        """``name=value`` for messages and formulas."""
        return f"{self.names[lit[0]]}={lit[1]}"


class StatedKind(StrEnum):
    PROBABILITY = "probability"
    CORRELATION = "correlation"


@dataclass(frozen=True, slots=True)
class Stated:
    """One number the text states: ``P(event | given)`` or, for ``CORRELATION``, the
    correlation of the two events of ``event`` among units with ``given``."""

    event: tuple[Lit, ...]
    given: tuple[Lit, ...]
    value: Interval
    kind: StatedKind = StatedKind.PROBABILITY


class Connective(StrEnum):
    AND = "and"
    OR = "or"


@dataclass(frozen=True, slots=True)
class Mechanism:
    """"A and B causes C": ``target`` holds exactly when the inputs, joined by
    ``connective``, hold (otherwise the target's variable takes its other value)."""

    inputs: tuple[Lit, ...]
    connective: Connective
    target: Lit


@dataclass(frozen=True, slots=True)
class Query:
    """What the question asks.

    ``treatment`` is the treatment value the question names ("Will *X=1* increase …",
    "when observing *X=1*", "For *X=1* …" in ETT: the factual value); ``outcome`` the
    outcome value; ``polarity`` True for the affirmative wording (increase, more likely,
    larger, positively, affects).  ``condition``: the stratum of ``exp_away`` and
    ``collider_bias``.  ``counterfactual``: ETT's "if X had been b" and the
    deterministic counterfactual's new value; ``premise``: its "instead of X=a".
    ``compare``: the value ``marginal`` compares the outcome value with.  ``mediators``
    (NDE/NIE) and ``methods`` (backadj: the adjustment sets of Method 1 and Method 2).
    """

    kind: QueryType
    outcome: Lit
    treatment: Lit | None = None
    polarity: bool = True
    condition: Lit | None = None
    counterfactual: Lit | None = None
    premise: Lit | None = None
    compare: Lit | None = None
    mediators: tuple[int, ...] = ()
    methods: tuple[tuple[int, ...], ...] = ()
    #: backadj: which method the question asks about first ("Method 1 than Method 2")
    first_method: int = 1


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading of the given information and the question."""

    statements: tuple[Stated, ...]
    query: Query
    mechanisms: tuple[Mechanism, ...] = ()
    evidence: tuple[Lit, ...] = ()


@dataclass(frozen=True, slots=True)
class CladderQuestion:
    """A parsed CLadder question: the graph and one or more readings of the rest.

    ``ambiguous`` names the phrases the story vocabulary reads in more than one way
    (then there is one reading per combination)."""

    graph: Graph
    readings: tuple[Reading, ...]
    ambiguous: tuple[str, ...] = field(default=())

    @property
    def kind(self) -> QueryType:
        return self.readings[0].query.kind


#: the benchmark's ten graph families, by their edges (X the treatment, Y the outcome)
SHAPES: dict[str, frozenset[tuple[str, str]]] = {
    name: frozenset(tuple(e.split("->")) for e in edges.split(","))  # type: ignore[misc]
    for name, edges in (
        ("chain", "X->V2,V2->Y"), ("fork", "X->Y,V2->Y"), ("collision", "X->V3,Y->V3"),
        ("confounding", "V1->X,V1->Y,X->Y"), ("mediation", "X->V2,X->Y,V2->Y"),
        ("frontdoor", "V1->X,X->V3,V1->Y,V3->Y"), ("IV", "V1->X,V2->X,V1->Y,X->Y"),
        ("arrowhead", "X->V3,V2->V3,X->Y,V2->Y,V3->Y"), ("diamond", "X->V3,X->V2,V2->Y,V3->Y"),
        ("diamondcut", "V1->V3,V1->X,X->Y,V3->Y"))}


@memoised(limit=1024)
def shape_of(graph: Graph, x: int, y: int) -> str:
    """The benchmark's name for the graph with treatment ``x`` and outcome ``y`` (for
    reports only; "other" when it is none of the ten).

    >>> shape_of(Graph.build(["a", "m", "b"], [("a", "m"), ("m", "b")]), 0, 2)
    'chain'
    """
    others = [v for v in range(graph.n) if v not in (x, y)]
    for name, edges in SHAPES.items():
        labels = sorted({n for e in edges for n in e} - {"X", "Y"})
        if len(labels) != len(others):
            continue
        for order in permutations(labels):
            label = {x: "X", y: "Y", **dict(zip(others, order, strict=True))}
            if frozenset((label[a], label[b]) for a, b in graph.edges()) == edges:
                return name
    return "other"


__all__ = ["SHAPES", "CladderQuestion", "Connective", "Graph", "Interval", "Lit", "Mechanism",
           "Query", "QueryType", "Reading", "Stated", "StatedKind", "shape_of"]
