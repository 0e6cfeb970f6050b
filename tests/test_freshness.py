"""Item keys survive renaming; generated training data keeps published items out.

Renamings of one item share a key (the upstream Z, Y, X… renaming, the paraphrased
templates, a random permutation of the names), different questions do not, and
``generate --exclude`` of the shared samples writes no item whose key they hold.
"""

from __future__ import annotations

import doctest
import itertools
import json
import random
import re
from pathlib import Path

from conftest import DATA, load_rows

from causal_oracle.clients.cli import main
from causal_oracle.entry import default, freshness
from causal_oracle.entry.families import corr2cause_generator_keys
from causal_oracle.entry.families.corr2cause_generator_keys import SYMMETRIC, ItemKeys
from causal_oracle.entry.freshness import split_of

KEYS = ItemKeys(default())


def _key(row: dict) -> str:
    return KEYS.key(row["premise"], row["hypothesis"])


def test_doctests() -> None:
    for module in (freshness, corr2cause_generator_keys):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


def _orbit(row: dict) -> tuple:
    """An independent key: the smallest (statements, relation, pair) over every
    permutation of the variables (brute force; no canonical form)."""
    premise = default().pairs().premise_of(row["premise"])
    hyp = default().pairs().hypothesis_of(row["hypothesis"])
    index = {name: i for i, name in enumerate(premise.variables)}

    def moved(key: tuple[int, int, int], perm: tuple[int, ...]) -> tuple[int, int, int]:
        x, y, given = key
        mask = sum(1 << perm[i] for i in range(premise.n) if given >> i & 1)
        return min(perm[x], perm[y]), max(perm[x], perm[y]), mask

    best = None
    for perm in itertools.permutations(range(premise.n)):
        pair = (perm[index[hyp.first]], perm[index[hyp.second]])
        if hyp.kind in SYMMETRIC:
            pair = tuple(sorted(pair))
        form = (tuple(sorted(moved(s.key, perm) for s in premise.independences)),
                hyp.kind.value, pair)
        best = form if best is None or form < best else best
    return best


def test_keys_name_exactly_the_questions_equal_up_to_renaming() -> None:
    rows = load_rows("n4")
    ours: dict[str, set[str]] = {}
    brute: dict[tuple, set[str]] = {}
    for r in rows:
        ours.setdefault(_key(r), set()).add(r["id"])
        brute.setdefault(_orbit(r), set()).add(r["id"])
    assert sorted(map(sorted, ours.values())) == sorted(map(sorted, brute.values()))
    assert len(ours) == 348  # of 720 items: symmetric classes ask some questions twice


def test_renamings_and_paraphrases_share_a_key() -> None:
    original, renamed, paraphrased = (load_rows(n) for n in ("n4", "n4_fromZ", "n4_paraph"))
    by_id = {r["id"]: _key(r) for r in original}
    for rows in (renamed, paraphrased):
        assert all(_key(r) == by_id[r["id"]] for r in rows)


def test_a_random_renaming_shares_the_key() -> None:
    rng = random.Random(7)
    for row in load_rows("n5_sample")[:60]:
        names = "ABCDE"
        new = rng.sample("PQRSTUVWXYZ", 5)
        mapping = dict(zip(names, new, strict=True))

        def rename(text: str, mapping: dict[str, str] = mapping) -> str:
            return re.sub(r"\b([A-E])\b", lambda m: mapping[m.group(1)], text)

        assert KEYS.key(rename(row["premise"]), rename(row["hypothesis"])) == _key(row)


def test_different_questions_have_different_keys() -> None:
    rows = load_rows("n3")
    premise = rows[0]["premise"]
    asked = {_key(r) for r in rows if r["premise"] == premise}
    relations = {(r["hypothesis"]) for r in rows if r["premise"] == premise}
    assert len(asked) > 1 and len(asked) <= len(relations)
    assert split_of("c2c:x") in ("train", "test")
    share = sum(split_of(f"k{i}") == "test" for i in range(2000)) / 2000
    assert 0.07 < share < 0.13


def test_generate_excludes_the_shared_samples(tmp_path: Path) -> None:
    out = tmp_path / "train.jsonl"
    sample = DATA / "n5_sample.jsonl"
    assert main(["generate", "--n", "5", "--out", str(out), "--exclude", str(sample),
                 "--provenance"]) == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    excluded = {_key(r) for r in load_rows("n5_sample")}
    keys = {r["key"] for r in written}
    assert written and not keys & excluded
    assert all(r["key"] == _key(r) for r in written[:200])
    assert len(written) == 8520 - sum(1 for _ in _generated_keys(excluded))
    row = written[0]
    assert row["generator"].startswith("causal-oracle") and row["seed"] == 0
    assert len(row["certificate_digest"]) == 64 and row["split"] in ("train", "test")


def _generated_keys(excluded: set[str]) -> list[str]:
    """The keys of the whole n = 5 space that the excluded set holds (with repeats)."""
    from causal_oracle.entry.families.corr2cause_generator_reference import Options, items

    return [k for k in (r["key"] for r in items(Options(5, provenance=True), default()))
            if k in excluded]


def test_generate_split_sides_partition_the_items(tmp_path: Path) -> None:
    sides = {}
    for side in ("train", "test"):
        out = tmp_path / f"{side}.jsonl"
        assert main(["generate", "--n", "4", "--out", str(out), "--split", side,
                     "--provenance"]) == 0
        sides[side] = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(sides["train"]) + len(sides["test"]) == 720
    assert {r["split"] for r in sides["test"]} == {"test"}
    assert not {r["key"] for r in sides["train"]} & {r["key"] for r in sides["test"]}
