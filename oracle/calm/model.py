"""The formal objects of CaLM's graph tasks: a causal graph and the questions asked of it.

CaLM writes a graph as a list of causal statements ("A causes D, B causes D, and D
causes E"; Chinese "A导致D, …, 以及D导致E") over the vertices A, B, C, …, and its
identification task adds unobserved confounders ("E and F" — a bidirected edge E↔F).
``CalmGraph`` is that graph as the project's one mixed-graph type
(``oracle.mixed_graph.MixedGraph``: a ``Dag`` of parent bitmasks plus a spouse bitmask
per vertex for the bidirected edges, and the vertex names in written order).

The questions (each a frozen record the parts of the CaLM family produce from a record
or a rendered prompt, and its solvers and checkers read):

* ``Relation`` — AR-B / CA-B FA / CA-B FP: is ``first`` an ancestor (a proper one: a
  directed path of length ≥ 1) or a parent of ``second``;
* ``Identify`` — CEI-B: is P(outcome | do(treatment)) identified from the observed
  distribution in the graph with bidirected edges;
* ``Choice`` — BAS-C min/max/mix, FAS-C, IV-C: which of three options (vertex sets) is
  a minimal / maximal / any backdoor set, a front-door set, an instrument set.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from causal_oracle.oracle.mixed_graph import MixedGraph


class Lang(enum.Enum):
    """The language of a CaLM item (its file name ends in ``_EN`` or ``_CN``)."""

    EN = "EN"
    CN = "CN"


CalmGraph = MixedGraph
"""A CaLM graph is the project's one mixed-graph type (``oracle.mixed_graph``): vertices
``names``, directed edges as ``dag``, a hidden confounder as a bidirected edge
(``spouses``); CaLM's graphs have no undirected edge."""


class RelationKind(enum.Enum):
    ANCESTOR = "ancestor"
    PARENT = "parent"


@dataclass(frozen=True, slots=True)
class Relation:
    """Is ``first`` a proper ancestor (a parent) of ``second`` in ``graph``."""

    graph: CalmGraph
    kind: RelationKind
    first: str
    second: str


@dataclass(frozen=True, slots=True)
class Identify:
    """Is P(``outcome`` | do(``treatment``)) identified in ``graph`` (with its confounders)."""

    graph: CalmGraph
    treatment: str
    outcome: str


class Criterion(enum.Enum):
    """What an option must be (CaLM's readings; see ``docs/families/calm.md``)."""

    BACKDOOR_MIN = "minimal backdoor set"
    BACKDOOR_MAX = "maximal backdoor set"
    BACKDOOR_ANY = "backdoor set"
    FRONTDOOR = "front-door set"
    INSTRUMENT = "instrument set"


@dataclass(frozen=True, slots=True)
class Choice:
    """Which of ``options`` (1-based in CaLM's text) meets ``criterion`` relative to the
    ordered pair (``treatment``, ``outcome``) in ``graph``; ``hidden`` are the vertices
    the reading treats as unobserved (CaLM's CoT prompts: vertex A)."""

    graph: CalmGraph
    criterion: Criterion
    treatment: str
    outcome: str
    options: tuple[frozenset[str], ...]
    hidden: frozenset[str] = frozenset()


GraphQuestion = Relation | Identify | Choice



# ---- answers and their certificates ---------------------------------------------------
@dataclass(frozen=True, slots=True)
class Hedge:
    """Two C-forests that witness non-identifiability (Shpitser & Pearl 2006): ``forest``
    (F) and ``inner`` (F′ ⊂ F) share the root set ``roots`` (R ⊆ An(Y) once the edges
    into the treatment are cut); ``edges`` are F's directed edges (each non-root vertex
    of F with exactly one, towards R; F′'s are those inside F′).  Both are one district
    (bidirected-connected), F meets the treatment and F′ does not."""

    forest: frozenset[str]
    inner: frozenset[str]
    roots: frozenset[str]
    edges: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A yes/no answer: ``path`` (a directed path, for an ancestor or parent that is
    one), ``hedge`` (for a non-identified effect), ``expression`` (an identifying
    expression in c-factor notation, for an identified one); ``degenerate`` when the
    question names one vertex twice."""

    answer: bool
    path: tuple[str, ...] = ()
    hedge: Hedge | None = None
    expression: str = ""
    degenerate: bool = False


class Reading(enum.Enum):
    """The other readings a choice question is also answered in (each item whose answer
    depends on one is reported)."""

    A_OBSERVED = "vertex A observed"
    MAXIMAL_OVERALL = "maximal among all vertex sets, not only the options"
    PEARL_INSTRUMENT = "Pearl's instrument (d-connected to the treatment)"
    LITERAL_BACKDOOR = "a directed path from the outcome into the treatment is a back-door path"


@dataclass(frozen=True, slots=True)
class Picked:
    """A choice question's answer: ``valid`` (1-based options meeting the criterion in
    CaLM's reading), ``readings`` (the options valid in each other reading),
    ``reasons`` (why each option fails or holds), ``degenerate`` (treatment = outcome: no
    option is meaningful)."""

    valid: tuple[int, ...]
    readings: tuple[tuple[Reading, tuple[int, ...]], ...]
    reasons: tuple[str, ...]
    degenerate: bool = False

    @property
    def answer(self) -> int | None:
        """The one valid option, or None (none or several: ambiguous)."""
        return self.valid[0] if len(self.valid) == 1 else None

    def depends_on(self) -> tuple[Reading, ...]:
        """The readings under which the valid options differ."""
        return tuple(r for r, valid in self.readings if valid != self.valid)


Solution = Verdict | Picked

__all__ = ["CalmGraph", "Choice", "Criterion", "GraphQuestion", "Hedge", "Identify", "Lang",
           "Picked", "Reading", "Relation", "RelationKind", "Solution", "Verdict"]
