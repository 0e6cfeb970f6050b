"""The knobs of the procedural CLEAR generator: what an item must measure.

A dataset asks for items by *knobs*, and every item drawn is kept only if its measured
quantities fall inside them (``entry.families.clear_generator`` draws; this module says what is
allowed and checks that the combination can be met at all):

==========================  ===============================================================
knob                        measured as
==========================  ===============================================================
``task_types``              the task asked (``Task`` values), drawn uniformly among those
                            the other knobs allow
``question_types``          FA, FO, HM, YN, MC, EX (``QType`` values), drawn uniformly
                            among those the task has; then the wording variant
                            ("shortest", "NOT", "minimal", the relation, …) uniformly
``graph_types``             the graph type drawn (``GraphType``), uniformly per graph
``min/max_nodes``           the number of nodes of the graph
``min/max_density``         adjacent node pairs / (n (n − 1) / 2) of the drawn graph (a
                            pair joined by two edges, ``A->B`` and ``A<->B``, counts once)
``min/max_answer_size``     FA: the number of items in the oracle's answer (the nodes of
                            the root set; the districts of a partition); HM: the count;
                            FO: the number of valid answers.  YN, EX and MC items, and FO
                            topological orders (the oracle gives one order, not a count),
                            have none (``None``) and are not constrained by it
``balanced``                YN/EX: "Yes." or "No." is drawn first, then an item searched
                            to match
==========================  ===============================================================

``GraphKnobs.validate`` rejects knobs no item can meet, naming the choices (an unknown
type, an empty list, a density the task types' edge caps leave no room for);
``GraphKnobs.forms`` lists, per task type allowed, the question and graph types allowed.

>>> forms = GraphKnobs(task_types=("2_node_relation",), question_types=("HM",)).forms()
>>> [(t.value, [q.value for q in qs], [g.value for g in gs]) for t, (qs, gs) in forms.items()]
[('2_node_relation', ['HM'], ['DAG', 'ADMG', 'C-component', 'C-forest', 'C-tree'])]
>>> GraphKnobs(min_nodes=10).validate()
Traceback (most recent call last):
...
causal_oracle.oracle.errors.InputError: need 3 <= min_nodes <= max_nodes <= 9
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry.families.clear_generator_draw import EDGE_CAPS, MAX_EDGES, MAX_NODES
from causal_oracle.entry.families.clear_wording import (
    GRAPH_TYPES,
    QUESTION_TYPES,
    SUPPORT,
    TASK_TYPES,
    GraphType,
)
from causal_oracle.oracle.clear.model import QType, Task
from causal_oracle.oracle.errors import InputError


def _members(values: Iterable[Any], kind: type[enum.Enum], what: str,
             choices: Sequence[str]) -> tuple[Any, ...]:
    """``values`` (enum members or their values; one bare value too) as members of
    ``kind``; ``InputError`` naming the choices for an unknown or empty one."""
    out: list[Any] = []
    knob = what.replace(" ", "_") + "s"  # the knob's name: task_types, question_types, …
    for value in (values,) if isinstance(values, str | kind) else values:
        try:
            out.append(value if isinstance(value, kind) else kind(value))
        except ValueError:
            raise InputError(f"{knob}: unknown {what} {value!r}; expected some of "
                             f"{', '.join(choices)}") from None
    if not out:
        raise InputError(f"{knob} must not be empty; choose among {', '.join(choices)}")
    return tuple(dict.fromkeys(out))


@dataclass
class GraphKnobs:
    """What an item must measure (see the module docstring); a dataset's config extends
    it (``environments.graph``).  Types are given by their values (``"2_node_relation"``,
    ``"YN"``, ``"ADMG"``) or as ``Task`` / ``QType`` / ``GraphType`` members."""

    task_types: tuple[str, ...] = TASK_TYPES
    question_types: tuple[str, ...] = QUESTION_TYPES
    graph_types: tuple[str, ...] = GRAPH_TYPES
    min_nodes: int = 4
    max_nodes: int = 6
    min_density: float = 0.0
    max_density: float = 1.0
    min_answer_size: int = 0
    max_answer_size: int | None = None  # None: no cap
    balanced: bool = False

    def tasks(self) -> tuple[Task, ...]:
        return _members(self.task_types, Task, "task type", TASK_TYPES)

    def qtypes(self) -> tuple[QType, ...]:
        return _members(self.question_types, QType, "question type", QUESTION_TYPES)

    def gtypes(self) -> tuple[GraphType, ...]:
        return _members(self.graph_types, GraphType, "graph type", GRAPH_TYPES)

    def min_edges(self) -> int:
        """The fewest edges a graph meeting the node and density knobs has."""
        pairs = self.min_nodes * (self.min_nodes - 1) // 2
        return math.ceil(self.min_density * pairs - 1e-9)

    def forms(self, capped: bool = True
              ) -> dict[Task, tuple[tuple[QType, ...], tuple[GraphType, ...]]]:
        """Per task type the knobs allow: its allowed question types and graph types (only
        tasks with at least one of each and, when ``capped``, whose edge cap
        (``EDGE_CAPS``, else ``MAX_EDGES``) the density knobs leave room for)."""
        qtypes, gtypes = self.qtypes(), self.gtypes()
        out = {}
        for task in self.tasks():
            if capped and self.min_edges() > EDGE_CAPS.get(task, MAX_EDGES):
                continue
            qs, gs = SUPPORT[task]
            q_ok = tuple(q for q in qs if q in qtypes)
            g_ok = tuple(g for g in gs if g in gtypes)
            if q_ok and g_ok:
                out[task] = (q_ok, g_ok)
        return out

    def validate(self) -> None:
        """``InputError`` for knobs no item can meet, naming the choices."""
        if not 3 <= self.min_nodes <= self.max_nodes <= MAX_NODES:
            raise InputError(f"need 3 <= min_nodes <= max_nodes <= {MAX_NODES}")
        if not 0.0 <= self.min_density <= self.max_density <= 1.0:
            raise InputError("need 0 <= min_density <= max_density <= 1")
        if self.min_answer_size < 0 or (self.max_answer_size is not None
                                        and self.max_answer_size < self.min_answer_size):
            raise InputError("need 0 <= min_answer_size <= max_answer_size (None: no cap)")
        if not self.forms(capped=False):
            pairs = "; ".join(f"{t.value}: {', '.join(q.value for q in qs)} on "
                              f"{', '.join(g.value for g in gs)}"
                              for t, (qs, gs) in SUPPORT.items() if t in self.tasks())
            raise InputError("no task type among task_types is asked with these "
                             f"question_types on these graph_types; supported: {pairs}")
        if not self.forms():
            caps = ", ".join(f"{t.value} {c}" for t, c in EDGE_CAPS.items())
            raise InputError(f"min_density {self.min_density} on min_nodes {self.min_nodes} "
                             f"needs at least {self.min_edges()} edges; the task types' caps "
                             f"are {MAX_EDGES} edges ({caps})")

    def size_ok(self, size: int | None) -> bool:
        """Whether a measured answer size (None: not measured) is inside the band."""
        return size is None or (self.min_answer_size <= size and (
            self.max_answer_size is None or size <= self.max_answer_size))

