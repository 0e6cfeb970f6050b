"""Scoring an OpenCompass run with the oracle: ``OracleEvaluator``, two grades per reply.

OpenCompass scores a dataset with an *evaluator* named in the dataset's ``eval_cfg``: an
``opencompass.openicl.icl_evaluator.BaseEvaluator`` whose ``score(predictions,
references, test_set)`` turns the model's replies into metrics.  ``OracleEvaluator`` is
one that grades every reply twice:

* **certified** — ``causal_oracle.grade(prompt, reply)`` (through the entry layer's
  default service, as ``co.grade`` itself calls it): the prompt the model saw (the
  test set's ``prompt_column``, ``question`` in CaLM's configs) is answered by the oracle
  with a re-checked certificate and the reply is read in any common form;
* **the benchmark's own rule** — where the row's family declares one
  (``Family.benchmark_rule``, e.g. CaLM's scorer as OpenCompass runs it): the reference
  row (CaLM's ``gt_item``, with ``task`` and ``prompt_style`` added from the evaluator's
  arguments when the row has none) read as an item by the family that owns that task
  name (else by the first family that claims the row), and the reply scored by that
  family's rule.

``score`` returns ``certified_accuracy`` (percent of all replies the oracle grades
right; a reply to a prompt it cannot answer counts as not right),
``certified_accuracy_graded`` (percent of the replies it could grade),
``benchmark_rule_accuracy`` (percent of the rows with a rule; absent when none has one),
the counts behind them, and ``details``: per reply ``correct`` (the certified verdict,
None when not graded), ``grade``, ``normalised``, ``expected``, ``benchmark_rule`` and
``error`` when the prompt could not be answered.

OpenCompass is not a dependency of this project and is never imported by it unless this
evaluator is used: the class is built on first access (``OracleEvaluator`` is a module
attribute made by PEP 562's ``__getattr__``), subclassing the ``BaseEvaluator`` of the
OpenCompass installed beside the project, and registered in its ``ICL_EVALUATORS``.  A
config names it as ``from causal_oracle.clients.opencompass_evaluator import
OracleEvaluator`` (``examples/opencompass_calm.py``; ``docs/opencompass.md`` says how to
install the two side by side).  Its arguments: ``task`` and ``prompt_style`` (as
CaLM's own evaluator takes them), ``oracle_task`` (a family or task name the prompts are
read as; default: detected), ``prompt_column`` and ``family_modules`` (modules to import
first, so that families defined there register in OpenCompass's worker process).
``score_replies`` is the same scoring without OpenCompass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from causal_oracle.entry import REGISTRY, InputError, OracleError, default
from causal_oracle.entry.registry import import_modules

#: the test-set column holding the prompt the model saw (CaLM's configs: ``question``)
PROMPT_COLUMN = "question"


@dataclass(frozen=True)
class Scoring:
    """What an ``OracleEvaluator`` is told by its config: the benchmark's ``task`` name
    and ``prompt_style`` (added to a reference row that lacks them, for its family's
    rule), the oracle ``oracle_task`` to read prompts as (None: detected) and the
    test-set ``prompt_column``."""

    task: str | None = None
    prompt_style: str | None = None
    oracle_task: str | None = None
    prompt_column: str = PROMPT_COLUMN


def _row(reference: Any, scoring: Scoring) -> dict[str, Any]:
    row = dict(reference) if isinstance(reference, Mapping) else {"gt_answer": reference}
    if scoring.task and not row.get("task"):
        row["task"] = scoring.task
    if scoring.prompt_style and not row.get("prompt_style"):
        row["prompt_style"] = scoring.prompt_style
    return row


def _benchmark_rule(row: dict[str, Any], reply: str, task: str | None) -> bool | None:
    """The rule of the family that owns the benchmark task the config names (another
    family may also claim the row: CLadder claims CaLM's CLadder-derived records), else
    of the first family that claims the row."""
    try:
        item = None
        if task:
            try:
                item = REGISTRY.get(task).row(row)
            except InputError:
                item = None
        item = item or REGISTRY.row(row)
        if item is None:
            return None
        return REGISTRY.get(item.family).benchmark_rule(item, reply)
    except InputError:
        return None


def _certified(prompt: Any, reply: str, scoring: Scoring) -> dict[str, Any]:
    if not isinstance(prompt, str) or not prompt.strip():
        return {"correct": None, "grade": "error",
                "error": f"no prompt in the test set's {scoring.prompt_column!r} column"}
    try:
        graded = default().grade(prompt, reply, scoring.oracle_task)  # = co.grade
    except OracleError as error:
        said = error.describe() if isinstance(error, InputError) else str(error)
        return {"correct": None, "grade": "error", "error": said}
    return {"correct": graded.correct if graded.gradable else None, "grade": graded.grade,
            "normalised": graded.normalised, "expected": graded.expected,
            "family": graded.family, "task": graded.task}


def _percent(part: int, whole: int) -> float:
    return 100.0 * part / whole


def score_replies(predictions: Sequence[Any], references: Sequence[Any],
                  prompts: Sequence[Any] | None, scoring: Scoring = Scoring()
                  ) -> dict[str, Any]:
    """Grade ``predictions`` (the model's replies) against ``references`` (the rows) and
    ``prompts`` (what the model saw), as ``OracleEvaluator.score`` does (see the module
    docstring for what comes back)."""
    if len(predictions) != len(references) or (
            prompts is not None and len(prompts) != len(predictions)):
        return {"error": "predictions, references and prompts differ in length"}
    details: list[dict[str, Any]] = []
    for i, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        reply = prediction if isinstance(prediction, str) else str(prediction)
        detail: dict[str, Any] = {"pred": reply}
        detail.update(_certified(None if prompts is None else prompts[i], reply, scoring))
        detail["benchmark_rule"] = _benchmark_rule(_row(reference, scoring), reply,
                                                   scoring.task)
        details.append(detail)
    n = len(details)
    right = sum(d["correct"] is True for d in details)
    graded = sum(d["correct"] is not None for d in details)
    ruled = [d["benchmark_rule"] for d in details if d["benchmark_rule"] is not None]
    out: dict[str, Any] = {"items": n, "certified_graded": graded, "certified_correct": right,
                           "errors": sum("error" in d for d in details)}
    if n:
        out["certified_accuracy"] = _percent(right, n)
    if graded:
        out["certified_accuracy_graded"] = _percent(right, graded)
    if ruled:
        out["benchmark_rule_items"] = len(ruled)
        out["benchmark_rule_correct"] = sum(ruled)
        out["benchmark_rule_accuracy"] = _percent(sum(ruled), len(ruled))
    out["details"] = details
    return out


@cache
def evaluator_class() -> type:
    """``OracleEvaluator``, a subclass of the installed OpenCompass's ``BaseEvaluator``
    (``ImportError`` saying how to install it when OpenCompass is absent)."""
    try:
        from opencompass.openicl.icl_evaluator import BaseEvaluator
    except ImportError as error:
        raise ImportError("OracleEvaluator needs OpenCompass (`pip install opencompass`), "
                          "in its own virtual environment beside this project: see "
                          "docs/opencompass.md") from error

    class OracleEvaluator(BaseEvaluator):  # type: ignore[misc, valid-type]
        """Grades each reply with the oracle and with its benchmark's own rule (see
        ``causal_oracle.clients.opencompass_evaluator``)."""

        def __init__(self, task: str | None = None, prompt_style: str | None = None,
                     oracle_task: str | None = None, prompt_column: str = PROMPT_COLUMN,
                     family_modules: Sequence[str] = (),
                     pred_postprocessor: Any = None) -> None:
            super().__init__(pred_postprocessor=pred_postprocessor)
            self.scoring = Scoring(task, prompt_style, oracle_task, prompt_column)
            # families of one's own register when their module is imported, as in the
            # server's worker processes: OpenCompass may run this in a fresh process
            import_modules(tuple(family_modules))

        def score(self, predictions: list[Any], references: list[Any],
                  test_set: Any = None) -> dict[str, Any]:
            column = self.scoring.prompt_column
            prompts = None
            if test_set is not None and column in getattr(test_set, "column_names", ()):
                prompts = list(test_set[column])
            return score_replies(predictions, references, prompts, self.scoring)

    OracleEvaluator.__module__ = __name__
    try:
        from opencompass.registry import ICL_EVALUATORS
        ICL_EVALUATORS.register_module(name="OracleEvaluator", module=OracleEvaluator,
                                       force=True)
    except ImportError:  # an OpenCompass without the registry still takes the class
        pass
    return OracleEvaluator


def __getattr__(name: str) -> Any:
    if name == "OracleEvaluator":
        return evaluator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PROMPT_COLUMN", "Scoring", "evaluator_class", "score_replies"]
