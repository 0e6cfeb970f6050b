"""The formal object of a CaLM effect question: a DAG, binary variables, stated numbers.

CaLM's effect tasks (ATE, CDE, ETT, NDE, NIE, PN, PS) state a causal graph in words
("X has a direct effect on Y"), a list of probabilities of binary variables (each value
named by a word: "low"/"high", "smoker"/"non-smoker", 高/低), and ask about one
treatment X and one outcome Y.  Here every variable is an index into ``names`` and
every value is 0 or 1 (the order in which the text first names the two words; the
words are kept in ``values`` for explanations).  A stated number is ``Stated``: the
probability of an ``event`` (one or two literals) given a condition, as printed (four
decimals), so it stands for the interval of half a unit of its last digit either side.

``EffectQuestion`` carries what the question asks, in CaLM's own terms (found in its
reasoning steps, ``Reason`` of every record):

* ``ATE``: "if X is changed to be x, will Y be more likely to be y":
  P(Y=y | do(X=x)) − P(Y=y | do(X=x′));
* ``CDE``: "conditioned on M being m, if X had been x …":
  P(Y=y | do(X=x, M=m)) − P(Y=y | do(X=x′, M=m)) (``held`` = the M=m literals);
* ``ETT``: "for those with X being a, if their X had been b, would Y have been more likely
  to be y": CaLM's number is E[Y_a − Y_b | X=a] = P(Y=y | X=a) − P(Y_b=y | X=a)
  (``base`` = a, ``x`` = b), and its answer is "yes" when that number is negative;
* ``NDE``: "the mediator keeps constant when X is changed to be x":
  Σ_{m,c} [P(y | x, m, c) − P(y | x′, m, c)] P(m | x′, c) P(c);
* ``NIE``: "X is held constant and the mediator changes to whatever value it would have
  attained under X changing to be x": Σ_{m,c} P(y | x′, m, c) [P(m | x, c) − P(m | x′, c)] P(c);
* ``PN``/``PS``: "given that X was a and Y was b, the lower/upper bound of the
  probability that Y would have been b′ had X been a′" (``base`` = a, ``factual_y`` = b,
  ``x`` = a′, ``y`` = b′) — Tian and Pearl's bounds (``tian_pearl``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from causal_oracle.oracle.calm.model import Lang

#: a literal: (variable index, value 0/1)
Lit = tuple[int, int]

#: half a unit of the fourth decimal: the rounding every CaLM number carries
HALF_UNIT = Fraction(1, 20000)


class EffectKind(StrEnum):
    ATE = "ATE"
    CDE = "CDE"
    ETT = "ETT"
    NDE = "NDE"
    NIE = "NIE"
    PN = "PN"
    PS = "PS"


class Bound(StrEnum):
    LOWER = "lower"
    UPPER = "upper"


@dataclass(frozen=True, slots=True)
class Stated:
    """P(event | given) = value, as printed (``text``)."""

    event: tuple[Lit, ...]
    given: tuple[Lit, ...]
    value: Fraction
    text: str

    @property
    def key(self) -> tuple[tuple[Lit, ...], tuple[Lit, ...]]:
        return self.event, self.given


@dataclass(frozen=True, slots=True)
class EffectQuestion:
    """One CaLM effect question, read from a record or a rendered prompt."""

    kind: EffectKind
    language: Lang
    names: tuple[str, ...]
    values: tuple[tuple[str, str], ...]
    edges: tuple[tuple[int, int], ...]
    treatment: int
    outcome: int
    x: int
    y: int
    base: int | None = None
    factual_y: int | None = None
    held: tuple[Lit, ...] = ()
    bound: Bound | None = None
    stated: tuple[Stated, ...] = ()
    #: the question names treatment and outcome the other way round from the instruction
    reversed_question: bool = False

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def degenerate(self) -> bool:
        """Treatment and outcome are one variable (or ETT/PN/PS compare a value with itself)."""
        return self.treatment == self.outcome or (self.base is not None and self.base == self.x)

    @property
    def numeric(self) -> bool:
        return self.kind in (EffectKind.PN, EffectKind.PS)
