"""``causal_graph``: CLEAR-style graph questions, seeded, certified, with measured knobs.

Through Reasoning Gym's own factory when it is installed (the ``rl`` extra), else
standalone with the same interface.  Answers are re-derived here with networkx from
the item's text (parsed with this file's own regular expressions, not the project's
parser) for the DAG tasks networkx has: parents, children, ancestors, descendants,
d-separation and directed paths.
"""

from __future__ import annotations

import doctest
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from typing import Any

import networkx as nx
import pytest

from causal_oracle.entry import InputError, default
from causal_oracle.entry.families.clear_generator import draw
from causal_oracle.entry.families.clear_generator_knobs import GraphKnobs
from causal_oracle.entry.families.clear_wording import GRAPH_TYPES, TASK_TYPES
from causal_oracle.environments.graph import GRAPH_NAME, GraphConfig, GraphDataset, register

FLIP = {"Yes.": "No.", "No.": "Yes."}


@pytest.fixture(scope="module")
def rg() -> Any:
    module = pytest.importorskip("reasoning_gym")
    register()  # environments/__init__.py does not import this module (yet)
    return module


@pytest.fixture(scope="module")
def items() -> list[dict[str, Any]]:
    """A default dataset's first items (every task type, question type, graph type)."""
    return list(GraphDataset(GraphConfig(size=140, seed=7)))


@pytest.mark.parametrize("module", ["causal_oracle.entry.families.clear_generator",
                                    "causal_oracle.environments.graph"])
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


# ---- wrong answers made from the item ------------------------------------------------------
def _nodes(entry: dict[str, Any]) -> list[str]:
    head = entry["metadata"]["description"]
    listed = re.search(r"with nodes (.+?)(?:,| and) (?:directed|undirected|bi-directed) edges",
                       head)
    assert listed is not None, head
    return listed.group(1).split(", ")


def wrong_answer(entry: dict[str, Any]) -> str | None:
    """A wrong reply built from the item: Yes/No flipped, a count off by one, another
    option letter, a set with one member removed or added (None: no such construction,
    find-one questions)."""
    answer, qtype = entry["answer"], entry["metadata"]["question_type"]
    if qtype in ("YN", "EX"):
        return FLIP[answer]
    if qtype == "HM":
        return str(int(answer) + 1)
    if qtype == "MC":
        return next(letter for letter in "ABCD" if letter != answer)
    if qtype != "FA":
        return None
    if answer.startswith("[("):  # 3-node structures: drop one
        triples = re.findall(r"\('\w', '\w', '\w'\)", answer)
        return "[" + ", ".join(triples[1:]) + "]"
    if answer == "[]":  # none exists: any triple is wrong
        return "[(" + ", ".join(f"'{v}'" for v in _nodes(entry)[:3]) + ")]"
    if answer.startswith("[{"):  # a partition: drop a district, or a node of the only one
        sets = re.findall(r"\{[^}]*\}", answer)
        if len(sets) > 1:
            return "[" + ", ".join(sets[1:]) + "]"
        members = re.findall(r"'(\w)'", sets[0])
        return "[{" + ", ".join(f"'{v}'" for v in members[1:]) + "}]"
    if answer.startswith("{"):  # the root set: drop a node, or add one
        members = re.findall(r"'(\w)'", answer)
        if len(members) > 1:
            members = members[1:]
        else:
            members.append(next(v for v in _nodes(entry) if v not in members))
        return "{" + ", ".join(f"'{v}'" for v in members) + "}"
    if answer == "None":  # nothing to list: a node is wrong where nodes are listed
        kind = entry["metadata"]["task_type"]
        return _nodes(entry)[0] if kind in ("node", "2_node_relation") else None
    parts = answer.split(", ")  # nodes, edges, paths
    return ", ".join(parts[1:]) if len(parts) > 1 else "None"


def test_reasoning_gym_factory_is_deterministic_and_certified(rg: Any) -> None:
    first = rg.create_dataset(GRAPH_NAME, size=40, seed=1)
    again = rg.create_dataset(GRAPH_NAME, size=40, seed=1)
    entries = list(first)
    assert entries == list(again) and len(entries) == 40
    other = list(rg.create_dataset(GRAPH_NAME, size=40, seed=2))
    assert sum(a["question"] != b["question"] for a, b in zip(entries, other, strict=True)) > 30
    assert [first.score_answer(e["answer"], e) for e in entries] == [1.0] * 40
    score = rg.get_score_answer_fn(GRAPH_NAME)
    assert score(entries[3]["answer"], entries[3]) == 1.0
    for e in entries:
        assert e["question"] == e["metadata"]["item"]
        assert e["question"].startswith(e["metadata"]["description"] + "\n")
        assert first.score_answer("I am not sure.", e) == 0.0
        assert first.score_answer("", e) == 0.0
        assert first.score_answer(None, e) == 0.0
        # the answer is the oracle's, for the item's text
        task = default().answer(e["metadata"]["item"]).task
        assert task == f"CLEAR {e['metadata']['task_type']}" and e["metadata"]["task"] == "CLEAR"


_SAME_EVERYWHERE = """
import json, sys
from causal_oracle.environments.graph import GraphConfig, GraphDataset
for config in (GraphConfig(size=25, seed=9), GraphConfig(
        size=12, seed=2, task_types=("markov_equivalent", "3_node_relation", "c-component"))):
    print(json.dumps([[e["question"], e["answer"]] for e in GraphDataset(config)]))
"""


def test_items_do_not_depend_on_the_process() -> None:
    """Item ``idx`` is the same in every process: nothing depends on set order, which
    changes with PYTHONHASHSEED (the oracle's own example Markov-equivalent DAG does)."""
    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _SAME_EVERYWHERE], env=env, text=True,
                              capture_output=True, check=True, timeout=120)
        outs.append([json.loads(line) for line in done.stdout.splitlines()])
    assert outs[0] == outs[1]
    assert any(q.endswith("Markov Equivalent Class of the given graph.") for q, _ in outs[0][1])


def test_gold_scores_one_and_wrong_answers_zero(items: list[dict[str, Any]]) -> None:
    data = GraphDataset(GraphConfig(size=1, seed=0))
    kinds: Counter[str] = Counter()
    for e in items:
        assert data.score_answer(e["answer"], e) == 1.0, e["question"]
        wrong = wrong_answer(e)
        if wrong is None:
            continue
        grade = default().grade(e["metadata"]["item"], wrong, e["metadata"]["task"])
        assert grade.correct is False, (e["question"], e["answer"], wrong, grade)
        assert data.score_answer(wrong, e) == 0.0
        kinds[e["metadata"]["question_type"]] += 1
    assert set(kinds) == {"FA", "HM", "YN", "MC", "EX"}


# ---- networkx re-derivation -----------------------------------------------------------------
def _dag(description: str) -> nx.DiGraph:
    found = re.fullmatch(r"Given a DAG \(directed acyclic graph\) with nodes (.+?) and directed "
                         r"edges (.+)\.", description)
    assert found is not None, description
    g = nx.DiGraph()
    g.add_nodes_from(found.group(1).split(", "))
    g.add_edges_from(re.findall(r"([A-Z])->([A-Z])", found.group(2)))
    assert nx.is_directed_acyclic_graph(g)
    return g


def _set(text: str) -> set[str]:
    return set() if text == "set()" else set(re.findall(r"'([A-Z])'", text))


def _relation(g: nx.DiGraph, word: str, x: str) -> set[str]:
    return set({"parents": g.predecessors, "children": g.successors,
                "ancestors": lambda v: nx.ancestors(g, v),
                "descendants": lambda v: nx.descendants(g, v)}[word](x))


def _directed_paths(g: nx.DiGraph, x: str, y: str) -> set[str]:
    return {"->".join(p) for p in nx.all_simple_paths(g, x, y)}


def _is_directed_path(g: nx.DiGraph, walk: str, x: str, y: str) -> bool:
    if re.search(r"<-|<->|(?<![<])-(?!>)", walk):
        return False
    nodes = walk.split("->")
    return (nodes[0], nodes[-1]) == (x, y) and len(set(nodes)) == len(nodes) and all(
        g.has_edge(a, b) for a, b in zip(nodes, nodes[1:], strict=False))


def _listed(items: set[str]) -> str:
    return ", ".join(sorted(items)) or "None"


def _yes(value: bool) -> str:
    return "Yes." if value else "No."


def _networkx_answer(g: nx.DiGraph, question: str) -> str | None:
    """The answer networkx gives to ``question`` (None: a find-one question, checked
    apart)."""
    head, *options = question.split("\n")
    letters = dict(o.split(". ", 1) for o in options)
    patterns: list[tuple[str, Any]] = [
        (r"List all (\w+) of node (\w)\.", lambda w, x: _listed(_relation(g, w, x))),
        (r"How many (\w+) does node (\w) have\?", lambda w, x: str(len(_relation(g, w, x)))),
        (r"Is node (\w) one of (\w+) of node (\w)\?",
         lambda v, w, x: _yes(v in _relation(g, w, x))),
        (r"Does node (\w) have any (\w+)\?", lambda x, w: _yes(bool(_relation(g, w, x)))),
        (r"Which of the following is one of (\w+) of node (\w)\?",
         lambda w, x: "".join(k for k, v in letters.items() if v in _relation(g, w, x))),
        (r"Are node (\w) and node (\w) d-separated by nodeset (.+)\?",
         lambda x, y, z: _yes(nx.is_d_separator(g, {x}, {y}, _set(z)))),
        (r"Which of the following nodesets can d-separate node (\w) and node (\w)\?",
         lambda x, y: "".join(k for k, v in letters.items()
                              if nx.is_d_separator(g, {x}, {y}, _set(v)))),
        (r"Find all directed paths from node (\w) to node (\w)\.",
         lambda x, y: _listed(_directed_paths(g, x, y))),
        (r"How many directed paths are there from (\w) to (\w)\?",
         lambda x, y: str(len(_directed_paths(g, x, y)))),
        (r"Is there a directed path from (\w) to (\w)\?", lambda x, y: _yes(nx.has_path(g, x, y))),
        (r"Is (\S+) a directed path from (\w) to (\w)\?",
         lambda w, x, y: _yes(_is_directed_path(g, w, x, y))),
        (r"Which of the following is a directed path from (\w) to (\w)\?",
         lambda x, y: "".join(k for k, v in letters.items() if _is_directed_path(g, v, x, y))),
    ]
    for pattern, derive in patterns:
        found = re.fullmatch(pattern, head)
        if found:
            return str(derive(*found.groups()))
    assert "d-separate" in head, head  # the find-one forms
    return None


def test_answers_match_networkx() -> None:
    config = GraphConfig(size=90, seed=4, graph_types=("DAG",), min_nodes=4, max_nodes=7,
                         task_types=("2_node_relation", "d-separation", "directed_path"))
    checked: Counter[tuple[str, str]] = Counter()
    for e in GraphDataset(config):
        meta = e["metadata"]
        g = _dag(meta["description"])
        expected = _networkx_answer(g, meta["graph_question"])
        if expected is None:  # find one separating set: valid (and minimal when asked)
            found = re.fullmatch(r"Find .* node (\w) and node (\w) \.", meta["graph_question"])
            assert found is not None
            x, y = found.groups()
            z = _set(e["answer"])
            assert nx.is_d_separator(g, {x}, {y}, z)
            if "minimal" in meta["graph_question"]:
                assert nx.is_minimal_d_separator(g, {x}, {y}, z)
        else:
            assert e["answer"] == expected, (e["question"], e["answer"], expected)
        checked[(meta["task_type"], meta["question_type"])] += 1
    assert len(checked) == 13, checked  # 5 + 3 + 5 forms


# ---- knobs ----------------------------------------------------------------------------------
def test_every_task_type_is_generated(items: list[dict[str, Any]]) -> None:
    seen = Counter(e["metadata"]["task_type"] for e in items)
    assert set(seen) == set(TASK_TYPES), set(TASK_TYPES) - set(seen)
    assert {e["metadata"]["graph_type"] for e in items} == set(GRAPH_TYPES)
    assert {e["metadata"]["question_type"] for e in items} == {"FA", "FO", "HM", "YN", "MC",
                                                                "EX"}
    for e in items:
        if e["metadata"]["question_type"] == "MC":
            assert e["question"].count("\n") == 5 and e["answer"] in "ABCD"


def test_knobs_are_met_exactly() -> None:
    config = GraphConfig(size=30, seed=11, min_nodes=5, max_nodes=6, min_density=0.3,
                         max_density=0.6, min_answer_size=1, max_answer_size=4,
                         graph_types=("DAG", "ADMG"), question_types=("FA", "HM", "FO", "YN"),
                         task_types=("2_node_relation", "path", "backdoor_path",
                                     "d-separation", "edge"))
    sizes = []
    for e in GraphDataset(config):
        d = e["metadata"]["difficulty"]
        assert 5 <= d["num_nodes"] <= 6 and 0.3 <= d["edge_density"] <= 0.6
        assert d["graph_type"] in ("DAG", "ADMG") and d["question_type"] in ("FA", "HM",
                                                                               "FO", "YN")
        assert d["task_type"] in config.task_types
        if d["question_type"] == "YN":
            assert d["answer_size"] is None
        else:
            assert 1 <= d["answer_size"] <= 4
            sizes.append(d["answer_size"])
        g = e["metadata"]["graph"]  # the measured density is the drawn graph's
        pairs = {frozenset(p) for k in ("directed", "bidirected", "undirected") for p in g[k]}
        n = len(g["nodes"])
        assert d["edge_density"] == round(len(pairs) / (n * (n - 1) / 2), 6)
        assert d["num_nodes"] == n == len(_nodes(e))
    assert len(set(sizes)) > 1


def test_balanced_labels_come_out_balanced() -> None:
    config = GraphConfig(size=60, seed=3, balanced=True, question_types=("YN", "EX"))
    labels: Counter[str] = Counter()
    for e in GraphDataset(config):
        assert e["answer"] == ("Yes." if e["metadata"]["label"] else "No.")
        labels[e["answer"]] += 1
    assert abs(labels["Yes."] - labels["No."]) <= 8, labels


def test_bad_knobs_raise(rg: Any) -> None:
    bad: list[dict[str, Any]] = [
        {"task_types": ("cycles",)}, {"question_types": ("YesNo",)}, {"graph_types": ("tree",)},
        {"task_types": ()}, {"min_nodes": 2}, {"min_nodes": 6, "max_nodes": 5},
        {"max_nodes": 12}, {"min_density": 0.8, "max_density": 0.5},
        {"min_answer_size": 3, "max_answer_size": 2}, {"size": -1},
        {"task_types": ("cycle",), "graph_types": ("DAG",)},  # cycles are asked of DGs
        {"task_types": ("markov_equivalent",), "min_nodes": 8, "min_density": 0.6},  # > cap
    ]
    for knobs in bad:
        with pytest.raises(InputError):
            GraphConfig(**knobs).validate()
        with pytest.raises(InputError):
            rg.create_dataset(GRAPH_NAME, **knobs)
    with pytest.raises(InputError, match="unknown task type 'cycles'; expected some of node"):
        GraphConfig(task_types=("cycles",)).validate()
    impossible = GraphKnobs(task_types=("node",), question_types=("HM",), max_nodes=5,
                            min_answer_size=6)  # the graph has at most 5 nodes
    with pytest.raises(InputError, match="node HM"):
        draw(impossible, __import__("random").Random(0), default())


def test_the_curriculum_moves_the_measured_knobs(rg: Any) -> None:
    from reasoning_gym.factory import create_curriculum

    curriculum = create_curriculum(GRAPH_NAME)

    def measured() -> tuple[float, float, set[str], set[str], int]:
        config = curriculum.generate_configuration({"size": 30, "seed": 3})
        d = [e["metadata"]["difficulty"] for e in GraphDataset(config)]
        return (statistics.mean(x["num_nodes"] for x in d),
                statistics.mean(x["edge_density"] for x in d),
                {x["graph_type"] for x in d}, {x["question_type"] for x in d},
                max((x["answer_size"] or 0) for x in d))

    easy = measured()
    for attribute in curriculum.attributes:
        while curriculum.increment_attr_level(attribute):
            pass
    hard = measured()
    assert hard[0] > easy[0] + 1 and hard[1] > easy[1]
    assert easy[2] == {"DAG"} and len(hard[2]) >= 4
    assert easy[3] <= {"YN", "EX"} and {"FA", "FO", "HM", "MC"} <= hard[3]
