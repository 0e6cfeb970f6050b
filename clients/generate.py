"""The ``generate`` verb: write the reference Corr2Cause generator's items to a file.

The items themselves come from the reference dataset of the ``causal_corr2cause``
generator (``Generator.reference``, found through the registry: the Corr2Cause family's
``entry.families.corr2cause_generator_reference``, every Markov equivalence class up
to relabelling, labelled and certified by the oracle); this module writes them as
JSONL or CSV and compares a written file with an upstream release.  On a terminal it
shows how many items it has written so far (``--quiet`` hides it): n = 6 takes half a
minute, and the total is not known until the last class is done.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from causal_oracle.clients.arg_types import count
from causal_oracle.clients.options import limit_options
from causal_oracle.clients.outputs import atomic_output, check_input, check_output
from causal_oracle.clients.progress import progress_count
from causal_oracle.entry import REGISTRY, InputError, default
from causal_oracle.entry.family_records import Reference

#: the dataset whose generator writes the reference data
DATASET = "causal_corr2cause"


def reference() -> Reference:
    """The reference dataset ``generate`` writes (``InputError`` when no registered
    family offers it)."""
    found = REGISTRY.generator(DATASET).reference
    if found is None:
        raise InputError(f"the {DATASET} generator writes no reference dataset")
    return found


def write(options: Any, out: Path,
          progress: Callable[[int, float, bool], None] | None = None) -> dict[str, Any]:
    """Write the dataset; returns ``{"classes", "items", "seconds", "relations"}``.

    ``progress(items, seconds, final)`` is called after every item (the display
    throttles itself) and once more, with ``final`` True, when the last is written."""
    if options.fmt not in ("jsonl", "published"):
        raise InputError(f"--format must be jsonl or published, not {options.fmt!r}")
    start = time.perf_counter()
    count = 0
    premises: set[str] = set()
    relations: dict[str, int] = {}
    with atomic_output(out, newline="") as handle:
        writer = _writer(options, out, handle)
        for row in reference().items(options, default()):
            premises.add(row["premise"])
            relations[row["relation"]] = relations.get(row["relation"], 0) + 1
            writer(row)
            count += 1
            if progress is not None:
                progress(count, time.perf_counter() - start, False)
    if progress is not None:
        progress(count, time.perf_counter() - start, True)
    return {"n": options.n, "classes": len(premises), "items": count,
            "relations": dict(sorted(relations.items())),
            "seconds": round(time.perf_counter() - start, 2)}


def _writer(options: Any, out: Path, handle: TextIO) -> Any:
    if options.fmt == "published":
        if out.suffix.lower() == ".csv":
            w = csv.writer(handle)
            w.writerow(["input", "label"])
            return lambda row: w.writerow([_published(row), row["label"]])
        return lambda row: handle.write(json.dumps(
            {"input": _published(row), "label": row["label"]}, ensure_ascii=False) + "\n")
    return lambda row: handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _published(row: dict[str, Any]) -> str:
    return f"Premise: {row['premise']}\nHypothesis: {row['hypothesis']}"


def excluded_keys(paths: list[str]) -> frozenset[str]:
    """The item keys (``entry.freshness``) of every row in ``paths`` of the family that
    labels pairs (the reference dataset's items)."""
    from causal_oracle.clients.readers import read_records
    from causal_oracle.entry import OracleError, split_input

    key, found = reference().keys(default()), set()
    pairs = default().registry.pair_family().name  # the items the keys read
    for path in paths:
        for record in read_records(path):
            item = default().item(record.row) if record.row is not None else None
            if item is not None and item.family == pairs:
                try:
                    found.add(key(*split_input(item.prompt)))
                except OracleError:  # unreadable or over a limit: nothing to match
                    continue
    return frozenset(found)


def add_cli_command(sub: Any) -> None:
    """Register ``causal-oracle generate``."""
    p = sub.add_parser("generate", help="write a reference Corr2Cause dataset labelled by "
                                        "the oracle")
    p.add_argument("--n", type=int, required=True, help="number of variables (2..12; 2..6 "
                   "lists every class up to relabelling, 7..12 samples)")
    p.add_argument("--out", required=True, help="output file (.jsonl, or .csv for published)")
    p.add_argument("--format", dest="fmt", choices=("jsonl", "published"), default="jsonl",
                   help="generator layout (premise/hypothesis/label/relation/...) or the "
                        "published input/label layout")
    p.add_argument("--seed", type=int, default=0, help="seed for sampled n (default 0)")
    p.add_argument("--classes", type=count(1), default=20, help="classes to sample for n >= 7")
    p.add_argument("--certificates", action="store_true", help="add each item's certificate")
    p.add_argument("--paraphrase", action="store_true", help="paraphrased hypothesis templates")
    p.add_argument("--rename", action="store_true", help="variables Z, Y, X, … instead of A, B, …")
    p.add_argument("--exclude", nargs="+", action="extend", default=[], metavar="FILE",
                   help="leave out every item whose renaming-invariant key occurs in these "
                        "datasets (any format audit reads: e.g. a published test split)")
    p.add_argument("--split", choices=("train", "test"), help="keep one side of the split "
                   "by hash of the item key")
    p.add_argument("--test-fraction", type=float, default=0.1,
                   help="share of keys on the test side (default 0.1)")
    p.add_argument("--provenance", action="store_true", help="add generator, seed, key, "
                   "split and certificate_digest to every row")
    p.add_argument("--compare", metavar="UPSTREAM.jsonl",
                   help="also compare the premise classes with an upstream file")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (shown only on a terminal)")
    limit_options(p)
    p.set_defaults(func=_cmd_generate)


def _progress(what: str) -> Callable[[int, float, bool], None]:
    """A ``write`` progress callback drawing ``what: N items, R items/s`` on stderr."""
    def show(done: int, seconds: float, final: bool) -> None:
        progress_count(what, done, seconds, final=final)

    return show


def _cmd_generate(args: Any) -> int:
    ref = reference()
    if not 2 <= args.n <= ref.max_n:
        raise InputError(f"--n must be between 2 and {ref.max_n}, got {args.n}")
    # paths and the upstream file are checked before the (long) generation
    out = check_output(args.out, inputs=[args.compare], what="--out",
                       regular=bool(args.compare))
    theirs = None
    if args.compare:
        if args.fmt != "jsonl":
            raise InputError("--compare needs --format jsonl")
        theirs = ref.signatures(check_input(args.compare, what="--compare"), default())
    options = ref.options(args.n, args.fmt, args.seed, args.certificates, args.paraphrase,
                      args.rename, args.classes, exclude=excluded_keys(args.exclude),
                      split=args.split, test_fraction=args.test_fraction,
                      provenance=args.provenance)
    show = not args.quiet and sys.stderr.isatty()
    stats = write(options, out, _progress(f"n={args.n}") if show else None)
    print(f"n={stats['n']}: {stats['classes']} classes, {stats['items']} items "
          f"({', '.join(f'{k} {v}' for k, v in stats['relations'].items())}) in "
          f"{stats['seconds']} s -> {args.out}")
    if args.compare:
        c = ref.compare(out, Path(args.compare), default(), theirs)
        print(f"upstream {args.compare}: {c['upstream_premises']} premises in "
              f"{c['upstream_classes']} classes ({c['upstream_duplicates']} relabelled "
              f"duplicates, {len(c['upstream_inconsistent'])} fitting no DAG); shared "
              f"{c['shared']}, only upstream {len(c['only_upstream'])}, only generated "
              f"{c['only_generated']}")
        for text in c["only_upstream"][:5]:
            print(f"  only upstream: {text}")
    return 0

