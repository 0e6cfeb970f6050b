"""Deciding large classes: complete 8- and 12-variable premises, a sparse 12-variable parse.

Run from the repository root:

    .venv/bin/python bench/class_speed.py
    .venv/bin/python bench/class_speed.py --before /path/to/older/checkout   # before → after

Each measurement runs in a fresh process (empty caches) and reports seconds and a
ratio against a reference measured in the same run: reading and JSON-decoding
``tests/data/n6_sample.jsonl`` (1,000 rows) in that process.

* ``complete8`` / ``complete12``: parse the premise in which every pair
  correlates (8! = 40,320 and 12! = 479,001,600 members), derive the class, its
  size, and all four relations for the ordered pair (A, B) — each certificate
  re-verified by the checker (``causal_oracle.api.verify``);
* ``startup_s`` (shown, not included): importing and building the Lark grammars,
  once per process (a warm-up parse of a 2-variable premise);
* ``parse_sparse12``: parse a 12-variable premise verbalised from a sparse random
  DAG (every independence listed, like the upstream generator: 2.45 MB);
* ``audit_n6sample``: audit the reference file itself (1,000 n=6 items, every
  certificate re-checked, one process) — its ratio is the "≤ 4× reading and
  decoding" target of the issue, on the sample rather than the whole n=6 space.

With ``--before``, the same code runs against another checkout (its root is put
on ``sys.path`` as ``causal_oracle``); a run that exceeds ``--limit`` seconds is
reported as ``> limit``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "data" / "n6_sample.jsonl"

HYPOTHESES = ["A directly causes B.", "A causes something else which causes B.",
              "There exists at least one collider (i.e., common effect) of A and B.",
              "There exists at least one confounder (i.e., common cause) of A and B."]


def complete_premise(n: int) -> str:
    names = [chr(ord("A") + i) for i in range(n)]
    corr = " ".join(f"{a} correlates with {b}." for i, a in enumerate(names)
                    for b in names[i + 1:])
    return (f"Suppose there is a closed system of {n} variables, {', '.join(names[:-1])} and "
            f"{names[-1]}. All the statistical relations among these {n} variables are as "
            f"follows: {corr}")


def sparse_premise(n: int, seed: int = 12, density: float = 0.1) -> str:
    """Every d-separation of a sparse random DAG, verbalised like the upstream generator
    (12 variables at density 0.1: 2.45 MB, 51,104 independences — the issue's size)."""
    from causal_oracle.oracle.dsep import independence_set
    from causal_oracle.oracle.graph import Dag

    rng = random.Random(seed)
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < density]
    dag = Dag.from_edges(n, edges)
    names = [chr(ord("A") + i) for i in range(n)]
    keys = sorted(independence_set(dag), key=lambda k: (bin(k[2]).count("1"), k))
    marginal = {(x, y) for x, y, g in keys if g == 0}
    corr = [f"{names[x]} correlates with {names[y]}." for x in range(n)
            for y in range(x + 1, n) if (x, y) not in marginal]
    stmts = []
    for x, y, g in keys:
        if g == 0:
            stmts.append(f"{names[x]} is independent of {names[y]}.")
        else:
            given = [names[i] for i in range(n) if g >> i & 1]
            listed = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
            stmts.append(f"{names[x]} and {names[y]} are independent given {listed}.")
    head = (f"Suppose there is a closed system of {n} variables, {', '.join(names[:-1])} and "
            f"{names[-1]}. All the statistical relations among these {n} variables are as "
            f"follows: ")
    if corr:
        return head + " ".join(corr) + " However, " + " ".join(stmts)
    return head + " ".join(stmts)


_CHILD = r"""
import json, sys, time
t = time.perf_counter()
with open(sys.argv[2], encoding="utf-8") as f:
    rows = [json.loads(line) for line in f]
reference = time.perf_counter() - t
what, text_path = sys.argv[1], sys.argv[3]
text = open(text_path, encoding="utf-8").read()
t = time.perf_counter()
from causal_oracle.parser import parse_hypothesis, parse_premise
parse_premise("Suppose there is a closed system of 2 variables, A and B. All the statistical "
              "relations among these 2 variables are as follows: A correlates with B.")
parse_hypothesis("A directly causes B.")
startup = time.perf_counter() - t  # imports and building the grammars, once per process
t = time.perf_counter()
if what == "parse":
    parse_premise(text)
    detail = {}
elif what == "audit":
    from pathlib import Path
    from causal_oracle.clients.audit import run_audit
    t = time.perf_counter()
    report = run_audit(Path(sys.argv[2]), workers=1)
    detail = {"items": report.summary.items, "checked": report.certificates_checked}
else:
    from causal_oracle.api import verify
    t = time.perf_counter()
    results = [verify(text, h) for h in json.loads(sys.argv[4])]
    detail = {"class_size": results[0].class_size,
              "relations": [r.relation for r in results],
              "checked": all(r.check.ok for r in results)}
took = time.perf_counter() - t
print(json.dumps({"seconds": took, "reference_s": reference, "startup_s": startup, **detail}))
"""


def _run(code_root: Path, what: str, text_path: str, limit: float) -> dict[str, object]:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as shim:
        if code_root != ROOT:
            os.symlink(code_root, Path(shim) / "causal_oracle")
            env["PYTHONPATH"] = shim
        try:
            out = subprocess.run([sys.executable, "-c", _CHILD, what, str(REFERENCE), text_path,
                                  json.dumps(HYPOTHESES)], capture_output=True, text=True,
                                 env=env, timeout=limit, cwd=shim)
        except subprocess.TimeoutExpired:
            return {"seconds": None, "note": f"> {limit:g} s"}
    if out.returncode:
        return {"seconds": None, "note": out.stderr.strip().splitlines()[-1][:200]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="an older checkout to compare against")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per measurement")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        texts = {"complete8": complete_premise(8), "complete12": complete_premise(12),
                 "parse_sparse12": sparse_premise(12), "audit_n6sample": ""}
        paths = {}
        for name, text in texts.items():
            paths[name] = str(Path(tmp) / f"{name}.txt")
            Path(paths[name]).write_text(text, encoding="utf-8")
        print(f"sparse 12-variable premise: {len(texts['parse_sparse12']) / 1e6:.2f} MB")
        for name in texts:
            what = name.split("_")[0] if "_" in name else "verify"
            rows = {}
            for label, root in (("before", args.before), ("after", ROOT)):
                if root is None:
                    continue
                r = _run(root.resolve(), what, paths[name], args.limit)
                rows[label] = r
                secs = r.get("seconds")
                shown = r.get("note") if secs is None else (
                    f"{secs:.3f} s = {secs / r['reference_s']:.1f}× reference "
                    f"({r['reference_s'] * 1000:.1f} ms)")
                extra = {k: r[k] for k in ("class_size", "relations", "checked", "items")
                         if k in r}
                print(f"{name:15s} {label:6s} {shown} {extra if extra else ''}")


if __name__ == "__main__":
    main()
