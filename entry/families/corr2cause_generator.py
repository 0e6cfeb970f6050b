"""Procedural Corr2Cause items whose difficulty is measured, not assumed.

An endless supply of training items needs a knob per kind of difficulty, and each knob
must mean something exact.  Every item here is drawn from a seeded random DAG, written
as the upstream premise of its Markov equivalence class (the reference generator's
wording, ``corr2cause_generator_reference``), asked
one upstream hypothesis, and labelled and certified by the oracle; then it is *kept
only if its measured quantities fall inside the knobs*:

==========================  ===============================================================
knob                        measured as
==========================  ===============================================================
``min/max_nodes``           the number of variables
``min/max_density``         edges / (n (n − 1) / 2) of the drawn DAG (the class shares
                            its skeleton, so every member has the same density)
``min/max_class_size``      the number of DAGs in the class (exact, Clique-Picking)
``relations``               the upstream property asked (parent, non-parent ancestor,
                            child, non-child descendant, has_collider, has_confounder)
``three_class``             the target: yes/no (the binary label) or entailment /
                            neutral / contradiction
``structural_reason``       whether the verdict has a structural reason
                            (``explain``: non-adjacency, a compelled edge, …) — True,
                            False, or None for either
``balanced``                the target is drawn first, uniformly per relation, and the
                            item searched to match (the majority baseline scores 92 % on
                            the unbalanced n = 4 space; balanced it scores 1/2 or 1/3)
==========================  ===============================================================

``draw(knobs, rng, service)`` is deterministic in the state of ``rng``
(``random.Random(seed + idx)`` in the environments), and returns the item, labelled by
``service`` (passed in, as to every family generator:
``entry.oracle_protocol.SolvingOracle``), with its measured difficulty and its
renaming-invariant key (``corr2cause_generator_keys``).  The Corr2Cause family offers
it as ``causal_corr2cause`` (``GENERATOR``, with the reference dataset ``generate``
writes); the environments find it by that name (``Registry.generator``).

    >>> from causal_oracle.entry import default
    >>> knobs = Knobs(min_nodes=4, max_nodes=4, balanced=True)
    >>> item = draw(knobs, random.Random(3), default())
    >>> item["difficulty"]["num_nodes"], item["answer"] in ("Yes", "No")
    (4, True)
    >>> item == draw(knobs, random.Random(3), default())
    True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from causal_oracle.entry.families.corr2cause_generator_keys import ItemKeys
from causal_oracle.entry.families.corr2cause_generator_reference import (
    ORIGINAL,
    ORIGINAL_NAMES,
    PARAPHRASED,
    REFERENCE,
    RENAMED_NAMES,
    premise_text,
)
from causal_oracle.entry.families.corr2cause_result import RELATIONS
from causal_oracle.entry.family_records import Generator
from causal_oracle.entry.gold import join_input
from causal_oracle.entry.oracle_protocol import SolvingOracle
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.reasons import reason_for

PROPERTIES = tuple(prop for prop, _, _ in ORIGINAL)
THREE_CLASS_INSTRUCTION = ("Does the premise entail the hypothesis, contradict it, or neither? "
                           "Answer entailment, contradiction or neutral.")
MAX_DRAWS = 400  # DAGs drawn for one item before the knobs are declared unsatisfiable
MAX_NODES = 8
#: each service's item keys, kept across draws (a premise's class is computed once)
_KEYS: WeakKeyDictionary[Any, ItemKeys] = WeakKeyDictionary()


@dataclass
class Knobs:
    """What an item must measure (see the module docstring); a dataset's config extends
    it (``environments.corr2cause``)."""

    min_nodes: int = 3
    max_nodes: int = 5
    min_density: float = 0.0
    max_density: float = 1.0
    min_class_size: int = 1
    max_class_size: int = 1 << 62
    relations: tuple[str, ...] = PROPERTIES
    three_class: bool = False
    balanced: bool = False
    structural_reason: bool | None = None
    rename: bool = False
    paraphrase: bool = False

    def validate(self) -> None:
        """``InputError`` for knobs no item can meet."""
        if not 2 <= self.min_nodes <= self.max_nodes <= MAX_NODES:
            raise InputError(f"need 2 <= min_nodes <= max_nodes <= {MAX_NODES}")
        if not 0.0 <= self.min_density <= self.max_density <= 1.0:
            raise InputError("need 0 <= min_density <= max_density <= 1")
        if not 1 <= self.min_class_size <= self.max_class_size:
            raise InputError("need 1 <= min_class_size <= max_class_size")
        unknown = set(self.relations) - set(PROPERTIES)
        if not self.relations or unknown:
            raise InputError(f"relations must be among {', '.join(PROPERTIES)}")


def _dag(n: int, density: float, rng: random.Random) -> Dag:
    order = list(range(n))
    rng.shuffle(order)
    edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)
             if rng.random() < density]
    return Dag.from_edges(n, edges)


def draw(knobs: Knobs, rng: random.Random, service: SolvingOracle) -> dict[str, Any]:
    """One item meeting ``knobs``, drawn with ``rng`` and labelled by ``service``;
    ``InputError`` when ``MAX_DRAWS`` DAGs gave none."""
    knobs.validate()
    prop = rng.choice(knobs.relations)
    target: Any = None
    if knobs.balanced:
        target = rng.choice(RELATIONS) if knobs.three_class else rng.choice((1, 0))
    keys = _KEYS.get(service)
    if keys is None:
        keys = _KEYS.setdefault(service, ItemKeys(service))
    return _search(knobs, prop, target, rng, service, keys)


def cells(knobs: Knobs) -> tuple[tuple[str, Any], ...]:
    """Every (relation, balanced target) a draw may choose (target None: unbalanced)."""
    targets: tuple[Any, ...] = ((RELATIONS if knobs.three_class else (1, 0))
                                if knobs.balanced else (None,))
    return tuple((prop, target) for prop in dict.fromkeys(knobs.relations)
                 for target in targets)


def probe(knobs: Knobs, service: SolvingOracle) -> None:
    """``InputError`` naming the knobs when some relation and target a draw may choose
    yields no item (searched once each with a fixed seed): an infeasible combination fails
    when a dataset is made, not at the item that first asks for it."""
    knobs.validate()
    for prop, target in cells(knobs):
        _search(knobs, prop, target, random.Random(0), service, None)


def _search(knobs: Knobs, prop: str, target: Any, rng: random.Random,
            service: SolvingOracle, keys: ItemKeys | None) -> dict[str, Any]:
    """An item asking ``prop`` whose answer is ``target`` (None: any), searched with
    ``rng``; ``InputError`` when ``MAX_DRAWS`` DAGs gave none."""
    template, reverse = next((t, r) for p, t, r in
                             (PARAPHRASED if knobs.paraphrase else ORIGINAL) if p == prop)
    names = RENAMED_NAMES if knobs.rename else ORIGINAL_NAMES
    for _ in range(MAX_DRAWS):
        n = rng.randint(knobs.min_nodes, knobs.max_nodes)
        dag = _dag(n, rng.uniform(knobs.min_density, knobs.max_density), rng)
        pairs = n * (n - 1) // 2
        density = len(dag.edges()) / pairs
        if not knobs.min_density <= density <= knobs.max_density:
            continue
        text = premise_text(dag, names[:n])
        verbs = service.pairs()
        premise = verbs.premise_of(text)
        choices = [(i, j) for i in range(n) for j in range(i + 1, n)]
        rng.shuffle(choices)
        for i, j in choices:
            p, q = (names[j], names[i]) if reverse else (names[i], names[j])
            hypothesis = template.format(p=p, q=q)
            result = verbs.verify_objects(premise, verbs.hypothesis_of(hypothesis))
            size = result.class_size
            if not knobs.min_class_size <= size <= knobs.max_class_size:
                break  # the class is the same for every pair
            if target is not None and target != (
                    result.relation if knobs.three_class else result.label):
                continue
            reason = reason_for(result.analysis, result.hypothesis, result.verdict,
                                result.profile)
            if knobs.structural_reason is not None and \
                    knobs.structural_reason != (reason is not None):
                continue
            item = join_input(text, hypothesis)
            instruction = THREE_CLASS_INSTRUCTION if knobs.three_class else \
                service.registry.pair_family().instruction
            answer = result.relation if knobs.three_class else \
                ("Yes" if result.label else "No")
            return {
                "question": f"{item}\n{instruction}", "answer": answer, "item": item,
                "premise": text, "hypothesis": hypothesis, "property": prop,
                "relation": result.relation, "label": result.label,
                "key": (keys or ItemKeys(service)).key_of(premise, result.hypothesis),
                "difficulty": {"num_nodes": n, "edges": len(dag.edges()),
                               "edge_density": round(density, 6), "class_size": size,
                               "holds_in": result.holds_in,
                               "structural_reason": reason is not None,
                               "three_class": knobs.three_class}}
    wanted = "" if target is None else f" with the answer {target!r}"
    raise InputError(f"no {prop!r} item{wanted} met these knobs in {MAX_DRAWS} draws "
                     f"(some combinations cannot be met: e.g. an entailed confounder needs "
                     f"five variables): {knobs}")


#: the generator the Corr2Cause family offers (``Family.generators``): ``causal_corr2cause``,
#: with the reference dataset ``generate`` writes
GENERATOR = Generator("causal_corr2cause", Knobs, draw, probe, REFERENCE)


__all__ = ["GENERATOR", "MAX_DRAWS", "PROPERTIES", "RELATIONS", "THREE_CLASS_INSTRUCTION",
           "Knobs", "cells", "draw", "probe"]
