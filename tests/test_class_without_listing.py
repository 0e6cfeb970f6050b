"""Counting and SAT labelling agree with listing the class (and with brute force).

The listing path (``analysis.members`` + ``holds_in_members``) is the reference
for classes small enough to list; the SAT path (``oracle.sat_labels``) is what
decides larger ones.  Here both run on the same premises and must give the same
3-class label and the same binary label under every profile, and the SAT path's
certificates must pass the independent checker.
"""

from __future__ import annotations

import dataclasses
import math
import random

import pytest
from conftest import load_rows
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.oracle.bruteforce import consistent_dags
from causal_oracle.oracle.check import check
from causal_oracle.oracle.counting import class_size
from causal_oracle.oracle.dsep import independence_set
from causal_oracle.oracle.equivalence import ClassAnalysis, analyse
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.labels import ENTAILMENT, INCONSISTENT, label
from causal_oracle.oracle.meek import orient
from causal_oracle.oracle.relation_table import holds_in_members
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.sat_encoding import enumerate_members
from causal_oracle.oracle.sat_labels import ClassSolver
from causal_oracle.oracle.statements import (
    Hypothesis,
    Independence,
    Premise,
    RelationKind,
    SurfaceForm,
)
from causal_oracle.oracle.structure import derive_structure
from causal_oracle.parser import parse_hypothesis, parse_premise

#: the profiles that read a hypothesis per member (``compelled`` reads the CPDAG)
MEMBER_PROFILES = [p for p in Profile if p is not Profile.COMPELLED]
FORMS = [(RelationKind.DIRECT_CAUSE, SurfaceForm.DIRECTLY_CAUSES),
         (RelationKind.INDIRECT_CAUSE, SurfaceForm.CAUSES_SOMETHING_ELSE),
         (RelationKind.INDIRECT_CAUSE, SurfaceForm.CAUSE_NOT_DIRECT),
         (RelationKind.COMMON_EFFECT, SurfaceForm.COLLIDER_EXISTS),
         (RelationKind.COMMON_CAUSE, SurfaceForm.CONFOUNDER_EXISTS)]


def random_dag(rng: random.Random, n: int) -> Dag:
    order = list(range(n))
    rng.shuffle(order)
    density = rng.choice([0.2, 0.4, 0.6, 0.8])
    edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)
             if rng.random() < density]
    return Dag.from_edges(n, edges)


def premise_of(dag: Dag) -> Premise:
    names = tuple(f"X{i}" for i in range(dag.n))
    return Premise(names, (), tuple(Independence(*k) for k in sorted(independence_set(dag))))


def unlisted(analysis: ClassAnalysis) -> ClassAnalysis:
    """The same analysis as the SAT path sees a class too large to list."""
    return dataclasses.replace(analysis, members=(), member_edges=())


def with_members(analysis: ClassAnalysis) -> ClassAnalysis:
    """The analysis with its members listed, by SAT enumeration here when the class is
    above LIST_LIMIT (the reference the SAT path is compared with)."""
    if analysis.listed:
        return analysis
    members = tuple(sorted(enumerate_members(analysis.structure), key=lambda d: d.edges()))
    return dataclasses.replace(analysis, members=members,
                               member_edges=tuple(tuple(m.edges()) for m in members))


def assert_paths_agree(premise: Premise, pairs: int, rng: random.Random) -> None:
    analysis = analyse(premise)
    if not analysis.consistent:
        return
    analysis = with_members(analysis)
    assert analysis.listed
    n = premise.n
    assert class_size(n, analysis.cpdag_directed, analysis.cpdag_undirected) == analysis.size
    big = unlisted(analysis)
    names = premise.variables
    for _ in range(pairs):
        p, q = rng.sample(range(n), 2)
        kind, form = rng.choice(FORMS)
        hypothesis = Hypothesis(kind, names[p], names[q], form)
        for profile in MEMBER_PROFILES:
            listed = label(analysis, hypothesis, profile)
            by_sat = label(big, hypothesis, profile)
            assert by_sat.relation == listed.relation, (premise, hypothesis, profile)
            assert by_sat.labels_by_profile == listed.labels_by_profile
            assert by_sat.holds_in is None and by_sat.class_size == listed.class_size
            result = check(premise, hypothesis, by_sat.certificate)
            assert result.ok, result.reason


@settings(max_examples=200, deadline=None)
@given(st.integers(5, 7), st.integers(0, 2**32 - 1))
def test_sat_path_equals_listing_path(n: int, seed: int) -> None:
    rng = random.Random(seed)
    assert_paths_agree(premise_of(random_dag(rng, n)), 2, rng)


@pytest.mark.slow
def test_sat_path_equals_listing_path_on_1000_premises_5_to_9_variables() -> None:
    rng = random.Random(9)
    done = 0
    while done < 1000:
        n = rng.randint(5, 9)
        premise = premise_of(random_dag(rng, n))
        if analyse(premise).size > 5000:
            continue  # listing is the slow reference; keep the test minutes, not hours
        assert_paths_agree(premise, 3, rng)
        done += 1


def _first_row_of_each_premise(rows: list[dict]) -> list[dict]:
    seen: set[str] = set()
    out = []
    for row in rows:
        if row["premise"] not in seen:
            seen.add(row["premise"])
            out.append(row)
    return out


@pytest.mark.parametrize("name", ["n2", "n3", "n4", "n5_sample", "n6_sample"])
def test_sat_path_equals_listing_path_on_test_data(name: str) -> None:
    """Every premise in tests/data (all rows of n ≤ 4, the first row of each premise of
    the samples), under every member profile."""
    rows = load_rows(name)
    for row in rows if name in ("n2", "n3", "n4") else _first_row_of_each_premise(rows):
        premise = parse_premise(row["premise"])
        hypothesis = parse_hypothesis(row["hypothesis"])
        analysis = analyse(premise)
        for profile in MEMBER_PROFILES:
            listed = label(analysis, hypothesis, profile)
            if not analysis.consistent:
                assert listed.relation == INCONSISTENT
                continue
            by_sat = label(unlisted(analysis), hypothesis, profile)
            assert (by_sat.relation, by_sat.labels_by_profile) == \
                (listed.relation, listed.labels_by_profile)
            assert check(premise, hypothesis, by_sat.certificate).ok


@settings(max_examples=120, deadline=None)
@given(st.integers(3, 4), st.integers(0, 2**32 - 1))
def test_count_equals_listing_equals_brute_force(n: int, seed: int) -> None:
    _count_agrees(n, seed)


@pytest.mark.slow
def test_count_equals_brute_force_on_five_nodes() -> None:
    for seed in range(300):
        _count_agrees(5, seed)


def _count_agrees(n: int, seed: int) -> None:
    dag = random_dag(random.Random(seed), n)
    structure = derive_structure(premise_of(dag))
    cpdag = orient(structure)
    brute = list(consistent_dags(n, independence_set(dag)))
    assert class_size(n, cpdag.directed, cpdag.undirected) == len(brute)
    assert analyse(premise_of(dag)).size == len(brute)


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 7), st.integers(0, 2**32 - 1))
def test_solver_models_are_members_and_relations_match(n: int, seed: int) -> None:
    """Every member the solver returns under an assumption is in the class and really
    makes the relation hold / fail (the encoding's reachability is exact)."""
    rng = random.Random(seed)
    premise = premise_of(random_dag(rng, n))
    analysis = with_members(analyse(premise))  # a complete 7-variable class is not listed
    members = set(analysis.members)
    solver = ClassSolver(analysis.structure)
    for _ in range(4):
        p, q = rng.sample(range(n), 2)
        kind, form = rng.choice(FORMS)
        profile = rng.choice(MEMBER_PROFILES)
        yes, no = solver.decide(kind, form, p, q, profile)
        for dag, want in ((yes, True), (no, False)):
            if dag is not None:
                assert dag in members
                assert holds_in_members((dag,), kind, form, p, q, profile) == [want]
        truth = holds_in_members(analysis.members, kind, form, p, q, profile)
        assert (yes is not None) == any(truth) and (no is not None) == (not all(truth))
    solver.close()


def complete_premise(n: int) -> str:
    names = [chr(ord("A") + i) for i in range(n)]
    corr = " ".join(f"{a} correlates with {b}." for i, a in enumerate(names)
                    for b in names[i + 1:])
    return (f"Suppose there is a closed system of {n} variables, {', '.join(names[:-1])} and "
            f"{names[-1]}. All the statistical relations among these {n} variables are as "
            f"follows: {corr}")


@pytest.mark.parametrize("n", [8, 12])
def test_complete_premise_is_counted_and_decided(n: int) -> None:
    premise = parse_premise(complete_premise(n))
    analysis = analyse(premise)
    assert analysis.size == math.factorial(n) and not analysis.listed
    for text in ["A directly causes B.", "A causes something else which causes B.",
                 "There exists at least one collider (i.e., common effect) of A and B.",
                 "Some variable(s) cause(s) both A and B."]:
        hypothesis = parse_hypothesis(text)
        verdict = label(analysis, hypothesis)
        assert verdict.relation == "neutral" and verdict.holds_in is None
        assert check(premise, hypothesis, verdict.certificate).ok


def test_large_class_entailment_is_certified_by_the_checker() -> None:
    """Every variable but A, B correlates with all; A ⊥ B makes each other node a
    collider of A and B: 'A directly causes C' is entailed in a class of 10! members."""
    names = [f"V{i}" for i in range(12)]
    corr = " ".join(f"{a} correlates with {b}." for i, a in enumerate(names)
                    for b in names[i + 1:] if (a, b) != ("V0", "V1"))
    premise = parse_premise(
        f"Suppose there is a closed system of 12 variables, {', '.join(names[:-1])} and V11. "
        f"All the statistical relations among these 12 variables are as follows: {corr} "
        f"However, V0 is independent of V1.")
    analysis = analyse(premise)
    assert analysis.size == math.factorial(10) and not analysis.listed
    for text, want in [("V0 directly causes V2.", ENTAILMENT),
                       ("V2 directly causes V0.", "contradiction"),
                       ("V0 and V1 together cause some other variable(s).", ENTAILMENT),
                       ("V2 directly causes V3.", "neutral")]:
        hypothesis = parse_hypothesis(text)
        verdict = label(analysis, hypothesis)
        assert verdict.relation == want
        assert check(premise, hypothesis, verdict.certificate).ok
        # a tampered verdict is refused by the checker's own solver
        if want == ENTAILMENT:
            forged = dataclasses.replace(verdict.certificate, verdict="contradiction",
                                         witnesses=(None,))
            assert not check(premise, hypothesis, forged).ok


def test_conflicting_colliders_on_eight_variables_is_a_clean_inconsistency() -> None:
    premise = parse_premise(
        "Suppose there is a closed system of 8 variables, A, B, C, D, E, F, G and H. All the "
        "statistical relations among these 8 variables are as follows: A is independent of "
        "C. B is independent of D. A is independent of D.")
    hypothesis = parse_hypothesis("A directly causes B.")
    verdict = label(analyse(premise), hypothesis)
    assert verdict.relation == INCONSISTENT
    assert verdict.certificate.conflict is not None
    assert verdict.certificate.conflict.kind == "colliders"
    assert check(premise, hypothesis, verdict.certificate).ok


def test_cli_budget_stops_a_slow_premise_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from causal_oracle.clients import cli

    names = [f"V{i}" for i in range(20)]
    corr = " ".join(f"{a} correlates with {b}." for i, a in enumerate(names)
                    for b in names[i + 1:] if (a, b) != ("V0", "V1"))
    premise = (f"Suppose there is a closed system of 20 variables, {', '.join(names[:-1])} and "
               f"V19. All the statistical relations among these 20 variables are as follows: "
               f"{corr} However, V0 is independent of V1.")
    code = cli.main(["verify", "--budget", "0.2", "--premise", premise,
                     "--hypothesis", "V0 directly causes V2."])
    assert code == 2
    assert "budget exceeded" in capsys.readouterr().err
    code = cli.main(["verify", "--budget", "60", "--premise", complete_premise(8),
                     "--hypothesis", "A directly causes B."])
    assert code == 0
    out = capsys.readouterr().out
    assert "class size: 40320" in out and "neutral" in out


@settings(max_examples=120, deadline=None)
@given(st.integers(2, 7), st.integers(0, 2**32 - 1))
def test_extensions_of_the_cpdag_are_the_sat_members(n: int, seed: int) -> None:
    """The orientation search over the CPDAG (``oracle.extensions``) lists exactly the
    DAGs the SAT encoding enumerates, each once, and as many as Clique-Picking counts."""
    from causal_oracle.oracle.extensions import extensions

    structure = derive_structure(premise_of(random_dag(random.Random(seed), n)))
    cpdag = orient(structure)
    listed = list(extensions(n, cpdag.directed, cpdag.undirected))
    assert len(set(listed)) == len(listed)
    assert set(listed) == set(enumerate_members(structure))
    assert len(listed) == class_size(n, cpdag.directed, cpdag.undirected)
