"""The audit's summary as the table ``causal-oracle audit`` prints, with its legend.

One row for all items, one per family when a file mixes families, and one per value
of each facet the families declare (``Family.facets``: Corr2Cause's relations and
numbers of variables, CLadder's rung, query type and graph, …).  The columns are the
outcomes (``entry.audit_record.Outcome``) the families present can give, and any other
outcome that occurred, so that every row's columns add up to its items.  The legend
says what each column means in each family's own words (``Family.legend``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from causal_oracle.entry.audit_record import OUTCOME_WORDS, Outcome
from causal_oracle.entry.audit_summary import Counts, Summary
from causal_oracle.entry.registry import REGISTRY, Family

HEADS = {Outcome.AGREE: "agree", Outcome.DISAGREE: "disagree", Outcome.AMBIGUOUS: "ambig.",
         Outcome.UNDETERMINED: "undet.", Outcome.INCONSISTENT: "incons.",
         Outcome.UNREADABLE: "unread.", Outcome.INTERNAL_ERROR: "internal",
         Outcome.ANSWERED: "answered"}


class Report(Protocol):
    """What the table reads of an ``AuditReport``."""

    totals: Summary
    seconds: float


def _families(summary: Summary) -> list[Family[Any, Any]]:
    return [f for f in REGISTRY if f.name in summary.families]


def columns(families: Iterable[str], counts: Mapping[str, int]) -> list[Outcome]:
    """The outcomes shown for ``families`` (names) whose overall ``counts`` (by outcome
    value) are given: those the families can give (internal errors only when there are
    some), and any that occurred."""
    present = set(families)
    kinds = {o for f in REGISTRY if f.name in present for o in f.legend()}
    kinds.discard(Outcome.INTERNAL_ERROR)  # a bug, not a kind of item: shown when it happened
    kinds |= {o for o in Outcome if counts.get(o.value)}
    return [o for o in Outcome if o in kinds or o in (Outcome.AGREE, Outcome.DISAGREE)]


def _sorted(values: dict[str, Counts]) -> list[tuple[str, Counts]]:
    return sorted(values.items(), key=lambda kv: (0, int(kv[0]), "") if kv[0].isdigit()
                  else (1, 0, kv[0]))


def legend(summary: Summary, shown: list[Outcome]) -> str:
    """Each column in the words of the families present (one line per wording)."""
    families = _families(summary)
    lines = []
    for outcome in shown:
        words: dict[str, list[str]] = {}
        for family in families:
            text = family.legend().get(outcome)
            if text is not None:
                words.setdefault(text, []).append(family.name)
        if not words:  # an outcome no family present declares, that occurred
            words = {OUTCOME_WORDS[outcome]: []}
        for text, names in words.items():
            whose = f" ({', '.join(names)})" if len(words) > 1 or len(families) > 1 else ""
            lines.append(f"{HEADS[outcome]}{whose}: {text}")
    lines.append(" + ".join(HEADS[o] for o in shown) + " = items (each item has one outcome)")
    return "\n".join(lines) + "\n"


def summary_table(report: Report) -> str:
    """The human-readable summary printed by ``causal-oracle audit``: each row's columns
    add up to its items."""
    summary = report.totals
    shown = columns(summary.families, summary.overall.to_json())
    rows: list[tuple[str, Counts]] = [("overall", summary.overall)]
    families = _families(summary)
    for family in families:
        part = summary.families[family.name]
        if len(summary.families) > 1:
            rows.append((f"family {family.name}", part.counts))
        for facet in family.facets:
            rows += [(facet.row_label(value), c)
                     for value, c in _sorted(part.facets.get(facet.name, {}))]
    width = max([22, *(len(name) + 1 for name, _ in rows)])
    buf = io.StringIO()
    header = f"{'':<{width}}{'items':>8}" + "".join(
        f"{HEADS[o]:>{max(8, len(HEADS[o]) + 1)}}" for o in shown)
    buf.write(header + "\n" + "-" * len(header) + "\n")
    for name, c in rows:
        buf.write(f"{name:<{width}}{c.items:>8}" + "".join(
            f"{c[o]:>{max(8, len(HEADS[o]) + 1)}}" for o in shown) + "\n")
    buf.write(legend(summary, shown))
    if summary.overall.reasons:
        buf.write("undet. by reason: " + ", ".join(
            f"{reason} {count}" for reason, count in sorted(summary.overall.reasons.items()))
            + "\n")
    tc = summary.three_class
    if tc["agree"] + tc["disagree"]:
        buf.write(f"3-class relation vs gold: {tc['agree']} agree, {tc['disagree']} disagree\n")
    if summary.causes:
        buf.write("cause classes: " + ", ".join(
            f"{name} {count}" for name, count in sorted(summary.causes.items())) + "\n")
    if summary.forced_edges["checked"]:
        buf.write(f"forced_edges vs CPDAG directed edges: {summary.forced_edges['checked']} "
                  f"checked, {summary.forced_edges['wrong']} wrong\n")
    buf.write(f"certificates re-checked: {summary.certificates_checked}; "
              f"{summary.overall.items / max(report.seconds, 1e-9):,.0f} items/s "
              f"({report.seconds:.2f} s)\n")
    return buf.getvalue()


__all__ = ["HEADS", "columns", "legend", "summary_table"]
