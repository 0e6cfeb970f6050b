"""The progress line as a terminal shows it: redrawn in place, with no tail of an older,
longer text left behind; ``generate`` and ``eval`` draw it only on a terminal."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from causal_oracle.clients import progress
from causal_oracle.clients.cli import main
from causal_oracle.clients.progress import ProgressLine, progress_bar, progress_count

ROOT = Path(__file__).resolve().parents[1]


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal, and renders what a terminal would show."""

    def isatty(self) -> bool:
        return True

    def screen(self) -> list[str]:
        """The visible lines: ``\\r`` returns to column 0 and overwrites, ``\\n`` ends a
        line (the cursor stays where the text ended, as on a real terminal)."""
        lines: list[list[str]] = [[]]
        col = 0
        for ch in self.getvalue():
            if ch == "\r":
                col = 0
            elif ch == "\n":
                lines.append([])
                col = 0
            else:
                row = lines[-1]
                if col < len(row):
                    row[col] = ch
                else:
                    row.append(ch)
                col += 1
        return ["".join(row).rstrip() for row in lines]


def test_a_shorter_redraw_leaves_no_debris() -> None:
    term = FakeTerminal()
    line = ProgressLine(term, min_interval=0.0)
    line.draw("[#...] 1/3 12.0 items/s 18,822 tokens/s")
    line.draw("[##..] 2/3 9.5 items/s 8,822 tokens/s")
    assert term.screen() == ["[##..] 2/3 9.5 items/s 8,822 tokens/s"]  # not tokens/sss
    line.draw("done", final=True)
    line.draw("next run")  # a new line, drawn at once: nothing to pad
    assert term.screen() == ["done", "next run"]
    assert term.getvalue().endswith("\rnext run")


def test_the_eval_bar_reads_cleanly_as_its_rates_shrink() -> None:
    term = FakeTerminal()
    line = ProgressLine(term, min_interval=0.0)
    progress_bar(1, 4, 0.1, " 18,822 tokens/s", line=line)   # 10.0 items/s
    progress_bar(2, 4, 2.0, " 8,822 tokens/s", line=line)    # 1.0 items/s, shorter
    shown = term.screen()
    assert shown == ["[###############...............] 2/4 1.0 items/s 8,822 tokens/s"]
    progress_bar(4, 4, 4.0, " 9 tokens/s", line=line)
    assert term.screen() == ["[##############################] 4/4 1.0 items/s 9 tokens/s", ""]


def test_a_line_wider_than_the_terminal_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    term = FakeTerminal()
    monkeypatch.setattr(progress, "terminal_columns", lambda stream: 20)
    line = ProgressLine(term, min_interval=0.0)
    line.draw("x" * 50)  # a wrapped line could not be returned to with \r
    line.draw("short")
    assert term.screen() == ["short"] and "x" * 20 not in term.getvalue()


def test_redraws_are_throttled_but_the_final_one_shows() -> None:
    term = FakeTerminal()
    line = ProgressLine(term, min_interval=60.0)
    for done in range(1, 1001):
        progress_count("n=4", done, done / 100, final=done == 1000, line=line)
    assert term.screen() == ["n=4: 1,000 items, 100.0 items/s", ""]
    assert term.getvalue().count("\r") == 2  # the first redraw and the final one


def _generate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stream: io.StringIO,
              *extra: str) -> Path:
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(progress, "_LINE", ProgressLine())
    out = tmp_path / "n3.jsonl"
    assert main(["generate", "--n", "3", "--out", str(out), *extra]) == 0
    return out


def test_generate_shows_progress_on_a_terminal(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    term = FakeTerminal()
    out = _generate(tmp_path, monkeypatch, term)
    written = len(out.read_text(encoding="utf-8").splitlines())
    shown = term.screen()
    assert shown[-1] == "" and shown[-2].startswith(f"n=3: {written:,} items, ")
    assert shown[-2].endswith(" items/s")


def test_generate_is_silent_when_quiet_or_not_on_a_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    term = FakeTerminal()
    _generate(tmp_path, monkeypatch, term, "--quiet")
    assert term.getvalue() == ""
    piped = io.StringIO()  # isatty() is False: a log file gets no carriage returns
    out = _generate(tmp_path, monkeypatch, piped)
    assert piped.getvalue() == "" and json.loads(out.read_text().splitlines()[0])["num_nodes"] == 3
