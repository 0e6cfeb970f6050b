"""Reasoning columns of a graded report: how many claims, how many false, lucky answers.

``grade FILE --reasoning`` and ``eval --reasoning`` check each reply's causal claims
against the certificate (``entry.reasoning``: a ``ReasoningResult`` per reply) and add,
as thin counts over it:

* per row — ``claims`` (the reasoning's checkable claims, the final answer's aside),
  ``false_claims``, ``score`` (the share of them that are true; None without one),
  ``lucky`` (a right answer with a false claim), ``unsupported`` (a right answer with no
  checkable claim), and the claims themselves with their spans, verdicts and why (for
  the HTML page's highlighting);
* per tally (``ReasoningTally``) — the rows checked, their claims and false claims,
  ``reasoning_score`` (true / checkable over all of them), and ``lucky_share``: the
  share of the right answers that rest on a false claim.

    >>> t = ReasoningTally()
    >>> t.add(claims=3, false_claims=1, correct=True, lucky=True, unsupported=False)
    >>> t.add(claims=0, false_claims=0, correct=True, lucky=False, unsupported=True)
    >>> t.to_json()["lucky_share"], t.to_json()["reasoning_score"]
    (0.5, 0.6667)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from causal_oracle.entry.reasoning import ReasoningResult


def row_reasoning(result: ReasoningResult, reply: str) -> dict[str, Any]:
    """One reply's reasoning as a report record holds it (``to_json`` less the final
    grade the record already has, plus the counts and the reply the spans index)."""
    out = {k: v for k, v in result.to_json().items() if k not in ("final", "family", "task")}
    out.update(checkable=result.checkable, false_claims=result.false_claims, reply=reply)
    return out


def counts(data: Mapping[str, Any]) -> dict[str, Any]:
    """A reply's reasoning counts (``eval --reasoning``'s per-result record) from its
    ``ReasoningResult.to_json()`` — as the in-process service gives it or as the gRPC
    ``Reasoning`` message carries it back, so both scorers count alike: ``claims`` the
    reasoning's checkable claims (the final answer's aside), ``false_claims``, ``score``,
    ``lucky``, ``unsupported``."""
    reasoning = [c for c in data["claims"] if c["kind"] != "answer"]
    return {"claims": sum(c["verdict"] in ("true", "false") for c in reasoning),
            "false_claims": sum(c["verdict"] == "false" for c in reasoning),
            "score": data["score"], "lucky": data["lucky"],
            "unsupported": data["unsupported"]}


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


@dataclass
class ReasoningTally:
    """Counts of the rows whose reasoning was checked (see the module docstring)."""

    reasoned: int = 0
    claims: int = 0
    false_claims: int = 0
    correct: int = 0
    lucky: int = 0
    unsupported: int = 0

    def add(self, *, claims: int, false_claims: int, correct: bool, lucky: bool,
            unsupported: bool) -> None:
        self.reasoned += 1
        self.claims += claims
        self.false_claims += false_claims
        self.correct += correct
        self.lucky += lucky
        self.unsupported += unsupported

    def add_row(self, reasoning: dict[str, Any], correct: bool) -> None:
        """Count a ``row_reasoning`` record."""
        self.add(claims=reasoning["checkable"], false_claims=reasoning["false_claims"],
                 correct=correct, lucky=reasoning["lucky"],
                 unsupported=reasoning["unsupported"])

    @property
    def reasoning_score(self) -> float | None:
        return _rate(self.claims - self.false_claims, self.claims)

    @property
    def lucky_share(self) -> float | None:
        """The share of right answers with a false claim."""
        return _rate(self.lucky, self.correct)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "reasoning_score": self.reasoning_score,
                "lucky_share": self.lucky_share}


#: the text table's extra columns: heading, width
HEADINGS = (("claims", 8), ("false", 7), ("score", 8), ("lucky", 8))


def cells(t: dict[str, Any]) -> str:
    """A tally's reasoning cells for a text table (``-``: nothing to divide)."""
    def pct(rate: float | None) -> str:
        return "-" if rate is None else f"{100 * rate:.1f}%"
    return (f"{t['claims']:>8}{t['false_claims']:>7}{pct(t['reasoning_score']):>8}"
            f"{pct(t['lucky_share']):>8}")


def heading() -> str:
    return "".join(f"{name:>{width}}" for name, width in HEADINGS)


NOTE = ("claims / false: the replies' checkable causal claims and the false ones; score = "
        "true / claims;\nlucky = right answers that rest on a false claim / right answers "
        "(--reasoning).\n")


def lucky_line(t: dict[str, Any]) -> str:
    """The summary's sentence on lucky answers."""
    share = t["lucky_share"]
    return (f"right answers with a false claim: {t['lucky']} of {t['correct']}"
            + ("" if share is None else f" ({100 * share:.1f}%)")
            + f"; right answers with no checkable claim: {t['unsupported']}\n")


__all__ = ["HEADINGS", "NOTE", "ReasoningTally", "cells", "counts", "heading", "lucky_line",
           "row_reasoning"]
