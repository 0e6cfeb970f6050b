"""The verbs on one question — ``verify``, ``explain``, ``answer``, ``grade`` — and
``grade FILE``, for any registered benchmark, in-process or through ``causal-oracle serve``.

One grammar (``options.question_options``): ``--prompt TEXT`` names the question of any
family (detected from the text; ``--task`` forces one), ``--premise``/``--hypothesis``
a Corr2Cause item, ``--json`` prints one JSON object.  Each verb hands the text to the
entry layer (``Service.answer`` / ``explain`` / ``grade``, or the gRPC ``Answer`` call
with ``--server``) and prints what comes back:

* ``verify`` — the certified answer (for a Corr2Cause item given as ``--premise``/
  ``--hypothesis``: its label, class and reason);
* ``explain`` — why: in words (default), ``--json`` (the ``Explanation``: answer,
  words, the derivation as data where the family has one, the graph), ``--dot`` (the
  question's graph in Graphviz DOT where the family has one);
* ``answer`` — the answer and why; ``grade`` — a model's reply (``--reply``) graded;
* ``grade FILE`` — every reply of a file graded (``clients.grade_file``).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from causal_oracle.clients import grade_file
from causal_oracle.clients.exits import EXIT_OK
from causal_oracle.clients.options import (
    Deprecated,
    client,
    deprecation,
    limit_options,
    profile_option,
    question_of,
    question_options,
    server_options,
)
from causal_oracle.clients.outputs import atomic_output, check_outputs
from causal_oracle.entry import Explanation, Grade, InputError, TaskAnswer, default
from causal_oracle.entry.oracle_protocol import Oracle


def _print_json(data: Any) -> int:
    print(json.dumps(data, ensure_ascii=False))
    return EXIT_OK


def _indented(text: str) -> str:
    return text.replace("\n", "\n          ")


def _corr2cause_fields(args: argparse.Namespace) -> bool:
    """The item was given in a Corr2Cause-only form (``--premise``/``--hypothesis``, or
    ``verify``'s old ``--input``): ``verify`` prints its label, class and reason."""
    return args.prompt is None


def _ask(args: argparse.Namespace, model_answer: str | None) -> TaskAnswer:
    prompt = question_of(args)
    if args.server:
        if args.profile != "corr2cause":
            raise InputError("--profile with --server: the gRPC Answer call takes the "
                             "corr2cause profile only; use `verify --server` for others")
        from causal_oracle.clients.remote_oracle import RemoteOracle

        with client(args) as remote:
            return _answer(RemoteOracle(remote), prompt, args, model_answer)
    return _answer(default(), prompt, args, model_answer)


def _answer(oracle: Oracle, prompt: str, args: argparse.Namespace,
            model_answer: str | None) -> TaskAnswer:
    """The answer (and the grade of ``model_answer``) from either oracle."""
    return oracle.answer(prompt, args.task, model_answer=model_answer, profile=args.profile)


# ---- verify -------------------------------------------------------------------------------

def _verify_item(args: argparse.Namespace, explanation: str | None = None) -> Any:
    """A Corr2Cause item's ``VerifyResult`` (or the server's), from its own fields."""
    text = question_of(args)  # one form given, and whole
    published = args.input_text is not None
    if args.server:
        with client(args) as remote:
            if published:
                return remote.verify_result(input=text, profile=args.profile,
                                            explanation=explanation)
            return remote.verify_result(args.premise, args.hypothesis, profile=args.profile,
                                        explanation=explanation)
    if published:
        return default().verify_input(text, args.profile)
    return default().verify(args.premise, args.hypothesis, args.profile)


def cmd_verify(args: argparse.Namespace) -> int:
    if not _corr2cause_fields(args):
        result = _ask(args, None)
        data = {"family": result.family, "task": result.task, "answer": result.answer,
                "answer_text": result.answer_text,
                "certificate_checked": result.certificate_checked}
        if args.json:
            return _print_json(data)
        print(f"family:   {result.family or '(not sent by the server)'}")
        print(f"task:     {result.task}")
        print("answer:   " + _indented(result.answer_text or "none"))
        print(f"checked:  {'certificate re-verified' if result.certificate_checked else 'NO'}")
        return EXIT_OK
    summary = _verify_item(args).summary()
    if args.json:
        return _print_json(summary)
    label = summary["label"]
    shown = "none (inconsistent premise)" if label is None else \
        f"{label} ({'valid' if label else 'invalid'})"
    print(f"label:      {shown}")
    print(f"relation:   {summary['relation']}")
    if summary["holds_in"] is None:
        print(f"class size: {summary['class_size']} (too many to list: the label comes from "
              f"SAT queries over the whole class)")
    else:
        print(f"class size: {summary['class_size']} (the relation holds in "
              f"{summary['holds_in']} of them)")
    if summary["ambiguous"]:
        print(f"ambiguous:  profiles disagree {summary['labels_by_profile']}")
    print(f"checked:    {'certificate re-verified' if summary['certificate_checked'] else 'NO'}")
    print(f"reason:     {summary['reason']}")
    return EXIT_OK


# ---- explain ------------------------------------------------------------------------------

def _explanation(args: argparse.Namespace) -> Explanation:
    prompt = question_of(args)
    if not args.server:
        return default().explain(prompt, args.task, profile=args.profile)
    result = _ask(args, None)  # the server sends words, not the derivation or the graph
    return Explanation(result.family, result.task, result.answer, result.answer_text,
                       result.explanation, result.certificate_checked)


def cmd_explain(args: argparse.Namespace) -> int:
    legacy = args.format  # the deprecated --format: its JSON is the derivation alone
    if legacy is not None:
        deprecation(f"--format {legacy}", "--json" if legacy == "json" else
                    "--dot" if legacy == "dot" else "no option (text is the default)")
    fmt = legacy or ("json" if args.json else "dot" if args.dot else "text")
    if args.premise is not None and not args.json:
        # a Corr2Cause item by its fields: labelled as ``verify`` labels it (also by the
        # server's Verify call, which derives and draws too)
        print(_verify_item(args, explanation=fmt).explain(fmt))
        return EXIT_OK
    if args.server and fmt == "dot":
        raise InputError("--dot with --server: the server's Answer call sends no graph; "
                         "drop --server to draw it in-process")
    explained = _explanation(args)
    if fmt == "json":
        if legacy and explained.derivation is not None:
            print(json.dumps(explained.derivation, indent=2, ensure_ascii=False))
            return EXIT_OK
        return _print_json(explained.to_json())
    if fmt == "dot":
        if explained.dot is None:
            raise InputError(f"the {explained.family} family has no graph to draw; use "
                             f"--json or the text explanation")
        print(explained.dot)
        return EXIT_OK
    print(explained.explanation)
    return EXIT_OK


# ---- answer and grade ---------------------------------------------------------------------

def cmd_answer(args: argparse.Namespace) -> int:
    result = _ask(args, None)
    if args.json:
        return _print_json(asdict(result))
    print(f"task:     {result.task}")
    print("answer:   " + _indented(result.answer_text))
    print(f"checked:  {'certificate re-verified' if result.certificate_checked else 'NO'}")
    print("why:\n  " + result.explanation.replace("\n", "\n  "))
    return EXIT_OK


def cmd_grade(args: argparse.Namespace) -> int:
    if args.file is not None:
        return cmd_grade_file(args)
    given = [o for o in ("records", "report", "html") if getattr(args, o)]
    if given:
        raise InputError(f"--{given[0]} writes what grade FILE finds: give a FILE of prompts "
                         "and replies")
    if args.reply is None:
        raise InputError("give the model's reply with --reply TEXT (or a file: "
                         "`causal-oracle grade FILE`)")
    result = _ask(args, str(args.reply).replace("\\n", "\n"))
    graded: Grade | None = result.grade
    assert graded is not None
    if args.json:
        return _print_json(graded.to_json())
    print(f"task:     {graded.task}")
    print(f"grade:    {graded.grade}")
    print("read as:  " + _indented(graded.normalised))
    print("expected: " + _indented(graded.expected or "none (no answer is right)"))
    print(f"reason:   {graded.reason}")
    return EXIT_OK


def cmd_grade_file(args: argparse.Namespace) -> int:
    """``grade FILE``: every reply of the file graded; a table, JSON, records, a report,
    an HTML page."""
    if args.prompt is not None or args.input_text is not None or args.premise is not None \
            or args.hypothesis is not None or args.reply is not None:
        raise InputError("grade FILE reads the prompts and replies from the file: drop "
                         "--prompt/--premise/--hypothesis/--reply")
    if args.server:
        raise InputError("grade FILE grades in-process; drop --server")
    path = Path(args.file)
    check_outputs({"--records": args.records, "--report": args.report, "--html": args.html},
                  inputs=[path])
    result = grade_file.grade_file(path, reply_column=args.reply_column,
                                   prompt_column=args.prompt_column, task=args.task,
                                   profile=args.profile, records=args.records,
                                   reasoning=args.reasoning)
    data = result.to_json()
    if args.report:
        with atomic_output(args.report, "wb") as handle:
            handle.write((json.dumps(data, indent=1, ensure_ascii=False) + "\n")
                         .encode("utf-8", "backslashreplace"))
    if args.html:
        from causal_oracle.clients.grade_html import write_grade_html

        write_grade_html(data, args.html)
    if args.json:
        return _print_json(data)
    print(grade_file.summary_table(result), end="")
    for what, written in (("records", args.records), ("report", args.report),
                          ("HTML page", args.html)):
        if written:
            print(f"{what} written to {written}")
    return EXIT_OK


# ---- the parsers --------------------------------------------------------------------------

def _common(p: argparse.ArgumentParser, *, compelled: bool) -> None:
    question_options(p)
    profile_option(p, compelled=compelled)
    limit_options(p)
    server_options(p)


def add_cli_commands(subparsers: Any) -> None:
    """Register ``verify``, ``explain``, ``answer`` and ``grade`` (each sets
    ``func=callable(args) -> int``)."""
    p = subparsers.add_parser("verify", help="the certified answer to one question")
    _common(p, compelled=False)
    p.set_defaults(func=cmd_verify)

    p = subparsers.add_parser("explain", help="why the answer to one question is right")
    _common(p, compelled=False)
    p.add_argument("--dot", action="store_true",
                   help="print the question's graph in Graphviz DOT (families with a graph)")
    p.add_argument("--format", choices=("text", "json", "dot"), default=None,
                   help=argparse.SUPPRESS)  # deprecated: --json / --dot
    p.set_defaults(func=cmd_explain)

    p = subparsers.add_parser("answer", help="answer one question of any benchmark")
    _common(p, compelled=True)
    p.set_defaults(func=cmd_answer)

    p = subparsers.add_parser(
        "grade", help="grade a model's reply to one question, or every reply of a FILE")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="a file of prompts and replies (JSONL, JSON, CSV/TSV, Parquet or a "
                        "datasets folder): grade every row")
    _common(p, compelled=True)
    p.add_argument("--reply", help="the model's reply text (one question)")
    p.add_argument("--answer", dest="reply", action=Deprecated, new="--reply",
                   help=argparse.SUPPRESS)
    grade_file.add_file_options(p)
    p.set_defaults(func=cmd_grade)


__all__ = ["add_cli_commands"]
