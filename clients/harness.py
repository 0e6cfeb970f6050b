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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from causal_oracle.clients import readers
from causal_oracle.entry import REGISTRY, UNREADABLE, InputError, Item, OracleError, default


@dataclass(frozen=True)
class TaskSpec:
    """One harness task: which rows it takes and how the model is asked."""

    name: str
    kind: str            # the task name rows carry: "corr2cause", CP/BA/FI/CI/IE, "CLEAR", …
    instruction: str     # appended after the benchmark's own text
    max_tokens: int
    metrics: tuple[str, ...]


_BINARY_METRICS = ("acc_oracle", "acc_gold", "unreadable")
_GOLD_METRICS = ("acc_oracle", "gold_agrees", "unreadable")
_THREE_CLASS = ("Does the premise entail the hypothesis, contradict it, or neither? Answer "
                "entailment, contradiction or neutral.")


def harness_name(family: str, task: str, tasks: int) -> str:
    """A harness task's name: the family's (``cibench_cp`` for one of several tasks),
    letters, digits and ``_`` only."""
    name = family if tasks == 1 else f"{family}_{task}"
    return "".join(c if c.isalnum() else "p" if c == "+" else "_" for c in name.lower())


class _Tasks(Mapping[str, TaskSpec]):
    """The harness tasks of the registered families, read afresh on each use (a family
    registered later is a task too): one per family task, plus ``corr2cause_3class``."""

    def _specs(self) -> dict[str, TaskSpec]:
        out: dict[str, TaskSpec] = {}
        for family in REGISTRY:
            for task in family.tasks:
                name = harness_name(family.name, task, len(family.tasks))
                out[name] = TaskSpec(name, task, family.instruction,
                                     48 if family.binary else 256,
                                     _BINARY_METRICS if family.binary else _GOLD_METRICS)
                if family.labels_pairs:  # its 3-class reading is a task of its own
                    three = f"{name}_3class"
                    out[three] = TaskSpec(three, task, _THREE_CLASS, 48, _BINARY_METRICS)
        return out

    def __getitem__(self, name: str) -> TaskSpec:
        return self._specs()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs())

    def __len__(self) -> int:
        return len(self._specs())


TASKS: Mapping[str, TaskSpec] = _Tasks()


def doc_of(ref: int, row: dict[str, Any]) -> dict[str, Any] | None:
    """The flat doc of one dataset row (its family's ``Item``), or None for a row no
    family reads."""
    try:
        item = default().item(row)
    except InputError:
        return None
    if item is None:
        return None
    binary = REGISTRY.get(item.family).binary
    return {"id": item.key or f"row-{ref}", "ref": ref, "family": item.family,
            "task": item.task, "prompt": item.prompt,
            "gold": -1 if item.binary is None else item.binary,
            "gold_relation": str(row.get("relation") or "") if binary else "",
            # the gold as the family reads it: 0 and 0.0 are golds, None (withheld) is none
            "truth": "{}" if binary else json.dumps(item.gold, ensure_ascii=False)}


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


def _graded(doc: dict[str, Any], text: str, server: str | None
            ) -> tuple[bool | None, str, str, str]:
    """(correct, normalised, reason, explanation): one ``Answer`` with the reply, in-process
    or through the gRPC service."""
    if server:
        result = _client(server).answer_result(doc["prompt"], doc["task"], model_answer=text)
    else:
        result = default().answer(doc["prompt"], doc["task"], model_answer=text)
    assert result.grade is not None
    return (result.grade.correct, result.grade.normalised, result.grade.reason,
            result.explanation)


def _gold_agrees(family: str, task: str, prompt: str, truth: str) -> float:
    item = Item(family, task, prompt, json.loads(truth))
    return 1.0 if default().task_record(item).get("agree") else 0.0


def grade_doc(doc: dict[str, Any], generation: str, server: str | None = None
              ) -> dict[str, Any]:
    """Grade one generation: the metrics above plus ``normalised``, ``reason`` and
    ``explanation`` (the oracle's derivation, for a harness to show)."""
    try:
        correct, normalised, reason, explanation = _graded(doc, generation, server)
    except (InputError, OracleError) as error:
        message = error.describe() if isinstance(error, InputError) else str(error)
        return {"acc_oracle": 0.0, "acc_gold": 0.0, "gold_agrees": 0.0, "unreadable": 0.0,
                "normalised": "", "reason": f"the oracle cannot answer this item: {message}",
                "explanation": ""}
    unreadable = normalised == UNREADABLE
    out: dict[str, Any] = {"acc_oracle": float(bool(correct)),
                           "unreadable": float(unreadable), "normalised": normalised,
                           "reason": reason, "explanation": explanation}
    family = doc.get("family") or REGISTRY.get(doc["task"]).name
    if REGISTRY.get(family).binary:
        if normalised in ("entailment", "neutral", "contradiction"):
            gold = doc.get("gold_relation") or ""
            out["acc_gold"] = float(normalised == gold)
        else:
            gold_word = {1: "yes", 0: "no"}.get(int(doc.get("gold", -1)))
            out["acc_gold"] = float(gold_word is not None and normalised == gold_word)
    else:
        out["gold_agrees"] = _gold_agrees(family, doc["task"], doc["prompt"],
                                          doc.get("truth") or "{}")
    return out


__all__ = ["TASKS", "TaskSpec", "doc_of", "grade_doc", "iter_docs", "prompt_of"]
