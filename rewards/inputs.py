"""What a trainer hands a reward function, made into text — or refused, naming the field.

Trainers hand reward functions whatever their datasets hold.  A pandas column with a
missing value is a float NaN; a verl ``extra_info`` may carry a numeric task id or a
nested dict; TRL passes every dataset column as a keyword argument — a list aligned
with the completions, or one scalar; OpenRLHF may hand a ``None`` query.  A reward
function must never raise on any of these (an exception kills the training step), and
must never guess silently.  So every value crosses one gate here:

==============================  =====================================================
the value                       becomes
==============================  =====================================================
a string                        itself, with any lone surrogate (``"\\ud800"``, valid
                                in JSON escapes, not in UTF-8) replaced by U+FFFD
``None``, NaN, ``""``           absent (``None``): a missing column value
anything else (a number, a      ``Refused``: the sample is not scored (status
bool, a dict, a list)           ``invalid``, no reward) and the reason names the field
                                and the value's type
==============================  =====================================================

``excerpt`` bounds what any message quotes of its input (``QUOTE_CHARS`` characters).

    >>> column_value(float("nan"), "extra_info['premise']") is None
    True
    >>> column_value({"x": 1}, "extra_info['task']")
    Traceback (most recent call last):
    ...
    causal_oracle.rewards.inputs.Refused: extra_info['task'] must be text or null, not a dict
    >>> clean_text("a\\ud800b")
    'a\\ufffdb'
    >>> excerpt("x" * 300)[-14:]
    'x… (300 chars)'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

QUOTE_CHARS = 200  # the most characters of input any message quotes
_SURROGATE = re.compile("[\ud800-\udfff]")


class Refused(ValueError):
    """A value a reward function cannot use; the message names the field and why."""


def clean_text(text: str) -> str:
    """``text`` with surrogate code points replaced by U+FFFD (valid Unicode, encodable)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def excerpt(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} chars)"


def _kind(value: Any) -> str:
    name = type(value).__name__
    return f"an {name}" if name[:1] in "aeiou" else f"a {name}"


def is_missing(value: Any) -> bool:
    """None, NaN or the empty string: a missing column value."""
    return value is None or (isinstance(value, float) and math.isnan(value)) or value == ""


def column_value(value: Any, field: str) -> str | None:
    """One column value as text, ``None`` when missing, else ``Refused`` naming ``field``."""
    if isinstance(value, str):
        return clean_text(value) if value.strip() else None
    if is_missing(value):
        return None
    raise Refused(f"{field} must be text or null, not {_kind(value)}")


def column_at(values: Any, i: int, field: str) -> str | None:
    """Row ``i`` of a column: a list (or tuple) aligned with the samples, or one scalar
    that every sample shares; ``Refused`` naming the field for anything else."""
    if isinstance(values, str) or is_missing(values):
        return column_value(values, field)
    if isinstance(values, Sequence) and not isinstance(values, bytes | bytearray):
        return column_value(values[i], f"{field}[{i}]") if i < len(values) else None
    if isinstance(values, Mapping):
        raise Refused(f"{field} must be a list of text (one per sample), not a dict")
    try:  # numpy arrays and pandas series index like lists
        row = values[i]
    except (TypeError, IndexError, KeyError):
        raise Refused(f"{field} must be text or a list of text (one per sample), "
                      f"not {_kind(values)}") from None
    return column_value(row, f"{field}[{i}]")


def text_value(value: Any, field: str) -> str:
    """A required text value (an OpenRLHF query or prompt): ``Refused`` when it is not
    a string."""
    if isinstance(value, str):
        return clean_text(value)
    raise Refused(f"{field} must be text, not {_kind(value) if value is not None else 'null'}")


__all__ = ["QUOTE_CHARS", "Refused", "clean_text", "column_at", "column_value", "excerpt",
           "is_missing", "text_value"]
