"""``eval --ray``: the Ray Data pipeline gives the single-process answers.

On a local Ray cluster of 2 CPUs with 2 model replicas, the tiny random model of
``clients/evaluate/tiny.py`` answers a handful of Corr2Cause, CI-Bench and IE items
(the logits mode for yes/no items, generation for open answers).  The per-item
results — prediction, answer text, oracle label, grades — and the metrics must be
those of ``eval --engine hf`` without Ray.  The Ray run is done in two parts (the
first items on 2 replicas that grade their own answers, then all of them on one
replica followed by a grading stage) so that resuming and both layouts are checked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from causal_oracle.clients.cli import main
from causal_oracle.clients.evaluate.prompts import DEFAULT_CORR2CAUSE_TEMPLATE
from causal_oracle.clients.evaluate.tiny import build_tiny_model

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("task", "row", "answer_text", "prediction", "normalised", "correct_oracle",
          "correct_gold", "oracle_label", "oracle_relation", "oracle_error", "tokens_in",
          "tokens_out", "mode", "unreadable")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 Corr2Cause items (3 to 6 variables), 1 CP, 1 FI and 2 IE items."""
    ex = ROOT / "examples"
    c2c = (ex / "corr2cause_sample.jsonl").read_text(encoding="utf-8").splitlines()
    cib = [json.loads(line) for line in (ex / "cibench_sample.jsonl").read_text().splitlines()]
    ie = (ex / "ie_sample.jsonl").read_text(encoding="utf-8").splitlines()
    lines = c2c[:3] + c2c[90:92] + c2c[280:282] + c2c[-1:]
    lines += [json.dumps(next(r for r in cib if r["task"] == t)) for t in ("CP", "FI")]
    lines += ie[:1] + ie[100:101]
    path = tmp_path_factory.mktemp("data") / "items.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def model(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    texts = [DEFAULT_CORR2CAUSE_TEMPLATE]
    for line in data.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [str(row.get(k, "")) for k in ("premise", "hypothesis", "prompt")]
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), texts, seed=5, answer_scale=3.0)


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A local Ray cluster of 2 CPUs (what CI has), shut down afterwards."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as each CPU replica has (Ray sets OMP_NUM_THREADS=1)
    yield
    torch.set_num_threads(threads)


def _run(model: Path, data: Path, report: Path, *extra: str) -> dict[str, Any]:
    assert main(["eval", "--model", str(model), "--data", str(data), "--report", str(report),
                 "--device", "cpu", "--quiet", "--batch-size", "3",
                 "--max-new-tokens", "4", *extra]) == 0
    return json.loads(report.read_text(encoding="utf-8"))


def _records(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    lines = Path(report["files"]["results"]).read_text(encoding="utf-8").splitlines()
    return {rec["id"]: rec for rec in map(json.loads, lines[1:])}


def test_ray_pipeline_equals_single_process(model: Path, data: Path, tmp_path: Path,
                                            cluster: None) -> None:
    single = _run(model, data, tmp_path / "hf.json", "--engine", "hf")

    part = _run(model, data, tmp_path / "ray.json", "--ray", "--replicas", "2",
                "--limit", "5")
    assert part["timing"]["items_run"] == 5
    assert part["config"]["runner"]["ray"]["replicas"] == 2
    assert part["config"]["runner"]["ray"]["graders"] == 0  # CPU cluster: in the replicas
    # resumed, with the oracle as its own stage of CPU actors (what GPU clusters do)
    whole = _run(model, data, tmp_path / "ray.json", "--ray", "--replicas", "1",
                 "--graders", "1")
    assert whole["timing"]["items_run"] == 12 - 5 and whole["timing"]["items_resumed"] == 5
    assert whole["config"]["runner"]["ray"]["graders"] == 1

    a, b = _records(single), _records(whole)
    assert sorted(a) == sorted(b) and len(a) == 12
    assert {r["mode"] for r in a.values()} == {"logits", "generate"}
    for key, rec in a.items():
        assert {f: rec[f] for f in FIELDS} == {f: b[key][f] for f in FIELDS}, key
        if rec["p_yes"] is not None:
            assert b[key]["p_yes"] == pytest.approx(rec["p_yes"], abs=1e-5)
    assert whole["metrics"] == single["metrics"]
    assert whole["oracle_errors"] == single["oracle_errors"]
    assert 0.0 <= whole["timing"]["score_share"] <= 1.0
    table = Path(whole["files"]["table"]).read_text(encoding="utf-8")
    assert table.splitlines()[2:] == Path(single["files"]["table"]).read_text(
        encoding="utf-8").splitlines()[2:]  # all but the title and the timing line


def test_ray_refuses_baselines_and_needs_a_model(data: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--model", "majority", "--data", str(data), "--report",
                 str(tmp_path / "r.json"), "--ray", "--quiet"]) == 2
    assert "runs in one process" in capsys.readouterr().err
