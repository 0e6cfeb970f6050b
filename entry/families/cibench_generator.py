"""Procedural CI-Bench items: seeded tiered DAGs written as the upstream generator writes them.

CI-Bench ("Do LLMs Have the Generalization Ability in Conducting Causal Inference?")
asks four questions about a small causal system.  Here, as upstream, the system is
a *tiered DAG* and the questions are written in the upstream generator's own words,
so the project's CI-Bench parser reads them and the oracle answers them like any
benchmark item.

A drawn system's tiered DAG, names and rules, and the prompt as upstream writes it,
are defined in ``entry.families.cibench_system`` (with the four tasks); this module
draws an item whose measured quantities meet the knobs.

Generation
----------

``draw(knobs, rng)`` draws a graph shape, the edges (each allowed pair with a drawn
probability), names of one upstream name type ("specific" random strings such as
``ntkswaab``, or "bio" names such as ``xudutaaa growth`` / ``generation of wfojpaaa
immunity``), the causes and effects (CP, BA) or the rules and what-if events (FI,
CI); writes the prompt byte for byte as upstream (``graph_prompt``, ``rules_prompt``);
and asks the oracle through the entry layer (``Service.answer(prompt, task)``: the
solver sees only the text).  The item is *kept only if its measured quantities fall
inside the knobs* (``CIBenchKnobs``), else drawn again, at most ``MAX_DRAWS`` times:

=============================  =============================================================
knob                           measured as
=============================  =============================================================
``tasks``                      the task asked (CP, BA, FI, CI), drawn uniformly
``name_types``                 the upstream name type ("specific", "bio"), drawn uniformly
``min/max_nodes``              ``sum(graph_shape)``
``max_tier_size``              ``max(graph_shape)`` (also the number of causes / effects)
``min/max_density``            edges / pairs a tiered DAG may join
``min/max_paths`` (CP)         the number of causal paths in the oracle's answer
``adjustment_needed`` (BA)     whether the empty set fails the backdoor criterion (oracle)
``min/max_adjustment_size``    the size of the smallest valid set (0 when not needed)
``min/max_rules`` (FI, CI)     the number of rule lines in the prompt
``min/max_interventions`` (CI) the number of what-if events
``balanced``                   the label is drawn first, then an item searched to match:
                               CP whether a causal path exists, BA whether adjustment is
                               needed, FI/CI the value of each queried event (the first
                               query's exactly; a knob that fixes the label wins)
=============================  =============================================================

Examples
--------
>>> from causal_oracle.entry import default
>>> item = draw(CIBenchKnobs(tasks=("BA",), min_nodes=5, max_nodes=5, balanced=True),
...             random.Random(3), default())
>>> item["task"], item["difficulty"]["num_nodes"], item == draw(
...     CIBenchKnobs(tasks=("BA",), min_nodes=5, max_nodes=5, balanced=True), random.Random(3),
...     default())
('BA', 5, True)
>>> default().grade(item["item"], item["answer"], "BA").correct
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry.families.cibench_system import (
    Edge,
    Event,
    allowed_pairs,
    draw_edges,
    draw_names,
    draw_rules,
    draw_shape,
    graph_prompt,
    rules_prompt,
    tiers_of,
)
from causal_oracle.entry.family_records import Generator
from causal_oracle.entry.oracle_protocol import Oracle
from causal_oracle.oracle.errors import BudgetExceeded, InputError

TASKS = ("CP", "BA", "FI", "CI")
NAME_TYPES = ("specific", "bio")
MAX_DRAWS = 400  # attempts for one item before the knobs are declared unsatisfiable
MAX_NODES = 30
MAX_TIER_SIZE = 5
MAX_INTERVENTIONS = 5
MAX_EFFECT_DISTANCE = 3  # effects lie at most this many tiers after the causes (upstream)


# ---- knobs ------------------------------------------------------------------------------

@dataclass
class CIBenchKnobs:
    """What an item must measure (see the module docstring); ``environments.cibench``
    extends it with the seed and size."""

    tasks: tuple[str, ...] = TASKS
    name_types: tuple[str, ...] = NAME_TYPES
    min_nodes: int = 5
    max_nodes: int = 12
    max_tier_size: int = 3
    min_density: float = 0.2
    max_density: float = 0.8
    min_paths: int = 0
    max_paths: int = 1_000
    adjustment_needed: bool | None = None
    min_adjustment_size: int = 0
    max_adjustment_size: int = MAX_NODES
    min_rules: int = 1
    max_rules: int = 1_000
    min_interventions: int = 1
    max_interventions: int = 3
    balanced: bool = False

    def validate(self) -> None:
        """``InputError`` for knobs no item can meet."""
        tasks, names = tuple(self.tasks), tuple(self.name_types)
        if not tasks or set(tasks) - set(TASKS):
            raise InputError(f"tasks must be a non-empty subset of {', '.join(TASKS)}")
        if not names or set(names) - set(NAME_TYPES):
            raise InputError(f"name_types must be a non-empty subset of {', '.join(NAME_TYPES)}")
        if not 3 <= self.min_nodes <= self.max_nodes <= MAX_NODES:
            raise InputError(f"need 3 <= min_nodes <= max_nodes <= {MAX_NODES}")
        if not 1 <= self.max_tier_size <= MAX_TIER_SIZE:
            raise InputError(f"need 1 <= max_tier_size <= {MAX_TIER_SIZE}")
        if not 0.0 <= self.min_density <= self.max_density <= 1.0 or self.max_density <= 0.0:
            raise InputError("need 0 <= min_density <= max_density <= 1 and max_density > 0")
        if not 0 <= self.min_paths <= self.max_paths:
            raise InputError("need 0 <= min_paths <= max_paths")
        if not 0 <= self.min_adjustment_size <= self.max_adjustment_size:
            raise InputError("need 0 <= min_adjustment_size <= max_adjustment_size")
        if self.adjustment_needed is True and self.max_adjustment_size < 1:
            raise InputError("adjustment_needed=True needs max_adjustment_size >= 1")
        if self.adjustment_needed is False and self.min_adjustment_size > 0:
            raise InputError("adjustment_needed=False needs min_adjustment_size == 0")
        if not 1 <= self.min_rules <= self.max_rules:
            raise InputError("need 1 <= min_rules <= max_rules")
        if not 1 <= self.min_interventions <= self.max_interventions <= MAX_INTERVENTIONS:
            raise InputError(f"need 1 <= min_interventions <= max_interventions <= "
                             f"{MAX_INTERVENTIONS}")



# ---- drawing an item -------------------------------------------------------------------------

def _targets(knobs: CIBenchKnobs, task: str, rng: random.Random) -> tuple[bool, ...] | None:
    """The balanced label, drawn before the item (None: any)."""
    if not knobs.balanced:
        return None
    if task in ("CP", "BA"):
        return (rng.choice(_labels(knobs, task)),)
    # a fair coin per query position (the last tier has at most max_tier_size events)
    return tuple(rng.random() < 0.5 for _ in range(knobs.max_tier_size + 1))


def _labels(knobs: CIBenchKnobs, task: str) -> list[bool]:
    """The labels a balanced CP or BA item may be asked to have."""
    if task == "CP":
        return [v for v in (False, True) if (knobs.min_paths == 0 if not v
                                              else knobs.max_paths >= 1)]
    return [v for v in (False, True)
            if knobs.adjustment_needed in (None, v)
            and (knobs.min_adjustment_size == 0 if not v else knobs.max_adjustment_size >= 1)]


def _answer(service: Oracle, prompt: str, task: str) -> Any | None:
    try:
        return service.answer(prompt, task, explain=False)
    except BudgetExceeded:
        return None


def draw(knobs: CIBenchKnobs, rng: random.Random, service: Oracle
         ) -> dict[str, Any]:
    """One item meeting ``knobs``, drawn with ``rng`` and answered by ``service`` (the
    entry layer's ``Service``); ``InputError`` naming the knobs when ``MAX_DRAWS``
    attempts gave none.

    Returns ``question`` (the prompt a model sees), ``answer`` (the oracle's answer text),
    ``item`` (the text the oracle answered: the prompt), ``task``, ``difficulty`` (the
    measured knobs), and the upstream row fields ``name_type``, ``graph_shape``,
    ``node_names``, ``adjacency`` and ``truth`` (derived by the oracle).
    """
    knobs.validate()
    task = rng.choice(tuple(knobs.tasks))
    name_type = rng.choice(tuple(knobs.name_types))
    target = _targets(knobs, task, rng)
    return _search(knobs, task, name_type, target, rng, service)


def probe(knobs: CIBenchKnobs, service: Oracle) -> None:
    """``InputError`` naming the knobs when some task (and, balanced, some label of a CP or
    BA item) a draw may choose yields no item (searched once each with a fixed seed): an
    infeasible combination fails when a dataset is made, not at the item that asks for it."""
    knobs.validate()
    for task in dict.fromkeys(knobs.tasks):
        labels: tuple[tuple[bool, ...] | None, ...] = (None,)
        if knobs.balanced and task in ("CP", "BA"):
            labels = tuple((label,) for label in _labels(knobs, task))
        for target in labels:
            _search(knobs, task, next(iter(knobs.name_types)), target, random.Random(0),
                    service)


def _search(knobs: CIBenchKnobs, task: str, name_type: str,
            target: tuple[bool, ...] | None, rng: random.Random, service: Oracle
            ) -> dict[str, Any]:
    """A ``task`` item with ``name_type`` names and the label ``target`` (None: any),
    searched with ``rng``; ``InputError`` naming the knobs when ``MAX_DRAWS`` gave none."""
    for _ in range(MAX_DRAWS):
        n = rng.randint(knobs.min_nodes, knobs.max_nodes)
        shape = draw_shape(n, knobs.max_tier_size, rng)
        edges = draw_edges(shape, rng.uniform(knobs.min_density, knobs.max_density), rng)
        density = len(edges) / allowed_pairs(shape)
        if not edges or not knobs.min_density <= density <= knobs.max_density:
            continue
        names = draw_names(n, name_type, task in ("FI", "CI"), rng)
        if task in ("CP", "BA"):
            item = _graph_item(knobs, task, name_type, shape, edges, names, target, rng,
                               service)
        else:
            item = _rules_item(knobs, task, shape, edges, names, target, rng, service)
        if item is None:
            continue
        item["difficulty"].update(num_nodes=n, num_tiers=len(shape),
                                  max_tier_size=max(shape), edges=len(edges),
                                  edge_density=round(density, 6))
        item.update(name_type=name_type, graph_shape=list(shape), node_names=list(names),
                    adjacency=[list(e) for e in edges])
        return item
    wanted = "" if target is None else f" with the label {target[0]!r}"
    raise InputError(f"no {task} item{wanted} met these knobs in {MAX_DRAWS} draws: {knobs}")


def _result(prompt: str, task: str, answer: Any, difficulty: dict[str, Any],
            truth: dict[str, Any]) -> dict[str, Any]:
    return {"question": prompt, "answer": answer.answer_text, "item": prompt, "task": task,
            "difficulty": {"task": task, **difficulty}, "truth": truth}


def _graph_item(knobs: CIBenchKnobs, task: str, name_type: str, shape: tuple[int, ...],
                edges: tuple[Edge, ...], names: tuple[str, ...],
                target: tuple[bool, ...] | None, rng: random.Random, service: Oracle
                ) -> dict[str, Any] | None:
    tier = tiers_of(shape)
    last = len(shape) - 1
    c_tier = rng.randint(1, last - 1)
    e_tier = rng.randint(c_tier + 1, min(last, c_tier + MAX_EFFECT_DISTANCE))
    causes = tuple(v for v in range(len(names)) if tier[v] == c_tier)
    effects = tuple(v for v in range(len(names)) if tier[v] == e_tier)
    prompt = graph_prompt(names, edges, causes, effects, task, name_type)
    answer = _answer(service, prompt, task)
    if answer is None:
        return None
    truth: dict[str, Any] = {"causes": [names[c] for c in causes],
                             "effects": [names[e] for e in effects]}
    difficulty: dict[str, Any] = {"num_causes": len(causes), "num_effects": len(effects),
                                  "tier_distance": e_tier - c_tier}
    if task == "CP":
        paths = [list(p) for p in answer.answer]
        if not knobs.min_paths <= len(paths) <= knobs.max_paths:
            return None
        if target is not None and target[0] != bool(paths):
            return None
        truth["causal_paths"] = paths
        difficulty.update(num_paths=len(paths), has_path=bool(paths),
                          longest_path=max((len(p) - 1 for p in paths), default=0))
        return _result(prompt, task, answer, difficulty, truth)
    data = answer.answer
    needed = bool(data["adjustment_needed"])
    sets = sorted((list(s) for s in data["minimal_sets"]), key=lambda s: (len(s), s))
    if not sets:  # cannot happen for one tier of causes (their parents form a valid set)
        return None
    size = len(sets[0])
    if knobs.adjustment_needed is not None and knobs.adjustment_needed != needed:
        return None
    if not knobs.min_adjustment_size <= size <= knobs.max_adjustment_size:
        return None
    if target is not None and target[0] != needed:
        return None
    truth.update(backdoor_adjustment_needed=needed, a_minimal_valid_set=sets[0],
                 parents_valid_set=list(data["parents_set"]) if data["parents_set_valid"]
                 else None)
    difficulty.update(adjustment_needed=needed, adjustment_size=size,
                      num_minimal_sets=len(sets))
    return _result(prompt, task, answer, difficulty, truth)


def _rules_item(knobs: CIBenchKnobs, task: str, shape: tuple[int, ...],
                edges: tuple[Edge, ...], names: tuple[str, ...],
                target: tuple[bool, ...] | None, rng: random.Random, service: Oracle
                ) -> dict[str, Any] | None:
    n = len(names)
    tier = tiers_of(shape)
    has_parent = {b for _, b in edges}
    queries = tuple(v for v in range(n) if tier[v] == len(shape) - 1)
    if any(q not in has_parent for q in queries):
        return None  # upstream would leave such an event unasked; ask every last-tier event
    rules = draw_rules(n, edges, rng)
    if not knobs.min_rules <= len(rules) <= knobs.max_rules:
        return None
    observed = tuple(v for v in range(n) if v not in has_parent)
    whatif: tuple[Event, ...] = ()
    if task == "CI":
        pool = [v for v in range(n) if tier[v] < len(shape) - 1]
        count = rng.randint(knobs.min_interventions, knobs.max_interventions)
        if count > len(pool):
            return None
        whatif = tuple((v, rng.random() < 0.5) for v in rng.sample(pool, count))
    prompt = rules_prompt(names, rules, observed, queries, task, whatif)
    answer = _answer(service, prompt, task)
    if answer is None:
        return None
    values = [bool(answer.answer[names[q]]) for q in queries]
    if target is not None and tuple(values) != target[:len(values)]:
        return None
    truth: dict[str, Any] = {"observed_roots": [names[v] for v in observed],
                             "queries": [names[q] for q in queries]}
    difficulty: dict[str, Any] = {"num_rules": len(rules), "num_queries": len(queries),
                                  "num_observed": len(observed),
                                  "max_conjunction": max(len(body) for _, body in rules),
                                  "query_values": values}
    if task == "CI":
        factual = _answer(service, rules_prompt(names, rules, observed, queries, "FI"), "FI")
        if factual is None:
            return None
        before = [bool(factual.answer[names[q]]) for q in queries]
        truth.update(whatif=[names[v] for v, _ in whatif],
                     whatif_values=[value for _, value in whatif], values=values,
                     factual_values=before)
        difficulty.update(num_interventions=len(whatif),
                          changed_queries=sum(a != b for a, b in zip(values, before,
                                                                        strict=True)))
    else:
        truth["values"] = values
    return _result(prompt, task, answer, difficulty, truth)


#: the generator the CI-Bench family offers (``Family.generators``): ``causal_cibench``
GENERATOR = Generator("causal_cibench", CIBenchKnobs, draw, probe)

__all__ = ["GENERATOR", "MAX_DRAWS", "MAX_NODES", "NAME_TYPES", "TASKS", "CIBenchKnobs", "draw",
           "probe"]

