"""Procedural CLadder items: seeded models over CLadder's graphs, answered from their text.

CLadder (Jin et al., 2023) asks yes/no questions on the three rungs of the ladder of
causation about small Bernoulli models over ten graph families, each told as a *story*
(``alarm``: husband → wife → alarm clock) or with nonsense words.  Here every item is
drawn as the benchmark's generator draws it:

1. a graph family and a story that tells it (``parser/cladder_stories``: the benchmark's
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

    >>> item = draw(LadderKnobs(query_types=("ate",), graphs=("mediation",)), random.Random(1))
    >>> item["difficulty"]["query_type"], item["difficulty"]["rung"], item["answer"]
    ('ate', 2, 'yes')
    >>> item == draw(LadderKnobs(query_types=("ate",), graphs=("mediation",)), random.Random(1))
    True
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from causal_oracle.entry.service import Service, default
from causal_oracle.oracle.errors import InputError
from causal_oracle.parser.cladder import INTRO
from causal_oracle.parser.cladder_vocabulary import FOLDER

MAX_DRAWS = 200  # models drawn for one item before the knobs are declared unsatisfiable
INSTRUCTION = "Answer yes or no."

#: each family's variables (in the order the background names them) with their parents
GRAPHS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "chain": (("X", ()), ("V2", ("X",)), ("Y", ("V2",))),
    "collision": (("X", ()), ("Y", ()), ("V3", ("X", "Y"))),
    "confounding": (("V1", ()), ("X", ("V1",)), ("Y", ("V1", "X"))),
    "mediation": (("X", ()), ("V2", ("X",)), ("Y", ("X", "V2"))),
    "frontdoor": (("V1", ()), ("X", ("V1",)), ("V3", ("X",)), ("Y", ("V1", "V3"))),
    "IV": (("V1", ()), ("V2", ()), ("X", ("V1", "V2")), ("Y", ("V1", "X"))),
    "arrowhead": (("X", ()), ("V2", ()), ("V3", ("X", "V2")), ("Y", ("X", "V2", "V3"))),
    "diamond": (("X", ()), ("V3", ("X",)), ("V2", ("X",)), ("Y", ("V2", "V3"))),
    "diamondcut": (("V1", ()), ("V3", ("V1",)), ("X", ("V1",)), ("Y", ("X", "V3"))),
    "fork": (("X", ()), ("V2", ()), ("Y", ("X", "V2"))),
}
#: the story file's letter for each variable of each family (the benchmark's convention)
LETTERS: dict[str, dict[str, str]] = {
    "chain": {"V2": "Z"}, "collision": {"V3": "Z"}, "confounding": {"V1": "Z"},
    "mediation": {"V2": "Z"}, "frontdoor": {"V1": "W", "V3": "Z"},
    "IV": {"V1": "W", "V2": "Z"}, "arrowhead": {"V2": "W", "V3": "Z"},
    "diamond": {"V2": "Z", "V3": "W"}, "diamondcut": {"V1": "Z", "V3": "W"},
    "fork": {"V2": "Z"},
}
#: variables the background declares unobserved (the instrument's and frontdoor's confounder)
HIDDEN = {"IV": ("V1",), "frontdoor": ("V1",)}
#: the benchmark stories' families (the nonsense stories tell every family)
STORIES: dict[str, str] = {
    "alarm": "mediation", "simpson_blood_pressure": "mediation", "candle": "fork",
    "celebrity": "collision", "cholesterol": "IV", "college_salary": "chain",
    "college_wage": "IV", "elite_students": "collision", "encouagement_program": "mediation",
    "firing_employee": "diamondcut", "firing_squad": "diamond", "floor_wet": "diamond",
    "forest_fire": "fork", "gender_admission": "mediation",
    "gender_admission_state": "arrowhead", "gender_pay": "arrowhead", "getting_late": "fork",
    "getting_tanned": "fork", "hospitalization": "collision",
    "man_in_relationship": "collision", "nature_vs_nurture": "arrowhead",
    "neg_mediation": "mediation", "obesity_mortality": "arrowhead", "orange_scurvy": "chain",
    "penguin": "mediation", "price": "IV", "simpson_drug": "confounding",
    "simpson_hospital": "confounding", "simpson_kidneystone": "confounding",
    "simpson_vaccine": "confounding", "smoke_birthWeight": "arrowhead",
    "smoking_frontdoor": "frontdoor", "smoking_gene_cancer": "arrowhead",
    "smoking_tar_cancer": "chain", "tax_smoke_birthWeight": "IV", "vaccine_kills": "diamond",
    "water_cholera": "IV"}
NONSENSE = tuple(f"nonsense{i}" for i in range(10))
STORY_KINDS = ("commonsense", "nonsense", "anticommonsense")

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
#: the variable a backdoor-adjustment question stratifies on; the mediator of nde / nie
STRATUM = {"IV": "V1", "arrowhead": "V3", "chain": "V2", "collision": "V3",
           "confounding": "V1", "diamond": "V3", "diamondcut": "V3", "fork": "V2",
           "frontdoor": "V1", "mediation": "V2"}
MEDIATOR = {"mediation": "V2", "arrowhead": "V3", "chain": "V2", "frontdoor": "V3"}


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


# ---- the story ----------------------------------------------------------------------------

_DATA: dict[str, Any] = {}

#: a story variant: (story, the replaced variable's letter or "", the attribute or "")
Variant = tuple[str, str, str]


def _data() -> dict[str, Any]:
    if not _DATA:
        _DATA.update(json.loads((FOLDER / "vocabulary.json").read_text(encoding="utf-8")))
    return _DATA


def story(variant: Variant | str) -> dict[str, Any]:
    """A story variant's phrases: the story file's, with an anti-commonsense variant's
    replaced variable written for the story's subject (``{subject}``, ``{plural}``) as
    the benchmark's generator writes it."""
    name, letter, choice = (variant, "", "") if isinstance(variant, str) else variant
    phrases = dict(_data()["stories"][name])
    if letter:
        anti = _data()["anticommonsense"]
        subject = str(phrases[f"{letter}subject"])
        plural = anti["plurals"].get(subject, f"{subject}s")
        for key, template in anti["variables"][letter][choice].items():
            if key in phrases:
                phrases[key] = template.replace("{subject}", subject).replace("{plural}",
                                                                             plural)
    return phrases


def _variants(names: Sequence[str]) -> list[Variant]:
    """Every anti-commonsense variant of ``names``: X or Y replaced by an attribute the
    benchmark lists for the story's subject."""
    anti = _data()["anticommonsense"]
    out = []
    for name in names:
        for letter in sorted(anti["variables"]):
            subject = _data()["stories"][name].get(f"{letter}subject")
            for choice in anti["subjects"].get(letter, {}).get(subject, ()):
                out.append((name, letter, choice))
    return out


def stories_for(graph: str, kinds: Sequence[str], query: str) -> tuple[Variant, ...]:
    """The story variants of ``kinds`` that tell ``graph`` and can ask ``query``: a story
    whose file gives a variable's two values the same words (``firing_employee`` does,
    for the CEO and for the manager's counterfactual) would make an ambiguous text."""
    common = [s for s, g in STORIES.items() if g == graph]
    found: list[Variant] = []
    if "commonsense" in kinds:
        found += [(s, "", "") for s in common]
    if "nonsense" in kinds:
        found += [(s, "", "") for s in NONSENSE]
    if "anticommonsense" in kinds:
        found += _variants(common)

    def distinct(variant: Variant, key: str) -> bool:
        words = story(variant)
        return words.get(key.format(0)) != words.get(key.format(1))

    letters = [LETTERS[graph].get(v, v) for v, _ in GRAPHS[graph]]
    keys = [f"{letter}{{}}_{kind}" for letter in letters
            for kind in ("noun", "wheresentence", "wherepartial")]
    if query == "ett":
        keys.append("X{}_sentence_condition")
    return tuple(v for v in found if all(distinct(v, k) for k in keys))


@dataclass(frozen=True)
class Words:
    """One story's words for one graph's variables."""

    phrases: dict[str, Any]
    letters: dict[str, str]

    def get(self, var: str, key: str) -> str:
        letter = self.letters.get(var, var)
        value = self.phrases.get(f"{letter}{key}")
        if not isinstance(value, str):
            raise InputError(f"the story has no {letter}{key}")
        return value

    def name(self, var: str) -> str:
        return self.get(var, "name")

    def noun(self, var: str, value: int) -> str:
        return self.get(var, f"{value}_noun")

    def where(self, var: str, value: int) -> str:
        return self.get(var, f"{value}_wheresentence")

    def where_all(self, fixed: dict[str, int]) -> str:
        """Conditions as CLadder joins them: the first as a "where" sentence, the rest as
        its partial ("those who are not pexu and are hwax")."""
        first, *rest = fixed.items()
        return " and ".join([self.where(*first),
                             *(self.get(v, f"{x}_wherepartial") for v, x in rest)])


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def background(graph: str, words: Words) -> str:
    """The background in CLadder's words."""
    nodes = GRAPHS[graph]
    parts = [INTRO]
    for var, _ in nodes:
        children = [words.name(c) for c, parents in nodes if var in parents]
        if children:
            parts.append(f"{_cap(words.name(var))} has a direct effect on "
                         f"{' and '.join(children)}.")
    hidden = HIDDEN.get(graph, ())
    for var in hidden:
        parts.append(f"{_cap(words.name(var))} is unobserved.")
    return " ".join(parts)


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


def mechanisms(graph: str, words: Words, rng: random.Random) -> tuple[str, int]:
    """A deterministic model in CLadder's words — each variable but the roots set by its
    parents ("A causes B", "A or B causes C", "A and B causes C", each literal a value's
    noun), every root but X observed ("We observed …") — and a random value of X to
    change (the question's "instead of")."""
    nodes = GRAPHS[graph]
    laws = []
    for var, parents in nodes:
        if not parents:
            continue
        joined = f" {rng.choice(('and', 'or'))} ".join(
            words.noun(p, rng.randint(0, 1)) for p in parents)
        laws.append(f"{joined} causes {words.noun(var, rng.randint(0, 1))}")
    seen = [words.get(var, f"{rng.randint(0, 1)}_sentence") for var, parents in nodes
            if not parents and var != "X"]
    text = f"We know that {laws[0]}." + "".join(f" {law}." for law in laws[1:])
    if seen:
        text += f" We observed {' and '.join(seen)}."
    return text, rng.randint(0, 1)


def question(query: str, graph: str, words: Words, positive: bool, changed: int = 0) -> str:
    """The question in CLadder's template; ``positive`` picks the polarity word
    (increase/larger/more/positively) — the other flips the answer."""
    x1, y1 = words.noun("X", 1), words.noun("Y", 1)
    if query == "marginal":
        return (f"Is {y1} {'more' if positive else 'less'} likely than {words.noun('Y', 0)} "
                "overall?")
    if query == "correlation":
        return f"Is the chance of {y1} {'larger' if positive else 'smaller'} when observing {x1}?"
    if query == "exp_away":
        return (f"If we look at {words.where('V3', 1)}, does the chance of {y1} "
                f"{'increase' if positive else 'decrease'} when {x1}?")
    if query == "collider_bias":
        return (f"If we look at {words.where('V3', 1)}, does it mean that {x1} "
                f"{'affects' if positive else 'does not affect'} {y1}?")
    if query == "ate":
        return f"Will {x1} {'increase' if positive else 'decrease'} the chance of {y1}?"
    if query == "backadj":
        first, second = (1, 2) if positive else (2, 1)
        return (f"To understand how {words.name('X')} affects {words.name('Y')}, is it more "
                f"correct to use the Method {first} than Method {second}?")
    if query == "ett":
        condition = words.get("X", "0_sentence_condition").split(" instead of ")[0]
        return (f"For {words.where('X', 1)}, would it be {'more' if positive else 'less'} "
                f"likely to see {y1} {condition}?")
    if query == "det-counterfactual":
        outcome = words.get("Y", f"{int(positive)}_sentence")
        return (f"Would {outcome} if {words.noun('X', changed)} instead of "
                f"{words.noun('X', 1 - changed)}?")
    sign = "positively" if positive else "negatively"
    mediator = words.name(MEDIATOR[graph])
    if query == "nde":
        return (f"If we disregard the mediation effect through {mediator}, would "
                f"{words.name('X')} {sign} affect {words.name('Y')}?")
    return f"Does {words.name('X')} {sign} affect {words.name('Y')} through {mediator}?"


# ---- drawing an item -------------------------------------------------------------------

def margin(query: str, bounds: Sequence[str] | None) -> float | None:
    """The distance of the certified interval from the decision point (None: no interval)."""
    if query in NO_MARGIN or not bounds:
        return None
    lo, hi = (Fraction(b) for b in bounds)
    point = Fraction(1, 2) if query == "marginal" else Fraction(0)
    return float(min(abs(lo - point), abs(hi - point)))


def draw(knobs: LadderKnobs, rng: random.Random, service: Service | None = None
         ) -> dict[str, Any]:
    """One item meeting ``knobs``, drawn with ``rng``; ``InputError`` when ``MAX_DRAWS``
    models gave none."""
    knobs.validate()
    target = rng.choice(("yes", "no")) if knobs.balanced else None
    cells = knobs.cells(target)
    if not cells:
        raise InputError(f"no query type and graph of these knobs can be answered "
                         f"{target!r}, so labels cannot be balanced (balanced): {knobs}")
    query = rng.choice(tuple(dict.fromkeys(q for q, _ in cells)))  # query types uniform
    graph = rng.choice([g for q, g in cells if q == query])
    return _search(knobs, query, graph, target, rng, service or default())


def probe(knobs: LadderKnobs, service: Service | None = None) -> None:
    """``InputError`` naming the knobs when some (query type, graph, label) a draw may
    choose yields no item (searched once each with a fixed seed)."""
    knobs.validate()
    for target in (("yes", "no") if knobs.balanced else (None,)):
        cells = knobs.cells(target)
        if not cells:
            raise InputError(f"no query type and graph of these knobs can be answered "
                             f"{target!r}, so labels cannot be balanced (balanced): {knobs}")
        for query, graph in cells:
            _search(knobs, query, graph, target, random.Random(0), service or default())


def _search(knobs: LadderKnobs, query: str, graph: str, target: str | None,
            rng: random.Random, service: Service) -> dict[str, Any]:
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


__all__ = ["FIXED_LABEL", "GRAPHS", "MAX_DRAWS", "NOT_IDENTIFIED", "NO_MARGIN", "QUERY_TYPES",
           "RUNGS",
           "STORIES", "TERMS", "LadderKnobs", "draw", "probe"]
