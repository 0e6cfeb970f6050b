"""The CLI's exits on the inputs of issue 27's reproducers (``../shared/repro/cli_exit1.sh``,
``cli_budget_and_pipe.sh``): bad input is exit 2 naming what is wrong, a closed output
pipe ends quietly (141, as a Unix tool killed by SIGPIPE) — never exit 1 or a traceback.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from causal_oracle.clients import exits
from causal_oracle.clients.cli import main

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parent.parent
P3 = ("Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
      "relations among these 3 variables are as follows: A correlates with C. B correlates "
      "with C. However, A is independent of B.")


def test_a_template_that_is_not_utf8_is_bad_input_naming_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    template = tmp_path / "tpl.bin"
    template.write_bytes(b"\xff\xfe{prompt}")
    code = main(["eval", "--model", "majority", "--data", str(DATA / "n3.jsonl"),
                 "--report", str(tmp_path / "o" / "r.json"), "--template", str(template),
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == exits.EXIT_BAD_INPUT, err
    assert str(template) in err and "UTF-8" in err and "Traceback" not in err


def test_output_into_a_closed_pipe_ends_quietly() -> None:
    """``causal-oracle explain … | head -1`` once ``head`` has gone: no traceback, no
    "internal error", exit 141."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte is written
    try:
        done = subprocess.run([sys.executable, "-m", "causal_oracle.clients.cli", "explain",
                               "--premise", P3, "--hypothesis", "A directly causes C."],
                              cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    finally:
        os.close(write)
    assert done.returncode == exits.EXIT_CLOSED_PIPE == 141
    assert done.stderr == ""


class _ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_in_process(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["verify", "--premise", P3, "--hypothesis", "A directly causes C."]) == 141
    assert capsys.readouterr().err == ""


def test_a_verbs_budget_does_not_outlive_the_call(capsys: pytest.CaptureFixture[str]) -> None:
    """``--budget`` is the call's limit: the process's default service (and the budget
    every later in-process caller gets) is restored after ``main`` returns."""
    from causal_oracle.entry import default

    before = default()
    assert main(["--budget", "1", "answer", "--prompt", "Premise: Suppose there is a "
                     "closed system of 2 variables, A and B. All the statistical relations "
                     "among these 2 variables are as follows: A correlates with B.\n"
                     "Hypothesis: A directly causes B."]) == 0
    capsys.readouterr()
    assert default() is before and default().limits.budget_s != 1
