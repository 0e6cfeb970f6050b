"""Column roles: which column of a dataset holds what a family reads, found one way.

A dataset names its columns as it likes; the families read *roles* — ``premise``,
``hypothesis``, ``input``, ``label``, ``relation``, ``id`` (the audit's roles), and for
graded answers ``prompt`` and ``reply``.  Every surface that reads a file (``audit``,
``eval``, the harness exports, ``grade FILE``) matches roles to columns here:

1. a name the user gives (``--label-column gold``) wins — and must be a column of the
   file: a name the file lacks is an ``InputError`` naming it and listing the columns
   present, never silently ignored (``check_named``);
2. otherwise the role's own name, then well-known aliases (``sentence1`` for premise,
   ``gold`` for label, …), in ``ALIASES`` order;
3. ``canonical(row, names)`` copies the named columns under the role names the
   families read, leaving the row's own columns in place.

The reply column of ``grade FILE`` is never guessed among several: one of
``REPLY_CANDIDATES`` present is taken, several or none is an error naming them
(``reply_column``).

    >>> d = detect_columns(["sentence1", "sentence2", "gold"])
    >>> d.names["premise"], d.names["label"], d.layout
    ('sentence1', 'gold', 'generator')
    >>> canonical({"sentence1": "P", "x": 1}, {"premise": "sentence1"})
    {'sentence1': 'P', 'x': 1, 'premise': 'P'}
    >>> reply_column(["prompt", "completion", "id"])
    'completion'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from causal_oracle.entry import InputError

#: the roles the audit's families read, in the order options list them
ROLES = ("premise", "hypothesis", "input", "label", "relation", "id")
ALIASES: Mapping[str, Sequence[str]] = {
    "premise": ("premise", "context", "sentence1", "Premise"),
    "hypothesis": ("hypothesis", "sentence2", "claim", "Hypothesis"),
    "input": ("input", "text", "Input", "question_text"),
    "label": ("label", "labels", "gold", "gold_label", "answer", "target", "Label"),
    "relation": ("relation", "gold_relation", "causal_relation"),
    "id": ("id", "uid", "idx", "ID"),
}
#: the columns ``grade FILE`` takes a model's reply from, when exactly one is present
REPLY_CANDIDATES = ("response", "completion", "output", "prediction", "answer")
#: the columns a bare question text sits in, when no family reads the row as it is
PROMPT_CANDIDATES = ("prompt", "input", "question", "text")


@dataclass(frozen=True)
class Columns:
    """The dataset's column name for each audit role (default: the role's own name)."""

    premise: str = "premise"
    hypothesis: str = "hypothesis"
    input: str = "input"
    label: str = "label"
    relation: str = "relation"
    id: str = "id"

    def given(self) -> dict[str, str]:
        """The roles whose column differs from the default (what a user named)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != f.default}


DEFAULT_COLUMNS = Columns()


@dataclass(frozen=True)
class Detected:
    """Column names per role, and a sentence saying how they were found."""

    names: dict[str, str]
    message: str
    layout: str  # "generator", "published", "task" or "unknown"


def detect_columns(columns: Sequence[str], given: Mapping[str, str] | None = None
                   ) -> Detected:
    """Match roles to ``columns``: ``given`` (role → name, the user's) wins, then the
    role's name, then its aliases.  (``check_named`` first checks that a given name is a
    column at all.)"""
    given = dict(given or {})
    present = set(columns)
    names: dict[str, str] = {}
    notes: list[str] = []
    for role in ROLES:
        if role in given and given[role] != role:
            names[role] = given[role]
            continue
        found = next((a for a in ALIASES[role] if a in present), role)
        names[role] = found
        if found != role:
            notes.append(f"{role}←{found!r}")
    if "task" in present and "prompt" in present:
        layout = "task"
    elif names["premise"] in present and names["hypothesis"] in present:
        layout = "generator"
    elif names["input"] in present:
        layout = "published"
    else:
        layout = "unknown"
    shown = ", ".join(columns) if columns else "none"
    message = f"columns found: {shown}; layout: {layout}"
    if notes:
        message += "; auto-detected " + ", ".join(notes)
    return Detected(names, message, layout)


def missing_column(option: str, name: str, columns: Iterable[str]) -> InputError:
    """The error for a column the user named that the file does not have."""
    shown = ", ".join(columns) or "none"
    return InputError(f"{option} {name!r}: the file has no such column; its columns are: "
                      f"{shown}")


def check_named(given: Mapping[str, str], columns: Sequence[str],
                has_column: Any = None) -> None:
    """``InputError`` (exit 2) for a named column the file lacks, naming it and the
    columns present.  ``columns`` are the first row's (or the header's); ``has_column``
    (name → bool), when given, looks further for files whose rows differ."""
    for role, name in given.items():
        if name in columns or (has_column is not None and has_column(name)):
            continue
        raise missing_column(f"--{role}-column", name, columns)


def canonical(row: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """``row`` with the columns ``names`` (role → column) holds copied under their role
    names (the names the families read); the row's own columns stay."""
    out = dict(row)
    for role, column in names.items():
        if column != role and column in row:
            out[role] = row[column]
    return out


def renaming(columns: Sequence[str], given: Mapping[str, str] | None = None
             ) -> dict[str, str]:
    """Role → column for the roles whose column is not named after the role (what
    ``canonical`` needs): the user's names over the detected ones."""
    detected = detect_columns(columns, given).names
    return {role: name for role, name in detected.items() if name != role}


def reply_column(columns: Sequence[str], given: str | None = None) -> str:
    """The column holding the model's replies: ``given`` (which must be a column), else
    the one ``REPLY_CANDIDATES`` present; several or none is an ``InputError`` naming
    the candidates."""
    if given is not None:
        if given not in columns:
            raise missing_column("--reply-column", given, columns)
        return given
    found = [c for c in REPLY_CANDIDATES if c in columns]
    if len(found) == 1:
        return found[0]
    shown = ", ".join(columns) or "none"
    if found:
        raise InputError(f"several columns could hold the replies ({', '.join(found)}); "
                         f"name one with --reply-column (columns: {shown})")
    raise InputError(f"no reply column: expected one of {', '.join(REPLY_CANDIDATES)}, or "
                     f"name it with --reply-column (columns: {shown})")


def fix_hint(columns: Sequence[str]) -> str:
    """What to pass when no known layout matched."""
    return ("name the columns with --input-column (\"Premise: …\\nHypothesis: …\" text) or "
            "--premise-column and --hypothesis-column, and --label-column; task rows need "
            "'task' and 'prompt' columns")


__all__ = ["ALIASES", "DEFAULT_COLUMNS", "PROMPT_CANDIDATES", "REPLY_CANDIDATES", "ROLES",
           "Columns", "Detected", "canonical", "check_named", "detect_columns", "fix_hint",
           "missing_column", "renaming", "reply_column"]
