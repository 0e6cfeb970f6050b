"""Batch evaluator without a model: data, prompts, batching, metrics, baselines, resume."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from causal_oracle.clients.cli import main
from causal_oracle.clients.evaluate import EvalConfig, run_eval
from causal_oracle.clients.evaluate.data import load_items, split_input
from causal_oracle.clients.evaluate.metrics import binary_scores
from causal_oracle.clients.evaluate.prompts import DEFAULT_CORR2CAUSE_TEMPLATE, Prompter
from causal_oracle.clients.evaluate.runner import plan_batches
from causal_oracle.clients.evaluate.scoring import make_scorer
from causal_oracle.oracle.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Corr2Cause (incl. inconsistent premises), CI-Bench and IE items in one file."""
    path = tmp_path_factory.mktemp("data") / "mixed.jsonl"
    lines = []
    for name, count in (("corr2cause_sample", 408), ("cibench_sample", 40), ("ie_sample", 40)):
        lines += (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()[:count]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _records(report: dict) -> list[dict]:
    lines = Path(report["files"]["results"]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


# ---- pieces -----------------------------------------------------------------------------

def test_hand_computed_binary_scores() -> None:
    # 2 tp, 1 fp, 1 fn (readable), 1 fn (unreadable), 3 tn, 1 unreadable on an invalid item
    pairs = [(1, 1), (1, 1), (1, 0), (0, 1), (None, 1), (0, 0), (0, 0), (0, 0), (None, 0)]
    s = binary_scores(pairs)
    assert (s["tp"], s["fp"], s["fn"], s["tn"], s["unreadable"]) == (2, 1, 2, 3, 2)
    assert s["accuracy"] == round(5 / 9, 6)
    assert s["precision"] == round(2 / 3, 6) and s["recall"] == 0.5
    assert s["f1"] == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5), abs=1e-5)
    assert binary_scores([])["f1"] == 0.0


def test_plan_batches_sorts_packs_and_covers_every_index() -> None:
    lengths = [5, 50, 7, 49, 6, 51, 5]
    plan = plan_batches(lengths, batch_size=3)
    assert sorted(i for b in plan for i in b) == list(range(7))
    assert plan[0] == [5, 1, 3]  # the longest first
    assert all(len(b) <= 3 for b in plan)
    budget = plan_batches(lengths, batch_size=8, max_tokens=100)
    assert all(len(b) * max(lengths[i] for i in b) <= 100 or len(b) == 1 for b in budget)
    with pytest.raises(InputError):
        plan_batches(lengths, batch_size=0)


def test_prompts_default_template_and_file(tmp_path: Path) -> None:
    item = load_items(DATA / "n3.jsonl", limit=1)[0]
    text = Prompter().render(item)
    assert text.startswith(f"Premise: {item.premise}\nHypothesis: {item.hypothesis}\n")
    assert text.endswith("Answer:")
    shipped = (EXAMPLES / "corr2cause_prompt_template.txt").read_text(encoding="utf-8")
    assert shipped.rstrip("\n") == DEFAULT_CORR2CAUSE_TEMPLATE
    template = tmp_path / "t.txt"
    template.write_text("{hypothesis} <- {premise} {not a placeholder} {task}\n")
    assert Prompter.from_file(template).render(item) == \
        f"{item.hypothesis} <- {item.premise} {{not a placeholder}} corr2cause"
    template.write_text("no placeholders")
    with pytest.raises(InputError):
        Prompter.from_file(template)
    ie = load_items(EXAMPLES / "ie_sample.jsonl", limit=1)[0]
    assert Prompter().render(ie) == ie.prompt
    with pytest.raises(InputError):
        Prompter("{premise} / {hypothesis}").render(ie)


def test_items_keys_layouts_and_task_filter(mixed: Path) -> None:
    items = load_items(mixed)
    assert len({i.key for i in items}) == len(items)
    assert {i.task for i in items} == {"corr2cause", "CP", "BA", "FI", "CI", "IE"}
    only = load_items(mixed, tasks=["IE", "CP"])
    assert {i.task for i in only} == {"IE", "CP"}
    csv_items = load_items(DATA / "hf_layout_sample.csv", limit=3)
    assert all(i.task == "corr2cause" and i.premise and i.hypothesis for i in csv_items)
    assert split_input("Premise: p q.\nHypothesis: h.") == ("p q.", "h.")
    with pytest.raises(InputError, match="no such file"):
        load_items(mixed.with_name("missing.jsonl"))


# ---- baselines end to end ---------------------------------------------------------------

def test_majority_on_n4_matches_the_share_of_oracle_invalid_items(tmp_path: Path,
                                                                    capsys) -> None:
    report_path = tmp_path / "r.json"
    assert main(["eval", "--model", "majority", "--data", str(DATA / "n4.jsonl"),
                 "--report", str(report_path), "--quiet"]) == 0
    assert "| Corr2Cause, all | 720 |" in capsys.readouterr().out
    report = json.loads(report_path.read_text())
    overall = report["metrics"]["corr2cause"]["oracle"]["overall"]
    records = _records(report)
    invalid = sum(r["oracle_label"] == 0 for r in records)
    assert overall["items"] == 720 and overall["f1"] == 0.0 and overall["tp"] == 0
    assert overall["accuracy"] == round(invalid / 720, 6)
    assert report["metrics"]["corr2cause"]["oracle_gold_differ"] == 7
    assert report_path.with_suffix(".md").read_text().count("\n|") >= 6


def test_oracle_baseline_scores_everything(mixed: Path, tmp_path: Path) -> None:
    report = run_eval(EvalConfig(model="oracle", data=mixed, report=tmp_path / "o.json"))
    m = report["metrics"]
    oracle = m["corr2cause"]["oracle"]
    assert oracle["overall"]["f1"] == 1.0 and oracle["overall"]["accuracy"] == 1.0
    assert all(s["accuracy"] == 1.0 for s in oracle["by_relation"].values())
    assert all(s["accuracy"] == 1.0 for s in oracle["by_num_nodes"].values())
    assert set(m["tasks"]) == {"CP", "BA", "FI", "CI", "IE"}
    assert all(t["oracle"]["accuracy"] == 1.0 for t in m["tasks"].values())
    # the gold is evidence: the example file holds gold errors and inconsistent premises
    assert m["corr2cause"]["oracle_gold_differ"] > 0
    assert m["corr2cause"]["no_oracle_label"] > 0
    assert m["corr2cause"]["gold"]["overall"]["accuracy"] < 1.0


def test_random_baselines_are_seeded_and_resumable(mixed: Path, tmp_path: Path) -> None:
    cfg = {"model": "random-proportional", "data": mixed, "seed": 7}
    first = run_eval(EvalConfig(report=tmp_path / "a.json", **cfg))
    again = run_eval(EvalConfig(report=tmp_path / "b.json", **cfg))
    assert first["metrics"] == again["metrics"]
    other = run_eval(EvalConfig(report=tmp_path / "c.json", **{**cfg, "seed": 8}))
    assert other["metrics"] != first["metrics"]

    # cut the results file short: a rerun predicts only the missing items
    results = tmp_path / "a.results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines[:101]) + "\n" + lines[101][:20])  # + a torn line
    resumed = run_eval(EvalConfig(report=tmp_path / "a.json", **cfg))
    assert resumed["timing"]["items_resumed"] == 100
    assert resumed["timing"]["items_run"] == first["metrics"]["items"] - 100
    assert resumed["metrics"] == first["metrics"]
    with pytest.raises(InputError, match="another configuration"):
        run_eval(EvalConfig(report=tmp_path / "a.json", **{**cfg, "seed": 9}))
    fresh = run_eval(EvalConfig(report=tmp_path / "a.json", fresh=True, **{**cfg, "seed": 9}))
    assert fresh["timing"]["items_resumed"] == 0


def test_uniform_baseline_metrics_match_a_hand_computation(mixed: Path, tmp_path: Path) -> None:
    report = run_eval(EvalConfig(model="random-uniform", data=mixed, report=tmp_path / "u.json"))
    records = [r for r in _records(report) if r["task"] == "corr2cause"]
    truth = [(r["prediction"], r["oracle_label"]) for r in records if r["oracle_label"] is not None]
    tp = sum(p == 1 and t == 1 for p, t in truth)
    fp = sum(p == 1 and t == 0 for p, t in truth)
    fn = sum(p != 1 and t == 1 for p, t in truth)
    got = report["metrics"]["corr2cause"]["oracle"]["overall"]
    assert (got["tp"], got["fp"], got["fn"]) == (tp, fp, fn)
    assert got["f1"] == pytest.approx(2 * tp / (2 * tp + fp + fn), abs=1e-5)
    ie = [r for r in _records(report) if r["task"] == "IE"]
    assert report["metrics"]["tasks"]["IE"]["gold"]["accuracy"] == \
        round(sum(r["prediction"] == r["gold"] for r in ie) / len(ie), 6)


def test_model_needs_the_gpu_extra_or_reports_a_bad_path(tmp_path: Path, capsys) -> None:
    code = main(["eval", "--model", str(tmp_path / "no-such-model"), "--data",
                 str(DATA / "n3.jsonl"), "--report", str(tmp_path / "r.json"), "--quiet"])
    assert code == 2
    assert "error" in capsys.readouterr().err


def test_server_uses_clients_remote_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "causal_oracle.clients.remote", None)
    with pytest.raises(InputError, match="gRPC client"):
        make_scorer("127.0.0.1:1")
    fake = types.ModuleType("causal_oracle.clients.remote")
    fake.make_scorer = lambda address, profile: ("remote", address, profile)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "causal_oracle.clients.remote", fake)
    assert make_scorer("127.0.0.1:1", "strict") == ("remote", "127.0.0.1:1", "strict")
    assert make_scorer(None).name == "in-process"


def test_server_through_an_oracle_client(monkeypatch: pytest.MonkeyPatch, tmp_path: Path
                                         ) -> None:
    """Without make_scorer, --server drives clients.remote.OracleClient (Verify/Answer);
    a stand-in client backed by the in-process oracle gives the in-process metrics."""
    from causal_oracle.entry import default

    class FakeClient:
        def __init__(self, address: str) -> None:
            self.address = address

        def health(self) -> str:
            return "SERVING"

        def verify_result(self, premise: str, hypothesis: str, **options: str):
            return default().verify(premise, hypothesis, options["profile"])

        def answer_result(self, prompt: str, task: str, model_answer: str | None = None):
            return default().answer(prompt, task, model_answer=model_answer)

    fake = types.ModuleType("causal_oracle.clients.remote")
    fake.OracleClient = FakeClient  # type: ignore[attr-defined]
    fake.pb = types.SimpleNamespace(GRADE_CORRECT=1, GRADE_WRONG=2)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "causal_oracle.clients.remote", fake)
    data = tmp_path / "small.jsonl"
    lines = (EXAMPLES / "corr2cause_sample.jsonl").read_text().splitlines()[:20]
    lines += (EXAMPLES / "ie_sample.jsonl").read_text().splitlines()[:10]
    lines += (EXAMPLES / "cibench_sample.jsonl").read_text().splitlines()[:10]
    data.write_text("\n".join(lines) + "\n")
    cfg = {"model": "random-uniform", "data": data, "seed": 3}
    local = run_eval(EvalConfig(report=tmp_path / "local.json", **cfg))
    remote = run_eval(EvalConfig(report=tmp_path / "remote.json", server="h:1", **cfg))
    assert remote["config"]["scorer"] == "grpc"
    assert remote["metrics"]["corr2cause"] == local["metrics"]["corr2cause"]
    for task, entry in local["metrics"]["tasks"].items():
        assert remote["metrics"]["tasks"][task]["oracle"] == entry["oracle"]


COLLIDER = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
            "statistical relations among these 3 variables are as follows: A correlates with "
            "C. B correlates with C. However, A is independent of B.\nHypothesis: A directly "
            "causes C.")  # gold: Yes


def test_reasoning_columns_of_a_generated_reply() -> None:
    from causal_oracle.clients.evaluate.baselines import Reference
    from causal_oracle.clients.evaluate.data import Item
    from causal_oracle.clients.evaluate.job import score
    from causal_oracle.clients.evaluate.metrics import compute_metrics
    from causal_oracle.clients.evaluate.runner import Output

    premise, hypothesis = split_input(COLLIDER)
    item = Item(key="c", row=1, task="corr2cause", prompt=COLLIDER, premise=premise,
                hypothesis=hypothesis, gold=1)
    ref = Reference(label=1, relation="entailment", answer_text="Yes")
    reply = Output("C is a collider between A and B. C causes A. Answer: Yes")
    plain = score(item, ref, reply, make_scorer())
    assert "reasoning" not in plain and plain["correct_oracle"] is True
    rec = score(item, ref, reply, make_scorer(reasoning=True))
    assert rec["reasoning"] == {"claims": 2, "false_claims": 1, "score": 0.5, "lucky": True,
                                "unsupported": False}
    assert compute_metrics([rec])["reasoning"]["lucky_share"] == 1.0
    assert "reasoning" not in compute_metrics([plain])
    with pytest.raises(InputError, match="cannot reach"):  # --server: the same columns
        make_scorer("localhost:1", reasoning=True)  # (tests/test_reasoning_remote.py)


def test_eval_reasoning_over_a_run(mixed: Path, tmp_path: Path) -> None:
    report = run_eval(EvalConfig(model="oracle", data=mixed, report=tmp_path / "r.json",
                                 limit=30, reasoning=True))
    r = report["metrics"]["reasoning"]
    assert r["reasoned"] > 0 and r["lucky"] == 0  # the oracle's bare answers: no claims
    assert r["unsupported"] == r["correct"] and r["lucky_share"] == 0.0
    assert "Reasoning:" in Path(report["files"]["table"]).read_text(encoding="utf-8")
    assert report["config"]["reasoning"] is True
