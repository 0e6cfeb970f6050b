"""The audit record: what the audit found about one dataset item, for every family.

Auditing a row re-derives its answer and compares it with the row's gold.  Whatever the
family, the result is one ``AuditRecord`` with exactly one ``Outcome`` (DESIGN.md §3.9):

* ``agree`` / ``disagree`` — the gold is / is not the certified answer;
* ``ambiguous`` — the answer depends on a reading the text leaves open (the semantics
  profiles disagree, two valid adjustment sets, several valid options): ``reason`` says
  which;
* ``undetermined`` — the text does not determine the answer (``reason``: e.g.
  ``not identifiable``);
* ``inconsistent`` — no model fits the premise (``reason``: why);
* ``unreadable`` — the row or its question could not be read (``reason``: the parse
  error, with line, column and caret when the parser located it);
* ``internal_error`` — the oracle failed (a bug: e.g. its checker rejected a
  certificate);
* ``answered`` — the row has no gold (a benchmark that withholds it, like CaLM's full
  set): the certified answer is derived and re-checked, and there is nothing to compare
  it with.  Not a finding.

Outcomes are exclusive, so over any set of records they sum to the number of items:
every surface (table, JSON, gate, JUnit, ``--records``, HTML) counts the same records.

A family describes its records through declared hooks on ``entry.registry.Family``:
its ``facets`` (the ``Facet`` names it breaks a report down by, e.g. Corr2Cause's
relation and number of variables), the words its legend uses for each outcome
(``outcome_words``), the fields of a record (``audit_fields``) and the drawing of a
finding (``audit_drawing``: ``Drawing``/``Picture``).  ``record_of`` turns a family's
fields into the record — the one place an outcome is decided.

    >>> r = record_of("ie", {"task": "IE"}, 3, "a:1", {"agree": False, "gold": "yes",
    ...               "derived": "no", "certificate_checked": True})
    >>> r.outcome, r.checked, r.to_json()["outcome"]
    (<Outcome.DISAGREE: 'disagree'>, True, 'disagree')
    >>> record_of("cladder", {}, 4, None, {"agree": None, "undetermined": "rounding",
    ...           "reason": "undetermined (rounding)"}).outcome
    <Outcome.UNDETERMINED: 'undetermined'>
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class Outcome(enum.Enum):
    """The one outcome of an audited item (see the module docstring)."""

    AGREE = "agree"
    DISAGREE = "disagree"
    AMBIGUOUS = "ambiguous"
    UNDETERMINED = "undetermined"
    INCONSISTENT = "inconsistent"
    UNREADABLE = "unreadable"
    INTERNAL_ERROR = "internal_error"
    ANSWERED = "answered"

    # each outcome is a singleton compared by identity: hashed by identity too (in C),
    # not by name in Python (a report counts every row under its outcome, several times)
    __hash__ = object.__hash__


#: what each outcome means, for a family that does not say it in its own words
OUTCOME_WORDS: Mapping[Outcome, str] = {
    Outcome.AGREE: "the gold is the certified answer",
    Outcome.DISAGREE: "the gold is not the certified answer",
    Outcome.AMBIGUOUS: "the answer depends on a reading the text leaves open",
    Outcome.UNDETERMINED: "the text does not determine the answer",
    Outcome.INCONSISTENT: "no model fits the premise",
    Outcome.UNREADABLE: "the row or its question could not be read or parsed",
    Outcome.INTERNAL_ERROR: "the oracle failed on the row (a bug: please report it)",
    Outcome.ANSWERED: "the row has no gold: the certified answer is given, re-checked",
}

#: the outcomes every family can have (a row can always be unreadable or hit a bug)
ALWAYS = (Outcome.AGREE, Outcome.DISAGREE, Outcome.UNREADABLE, Outcome.INTERNAL_ERROR)

#: outcomes a report lists row by row (every outcome but agree and answered)
FINDINGS = tuple(o for o in Outcome if o not in (Outcome.AGREE, Outcome.ANSWERED))

INTERNAL = "internal error: "


@dataclass(frozen=True, slots=True)
class Facet:
    """A dimension a family's report is broken down by (e.g. Corr2Cause's ``relation``).

    ``report_key`` names the JSON report's own breakdown for it (``by_relation``,
    ``by_num_nodes``, ``by_task``; None: only under ``families``); ``label`` writes a
    table row's name from the value (``{name}`` and ``{value}``)."""

    name: str
    report_key: str | None = None
    label: str = "{name} {value}"

    def row_label(self, value: str) -> str:
        return self.label.format(name=self.name, value=value)


@dataclass(frozen=True, slots=True)
class Picture:
    """A graph a report draws: names, edges (pairs of names) and what to highlight."""

    title: str
    names: tuple[str, ...]
    directed: tuple[tuple[str, str], ...] = ()
    undirected: tuple[tuple[str, str], ...] = ()
    bidirected: tuple[tuple[str, str], ...] = ()
    highlight: tuple[tuple[str, str], ...] = ()
    marked: tuple[str, ...] = ()  # highlighted nodes (an adjustment set, a target)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "names": list(self.names),
                "directed": [list(e) for e in self.directed],
                "undirected": [list(e) for e in self.undirected],
                "bidirected": [list(e) for e in self.bidirected],
                "highlight": [list(e) for e in self.highlight], "marked": list(self.marked)}


@dataclass(frozen=True, slots=True)
class Drawing:
    """A finding explained in its family's own form: graphs, facts (name, value: e.g.
    CLadder's estimand, formula, stated numbers, bounds, rule) and the explanation."""

    pictures: tuple[Picture, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()
    explanation: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"graphs": [p.to_json() for p in self.pictures],
                "facts": [list(f) for f in self.facts], "explanation": self.explanation}


@dataclass(slots=True)
class AuditRecord:
    """One audited item (see the module docstring).

    ``family`` is None for a row no family could read (an undecodable line);
    ``row`` the 1-based file line (record number for binary formats); ``fields`` the
    family's own report fields (e.g. Corr2Cause's hypothesis, relations and class size),
    which the JSON report's finding lists keep.  The explanation in words is not kept
    per row (writing it for every row would slow an audit several-fold): a report asks
    the family for a finding's ``Drawing`` (``Family.audit_drawing``), which holds it."""

    row: int
    id: Any  # the row's id as the data has it (a string or a number; None: none)
    outcome: Outcome
    family: str | None = None
    facets: dict[str, str] = field(default_factory=dict)
    gold: Any = None
    derived: Any = None
    reason: str | None = None
    certificate: Any = None
    checked: bool = False
    causes: list[dict[str, Any]] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The record as ``audit --records`` writes it (one JSON line per item)."""
        return {"row": self.row, "id": self.id, "family": self.family, "facets": self.facets,
                "gold": self.gold, "derived": self.derived, "outcome": self.outcome.value,
                "reason": self.reason, "causes": self.causes,
                "certificate_checked": self.checked}


def failed(row: int, rid: Any, error: str, family: str | None = None) -> AuditRecord:
    """The record of a row that could not be audited: ``internal_error`` when ``error``
    says so (it starts ``internal error: ``), else ``unreadable``."""
    outcome = Outcome.INTERNAL_ERROR if error.startswith(INTERNAL) else Outcome.UNREADABLE
    return AuditRecord(row, rid, outcome, family, reason=error)


def _outcome(fields: Mapping[str, Any]) -> tuple[Outcome, str | None]:
    """The outcome a family's fields state, and its reason."""
    reason = fields.get("reason")
    if "error" in fields:
        error = str(fields["error"])
        return (Outcome.INTERNAL_ERROR if error.startswith(INTERNAL) else Outcome.UNREADABLE,
                error)
    if fields.get("derived_relation") == "inconsistent":
        return Outcome.INCONSISTENT, reason
    if "undetermined" in fields:
        return Outcome.UNDETERMINED, str(fields["undetermined"])
    if fields.get("ambiguous"):
        return Outcome.AMBIGUOUS, reason or fields.get("ambiguous_reason")
    agree = fields.get("agree")
    if agree is None and "derived_label" in fields:
        agree = fields["derived_label"] == fields.get("gold")
    if agree is True:
        return Outcome.AGREE, reason
    if agree is False:
        return Outcome.DISAGREE, reason
    if fields.get("no_gold"):
        return Outcome.ANSWERED, reason
    # no verdict and no reason it has none: the gold could not be read against the answer
    return Outcome.UNREADABLE, reason or "the gold could not be compared with the answer"


def record_of(family: str, facets: dict[str, str], row: int, rid: Any,
              fields: dict[str, Any]) -> AuditRecord:
    """The record of an audited row from its family's fields (``Family.audit_fields``:
    ``agree`` or ``derived_label`` vs ``gold``, ``ambiguous``, ``undetermined``,
    ``derived_relation == "inconsistent"``, ``error``, ``no_gold``; ``reason``, ``causes``,
    ``certificate``, ``certificate_checked``, ``derived``/``derived_label``)."""
    outcome, reason = _outcome(fields)
    derived = fields.get("derived", fields.get("derived_label"))
    rid = fields.get("id", rid)  # a family may name the row its own way (CLEAR's uid:sid)
    return AuditRecord(row, rid, outcome, family, facets,
                       fields.get("gold"), derived, reason, fields.get("certificate"),
                       bool(fields.get("certificate_checked")), list(fields.get("causes") or ()),
                       fields)


__all__ = ["ALWAYS", "FINDINGS", "OUTCOME_WORDS", "AuditRecord", "Drawing", "Facet", "Outcome",
           "Picture", "failed", "record_of"]
