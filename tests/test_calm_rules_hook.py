"""The benchmark's own rule as a second grade: ``Family.benchmark_rule`` and its column.

``entry.families.calm_rules`` is CaLM's implementation of the hook (what the CaLM family
takes on); ``grade FILE`` shows the hook's verdict beside the certified grade for any
family that has one, and nothing new for the families that have none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from causal_oracle import entry
from causal_oracle.clients.grade_file import grade_file, summary_table
from causal_oracle.entry import REGISTRY, InputError, Item
from causal_oracle.entry.audit_record import Outcome
from causal_oracle.entry.families.calm_rules import CalmBenchmarkRule, calm_benchmark_rule
from causal_oracle.parser.calm_rules import CalmReading, calm_correct, calm_task

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
#: CaLM's Lite sample as copied into tests/data (the shared folder when a checkout lacks it)
CALM = next((p for p in (HERE / "data" / "calm" / "lite_sample",
                         *(q / "shared" / "data" / "calm" / "lite_sample" for q in HERE.parents))
             if p.is_dir()), None)
#: the CLadder-derived tasks' sample: its own folder in tests/data (the shared Lite folder
#: holds every task)
CLADDER_LITE = HERE / "data" / "calm_cladder" / "lite_sample"
if CALM is not None and CALM.parent.parent != HERE / "data":
    CLADDER_LITE = CALM  # the shared folder: already among CALM's files


def _item(name: str, record: dict[str, Any], **extra: Any) -> Item:
    return Item("calm", name, prompt="", gold=record.get("gt_answer"),
                raw={**record, **extra})


@pytest.mark.skipif(CALM is None, reason="the CaLM sample is not in this checkout")
def test_the_calm_hook_is_calms_rule_on_every_sample_record() -> None:
    assert CALM is not None
    checked = 0
    files = sorted({p for folder in (CALM, CLADDER_LITE) if folder.is_dir()
                    for p in folder.glob("*.json")})
    for path in files:
        record = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        for reply in ("Yes", "否", "Option 2", "选项三", '{"answer": "yes"}',
                      '{"PROB": "0.0995"}', "junk"):
            expected = calm_correct(path.stem, record, reply)
            assert calm_benchmark_rule(_item(path.stem, record), reply) is expected
            # the task may also come from the row's own column
            assert calm_benchmark_rule(_item("calm", record, task=path.stem), reply) \
                is expected
            checked += 1
    assert checked == 7 * len(files) and len(files) >= 62  # every formal task file, EN and CN


def test_the_hook_reads_the_prompt_style_from_the_row() -> None:
    record = {"gt_answer": 0.25}
    reply = 'Steps... {"prob": "0.25"} then {"answer": "yes"}'
    task = "ATE-P_ATE-basic_EN"
    assert calm_benchmark_rule(_item(task, record), reply) is True
    # under a chain-of-thought style CaLM reads only {"answer": ...} objects
    assert calm_benchmark_rule(_item(task, record, prompt_style="manual-CoT"), reply) is False


def test_no_rule_for_rows_that_are_not_formal_calm_items() -> None:
    assert calm_benchmark_rule(_item("ECI-B_CTB_EN", {"gt_answer": 1}), "yes") is None
    assert calm_benchmark_rule(_item("AR-B_CaLM-AR_EN", {}), "yes") is None
    assert calm_benchmark_rule(_item("FAS-C_FAS_EN", {"gt_answer": 1}), "Option 1") is None
    assert CalmBenchmarkRule().benchmark_rule(_item("CA-B_FP_EN", {"gt_answer": 0}), "No")


def test_a_family_has_no_rule_unless_it_says_so() -> None:
    item = Item("corr2cause", "corr2cause", prompt="")
    assert all(family.benchmark_rule(item, "yes") is None for family in REGISTRY
               if not isinstance(family, CalmBenchmarkRule))


def _rows(tmp_path: Path) -> Path:
    lines = EXAMPLES.joinpath("corr2cause_sample.jsonl").read_text("utf-8").splitlines()[:8]
    rows = [{**json.loads(line), "response": reply}
            for line, reply in zip(lines, ["yes", "no"] * 4, strict=True)]
    path = tmp_path / "replies.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_grade_file_shows_the_rule_beside_the_certified_grade(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _rows(tmp_path)
    plain = grade_file(path)
    assert plain.summary.benchmark_rule_rows == 0
    assert plain.summary.accuracy_benchmark_rule is None
    assert "acc.rule" not in summary_table(plain)
    assert all(r.benchmark_rule is None for r in plain.rows)

    family = REGISTRY.get("corr2cause")
    seen: list[tuple[str, str]] = []

    def rule(item: Item, reply: str) -> bool | None:
        seen.append((item.family, reply))
        return reply == "yes" if item.raw.get("label") == 1 else reply == "no"

    monkeypatch.setattr(family, "benchmark_rule", rule)
    ruled = grade_file(path)
    assert len(seen) == 8 and {f for f, _ in seen} == {"corr2cause"}
    expected = [rule(Item("corr2cause", "corr2cause", "", raw=json.loads(line)), reply)
                for line, reply in zip(path.read_text("utf-8").splitlines(),
                                       ["yes", "no"] * 4, strict=True)]
    assert [r.benchmark_rule for r in ruled.rows] == expected
    assert ruled.summary.benchmark_rule_rows == 8
    assert ruled.summary.correct_benchmark_rule == sum(expected)
    report = ruled.to_json()
    assert report["summary"]["accuracy_benchmark_rule"] == round(sum(expected) / 8, 4)
    assert [r["benchmark_rule"] for r in report["records"]] == expected
    table = summary_table(ruled)
    assert "acc.rule" in table and "acc.rule: the rows whose benchmark" in table
    # the certified grade is untouched by the rule
    assert [r.grade for r in ruled.rows] == [r.grade for r in plain.rows]


# ---- the CaLM family: both grades side by side on the shared sample -------------------------

def _gold_reply(name: str, gold: Any) -> str:
    """The gold as a model completes CaLM's basic prompt, in the form the task asks for."""
    cn = name.endswith("_CN")
    reading = calm_task(name).reading
    if reading is CalmReading.OPTION:
        return f"选项{'一二三'[int(gold) - 1]}" if cn else f"Option {gold}"
    if reading is CalmReading.JSON_ANSWER:
        return f'{{"answer": "{gold}"}}'
    if reading is CalmReading.JSON_PROB:
        return f'{{"ANSWER": "Yes", "PROB": "{float(gold):.4f}"}}'
    yes = gold in (1, "yes")
    return ("是" if yes else "否") if cn else ("Yes" if yes else "No")


def _calm_rows() -> list[tuple[str, dict[str, Any]]]:
    if CALM is None:
        return []
    return [(p.stem, json.loads(line)) for p in sorted(CALM.glob("*.json"))
            for line in p.read_text(encoding="utf-8").splitlines()]


@pytest.mark.skipif(CALM is None, reason="the CaLM sample is not in this checkout")
def test_gold_replies_are_right_by_both_grades_on_every_task_the_family_reads(
        tmp_path: Path) -> None:
    import causal_oracle as co
    if "calm" not in REGISTRY:
        pytest.skip("the CaLM family is not registered")
    family = REGISTRY.get("calm")
    rows, served = [], set()
    for name, record in _calm_rows():
        try:
            item = family.row({**record, "task": name})
        except InputError:
            continue
        if item is None:
            continue
        served.add(name)
        reply = _gold_reply(name, record["gt_answer"])
        certified = co.grade(item.prompt, reply, item.task)
        # a prompt that cannot decide its question (CaLM renders CN CLadder-derived items
        # without their graph) is not graded; a gold reply is never graded wrong
        if certified.gradable and not certified.correct:
            # a gold label the oracle disagrees with is an audit finding, with its cause
            found = entry.default().audit_record(item, 1)
            assert found.outcome is Outcome.DISAGREE and found.causes, (name, record["index"])
            continue
        assert family.benchmark_rule(item, reply) is True, (name, record["index"])
        assert calm_correct(name, record, reply) is True
        if certified.gradable:
            rows.append({**record, "task": name, "response": reply})
    assert len(served) >= 2 * 12  # the graph tasks at least, in both languages
    path = tmp_path / "calm_gold.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    graded = grade_file(path)
    assert graded.summary.accuracy == 1.0 and graded.summary.accuracy_benchmark_rule == 1.0
    assert graded.summary.benchmark_rule_rows == len(rows)
    assert "acc.rule" in summary_table(graded)
