"""CLadder's wording: its graph families, its stories, and its sentences and templates.

CLadder (Jin et al., 2023) tells each of its ten graph families as a *story*: the story
file (``parser/cladder_stories/vocabulary.json``, the benchmark's own, converted) gives
each variable a name and, for each value, the phrases the templates use — a noun ("alarm
set by husband"), a "where" sentence ("husbands that set the alarm") and its partial, a
sentence ("the husband sets the alarm"), a counterfactual condition.  The variables are
lettered in the story file (X, Y, Z, W) and named V1–V3 in the graph (``LETTERS`` maps
one to the other, as the benchmark's generator does).  Ten ``nonsense`` stories tell
every family; an *anti-commonsense* variant replaces X or Y of a story by an unrelated
attribute of the story's subject ("speaks english").

This module writes what CLadder writes — the background, the deterministic mechanisms,
each query type's question — for ``entry.families.cladder_generator``, which draws the models
and lets the oracle answer the text.  It never decides an answer.

    >>> words = Words(story("alarm"), LETTERS["mediation"])
    >>> background("mediation", words).split(": ")[1]
    'Husband has a direct effect on wife and alarm clock. Wife has a direct effect on alarm clock.'
    >>> question("ate", "mediation", words, positive=True)
    'Will alarm set by husband increase the chance of ringing alarm?'
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from causal_oracle.oracle.errors import InputError
from causal_oracle.parser.cladder import INTRO
from causal_oracle.parser.cladder_vocabulary import FOLDER

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

#: the variable a backdoor-adjustment question stratifies on; the mediator of nde / nie
STRATUM = {"IV": "V1", "arrowhead": "V3", "chain": "V2", "collision": "V3",
           "confounding": "V1", "diamond": "V3", "diamondcut": "V3", "fork": "V2",
           "frontdoor": "V1", "mediation": "V2"}
MEDIATOR = {"mediation": "V2", "arrowhead": "V3", "chain": "V2", "frontdoor": "V3"}


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


__all__ = ["GRAPHS", "HIDDEN", "LETTERS", "MEDIATOR", "NONSENSE", "STORIES", "STORY_KINDS",
           "STRATUM", "Variant", "Words", "background", "mechanisms", "question", "stories_for",
           "story"]
