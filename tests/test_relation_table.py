"""Relation tables: the solver's array table, the checker's own table, and the bulk
labels read off them (``Service.label_fast``) against the per-item path.

* every reading of ``oracle.relation_table`` equals ``relations.holds_reading`` on
  every member and ordered pair of random classes (also in the per-member fallback
  used above ``DENSE_LIMIT``);
* the checker's table (``oracle.check_table``) gives the solver's verdict and count
  for every relation, form, profile and pair, and refuses a member list that is not
  the class;
* ``label_fast`` equals ``verify`` on every item of the Corr2Cause files it answers,
  and an audit report is the same with and without the table path.
"""

from __future__ import annotations

import json
import random
from itertools import product
from pathlib import Path

import pytest
from conftest import load_rows
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_class_without_listing import FORMS, MEMBER_PROFILES, premise_of, random_dag

from causal_oracle.clients import audit
from causal_oracle.entry import REGISTRY, Limits, Service
from causal_oracle.oracle import check_table, relation_table
from causal_oracle.oracle.check_table import ClassCheck
from causal_oracle.oracle.equivalence import analyse
from causal_oracle.oracle.relation_table import RelationTable
from causal_oracle.oracle.relations import Reading, holds_reading, reading
from causal_oracle.oracle.statements import RelationKind, SurfaceForm

#: every (kind, form) the templates produce, Corr2Cause++'s literal forms included
ALL_FORMS = [*FORMS, (RelationKind.INDIRECT_CAUSE, SurfaceForm.MEDIATORS_NOT_DIRECTLY),
             (RelationKind.COMMON_EFFECT, SurfaceForm.COLLIDER_COMMON_CHILD),
             (RelationKind.COMMON_CAUSE, SurfaceForm.CONFOUNDER_COMMON_PARENT)]


def _table_equals_definition(table: RelationTable) -> None:
    n = table.n
    for r in Reading:
        truth = table.truth(r)
        for m, dag in enumerate(table.members):
            for p, q in product(range(n), repeat=2):
                if p != q:
                    assert bool(truth[m, p, q]) == holds_reading(dag, r, p, q), (r, m, p, q)
        for p, q in product(range(n), repeat=2):
            assert table.column(r, p, q) == [holds_reading(d, r, p, q) for d in table.members]


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 7), st.integers(0, 2**32 - 1))
def test_table_equals_the_definition_on_every_member_and_pair(n: int, seed: int) -> None:
    analysis = analyse(premise_of(random_dag(random.Random(seed), n)))
    _table_equals_definition(RelationTable(n, analysis.members))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_table_of_unrelated_dags_equals_the_definition(n: int, size: int, seed: int
                                                       ) -> None:
    """Any DAGs, not only one class's members (different skeletons, isolated nodes, up
    to 9 variables: bit-mask rows wider than a byte), and the counts of all nine
    readings at once equal the sums of their columns."""
    rng = random.Random(seed)
    table = RelationTable(n, [random_dag(rng, n) for _ in range(size)])
    _table_equals_definition(table)
    for r in Reading:
        counts = table.counts(r)
        for p, q in product(range(n), repeat=2):
            if p != q:
                assert counts[p][q] == sum(table.column(r, p, q)) == table.count(r, p, q)


def test_table_above_the_dense_limit_evaluates_per_member(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(relation_table, "DENSE_LIMIT", 0)
    rng = random.Random(7)
    for n in (4, 5, 6):
        analysis = analyse(premise_of(random_dag(rng, n)))
        table = RelationTable(n, analysis.members)
        assert not table.dense
        _table_equals_definition(table)


@settings(max_examples=80, deadline=None)
@given(st.integers(3, 7), st.integers(0, 2**32 - 1))
def test_checker_table_gives_the_solver_verdict_everywhere(n: int, seed: int) -> None:
    premise = premise_of(random_dag(random.Random(seed), n))
    analysis = analyse(premise)
    # classes above LIST_LIMIT (e.g. a complete 7-variable DAG: 5,040 members) are
    # not listed; the service never builds tables for them, and neither does this test
    assume(analysis.listed)
    solver = RelationTable(n, analysis.members)
    checker = ClassCheck.verify(premise, analysis.member_edges)
    assert isinstance(checker, ClassCheck)
    for (kind, form), profile in product(ALL_FORMS, MEMBER_PROFILES):
        for p, q in product(range(n), repeat=2):
            if p == q:
                continue
            k = solver.count(reading(kind, form, profile), p, q)
            want = ("entailment" if k == solver.size else "contradiction" if k == 0
                    else "neutral")
            assert checker.label(kind.value, form.value, profile.value, p, q) == (want, k)


CHECKER_NAMES = ("edge", "indirect", "ancestor_not_parent", "common_child", "common_parent",
                 "common_descendant", "common_ancestor", "disjoint_effect", "disjoint_cause")


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_checker_packed_rows_equal_its_arrays(n: int, size: int, seed: int) -> None:
    """The checker's closures on bit-mask rows (n ≤ ``PACKED_LIMIT``: the reach and the
    disjoint relations) equal its Warshall and four-index arrays, on any DAGs, and every
    relation's counts are the same either way."""
    rng = random.Random(seed)
    members = [random_dag(rng, n).parents for _ in range(size)]
    packed = ClassCheck(n, members)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(check_table, "PACKED_LIMIT", 0)
        arrays = ClassCheck(n, members)
        wanted = {name: arrays.counts(name) for name in CHECKER_NAMES}
        assert arrays._rows is None  # the array path throughout
    assert packed._reach.tolist() == check_table._warshall(packed._edge).tolist()
    for name in CHECKER_NAMES:
        assert packed.counts(name) == wanted[name], name
    for name in ("disjoint_cause", "disjoint_effect"):
        assert packed._disjoint_packed(name).tolist() == arrays._disjoint_arrays(name).tolist()


def test_checker_table_refuses_a_member_list_that_is_not_the_class() -> None:
    rng = random.Random(3)
    for _ in range(50):
        premise = premise_of(random_dag(rng, 5))
        analysis = analyse(premise)
        if analysis.size > 1:
            break
    members = analysis.member_edges
    assert isinstance(ClassCheck.verify(premise, members), ClassCheck)
    assert isinstance(ClassCheck.verify(premise, members[:-1]), str)  # one missing
    assert isinstance(ClassCheck.verify(premise, members + members[:1]), str)  # twice
    stranger = ((0, 1), (1, 2), (2, 3), (3, 4), (0, 4))
    assert isinstance(ClassCheck.verify(premise, (stranger, *members[1:])), str)


@pytest.mark.parametrize("name", ["n3", "n4", "n4_paraph", "n5_sample", "n6_sample"])
def test_label_fast_equals_verify_on_every_item(name: str) -> None:
    service = Service(Limits(budget_s=None))
    answered = 0
    for profile in MEMBER_PROFILES:
        for row in load_rows(name):
            fast = service.pairs().label_fast(row["premise"], row["hypothesis"], profile)
            full = service.verify(row["premise"], row["hypothesis"], profile)
            if fast is None:
                continue
            answered += 1
            assert (fast.relation, fast.label, fast.holds_in, fast.class_size,
                    fast.ambiguous, fast.kind, fast.num_nodes) == (
                full.relation, full.label, full.holds_in, full.class_size, full.ambiguous,
                full.hypothesis.kind, full.premise.n), row["id"]
    if name in ("n3", "n4", "n4_paraph"):  # items grouped by premise: all but the first
        premises = len({row["premise"] for row in load_rows(name)})
        assert answered >= len(MEMBER_PROFILES) * (len(load_rows(name)) - premises) - 8


@pytest.mark.parametrize("name", ["n4.jsonl", "n5_sample.jsonl", "hf_layout_sample.csv"])
def test_audit_report_is_the_same_without_tables(name: str, data_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = data_dir / name
    fast = audit.run_audit(path).to_json()
    monkeypatch.setattr(type(REGISTRY.pair_family()), "quick_profiles", frozenset())
    slow = audit.run_audit(path).to_json()
    for report in (fast, slow):
        report.pop("seconds")
    assert json.dumps(fast, sort_keys=True) == json.dumps(slow, sort_keys=True)


def test_label_fast_leaves_hard_items_to_verify() -> None:
    service = Service(Limits(budget_s=None))
    rows = load_rows("n4")
    premise = rows[0]["premise"]
    assert service.pairs().label_fast(premise, rows[0]["hypothesis"]) is None  # first sight
    assert service.pairs().label_fast(premise, rows[1]["hypothesis"]) is not None
    assert service.pairs().label_fast(premise, "Z directly causes A.") is None  # not a variable
    assert service.pairs().label_fast(premise, "A directly causes A.") is None
    assert service.pairs().label_fast(premise, "nonsense") is None  # verify reports the error
    inconsistent = next(r for r in load_rows("n6_sample")
                        if service.verify(r["premise"], r["hypothesis"]).relation
                        == "inconsistent")
    for _ in range(2):
        assert service.pairs().label_fast(inconsistent["premise"],
                                          inconsistent["hypothesis"]) is None
