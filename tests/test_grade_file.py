"""``causal-oracle grade FILE`` and ``co.grade_file``: the answers people already have.

The tests build a file of prompt/response rows mixing every family (questions from the
samples under ``tests/data`` and ``examples/``; replies: the oracle's answers, flipped
answers, the gold, junk) and check that the CLI's summary is the one a loop over
``co.grade`` computes, in every layout the readers take.
"""

from __future__ import annotations

import csv
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

import causal_oracle as co
from causal_oracle.clients.cli import main
from causal_oracle.entry import default
from causal_oracle.entry.families.cladder import load_models

TESTS = Path(__file__).parent
DATA = TESTS / "data"
EXAMPLES = TESTS.parent / "examples"
JUNK = ("I cannot tell.", "@@@", "", "Let me think step by step about the graph")


def _jsonl(path: Path, n: int) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for _, line in zip(range(n), handle, strict=False)]


def _source_rows(per_family: int) -> list[dict[str, Any]]:
    load_models(DATA / "cladder" / "test-model-meta.json")
    cladder = json.loads((DATA / "cladder" / "test-generate-easy.json").read_text("utf-8"))
    pp = json.loads((DATA / "corr2causepp" / "sample.json").read_text("utf-8"))
    return [*_jsonl(EXAMPLES / "corr2cause_sample.jsonl", per_family), *pp[:per_family],
            *_jsonl(EXAMPLES / "cibench_sample.jsonl", per_family),
            *_jsonl(EXAMPLES / "ie_sample.jsonl", per_family),
            *_jsonl(DATA / "clear" / "items_subset.jsonl", per_family),
            *cladder[:per_family]]


def _flipped(text: str) -> str:
    return {"yes": "no", "no": "yes", "Yes.": "No.", "No.": "Yes."}.get(text, "None")


def build_rows(n: int, per_family: int = 12, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` rows ``{id, prompt, response[, label]}`` over every family."""
    items = []
    for raw in _source_rows(per_family):
        item = default().item(raw)
        assert item is not None
        gold = None if item.binary is None and not isinstance(item.gold, str) else \
            ("yes" if item.binary else "no") if item.binary is not None else item.gold
        items.append((item, gold, co.answer(item.prompt).answer_text))
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        item, gold, answer = items[i % len(items)]
        kind = rng.randrange(4)
        reply = (answer, _flipped(answer), gold or answer, rng.choice(JUNK))[kind]
        row: dict[str, Any] = {"id": f"r{i}", "prompt": item.prompt, "response": reply}
        if gold is not None:
            row["label"] = gold
        rows.append(row)
    return rows


def loop_summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """The counts a user's own loop over ``co.grade`` gives, by family and by task."""
    out: dict[str, dict[str, dict[str, int]]] = {"by_family": {}, "by_task": {}}
    total: dict[str, int] = defaultdict(int)
    for row in rows:
        graded = co.grade(row["prompt"], row["response"])
        gold = co.grade(row["prompt"], row["label"]) if "label" in row else None
        for key, name in (("by_family", graded.family), ("by_task", graded.task)):
            counts = out[key].setdefault(name, defaultdict(int))
            for tally in (counts, total) if key == "by_family" else (counts,):
                tally["items"] += 1
                if not graded.gradable:
                    tally["ungradable"] += 1
                    continue
                tally["scored"] += 1
                tally["readable"] += graded.readable
                tally["correct"] += graded.correct
                if gold is not None and gold.readable and gold.gradable:
                    tally["gold_rows"] += 1
                    tally["correct_on_gold_rows"] += graded.correct
                    tally["correct_gold"] += graded.correct if gold.correct else (
                        graded.readable and graded.normalised == gold.normalised)
    out["summary"] = {"overall": total}
    return {k: {name: {c: n for c, n in counts.items() if n} for name, counts in v.items()}
            for k, v in out.items()}


COUNTS = ("items", "ungradable", "scored", "readable", "correct", "gold_rows",
          "correct_on_gold_rows", "correct_gold")


def counts_of(report: dict[str, Any]) -> dict[str, dict[str, dict[str, int]]]:
    def pick(t: dict[str, Any]) -> dict[str, int]:
        return {k: t[k] for k in COUNTS if t[k]}

    return {"by_family": {k: pick(v) for k, v in report["by_family"].items()},
            "by_task": {k: pick(v) for k, v in report["by_task"].items()},
            "summary": {"overall": pick(report["summary"])}}


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def _grade_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["grade", *argv, "--json"]) == 0, capsys.readouterr().err
    return dict(json.loads(capsys.readouterr().out))


def _check_mixed(n: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = build_rows(n)
    path = _write_jsonl(tmp_path / "replies.jsonl", rows)
    report = _grade_json([str(path)], capsys)
    assert report["summary"]["items"] == n and report["summary"]["errors"] == 0
    assert set(report["by_family"]) == {"corr2cause", "corr2cause++", "cibench", "ie",
                                        "clear", "cladder"}
    assert counts_of(report) == loop_summary(rows)
    s = report["summary"]
    assert 0 < s["correct"] < s["readable"] < s["scored"] and s["gold_rows"] > 0
    assert s["accuracy"] == round(s["correct"] / s["scored"], 4)
    assert s["accuracy_readable"] == round(s["correct"] / s["readable"], 4)
    assert s["unreadable_share"] == round((s["scored"] - s["readable"]) / s["scored"], 4)
    library = co.grade_file(path)
    assert library.to_json() == report
    assert [r.grade for r in library.rows] == [co.grade(r["prompt"], r["response"])
                                               for r in rows]


def test_thousand_rows_summary_equals_a_grade_loop(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _check_mixed(1000, tmp_path, capsys)  # about 5 s: 72 questions, each solved once


def test_every_layout_gives_the_same_summary(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    rows = build_rows(60)
    want = _grade_json([str(_write_jsonl(tmp_path / "r.jsonl", rows))], capsys)["summary"]
    table = tmp_path / "r.csv"
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "prompt", "response", "label"])
        writer.writeheader()
        writer.writerows(rows)
    assert _grade_json([str(table)], capsys)["summary"] == want
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    parquet = tmp_path / "r.parquet"
    pq.write_table(pa.Table.from_pylist([{**r, "label": r.get("label")} for r in rows]),
                   parquet)
    assert _grade_json([str(parquet)], capsys)["summary"] == want
    folder = tmp_path / "hub" / "data"
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([{**r, "label": r.get("label")} for r in rows]),
                   folder / "train.parquet")
    assert _grade_json([str(tmp_path / "hub")], capsys)["summary"] == want


def test_dataset_rows_keep_their_own_layout(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    rows = _jsonl(EXAMPLES / "cibench_sample.jsonl", 8) + _jsonl(EXAMPLES / "ie_sample.jsonl", 8)
    for row in rows:
        row["completion"] = co.answer(row["prompt"]).answer_text
    report = _grade_json([str(_write_jsonl(tmp_path / "d.jsonl", rows))], capsys)
    assert report["source"]["reply_column"] == "completion"
    assert report["summary"]["correct"] == report["summary"]["scored"] == 16
    assert report["by_family"]["ie"]["gold_rows"] == 8  # IE rows carry a yes/no label


def test_reply_column_detection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = _jsonl(EXAMPLES / "ie_sample.jsonl", 1)[0]["prompt"]
    several = _write_jsonl(tmp_path / "several.jsonl",
                           [{"prompt": prompt, "response": "yes", "output": "no"}])
    capsys.readouterr()
    assert main(["grade", str(several)]) == 2
    err = capsys.readouterr().err
    assert "response, output" in err and "--reply-column" in err
    assert _grade_json([str(several), "--reply-column", "output"], capsys)["summary"][
        "items"] == 1
    none = _write_jsonl(tmp_path / "none.jsonl", [{"prompt": prompt, "text_out": "yes"}])
    assert main(["grade", str(none)]) == 2
    err = capsys.readouterr().err
    assert "response, completion, output, prediction, answer" in err and "text_out" in err
    assert main(["grade", str(none), "--reply-column", "reply"]) == 2
    err = capsys.readouterr().err
    assert "--reply-column 'reply'" in err and "prompt, text_out" in err


def test_error_rows_are_counted_not_graded(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    prompt = _jsonl(EXAMPLES / "ie_sample.jsonl", 1)[0]["prompt"]
    path = tmp_path / "e.jsonl"
    path.write_text(json.dumps({"prompt": prompt, "response": "yes"}) + "\n"
                    + "{broken\n"
                    + json.dumps({"prompt": "What is love?", "response": "yes"}) + "\n"
                    + json.dumps({"prompt": prompt}) + "\n", encoding="utf-8")
    report = _grade_json([str(path)], capsys)
    assert report["summary"]["items"] == 4 and report["summary"]["errors"] == 3
    errors = {r["row"]: r["error"] for r in report["records"] if r["outcome"] == "error"}
    assert "line 2" in errors[2] and "no benchmark" in errors[3]
    assert "no reply" in errors[4]


def test_table_records_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = build_rows(30, per_family=5)
    path = _write_jsonl(tmp_path / "r.jsonl", rows)
    records, report = tmp_path / "out" / "records.jsonl", tmp_path / "out" / "report.json"
    capsys.readouterr()
    assert main(["grade", str(path), "--records", str(records), "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["items", "errors", "ungrad."]
    assert "family cladder" in out and "task IE" in out and "records written to" in out
    lines = [json.loads(line) for line in records.read_text("utf-8").splitlines()]
    assert [r["id"] for r in lines] == [r["id"] for r in rows]
    assert {r["outcome"] for r in lines} >= {"correct", "wrong", "UNREADABLE"}
    data = json.loads(report.read_text("utf-8"))
    assert data["records"] == lines and data["summary"]["items"] == 30


def test_one_reply_still_grades(capsys: pytest.CaptureFixture[str]) -> None:
    prompt = _jsonl(EXAMPLES / "ie_sample.jsonl", 1)[0]["prompt"]
    data = _grade_json(["--prompt", prompt, "--reply", "It depends."], capsys)
    assert (data["grade"], data["readable"], data["correct"]) == ("UNREADABLE", False, False)
    capsys.readouterr()
    assert main(["grade", "x.jsonl", "--prompt", prompt]) == 2
    assert "drop --prompt" in capsys.readouterr().err


def test_grade_exposes_what_grade_json_prints() -> None:
    prompt = _jsonl(EXAMPLES / "ie_sample.jsonl", 1)[0]["prompt"]
    for reply in ("yes", "no", "???"):
        graded = co.grade(prompt, reply)
        for name, value in graded.to_json().items():
            assert getattr(graded, name) == value
        assert isinstance(graded.correct, bool) and isinstance(graded.readable, bool)


def test_calm_files_as_shipped_are_graded_as_their_task(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CaLM records carry no task: ``grade FILE`` reads it from the file's name (a
    numeric file is its own task, not ``<KIND>-any``); the oracle's answers are all
    correct, a full-set file (no gold) included."""
    from causal_oracle.entry.families.calm import record_row

    folder = tmp_path / "calm"
    folder.mkdir()
    files = [DATA / "calm" / "lite_sample" / "ATE-P_ATE-basic_CN.json",
             DATA / "calm" / "lite_sample" / "AR-B_CaLM-AR_EN.json",
             DATA / "calm" / "full_sample" / "BAS-C_min-BAS_EN.json"]
    for path in files:
        rows = _jsonl(path, 6)
        for row in rows:
            item = default().item(record_row(row, path.name))
            assert item is not None
            row["completion"] = co.answer(item.prompt, item.task).answer_text
        _write_jsonl(folder / path.name, rows)
    report = _grade_json([str(folder)], capsys)
    assert report["summary"]["correct"] == report["summary"]["scored"] == 18
    tasks = {r["task"] for r in report["records"]}
    assert tasks == {"ATE-P_ATE-basic", "AR-B_CaLM-AR", "BAS-C_min-BAS"}


def test_replies_saved_under_a_calm_tasks_name_are_read_by_their_columns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only CaLM's own records take their task from the file's name: prompt/reply rows in
    a file named ``AR-B_CaLM-AR_EN.json`` are read by their columns."""
    from causal_oracle.entry.families.calm import record_row

    shipped = DATA / "calm" / "lite_sample" / "AR-B_CaLM-AR_EN.json"
    rows = []
    for raw in _jsonl(shipped, 4):
        item = default().item(record_row(raw, shipped.name))
        assert item is not None
        rows.append({"prompt": item.prompt,
                     "response": co.answer(item.prompt, item.task).answer_text})
    report = _grade_json([str(_write_jsonl(tmp_path / shipped.name, rows))], capsys)
    assert report["summary"]["correct"] == report["summary"]["scored"] == 4


COLLIDER = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
            "statistical relations among these 3 variables are as follows: A correlates with "
            "C. B correlates with C. However, A is independent of B.\nHypothesis: A directly "
            "causes C.")  # gold: Yes
REASONED = [  # (reply, right, checkable claims, false claims)
    ("C is a collider between A and B. C causes A. Answer: Yes", True, 2, 1),  # lucky
    ("C is a collider between A and B. Answer: Yes", True, 1, 0),
    ("Yes", True, 0, 0),  # unsupported
    ("A and B are dependent. Answer: No", False, 1, 1),
]


def _reasoned_file(tmp_path: Path) -> Path:
    path = tmp_path / "reasoned.jsonl"
    path.write_text("".join(json.dumps({"prompt": COLLIDER, "response": r}) + "\n"
                            for r, _, _, _ in REASONED), encoding="utf-8")
    return path


def test_reasoning_columns_and_the_share_of_lucky_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _reasoned_file(tmp_path)
    plain = co.grade_file(path).to_json()
    assert "reasoning" not in plain["summary"] and "reasoning" not in plain["records"][0]
    result = co.grade_file(path, reasoning=True)
    data = result.to_json()
    assert {k: v for k, v in data["summary"].items() if k != "reasoning"} == plain["summary"]
    assert data["summary"]["reasoning"] == {
        "reasoned": 4, "claims": 4, "false_claims": 2, "correct": 3, "lucky": 1,
        "unsupported": 1, "reasoning_score": 0.5, "lucky_share": 0.3333}
    for record, (reply, right, claims, false) in zip(data["records"], REASONED, strict=True):
        r = record["reasoning"]
        assert (record["correct"], r["checkable"], r["false_claims"]) == (right, claims, false)
        assert r["reply"] == reply
        assert all(reply[c["span"][0]:c["span"][1]] == c["text"] for c in r["claims"])
    assert main(["grade", str(path), "--reasoning"]) == 0
    out = capsys.readouterr().out
    assert "claims  false   score   lucky" in out
    assert "right answers with a false claim: 1 of 3 (33.3%)" in out
    assert main(["grade", str(path)]) == 0
    assert "lucky" not in capsys.readouterr().out
