"""The JSON field CaLM's scorer reads a numeric or a natural-story reply by.

CaLM asks its effect tasks for a JSON object: ``{"answer": "Yes"}`` for the yes/no
stories (ATE/CDE/ETT/NDE/NIE ``-B``), ``{"ANSWER": …, "PROB": "0.1234"}`` for the
numeric ones (``-P``, and PN/PS).  Its scorer (``evaluation/labeling/Natural.py`` and
``Probability.py``) finds the object in the lower-cased reply, with a closing brace
appended, so:

1. **the candidate objects** are, left to right and without overlap, each run of ``{``
   up to the first ``}`` after it, with the run of ``}`` that follows (a regex
   ``\\{+.*?\\}+``); under a chain-of-thought prompt style for ATE/CDE/ETT/NDE/NIE only
   the objects that open exactly with ``{"answer":`` count, each up to its first ``}``;
2. **a doubled brace is trimmed**: ``{{…}}}`` loses one opening and two closing
   braces, ``{{…}}`` one of each, ``{{…}`` one opening, ``{…}}`` one closing;
3. **the object is read as JSON**; failing that, every bare word after a ``:`` or ``,``
   that runs to a ``,`` ``:`` ``]`` or ``}`` is put in quotes, curly quotes and
   apostrophes become ``"``, and it is read again; failing that it is ``{}``;
4. **the first object that has the field** (``answer`` or ``prob``) gives its value;
   none: no value.

A ``prob`` value counts only when it is truthy and ``float`` takes it — so ``0`` and
``0.0`` written as JSON numbers read as no answer, while ``"0"`` reads as 0.0 (CaLM's
own rule, kept here on purpose: scores must match its scorer).

This module reimplements those steps as linear scans: no regular expression runs on a
reply.  Where CaLM's scorer would crash (JSON nested deeper than the interpreter's
recursion limit, an integer of more digits than Python converts) the object is read as
``{}`` instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

#: the task types whose chain-of-thought replies CaLM reads by ``{"answer":`` objects only
COT_ANSWER_TYPES = ("NIE", "NDE", "ETT", "CDE", "ATE")
_ANSWER_OPENING = '{"answer":'
_QUOTES = str.maketrans({"“": '"', "”": '"', "'": '"'})


def _brace_objects(text: str) -> Iterator[str]:
    """Each ``{…}`` candidate, as the regex ``\\{+.*?\\}+`` finds them (step 1)."""
    n, at = len(text), text.find("{")
    while at != -1:
        run = at
        while run < n and text[run] == "{":
            run += 1
        close = text.find("}", run)
        if close == -1:
            return
        end = close
        while end < n and text[end] == "}":
            end += 1
        yield text[at:end]
        at = text.find("{", end)


def _answer_objects(text: str) -> Iterator[str]:
    """Each ``{"answer":…}`` candidate up to its first ``}`` (step 1, chain of thought)."""
    at = text.find(_ANSWER_OPENING)
    while at != -1:
        close = text.find("}", at + len(_ANSWER_OPENING))
        if close == -1:
            return
        yield text[at:close + 1]
        at = text.find(_ANSWER_OPENING, close + 1)


def _trimmed(obj: str) -> str:
    """Step 2: one doubled brace trimmed."""
    if obj.startswith("{{"):
        if obj.endswith("}}}"):
            return obj[1:-2]
        if obj.endswith("}}"):
            return obj[1:-1]
        if obj.endswith("}"):
            return obj[1:]
    elif obj.startswith("{") and obj.endswith("}}"):
        return obj[:-1]
    return obj


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def quote_bare_words(text: str) -> str:
    """Step 3's repair: a bare word after ``:`` or ``,`` (spaces around it allowed) that
    runs to one of ``, : ] }`` becomes ``"word"`` with a space each side — what CaLM's
    ``add_quotes_to_unquoted`` does with the regex
    ``(?<=[:,])\\s*([\\w_]+)\\s*(?=[,:\\]})])``, in one pass."""
    out: list[str] = []
    n, last, i = len(text), 0, 0
    while i < n:
        if text[i] not in ":,":
            i += 1
            continue
        j = i + 1
        while j < n and text[j].isspace():
            j += 1
        word = j
        while j < n and _is_word(text[j]):
            j += 1
        if j == word:
            i = j
            continue
        stop = j
        while j < n and text[j].isspace():
            j += 1
        if j < n and text[j] in ",:]}":
            out.append(text[last:i + 1])
            out.append(f' "{text[word:stop]}" ')
            last = j
        i = j
    out.append(text[last:])
    return "".join(out)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _object(text: str) -> dict[str, Any]:
    """Step 3: the candidate read as JSON, repaired once, else ``{}``."""
    value = _loads(text)
    if value is None:
        value = _loads(quote_bare_words(text).translate(_QUOTES))
    return value if isinstance(value, dict) else {}


def json_field(reply: str, field: str, *, answer_objects_only: bool = False) -> Any:
    """The value of ``field`` in the first candidate object of ``reply`` that has one
    (None: none has).  ``reply`` is already stripped and lower-cased, as CaLM reads it;
    ``answer_objects_only``: the chain-of-thought reading (step 1)."""
    text = reply + "}"
    objects = _answer_objects(text) if answer_objects_only else _brace_objects(text)
    for obj in objects:
        value = _object(_trimmed(obj)).get(field)
        if value is not None:
            return value
    return None


def probability(value: Any) -> float | None:
    """A ``prob`` value as CaLM counts it: ``float(value)`` when ``value`` is truthy and
    ``float`` takes it, else None."""
    if not value:
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


__all__ = ["COT_ANSWER_TYPES", "json_field", "probability", "quote_bare_words"]
