"""A one-line progress bar on standard error, for long CLI runs (audit, eval).

Redraws are limited to ``MIN_INTERVAL_S`` apart (the last one, at completion,
always shows): a 30,000-item eval that reports after every item writes a few
kilobytes to the terminal, not one line per item.
"""

from __future__ import annotations

import sys
import time

MIN_INTERVAL_S = 0.5
_last_draw = [float("-inf")]


def progress_bar(done: int, total: int, seconds: float, extra: str = "") -> None:
    """Redraw ``[####....] done/total rate items/s extra``; ends the line when complete."""
    now = time.monotonic()
    if done < total and now - _last_draw[0] < MIN_INTERVAL_S:
        return
    _last_draw[0] = now
    rate = done / seconds if seconds > 0 else 0.0
    width = 30
    filled = int(width * done / total) if total else width
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} "
                     f"{rate:,.1f} items/s{extra}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()
