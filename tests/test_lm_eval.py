"""The lm-evaluation-harness task pack: grading hooks, and a real ``lm_eval`` run on CPU.

``causal-oracle export lm-eval`` writes YAMLs and a ``utils.py``; here the hooks are
called directly (in-process and through the gRPC service), then ``lm_eval`` itself
runs the pack on the tiny random Llama (``clients.evaluate.tiny``) with ``--limit 20``
and the metrics in its results file are recomputed from its logged samples.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from causal_oracle import answer as task_answer
from causal_oracle.clients.cli import main
from causal_oracle.clients.harness import TASKS, grade_doc, iter_docs, prompt_of

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [ROOT / "examples" / name for name in
            ("corr2cause_sample.jsonl", "cibench_sample.jsonl", "ie_sample.jsonl")]


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pack")
    args = ["export", "lm-eval", str(out)]
    for path in EXAMPLES:
        args += ["--data", str(path)]
    assert main(args) == 0
    return out


def _utils(pack: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("co_pack_utils", pack / "utils.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_export_writes_every_task_and_the_group(pack: Path) -> None:
    with_items = [t for t in TASKS if next(iter_docs(EXAMPLES, t), None) is not None]
    assert {"corr2cause", "cibench_ba", "ie"} <= set(with_items)
    assert sorted(p.stem for p in pack.glob("*.yaml")) == sorted([*with_items, "causal_oracle"])
    text = (pack / "cibench_ba.yaml").read_text(encoding="utf-8")
    assert "process_results: !function utils.process_results" in text
    assert "gold_agrees" in text and str(EXAMPLES[1]) in text


def test_process_results_grades_against_oracle_and_gold(pack: Path) -> None:
    utils = _utils(pack)
    data = utils.load("corr2cause", [str(p) for p in EXAMPLES], version=1.0)["test"]
    assert len(data) == 408
    doc = data[0]
    assert doc["gold"] == 0 and "Answer Yes or No" in utils.doc_to_text(doc)
    assert utils.process_results(doc, ["Let me think step by step.\n**Answer:** No"]) == {
        "acc_oracle": 1.0, "acc_gold": 1.0, "unreadable": 0.0}
    assert utils.process_results(doc, ["Yes."]) == {
        "acc_oracle": 0.0, "acc_gold": 0.0, "unreadable": 0.0}
    assert utils.process_results(doc, ["Hmm, hard to say."])["unreadable"] == 1.0
    three = dict(utils.load("corr2cause_3class", [str(EXAMPLES[0])])["test"][0])
    assert three["harness_task"] == "corr2cause_3class"
    assert utils.process_results(three, [three["gold_relation"]])["acc_gold"] == 1.0


def test_cibench_and_ie_docs_graded_with_the_oracles_own_answer() -> None:
    for task in ("cibench_cp", "cibench_ba", "cibench_fi", "cibench_ci", "ie"):
        docs = list(iter_docs(EXAMPLES, task))
        assert docs, task
        graded_any = 0
        for doc in docs[:4]:
            expected = task_answer(doc["prompt"], doc["task"]).answer_text
            if not expected:  # upstream items with an empty query ("What about the? ")
                continue
            graded_any += 1
            graded = grade_doc(doc, f"Reasoning first.\nAnswer:\n{expected}")
            assert graded["acc_oracle"] == 1.0, (task, expected, graded)
            assert graded["explanation"]
            assert prompt_of(doc, task).startswith(doc["prompt"].rstrip())
        assert graded_any >= 2, task


def test_process_results_through_the_grpc_service(pack: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_grpc_service import ServerThread  # type: ignore[import-not-found]

    utils = _utils(pack)
    docs = utils.load("ie", [str(EXAMPLES[2])])["test"]
    answers = ["yes", "The answer is **no**.", "unclear"]
    local = [utils.process_results(docs[i], [a]) for i, a in enumerate(answers)]
    thread = ServerThread(workers=1, grace=1.0)
    thread.start()
    try:
        monkeypatch.setenv("CAUSAL_ORACLE_SERVER", thread.target)
        remote = [utils.process_results(docs[i], [a]) for i, a in enumerate(answers)]
        corr = utils.load("corr2cause", [str(EXAMPLES[0])])["test"][5]
        assert utils.process_results(corr, ["No"]) == _utils_local(pack, corr, "No")
    finally:
        thread.stop(grace=0.5)
    assert remote == local
    assert local[2]["unreadable"] == 1.0


def _utils_local(pack: Path, doc: dict, text: str) -> dict:
    import os

    saved = os.environ.pop("CAUSAL_ORACLE_SERVER", None)
    try:
        return _utils(pack).process_results(doc, [text])
    finally:
        if saved is not None:
            os.environ["CAUSAL_ORACLE_SERVER"] = saved


CALM = [ROOT / "tests" / "data" / "calm" / folder / name for folder, name in
        (("lite_sample", "ATE-P_ATE-basic_EN.json"), ("lite_sample", "CA-B_FA_CN.json"),
         ("full_sample", "IV-C_CaLM-IV_EN.json"))]


def test_calm_files_as_shipped_are_tasks_the_oracle_grades(tmp_path: Path) -> None:
    """CaLM's records name no task; the pack reads it from each file's name, so each file
    is its own lm-eval task, and the oracle's answer scores 1 (gold agrees on Lite; the
    full set has no gold, so nothing agrees with it)."""
    out = tmp_path / "pack"
    args = ["export", "lm-eval", str(out)]
    for path in CALM:
        args += ["--data", str(path)]
    assert main(args) == 0
    utils = _utils(out)
    for task, n, lite in (("calm_ate_p_ate_basic", 20, True), ("calm_ca_b_fa", 20, True),
                          ("calm_iv_c_calm_iv", 10, False)):
        assert (out / f"{task}.yaml").is_file()
        docs = utils.load(task, [str(p) for p in CALM])["test"]
        assert len(docs) == n
        graded = 0
        for doc in docs:
            right = task_answer(doc["prompt"], doc["task"]).answer_text
            got = utils.process_results(doc, [right])
            if got["acc_oracle"] == 0.0:  # degenerate, or no option is valid: none is right
                assert "degenerate" in right or "no option" in right, right
                continue
            graded += 1
            assert got == {"acc_oracle": 1.0, "gold_agrees": float(lite), "unreadable": 0.0}
            assert utils.process_results(doc, ["I cannot say."])["unreadable"] == 1.0
        assert graded >= n // 2, task


@pytest.mark.slow
def test_lm_eval_runs_the_pack_on_a_tiny_model(pack: Path, tmp_path: Path) -> None:
    pytest.importorskip("lm_eval")
    pytest.importorskip("torch")
    pytest.importorskip("accelerate")  # lm-eval's hf model; in the gpu extra
    from causal_oracle.clients.evaluate.tiny import build_tiny_model

    tasks = ["corr2cause", "corr2cause_3class", "ie", "cibench_fi"]
    texts = [prompt_of(d, t) for t in tasks for d in iter_docs(EXAMPLES, t)]
    model = build_tiny_model(tmp_path / "tiny", texts, seed=3, answer_scale=3.0)
    out = tmp_path / "out"
    lm_eval = Path(sys.executable).with_name("lm_eval")
    command = [str(lm_eval), "--model", "hf", "--model_args",
               f"pretrained={model},dtype=float32", "--device", "cpu",
               "--include_path", str(pack), "--tasks", ",".join(tasks), "--limit", "20",
               "--batch_size", "8", "--gen_kwargs", "max_gen_toks=1",
               "--output_path", str(out), "--log_samples"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False,
                          cwd=tmp_path, env={**__import__("os").environ,
                                             "TOKENIZERS_PARALLELISM": "false",
                                             "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    (results_file,) = out.rglob("results_*.json")
    results = json.loads(results_file.read_text(encoding="utf-8"))["results"]
    readable = 0.0
    for task in tasks:
        name = re.compile(rf"samples_{task}_\d{{4}}-\d\d-\d\dT.*\.jsonl")
        (samples_file,) = [p for p in out.rglob("samples_*.jsonl") if name.fullmatch(p.name)]
        samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
        assert len(samples) == (10 if task == "cibench_fi" else 20)
        for name in TASKS[task].metrics:
            mine = [grade_doc(s["doc"], s["filtered_resps"][0])[name] for s in samples]
            assert results[task][f"{name},none"] == pytest.approx(sum(mine) / len(mine)), \
                (task, name)
        readable += 1 - results[task]["unreadable,none"]
        acc = results[task]["acc_oracle,none"]
        assert 0.0 <= acc <= 1.0 - results[task]["unreadable,none"] + 1e-9
    assert readable > 0  # a one-token "Yes"/"No" is read
