"""The entry layer for CLEAR questions: answer, grade, audit one row.

A CLEAR prompt is the graph description followed by the question (the dataset
keeps them in ``description`` and ``question``; a model sees them one after the
other).  ``answer`` solves it (``oracle.clear.tasks``) and has the independent
checker (``oracle.check_clear``) re-derive the result; ``grade`` reads a model's
answer and grades it — any valid answer for find-one questions, the exact set or
count for find-all / how-many, each option by its validity for multiple choice;
``audit_row`` compares a dataset row's gold the same way (a find-one gold that
lists several answers agrees when every one of them is valid).

Rows: ``{"description", "question", "answer", "question_type", "task_type", …}``.
``oracle.service`` routes CLEAR prompts here, so the library, the CLI and the gRPC
``Answer`` call answer them alike.
"""

from __future__ import annotations

import re
from typing import Any

from causal_oracle.oracle import check_clear
from causal_oracle.oracle.clear import tasks as solver
from causal_oracle.oracle.clear.model import MixedGraph, QType, Question, Task, Walk
from causal_oracle.oracle.errors import BudgetExceeded, InputError, OracleError
from causal_oracle.parser.clear import looks_like_clear, parse_answer, parse_item

UNREADABLE = "UNREADABLE"
TASK = "CLEAR"

__all__ = ["answer", "audit_row", "grade", "is_clear_row", "looks_like_clear"]


class CertificateRejected(OracleError):
    """The independent checker disagrees with the solver (a bug; never returned)."""


def is_clear_row(row: dict[str, Any]) -> bool:
    return "task_type" in row and "description" in row and "question" in row


# ---- formatting ---------------------------------------------------------------------
def _set_text(s: frozenset[str]) -> str:
    return "{" + ", ".join(f"'{v}'" for v in sorted(s)) + "}" if s else "set()"


def format_item(q: Question, item: Any) -> str:
    """One canonical answer item as CLEAR writes it."""
    if isinstance(item, bool):
        return "Yes." if item else "No."
    if isinstance(item, Walk):
        return str(item)
    if isinstance(item, MixedGraph):
        return ("DAG with nodes " + ", ".join(item.nodes) + " and directed edges "
                + ", ".join(f"{a}->{b}" for a, b in sorted(item.directed)) + ".")
    if q.task is Task.THREE_NODE and isinstance(item, frozenset):
        return "(" + ", ".join(f"'{v}'" for v in sorted(item)) + ")"  # a triple, as CLEAR
    if q.task is Task.CYCLE and isinstance(item, tuple):
        return "->".join((*item, item[0]))
    if q.task is Task.EDGE and isinstance(item, tuple):
        return "".join(item)
    if isinstance(item, tuple):
        return ", ".join(item)
    if isinstance(item, frozenset):
        return _set_text(item)
    return str(item)


def format_value(q: Question, value: Any) -> str:
    """The solver's value for ``q`` as text (MC: the valid letters)."""
    if q.qtype is QType.MC:
        return ", ".join(sorted(value))
    if q.qtype in (QType.YN, QType.EX):
        return "Yes." if value else "No."
    if q.qtype is QType.HM:
        return str(value)
    if q.qtype is QType.FA and q.task not in (Task.ROOT_SET,):
        items = sorted(value, key=lambda i: format_item(q, i))
        if q.task is Task.C_COMPONENT:
            return "[" + ", ".join(_set_text(i) for i in items) + "]"
        if q.task is Task.THREE_NODE:  # a list of triples, as CLEAR's gold writes it
            return "[" + ", ".join(format_item(q, i) for i in items) + "]"
        return ", ".join(format_item(q, i) for i in items) if items else "none"
    if value is None:
        return "none"
    return format_item(q, value)


# ---- reading answers ----------------------------------------------------------------
_FINAL = re.compile(r"(?:final\s+answer|answer)\s*(?:is)?\s*[:：]\s*", re.IGNORECASE)


def _candidates(text: str) -> list[str]:
    """Places where the answer may be: the whole text, after the last "Answer:",
    inside <answer> tags, the last line; emphasis and code marks removed."""
    clean = text.replace("**", "").replace("`", "").strip()
    out = [clean]
    tag = re.findall(r"<answer>(.*?)</answer>", clean, flags=re.S | re.I)
    if tag:
        out.insert(0, tag[-1].strip())
    parts = _FINAL.split(clean)
    if len(parts) > 1:
        out.insert(0, parts[-1].strip())
    lines = [line.strip() for line in clean.splitlines() if line.strip()]
    if lines:
        out.append(lines[-1])
    return out


def _read(text: str) -> Any:
    last: InputError | None = None
    for cand in _candidates(text):
        for variant in (cand, cand.rstrip(".")):
            try:
                return parse_answer(variant)
            except InputError as error:
                last = error
    raise last or InputError("empty answer")


def interpret(q: Question, parsed: Any) -> Any:
    """A parsed answer as what the question type needs: bool, int, letter, a set of
    canonical items (FA), or a list of candidate items (FO)."""
    qt = q.qtype
    if qt in (QType.YN, QType.EX):
        if not isinstance(parsed, bool):
            raise InputError("expected Yes or No")
        return parsed
    if qt is QType.HM:
        if isinstance(parsed, bool) or not isinstance(parsed, int):
            raise InputError("expected a count")
        return parsed
    if qt is QType.MC:
        if isinstance(parsed, str):
            return parsed
        if isinstance(parsed, Walk) and not parsed.marks and parsed.nodes[0] in "ABCD":
            return parsed.nodes[0]
        raise InputError("expected an option letter")
    if (isinstance(parsed, Walk) and not parsed.marks and parsed.nodes[0] in ("None", "Empty")
            and parsed.nodes[0] not in q.graph.nodes):
        parsed = []  # "None": nothing to list
    if q.task is Task.TOPOLOGICAL and isinstance(parsed, tuple) and all(
            isinstance(w, Walk) and not w.marks for w in parsed):
        return [tuple(w.nodes[0] for w in parsed)]
    if isinstance(parsed, str) and parsed in q.graph.nodes:
        parsed = Walk((parsed,), ())  # a lone A-D reads as an option letter: here a node
    if isinstance(parsed, bool | int | str):
        raise InputError("expected a set, a list or a path")
    if q.task in (Task.ROOT_SET, Task.MARKOV_BLANKET) or (
            qt is QType.FO and isinstance(parsed, frozenset | Walk | MixedGraph)):
        items = [parsed]
    elif (isinstance(parsed, frozenset) and qt is QType.FA) or isinstance(parsed, list | tuple):
        items = list(parsed)
    else:
        items = [parsed]
    canon = [solver.canonical(q, i) for i in items]
    if qt is QType.FA:
        if q.task is Task.ROOT_SET:
            return canon[0]
        return frozenset(canon)
    return canon


def _candidate_valid(q: Question, item: Any) -> bool:
    mine = solver.item_valid(q, item)
    theirs = check_clear.valid(q, item)
    if mine != theirs:
        raise CertificateRejected(f"solver and checker disagree on {format_item(q, item)}")
    return mine


# ---- the verbs ----------------------------------------------------------------------
def _solve(q: Question) -> solver.Solution:
    sol = solver.solve(q)
    ok, why = check_clear.check(q, sol.value)
    if not ok:
        raise CertificateRejected(f"the checker rejected the answer: {why}")
    return sol


def parse_prompt(prompt: str) -> Question:
    return parse_item(prompt)


def answer(prompt: str) -> dict[str, Any]:
    """``{"task", "question_type", "answer", "answer_text", "explanation",
    "certificate_checked"}`` for one CLEAR prompt (description + question)."""
    q = parse_prompt(prompt)
    sol = _solve(q)
    text = format_value(q, sol.value)
    why = f"{q.task.value} / {q.qtype.value}: {sol.reason}"
    if q.qtype is QType.FO and sol.all_valid is not None:
        shown = sorted((format_item(q, i) for i in sol.all_valid), key=lambda t: (len(t), t))
        more = f" and {len(shown) - 5} more" if len(shown) > 5 else ""
        why += f" ({'; '.join(shown[:5])}{more}); any of them is accepted"
    return {"task": f"{TASK} {q.task.value}", "question_type": q.qtype.value,
            "answer": text, "answer_text": text, "explanation": why,
            "certificate_checked": True}


def _judge(q: Question, sol: solver.Solution, got: Any) -> tuple[bool, str]:
    qt = q.qtype
    if qt is QType.MC:
        return got in sol.value, f"option {got} is {'' if got in sol.value else 'not '}valid"
    if qt is QType.FO:
        if not got:
            return False, "no answer given"
        bad = [c for c in got if not _candidate_valid(q, c)]
        if bad:
            return False, (f"{format_item(q, bad[0])} is not a valid answer: "
                           f"{solver.why_invalid(q, bad[0])}")
        return True, "every answer given is valid"
    if qt is QType.FA:
        expected = sol.value
        if q.task is not Task.ROOT_SET:
            expected = frozenset(expected)
        missing = len(expected - got) if isinstance(got, frozenset) and q.task is not (
            Task.ROOT_SET) else 0
        ok = got == expected
        return ok, "exact set" if ok else f"not the exact set ({missing} missing)"
    return got == sol.value, "matches" if got == sol.value else "differs"


def grade(prompt: str, model_answer: str) -> dict[str, Any]:
    """Grade a model's answer: ``{"task", "correct", "normalised", "expected", "reason"}``;
    ``correct`` is None when the answer cannot be read."""
    q = parse_prompt(prompt)
    sol = _solve(q)
    out: dict[str, Any] = {"task": f"{TASK} {q.task.value}",
                           "expected": format_value(q, sol.value)}
    try:
        got = interpret(q, _read(model_answer))
    except InputError as error:
        out.update(correct=None, normalised=UNREADABLE, reason=error.describe())
        return out
    correct, reason = _judge(q, sol, got)
    shown = (format_value(q, got) if q.qtype is not QType.FO
             else "; ".join(format_item(q, c) for c in got))
    if q.qtype is QType.MC:
        shown = got
    out.update(correct=correct, normalised=shown, reason=reason)
    return out


def audit_row(row: dict[str, Any]) -> dict[str, Any]:
    """Re-derive one CLEAR row: ``{"task", "agree", "ambiguous", "derived", "gold",
    "certificate_checked", "unreadable", "reason"}``; task is "CLEAR task/type"."""
    out: dict[str, Any] = {"task": f"{TASK} {row.get('task_type')}/{row.get('question_type')}",
                           "agree": None, "ambiguous": False, "derived": None,
                           "gold": row.get("answer"), "certificate_checked": False,
                           "unreadable": None,
                           "id": f"{row.get('uid')}:{row.get('sid')}"}
    try:
        q = parse_item(str(row["description"]), str(row["question"]))
        sol = _solve(q)
        gold_raw = row["answer"]
        parsed = ([parse_answer(str(a)) for a in gold_raw] if isinstance(gold_raw, list)
                  else parse_answer(str(gold_raw)))
        got = interpret(q, parsed)
        out["certificate_checked"] = True
        out["derived"] = format_value(q, sol.value)
        agree, reason = _judge(q, sol, got)
    except (InputError, BudgetExceeded, KeyError, CertificateRejected) as error:
        out["unreadable"] = error.describe() if isinstance(error, InputError) else str(error)
        return out
    if q.task.value != row.get("task_type") or q.qtype.value != row.get("question_type"):
        out["reason"] = (f"question reads as {q.task.value}/{q.qtype.value}, row says "
                         f"{row.get('task_type')}/{row.get('question_type')}")
    else:
        out["reason"] = reason if agree else f"{reason}; oracle: {sol.reason}"
    out["agree"] = agree
    out["ambiguous"] = q.qtype is QType.MC and len(sol.value) > 1
    return out
