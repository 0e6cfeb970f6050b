"""Grading for evaluation harnesses: one benchmark *doc*, one model generation, one grade.

lm-evaluation-harness (``clients.lm_eval_export``) and Inspect
(``clients.inspect_scorer``) both hand us a document and the text a model wrote.
This module turns dataset rows (read by ``clients.readers``) into flat *docs* —
``{"id", "ref", "task", "prompt", "gold", "gold_relation", "truth"}``, strings and
numbers only, so any harness can store them — and grades a generation against
the oracle, in-process or through the gRPC service (``server="HOST:PORT"``):

* ``acc_oracle``: 1 when the answer, as read by the project's answer grammar,
  equals the oracle's certified answer (any valid adjustment set for BA);
* ``acc_gold``: 1 when it equals the dataset's gold label (binary tasks: Corr2Cause
  yes/no, the 3-class relation, IE yes/no);
* ``gold_agrees``: CI-Bench rows only — 1 when the oracle's answer agrees with the
  generator's truth (the generator's answers are evidence, not truth);
* ``unreadable``: 1 when the answer grammar could not read a verdict.

An item the oracle has no answer for (an inconsistent Corr2Cause premise) counts
as not correct against the oracle and is not "unreadable".

The task pack (``TASKS``): ``corr2cause`` (yes/no), ``corr2cause_3class``
(entailment/neutral/contradiction), ``cibench_cp``/``_ba``/``_fi``/``_ci`` and ``ie``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from causal_oracle.clients import readers
from causal_oracle.oracle.errors import InputError, OracleError


@dataclass(frozen=True)
class TaskSpec:
    """One harness task: which rows it takes and how the model is asked."""

    name: str
    kind: str            # "corr2cause" or CP/BA/FI/CI/IE
    instruction: str     # appended after the benchmark's own text
    max_tokens: int
    metrics: tuple[str, ...]


_BINARY_METRICS = ("acc_oracle", "acc_gold", "unreadable")
_CIBENCH_METRICS = ("acc_oracle", "gold_agrees", "unreadable")
TASKS: dict[str, TaskSpec] = {spec.name: spec for spec in (
    TaskSpec("corr2cause", "corr2cause",
             "Is the hypothesis necessarily true given the premise? Answer Yes or No.",
             48, _BINARY_METRICS),
    TaskSpec("corr2cause_3class", "corr2cause",
             "Does the premise entail the hypothesis, contradict it, or neither? Answer "
             "entailment, contradiction or neutral.", 48, _BINARY_METRICS),
    TaskSpec("cibench_cp", "CP", "", 256, _CIBENCH_METRICS),
    TaskSpec("cibench_ba", "BA", "", 256, _CIBENCH_METRICS),
    TaskSpec("cibench_fi", "FI", "", 256, _CIBENCH_METRICS),
    TaskSpec("cibench_ci", "CI", "", 256, _CIBENCH_METRICS),
    TaskSpec("ie", "IE", "Answer yes or no.", 48, _BINARY_METRICS),
)}


def _binary(value: Any) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value in (0, 1):
        return value
    text = str(value).strip().lower()
    return {"1": 1, "true": 1, "yes": 1, "0": 0, "false": 0, "no": 0}.get(text)


def doc_of(ref: int, row: dict[str, Any]) -> dict[str, Any] | None:
    """The flat doc of one dataset row, or None for a row of no known layout."""
    rid = str(row.get("id") or row.get("uid") or f"row-{ref}")
    task = str(row.get("task") or "").strip().upper()
    if task and "prompt" in row:
        gold = _binary(row.get("label")) if task == "IE" else None
        return {"id": rid, "ref": ref, "task": task, "prompt": str(row["prompt"]),
                "gold": -1 if gold is None else gold, "gold_relation": "",
                "truth": json.dumps(row.get("truth") or {}, ensure_ascii=False)}
    if "premise" in row and "hypothesis" in row:
        text = f"Premise: {str(row['premise']).strip()}\nHypothesis: " \
               f"{str(row['hypothesis']).strip()}"
    elif "input" in row:
        text = str(row["input"]).strip()
    else:
        return None
    gold = _binary(row.get("label"))
    return {"id": rid, "ref": ref, "task": "corr2cause", "prompt": text,
            "gold": -1 if gold is None else gold,
            "gold_relation": str(row.get("relation") or ""), "truth": "{}"}


def iter_docs(paths: Iterable[str | Path], task: str) -> Iterator[dict[str, Any]]:
    """The docs of ``task`` (a ``TASKS`` name) in the files ``paths``, in order."""
    spec = TASKS[task]
    for path in paths:
        source = readers.open_source(path)
        detected = readers.detect_columns(source.columns())
        rename = {name: role for role, name in detected.names.items() if name != role}
        for record in source.records():
            if record.row is None:
                continue
            row = {rename.get(k, k): v for k, v in record.row.items()}
            doc = doc_of(record.ref, row)
            if doc is None or doc["task"] != spec.kind:
                continue
            if task == "corr2cause_3class" and not doc["gold_relation"]:
                continue
            yield doc


def prompt_of(doc: dict[str, Any], task: str) -> str:
    """What the model is shown: the benchmark's text, then the task's instruction."""
    instruction = TASKS[task].instruction
    text = doc["prompt"].rstrip()
    return f"{text}\n{instruction}\nAnswer:" if instruction else text


@lru_cache(maxsize=8)
def _client(server: str) -> Any:
    from causal_oracle.clients.remote import OracleClient

    return OracleClient(server)


def _grade_remote(server: str, doc: dict[str, Any], text: str) -> tuple[bool | None, str, str,
                                                                       str]:
    from causal_oracle.clients.remote import pb

    client = _client(server)
    if doc["task"] == "corr2cause":
        from causal_oracle.clients.remote import make_request

        response = client.verify_request(make_request(input=doc["prompt"], model_answer=text,
                                                      explanation="text"))
    else:
        response = client.answer(doc["prompt"], doc["task"], model_answer=text)
    correct = {pb.GRADE_CORRECT: True, pb.GRADE_WRONG: False}.get(response.grade)
    return correct, response.normalised_answer, response.grade_reason, response.explanation


def _grade_local(doc: dict[str, Any], text: str) -> tuple[bool | None, str, str, str]:
    from causal_oracle import api

    graded = api.grade(doc["prompt"], text, "corr2cause" if doc["task"] == "corr2cause"
                       else doc["task"])
    explanation = api.answer(doc["prompt"], doc["task"] if doc["task"] != "corr2cause"
                             else "corr2cause").explanation
    return graded.correct, graded.normalised, graded.reason, explanation


@lru_cache(maxsize=4096)
def _gold_agrees(task: str, prompt: str, truth: str) -> float:
    from causal_oracle.clients import tasks

    row = {"task": task, "prompt": prompt, "truth": json.loads(truth)}
    return 1.0 if tasks.audit_row(row).get("agree") else 0.0


def grade_doc(doc: dict[str, Any], generation: str, server: str | None = None
              ) -> dict[str, Any]:
    """Grade one generation: the metrics above plus ``normalised``, ``reason`` and
    ``explanation`` (the oracle's derivation, for a harness to show)."""
    try:
        if server:
            correct, normalised, reason, explanation = _grade_remote(server, doc, generation)
        else:
            correct, normalised, reason, explanation = _grade_local(doc, generation)
    except (InputError, OracleError) as error:
        message = error.describe() if isinstance(error, InputError) else str(error)
        return {"acc_oracle": 0.0, "acc_gold": 0.0, "gold_agrees": 0.0, "unreadable": 0.0,
                "normalised": "", "reason": f"the oracle cannot answer this item: {message}",
                "explanation": ""}
    unreadable = normalised == "UNREADABLE"
    out: dict[str, Any] = {"acc_oracle": float(bool(correct)),
                           "unreadable": float(unreadable), "normalised": normalised,
                           "reason": reason, "explanation": explanation}
    if doc["task"] == "corr2cause":
        if normalised in ("entailment", "neutral", "contradiction"):
            gold = doc.get("gold_relation") or ""
            out["acc_gold"] = float(normalised == gold)
        else:
            gold_word = {1: "yes", 0: "no"}.get(int(doc.get("gold", -1)))
            out["acc_gold"] = float(gold_word is not None and normalised == gold_word)
    elif doc["task"] == "IE":
        gold_word = {1: "yes", 0: "no"}.get(int(doc.get("gold", -1)))
        out["acc_gold"] = float(gold_word is not None and normalised == gold_word)
    else:
        out["gold_agrees"] = _gold_agrees(doc["task"], doc["prompt"], doc.get("truth") or "{}")
    return out


__all__ = ["TASKS", "TaskSpec", "doc_of", "grade_doc", "iter_docs", "prompt_of"]
