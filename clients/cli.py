"""``causal-oracle`` command line: every verb, in-process by default.

The verbs on one question (``verify``, ``explain``, ``answer``, ``grade``) and
``grade FILE`` are ``clients.answer_cli``'s; ``audit`` is here; the others register
from their own modules.

Exit codes (``clients/exits.py``): 0 success, 2 bad input or an unusable path or
server (the message names it and says why), 3 an ``audit --fail-on`` gate was
triggered, 130 interrupted, 141 the reader of the output went away (``… | head``:
quietly, as a Unix tool killed by SIGPIPE), 1 only for a bug.  No verb prints a traceback unless
``--debug`` is given.  Output paths are checked before any work and written
atomically, never over an input (``clients/outputs.py``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from causal_oracle.clients import (
    answer_cli,
    arg_types,
    exits,
    gate,
    generate,
    lm_eval_export,
    serve_cli,
)
from causal_oracle.clients.audit import read_rows, run_audit
from causal_oracle.clients.audit_records import record_writer
from causal_oracle.clients.audit_report import summary_table
from causal_oracle.clients.options import (
    client,
    column_options,
    columns_of,
    limit_options,
    limits_of,
    profile_option,
    server_options,
)
from causal_oracle.clients.outputs import atomic_output, check_input, check_outputs
from causal_oracle.clients.progress import progress_bar
from causal_oracle.clients.readers import at_row
from causal_oracle.clients.row_audit import Columns
from causal_oracle.entry import REGISTRY, InputError, configured


def cmd_audit(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if not path.exists():
        raise InputError(f"no such file: {path}")
    check_input(args.baseline, what="--baseline")
    check_outputs({"--" + option.replace("_", "-"): getattr(args, option)
                   for option in ("report", "junit", "write_corrected", "html", "records")},
                  inputs=[path, args.baseline])
    cols = Columns(**columns_of(args))
    fail_on = gate.parse_fail_on(args.fail_on or "")
    if gate.Finding.NEW in fail_on and not args.baseline:
        raise InputError("--fail-on new needs --baseline OLD.json (an earlier --report)")
    for resource in REGISTRY.resources():  # the families' own files (CLadder's models)
        path_given = getattr(args, resource.dest, None)
        if path_given:
            REGISTRY.load_resource(resource.option, path_given)
    show = sys.stderr.isatty() and not args.quiet
    workers = args.workers if args.workers > 0 else (os.cpu_count() or 1)
    with ExitStack() as stack:
        sink = stack.enter_context(record_writer(args.records)) if args.records else None
        if args.server:
            from causal_oracle.clients.remote_audit import remote_audit, where

            remote = stack.enter_context(client(args))
            report = remote_audit(path, server=args.server, remote=remote, cols=cols,
                                  profile=args.profile, local_fallback=args.local_fallback,
                                  workers=workers, progress=progress_bar if show else None,
                                  sink=sink)
        else:
            report = run_audit(path, cols=cols, profile=args.profile, workers=workers,
                               progress=progress_bar if show else None, sink=sink)
    data = report.to_json()
    if args.server:
        data["where"] = where(report, args.server)
    if args.baseline:
        data["baseline_diff"] = gate.compare_baseline(data, Path(args.baseline))
    nothing_read(report)
    if args.report:
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        # a lone surrogate from the data is written as its JSON escape, not refused
        with atomic_output(args.report, "wb") as handle:
            handle.write(text.encode("utf-8", "backslashreplace"))
    print(summary_table(report), end="")
    print("\n".join(gate.gate_lines(data)), end="\n" if data.get("baseline_diff") else "")
    unit = report.source.get("unit", "row")
    if report.inconsistent:
        print(f"inconsistent premises ({len(report.inconsistent)} items), first: {unit} "
              f"{report.inconsistent[0]['row']}: {report.inconsistent[0]['reason']}")
    if report.three_class_disagreements:
        first = report.three_class_disagreements[0]
        print(f"3-class-only disagreements (binary label agrees): "
              f"{len(report.three_class_disagreements)}, first: {unit} "
              f"{first['row']}: gold {first['gold_relation']}, derived "
              f"{first['derived_relation']} (holds in {first['holds_in']} of "
              f"{first['class_size']} DAGs)")
    if report.unreadable:
        first = report.unreadable[0]
        print(f"unreadable rows: {len(report.unreadable)}, first: "
              f"{at_row(unit, first['row'], first['error'])}")
    if args.server and report.in_process:
        ran = data["where"]
        print(f"rows labelled by the server {args.server}: {ran['remote_rows']}; computed "
              f"in-process (--local-fallback): {ran['in_process_rows']}")
    if args.report:
        print(f"report written to {args.report}")
    if args.records:
        print(f"records written to {args.records}")
    return _audit_outputs(args, path, cols, data, fail_on)


def _audit_outputs(args: argparse.Namespace, path: Path, cols: Columns, data: dict[str, Any],
                   fail_on: frozenset[gate.Finding]) -> int:
    """JUnit, corrected data and HTML (each in its own module), then the gate's verdict."""
    if args.junit:
        rows = [(ref, row.get(cols.id) if isinstance(row, dict) else None)
                for ref, row in read_rows(path)]
        gate.write_junit(data, Path(args.junit), rows)
        print(f"JUnit XML written to {args.junit}")
    if args.write_corrected:
        from causal_oracle.clients.corrected import write_corrected

        counts = write_corrected(path, data, Path(args.write_corrected), cols=cols,
                                 inconsistent=args.inconsistent)
        print(f"corrected data written to {args.write_corrected}: {counts['rows']} rows, "
              f"{counts['changed']} changed, {counts['flagged']} flagged, "
              f"{counts['dropped']} dropped")
    if args.html:
        from causal_oracle.clients.html_report import write_html

        write_html(data, Path(args.html), source=path, cols=cols, profile=args.profile)
        print(f"HTML report written to {args.html}")
    reasons = gate.triggered(data, fail_on)
    if reasons:
        print(f"gate failed (--fail-on {args.fail_on}): {'; '.join(reasons)}")
        return exits.EXIT_GATE
    return exits.EXIT_OK




def nothing_read(report: Any) -> None:
    """``InputError`` (exit 2) when the source is empty or no row of it could be read."""
    from causal_oracle.clients.readers import at_row, fix_hint

    src = report.source
    if report.summary.items == 0:
        raise InputError(f"{src.get('path')}: no rows ({src.get('format')}); "
                         f"columns found: {', '.join(src.get('columns') or []) or 'none'}")
    if report.summary.unreadable == report.summary.items:
        first = report.unreadable[0]
        raise InputError(f"{src.get('path')}: none of the {report.summary.items} rows could "
                         f"be read; {src.get('detected')}. First: "
                         f"{at_row(src.get('unit', 'row'), first['row'], first['error'])}. "
                         f"To fix: {fix_hint([])}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="causal-oracle",
        description="Certified answers for causal-reasoning benchmarks (in-process).")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--version", action="version", version=exits.version_line(),
                        help="print the version and exit")
    limit_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    answer_cli.add_cli_commands(sub)

    p = sub.add_parser("audit", help="re-derive every gold label of a dataset")
    p.add_argument("path", help="JSONL, JSON array, CSV/TSV (any delimiter), Parquet file, or "
                   "a datasets directory (save_to_disk or a Hub-style data folder)")
    profile_option(p)
    p.add_argument("--workers", type=arg_types.workers(), default=1,
                   help="worker processes (0 = one per core; default 1)")
    p.add_argument("--report", help="write the JSON report here")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    limit_options(p)
    column_options(p)
    p.add_argument("--fail-on", metavar="FINDINGS",
                   help="exit 3 if any of these is found: comma-separated disagree, "
                        "inconsistent, unreadable, new (new needs --baseline)")
    p.add_argument("--junit", metavar="OUT.xml", help="write JUnit XML, one test case per item")
    p.add_argument("--records", metavar="OUT.jsonl",
                   help="write every item's audit record as a JSON line (id, family, facets, "
                        "gold, derived, outcome, reason, causes), streamed as rows complete")
    p.add_argument("--baseline", metavar="OLD.json",
                   help="an earlier --report: print and record new/fixed/unchanged disagreements")
    p.add_argument("--write-corrected", metavar="OUT",
                   help="write the rows in the input's layout with the oracle's labels")
    p.add_argument("--inconsistent", choices=("drop", "flag"), default="drop",
                   help="with --write-corrected: drop items on inconsistent premises "
                        "(default) or keep them flagged")
    p.add_argument("--html", metavar="OUT.html", help="write a self-contained HTML report")
    for resource in REGISTRY.resources():  # declared by the families (Family.resources)
        p.add_argument("--" + resource.option, metavar=resource.metavar, help=resource.help)
    server_options(p)
    p.add_argument("--local-fallback", action="store_true",
                   help="with --server: compute in-process the rows the server cannot audit "
                        "(other families; all rows when it is unreachable) instead of "
                        "exiting 2")
    p.set_defaults(func=cmd_audit)

    serve_cli.add_cli_command(sub)
    lm_eval_export.add_cli_commands(sub)
    generate.add_cli_command(sub)
    importlib.import_module("causal_oracle.clients.rescore").add_cli_command(sub)
    importlib.import_module("causal_oracle.clients.check_reasoning_cli").add_cli_command(sub)
    try:
        from causal_oracle.clients import evaluate
    except ImportError:
        evaluate = None  # type: ignore[assignment]
    if evaluate is not None:
        evaluate.add_cli_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; the exit code and the one line a failure prints are ``exits``'s
    (a closed stdout — ``… | head -1`` — ends quietly with 141, ``exits.closed_pipe``)."""
    try:
        code = _run(argv)
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
        return code
    except BrokenPipeError:
        return exits.closed_pipe()


def _run(argv: Sequence[str] | None) -> int:
    args: argparse.Namespace | None = None
    try:
        for stream in (sys.stdout, sys.stderr):  # a lone surrogate from the data: escaped
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="backslashreplace")
        parser = build_parser()
        args = parser.parse_args(argv)
        if not args.debug:  # gRPC's C core writes its own log lines to the terminal: not ours
            os.environ.setdefault("GRPC_VERBOSITY", "NONE")
        limits = limits_of(args)
        if limits is None:
            return int(args.func(args))
        with configured(limits):  # this call's limits; the process's service comes back
            return int(args.func(args))
    except BrokenPipeError:
        raise
    except Exception as error:
        return exits.exit_code(error, server=getattr(args, "server", None),
                               debug=bool(getattr(args, "debug", False)))
    except KeyboardInterrupt as error:
        return exits.exit_code(error)


if __name__ == "__main__":
    raise SystemExit(main())
