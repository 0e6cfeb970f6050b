"""Procedural CLadder items: seeded models over CLadder's graphs, answered from their text.

CLadder (Jin et al., 2023) asks yes/no questions on the three rungs of the ladder of
causation about small Bernoulli models over ten graph families, each told as a *story*
(``alarm``: husband → wife → alarm clock) or with nonsense words.  Here every item is
drawn as the benchmark's generator draws it:

1. a graph family and a story that tells it (``entry.families.cladder_wording``: the benchmark's
   own vocabulary; the ten ``nonsense`` stories tell every family; an anti-commonsense
   variant replaces X or Y by an unrelated attribute), the background
   written in CLadder's words ("X has a direct effect on Y and Z.", "V is unobserved.");
2. a random model — a probability for each variable given each value of its parents —
   and the quantities CLadder states for the query (``TERMS``: the benchmark's own
   choice of given information per query type and graph), computed exactly from the
   model's joint distribution and printed as whole percentages;
3. the question in CLadder's template, its polarity ("increase"/"decrease",
   "more"/"less", …) chosen so that a balanced dataset's labels are drawn first;
4. the oracle reads the whole text and answers it (``Service.answer``): an item whose
   text it cannot read, or whose printed numbers do not decide the answer, is redrawn.

The gold answer is the oracle's, never the model's: the printed percentages are what a
reader has.  What an item measures is recorded in ``difficulty``:

====================  ===========================================================
knob                  measured as
====================  ===========================================================
``min/max_rung``      the rung of the query type (1 associational, 2
                      interventional, 3 counterfactual)
``query_types``       CLadder's query types: ``marginal``, ``correlation``,
                      ``exp_away`` (rung 1), ``ate``, ``backadj``, ``collider_bias``
                      (2), ``ett``, ``nde``, ``nie``, ``det-counterfactual`` (3)
``graphs``            CLadder's ten graph families
``min/max_margin``    the distance from the decision point (0 for an effect or a
                      difference, ½ for "more likely than … overall") to the nearest
                      end of the oracle's certified interval for the quantity;
                      ``NO_MARGIN`` types have none (None: the graph or the stated
                      mechanisms decide), a ``FIXED_LABEL`` cell none to speak of:
                      only ``min_margin`` = 0 admits them
``stories``           ``commonsense`` (the benchmark's stories), ``nonsense``, and
                      ``anticommonsense`` (a story with X or Y replaced by an
                      unrelated attribute of its subject, as the benchmark does)
``balanced``          the yes/no label is drawn first, uniformly
====================  ===========================================================

Every item is identifiable (its answer is yes or no): the identification strategy the
oracle used (backdoor adjustment, frontdoor, mediation formula, …) is recorded as
``identification``.  CLadder cells the oracle finds not identifiable from the
benchmark's own given information are left out (``NOT_IDENTIFIED``); cells whose label
no model can change (``FIXED_LABEL``) are drawn only for that label.

    >>> from causal_oracle.entry import default
    >>> knobs = LadderKnobs(query_types=("ate",), graphs=("mediation",))
    >>> item = draw(knobs, random.Random(1), default())
    >>> item["difficulty"]["query_type"], item["difficulty"]["rung"], item["answer"]
    ('ate', 2, 'yes')
    >>> item == draw(knobs, random.Random(1), default())
    True
"""

from __future__ import annotations

import contextlib
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from causal_oracle.entry.families.cladder_wording import (
    GRAPHS,
    LETTERS,
    NONSENSE,
    STORIES,
    STORY_KINDS,
    STRATUM,
    Words,
    background,
    mechanisms,
    question,
    stories_for,
    story,
)
from causal_oracle.entry.family_records import Generator
from causal_oracle.entry.oracle_protocol import Oracle
from causal_oracle.oracle.errors import InputError

MAX_DRAWS = 200  # models drawn for one item before the knobs are declared unsatisfiable
INSTRUCTION = "Answer yes or no."


#: the rung of each query type this generator writes
RUNGS = {"marginal": 1, "correlation": 1, "exp_away": 1, "ate": 2, "backadj": 2,
         "collider_bias": 2, "ett": 3, "nde": 3, "nie": 3, "det-counterfactual": 3}
#: query types whose answer no printed number decides (the graph or the mechanisms do):
#: no margin
NO_MARGIN = ("backadj", "collider_bias", "det-counterfactual")
QUERY_TYPES = tuple(RUNGS)

Term = tuple[str, tuple[str, ...]]  # (variable, the variables it is conditioned on)
_MARGINAL: tuple[Term, ...] = (("X", ()), ("Y", ("X",)))
_EFFECT: tuple[Term, ...] = (("Y", ("X",)),)
_ADJUST: tuple[Term, ...] = (("V1", ()), ("Y", ("V1", "X")))
_FRONT: tuple[Term, ...] = (("V3", ("X",)), ("X", ()), ("Y", ("X", "V3")))
_MEDIATE: tuple[Term, ...] = (("V2", ("X",)), ("Y", ("X", "V2")))
_ARROW: tuple[Term, ...] = (("V2", ()), ("V3", ("X", "V2")), ("Y", ("X", "V3")))
#: CLadder's given information per query type and graph (its generator's choice)
TERMS: dict[str, dict[str, tuple[Term, ...]]] = {
    "marginal": {g: _MARGINAL for g in GRAPHS},
    "correlation": {g: () for g in GRAPHS},  # written as P(X) and the joint P(X, Y)
    "ate": {"arrowhead": _EFFECT, "chain": _EFFECT,
            "diamond": _EFFECT, "fork": _EFFECT, "mediation": _EFFECT,
            "confounding": _ADJUST, "diamondcut": _ADJUST, "frontdoor": _FRONT},
    "backadj": {g: () for g in GRAPHS},
    "exp_away": {"collision": (("X", ()), ("Y", ("X", "V3")))},
    "collider_bias": {"collision": ()},  # written as the correlation given the collider
    # written as deterministic mechanisms and observed roots (``mechanisms``)
    "det-counterfactual": {g: () for g in GRAPHS if g != "collision"},
    "ett": {"arrowhead": _EFFECT, "chain": _EFFECT, "diamond": _EFFECT, "fork": _EFFECT,
            "mediation": _EFFECT,
            "diamondcut": (("V3", ("X",)), ("Y", ("X", "V3"))),
            "frontdoor": (("V3", ("X",)), ("Y", ("X", "V3")))},
    "nde": {"mediation": _MEDIATE},
    "nie": {"mediation": _MEDIATE, "chain": _EFFECT, "frontdoor": _FRONT},
}
#: CLadder cells the oracle finds not identifiable from the benchmark's own given
#: information, so never drawn (an item must have a yes/no answer): the instrument's ATE
#: (CLadder's Wald ratio assumes more than the graph), ETT on ``confounding`` (adjustment
#: needs P(V1 | X), not stated), NDE/NIE on ``arrowhead`` (its stated terms condition on
#: the mediator's other parent)
NOT_IDENTIFIED = (("ate", "IV"), ("ett", "confounding"), ("nde", "arrowhead"),
                  ("nie", "arrowhead"))
#: cells whose answer is the same whatever the model: the collider's causes are
#: independent (no correlation is "larger" or "smaller"); on a fork both methods are
#: correct (V2 is no confounder), so neither is "more correct"
FIXED_LABEL = {("correlation", "collision"): "no", ("backadj", "fork"): "no"}


@dataclass
class LadderKnobs:
    """What an item must measure (see the module docstring)."""

    min_rung: int = 1
    max_rung: int = 3
    query_types: tuple[str, ...] = QUERY_TYPES
    graphs: tuple[str, ...] = tuple(GRAPHS)
    min_margin: float = 0.0
    max_margin: float = 1.0
    stories: tuple[str, ...] = ("commonsense", "nonsense")
    balanced: bool = True

    def validate(self) -> None:
        """``InputError`` naming the knob for values no item can have."""
        if not 1 <= self.min_rung <= self.max_rung <= 3:
            raise InputError("need 1 <= min_rung <= max_rung <= 3")
        for knob, known in (("query_types", QUERY_TYPES), ("graphs", tuple(GRAPHS)),
                            ("stories", STORY_KINDS)):
            given = getattr(self, knob)
            unknown = [str(v) for v in given if v not in known]
            if not given or unknown:
                raise InputError(f"{knob} must be among {', '.join(known)}"
                                 + (f"; not {unknown[0]!r}" if unknown else ""))
        if not 0.0 <= self.min_margin <= self.max_margin <= 1.0:
            raise InputError("need 0 <= min_margin <= max_margin <= 1")
        if not self.cells():
            raise InputError(f"no query type of {', '.join(self.query_types)} is on rungs "
                             f"{self.min_rung}–{self.max_rung} for graphs "
                             f"{', '.join(self.graphs)} (min_rung, max_rung, query_types, "
                             f"graphs)")

    def cells(self, target: str | None = None) -> tuple[tuple[str, str], ...]:
        """Every (query type, graph) an item may ask (answered ``target``, when given)."""
        return tuple((q, g) for q in dict.fromkeys(self.query_types)
                     if self.min_rung <= RUNGS[q] <= self.max_rung
                     for g in dict.fromkeys(self.graphs) if g in TERMS[q]
                     and not (self.min_margin > 0 and (q in NO_MARGIN or (q, g) in FIXED_LABEL))
                     and stories_for(g, self.stories, q)
                     and (target is None or FIXED_LABEL.get((q, g), target) == target))


# ---- the model ----------------------------------------------------------------------------

Joint = dict[tuple[int, ...], float]


def model(graph: str, rng: random.Random) -> tuple[tuple[str, ...], Joint]:
    """A random Bernoulli model over ``graph``: its variables and their joint distribution."""
    nodes = GRAPHS[graph]
    names = tuple(v for v, _ in nodes)
    cpt = {var: {vals: rng.uniform(0.02, 0.98) for vals in
                 itertools.product((0, 1), repeat=len(parents))}
           for var, parents in nodes}
    joint: Joint = {}
    for values in itertools.product((0, 1), repeat=len(names)):
        state = dict(zip(names, values, strict=True))
        p = 1.0
        for var, parents in nodes:
            one = cpt[var][tuple(state[q] for q in parents)]
            p *= one if state[var] else 1.0 - one
        joint[values] = p
    return names, joint


def probability(names: tuple[str, ...], joint: Joint, event: dict[str, int],
                given: dict[str, int] | None = None) -> float:
    """P(event | given) under ``joint``."""
    def mass(fixed: dict[str, int]) -> float:
        index = [(names.index(k), v) for k, v in fixed.items()]
        return sum(p for values, p in joint.items() if all(values[i] == v for i, v in index))
    given = given or {}
    return mass({**given, **event}) / mass(given)


def correlation(names: tuple[str, ...], joint: Joint, given: dict[str, int]) -> float:
    """The correlation of X and Y given ``given`` (both binary)."""
    px = probability(names, joint, {"X": 1}, given)
    py = probability(names, joint, {"Y": 1}, given)
    pxy = probability(names, joint, {"X": 1, "Y": 1}, given)
    spread = (px * (1 - px) * py * (1 - py)) ** 0.5
    return 0.0 if spread == 0 else (pxy - px * py) / spread


def _percent(p: float) -> str:
    return f"{round(100 * p)}%"


def given_information(query: str, graph: str, words: Words, names: tuple[str, ...],
                      joint: Joint) -> str:
    """The stated quantities in CLadder's sentences."""
    if query == "backadj":
        stratum = words.name(STRATUM[graph])
        x, y = words.name("X"), words.name("Y")
        return (f"Method 1: We look at how {x} correlates with {y} case by case according to "
                f"{stratum}. Method 2: We look directly at how {x} correlates with {y} in "
                "general.")
    if query == "collider_bias":
        return (f"For {words.where('V3', 1)}, the correlation between {words.noun('X', 1)} "
                f"and {words.noun('Y', 1)} is {correlation(names, joint, {'V3': 1}):.2f}.")
    if query == "correlation":
        return " ".join([
            f"The overall probability of {words.noun('X', 1)} is "
            f"{_percent(probability(names, joint, {'X': 1}))}.",
            *(f"The probability of {words.noun('X', x)} and {words.noun('Y', 1)} is "
              f"{_percent(probability(names, joint, {'X': x, 'Y': 1}))}." for x in (0, 1))])
    out = []
    for var, cond in TERMS[query][graph]:
        if not cond:
            out.append(f"The overall probability of {words.noun(var, 1)} is "
                       f"{_percent(probability(names, joint, {var: 1}))}.")
            continue
        for values in itertools.product((0, 1), repeat=len(cond)):
            fixed = dict(zip(cond, values, strict=True))
            where = words.where_all(fixed)
            out.append(f"For {where}, the probability of {words.noun(var, 1)} is "
                       f"{_percent(probability(names, joint, {var: 1}, fixed))}.")
    return " ".join(out)


# ---- drawing an item -------------------------------------------------------------------

def margin(query: str, bounds: Sequence[str] | None) -> float | None:
    """The distance of the certified interval from the decision point (None: no interval)."""
    if query in NO_MARGIN or not bounds:
        return None
    lo, hi = (Fraction(b) for b in bounds)
    point = Fraction(1, 2) if query == "marginal" else Fraction(0)
    return float(min(abs(lo - point), abs(hi - point)))


def draw(knobs: LadderKnobs, rng: random.Random, service: Oracle
         ) -> dict[str, Any]:
    """One item meeting ``knobs``, drawn with ``rng`` and answered by ``service`` (the
    entry layer's ``Service``); ``InputError`` when ``MAX_DRAWS`` models gave none."""
    knobs.validate()
    target = rng.choice(("yes", "no")) if knobs.balanced else None
    cells = knobs.cells(target)
    if not cells:
        raise InputError(f"no query type and graph of these knobs can be answered "
                         f"{target!r}, so labels cannot be balanced (balanced): {knobs}")
    query = rng.choice(tuple(dict.fromkeys(q for q, _ in cells)))  # query types uniform
    graph = rng.choice([g for q, g in cells if q == query])
    try:
        return _search(knobs, query, graph, target, rng, service)
    except InputError:
        # the probe found this cell feasible, but tight knobs (a wide margin) can make it
        # rare: the knobs' other cells are tried, in an order drawn from ``rng``, before
        # the draw gives up
        others = [cell for cell in cells if cell != (query, graph)]
        rng.shuffle(others)
        for other_query, other_graph in others:
            with contextlib.suppress(InputError):
                return _search(knobs, other_query, other_graph, target, rng, service)
        raise


def probe(knobs: LadderKnobs, service: Oracle) -> None:
    """``InputError`` naming the knobs when some (query type, graph, label) a draw may
    choose yields no item (searched once each with a fixed seed)."""
    knobs.validate()
    for target in (("yes", "no") if knobs.balanced else (None,)):
        cells = knobs.cells(target)
        if not cells:
            raise InputError(f"no query type and graph of these knobs can be answered "
                             f"{target!r}, so labels cannot be balanced (balanced): {knobs}")
        for query, graph in cells:
            _search(knobs, query, graph, target, random.Random(0), service)


def _search(knobs: LadderKnobs, query: str, graph: str, target: str | None,
            rng: random.Random, service: Oracle) -> dict[str, Any]:
    tellers = stories_for(graph, knobs.stories, query)
    for _ in range(MAX_DRAWS):
        variant = rng.choice(tellers)
        words = Words(story(variant), LETTERS[graph])
        names, joint = model(graph, rng)
        positive = rng.random() < 0.5
        changed = 0
        try:
            if query == "det-counterfactual":
                given, changed = mechanisms(graph, words, rng)
            else:
                given = given_information(query, graph, words, names, joint)
            head = f"{background(graph, words)} {given}"
            text = f"{head} {question(query, graph, words, positive, changed)}"
            answer = service.answer(text, "CLadder", explain=False)
        except InputError:
            continue  # a story lacking a phrase, or text the oracle cannot read: redraw
        data = answer.answer
        verdict = data.get("answer") if isinstance(data, dict) else None
        if verdict not in ("yes", "no") or data.get("readings") != 1:
            continue  # the printed numbers do not decide it, or the text reads two ways
        if target is not None and verdict != target:
            positive = not positive  # the other polarity word flips the answer
            text = f"{head} {question(query, graph, words, positive, changed)}"
            try:
                answer = service.answer(text, "CLadder", explain=False)
            except InputError:
                continue
            data = answer.answer
            if data.get("answer") != target:
                continue
        found = margin(query, data.get("bounds"))
        if (found is None and knobs.min_margin > 0) or (
                found is not None and not knobs.min_margin <= found <= knobs.max_margin):
            continue
        return {"question": f"{text}\n{INSTRUCTION}", "answer": data["answer"],
                "item": text, "task": "CLadder",
                "difficulty": {"rung": RUNGS[query], "query_type": query, "graph": graph,
                               "margin": None if found is None else round(found, 6),
                               "story": variant[0],
                               "nonsense": variant[0] in NONSENSE,
                               "anticommonsense": variant[2] or None,
                               "identification": data.get("identification"),
                               "polarity": "positive" if positive else "negative"}}
    wanted = "" if target is None else f" answered {target!r}"
    raise InputError(f"no {query!r} item on the {graph!r} graph{wanted} met these knobs in "
                     f"{MAX_DRAWS} draws (min_margin/max_margin, stories): {knobs}")


#: the generator the CLadder family offers (``Family.generators``): ``causal_ladder``
GENERATOR = Generator("causal_ladder", LadderKnobs, draw, probe)

__all__ = ["FIXED_LABEL", "GENERATOR", "GRAPHS", "MAX_DRAWS", "NOT_IDENTIFIED", "NO_MARGIN",
           "QUERY_TYPES", "RUNGS", "STORIES", "TERMS", "LadderKnobs", "draw", "probe"]
