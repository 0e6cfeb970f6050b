"""Argument types for the numeric options of the CLI verbs, checked when parsed.

``argparse`` turns an ``ArgumentTypeError`` into exit 2 and one line naming the
option, so a count that makes no sense (``--workers -1``) is refused before any
work, the same way on every verb (``serve`` checks its own in ``serve_options``).

>>> workers = count(0, "0 = one per core")
>>> workers("4")
4
>>> workers("-1")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: -1 is not allowed: give a whole number ≥ 0 (0 = one per core)
>>> count(1)("two")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: 'two' is not a whole number
>>> positive(float)("nan")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: nan is not a finite number
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any


def count(low: int, note: str = "") -> Callable[[str], int]:
    """An argparse ``type``: a whole number at least ``low`` (``note`` explains a special
    value, e.g. ``"0 = one per core"``)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(
                f"{value} is not allowed: give a whole number ≥ {low}"
                + (f" ({note})" if note else ""))
        return value
    parse.__name__ = "count"
    return parse


def positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse ``type``: a finite number of ``kind`` (``int``, ``float``) greater
    than 0 (the limits: ``--budget``, ``--max-premise-bytes``, ``--max-statements``).
    ``nan``, ``inf`` and ``-inf`` are refused: a budget of NaN seconds would fail every
    item, an infinite one is no budget (leave the option out for the default)."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text} is not a finite number")
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text} is not positive")
        return value
    parse.__name__ = getattr(kind, "__name__", "number")
    return parse


def workers() -> Callable[[str], int]:
    """``--workers``: processes, 0 meaning one per core (the convention of ``serve``)."""
    return count(0, "0 = one per core")


__all__ = ["count", "positive", "workers"]
