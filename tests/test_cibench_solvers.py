"""CP/BA/FI/CI solvers: the 400 shared items, the checker, brute force on random DAGs."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
from conftest import audit_row
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle import grade
from causal_oracle.oracle.tasks.backdoor import backdoor_sets, check_set
from causal_oracle.oracle.tasks.boolean_scm import counterfactual, factual
from causal_oracle.oracle.tasks.check import CertificateRejected, backdoor_valid, check_answer
from causal_oracle.oracle.tasks.model import (
    BackdoorQuestion,
    BooleanSCM,
    CounterfactualQuestion,
    FactualQuestion,
    Literal,
    PathsAnswer,
    PathsQuestion,
    Rule,
    TaskGraph,
)
from causal_oracle.oracle.tasks.paths import causal_paths

DATA = Path(__file__).parent / "data" / "cibench" / "items_sample.jsonl"
ROWS = [json.loads(line) for line in DATA.open(encoding="utf-8")]


def test_all_400_items_agree_with_the_generator_truth() -> None:
    results = Counter()
    for row in ROWS:
        out = audit_row(row)
        assert out["certificate_checked"], out
        results[(row["task"], out["agree"])] += 1
    assert results == Counter({("CP", True): 100, ("BA", True): 100, ("FI", True): 100,
                               ("CI", True): 100})


def test_ci_factual_values_match_too() -> None:
    for row in ROWS:
        if row["task"] != "CI":
            continue
        from causal_oracle.parser.cibench import parse_cibench
        q = parse_cibench(row["prompt"])
        fact = factual(FactualQuestion(q.scm, q.observed, q.queries))
        assert [v for _, v in fact.values] == row["truth"]["factual_values"]


# ---- the upstream BA-grader failure mode does not exist here ---------------------------

BA_PROMPT = (
    "The following text describes the assumed causal relationship between factors in a "
    "recent study:\nZeta has a causal effect on cause and effect.\nCause has a causal effect "
    "on mediator.\nMediator has a causal effect on effect. \nQuestion:\nWe want to estimate "
    "the causal effect of thecause on theeffect.\nBased on the information above, please "
    "provide a set of factors that can block all backdoor paths between them.\n")


def test_correct_minimal_set_on_a_graph_with_a_backdoor_path_is_accepted() -> None:
    out = grade(BA_PROMPT, "zeta")
    assert out.correct is True
    # Upstream compares a node's position in a path with node ids and rejects this set.
    assert grade(BA_PROMPT, "Answer: the Zeta.").correct is True


def test_a_set_with_a_mediator_is_rejected_with_the_reason() -> None:
    out = grade(BA_PROMPT, "zeta, mediator")
    assert out.correct is False
    assert "mediator" in out.reason and "descendant of the cause cause" in out.reason


def test_the_empty_set_is_rejected_by_the_open_backdoor_path() -> None:
    out = grade(BA_PROMPT, "None")
    assert out.correct is False
    assert "cause <- zeta -> effect" in out.reason


def test_real_items_minimal_sets_accepted_where_upstream_rejected_them() -> None:
    rejected_upstream = [r for r in ROWS if r["task"] == "BA"
                         and r["truth"]["upstream_grader_accepts_minimal_set"] is False]
    assert len(rejected_upstream) >= 20
    for row in rejected_upstream:
        answer = ", ".join(row["truth"]["a_minimal_valid_set"]) or "None"
        assert grade(row["prompt"], answer).correct is True


# ---- checker rejects wrong certificates ----------------------------------------------

def test_checker_rejects_a_missing_path() -> None:
    g = TaskGraph(("a", "b", "c"), frozenset({(0, 1), (1, 2), (0, 2)}))
    q = PathsQuestion(g, (0,), (2,))
    with pytest.raises(CertificateRejected):
        check_answer("CP", q, PathsAnswer(((0, 2),)))



def test_checker_rejects_wrong_values_and_cyclic_rules() -> None:
    """FI/CI: a trace step or a queried value flipped, and rules that are cyclic."""
    from dataclasses import replace

    from causal_oracle.oracle.tasks.boolean_scm import factual
    from causal_oracle.oracle.tasks.model import (
        BooleanSCM,
        FactualQuestion,
        Literal,
        Rule,
        TraceStep,
        ValuesAnswer,
    )
    scm = BooleanSCM(("a", "b", "x"), (Rule(2, (Literal(0, True), Literal(1, False))),
                                        Rule(2, (Literal(1, True),))))
    q = FactualQuestion(scm, (Literal(0, True),), (2,))
    answer = factual(q)
    check_answer("FI", q, answer)
    assert answer.values == ((2, True),)
    trace = tuple(replace(t, value=not t.value) if t.node == 1 else t for t in answer.trace)
    with pytest.raises(CertificateRejected, match="trace step for 'b'"):
        check_answer("FI", q, replace(answer, trace=trace))
    with pytest.raises(CertificateRejected, match="the value of 'x' is wrong"):
        check_answer("FI", q, replace(answer, values=((2, False),)))
    cyclic = BooleanSCM(("a", "b"), (Rule(0, (Literal(1, True),)), Rule(1, (Literal(0, True),))))
    claimed = ValuesAnswer(((0, True),), (TraceStep(0, True, "?"), TraceStep(1, True, "?")))
    with pytest.raises(CertificateRejected, match="cyclic"):
        check_answer("FI", FactualQuestion(cyclic, (), (0,)), claimed)

# ---- property tests on random small DAGs ---------------------------------------------

@st.composite
def dags(draw: st.DrawFn, max_nodes: int = 6) -> TaskGraph:
    n = draw(st.integers(2, max_nodes))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    perm = draw(st.permutations(range(n)))
    return TaskGraph(tuple(f"v{i}" for i in range(n)),
                     frozenset((perm[a], perm[b]) for a, b in chosen))


@st.composite
def graph_questions(draw: st.DrawFn) -> tuple[TaskGraph, tuple[int, ...], tuple[int, ...]]:
    g = draw(dags())
    n = len(g.names)
    k = draw(st.integers(1, min(2, n // 2)))
    nodes = draw(st.permutations(range(n)))
    return g, tuple(nodes[:k]), tuple(nodes[k:2 * k])


@settings(max_examples=150, deadline=None)
@given(graph_questions())
def test_paths_match_networkx(case: tuple[TaskGraph, tuple[int, ...], tuple[int, ...]]) -> None:
    g, causes, effects = case
    q = PathsQuestion(g, causes, effects)
    a = causal_paths(q)
    check_answer("CP", q, a)
    h = nx.DiGraph(list(g.edges))
    h.add_nodes_from(range(len(g.names)))
    expected = {tuple(p) for c in causes for e in effects for p in nx.all_simple_paths(h, c, e)}
    assert set(a.paths) == expected


@settings(max_examples=150, deadline=None)
@given(graph_questions())
def test_backdoor_minimal_sets_match_brute_force(
        case: tuple[TaskGraph, tuple[int, ...], tuple[int, ...]]) -> None:
    g, causes, effects = case
    q = BackdoorQuestion(g, causes, effects)
    a = backdoor_sets(q)
    check_answer("BA", q, a)
    n = len(g.names)
    valid = [z for r in range(n + 1) for z in map(set, itertools.combinations(range(n), r))
             if backdoor_valid(q, z)]
    minimal = {frozenset(z) for z in valid if not any(w < z for w in valid)}
    got = {frozenset(i for i in range(n) if m >> i & 1) for m in a.minimal_sets}
    assert got == minimal
    assert a.needed == (set() not in valid)
    for z in valid[:10]:
        assert check_set(q, sum(1 << i for i in z)).valid


@settings(max_examples=200, deadline=None)
@given(graph_questions(), st.integers(0, 63))
def test_the_checkers_criterion_is_networkx_d_separation(
        case: tuple[TaskGraph, tuple[int, ...], tuple[int, ...]], z: int) -> None:
    """The checker's backdoor test (a moral-graph search) against networkx's own
    d-separation on each cause's graph without its outgoing edges."""
    g, causes, effects = case
    n = len(g.names)
    z &= (1 << n) - 1
    members = {i for i in range(n) if z >> i & 1}
    h = nx.DiGraph(list(g.edges))
    h.add_nodes_from(range(n))
    expected = True
    for c in causes:
        banned = nx.descendants(h, c) | {c} | set(causes) | set(effects)
        cut = h.copy()
        cut.remove_edges_from(list(h.out_edges(c)))
        if members & banned or not nx.is_d_separator(cut, {c}, set(effects), members):
            expected = False
    assert backdoor_valid(BackdoorQuestion(g, causes, effects), members) == expected
    assert check_set(BackdoorQuestion(g, causes, effects), z).valid == expected


@settings(max_examples=150, deadline=None)
@given(graph_questions(), st.integers(0, 63))
def test_set_verdicts_match_the_checker(
        case: tuple[TaskGraph, tuple[int, ...], tuple[int, ...]], z: int) -> None:
    g, causes, effects = case
    z &= (1 << len(g.names)) - 1
    q = BackdoorQuestion(g, causes, effects)
    from causal_oracle.oracle.tasks.check import check_set_verdict
    check_set_verdict(q, z, check_set(q, z))


@st.composite
def scms(draw: st.DrawFn) -> tuple[BooleanSCM, tuple[Literal, ...], tuple[Literal, ...]]:
    g = draw(dags(max_nodes=6))
    rules = []
    for head in range(len(g.names)):
        parents = [i for i in range(len(g.names)) if g.parents[head] >> i & 1]
        if not parents:
            continue
        for _ in range(draw(st.integers(1, 2))):
            body = draw(st.lists(st.sampled_from(parents), min_size=1, unique=True))
            rules.append(Rule(head, tuple(Literal(p, draw(st.booleans())) for p in body)))
    scm = BooleanSCM(g.names, tuple(rules))
    roots = [i for i in range(len(g.names)) if scm.is_root(i)]
    observed = tuple(Literal(r, draw(st.booleans())) for r in roots)
    nodes = draw(st.lists(st.sampled_from(range(len(g.names))), unique=True, max_size=2))
    whatif = tuple(Literal(v, draw(st.booleans())) for v in nodes)
    return scm, observed, whatif


def _brute(scm: BooleanSCM, observed: tuple[Literal, ...], whatif: tuple[Literal, ...],
           node: int) -> bool:
    forced = {lit.node: lit.value for lit in whatif}
    if node in forced:
        return forced[node]
    rules = [r for r in scm.rules if r.head == node]
    if not rules:
        return {lit.node: lit.value for lit in observed}.get(node, False)
    return any(all(_brute(scm, observed, whatif, lit.node) == lit.value for lit in r.body)
               for r in rules)


@settings(max_examples=150, deadline=None)
@given(scms())
def test_boolean_evaluation_matches_brute_force(
        case: tuple[BooleanSCM, tuple[Literal, ...], tuple[Literal, ...]]) -> None:
    scm, observed, whatif = case
    queries = tuple(range(len(scm.names)))
    fq = FactualQuestion(scm, observed, queries)
    fa = factual(fq)
    check_answer("FI", fq, fa)
    assert all(v == _brute(scm, observed, (), q) for q, v in fa.values)
    cq = CounterfactualQuestion(scm, observed, queries, whatif)
    ca = counterfactual(cq)
    check_answer("CI", cq, ca)
    assert all(v == _brute(scm, observed, whatif, q) for q, v in ca.values)


def test_bundled_examples_agree() -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    for name in ("cibench_sample.jsonl", "ie_sample.jsonl"):
        for line in (examples / name).open(encoding="utf-8"):
            row = json.loads(line)
            out = audit_row(row)
            known_wrong = row.get("source") == "obs/prompts_obs_cause_3.csv" and \
                row.get("row") == "6"
            assert out["agree"] is (not known_wrong), (row, out)


def test_doctests_of_the_task_modules() -> None:
    import doctest
    import importlib

    for module in ("oracle.tasks.model", "oracle.tasks.paths", "oracle.tasks.backdoor",
                   "oracle.tasks.boolean_scm", "oracle.tasks.intervention",
                   "parser.cibench", "parser.ie", "parser.task_answers",
                   "entry.families.ie_templates"):
        result = doctest.testmod(importlib.import_module(f"causal_oracle.{module}"))
        assert result.failed == 0, module
