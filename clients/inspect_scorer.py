"""Inspect (``inspect_ai``) integration: a scorer that grades with the oracle, and tasks.

``oracle_scorer(server=None)`` is an Inspect ``@scorer``: it reads the model's
completion with the project's answer grammar, grades it against the oracle's
certified answer (``clients.harness.grade_doc``; in-process, or through the gRPC
service at ``server``) and returns a ``Score`` whose value is a dict —
``acc_oracle``, ``acc_gold`` (CI-Bench: ``gold_agrees``) and ``unreadable`` —
with ``answer`` the verdict as read and ``explanation`` the oracle's derivation.

``oracle_task(task, data, server=None)`` builds an Inspect ``Task`` from any file
``clients.readers`` reads (the task names of ``clients.harness.TASKS``); the
registered ``@task`` functions ``corr2cause``, ``corr2cause_3class``, ``cibench_cp``
… ``ie`` take ``data`` (a path, or several separated by commas) and are found by
``inspect eval`` through this package's ``inspect_ai`` entry point.

Why not ``causal_oracle.inspect``: the repository root *is* the package, so a
root-level ``inspect.py`` would shadow the standard library's ``inspect`` for
anything run from the root (``python -m pytest``, ``python -c``).  Import from
here: ``from causal_oracle.clients.inspect_scorer import oracle_scorer``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

from causal_oracle.clients.harness import TASKS, grade_doc, iter_docs, prompt_of

_METRICS = {name: [mean(), stderr()]
            for name in ("acc_oracle", "acc_gold", "gold_agrees", "unreadable")}


@scorer(metrics=_METRICS)  # type: ignore[arg-type]
def oracle_scorer(server: str | None = None) -> Any:
    """Grade the completion with the oracle (``server``: a gRPC ``HOST:PORT``)."""

    async def score(state: TaskState, target: Target) -> Score:
        doc = dict(state.metadata["doc"])
        graded = grade_doc(doc, state.output.completion, server)
        names = TASKS[str(state.metadata["task"])].metrics
        return Score(value={name: graded[name] for name in names},
                     answer=str(graded["normalised"]),
                     explanation=f"{graded['reason']}\n\n{graded['explanation']}".strip(),
                     metadata={"expected_task": doc["task"], "ref": doc["ref"]})

    return score


def samples(task_name: str, data: Sequence[str | Path]) -> list[Sample]:
    """One ``Sample`` per doc of ``task_name`` in ``data`` (the doc rides in metadata)."""
    out = []
    for doc in iter_docs(data, task_name):
        gold = doc["gold_relation"] if task_name == "corr2cause_3class" else \
            {1: "yes", 0: "no"}.get(int(doc["gold"]), "")
        out.append(Sample(input=prompt_of(doc, task_name), target=gold, id=f"{doc['ref']}",
                          metadata={"doc": doc, "task": task_name}))
    return out


def oracle_task(task_name: str, data: str | Path | Sequence[str | Path],
                server: str | None = None) -> Task:
    """An Inspect ``Task`` over the ``task_name`` items of ``data``, graded by the oracle."""
    if task_name not in TASKS:
        raise ValueError(f"unknown task {task_name!r}; expected one of {', '.join(TASKS)}")
    paths = [data] if isinstance(data, (str, Path)) else list(data)
    files = [p for item in paths for p in str(item).split(",") if p]
    return Task(dataset=MemoryDataset(samples(task_name, files), name=task_name),
                solver=generate(), scorer=oracle_scorer(server=server))


def _registered(task_name: str) -> Any:
    def factory(data: str, server: str | None = None) -> Task:
        return oracle_task(task_name, data, server)

    factory.__name__ = task_name
    factory.__doc__ = f"The {task_name} items of DATA (comma-separated files), graded by " \
                      f"the oracle."
    return task(name=task_name)(factory)


corr2cause = _registered("corr2cause")
corr2cause_3class = _registered("corr2cause_3class")
cibench_cp = _registered("cibench_cp")
cibench_ba = _registered("cibench_ba")
cibench_fi = _registered("cibench_fi")
cibench_ci = _registered("cibench_ci")
ie = _registered("ie")

__all__ = ["cibench_ba", "cibench_ci", "cibench_cp", "cibench_fi", "corr2cause",
           "corr2cause_3class", "ie", "oracle_scorer", "oracle_task", "samples"]
