"""The formal objects of the CI-Bench and intervention-effect tasks.

A *task graph* is a directed acyclic graph (DAG) over named variables: the
names, and the one DAG type ``oracle.graph.Dag`` for the structure.  Variables
are numbered ``0 … n-1`` in the order of ``TaskGraph.names``; sets of variables
are bitmasks (bit ``i`` ↔ variable ``i``), which is how every solver in
``oracle.tasks`` reads them.  An edge ``(i, j)`` means "``names[i]`` has a
causal effect on ``names[j]``" (``i → j``).

A *boolean structural causal model* (``BooleanSCM``) attaches to some variables
a disjunction of conjunctive rules::

    The X happens if the A happens and the B not happen.     X ⇐ A ∧ ¬B
    The X happens if the C happens.                          X ⇐ C

The rules for the same head are OR-ed (``X = (A ∧ ¬B) ∨ C``); ``and`` binds
within one rule.  A variable with no rules is a *root*: its value is observed,
declared ("The X is bound to happen."), or else taken as "did not happen".

The questions are:

* ``PathsQuestion`` (CP) – all directed paths from each cause to each effect;
* ``BackdoorQuestion`` (BA) – sets that satisfy the backdoor criterion;
* ``FactualQuestion`` (FI) / ``CounterfactualQuestion`` (CI) – the value of
  queried events given observed roots (and, for CI, what-if interventions);
* ``InterventionQuestion`` (IE) – does a directed path (or an edge) exist after
  the stated perfect interventions.

Everything here is an immutable value; parsers build these, solvers read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.graph import bits as graph_bits


def bits(mask: int) -> list[int]:
    """The variable indices set in ``mask``, ascending.

    >>> bits(0b1011)
    [0, 1, 3]
    """
    return list(graph_bits(mask))


@dataclass(frozen=True)
class TaskGraph:
    """Named variables over the one DAG type: ``edges`` holds ``(parent, child)`` index
    pairs, and all structure (parents, children, order, reachability) is ``dag``'s
    (``oracle.graph``, whose docstring fixes the descendant convention).

    >>> g = TaskGraph(("a", "b", "c"), frozenset({(0, 1), (1, 2)}))
    >>> g.descendants_of(0b010), g.ancestors_of(0b010), g.topological_order
    (6, 3, (0, 1, 2))
    """

    names: tuple[str, ...]
    edges: frozenset[tuple[int, int]]

    def __post_init__(self) -> None:
        n = len(self.names)
        if len({name.casefold() for name in self.names}) != n:
            raise InputError("variable names must be distinct")
        for a, b in self.edges:
            if not (0 <= a < n and 0 <= b < n) or a == b:
                raise InputError(f"bad edge {(a, b)} for {n} variables")
        if self.topological_order is None:  # pragma: no branch - evaluated for the check
            raise InputError("the stated causal relations contain a cycle")

    @cached_property
    def dag(self) -> Dag:
        """The graph as parent bitmasks."""
        return Dag.from_edges(len(self.names), self.edges)

    @cached_property
    def parents(self) -> tuple[int, ...]:
        """``parents[i]`` is the bitmask of the parents of ``i``."""
        return self.dag.parents

    @cached_property
    def children(self) -> tuple[int, ...]:
        """``children[i]`` is the bitmask of the children of ``i``."""
        return self.dag.children()

    @property
    def topological_order(self) -> tuple[int, ...] | None:
        """Variables in an order where every parent precedes its children (None if cyclic)."""
        return self.dag.topological_order()

    def index(self, name: str) -> int:
        """The index of ``name`` (case-insensitive); ``InputError`` if unknown."""
        try:
            return self._lookup[name.casefold()]
        except KeyError:
            raise InputError(f"{name!r} is not a variable of the graph") from None

    @cached_property
    def _lookup(self) -> dict[str, int]:
        return {name.casefold(): i for i, name in enumerate(self.names)}

    def descendants_of(self, mask: int) -> int:
        """The variables of ``mask`` and all their descendants (inclusive)."""
        return self.dag.descendants_of(mask)

    def ancestors_of(self, mask: int) -> int:
        """The variables of ``mask`` and all their ancestors (inclusive)."""
        return self.dag.ancestors_of(mask)

    def _subgraph(self, edges: frozenset[tuple[int, int]], dag: Dag | None = None
                  ) -> TaskGraph:
        """The graph on the same names with some of its edges (``dag``, when given, is
        its structure): distinct names, edges between them and no cycle, as here, so not
        checked again."""
        out = object.__new__(TaskGraph)
        object.__setattr__(out, "names", self.names)
        object.__setattr__(out, "edges", edges)
        if dag is not None:
            object.__setattr__(out, "dag", dag)  # what the cached property would compute
        return out

    def without_edges_into(self, node: int) -> TaskGraph:
        """The graph after a perfect intervention on ``node``: its incoming edges deleted."""
        return self._subgraph(frozenset(e for e in self.edges if e[1] != node))

    def without_edges_out_of(self, node: int) -> TaskGraph:
        """The graph with the outgoing edges of ``node`` removed (backdoor graph); built once
        per node (every candidate set of a BA question is judged on the same cut graphs)."""
        cut = self._cut_out_of.get(node)
        if cut is None:
            bit = 1 << node
            whole = self.dag
            cut = self._subgraph(frozenset(e for e in self.edges if e[0] != node),
                                 Dag(whole.n, tuple(p & ~bit for p in whole.parents)))
            self._cut_out_of[node] = cut
        return cut

    @cached_property
    def _cut_out_of(self) -> dict[int, TaskGraph]:
        return {}

    def mask_names(self, mask: int) -> tuple[str, ...]:
        names = self.names
        out = []
        while mask:
            low = mask & -mask
            out.append(names[low.bit_length() - 1])
            mask ^= low
        return tuple(out)


# ---- CP / BA ------------------------------------------------------------------

@dataclass(frozen=True)
class PathsQuestion:
    """CP: identify all directed paths from each cause to each effect."""

    graph: TaskGraph
    causes: tuple[int, ...]
    effects: tuple[int, ...]


@dataclass(frozen=True)
class BackdoorQuestion:
    """BA: give a set of variables that blocks all backdoor paths between causes and effects."""

    graph: TaskGraph
    causes: tuple[int, ...]
    effects: tuple[int, ...]


# ---- FI / CI ------------------------------------------------------------------

@dataclass(frozen=True)
class Literal:
    """``node`` happened (``value=True``) or did not happen (``value=False``)."""

    node: int
    value: bool


@dataclass(frozen=True)
class Rule:
    """``head`` happens if every literal of ``body`` holds (one line of the prompt)."""

    head: int
    body: tuple[Literal, ...]


@dataclass(frozen=True)
class BooleanSCM:
    """Boolean structural equations: each head is the OR of its rules' conjunctions.

    ``bound`` is the bitmask of roots declared "bound to happen".
    """

    names: tuple[str, ...]
    rules: tuple[Rule, ...]
    bound: int = 0

    @cached_property
    def graph(self) -> TaskGraph:
        """The causal graph the rules induce (an edge from each body variable to the head)."""
        return TaskGraph(self.names, frozenset((lit.node, r.head) for r in self.rules
                                               for lit in r.body))

    def rules_for(self, node: int) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.head == node)

    def is_root(self, node: int) -> bool:
        return not any(r.head == node for r in self.rules)


@dataclass(frozen=True)
class FactualQuestion:
    """FI: the value of each query given the observed roots."""

    scm: BooleanSCM
    observed: tuple[Literal, ...]
    queries: tuple[int, ...]


@dataclass(frozen=True)
class CounterfactualQuestion:
    """CI: the value of each query had the what-if events been as stated."""

    scm: BooleanSCM
    observed: tuple[Literal, ...]
    queries: tuple[int, ...]
    whatif: tuple[Literal, ...]


# ---- IE -------------------------------------------------------------------------

class IEKind(Enum):
    """What an intervention-effect question asks about the pair (source, target)."""

    CAUSE = "cause"   # "does A cause B?" / "does A cause a change in B?"
    PATH = "path"     # "is there a (directed) path going from A to B?"
    EDGE = "edge"     # "is there an edge from A to B?"


@dataclass(frozen=True)
class Intervention:
    """A perfect intervention ``do(node = value)``; ``value`` is kept as written."""

    node: int
    value: str


@dataclass(frozen=True)
class InterventionQuestion:
    """IE: a graph, interventions applied in order, and a question about (source, target)."""

    graph: TaskGraph
    interventions: tuple[Intervention, ...]
    kind: IEKind
    source: int
    target: int
    operator: str = "do"


# ---- answers --------------------------------------------------------------------

@dataclass(frozen=True)
class PathsAnswer:
    """All directed paths (index tuples) from each cause to each effect."""

    paths: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class BackdoorAnswer:
    """Whether adjustment is needed, the inclusion-minimal valid sets, the parents set."""

    needed: bool
    minimal_sets: tuple[int, ...]
    parents_set: int
    parents_set_valid: bool
    candidates: int  # the variables a valid set may contain (ancestors, not forbidden)


@dataclass(frozen=True)
class TraceStep:
    """One evaluation step: ``node`` took ``value`` because of ``reason``.

    ``rule`` is the index (into ``BooleanSCM.rules``) of the first rule that fired,
    or None (no rule fired, or the node is a root / intervened).
    """

    node: int
    value: bool
    reason: str
    rule: int | None = None


@dataclass(frozen=True)
class ValuesAnswer:
    """The value of each query, with the full evaluation trace as the certificate."""

    values: tuple[tuple[int, bool], ...]
    trace: tuple[TraceStep, ...]


@dataclass(frozen=True)
class InterventionAnswer:
    """IE answer: ``yes``; the relation in the original graph; κ = C(G) − C(G^V)."""

    yes: bool
    holds_before: bool
    kappa: int
    witness: tuple[int, ...] = field(default=())  # a directed path / the edge, when yes


Question = (PathsQuestion | BackdoorQuestion | FactualQuestion | CounterfactualQuestion
            | InterventionQuestion)
Answer = PathsAnswer | BackdoorAnswer | ValuesAnswer | InterventionAnswer


_TASKS: dict[type, str] = {PathsQuestion: "CP", BackdoorQuestion: "BA", FactualQuestion: "FI",
                           CounterfactualQuestion: "CI", InterventionQuestion: "IE"}


def task_of(question: Question) -> str:
    """The task code (CP, BA, FI, CI, IE) of a question object."""
    return _TASKS[type(question)]


# ---- model answers (what a language model claimed) ------------------------------

@dataclass(frozen=True)
class PathsClaim:
    """CP model answer: paths as name sequences (empty tuple = "None")."""

    paths: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class SetClaim:
    """BA model answer: a set of names (empty = "None")."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class ValuesClaim:
    """FI/CI model answer: (name, happened) pairs in the order written."""

    values: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class YesNoClaim:
    """IE model answer, and a yes/no (valid/invalid, true/false) Corr2Cause answer."""

    yes: bool


@dataclass(frozen=True)
class RelationClaim:
    """A 3-class Corr2Cause answer: ``entailment``, ``neutral`` or ``contradiction``."""

    relation: str


Claim = PathsClaim | SetClaim | ValuesClaim | YesNoClaim
