"""CLEAR solvers against gold, against the independent checker, and at random."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

import causal_oracle as co
from causal_oracle.oracle.clear import check as check_clear
from causal_oracle.oracle.clear import graph as G
from causal_oracle.oracle.clear.identify import identifiable
from causal_oracle.oracle.clear.model import GraphKind, MixedGraph, QType, Task
from causal_oracle.oracle.clear.tasks import solve
from causal_oracle.parser.clear import parse_item

SUBSET = Path(__file__).parent / "data" / "clear" / "items_subset.jsonl"
ROWS = [json.loads(line) for line in SUBSET.open()]
# The one row where the oracle disputes the gold: every node is in one district
# (U<->I, F<->U, Q<->U, U<->Y), every node has at most one child (F->Y, Q->Y, Y->I,
# U->I) and I is the only node without children — a C-tree, gold says "No.".
DISPUTED = {"42883713:0"}


def test_audit_agrees_with_gold_except_the_certified_finding() -> None:
    report = co.audit(ROWS)
    data = report.to_json()
    assert data["summary"]["items"] == len(ROWS)
    assert data["summary"]["unreadable"] == 0
    assert data["certificates_checked"] == len(ROWS)
    assert {d["id"] for d in data["disagreements"]} == DISPUTED
    assert all(k.startswith("CLEAR ") for k in data["by_task"])
    assert len(data["by_task"]) == len({(r["task_type"], r["question_type"]) for r in ROWS})


def test_disputed_c_tree_certificate() -> None:
    row = next(r for r in ROWS if f"{r['uid']}:{r['sid']}" in DISPUTED)
    q = parse_item(row["description"], row["question"])
    g = q.graph
    assert G.districts(g) == [frozenset(g.nodes)]
    assert all(len(G.children(g, v)) <= 1 for v in g.nodes)
    assert [v for v in g.nodes if not G.children(g, v)] == ["I"]
    assert solve(q).value is True and row["answer"] == "No."


def test_checker_rederives_every_answer() -> None:
    for row in ROWS:
        q = parse_item(row["description"], row["question"])
        ok, why = check_clear.check(q, solve(q).value)
        assert ok, (row["question"], why)


def _random_admg(rng: random.Random, n: int) -> MixedGraph:
    names = [chr(65 + i) for i in range(n)]
    order = names[:]
    rng.shuffle(order)
    directed = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)
                if rng.random() < 0.35]
    bidirected = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
                  if rng.random() < 0.25]
    return MixedGraph.build(GraphKind.ADMG, names, directed=directed, bidirected=bidirected)


def test_id_algorithm_matches_hedge_criterion_at_random() -> None:
    rng = random.Random(13)
    checked = {True: 0, False: 0}
    for _ in range(300):
        g = _random_admg(rng, rng.randint(3, 6))
        x, y = rng.sample(list(g.nodes), 2)
        mine = identifiable(g, {x}, {y})
        assert mine == check_clear._identified(g, x, y), (g, x, y)
        checked[mine] += 1
    assert min(checked.values()) > 20


def test_m_separation_matches_networkx_at_random() -> None:
    rng = random.Random(7)
    for _ in range(200):
        g = _random_admg(rng, rng.randint(3, 7))
        x, y = rng.sample(list(g.nodes), 2)
        z = {v for v in g.nodes if v not in (x, y) and rng.random() < 0.4}
        latent = nx.DiGraph(list(g.directed))
        latent.add_nodes_from(g.nodes)
        for i, e in enumerate(g.bidirected):
            a, b = sorted(e)
            latent.add_edges_from([(f"u{i}", a), (f"u{i}", b)])
        assert G.m_separated(g, {x}, {y}, z) == nx.is_d_separator(latent, {x}, {y}, z)


def test_answer_and_grade_through_the_api() -> None:
    row = next(r for r in ROWS if r["task_type"] == "d-separation" and r["question_type"] == "FO"
               and "minimal" not in r["question"])
    prompt = row["description"] + "\n" + row["question"]
    result = co.answer(prompt)
    assert result.task == "CLEAR d-separation" and result.certificate_checked
    assert co.grade(prompt, result.answer_text).correct is True
    unsure = co.grade(prompt, "I am not sure")
    assert unsure.correct is False and not unsure.readable
    mc = next(r for r in ROWS if r["question_type"] == "MC")
    prompt = mc["description"] + "\n" + mc["question"]
    assert co.grade(prompt, f"The answer is:\n**{mc['answer']}**").correct is True


def test_cli_answer_and_audit(tmp_path: Path) -> None:
    row = next(r for r in ROWS if r["task_type"] == "identification")
    prompt = row["description"] + "\n" + row["question"]
    cli = [sys.executable, "-m", "causal_oracle.clients.cli"]
    out = subprocess.run([*cli, "answer", "--prompt", prompt], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0 and row["answer"] in out.stdout, out.stderr
    bad = subprocess.run([sys.executable, "-m", "causal_oracle.clients.cli", "answer", "--prompt",
                          "Given a DAG (directed acyclic graph) with nodes A and directed "
                          "edges A=>B.\nList all nodes of this graph."],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "line 1" in bad.stderr
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:20]))
    audit = subprocess.run([sys.executable, "-m", "causal_oracle.clients.cli", "audit",
                            str(path), "--quiet"], capture_output=True, text=True, check=False)
    assert audit.returncode == 0 and "task CLEAR" in audit.stdout


@pytest.mark.parametrize("task", list(Task))
def test_every_task_has_a_sample_item(task: Task) -> None:
    assert any(r["task_type"] == task.value for r in ROWS)
    assert any(QType(r["question_type"]) for r in ROWS if r["task_type"] == task.value)


def test_wrong_answers_come_with_their_counter_evidence() -> None:
    dag = ("Given a DAG (directed acyclic graph) with nodes X, V, Z, M and directed edges "
           "X->Z, V->Z, X->M, V->M, X->V.\n")
    dsep = dag + "Find one valid nodeset that can d-separate node Z and node M ."
    assert co.grade(dsep, "{'V', 'X'}").correct is True
    wrong = co.grade(dsep, "{'X'}")
    assert wrong.correct is False and "Z<-V->M is open given ['X']" in wrong.reason
    backdoor = dag + "Find one minimal valid backdoor adjustment set for treatment V and outcome Z."
    assert "descendants of V" in co.grade(backdoor, "{'X', 'M'}").reason
    path = dag + "Find one path from X to Z."
    assert "X<-Z is not an edge" in co.grade(path, "X<-Z").reason


@pytest.mark.parametrize("module", ["oracle.mixed_graph", "oracle.clear.model",
                                    "oracle.clear.graph", "oracle.clear.identify",
                                    "oracle.clear.equivalence"])
def test_doctests_of_the_clear_modules(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"causal_oracle.{module}"))
    assert result.attempted > 0 and result.failed == 0


def test_the_oracles_own_answer_text_grades_correct() -> None:
    """Every answer the oracle writes reads back as itself: a lone node named A-D is a
    node, not an option letter, and 3-node answers are triples, not one set of nodes."""
    for row in ROWS:
        prompt = f"{row['description']}\n{row['question']}"
        text = co.answer(prompt).answer_text
        graded = co.grade(prompt, text)
        assert graded.correct is True, (prompt, text, graded.reason)
