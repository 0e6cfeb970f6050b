"""Procedural CaLM graph items: seeded random graphs asked in CaLM's words, answered from them.

CaLM (Chen et al. 2024) asks six kinds of question about a causal graph it states as
"A causes B, …" (its EN templates; ``docs/families/calm.md``):

====  =====================================  ============================================
kind  CaLM task ids                          the question
====  =====================================  ============================================
AR    ``AR-B_CaLM-AR``                       does X cause Y (a directed path X → … → Y)
CA    ``CA-B_FA`` / ``CA-B_FP``              is X an ancestor / a parent of Y
CEI   ``CEI-B_<d>-UC`` (d: 0.2 … 0.8)        is the effect of X on Y identified, with the
                                             stated unobserved confounders
BAS   ``BAS-C_min/max/mix-BAS``              which option is a minimal / maximal / any
                                             back-door set for (X, Y)
FAS   ``FAS-C_FAS``                          which option is a front-door set
IV    ``IV-C_CaLM-IV``                       which option is an instrument set
====  =====================================  ============================================

Each item is drawn as CaLM's generator draws its own: a DAG over the letters A, B, …
whose edges go from an earlier letter to a later one (each with probability
``edge_prob``), written as a record in CaLM's shipped layout (``edges``, ``former`` /
``latter``, ``option1..3``, …).  The CaLM family renders that record in CaLM's basic EN
prompt (``Family.row``: the text a model sees, exactly as CaLM's prompt builder writes
it), and the oracle answers *that text* (``Service.answer`` with the task): the gold is
the oracle's answer, never the generator's intent.  An item is redrawn when the oracle
finds it degenerate, ambiguous (several options or none valid) or dependent on a
reading CaLM leaves open (vertex A observed or not, maximal among the options or
overall, Pearl's instrument) — so every answer is the one answer under every reading.

The choice kinds' options are built with the oracle's criteria (``oracle.calm.choose``):
one set that meets the criterion and two that do not (for a maximal back-door set, two
that are not valid at all), each of one to three vertices, never the treatment or the
outcome, for a treatment that causes the outcome.  A balanced dataset draws the yes/no
label (the right option's place) first.

What an item measures is in ``difficulty``: ``kind``, ``task``, ``num_nodes``,
``num_edges``, ``confounders`` (CEI's bidirected edges), ``option_size`` (the right
option's size).

    >>> from causal_oracle.entry import default
    >>> item = draw(CalmKnobs(kinds=("AR",)), random.Random(3), default())
    >>> item["task"], item["answer"] in ("Yes", "No")
    ('AR-B_CaLM-AR', True)
    >>> item == draw(CalmKnobs(kinds=("AR",)), random.Random(3), default())
    True
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry.families.calm_graph import PART
from causal_oracle.entry.family_records import Generator
from causal_oracle.entry.oracle_protocol import SolvingOracle
from causal_oracle.entry.registry import Options
from causal_oracle.oracle.calm.choose import relation, why_not
from causal_oracle.oracle.calm.model import CalmGraph, Choice, Criterion, Relation, RelationKind
from causal_oracle.oracle.errors import InputError

MAX_DRAWS = 200  # graphs drawn for one item before the knobs are declared unsatisfiable
MAX_NODES = 20
KINDS = ("AR", "CA", "CEI", "BAS", "FAS", "IV")
DENSITIES = ("0.2", "0.4", "0.6", "0.8")
#: the choice tasks: criterion, and whether CaLM's reading hides vertex A
_CHOICES = {"BAS-C_min-BAS": (Criterion.BACKDOOR_MIN, False),
            "BAS-C_max-BAS": (Criterion.BACKDOOR_MAX, True),
            "BAS-C_mix-BAS": (Criterion.BACKDOOR_ANY, True),
            "FAS-C_FAS": (Criterion.FRONTDOOR, True),
            "IV-C_CaLM-IV": (Criterion.INSTRUMENT, False)}
_TASKS = {"AR": ("AR-B_CaLM-AR",), "CA": ("CA-B_FA", "CA-B_FP"),
          "CEI": tuple(f"CEI-B_{d}-UC" for d in DENSITIES),
          "BAS": ("BAS-C_min-BAS", "BAS-C_max-BAS", "BAS-C_mix-BAS"), "FAS": ("FAS-C_FAS",),
          "IV": ("IV-C_CaLM-IV",)}


@dataclass
class CalmKnobs:
    """What a CaLM-style item may be (see the module docstring)."""

    kinds: tuple[str, ...] = KINDS
    min_nodes: int = 5
    max_nodes: int = 10
    edge_prob: float = 0.4
    #: CEI's confounding densities (CaLM's 0.2 … 0.8: a bidirected edge per 1/d vertices)
    densities: tuple[str, ...] = DENSITIES
    balanced: bool = True

    def validate(self) -> None:
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown or not self.kinds:
            raise InputError(f"kinds must be among {', '.join(KINDS)}, not "
                             f"{list(self.kinds)!r}")
        bad = [d for d in self.densities if d not in DENSITIES]
        if bad or not self.densities:
            raise InputError(f"densities must be among {', '.join(DENSITIES)}, not "
                             f"{list(self.densities)!r}")
        if not 4 <= self.min_nodes <= self.max_nodes <= MAX_NODES:
            raise InputError(f"min_nodes and max_nodes must satisfy 4 <= min_nodes <= "
                             f"max_nodes <= {MAX_NODES}, not {self.min_nodes} and "
                             f"{self.max_nodes}")
        if not 0.0 < self.edge_prob <= 1.0:
            raise InputError(f"edge_prob must be in (0, 1], not {self.edge_prob}")


def _listed(parts: list[str]) -> str:
    """CaLM's list: "a, b, and c" ("a" alone)."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + ", and " + parts[-1]


def _graph(knobs: CalmKnobs, rng: random.Random) -> tuple[list[str], list[tuple[str, str]]]:
    """Letters and edges (earlier letter → later, each with ``edge_prob``), every vertex
    on some edge; edges listed by source, targets in a random order as CaLM lists them."""
    n = rng.randint(knobs.min_nodes, knobs.max_nodes)
    names = [chr(ord("A") + i) for i in range(n)]
    edges: list[tuple[str, str]] = []
    for i in range(n - 1):
        targets = [names[j] for j in range(i + 1, n) if rng.random() < knobs.edge_prob]
        rng.shuffle(targets)
        edges += [(names[i], t) for t in targets]
    touched = {v for e in edges for v in e}
    for v in names:  # a lone vertex gets one edge, to or from a neighbour in the order
        if v not in touched:
            i = names.index(v)
            edges.append((v, names[i + 1]) if i + 1 < n else (names[i - 1], v))
            touched.add(v)
    edges.sort(key=lambda e: names.index(e[0]))
    return names, edges


def _text(edges: list[tuple[str, str]]) -> str:
    return _listed([f"{a} causes {b}" for a, b in edges])


def _relation(knobs: CalmKnobs, task: str, rng: random.Random, want: bool | None
              ) -> dict[str, Any] | None:
    names, edges = _graph(knobs, rng)
    kind = RelationKind.PARENT if task == "CA-B_FP" else RelationKind.ANCESTOR
    g = CalmGraph.build(names, edges)
    pairs = [(a, b) for a, b in itertools.permutations(names, 2)
             if want is None or relation(Relation(g, kind, a, b)).answer == want]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    if task == "AR-B_CaLM-AR":
        record = {"vertices": names, "ar_edges": _text(edges), "former": a, "latter": b}
    elif task == "CA-B_FA":
        record = {"vertices": names, "edges": _text(edges), "sampled_ancestor": a,
                  "attribution": b}
    else:
        record = {"vertices": names, "edges": _text(edges), "sampled_parent": a,
                  "attribution": b}
    return {"record": record, "num_nodes": len(names), "num_edges": len(edges)}


def _identify(knobs: CalmKnobs, task: str, rng: random.Random) -> dict[str, Any]:
    names, edges = _graph(knobs, rng)
    density = float(task.split("_")[1].split("-")[0])
    pairs = list(itertools.combinations(names, 2))
    count = max(1, min(len(pairs), round(density * len(names))))
    bidirected = rng.sample(pairs, count)
    x, y = rng.sample(names, 2)
    record = {"vertices": names, "di_edges": _text(edges),
              "bi_edges": _listed([f"{a} and {b}" for a, b in bidirected]),
              "treatment": x, "outcome": y}
    return {"record": record, "num_nodes": len(names), "num_edges": len(edges),
            "confounders": count}


def _choice(knobs: CalmKnobs, task: str, rng: random.Random, place: int
            ) -> dict[str, Any] | None:
    names, edges = _graph(knobs, rng)
    criterion, hide_a = _CHOICES[task]
    g = CalmGraph.build(names, edges)
    causal = [(a, b) for a, b in itertools.permutations(names, 2)
              if relation(Relation(g, RelationKind.ANCESTOR, a, b)).answer]
    if not causal:
        return None
    x, y = rng.choice(causal)  # the treatment causes the outcome, as in CaLM's items
    hidden = frozenset({"A"}) if hide_a else frozenset()
    pool = [v for v in names if v not in (x, y) and v not in hidden]
    sets = [frozenset(c) for k in (1, 2, 3) for c in itertools.combinations(pool, k)]
    rng.shuffle(sets)
    sets = sets[:120]  # bounded: the candidates tried for one graph
    loose = Criterion.BACKDOOR_ANY if criterion is Criterion.BACKDOOR_MAX else criterion
    probe = Choice(g, loose, x, y, (), hidden)
    valid = [s for s in sets if why_not(probe, s, hidden) is None]
    if criterion is Criterion.BACKDOOR_MIN:
        minimal = Choice(g, criterion, x, y, (), hidden)
        valid = [s for s in valid if why_not(minimal, s, hidden) is None]
    invalid = [s for s in sets if why_not(probe, s, hidden) is not None]
    if not valid or len(invalid) < 2:
        return None
    options = [invalid[0], invalid[1]]
    options.insert(place, valid[0])
    record = {"vertices": names, "edges": _text(edges), "treatment": x, "outcome": y,
              **{f"option{k + 1}": ", ".join(sorted(o)) for k, o in enumerate(options)}}
    return {"record": record, "num_nodes": len(names), "num_edges": len(edges),
            "option_size": len(valid[0])}


def _drawn(knobs: CalmKnobs, task: str, rng: random.Random, label: Any
           ) -> dict[str, Any] | None:
    if task in _CHOICES:
        # unbalanced: the right option's place is drawn with the graph
        place = rng.randrange(3) if label is None else int(label) - 1
        return _choice(knobs, task, rng, place)
    if task.startswith("CEI"):
        return _identify(knobs, task, rng)
    return _relation(knobs, task, rng, label)


def _answered(service: SolvingOracle, task: str, drawn: dict[str, Any]
              ) -> dict[str, Any] | None:
    """The item as the oracle answers its text, or None when the answer is not the one
    answer under every reading (degenerate, ambiguous, reading-dependent: any audit
    cause class of the CaLM graph part)."""
    family = service.registry.get(task)
    item = family.row({**drawn["record"], "index": 0, "task": task, "lang": "EN"})
    if item is None:
        raise InputError(f"the CaLM family did not read a drawn {task} record")
    answered = service.answer(item.prompt, task)
    question, solution = service.solved(family, item.prompt, Options(task))
    with service.scope():
        if PART.causes(question, solution, None):
            return None
    return {"question": item.prompt, "answer": answered.answer_text, "item": item.prompt,
            "task": task}


def _item(knobs: CalmKnobs, kind: str, task: str, label: Any, rng: random.Random,
          service: SolvingOracle) -> dict[str, Any]:
    for _ in range(MAX_DRAWS):
        drawn = _drawn(knobs, task, rng, label)
        if drawn is None:
            continue
        item = _answered(service, task, drawn)
        if item is None:
            continue
        if kind == "CEI" and label is not None and (item["answer"] == "Yes") is not label:
            continue
        difficulty = {"kind": kind, "task": task,
                      **{k: v for k, v in drawn.items() if k != "record"}}
        return {**item, "difficulty": difficulty}
    wanted = "" if label is None else f" with option {label} right" if task in _CHOICES \
        else f" answered {'Yes' if label else 'No'}"
    raise InputError(f"no {task} item{wanted} found in {MAX_DRAWS} graphs with "
                     f"min_nodes={knobs.min_nodes}, max_nodes={knobs.max_nodes}, "
                     f"edge_prob={knobs.edge_prob}, balanced={knobs.balanced} (kinds="
                     f"{','.join(knobs.kinds)}, densities={','.join(knobs.densities)})")


def _tasks(knobs: CalmKnobs, kind: str) -> tuple[str, ...]:
    if kind == "CEI":
        return tuple(f"CEI-B_{d}-UC" for d in knobs.densities)
    return _TASKS[kind]


def _labels(knobs: CalmKnobs, task: str) -> tuple[Any, ...]:
    if not knobs.balanced:
        return (None,)
    return (1, 2, 3) if task in _CHOICES else (True, False)


def draw(knobs: CalmKnobs, rng: random.Random, service: SolvingOracle) -> dict[str, Any]:
    """One item, answered by ``service`` (the entry layer's ``Service``): ``question``
    (CaLM's basic EN prompt), ``answer`` (the oracle's),
    ``item``/``task`` (what a reply is graded against), ``difficulty``; ``InputError``
    naming the knobs when ``MAX_DRAWS`` graphs give none.  The kind, the task and (when
    balanced) the label or the right option's place are drawn first, uniformly."""
    kind = rng.choice(knobs.kinds)
    task = rng.choice(_tasks(knobs, kind))
    label = rng.choice(_labels(knobs, task))
    return _item(knobs, kind, task, label, rng, service)


def probe(knobs: CalmKnobs, service: SolvingOracle) -> None:
    """``InputError`` naming the knobs when some kind, task or label the knobs allow
    cannot be drawn (one search each, fixed seed)."""
    for kind in knobs.kinds:
        for task in _tasks(knobs, kind):
            for label in _labels(knobs, task):
                _item(knobs, kind, task, label, random.Random(f"{task}:{label}"), service)


#: the generator the CaLM family offers (``Family.generators``): ``calm_graph``
GENERATOR = Generator("calm_graph", CalmKnobs, draw, probe)

__all__ = ["DENSITIES", "GENERATOR", "KINDS", "MAX_DRAWS", "CalmKnobs", "draw", "probe"]
