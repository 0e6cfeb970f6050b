"""Metrics over per-item results, against the oracle and against gold.

Binary label, positive = valid (Corr2Cause label 1, IE "yes").  For the items
with a truth (the oracle's label, or the gold label):

* tp, fp, tn: readable predictions against the truth;
* fn: truth valid, prediction invalid **or unreadable**;
* an unreadable prediction on an invalid item is neither tn nor fp: it is wrong;
* accuracy = (tp + tn) / items — unreadable answers count as wrong;
* precision = tp / (tp + fp), recall = tp / (tp + fn), F1 their harmonic mean
  (0 when undefined);
* unreadable_rate = unreadable / items.

Open-answer tasks (CP, BA, FI, CI) and IE have accuracy = correct / items with
unreadable answers wrong.  Items the oracle cannot label (an inconsistent premise,
unreadable item text) are left out of the oracle metrics and counted in
``no_oracle_label``; items without gold are left out of the gold metrics.
``oracle_gold_differ`` counts the items where the oracle and the gold disagree.

Each result record is a dict with ``task``, ``prediction`` (0/1/None, yes/no items),
``correct_oracle`` / ``correct_gold`` (True/False/None), ``oracle_label``,
``gold``, ``oracle_gold_agree``, ``unreadable``, ``relation`` and ``num_nodes``, and
with ``eval --reasoning`` ``reasoning`` (the reply's checked claims: ``claims``,
``false_claims``, ``lucky``, ``unsupported``), summed in ``metrics["reasoning"]``
(``clients.reasoning_columns``: claims, false claims, ``reasoning_score``,
``lucky_share`` — the share of right answers that rest on a false claim).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from causal_oracle.clients.evaluate.data import CORR2CAUSE
from causal_oracle.clients.reasoning_columns import ReasoningTally


def _ratio(a: int, b: int) -> float:
    return round(a / b, 6) if b else 0.0


def binary_scores(pairs: Iterable[tuple[int | None, int]]) -> dict[str, Any]:
    """Scores of (prediction or None, truth) pairs.

    >>> s = binary_scores([(1, 1), (0, 1), (None, 1), (1, 0), (0, 0), (None, 0)])
    >>> (s["tp"], s["fp"], s["fn"], s["tn"], s["unreadable"], s["accuracy"], s["f1"])
    (1, 1, 2, 1, 2, 0.333333, 0.4)
    """
    tp = fp = fn = tn = unreadable = items = 0
    for pred, truth in pairs:
        items += 1
        unreadable += pred is None
        if truth == 1:
            tp += pred == 1
            fn += pred != 1
        else:
            fp += pred == 1
            tn += pred == 0
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    f1 = round(2 * precision * recall / (precision + recall), 6) if precision + recall else 0.0
    return {"items": items, "tp": tp, "fp": fp, "fn": fn, "tn": tn, "unreadable": unreadable,
            "accuracy": _ratio(tp + tn, items), "precision": precision, "recall": recall,
            "f1": f1, "unreadable_rate": _ratio(unreadable, items)}


def accuracy_scores(grades: Iterable[bool | None]) -> dict[str, Any]:
    """Accuracy of graded answers (None = unreadable, counted wrong)."""
    items = correct = unreadable = 0
    for g in grades:
        items += 1
        correct += g is True
        unreadable += g is None
    return {"items": items, "correct": correct, "unreadable": unreadable,
            "accuracy": _ratio(correct, items), "unreadable_rate": _ratio(unreadable, items)}


def _grouped(records: list[dict[str, Any]], truth: str) -> dict[str, Any]:
    labelled = [r for r in records if r.get(truth) is not None]
    by_relation: dict[str, list[dict[str, Any]]] = {}
    by_n: dict[int, list[dict[str, Any]]] = {}
    for r in labelled:
        by_relation.setdefault(str(r.get("relation")), []).append(r)
        by_n.setdefault(int(r.get("num_nodes") or 0), []).append(r)

    def scores(rs: list[dict[str, Any]]) -> dict[str, Any]:
        return binary_scores((r["prediction"], r[truth]) for r in rs)

    return {"overall": scores(labelled),
            "by_relation": {k: scores(v) for k, v in sorted(by_relation.items())},
            "by_num_nodes": {str(k): scores(v) for k, v in sorted(by_n.items())}}


def compute_metrics(records: list[dict[str, Any]]) -> dict[str, Any]:
    """All metrics of the report (see the module docstring)."""
    unreadable = sum(bool(r.get("unreadable")) for r in records)
    out: dict[str, Any] = {"items": len(records), "unreadable": unreadable,
                           "unreadable_rate": _ratio(unreadable, len(records))}
    c2c = [r for r in records if r["task"] == CORR2CAUSE]
    if c2c:
        section: dict[str, Any] = {"items": len(c2c), "oracle": _grouped(c2c, "oracle_label")}
        if any(r.get("gold") is not None for r in c2c):
            section["gold"] = _grouped(c2c, "gold")
        section["oracle_gold_differ"] = sum(r.get("oracle_gold_agree") is False for r in c2c)
        section["no_oracle_label"] = sum(r.get("oracle_label") is None for r in c2c)
        section["unreadable"] = sum(bool(r.get("unreadable")) for r in c2c)
        out[CORR2CAUSE] = section
    tasks: dict[str, Any] = {}
    for task in dict.fromkeys(r["task"] for r in records if r["task"] != CORR2CAUSE):
        rs = [r for r in records if r["task"] == task]
        if not rs:
            continue
        graded = [r for r in rs if not r.get("oracle_error")]
        entry: dict[str, Any] = {"items": len(rs),
                                 "oracle": accuracy_scores(r["correct_oracle"] for r in graded)}
        with_gold = [r for r in rs if r.get("gold") is not None]
        if with_gold:
            entry["gold"] = accuracy_scores(r["correct_gold"] for r in with_gold)
        entry["oracle_gold_differ"] = sum(r.get("oracle_gold_agree") is False for r in rs)
        entry["no_oracle_label"] = len(rs) - len(graded)
        tasks[task] = entry
    if tasks:
        out["tasks"] = tasks
    reasoned = [r for r in records if r.get("reasoning")]
    if reasoned:
        tally = ReasoningTally()
        for r in reasoned:
            x = r["reasoning"]
            tally.add(claims=x["claims"], false_claims=x["false_claims"],
                      correct=r.get("correct_oracle") is True, lucky=x["lucky"],
                      unsupported=x["unsupported"])
        out["reasoning"] = tally.to_json()
    return out
