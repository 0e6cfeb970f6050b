"""Limits fit the data: the library and the CLI take what the project's own generator
writes and multi-hundred-kilobyte premises; a server keeps conservative defaults; the
options set either."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import causal_oracle as co
from causal_oracle.clients import cli
from causal_oracle.entry import BudgetExceeded, Limits, Service, default
from causal_oracle.entry.limits import SERVER_STATEMENTS, SERVER_TEXT_BYTES
from causal_oracle.server_config import config_of


def _long_premise(n: int = 6, length: int = 20_000) -> tuple[str, list[str]]:
    names = [f"V{i}" + "x" * length for i in range(n)]
    sentences = " ".join(f"{a} correlates with {b}." for i, a in enumerate(names)
                         for b in names[i + 1:])
    return (f"Suppose there is a closed system of {n} variables, {', '.join(names[:-1])} and "
            f"{names[-1]}. All the statistical relations among these {n} variables are as "
            f"follows: {sentences}"), names


def test_in_process_takes_a_premise_a_server_refuses() -> None:
    premise, names = _long_premise()
    assert len(premise.encode()) > SERVER_TEXT_BYTES
    hypothesis = f"{names[0]} directly causes {names[1]}."
    assert co.verify(premise, hypothesis).relation == "neutral"
    with pytest.raises(BudgetExceeded, match="limit is 262,144 bytes"):
        Service(Limits()).verify(premise, hypothesis)


def test_the_generators_n9_output_audits_clean(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "n9.jsonl"
    assert cli.main(["generate", "--n", "9", "--classes", "5", "--seed", "1",
                     "--out", str(out)]) == 0
    report = tmp_path / "report.json"
    assert cli.main(["audit", str(out), "--quiet", "--report", str(report)]) == 0
    summary = json.loads(report.read_text())["summary"]
    # every label is the oracle's own: nothing disagrees; items the semantics profiles
    # label differently are counted ambiguous (exclusive of agree), the rest agree
    assert summary["agree"] > 0 and summary["disagree"] == 0
    assert summary["items"] == summary["agree"] + summary["ambiguous"]
    capsys.readouterr()


def test_limit_options_reach_the_service(capsys: pytest.CaptureFixture[str]) -> None:
    premise = ("Suppose there is a closed system of 3 variables, A, B and C. All the "
               "statistical relations among these 3 variables are as follows: A correlates "
               "with C. B correlates with C. However, A is independent of B.")
    previous = default()
    try:
        for argv in (["--max-statements", "2", "verify"], ["verify", "--max-statements", "2"]):
            code = cli.main([*argv, "--premise", premise, "--hypothesis", "A directly causes C."])
            assert code == 2 and "the limit is 2" in capsys.readouterr().err
        assert cli.main(["--max-premise-bytes", "0", "verify", "--premise", premise,
                         "--hypothesis", "x"]) == 2
    except SystemExit as stop:  # argparse refuses 0
        assert stop.code == 2
    finally:
        from causal_oracle.entry import service

        service.DEFAULT = previous
    assert "not positive" in capsys.readouterr().err


def test_server_limits_default_conservative_and_are_options() -> None:
    from causal_oracle import serve_options

    parser = __import__("argparse").ArgumentParser()
    serve_options.add_arguments(parser)
    limits = config_of(parser.parse_args([])).limits()
    assert (limits.text_bytes, limits.statements) == (SERVER_TEXT_BYTES, SERVER_STATEMENTS)
    limits = config_of(parser.parse_args(["--max-premise-bytes", "3000000",
                                          "--max-statements", "50000"])).limits()
    assert (limits.text_bytes, limits.statements) == (3_000_000, 50_000)
