"""The Inspect scorer and task factory, run by Inspect's own ``eval`` on its mock model.

The mock model answers each prompt from a table: the oracle's own answer for some
items, the opposite verdict for others, and text with no verdict for the rest; the
scores Inspect reports must be exactly those fractions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, get_model  # noqa: E402

from causal_oracle import answer as task_answer  # noqa: E402
from causal_oracle.clients.harness import iter_docs, prompt_of  # noqa: E402
from causal_oracle.inspect import oracle_task  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
C2C = ROOT / "examples" / "corr2cause_sample.jsonl"
IE = ROOT / "examples" / "ie_sample.jsonl"


@pytest.fixture(autouse=True)
def offline_token_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mock model counts tokens with tiktoken, which downloads its tables; CI is
    offline, so count words instead (the count is only reported, never scored)."""
    from inspect_ai.model._providers.mockllm import MockLLM

    async def words(self: Any, text: str) -> int:
        return len(text.split())

    monkeypatch.setattr(MockLLM, "count_text_tokens", words)


def _mock(replies: dict[str, str]) -> Any:
    def reply(messages: list[Any], *_args: Any) -> ModelOutput:
        text = messages[-1].text
        return ModelOutput.from_content(model="mockllm/model", content=replies[text])

    return get_model("mockllm/model", custom_outputs=reply)


def _metric(log: Any, name: str) -> float:
    for score in log.results.scores:
        if score.name == name:
            return float(score.metrics["mean"].value)
    raise AssertionError(f"{name} not in {[s.name for s in log.results.scores]}")


def test_ie_scores_match_the_answers_given(tmp_path: Path) -> None:
    docs = list(iter_docs([IE], "ie"))[:12]
    replies = {}
    for i, doc in enumerate(docs):
        right = task_answer(doc["prompt"], "IE").answer_text
        wrong = "no" if right == "yes" else "yes"
        replies[prompt_of(doc, "ie")] = (
            f"Thinking about the intervention...\n**Answer:** {right.capitalize()}" if i < 6
            else f"{wrong.capitalize()}, because of the intervention." if i < 9
            else "I cannot tell from this.")
    task = oracle_task("ie", [str(IE)])
    task.dataset = task.dataset[:12]
    (log,) = inspect_eval(task, model=_mock(replies), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert _metric(log, "acc_oracle") == pytest.approx(6 / 12)
    assert _metric(log, "unreadable") == pytest.approx(3 / 12)
    sample = log.samples[0]
    (score,) = sample.scores.values()
    assert score.answer in ("yes", "no") and score.explanation


def test_corr2cause_task_from_the_factory(tmp_path: Path) -> None:
    docs = list(iter_docs([C2C], "corr2cause"))[:8]
    replies = {prompt_of(d, "corr2cause"): ("Yes" if d["gold"] == 1 else "No") for d in docs}
    task = oracle_task("corr2cause", str(C2C))
    task.dataset = task.dataset[:8]
    (log,) = inspect_eval(task, model=_mock(replies), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert _metric(log, "acc_gold") == 1.0
    assert _metric(log, "unreadable") == 0.0


def test_a_calm_file_as_shipped_is_scored(tmp_path: Path) -> None:
    """A CaLM file names its task only in its file name: the task is that file's
    (``calm_ate_p_ate_basic``), and Inspect's scores are the fractions answered right."""
    path = ROOT / "tests" / "data" / "calm" / "lite_sample" / "ATE-P_ATE-basic_CN.json"
    docs = list(iter_docs([path], "calm_ate_p_ate_basic"))[:10]
    assert len(docs) == 10
    replies = {}
    for i, doc in enumerate(docs):
        right = task_answer(doc["prompt"], doc["task"]).answer_text
        replies[prompt_of(doc, "calm_ate_p_ate_basic")] = (
            right if i < 6 else "0.9999" if i < 8 else "我不知道。")
    task = oracle_task("calm_ate_p_ate_basic", [str(path)])
    task.dataset = task.dataset[:10]
    (log,) = inspect_eval(task, model=_mock(replies), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert _metric(log, "acc_oracle") == pytest.approx(6 / 10)
    assert _metric(log, "unreadable") == pytest.approx(2 / 10)


def test_public_module_name_and_no_stdlib_shadowing() -> None:
    import subprocess
    import sys

    import causal_oracle.inspect as public
    from causal_oracle.clients import inspect_scorer

    assert public.oracle_scorer is inspect_scorer.oracle_scorer
    # from the repository root (on sys.path as ''), `import inspect` is still the stdlib
    done = subprocess.run([sys.executable, "-c", "import inspect, causal_oracle.inspect as m; "
                           "print(inspect.__file__); print(m.__name__)"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    stdlib, name = done.stdout.split()
    assert Path(stdlib).parent != ROOT and not stdlib.startswith(str(ROOT))
    assert name == "causal_oracle.inspect"


def test_every_harness_task_is_a_registered_inspect_task() -> None:
    """The ``@task`` functions come from the registry (``clients.harness.TASKS``), each
    named ``causal_oracle/<task>`` in Inspect's registry and an attribute of
    ``causal_oracle.inspect``; ``inspect eval`` finds them through the package's
    ``inspect_ai`` entry point."""
    from importlib.metadata import entry_points

    from inspect_ai._util.registry import registry_info

    import causal_oracle.inspect as plugin
    from causal_oracle.clients.harness import TASKS

    assert set(plugin.REGISTERED) == set(TASKS) >= {"corr2cause", "corr2cause_3class", "ie",
                                                    "cibench_cp", "clear", "cladder"}
    for name in TASKS:
        assert registry_info(getattr(plugin, name)).name == f"causal_oracle/{name}"
    assert any(e.value == "causal_oracle.inspect" for e in entry_points(group="inspect_ai"))
