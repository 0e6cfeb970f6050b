"""How CLEAR writes its option letters and node sets, for the family and its generator.

The CLEAR family reads replies and writes answers in these forms (``entry.families.clear``),
and its generator writes questions' options and subjects in them
(``entry.families.clear_generator_text``); both take them from here, so neither imports
the other.

    >>> quoted_set(["A", "B"]), quoted_set([]), OPTIONS
    ("{'A', 'B'}", 'set()', 'ABCD')
"""

from __future__ import annotations

from collections.abc import Sequence

OPTIONS = "ABCD"  #: CLEAR's multiple-choice option letters


def quoted_set(names: Sequence[str]) -> str:
    """A node set as CLEAR writes it, in the order given: ``{'A', 'B'}``, ``set()``."""
    return "{" + ", ".join(f"'{v}'" for v in names) + "}" if names else "set()"


__all__ = ["OPTIONS", "quoted_set"]
