"""CLI manners: help lines everywhere, an audit table whose columns add up, progress
bars that redraw at a sane rate, answer/grade through the service."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import pytest

from causal_oracle.clients import progress
from causal_oracle.clients.audit import run_audit
from causal_oracle.clients.audit_report import summary_table
from causal_oracle.clients.cli import build_parser, main

DATA = Path(__file__).parent / "data"


def _missing_help(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> list[str]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                if not helps.get(name):
                    out.append(" ".join((*path, name)))
                out += _missing_help(sub, (*path, name))
        elif not isinstance(action, argparse._HelpAction) and not action.help:
            out.append(" ".join((*path, *(action.option_strings or [action.dest]))))
    return out


def test_every_subcommand_and_option_has_a_help_line() -> None:
    assert _missing_help(build_parser(), ()) == []


def test_audit_table_columns_add_up_and_have_a_legend() -> None:
    table = summary_table(run_audit(DATA / "hf_layout_sample.csv"))
    rows = [line for line in table.splitlines()
            if line[:22].strip() and line[22:].split() and
            all(part.isdigit() for part in line[22:].split())]
    assert len(rows) > 5
    for line in rows:
        items, *parts = (int(x) for x in line[22:].split())
        assert items == sum(parts), line
    assert "ambig.: the semantics profiles label the item differently" in table
    assert "undet." not in table  # not an outcome Corr2Cause has


def test_progress_bar_redraws_a_few_times_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(progress, "_LINE", progress.ProgressLine())
    for done in range(1, 30_001):
        progress.progress_bar(done, 30_000, done / 1000)
    assert len(err.getvalue()) < 2_000  # one line per 0.5 s, and the last one
    assert err.getvalue().endswith("30,000/30,000 1,000.0 items/s\n")


def test_audit_report_lists_three_class_disagreements(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["audit", str(DATA / "n4.jsonl"), "--report", str(out), "--quiet"]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    listed = report["three_class_disagreements"]
    binary = {d["row"] for d in report["disagreements"]}
    assert 0 < len(listed) <= report["three_class"]["disagree"]
    assert all(d["gold_relation"] != d["derived_relation"] for d in listed)
    assert not binary & {d["row"] for d in listed}  # a row is listed once
    assert len(listed) + sum(d["gold_relation"] != d["derived_relation"]
                             for d in report["disagreements"] + report["ambiguous"]
                             if d["derived_label"] != d["gold"]) == \
        report["three_class"]["disagree"]


def test_eval_does_not_call_inconsistent_premises_unreadable(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["eval", "--model", "oracle", "--data", str(DATA / "hf_layout_sample.csv"),
                 "--report", str(out), "--quiet", "--fresh"]) == 0
    metrics = json.loads(out.read_text(encoding="utf-8"))["metrics"]
    assert metrics["unreadable"] == 0
    assert metrics["corr2cause"]["no_oracle_label"] == 4
    assert "4 without an oracle label" in (tmp_path / "r.md").read_text(encoding="utf-8")


def test_answer_and_grade_through_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_grpc_service import ServerThread  # type: ignore[import-not-found]

    prompt = json.loads((Path(__file__).parents[1] / "examples" / "ie_sample.jsonl")
                        .read_text(encoding="utf-8").splitlines()[0])["prompt"]
    assert main(["answer", "--prompt", prompt]) == 0
    local = capsys.readouterr().out
    thread = ServerThread(workers=1, grace=1.0)
    thread.start()
    try:
        assert main(["answer", "--prompt", prompt, "--server", thread.target]) == 0
        remote = capsys.readouterr().out
        assert main(["grade", "--prompt", prompt, "--answer", "So the answer is yes.",
                     "--server", thread.target]) == 0
        graded = capsys.readouterr().out
    finally:
        thread.stop(grace=0.5)
    assert remote.splitlines()[:2] == local.splitlines()[:2]
    assert "read as:  yes" in graded
