"""End to end with a real (tiny, random) causal LM on the CPU: no download.

The model and its word-level tokenizer are built here, saved, and loaded back by
``causal-oracle eval`` through ``transformers.Auto*.from_pretrained``; both scoring
modes run; the report's metrics are recomputed by hand from the per-item results.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from causal_oracle.clients.cli import main
from causal_oracle.clients.evaluate.prompts import DEFAULT_CORR2CAUSE_TEMPLATE
from causal_oracle.clients.evaluate.runner import HFRunner
from causal_oracle.clients.evaluate.tiny import build_tiny_model

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """24 Corr2Cause items (3 to 6 variables), 2 CP, 2 FI and 8 IE items."""
    ex = ROOT / "examples"
    c2c = (ex / "corr2cause_sample.jsonl").read_text(encoding="utf-8").splitlines()
    cib = [json.loads(line) for line in (ex / "cibench_sample.jsonl").read_text().splitlines()]
    ie = (ex / "ie_sample.jsonl").read_text(encoding="utf-8").splitlines()
    lines = c2c[:8] + c2c[90:98] + c2c[280:284] + c2c[-4:]
    lines += [json.dumps(r) for t in ("CP", "FI") for r in [x for x in cib if x["task"] == t][:2]]
    lines += ie[:4] + ie[100:104]
    path = tmp_path_factory.mktemp("data") / "items.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Iterator[None]:
    """One CPU thread: a tiny model gains nothing from more, and a shared CPU loses a lot."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def model(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    texts = [DEFAULT_CORR2CAUSE_TEMPLATE]
    for line in data.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [str(row.get(k, "")) for k in ("premise", "hypothesis", "prompt")]
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), texts, seed=3, answer_scale=3.0)


def _run(model: Path, data: Path, report: Path, *extra: str) -> dict:
    assert main(["eval", "--model", str(model), "--data", str(data), "--report", str(report),
                 "--device", "cpu", "--quiet", *extra]) == 0
    return json.loads(report.read_text(encoding="utf-8"))


def _records(report: dict) -> list[dict]:
    lines = Path(report["files"]["results"]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


def _by_hand(records: list[dict], truth: str) -> dict:
    rs = [r for r in records if r["task"] == "corr2cause" and r[truth] is not None]
    tp = sum(r["prediction"] == 1 and r[truth] == 1 for r in rs)
    fp = sum(r["prediction"] == 1 and r[truth] == 0 for r in rs)
    fn = sum(r["prediction"] != 1 and r[truth] == 1 for r in rs)
    correct = sum(r["prediction"] == r[truth] for r in rs)
    p = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return {"items": len(rs), "accuracy": correct / len(rs), "precision": p, "recall": rec,
            "f1": 2 * p * rec / (p + rec) if p + rec else 0.0,
            "unreadable": sum(r["prediction"] is None for r in rs)}


def _check_against_hand(report: dict) -> list[dict]:
    records = _records(report)
    assert len(records) == report["metrics"]["items"] == 36
    c2c = report["metrics"]["corr2cause"]
    for truth, key in (("oracle_label", "oracle"), ("gold", "gold")):
        hand, got = _by_hand(records, truth), c2c[key]["overall"]
        for name, value in hand.items():
            assert got[name] == pytest.approx(value, abs=1e-5), (key, name)
    for relation, got in c2c["oracle"]["by_relation"].items():
        hand = _by_hand([r for r in records if r["relation"] == relation], "oracle_label")
        assert got["f1"] == pytest.approx(hand["f1"], abs=1e-5)
    ie = [r for r in records if r["task"] == "IE"]
    assert report["metrics"]["tasks"]["IE"]["gold"]["accuracy"] == pytest.approx(
        sum(r["prediction"] == r["gold"] for r in ie) / len(ie), abs=1e-5)
    for task in ("CP", "FI", "IE"):
        rs = [r for r in records if r["task"] == task]
        assert report["metrics"]["tasks"][task]["oracle"]["accuracy"] == pytest.approx(
            sum(r["correct_oracle"] is True for r in rs) / len(rs), abs=1e-5)
    return records


def test_logits_mode_end_to_end(model: Path, data: Path, tmp_path: Path) -> None:
    report = _run(model, data, tmp_path / "logits.json", "--batch-size", "4",
                  "--max-new-tokens", "6")
    records = _check_against_hand(report)
    binary = [r for r in records if r["task"] in ("corr2cause", "IE")]
    assert all(r["mode"] == "logits" and r["prediction"] in (0, 1) for r in binary)
    assert all(0.0 <= r["p_yes"] <= 1.0 for r in binary)
    assert all(r["mode"] == "generate" for r in records if r["task"] in ("CP", "FI"))
    assert report["timing"]["items_run"] == 36 and report["timing"]["tokens_per_s"] > 0
    assert report["config"]["runner"]["device"] == "cpu"
    assert Path(report["files"]["table"]).read_text().startswith("Model `")
    assert report["files"]["chart"] and Path(report["files"]["chart"]).stat().st_size > 1000

    # padding-aware: another batch size (other batch-mates, other padding), same answers
    single = _run(model, data, tmp_path / "single.json", "--batch-size", "1",
                  "--max-new-tokens", "6")
    p = {r["id"]: r["p_yes"] for r in _records(single) if r["p_yes"] is not None}
    for r in binary:
        assert r["p_yes"] == pytest.approx(p[r["id"]], abs=1e-4)
    assert single["metrics"] == report["metrics"]

    # resumable: a rerun with the same configuration predicts nothing
    again = _run(model, data, tmp_path / "logits.json", "--batch-size", "4",
                 "--max-new-tokens", "6")
    assert again["timing"]["items_run"] == 0 and again["metrics"] == report["metrics"]


def test_generate_mode_end_to_end_is_deterministic(model: Path, data: Path,
                                                   tmp_path: Path) -> None:
    args = ("--mode", "generate", "--batch-size", "8", "--max-new-tokens", "5", "--seed", "1")
    report = _run(model, data, tmp_path / "gen.json", *args)
    records = _check_against_hand(report)
    assert all(r["mode"] == "generate" and r["tokens_out"] >= 1 for r in records)
    # a random model writes noise: what the grammar cannot read is counted, never guessed
    unreadable = [r for r in records if r["unreadable"]]
    assert report["metrics"]["unreadable"] == len(unreadable)
    assert all(r["prediction"] is None for r in unreadable if r["task"] == "corr2cause")
    other = _run(model, data, tmp_path / "gen2.json", *args)
    assert [r["answer_text"] for r in _records(other)] == [r["answer_text"] for r in records]


def test_logits_answer_words_and_loader_errors(model: Path) -> None:
    runner = HFRunner(str(model), device="cpu", answer_words=("No", "Yes"))
    out = runner.logits(["A correlates with B .", "Yes"])
    assert [o.text for o in out] == ["No" if o.prediction else "Yes" for o in out]
    with pytest.raises(Exception, match="vocabulary"):
        HFRunner(str(model), device="cpu", answer_words=("Maybe", "No"))
