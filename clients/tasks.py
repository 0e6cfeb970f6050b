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
from typing import Any

from causal_oracle.clients.ie_render import render_ie_prompt
from causal_oracle.oracle import service
from causal_oracle.oracle.check_tasks import CertificateRejected, check_set_verdict
from causal_oracle.oracle.errors import BudgetExceeded, InputError
from causal_oracle.oracle.service import (
    ALL_TASKS,
    UNREADABLE,
    answer_json,
    answer_text,
    task_graph,
)
from causal_oracle.oracle.tasks.backdoor import check_set
from causal_oracle.oracle.tasks.model import (
    Answer,
    BackdoorAnswer,
    BackdoorQuestion,
    InterventionAnswer,
    PathsAnswer,
    Question,
    ValuesAnswer,
)


def parse_question(prompt: str, task: str | None = None) -> Question:
    """Parse ``prompt`` as a ``task`` question (detected from the text when None)."""
    return service.default().parse_question(prompt, task)


def solve(question: Question) -> Answer:
    """Derive the answer and re-verify its certificate (``CertificateRejected`` if not)."""
    return service.default().solve(question)


def answer(prompt: str, task: str | None = None) -> dict[str, Any]:
    """Answer one question: ``{"task", "answer", "answer_text", "certificate_checked",
    "explanation"}``.  Raises ``ParseError``/``InputError`` for bad text."""
    return service.default().answer(prompt, task)


def grade(prompt: str, answer_text: str, task: str | None = None) -> dict[str, Any]:
    """Grade a model's answer: ``{"task", "correct", "normalised", "reason", "expected",
    "certificate_checked"}``; ``correct`` is None and ``normalised`` ``"UNREADABLE"``
    when the answer cannot be read (``reason`` then says where)."""
    return service.default().grade(prompt, answer_text, task)


_graph = task_graph
answer_text_of = answer_text


def _truth_matches(question: Question, result: Answer, row: dict[str, Any]) -> tuple[bool, Any]:
    truth = row.get("truth") or {}
    if not isinstance(truth, dict):
        raise InputError(f"the truth field is {type(truth).__name__}, not an object")
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
    except (KeyError, TypeError, ValueError, InputError) as error:  # e.g. a number for a list
        out["unreadable"] = f"row has no usable truth: {type(error).__name__}: {error}"
    return out


# ---- CLI ------------------------------------------------------------------------------

def _fail(error: Exception) -> int:
    message = error.describe() if isinstance(error, InputError) else str(error)
    print(f"error: {message}", file=sys.stderr)
    return 2 if isinstance(error, InputError) else 1


def _remote(args: argparse.Namespace, model_answer: str | None = None) -> dict[str, Any]:
    """``answer``/``grade`` through ``causal-oracle serve`` at ``args.server``."""
    from causal_oracle.clients.remote import OracleClient, pb

    with OracleClient(args.server) as client:
        r = client.answer(args.prompt.replace("\\n", "\n"), args.task,
                          model_answer=model_answer)
    grade = {pb.GRADE_CORRECT: True, pb.GRADE_WRONG: False}.get(r.grade)
    return {"task": r.task, "answer_text": r.answer_text, "explanation": r.explanation,
            "certificate_checked": r.certificate_checked, "correct": grade,
            "normalised": r.normalised_answer, "expected": r.expected,
            "reason": r.grade_reason}


def _cmd_answer(args: argparse.Namespace) -> int:
    try:
        result = _remote(args) if args.server else \
            answer(args.prompt.replace("\\n", "\n"), args.task)
    except (InputError, BudgetExceeded, CertificateRejected) as error:
        return _fail(error)
    print(f"task:     {result['task']}")
    print("answer:   " + result["answer_text"].replace("\n", "\n          "))
    print(f"checked:  {'certificate re-verified' if result['certificate_checked'] else 'NO'}")
    print("why:\n  " + result["explanation"].replace("\n", "\n  "))
    return 0


def _cmd_grade(args: argparse.Namespace) -> int:
    try:
        result = _remote(args, args.answer.replace("\\n", "\n")) if args.server else \
            grade(args.prompt.replace("\\n", "\n"), args.answer.replace("\\n", "\n"),
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
    p.add_argument("--task", choices=ALL_TASKS, type=str.upper,
                   help="task (default: detected from the text)")
    p.add_argument("--server", metavar="HOST:PORT",
                   help="ask a running `causal-oracle serve` instead of computing in-process")
    p.set_defaults(func=_cmd_answer)
    p = subparsers.add_parser("grade", help="grade a model's answer to a CP/BA/FI/CI/IE question")
    p.add_argument("--prompt", required=True, help="the question text")
    p.add_argument("--answer", required=True, help="the model's answer text")
    p.add_argument("--task", choices=ALL_TASKS, type=str.upper,
                   help="task (default: detected from the text)")
    p.add_argument("--server", metavar="HOST:PORT",
                   help="ask a running `causal-oracle serve` instead of computing in-process")
    p.set_defaults(func=_cmd_grade)


__all__ = ["add_cli_commands", "answer", "audit_row", "grade", "parse_question",
           "render_ie_prompt", "solve"]
