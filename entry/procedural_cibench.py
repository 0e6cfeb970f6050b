"""Procedural CI-Bench items: seeded tiered DAGs written as the upstream generator writes them.

CI-Bench ("Do LLMs Have the Generalization Ability in Conducting Causal Inference?")
asks four questions about a small causal system.  Here, as upstream, the system is
a *tiered DAG* and the questions are written in the upstream generator's own words,
so the project's CI-Bench parser reads them and the oracle answers them like any
benchmark item.

Tiered DAGs and the four tasks
------------------------------

- A "graph shape" ``(s_0, …, s_{T-1})`` lists the sizes of ``T`` tiers.  The nodes
  are numbered tier by tier and every edge goes from a tier to a *later* one, so the
  graph is acyclic by construction.  The "edge density" is the number of edges over
  the number of pairs a tiered DAG may join (``sum(s_i * s_j for i < j)``).
- A "causal path" from ``c`` to ``e`` is a directed path ``c -> … -> e``.  **CP**
  asks for every causal path from each cause to each effect; the causes are one
  tier and the effects a later one, at most three tiers further (as upstream).
- A "backdoor path" from ``c`` to ``e`` is a path whose first edge points *into*
  ``c`` (``c <- …``; the other edges may point either way).  A set ``z`` satisfies
  the "backdoor criterion" when it holds no descendant of a cause (nor a cause or an
  effect) and blocks every backdoor path: it d-separates ``c`` and ``e`` in the graph
  without ``c``'s outgoing edges.  **BA** asks for such a set; "adjustment is needed"
  when the empty set is not one.
- A "boolean rule" line ``The x happens if the a happens and the b not happen.``
  says ``x ⇐ a ∧ ¬b``; the lines of one event are OR-ed, and each parent of the
  event appears in exactly one of its lines.  Every root is observed to happen.
  **FI** asks whether the events of the last tier happen; **CI** asks the same
  after "what-if" events (1 to 3 non-last-tier events, as upstream) are set, their
  rules removed.

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
>>> graph_prompt(("z", "c", "e"), [(0, 1), (0, 2), (1, 2)], (1,), (2,), "BA",
...              "specific").splitlines()[1:5]
['Z has a causal effect on c and e.', 'C has a causal effect on e. ', 'Question:', \
'We want to estimate the causal effect of thec on thee.']
>>> item = draw(CIBenchKnobs(tasks=("BA",), min_nodes=5, max_nodes=5, balanced=True),
...             random.Random(3))
>>> item["task"], item["difficulty"]["num_nodes"], item == draw(
...     CIBenchKnobs(tasks=("BA",), min_nodes=5, max_nodes=5, balanced=True), random.Random(3))
('BA', 5, True)
>>> from causal_oracle.entry import default
>>> default().grade(item["item"], item["answer"], "BA").correct
True
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry.service import Service, default
from causal_oracle.oracle.errors import BudgetExceeded, InputError
from causal_oracle.oracle.statements import join_names

TASKS = ("CP", "BA", "FI", "CI")
NAME_TYPES = ("specific", "bio")
MAX_DRAWS = 400  # attempts for one item before the knobs are declared unsatisfiable
MAX_NODES = 30
MAX_TIER_SIZE = 5
MAX_INTERVENTIONS = 5
MAX_EFFECT_DISTANCE = 3  # effects lie at most this many tiers after the causes (upstream)

Edge = tuple[int, int]
Event = tuple[int, bool]
RuleLine = tuple[int, tuple[Event, ...]]

#: the upstream "bio" nouns, and the verbs its FI/CI events put before each
BIO_EVENTS: dict[str, tuple[str, ...]] = {
    "acid": ("generation", "elimination"),
    "bacteria": ("increase", "decrease", "generation", "elimination"),
    "blood": ("increase", "decrease"),
    "cell": ("increase", "decrease", "generation", "elimination"),
    "chromosome": ("generation", "elimination"),
    "cycle": ("generation", "elimination"),
    "decomposition": ("start", "stop"),
    "egg": ("generation", "elimination"),
    "embryo": ("generation", "elimination"),
    "enzyme": ("generation", "elimination"),
    "evolution": ("start", "stop"),
    "extinction": ("start", "stop"),
    "fitness": ("facilitation", "hindrance"),
    "flagellum": ("increase", "decrease"),
    "fungi": ("increase", "decrease"),
    "genes": ("generation", "elimination"),
    "growth": ("start", "stop"),
    "immunity": ("generation", "elimination"),
    "infection": ("facilitation", "hindrance"),
    "membrane": ("generation", "elimination"),
    "nutrient": ("generation", "elimination"),
    "organization": ("start", "stop"),
    "pheromone": ("generation", "elimination"),
    "plant": ("generation", "elimination"),
    "protein": ("increase", "decrease", "generation", "elimination"),
    "reproduction": ("start", "stop"),
    "selection": ("start", "stop"),
    "species": ("generation", "elimination"),
    "theory": ("satisfaction", "violation"),
    "virus": ("increase", "decrease"),
}
BIO_NOUNS = tuple(BIO_EVENTS)

_FOOTER = ("Your answer should be plain text and should not contain other formats such as "
           "markdown.\nAnswer:\n")
_ASK = {"CP": "identify all the causal paths between them.",
        "BA": "provide a set of factors that can block all backdoor paths between them."}
_DID = {True: "happened", False: "didn't happen"}


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


# ---- drawing the structure ----------------------------------------------------------------

def draw_shape(n: int, max_tier_size: int, rng: random.Random) -> tuple[int, ...]:
    """Tier sizes summing to ``n``, each at most ``max_tier_size``, at least three tiers
    (upstream: equal tiers of 1–3 nodes; here the remainder of ``n`` spreads over them).

    >>> shape = draw_shape(11, 3, random.Random(1))
    >>> sum(shape), max(shape) <= 3, len(shape) >= 3
    (11, True, True)
    """
    width = rng.randint(1, max(1, min(max_tier_size, n // 3)))
    sizes = [width] * (n // width)
    for _ in range(n - width * len(sizes)):
        room = [i for i, s in enumerate(sizes) if s < max_tier_size]
        if room:
            sizes[rng.choice(room)] += 1
        else:
            sizes.insert(rng.randint(0, len(sizes)), 1)
    return tuple(sizes)


def tiers_of(shape: Sequence[int]) -> tuple[int, ...]:
    """The tier of each node (nodes numbered tier by tier)."""
    return tuple(t for t, size in enumerate(shape) for _ in range(size))


def allowed_pairs(shape: Sequence[int]) -> int:
    """The number of pairs a tiered DAG of this shape may join."""
    return sum(shape[i] * shape[j] for i in range(len(shape)) for j in range(i + 1, len(shape)))


def draw_edges(shape: Sequence[int], p: float, rng: random.Random) -> tuple[Edge, ...]:
    """Each pair (earlier tier → later tier) an edge with probability ``p``, sorted."""
    tier = tiers_of(shape)
    n = len(tier)
    return tuple((i, j) for i in range(n) for j in range(i + 1, n)
                 if tier[i] < tier[j] and rng.random() < p)


def _suffix(index: int) -> str:
    """Upstream's three-letter index: the decimal digits as a–j (12 → ``abc``)."""
    return "".join("abcdefghij"[int(d)] for d in f"{index:03d}")


def draw_names(n: int, name_type: str, events: bool, rng: random.Random) -> tuple[str, ...]:
    """Upstream node names: five random letters and the index (``ntkswaab``); "bio" adds a
    noun (``xudutaaa growth``), and FI/CI ``events`` a verb (``generation of … acid``).

    >>> draw_names(3, "specific", False, random.Random(0))[2][-3:]
    'aac'
    """
    out: list[str] = []
    for i in range(n):
        name = "".join(rng.choice(string.ascii_lowercase) for _ in range(5)) + _suffix(i)
        if name_type == "bio":
            noun = rng.choice(BIO_NOUNS)
            name = f"{name} {noun}"
            if events:
                name = f"{rng.choice(BIO_EVENTS[noun])} of {name}"
        out.append(name)
    return tuple(out)


def draw_rules(n: int, edges: Sequence[Edge], rng: random.Random) -> tuple[RuleLine, ...]:
    """Rule lines: each event's parents split into conjunctions (one line each, OR-ed),
    every literal "happens" or "not happen" at random; heads, lines and literals in index
    order, as upstream writes them."""
    parents: list[list[int]] = [[] for _ in range(n)]
    for a, b in sorted(edges):
        parents[b].append(a)
    lines: list[RuleLine] = []
    for head in range(n):
        if not parents[head]:
            continue
        order = list(parents[head])
        rng.shuffle(order)
        count = rng.randint(1, len(order))
        groups: list[list[int]] = [[v] for v in order[:count]]
        for v in order[count:]:
            rng.choice(groups).append(v)
        for group in sorted(sorted(g) for g in groups):
            lines.append((head, tuple((v, rng.random() < 0.5) for v in group)))
    return tuple(lines)


# ---- writing the prompt (as upstream) ---------------------------------------------------------

def _glued(names: Sequence[str]) -> str:
    # upstream: "the" glued to a single name, "thes " before a list
    return "the" + names[0] if len(names) == 1 else "thes " + join_names(names)


def _header(what: str, name_type: str) -> str:
    field = "biological " if name_type == "bio" and what == "factors" else ""
    return (f"The following text describes the assumed causal relationship between {what} "
            f"in a recent {field}study:\n")


def graph_prompt(names: Sequence[str], edges: Sequence[Edge], causes: Sequence[int],
                 effects: Sequence[int], task: str, name_type: str) -> str:
    """A CP or BA prompt exactly as upstream writes it (one sentence per node with
    children, in index order; a space before the newline after the last)."""
    children: dict[int, list[int]] = {}
    for a, b in sorted(edges):
        children.setdefault(a, []).append(b)
    lines = [f"{names[a][:1].upper()}{names[a][1:]} has a causal effect on "
             f"{join_names([names[b] for b in kids])}." for a, kids in sorted(children.items())]
    return (_header("factors", name_type) + "\n".join(lines) + " \nQuestion:\n"
            f"We want to estimate the causal effect of {_glued([names[c] for c in causes])} "
            f"on {_glued([names[e] for e in effects])}.\n"
            f"Based on the information above, please {_ASK[task]}\n" + _FOOTER)


def rules_prompt(names: Sequence[str], rules: Sequence[RuleLine], observed: Sequence[int],
                 queries: Sequence[int], task: str, whatif: Sequence[Event] = ()) -> str:
    """An FI or CI prompt exactly as upstream writes it (``observed`` happened; CI's
    ``whatif`` events in the order given)."""
    lines = ["The {} happens if {}.".format(
        names[head], " and ".join(f"the {names[v]} {'happens' if value else 'not happen'}"
                                  for v, value in body)) for head, body in rules]
    seen = join_names([f"the {names[v]} happened" for v in observed])
    asked = join_names([names[q] for q in queries])
    if task == "FI":
        question = f"What about the {asked}? \n"
    else:
        events = join_names([f"the {names[v]} {_DID[value]}" for v, value in whatif])
        question = f"What the {asked} would be if {events}?\n"
    return (_header("events", "") + "\n".join(lines) + "\nQuestion:\n"
            f"We have observed {seen}.\n" + question + _FOOTER)


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


def _answer(service: Service, prompt: str, task: str) -> Any | None:
    try:
        return service.answer(prompt, task, explain=False)
    except BudgetExceeded:
        return None


def draw(knobs: CIBenchKnobs, rng: random.Random, service: Service | None = None
         ) -> dict[str, Any]:
    """One item meeting ``knobs``, drawn with ``rng``; ``InputError`` naming the knobs when
    ``MAX_DRAWS`` attempts gave none.

    Returns ``question`` (the prompt a model sees), ``answer`` (the oracle's answer text),
    ``item`` (the text the oracle answered: the prompt), ``task``, ``difficulty`` (the
    measured knobs), and the upstream row fields ``name_type``, ``graph_shape``,
    ``node_names``, ``adjacency`` and ``truth`` (derived by the oracle).
    """
    knobs.validate()
    task = rng.choice(tuple(knobs.tasks))
    name_type = rng.choice(tuple(knobs.name_types))
    target = _targets(knobs, task, rng)
    return _search(knobs, task, name_type, target, rng, service or default())


def probe(knobs: CIBenchKnobs, service: Service | None = None) -> None:
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
                    service or default())


def _search(knobs: CIBenchKnobs, task: str, name_type: str,
            target: tuple[bool, ...] | None, rng: random.Random, service: Service
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
                target: tuple[bool, ...] | None, rng: random.Random, service: Service
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
                target: tuple[bool, ...] | None, rng: random.Random, service: Service
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


__all__ = ["BIO_EVENTS", "BIO_NOUNS", "MAX_DRAWS", "MAX_NODES", "NAME_TYPES", "TASKS",
           "CIBenchKnobs", "allowed_pairs", "draw", "draw_edges", "draw_names", "draw_rules",
           "draw_shape", "graph_prompt", "probe", "rules_prompt", "tiers_of"]
