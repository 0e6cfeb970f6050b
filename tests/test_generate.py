"""The reference generator: every class up to relabelling, upstream wording, oracle labels."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from causal_oracle.clients.audit import run_audit
from causal_oracle.clients.cli import main
from causal_oracle.clients.generate import write
from causal_oracle.entry import default
from causal_oracle.entry.canonical import canonical, mec_key
from causal_oracle.entry.families.corr2cause_generator_reference import (
    Options,
    all_classes,
    compare,
    premise_text,
)
from causal_oracle.oracle.graph import Dag

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(("n", "classes"), [(2, 2), (3, 5), (4, 20)])
def test_class_counts_match_upstream(n: int, classes: int) -> None:
    assert len(all_classes(n)) == classes


def test_canonical_form_is_invariant_under_relabelling() -> None:
    dag = Dag.from_edges(4, [(0, 2), (1, 2), (2, 3)])
    moved = Dag.from_edges(4, [(3, 1), (0, 1), (1, 2)])  # the same shape, other names
    chain = Dag.from_edges(4, [(0, 1), (1, 2), (2, 3)])
    def form(d: Dag) -> object:
        found = canonical(4, mec_key(d))
        assert found is not None
        return found[0]

    assert form(dag) == form(moved)
    assert form(dag) != form(chain)
    assert canonical(4, mec_key(Dag.from_edges(4, [])), limit=23) is None  # 4! relabellings
    # Markov-equivalent DAGs share their key: a chain and its reversal
    assert mec_key(chain) == mec_key(Dag.from_edges(4, [(1, 0), (2, 1), (3, 2)]))


def test_premise_wording_is_upstreams() -> None:
    collider = Dag.from_edges(3, [(0, 2), (1, 2)])
    assert premise_text(collider, ("A", "B", "C")) == (
        "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
        "relations among these 3 variables are as follows: A correlates with C. B correlates "
        "with C. However, A is independent of B.")
    upstream = {json.loads(line)["premise"] for line in (DATA / "n3.jsonl").open()}
    generated = {premise_text(d, ("A", "B", "C")) for d in all_classes(3)}
    assert len(generated & upstream) >= 3  # the rest differ only by the names chosen


@pytest.mark.parametrize("n", [3, 4])
def test_generated_premises_equal_upstream_up_to_renaming(tmp_path: Path, n: int) -> None:
    out = tmp_path / f"g{n}.jsonl"
    stats = write(Options(n), out)
    assert stats["items"] == {3: 90, 4: 720}[n]
    c = compare(out, DATA / f"n{n}.jsonl", default())
    assert c["shared"] == c["upstream_classes"] == stats["classes"]
    assert c["only_upstream"] == [] and c["only_generated"] == 0
    report = run_audit(out)
    assert report.summary.disagree == 0 and report.three_class["disagree"] == 0
    assert report.summary.inconsistent == 0 and report.summary.unreadable == 0


@pytest.mark.slow
def test_generate_n5_audits_clean_and_covers_upstream(tmp_path: Path) -> None:
    out = tmp_path / "g5.jsonl"
    assert main(["generate", "--n", "5", "--out", str(out)]) == 0
    assert main(["audit", str(out), "--quiet", "--fail-on",
                 "disagree,inconsistent,unreadable"]) == 0
    c = compare(out, DATA / "n5_sample.jsonl", default())
    assert c["generated_premises"] == 142 and c["only_upstream"] == []


def test_formats_certificates_renaming_and_paraphrase(tmp_path: Path) -> None:
    out = tmp_path / "g.csv"
    assert main(["generate", "--n", "3", "--out", str(out), "--format", "published"]) == 0
    with out.open(newline="") as h:
        rows = list(csv.DictReader(h))
    assert len(rows) == 90 and rows[0]["input"].startswith("Premise: Suppose")
    assert main(["audit", str(out), "--quiet", "--fail-on", "disagree"]) == 0
    out = tmp_path / "z.jsonl"
    assert main(["generate", "--n", "3", "--out", str(out), "--certificates", "--rename",
                 "--paraphrase"]) == 0
    rows = [json.loads(line) for line in out.open()]
    assert "Z, Y and X" in rows[0]["premise"]
    assert rows[0]["certificate"]["verdict"] == rows[0]["relation"]
    assert any("through some mediator(s)" in r["hypothesis"] for r in rows)
    assert main(["audit", str(out), "--quiet", "--fail-on", "disagree,inconsistent"]) == 0


def test_sampled_sizes_are_seeded(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        assert main(["generate", "--n", "7", "--classes", "2", "--seed", "3", "--out",
                     str(path)]) == 0
    assert a.read_text() == b.read_text() and len(a.read_text().splitlines()) == 2 * 21 * 6
    assert main(["generate", "--n", "13", "--out", str(a)]) == 2
    with pytest.raises(SystemExit):
        main(["generate", "--n", "3", "--out", str(a), "--format", "xml"])


def test_generate_finds_its_reference_dataset_through_the_registry() -> None:
    """The verb names no family: the reference dataset is the one the
    ``causal_corr2cause`` generator carries (``Generator.reference``), and only it."""
    from causal_oracle.clients.generate import DATASET, reference
    from causal_oracle.entry import REGISTRY
    from causal_oracle.entry.families import corr2cause_generator_reference as module

    assert reference() is REGISTRY.generator(DATASET).reference is module.REFERENCE
    assert reference().options is Options and reference().max_n == module.MAX_SAMPLED
    others = [g.dataset for f in REGISTRY for g in f.generators() if g.reference is not None]
    assert others == [DATASET]
    key = reference().keys(default())
    row = next(reference().items(Options(3), default()))
    assert key(row["premise"], row["hypothesis"]).startswith("c2c")
