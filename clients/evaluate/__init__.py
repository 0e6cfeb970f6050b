"""Batch evaluation: run a model over a benchmark, score every answer through the oracle.

``causal-oracle eval --model M --data FILE --report OUT.json`` runs ``M`` — a Hugging
Face causal LM (local directory, hub id, or GGUF file: ``model_files``; needs the
``gpu`` extra, and ``gguf`` for a GGUF file) or a built-in baseline (majority,
random-uniform, random-proportional, oracle) — over the items
of ``FILE`` (Corr2Cause, CI-Bench and IE rows), grades every answer against the
oracle and, where the data has gold, against gold, and writes

* ``OUT.json``: the metrics (F1 / precision / recall / accuracy on the binary label
  overall, per relation and per number of variables for Corr2Cause; accuracy per
  task for CI-Bench and IE; the unreadable rate; oracle≠gold counts), the
  configuration and the timing (items/s, tokens/s);
* ``OUT.md``: the same as a Markdown table; ``OUT.png``: per-relation F1;
* ``OUT.results.jsonl``: one line per item — a rerun resumes from it.

Modules: ``data`` (items), ``prompts`` (templates), ``model_files`` (what
``--model`` names: folder, GGUF file or hub id), ``scoring`` (the oracle
interface; ``--server`` uses ``clients.remote``), ``baselines``, ``runner`` (the
Hugging Face model, batching, the two scoring modes), ``engines`` (``--engine
hf|vllm`` behind one interface), ``metrics``, ``report`` (table, chart), ``run``
(the loop), ``ray_pipeline`` (``--ray``: the same job as a Ray Data pipeline over
model replicas), ``tiny`` (a tiny random model for tests and benchmarks).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from causal_oracle.clients.arg_types import count
from causal_oracle.clients.evaluate.baselines import BASELINES
from causal_oracle.clients.evaluate.data import all_tasks, task_names
from causal_oracle.clients.evaluate.engines import ENGINES
from causal_oracle.clients.evaluate.run import EvalConfig, run_eval
from causal_oracle.clients.evaluate.runner import DTYPES, MODES
from causal_oracle.clients.options import column_options, columns_of, limit_options
from causal_oracle.clients.outputs import check_output
from causal_oracle.clients.progress import progress_bar
from causal_oracle.entry import PROFILES, InputError


def _progress(done: int, total: int, seconds: float, tokens: int) -> None:
    tok_rate = tokens / seconds if seconds > 0 else 0.0
    progress_bar(done, total, seconds, f" {tok_rate:,.0f} tokens/s")


def _tasks(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in text.split(","):
        try:
            out.extend(task_names(part))
        except InputError as error:
            raise argparse.ArgumentTypeError(error.message) from None
    return tuple(dict.fromkeys(out))


def _words(text: str) -> tuple[str, str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError("give two words: POSITIVE,NEGATIVE (e.g. Yes,No)")
    return parts[0], parts[1]


def cmd_eval(args: argparse.Namespace) -> int:
    show = not args.quiet and sys.stderr.isatty()
    # as typed: a trailing '/' or an empty name is lost once it is a Path
    check_output(args.report, inputs=[args.data, args.template], what="--report",
                 regular=True)
    cfg = EvalConfig(model=args.model, data=Path(args.data), report=Path(args.report),
                     tasks=args.task, mode=args.mode, batch_size=args.batch_size,
                     max_batch_tokens=args.max_batch_tokens, device=args.device,
                     dtype=args.dtype, seed=args.seed,
                     template=Path(args.template) if args.template else None,
                     max_new_tokens=args.max_new_tokens, limit=args.limit, server=args.server,
                     profile=args.profile, answer_words=args.answer_words, fresh=args.fresh,
                     engine=args.engine, stop=tuple(args.stop or ()), ray=args.ray,
                     replicas=args.replicas, graders=args.graders,
                     progress=_progress if show else None, columns=columns_of(args),
                     reasoning=args.reasoning)
    if cfg.batch_size < 1:
        raise InputError("--batch-size must be at least 1")
    report = run_eval(cfg)
    print(Path(report["files"]["table"]).read_text(encoding="utf-8"), end="")
    for warning in report["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    if report["oracle_errors"]:
        first = report["oracle_errors"][0]
        print(f"items the oracle gives no answer for: {len(report['oracle_errors'])}, first: "
              f"{first['id']}: {first['error']}")
    files = report["files"]
    print(f"report written to {args.report} (table {files['table']}"
          + (f", chart {files['chart']}" if files["chart"] else "")
          + f", per-item results {files['results']})")
    if args.json:
        print(json.dumps(report["metrics"], indent=1))
    return 0


def add_cli_commands(subparsers: Any) -> None:
    """Register the ``eval`` verb (sets ``func=callable(args) -> int``)."""
    p = subparsers.add_parser(
        "eval", help="run a model (or a baseline) over a benchmark and score it with the oracle",
        description="Run a model over a benchmark file, grade every answer with the oracle "
                    "(and against gold), and write OUT.json, OUT.md, OUT.png and "
                    "OUT.results.jsonl (a rerun resumes from it).")
    p.add_argument("--model", required=True,
                   help="a Hugging Face causal LM (directory or hub id), a GGUF file (or a "
                        "folder holding one; needs the gguf package: the smollm extra) or a "
                        "baseline: " + ", ".join(BASELINES))
    p.add_argument("--data", required=True, help="JSONL or CSV file of benchmark items")
    p.add_argument("--report", required=True, help="write the JSON report here")
    p.add_argument("--task", type=_tasks, default=None,
                   help="only these families or tasks, comma-separated: "
                        + ", ".join(all_tasks()))
    p.add_argument("--server", metavar="HOST:PORT",
                   help="score through the gRPC service instead of in-process")
    p.add_argument("--engine", choices=ENGINES, default="hf",
                   help="hf: Hugging Face transformers in this process (CPU or GPU); vllm: "
                        "vLLM's offline engine with prefix caching (CUDA GPU, the vllm "
                        "extra) (default: hf)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run as a Ray Data pipeline: model replicas (one per GPU, else CPU "
                        "actors) predict and score batches; ADDRESS of a running cluster "
                        "(e.g. auto, ray://host:10001), or none for a local one (the ray "
                        "extra)")
    p.add_argument("--replicas", type=count(1), default=None,
                   help="with --ray: model replicas (default: one per GPU; without GPUs, "
                        "half the CPUs)")
    p.add_argument("--graders", type=count(0), default=None,
                   help="with --ray: CPU actors that score the answers with the oracle, a "
                        "stage after the replicas (default: one per GPU replica; 0, the "
                        "default without GPUs: score inside the replicas)")
    p.add_argument("--stop", action="append", metavar="TEXT",
                   help="generate mode: end an answer at TEXT (repeatable; both engines)")
    p.add_argument("--mode", choices=MODES, default="logits",
                   help="logits: compare the answer words' next-token probability (yes/no "
                        "tasks; open answers are always generated); generate: greedy "
                        "decoding read by the answer grammar (default: logits)")
    p.add_argument("--batch-size", type=count(1), default=8, help="prompts per batch (default 8)")
    p.add_argument("--max-batch-tokens", type=count(1), default=None,
                   help="at most this many padded tokens per batch")
    p.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, cuda, …")
    p.add_argument("--dtype", choices=DTYPES, default="auto",
                   help="auto: bfloat16/float16 on CUDA, float32 on CPU")
    p.add_argument("--seed", type=int, default=0, help="seed for torch and the random baselines")
    p.add_argument("--template", help="prompt template file ({prompt}, {premise}, "
                   "{hypothesis}, {task}); default: the benchmark's own prompt")
    p.add_argument("--answer-words", type=_words, default=("Yes", "No"),
                   help="positive,negative answer words for the logits mode (default Yes,No)")
    p.add_argument("--max-new-tokens", type=count(1), default=None,
                   help="generation budget (default 8 for yes/no items, 256 for open answers)")
    p.add_argument("--limit", type=count(1), default=None, help="only the first N items")
    p.add_argument("--profile", choices=PROFILES, default="corr2cause",
                   help="semantics profile of the oracle (default: corr2cause)")
    p.add_argument("--fresh", action="store_true",
                   help="ignore earlier results next to the report and start over")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--reasoning", action="store_true",
                   help="also check every reply's causal claims against the certificate "
                        "(generate mode): claims, false claims, and the right answers that "
                        "rest on a false claim")
    p.add_argument("--json", action="store_true", help="also print the metrics as JSON")
    limit_options(p)
    column_options(p)
    p.set_defaults(func=cmd_eval)


__all__ = ["EvalConfig", "add_cli_commands", "run_eval"]
