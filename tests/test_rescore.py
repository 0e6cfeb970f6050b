"""``causal-oracle rescore``: stored rollouts re-graded offline with the current verifier,
and the rewards that change between two settings."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

from causal_oracle.clients import rescore as module
from causal_oracle.clients.cli import main
from causal_oracle.clients.rescore import Setting, rescore
from causal_oracle.entry import InputError

ITEM = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the statistical "
        "relations among these 2 variables are as follows: A correlates with B.\n"
        "Hypothesis: A directly causes B.")
# "A is a cause for D, but not a direct one": yes under corr2cause, no under strict
CHAIN = ("Premise: Suppose there is a closed system of 4 variables, A, B, C and D. All the "
         "statistical relations among these 4 variables are as follows: A correlates with B. "
         "A correlates with C. A correlates with D. B correlates with C. B correlates with D. "
         "C correlates with D. However, B and C are independent given A.\n"
         "Hypothesis: A is a cause for D, but not a direct one.")


def _rollouts(tmp_path: Path) -> Path:
    rows = [
        {"prompt": [{"role": "user", "content": ITEM}],
         "completion": [{"role": "assistant", "content": "<answer>No</answer>"}],
         "reward": 1.0},
        {"prompt": ITEM, "completion": "Yes.", "reward": 1.0},  # paid wrongly then
        {"prompt": ITEM, "completion": "", "reward": 0.0},
        {"prompt": "What is 2 + 2?", "completion": "4", "reward": None},
        {"prompt": ITEM, "completion": "No.", "task": 17, "reward": 0.0},  # task not text
        {"prompt": CHAIN, "completion": "Yes.", "reward": 1.0},
    ]
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{not json\n")
    return path


def test_doctest() -> None:
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


def test_every_sample_is_rescored_with_its_status(tmp_path: Path) -> None:
    result = rescore(_rollouts(tmp_path))
    assert [(s.reward.reward, s.reward.status) for s in result.samples] == [
        (1.0, "correct"), (0.0, "wrong"), (0.0, "unreadable"), (None, "no_question"),
        (None, "invalid"), (1.0, "correct"), (None, "invalid")]
    assert "task must be text" in result.samples[4].reward.reason
    assert "line 7" in result.samples[6].reward.reason
    # row 2 was paid 1.0 and is wrong; the null-paid and the unreadable rows agree
    assert result.changed_from_stored == 2  # row 2, and row 5 (paid 0.0, now no reward)
    assert result.compared is None and result.changed == []


def test_compare_lists_the_rewards_that_change(tmp_path: Path) -> None:
    path = _rollouts(tmp_path)
    weighted = rescore(path, Setting(), Setting(format_weight=0.25))
    assert [(s.row, s.reward.reward, s.other.reward) for s in weighted.changed] == [(1, 1.0, 1.25)]
    profiles = rescore(path, Setting(), Setting(profile="strict"))
    assert [(s.row, s.reward.status, s.other.status) for s in profiles.changed] == [
        (6, "correct", "wrong")]
    same = rescore(path, Setting(), Setting())
    assert same.changed == []


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _rollouts(tmp_path)
    assert main(["rescore", str(path), "--compare", "format_weight=0.5"]) == 0
    out = capsys.readouterr().out
    assert "7 samples" in out and "rewards that change: 1" in out
    assert "differ from the stored 'reward': 2" in out and "correct" in out
    records = tmp_path / "out.jsonl"
    assert main(["rescore", str(path), "--json", "--records", str(records)]) == 0
    report = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(c))
    assert report["samples"] == 7 and report["by_status"]["correct"] == 2
    assert [json.loads(line)["status"] for line in records.read_text().splitlines()][:3] == \
        ["correct", "wrong", "unreadable"]
    assert main(["rescore", str(path), "--compare", "weight=2"]) == 2
    assert "--compare takes KEY=VALUE" in capsys.readouterr().err
    assert main(["rescore", str(path), "--compare", "profile=nonsense"]) == 2
    assert main(["rescore", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["rescore", str(path), "--reply-column", "nope"]) == 2


def test_a_setting_names_the_bad_key() -> None:
    with pytest.raises(InputError, match="format_weight='x'"):
        Setting().changed("format_weight=x")
    assert Setting().changed("format-weight=0.1,profile=loose") == \
        Setting(profile="loose", format_weight=0.1)


def test_compare_a_reasoning_weight(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    rows = [{"prompt": ITEM, "completion": "A and B are adjacent. The answer is No."},
            {"prompt": ITEM, "completion": "A is independent of B. The answer is No."},
            {"prompt": ITEM, "completion": "The answer is No."}]
    path = tmp_path / "reasoned.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = rescore(path, Setting(), Setting().changed("reasoning_weight=0.5"))
    assert [(s.reward.reward, s.other.reward) for s in result.samples
            if s.other is not None] == [(1.0, 1.5), (1.0, 1.0), (1.0, 1.0)]
    assert [s.row for s in result.changed] == [1]
    assert "reasoning_weight" not in Setting().describe()
    assert "reasoning_weight=0.5" in Setting(reasoning_weight=0.5).describe()
    assert main(["rescore", str(path), "--compare", "reasoning_weight=x"]) == 2
    assert "reasoning_weight='x' is not a number" in capsys.readouterr().err
