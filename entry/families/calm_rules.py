"""CaLM's own scoring as the family's ``benchmark_rule``: the second grade of a CaLM row.

``Family.benchmark_rule(item, reply)`` is a family's way to say what the benchmark's own
scorer makes of a reply; for CaLM that is the scorer OpenCompass runs
(``parser.calm_rules``: its phrase lists, option patterns, JSON fields and 4-decimal
equality).  ``CalmBenchmarkRule`` is the one method the CaLM family takes on (as a base
class beside ``Family``); ``calm_benchmark_rule`` is the same as a function.

The CaLM task is read from the item's task name, else from the row's own ``task``
column (``AR-B_CaLM-AR_EN`` or any name holding one); the prompt style from the row's
``prompt_style`` column (default ``basic``: only chain-of-thought styles change how CaLM
reads the effect tasks' JSON).  A row that is not a formal CaLM task, or lacks what the
rule reads (the gold, an option), has no benchmark grade: None.
"""

from __future__ import annotations

from causal_oracle.entry.registry import Item
from causal_oracle.oracle.errors import InputError
from causal_oracle.parser.calm_rules import CalmTask, calm_correct, calm_task


def _task_of(item: Item) -> CalmTask | None:
    for name in (item.task, item.raw.get("task")):
        if isinstance(name, str) and name:
            try:
                return calm_task(name)
            except InputError:
                continue
    return None


def calm_benchmark_rule(item: Item, reply: str) -> bool | None:
    """Whether CaLM's own scorer counts ``reply`` right for ``item`` (None: no rule)."""
    task = _task_of(item)
    if task is None or not isinstance(reply, str):
        return None
    style = item.raw.get("prompt_style")
    try:
        return calm_correct(task, item.raw, reply,
                            style if isinstance(style, str) and style else "basic")
    except InputError:
        return None


class CalmBenchmarkRule:
    """``Family.benchmark_rule`` for CaLM (put it before ``Family`` in the bases)."""

    def benchmark_rule(self, item: Item, reply: str) -> bool | None:
        return calm_benchmark_rule(item, reply)


__all__ = ["CalmBenchmarkRule", "calm_benchmark_rule"]
