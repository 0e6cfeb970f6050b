"""A one-line progress display on standard error, for long CLI runs (audit, eval, generate).

A terminal line is redrawn in place: a carriage return moves the cursor back to the
start of the line and the new text is written over the old one.  Over, not instead
of: where the new text is shorter, the old one's tail stays on screen (``8,822
tokens/s`` over ``18,822 tokens/s`` reads ``8,822 tokens/ss``).  ``ProgressLine``
therefore pads every redraw with spaces to the width of the previous one, and cuts a
text wider than the terminal (a wrapped line cannot be returned to with ``\\r``).

Redraws are limited to ``MIN_INTERVAL_S`` apart (the last one, at completion,
always shows): a 30,000-item eval that reports after every item writes a few
kilobytes to the terminal, not one line per item.

Two displays share it: ``progress_bar`` (``[####....] done/total rate items/s``,
when the total is known) and ``progress_count`` (``what: done items, rate items/s``,
when it is not — the generator yields items without knowing how many will come).
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

MIN_INTERVAL_S = 0.5
BAR_WIDTH = 30


def terminal_columns(stream: TextIO) -> int | None:
    """The width of the terminal behind ``stream``; None when it is not one."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):  # no fileno, not a terminal, closed
        return None


class ProgressLine:
    """One line of ``stream`` redrawn in place (see the module docstring)."""

    def __init__(self, stream: TextIO | None = None,
                 min_interval: float = MIN_INTERVAL_S) -> None:
        self._stream = stream
        self.min_interval = min_interval
        self._width = 0                 # characters drawn on the current line
        self._last = float("-inf")      # monotonic time of the last redraw

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    def draw(self, text: str, *, final: bool = False) -> None:
        """Show ``text`` in place of the line; ``final`` always shows and ends the line."""
        now = time.monotonic()
        if not final and now - self._last < self.min_interval:
            return
        self._last = now
        columns = terminal_columns(self.stream)
        if columns is not None and len(text) >= columns:
            text = text[:max(columns - 1, 0)]
        pad = " " * max(self._width - len(text), 0)
        self.stream.write(f"\r{text}{pad}")
        if final:
            self.stream.write("\n")
            self._width = 0
            self._last = float("-inf")  # the next run's first redraw shows at once
        else:
            self._width = len(text)
        self.stream.flush()


_LINE = ProgressLine()  # standard error, as it is when drawn (tests replace sys.stderr)


def bar_text(done: int, total: int, seconds: float, extra: str = "") -> str:
    """``[####....] done/total rate items/s extra``.

    >>> bar_text(5, 10, 2.0, " 3 tokens/s")
    '[###############...............] 5/10 2.5 items/s 3 tokens/s'
    """
    rate = done / seconds if seconds > 0 else 0.0
    filled = min(int(BAR_WIDTH * done / total), BAR_WIDTH) if total else BAR_WIDTH
    return (f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done:,}/{total:,} "
            f"{rate:,.1f} items/s{extra}")


def progress_bar(done: int, total: int, seconds: float, extra: str = "",
                 line: ProgressLine | None = None) -> None:
    """Redraw the bar (``bar_text``); ends the line when ``done`` reaches ``total``."""
    (line or _LINE).draw(bar_text(done, total, seconds, extra), final=done >= total)


def progress_count(what: str, done: int, seconds: float, *, final: bool = False,
                   line: ProgressLine | None = None) -> None:
    """Redraw ``what: done items, rate items/s`` (no total); ``final`` ends the line."""
    rate = done / seconds if seconds > 0 else 0.0
    (line or _LINE).draw(f"{what}: {done:,} items, {rate:,.1f} items/s", final=final)


__all__ = ["MIN_INTERVAL_S", "ProgressLine", "bar_text", "progress_bar", "progress_count",
           "terminal_columns"]
