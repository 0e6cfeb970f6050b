"""The claims a reasoning text makes, the facts an item holds, and a claim's verdict.

A *claim* is one checkable statement about an item's own variables, read from one
sentence (or clause) of a reply by ``parser.claims``: its ``kind`` (``ClaimKind``), the
variables it names (indices into the item's declared names), its ``polarity`` (False
for "A is not a cause of C"), a conditioning set, a number, and the character ``span``
of the text it was read from.  Kinds are canonical: "A is a parent of B", "B is a child
of A", "A directly causes B" and "A -> B" are one ``EDGE`` claim; "A is an ancestor of
C", "there is a directed path from A to C" and "A causes C" are one ``CAUSE`` claim.

The *facts* of an item (``Facts``) are what its family's ``reasoning_facts`` hook hands
the generic checker: the declared names, the DAGs the item is about (a Corr2Cause
premise's whole Markov equivalence class; the one graph of a CLEAR, CI-Bench, IE or
CLadder item), the numbers it determines, and the right final answer.  A claim about
the graph is true when it holds in every one of ``graphs``, false when it holds in
none, and *not decidable* otherwise — e.g. an edge whose direction differs across the
class.  A false claim carries a ``witness``: the member where it fails and why (the
reversed edge, the open path, the exact value).

>>> c = Claim(ClaimKind.EDGE, (0, 1), (3, 9), True)
>>> c.kind.value, c.variables, c.polarity
('edge', (0, 1), True)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from causal_oracle.oracle.graph import Dag


class ClaimKind(enum.Enum):
    """What a claim says (the variables are ``Claim.variables``, in this order)."""

    __hash__ = object.__hash__  # members are singletons: hash by identity, in C

    #: (x, y): x ⊥ y given ``Claim.given`` ("A is independent of B given C")
    INDEPENDENCE = "independence"
    #: (x, y): x and y are correlated (dependent) given ``Claim.given``
    CORRELATION = "correlation"
    #: (x, y): x and y are d-separated by ``Claim.given``
    D_SEPARATION = "d_separation"
    #: (x, y): an edge joins x and y, either way
    ADJACENT = "adjacent"
    #: (x, y): the edge x → y ("x directly causes y", "x is a parent of y")
    EDGE = "edge"
    #: (x, y): a directed path x → … → y ("x causes y", ancestor, descendant)
    CAUSE = "cause"
    #: (x, y): a directed path x → … → y through at least one mediator
    INDIRECT_CAUSE = "indirect_cause"
    #: (c, x, y): x → c ← y
    COLLIDER = "collider"
    #: (x, y) or (c, x, y): some (or the named) common effect: c a descendant of both
    COMMON_EFFECT = "common_effect"
    #: (x, y) or (c, x, y): some (or the named) confounder: c an ancestor of both
    CONFOUNDER = "confounder"
    #: (m, x, y): m lies on a directed path x → … → m → … → y
    MEDIATOR = "mediator"
    #: path nodes: the path is blocked by ``Claim.given`` (polarity False: open)
    PATH_BLOCKED = "path_blocked"
    #: (x, y): a backdoor path from x to y is open (unconditioned)
    BACKDOOR_PATH = "backdoor_path"
    #: (x, y) + ``given``: ``given`` satisfies the backdoor criterion for x on y
    ADJUSTMENT_SET = "adjustment_set"
    #: (x, y) + ``given``: ``given`` satisfies the front-door criterion for x on y
    FRONTDOOR_SET = "frontdoor_set"
    #: (z, x, y): z is an instrument for the effect of x on y
    INSTRUMENT = "instrument"
    #: (x, y): the effect of x on y is identifiable from the observed variables
    IDENTIFIABLE = "identifiable"
    #: (x, y): the direction of the edge between x and y is the same in every member
    COMPELLED = "compelled"
    #: (): the equivalence class has ``Claim.number`` members
    CLASS_SIZE = "class_size"
    #: (): ``Claim.quantity`` equals ``Claim.number``
    NUMBER = "number"
    #: (): ``Claim.quantity`` compared with ``Claim.number`` or ``Claim.other``
    COMPARISON = "comparison"
    #: (): the final answer is yes (polarity True) or no
    ANSWER = "answer"


class Verdict(enum.Enum):
    TRUE = "true"
    FALSE = "false"
    NOT_DECIDABLE = "not_decidable"


class Relation(enum.Enum):
    """The order a comparison claims."""

    __hash__ = object.__hash__  # members are singletons: hash by identity, in C

    __hash__ = object.__hash__  # members are singletons: hash by identity, in C

    GREATER = ">"
    LESS = "<"
    EQUAL = "="


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number an item may determine: a probability ``P(event | given)`` (each literal a
    (variable, value) pair, sorted) or a named effect (``name``: "ate", "nde", …)."""

    name: str = "P"
    event: tuple[tuple[int, int], ...] = ()
    given: tuple[tuple[int, int], ...] = ()
    #: (treatment, outcome) of an effect that names them ("the effect of X on Y")
    between: tuple[int, ...] = ()

    def text(self, names: tuple[str, ...]) -> str:
        if self.name != "P":
            return self.name.upper()
        lits = ", ".join(f"{names[v]}={x}" for v, x in self.event)
        cond = ", ".join(f"{names[v]}={x}" for v, x in self.given)
        return f"P({lits}{' | ' + cond if cond else ''})"


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim read from a reply (see the module docstring)."""

    kind: ClaimKind
    variables: tuple[int, ...]
    span: tuple[int, int]
    polarity: bool = True
    given: tuple[int, ...] = ()
    number: float | None = None
    #: how many decimals the number was written with (its rounding tolerance)
    decimals: int = 0
    quantity: Quantity | None = None
    other: Quantity | None = None
    relation: Relation = Relation.EQUAL

    def at(self, span: tuple[int, int]) -> Claim:
        """The same claim read at ``span`` (``dataclasses.replace``, without its cost)."""
        return Claim(self.kind, self.variables, span, self.polarity, self.given, self.number,
                     self.decimals, self.quantity, self.other, self.relation)

    def key(self) -> tuple[object, ...]:
        """What the claim says, wherever it was read (its span aside): equal keys get
        equal verdicts on one item's facts."""
        return (self.kind, self.variables, self.polarity, self.given, self.number,
                self.decimals, self.quantity, self.other, self.relation)


@dataclass(frozen=True, slots=True)
class Value:
    """A number an item determines, exactly or within ``[lo, hi]`` (a stated, rounded
    number; an effect only bounded)."""

    lo: float
    hi: float


@dataclass(frozen=True)
class Facts:
    """What an item lets a reasoning text be checked against (a family's
    ``reasoning_facts``).

    ``graphs``: every DAG the item allows (its Markov equivalence class, or its one
    graph); empty with ``no_graph`` saying why when the item has none to check against.
    ``hidden``: a bitmask of unobserved variables; ``query``: the (treatment, outcome)
    a claim that names none is about; ``numbers``: what the item determines;
    ``answer``: the right yes/no final answer (None: not a yes/no item, or none is
    right); ``is_class``: ``graphs`` is a Markov equivalence class (its size is
    ``len(graphs)``).
    """

    names: tuple[str, ...]
    graphs: tuple[Dag, ...] = ()
    no_graph: str = "the item has no causal graph to check against"
    hidden: int = 0
    query: tuple[int, int] | None = None
    numbers: dict[Quantity, Value] = field(default_factory=dict)
    answer: bool | None = None
    is_class: bool = False
    #: further words a reply may name a variable by (CLadder's "X", "Y")
    aliases: dict[str, int] = field(default_factory=dict)
    #: non-empty where the item's text names its variables' values only in words
    #: (CaLM's 高/低, "low"/"high") and never says which is 0 or 1: why a probability
    #: written with numerals ("P(C=0|B=1)") is not decidable on it
    unnumbered: str = ""
    #: verdicts already given on these facts, by ``Claim.key`` (the checker's memo: a
    #: trainer's replies to one item repeat their claims)
    verdicts: dict[tuple[object, ...], tuple[Verdict, str]] = field(
        default_factory=dict, init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Checked:
    """A claim with its verdict; ``why`` says why (for a false claim: its witness from
    the certificate; for an undecidable one: what makes it so)."""

    claim: Claim
    verdict: Verdict
    why: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class Contradiction:
    """Two claims of one reply that cannot both hold (indices into the checked claims)."""

    first: int
    second: int
    why: str
