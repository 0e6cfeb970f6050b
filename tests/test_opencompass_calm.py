"""``OracleEvaluator`` run by OpenCompass 0.5 itself, on the CaLM sample in
``tests/data/calm/``, with a fake model.

OpenCompass pins ``numpy<2``, ``datasets<4``, exact scikit-learn and tree-sitter
versions and needs torch, so it never goes into the project's environment: it lives in
its own, built by ``scripts/opencompass_venv.py`` (``scripts/_env.sh test`` runs it once;
docs/opencompass.md gives the build times).  The test uses that environment when its
stamp matches, builds it when ``CAUSAL_ORACLE_OPENCOMPASS`` is ``build`` or ``full``,
and otherwise skips, saying why (the build's own failure note when it failed).

The run goes through OpenCompass's own path: its CLI reads ``examples/opencompass_calm.py``
(data folder, tasks and a fake ``models`` entry substituted), its ``CaLMDataset``
renders the prompts, a fake model replays replies made from each record's gold (in
several styles) or wrong or junk, and its eval task scores every dataset twice: with
``OracleEvaluator`` and with OpenCompass's own ``CaLMEvaluator``.  By default it runs
``SUBSET`` (one task of each CaLM reading and of each part of the CaLM family, in both
languages); ``CAUSAL_ORACLE_OPENCOMPASS=full`` runs every sample file.  Asserted: the
benchmark-rule accuracy equals CaLMEvaluator's accuracy on every dataset, every reply's
CaLM score by OpenCompass's copy of CaLM's labeling equals ``parser.calm_rules``'s, and
every gold-derived reply is right under the certified grade on every task a registered
family reads.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CALM = Path(__file__).resolve().parent / "data" / "calm" / "lite_sample"
FULL = os.environ.get("CAUSAL_ORACLE_OPENCOMPASS") == "full"
#: one task per CaLM reading (yes/no, option, JSON answer, JSON prob), covering both parts
#: of the CaLM family (graph: CA-B, IV-C; effects: NIE-B, ETT-P), in English and Chinese
SUBSET = tuple(f"{task}_{language}" for task in (
    "CA-B_FA", "IV-C_CaLM-IV", "NIE-B_NIE-natural", "ETT-P_ETT-basic")
    for language in ("EN", "CN"))
NAMES = (tuple(sorted(p.stem for p in CALM.glob("*.json"))) if FULL else SUBSET)


def _environment() -> Any:
    spec = importlib.util.spec_from_file_location(
        "opencompass_venv", ROOT / "scripts" / "opencompass_venv.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def oc_python() -> Path:
    env = _environment()
    if not env.is_current():
        if os.environ.get("CAUSAL_ORACLE_OPENCOMPASS") not in ("build", "full"):
            pytest.skip(env.failure() or (
                f"no OpenCompass environment at {env.VENV} (or it is stale): "
                "scripts/_env.sh test builds it, or set CAUSAL_ORACLE_OPENCOMPASS=build "
                "(minutes; docs/opencompass.md)"))
        reason = env.ensure()
        if reason is not None:
            pytest.skip(reason)
    return env.python()  # type: ignore[no-any-return]


RUN = r'''
"""Inside the OpenCompass environment: make the fake model's replies, run OpenCompass's
CLI on the example config, and report every dataset's metrics and per-reply scores."""
import json, re, sys
from pathlib import Path

from opencompass.datasets.calm.data_processing.generate_questions import generate_question_list
from opencompass.datasets.calm.evaluation.core_metrics import compute_core_metrics

from causal_oracle.entry import REGISTRY
from causal_oracle.entry.registry import Family
from causal_oracle.parser.calm_rules import CalmReading, calm_correct, calm_task

work, data, example = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
names = sorted(sys.argv[4].split(","))

def replies_for(name, record, i):
    cn, gold, reading = name.endswith("_CN"), record["gt_answer"], calm_task(name).reading
    if reading is CalmReading.YES_NO:
        yes = gold in (1, "yes")
        said = [("是" if yes else "否") if cn else ("Yes" if yes else "No"),
                "The answer is " + ("yes." if yes else "no."),
                ("否" if yes else "是") if cn else ("No" if yes else "Yes")]
    elif reading is CalmReading.OPTION:
        g = int(gold)
        said = [f"选项{'一二三'[g - 1]}" if cn else f"Option {g}",
                f"The correct answer is option {g}", f"Option {g % 3 + 1}"]
    elif reading is CalmReading.JSON_ANSWER:
        other = {"yes": "No", "no": "Yes", "是": "否", "否": "是"}[gold.strip().lower()]
        said = [f'{{"answer": "{gold}"}}', f'Step by step... {{"ANSWER":"{gold}"}}',
                f'{{"answer": "{other}"}}']
    else:
        said = [f'{{"ANSWER":"Yes","PROB":"{gold:.4f}"}}', f'{{"prob": {gold:.4f}}}',
                f'{{"ANSWER":"Yes","PROB":"{gold + 0.1:.4f}"}}']
    return [said[0], said[1], said[2], "I cannot tell.", said[0]][i % 5]

replies, expected = {}, {}
for name in names:
    style = "basic-CN" if name.endswith("_CN") else "basic"
    for i, q in enumerate(generate_question_list(dataset_path=str(data / f"{name}.json"),
                                                 prompt_style=style)):
        reply = replies_for(name, q["gt_item"], i)
        replies[q["question"]] = reply
        expected.setdefault(name, []).append((q["gt_item"], reply, i % 5 in (0, 1, 4)))
(work / "replies.json").write_text(json.dumps(replies, ensure_ascii=False), encoding="utf-8")

# the benchmark rule needs a family that reads CaLM rows; for a task no registered family
# reads with a rule, a test double that only claims rows (calm_rows_family) stands in
def served(name):
    row = {**expected[name][0][0], "task": name, "prompt_style": "basic"}
    try:
        item = REGISTRY.row(row)
    except Exception:
        return None
    family = item and REGISTRY.get(item.family)
    if family is None or type(family).benchmark_rule is Family.benchmark_rule:
        return None
    return family.name

own = {name: served(name) for name in names}
config = example.read_text(encoding="utf-8")
config = config.replace('CALM_DATA = "./data/calm"', f'CALM_DATA = "{data}"')
config = config.replace("WITH_CALM_EVALUATOR = False", "WITH_CALM_EVALUATOR = True")
tasks = sorted({name[:-3] for name in names})
config = config.replace('LANGUAGES = ["EN", "CN"]',
                        f'LANGUAGES = ["EN", "CN"]\nCALM_FORMAL_TASKS = {tasks!r}')
config = config.replace("FAMILY_MODULES = []", 'FAMILY_MODULES = ["calm_rows_family"]')
replies_path = work / "replies.json"
config += (f"\nfrom fake_calm_model import ReplayModel\n"
           f"models = [dict(type=ReplayModel, abbr='replay', replies_path='{replies_path}',"
           f" max_out_len=500, batch_size=16, run_cfg=dict(num_gpus=0))]\n")
(work / "config.py").write_text(config, encoding="utf-8")

from opencompass.cli.main import main
sys.argv = ["opencompass", str(work / "config.py"), "-w", str(work / "out"), "--debug"]
main()

results = next((work / "out").glob("*/results/replay"))
report = {"datasets": {}}
for name in names:
    oracle = json.loads((results / f"calm_{name}_oracle.json").read_text(encoding="utf-8"))
    calm = json.loads((results / f"calm_{name}_calm.json").read_text(encoding="utf-8"))
    style = "basic-CN" if name.endswith("_CN") else "basic"
    parity = []
    for record, reply, gold_said in expected[name]:
        theirs, _ = compute_core_metrics([reply], name, style, [record])
        ours = calm_correct(name, record, reply, style)
        parity.append([theirs["Accuracy"] == 1, ours, gold_said])
    report["datasets"][name] = {
        "family": own[name],
        "calm_accuracy": calm["Accuracy"],
        "oracle": {k: v for k, v in oracle.items() if k != "details"},
        "certified": [d["correct"][0] for d in oracle["details"]],
        "errors": [d.get("error", [None])[0] for d in oracle["details"]],
        "parity": parity}
(work / "report.json").write_text(json.dumps(report), encoding="utf-8")
'''

FAKE_MODEL = '''
"""A fake OpenCompass model: each prompt's reply read from a JSON file."""
import json

from opencompass.models.base import BaseModel


class ReplayModel(BaseModel):
    def __init__(self, replies_path, **kwargs):
        super().__init__(path="replay", **kwargs)
        with open(replies_path, encoding="utf-8") as handle:
            self.replies = json.load(handle)

    def generate(self, inputs, max_out_len):
        return [self.replies.get(prompt, "") for prompt in inputs]

    def get_token_len(self, prompt):
        return len(prompt.split())

    def get_ppl(self, inputs, mask_length=None):
        raise NotImplementedError("a replay model only generates")

    def get_ppl_tokenwise(self, inputs, label, mask_length=None):
        raise NotImplementedError("a replay model only generates")

    def encode(self, prompt):
        raise NotImplementedError("a replay model only generates")

    def decode(self, tokens):
        raise NotImplementedError("a replay model only generates")
'''

ROWS_FAMILY = '''
"""Test double for the CaLM family's row reading, for the CaLM tasks no registered family
reads yet: it claims such a row (by its task column) so that the evaluator reaches
CaLM's benchmark rule, and declines a row that a family with a rule claims; it answers
no prompt."""
from causal_oracle.entry import REGISTRY, InputError, Item, register
from causal_oracle.entry.families.calm_rules import CalmBenchmarkRule
from causal_oracle.entry.registry import Family
from causal_oracle.parser.calm_rules import calm_task


def _no(*_args):
    raise InputError("the CaLM rows test double answers nothing")


class CalmRowsOnly(CalmBenchmarkRule, Family):
    name = "calm-rows-test-double"
    tasks = ("calm-rows-test-double",)
    parse = solve = check = render = explain = read_reply = judge = staticmethod(_no)

    def detect(self, text):
        return False

    def row(self, raw):
        task = raw.get("task")
        try:
            calm_task(task if isinstance(task, str) else "")
        except InputError:
            return None
        for family in REGISTRY:
            if family is self or type(family).benchmark_rule is Family.benchmark_rule:
                continue
            try:
                if family.row(raw) is not None:
                    return None
            except InputError:
                continue
        return Item(self.name, task, prompt="", gold=raw.get("gt_answer"), raw=raw)


register(CalmRowsOnly(), first=True)
'''


@pytest.fixture(scope="module")
def report(oc_python: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("opencompass")
    (work / "fake_calm_model.py").write_text(FAKE_MODEL, encoding="utf-8")
    (work / "calm_rows_family.py").write_text(ROWS_FAMILY, encoding="utf-8")
    (work / "run.py").write_text(RUN, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(work)}
    done = subprocess.run([str(oc_python), str(work / "run.py"), str(work), str(CALM),
                           str(ROOT / "examples" / "opencompass_calm.py"), ",".join(NAMES)],
                          cwd=work, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads((work / "report.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_every_chosen_task_file_was_run(report: dict[str, Any]) -> None:
    assert sorted(report["datasets"]) == sorted(NAMES)
    assert all(d["oracle"]["items"] == len(d["parity"]) for d in report["datasets"].values())


def test_the_benchmark_rule_scores_as_opencompass_calm_evaluator(
        report: dict[str, Any]) -> None:
    for name, data in report["datasets"].items():
        oracle = data["oracle"]
        assert oracle["benchmark_rule_items"] == oracle["items"], name
        assert oracle["benchmark_rule_accuracy"] == pytest.approx(
            100 * data["calm_accuracy"]), name


def test_each_reply_scores_as_opencompass_copy_of_calms_labeling(
        report: dict[str, Any]) -> None:
    mismatches = [(name, i) for name, data in report["datasets"].items()
                  for i, (theirs, ours, _) in enumerate(data["parity"]) if theirs != ours]
    assert not mismatches
    scores = [ours for d in report["datasets"].values() for _, ours, _ in d["parity"]]
    assert 0.3 < sum(scores) / len(scores) < 0.9  # right and wrong replies both met


def test_the_calm_family_reads_the_subset(report: dict[str, Any]) -> None:
    """Both parts (graph and effects) are registered, so the certified check below covers
    every reading, not only the tasks a test double stands in for."""
    assert all(report["datasets"][name]["family"] for name in SUBSET if name in NAMES)


def test_gold_replies_are_right_under_the_certified_grade(report: dict[str, Any]) -> None:
    """On the tasks a registered family reads (the CaLM family's parts)."""
    served = {name: data for name, data in report["datasets"].items() if data["family"]}
    assert served
    for name, data in served.items():
        for (_, _, gold_said), certified in zip(data["parity"], data["certified"],
                                                strict=True):
            if gold_said:
                assert certified is True, name
