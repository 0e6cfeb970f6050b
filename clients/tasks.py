"""In-process entry points for the CI-Bench (CP, BA, FI, CI) and intervention-effect tasks.

``answer`` parses a question, derives the answer, re-verifies its certificate
with ``oracle.check_tasks`` and explains it; ``grade`` also parses a model's
answer and grades it (``UNREADABLE`` when it cannot be read); ``audit_row``
compares the oracle with a dataset row's truth.  ``add_cli_commands`` registers
the ``answer`` and ``grade`` verbs on the main CLI.

Dataset rows: CI-Bench items in the shared format (``task`` ∈ CP/BA/FI/CI,
``prompt``, ``truth``) and IE items ``{"task": "IE", "prompt": …, "label":
"yes"|"no"}``.  A CI-Bench item agrees when CP has the same set of paths, FI/CI
the same values, and BA the same decision whether adjustment is needed with
every set given in the truth judged valid.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from causal_oracle.clients import clear
from causal_oracle.clients.ie_render import render_ie_prompt
from causal_oracle.oracle.check_tasks import CertificateRejected, check_answer, check_set_verdict
from causal_oracle.oracle.errors import BudgetExceeded, InputError
from causal_oracle.oracle.tasks.backdoor import backdoor_sets, check_set
from causal_oracle.oracle.tasks.boolean_scm import counterfactual, factual
from causal_oracle.oracle.tasks.explain import explain, format_path
from causal_oracle.oracle.tasks.grading import grade as grade_claim
from causal_oracle.oracle.tasks.intervention import intervention_effect
from causal_oracle.oracle.tasks.model import (
    Answer,
    BackdoorAnswer,
    BackdoorQuestion,
    InterventionAnswer,
    PathsAnswer,
    Question,
    TaskGraph,
    ValuesAnswer,
    task_of,
)
from causal_oracle.oracle.tasks.paths import causal_paths
from causal_oracle.parser.cibench import detect_task, parse_cibench
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.ie import parse_ie
from causal_oracle.parser.task_answers import parse_answer

TASKS = ("CP", "BA", "FI", "CI", "IE")
UNREADABLE = "UNREADABLE"

_SOLVERS: dict[str, Callable[[Any], Answer]] = {
    "CP": causal_paths, "BA": backdoor_sets, "FI": factual, "CI": counterfactual,
    "IE": intervention_effect,
}


def parse_question(prompt: str, task: str | None = None) -> Question:
    """Parse ``prompt`` as a ``task`` question (detected from the text when None)."""
    wanted = task.upper() if task else detect_task(prompt)
    if wanted is not None and wanted not in TASKS:
        raise InputError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    if wanted == "IE":
        return parse_ie(prompt)
    return parse_cibench(prompt, wanted)


def solve(question: Question) -> Answer:
    """Derive the answer and re-verify its certificate (``CertificateRejected`` if not)."""
    task = task_of(question)
    result = _SOLVERS[task](question)
    check_answer(task, question, result)
    return result


def _graph(question: Question) -> TaskGraph:
    return question.graph if hasattr(question, "graph") else question.scm.graph  # type: ignore[union-attr]


def answer_json(question: Question, result: Answer) -> Any:
    """The answer in JSON form (names, not indices)."""
    names = _graph(question).names
    if isinstance(result, PathsAnswer):
        return [[names[i] for i in p] for p in result.paths]
    if isinstance(result, BackdoorAnswer):
        g = _graph(question)
        return {"adjustment_needed": result.needed,
                "minimal_sets": [list(g.mask_names(m)) for m in result.minimal_sets],
                "parents_set": list(g.mask_names(result.parents_set)),
                "parents_set_valid": result.parents_set_valid}
    if isinstance(result, ValuesAnswer):
        return {names[q]: v for q, v in result.values}
    assert isinstance(result, InterventionAnswer)
    return {"answer": "yes" if result.yes else "no", "holds_before": result.holds_before,
            "kappa": result.kappa,
            "witness": [names[i] for i in result.witness]}


def answer_text(question: Question, result: Answer) -> str:
    """The answer as a model is expected to write it."""
    g = _graph(question)
    if isinstance(result, PathsAnswer):
        return "\n".join(format_path(g, p) for p in result.paths) or "None"
    if isinstance(result, BackdoorAnswer):
        if not result.minimal_sets:
            return "no valid adjustment set exists"
        best = min(result.minimal_sets, key=lambda m: (bin(m).count("1"), m))
        return ", ".join(g.mask_names(best)) or "None"
    if isinstance(result, ValuesAnswer):
        return "\n".join(f"{g.names[q]}, {'happened' if v else 'not happen'}"
                         for q, v in result.values)
    assert isinstance(result, InterventionAnswer)
    return "yes" if result.yes else "no"


def answer(prompt: str, task: str | None = None) -> dict[str, Any]:
    """Answer one question: ``{"task", "answer", "answer_text", "certificate_checked",
    "explanation"}``.  Raises ``ParseError``/``InputError`` for bad text."""
    if clear.looks_like_clear(prompt) or (task or "").upper() == clear.TASK:
        return clear.answer(prompt)
    question = parse_question(prompt, task)
    result = solve(question)
    return {"task": task_of(question), "answer": answer_json(question, result),
            "answer_text": answer_text(question, result), "certificate_checked": True,
            "explanation": explain(question, result)}


def grade(prompt: str, answer_text: str, task: str | None = None) -> dict[str, Any]:
    """Grade a model's answer: ``{"task", "correct", "normalised", "reason", "expected",
    "certificate_checked"}``; ``correct`` is None and ``normalised`` ``"UNREADABLE"``
    when the answer cannot be read (``reason`` then says where)."""
    if clear.looks_like_clear(prompt) or (task or "").upper() == clear.TASK:
        return clear.grade(prompt, answer_text)
    question = parse_question(prompt, task)
    result = solve(question)
    name = task_of(question)
    out: dict[str, Any] = {"task": name, "expected": answer_text_of(question, result),
                           "certificate_checked": True}
    try:
        claim = parse_answer(name, answer_text)
    except ParseError as error:
        out.update(correct=None, normalised=UNREADABLE, reason=error.describe())
        return out
    verdict = grade_claim(question, result, claim)
    if verdict.verdict is not None and verdict.set_mask is not None:
        check_set_verdict(question, verdict.set_mask, verdict.verdict)
    out.update(correct=verdict.correct, normalised=verdict.normalised, reason=verdict.reason)
    return out


answer_text_of = answer_text


def _truth_matches(question: Question, result: Answer, row: dict[str, Any]) -> tuple[bool, Any]:
    truth = row.get("truth") or {}
    names = _graph(question).names
    if isinstance(result, PathsAnswer):
        derived = {tuple(names[i] for i in p) for p in result.paths}
        gold = {tuple(p) for p in truth["causal_paths"]}
        return derived == gold, truth["causal_paths"]
    if isinstance(result, BackdoorAnswer):
        assert isinstance(question, BackdoorQuestion)
        g = question.graph
        ok = result.needed == bool(truth["backdoor_adjustment_needed"])
        for key in ("a_minimal_valid_set", "parents_valid_set"):
            if truth.get(key) is not None:
                z = sum(1 << g.index(n) for n in truth[key])
                verdict = check_set(question, z)
                check_set_verdict(question, z, verdict)
                ok = ok and verdict.valid
        return ok, {k: truth.get(k) for k in ("backdoor_adjustment_needed",
                                               "a_minimal_valid_set", "parents_valid_set")}
    if isinstance(result, ValuesAnswer):
        derived_values = [v for _, v in result.values]
        return derived_values == list(truth["values"]), truth["values"]
    assert isinstance(result, InterventionAnswer)
    gold = str(row["label"]).strip().lower()
    return ("yes" if result.yes else "no") == gold, gold


def audit_row(row: dict[str, Any]) -> dict[str, Any]:
    """Re-derive one dataset row: ``{"task", "agree", "unreadable", "derived", "gold",
    "certificate_checked"}``; ``agree`` is None (and ``unreadable`` the error) when the
    prompt cannot be parsed or a budget is exceeded."""
    task = str(row.get("task", "")).upper() or None
    out: dict[str, Any] = {"task": task, "agree": None, "unreadable": None, "derived": None,
                           "gold": row.get("truth", row.get("label")),
                           "certificate_checked": False}
    try:
        question = parse_question(str(row["prompt"]), task)
        result = solve(question)
    except (InputError, BudgetExceeded, KeyError) as error:
        out["unreadable"] = error.describe() if isinstance(error, InputError) else str(error)
        return out
    out["certificate_checked"] = True
    out["derived"] = answer_json(question, result)
    try:
        out["agree"], out["gold"] = _truth_matches(question, result, row)
    except (KeyError, InputError) as error:
        out["unreadable"] = f"row has no usable truth: {error}"
    return out


# ---- CLI ------------------------------------------------------------------------------

def _fail(error: Exception) -> int:
    message = error.describe() if isinstance(error, InputError) else str(error)
    print(f"error: {message}", file=sys.stderr)
    return 2 if isinstance(error, InputError) else 1


def _cmd_answer(args: argparse.Namespace) -> int:
    try:
        result = answer(args.prompt.replace("\\n", "\n"), args.task)
    except (InputError, BudgetExceeded, CertificateRejected) as error:
        return _fail(error)
    print(f"task:     {result['task']}")
    print("answer:   " + result["answer_text"].replace("\n", "\n          "))
    print(f"checked:  {'certificate re-verified' if result['certificate_checked'] else 'NO'}")
    print("why:\n  " + result["explanation"].replace("\n", "\n  "))
    return 0


def _cmd_grade(args: argparse.Namespace) -> int:
    try:
        result = grade(args.prompt.replace("\\n", "\n"), args.answer.replace("\\n", "\n"),
                       args.task)
    except (InputError, BudgetExceeded, CertificateRejected) as error:
        return _fail(error)
    shown = {True: "correct", False: "wrong", None: UNREADABLE}[result["correct"]]
    print(f"task:     {result['task']}")
    print(f"grade:    {shown}")
    print("read as:  " + result["normalised"].replace("\n", "\n          "))
    print("expected: " + result["expected"].replace("\n", "\n          "))
    print(f"reason:   {result['reason']}")
    return 0


def add_cli_commands(subparsers: Any) -> None:
    """Register the ``answer`` and ``grade`` verbs (each sets ``func=callable(args) -> int``)."""
    p = subparsers.add_parser("answer", help="answer a CP/BA/FI/CI/IE question")
    p.add_argument("--prompt", required=True, help="the question text, as the benchmark "
                   "writes it (\\n is read as a newline)")
    p.add_argument("--task", choices=TASKS, type=str.upper,
                   help="task (default: detected from the text)")
    p.set_defaults(func=_cmd_answer)
    p = subparsers.add_parser("grade", help="grade a model's answer to a CP/BA/FI/CI/IE question")
    p.add_argument("--prompt", required=True, help="the question text")
    p.add_argument("--answer", required=True, help="the model's answer text")
    p.add_argument("--task", choices=TASKS, type=str.upper,
                   help="task (default: detected from the text)")
    p.set_defaults(func=_cmd_grade)


__all__ = ["add_cli_commands", "answer", "audit_row", "grade", "parse_question",
           "render_ie_prompt", "solve"]
