"""The benchmark's own yes/no rule, read off its generator, and deciding it over a box.

CLadder's generator (``causalbenchmark/queries``) computes one number per question from
its model and turns it into "yes" or "no"; every gold answer of the benchmark's files
follows these rules (checked on all 3,044 shared questions against ``meta.groundtruth``):

* **threshold rule** (``correlation``, ``ate``, ``ett``, ``nde``, ``nie``): with v the
  quantity oriented so that the affirmative wording ("increase", "larger", "more
  likely", "positively") means v > 0, the answer is "no" when |v| < 0.005, else "yes"
  exactly when v has the wording's sign.  (ETT's generator value is
  E[Y₁ − Y₀ | X=1] and the question asks about the other value, so the orientation
  is P(Y_b=y | X=a) − P(Y=y | X=a).)
* **sign rule** (``exp_away``): "yes" exactly when v has the wording's sign, no
  threshold (at v = 0 the generator would print "unknown"; here that is "no").
* **marginal rule**: "Is Y=a more (less) likely than Y=b overall?" compares P(Y=1) with
  1/2; the generator answers "no" when P(Y=1) is exactly 1/2 or below 0.005, else
  "yes" exactly when P(Y=a) > P(Y=b) matches "more".
* ``collider_bias``: "yes" exactly for "does not affect" (the effect is zero);
  ``backadj``: "yes" exactly when Method 1 (the one asked about first) is a valid
  adjustment set and the other is not; deterministic counterfactuals: "yes" exactly
  when the outcome takes the asked value.

Every rule is constant between a few breakpoints, so it is decided over an interval
[lo, hi] of the quantity exactly by looking at the ends, the breakpoints inside and one
point between each pair (``decide``): "yes", "no", or None when the answer changes
inside the interval.

>>> from fractions import Fraction as F
>>> decide(Rule.THRESHOLD, True, F(1, 100), F(3, 100))
True
>>> decide(Rule.THRESHOLD, True, F(1, 1000), F(3, 100)) is None
True
>>> decide(Rule.MARGINAL, False, F(1, 1000), F(3, 5), named=1) is None  # "less likely"
True
"""

from __future__ import annotations

from enum import StrEnum
from fractions import Fraction

THRESHOLD = Fraction(1, 200)
"""The generator's |v| < 0.005 → "no"."""
HALF = Fraction(1, 2)


class Rule(StrEnum):
    THRESHOLD = "threshold"
    SIGN = "sign"
    MARGINAL = "marginal"
    EFFECT = "effect"

    @property
    def text(self) -> str:
        return _TEXT[self]


_TEXT = {Rule.THRESHOLD: "yes iff |v| ≥ 0.005 and v has the sign the wording asks about",
         Rule.SIGN: "yes iff v has the sign the wording asks about (no threshold)",
         Rule.MARGINAL: "yes iff P(Y=1) ≠ 1/2, P(Y=1) ≥ 0.005 and the named value is the "
                        "more (less) likely one as asked",
         Rule.EFFECT: "yes iff 'affects' is asked and the effect v is not zero, or "
                      "'does not affect' is asked and it is zero"}


def answer(rule: Rule, polarity: bool, v: Fraction, named: int = 1) -> bool:
    """The rule's answer ("yes" = True) at the value ``v`` (``named``: the outcome value
    a marginal question names first)."""
    if rule is Rule.THRESHOLD:
        return abs(v) >= THRESHOLD and (v > 0) == polarity
    if rule is Rule.SIGN:
        return v != 0 and (v > 0) == polarity
    if rule is Rule.EFFECT:
        return (v != 0) == polarity
    if v == HALF or v < THRESHOLD:
        return False
    return (v > HALF) == (polarity == (named == 1))


def breakpoints(rule: Rule) -> tuple[Fraction, ...]:
    if rule is Rule.THRESHOLD:
        return (-THRESHOLD, THRESHOLD)
    if rule in (Rule.SIGN, Rule.EFFECT):
        return (Fraction(0),)
    return (THRESHOLD, HALF)


def probe_points(rule: Rule, lo: Fraction, hi: Fraction) -> list[Fraction]:
    """The values at which the rule's answer over [lo, hi] can be read off: the ends,
    each breakpoint inside, and a point between each consecutive pair."""
    points = sorted({lo, hi, *(b for b in breakpoints(rule) if lo < b < hi)})
    mids = [(a + b) / 2 for a, b in zip(points, points[1:], strict=False)]
    return sorted(set(points) | set(mids))


def decide(rule: Rule, polarity: bool, lo: Fraction, hi: Fraction, named: int = 1
           ) -> bool | None:
    """The answer when it is the same for every v in [lo, hi], else None."""
    if not any(lo <= b <= hi for b in breakpoints(rule)):  # one piece: read it anywhere
        return answer(rule, polarity, lo, named)
    answers = {answer(rule, polarity, v, named) for v in probe_points(rule, lo, hi)}
    return answers.pop() if len(answers) == 1 else None


def witness(rule: Rule, polarity: bool, lo: Fraction, hi: Fraction, named: int = 1
            ) -> tuple[Fraction, Fraction] | None:
    """Two values in [lo, hi] with different answers (None when the answer is fixed)."""
    points = probe_points(rule, lo, hi)
    first = answer(rule, polarity, points[0], named)
    for v in points[1:]:
        if answer(rule, polarity, v, named) != first:
            return points[0], v
    return None


__all__ = ["HALF", "THRESHOLD", "Rule", "answer", "breakpoints", "decide", "probe_points",
           "witness"]
