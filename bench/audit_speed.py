"""Audit throughput on Corr2Cause data, with ratios against naive references.

Run from the repository root (after ``./scripts/test`` or ``./scripts/demo`` made .venv):

    .venv/bin/python bench/audit_speed.py                      # shared samples
    .venv/bin/python bench/audit_speed.py --synthetic-n6 2207  # + a full-size n=6 space
    .venv/bin/python bench/audit_speed.py --synthetic-n6 2207 --skip-samples --repeat 3 \
        --before TREE                        # its ratio's min and median, before/after

What it measures, all in this one run:

* ``audit`` (in-process, certificates re-checked) on each sample file: cold (a
  fresh process, empty caches, ``--workers`` processes) and warm (a single
  process auditing the file a second time, its content caches filled);
* reference 1, *uncached*: the same pipeline with every cache cleared before each
  item — what an audit costs without premise-content caching;
* reference 2, *brute force* (n = 4 only): label each item by enumerating all 543
  DAGs and keeping those whose d-separations equal the premise's list;
* optionally a synthetic n = 6 space: ``N`` distinct random equivalence classes
  verbalised like the upstream generator, 90 items each (every pair × six
  relation templates), audited with ``--workers`` processes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

DATA = ROOT / "tests" / "data"


def _cold_audit(path: Path, workers: int, before: Path | None = None,
                warm: bool = True) -> dict[str, float]:
    """Audit ``path`` in a fresh process (``before``: with the package from that tree)."""
    code = (
        "import json,os,sys,time\n"
        "from pathlib import Path\n"
        "from causal_oracle.clients.audit import run_audit\n"
        "def cpu():\n"
        "    t=os.times()\n"
        "    return t.user+t.system+t.children_user+t.children_system\n"
        f"p=Path({str(path)!r})\n"
        "c=cpu()\n"
        "t=time.perf_counter()\n"
        f"r=run_audit(p, workers={workers})\n"
        "cold=time.perf_counter()-t\n"
        "cold_cpu=cpu()-c\n"
        "warm=cold\n"
        f"if {warm}:\n"
        "    run_audit(p, workers=1)\n"
        "    t=time.perf_counter()\n"
        "    r2=run_audit(p, workers=1)\n"
        "    warm=time.perf_counter()-t\n"
        "s=r.summary\n"
        "print(json.dumps({'items': s.items, 'cold_s': cold, 'warm_s': warm,"
        " 'cold_cpu_s': cold_cpu, 'checked': r.certificates_checked, 'agree': s.agree}))\n"
    )
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as shim:
        if before is not None:  # import the old tree as causal_oracle
            (Path(shim) / "causal_oracle").symlink_to(before.resolve())
            env["PYTHONPATH"] = shim
        out = subprocess.run([sys.executable, "-c", code], cwd=shim if before else ROOT,
                             capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _uncached_rate(path: Path, limit: int) -> float:
    from causal_oracle.entry import default

    rows = [json.loads(line) for line in path.open()][:limit]
    start = time.perf_counter()
    for row in rows:
        default().clear_caches()  # every cache the pipeline has: the service owns them all
        default().verify(row["premise"], row["hypothesis"])
    return len(rows) / (time.perf_counter() - start)


def _brute_force_rate(path: Path, limit: int) -> float:
    from causal_oracle.oracle.bruteforce import all_dags
    from causal_oracle.oracle.dsep import d_separated
    from causal_oracle.oracle.relations import holds
    from causal_oracle.parser import parse_hypothesis, parse_premise

    rows = [json.loads(line) for line in path.open()][:limit]
    start = time.perf_counter()
    for row in rows:
        premise = parse_premise(row["premise"])
        hypothesis = parse_hypothesis(row["hypothesis"])
        listed = premise.independence_keys()
        n = premise.n
        members = []
        for dag in all_dags(n):
            ok = True
            for x, y in combinations(range(n), 2):
                for given in range(1 << n):
                    if given >> x & 1 or given >> y & 1:
                        continue
                    if d_separated(dag, x, y, given) != ((x, y, given) in listed):
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                members.append(dag)
        p, q = premise.index(hypothesis.first), premise.index(hypothesis.second)
        [holds(m, hypothesis.kind, hypothesis.form, p, q) for m in members]
    return len(rows) / (time.perf_counter() - start)


# ------------------------------------------------------------- synthetic space
def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def verbalise(n: int, independencies: frozenset[tuple[int, int, int]]) -> str:
    names = [chr(ord("A") + i) for i in range(n)]
    marginal = {(x, y) for x, y, g in independencies if g == 0}
    corr = [f"{names[x]} correlates with {names[y]}." for x, y in combinations(range(n), 2)
            if (x, y) not in marginal]
    indep = []
    for x, y, g in sorted(independencies, key=lambda k: (k[0], k[1], bin(k[2]).count("1"),
                                                          k[2])):
        if g == 0:
            indep.append(f"{names[x]} is independent of {names[y]}.")
        else:
            given = [names[i] for i in range(n) if g >> i & 1]
            indep.append(f"{names[x]} and {names[y]} are independent given {_join(given)}.")
    text = (f"Suppose there is a closed system of {n} variables, {_join(names)}. All the "
            f"statistical relations among these {n} variables are as follows:")
    if corr:
        text += " " + " ".join(corr)
        if indep:
            text += " However, " + " ".join(indep)
    elif indep:
        text += " " + " ".join(indep)
    return text


TEMPLATES = ["{p} directly causes {q}.", "{q} directly causes {p}.",
             "{p} causes something else which causes {q}.",
             "{q} is a cause for {p}, but not a direct one.",
             "There exists at least one collider (i.e., common effect) of {p} and {q}.",
             "There exists at least one confounder (i.e., common cause) of {p} and {q}."]


def synthetic_space(n: int, premises: int, seed: int, out: Path, wrong: float = 0.036) -> int:
    """Write ``premises`` distinct random classes × every pair × the six templates.

    Gold is the oracle's own 3-class relation and binary label (from the class
    listing) with a fraction ``wrong`` of binary labels flipped — the rate of
    disagreements on the upstream release — so that the audit does the work it does
    on real data: most rows agree, a few need a certificate."""
    from causal_oracle.oracle.dsep import independence_set
    from causal_oracle.oracle.equivalence import analyse
    from causal_oracle.oracle.graph import Dag
    from causal_oracle.oracle.relation_table import RelationTable
    from causal_oracle.oracle.relations import Profile, reading
    from causal_oracle.parser import parse_hypothesis, parse_premise

    rng = random.Random(seed)
    seen: set[frozenset[tuple[int, int, int]]] = set()
    items = 0
    with out.open("w", encoding="utf-8") as handle:
        while len(seen) < premises:
            order = list(range(n))
            rng.shuffle(order)
            density = rng.random()
            edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)
                     if rng.random() < density]
            key = independence_set(Dag.from_edges(n, edges))
            if key in seen:
                continue
            seen.add(key)
            premise = verbalise(n, key)
            analysis = analyse(parse_premise(premise))
            table = RelationTable(n, analysis.members)
            for x, y in combinations(range(n), 2):
                p, q = chr(ord("A") + x), chr(ord("A") + y)
                for t in TEMPLATES:
                    hypothesis = t.format(p=p, q=q)
                    h = parse_hypothesis(hypothesis)
                    pair = (analysis.premise.variables.index(h.first),
                            analysis.premise.variables.index(h.second))
                    k = table.count(reading(h.kind, h.form, Profile.CORR2CAUSE), *pair)
                    relation = ("entailment" if k == table.size else
                                "contradiction" if k == 0 else "neutral")
                    label = int(relation == "entailment") ^ (rng.random() < wrong)
                    row = {"id": f"synthetic_n{n}_{len(seen)}_{p}{q}_{TEMPLATES.index(t)}",
                           "premise": premise, "hypothesis": hypothesis,
                           "relation": relation, "label": label}
                    handle.write(json.dumps(row) + "\n")
                    items += 1
    return items


def _decode_pass(path: Path) -> dict[str, float]:
    """Seconds to read and JSON-decode every line, in a fresh process (the reference)."""
    code = (
        "import json,sys,time\n"
        "import orjson\n"
        f"p={str(path)!r}\n"
        "t=time.perf_counter(); c=time.process_time()\n"
        "with open(p,'rb') as f:\n"
        "    for line in f: json.loads(line)\n"
        "std=time.perf_counter()-t; std_cpu=time.process_time()-c\n"
        "t=time.perf_counter()\n"
        "with open(p,'rb') as f:\n"
        "    for line in f: orjson.loads(line)\n"
        "print(json.dumps({'json_s': std, 'json_cpu_s': std_cpu,"
        " 'orjson_s': time.perf_counter()-t}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _references(results: dict[str, Any]) -> None:
    """The n4 references: the uncached pipeline and brute force, against the audit."""
    uncached = _uncached_rate(DATA / "n4.jsonl", 300)
    brute = _brute_force_rate(DATA / "n4.jsonl", 40)
    n4 = results["n4"]["items"] / results["n4"]["cold_s"]
    print(f"n4 reference: uncached pipeline {uncached:,.0f} items/s (audit is "
          f"{n4 / uncached:.1f}x); brute force {brute:,.1f} items/s (audit is "
          f"{n4 / brute:,.0f}x)")


def _synthetic_run(path: Path, items: int, args: argparse.Namespace, after: Path | None
                   ) -> dict[str, Any]:
    """One run on the synthetic space: the reference pass, the audit with
    ``--workers`` and with one process, and with ``--before`` the other tree's audit
    right after (so that both see the same load)."""
    ref = _decode_pass(path)
    r = _cold_audit(path, args.workers, after, warm=False)
    print(f"  reference, read + JSON-decode every line, 1 process: json "
          f"{ref['json_s']:.2f} s, orjson {ref['orjson_s']:.2f} s")
    print(f"  audit, every label checked, {args.workers} workers: {r['cold_s']:.2f} s "
          f"({items / r['cold_s']:,.0f} items/s) = {r['cold_s'] / ref['json_s']:.1f}x "
          f"the json pass, {r['cold_s'] / ref['orjson_s']:.1f}x the orjson pass; CPU "
          f"{r['cold_cpu_s']:.2f} s = {r['cold_cpu_s'] / ref['json_cpu_s']:.1f}x the "
          f"json pass's CPU")
    if args.before:
        old = _cold_audit(path, args.workers, args.before, warm=False)
        # the same items, every certificate checked (agree alone changed meaning:
        # ambiguous items are counted apart since the one-record report)
        assert (old["items"], old["checked"]) == (r["items"], r["checked"]), (old, r)
        print(f"  before ({args.before}), {args.workers} workers: {old['cold_s']:.2f} s "
              f"= {old['cold_s'] / ref['json_s']:.1f}x the json pass; after / before "
              f"{r['cold_s'] / old['cold_s']:.2f} (CPU "
              f"{r['cold_cpu_s'] / old['cold_cpu_s']:.2f})")
        r["before_cold_s"] = old["cold_s"]
    one = _cold_audit(path, 1, after, warm=False)
    print(f"  audit, 1 process: {one['cold_s']:.2f} s ({items / one['cold_s']:,.0f} "
          f"items/s)")
    return {**r, "reference": ref}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--before", type=Path, metavar="TREE",
                    help="also audit the samples and the synthetic space with the package in "
                         "TREE (e.g. `git archive main | tar -x -C TREE`), for before/after "
                         "ratios measured in this run")
    ap.add_argument("--synthetic-n6", type=int, default=0, metavar="N",
                    help="also audit a synthetic n=6 space of N premises × 90 items")
    ap.add_argument("--repeat", type=int, default=1, metavar="R",
                    help="audit the synthetic space R times (each run with its own "
                         "reference pass) and print the ratio's min and median")
    ap.add_argument("--skip-samples", action="store_true",
                    help="only the synthetic space (no sample files, no references on n4)")
    args = ap.parse_args()
    results = {}
    # with --before, this tree is imported the way the other is (through a shim), so the
    # ratio compares code, not the editable install's import hooks
    after = ROOT if args.before else None
    for name in () if args.skip_samples else ("n4", "n5_sample", "n6_sample"):
        path = DATA / f"{name}.jsonl"
        r = _cold_audit(path, args.workers, after)
        results[name] = r
        print(f"{name:<10} {r['items']:>7} items  cold {r['items'] / r['cold_s']:>9,.0f} "
              f"items/s  warm {r['items'] / r['warm_s']:>9,.0f} items/s  "
              f"({r['checked']} certificates checked)")
        if args.before:
            old = _cold_audit(path, args.workers, args.before)
            assert (old["items"], old["checked"]) == (r["items"], r["checked"]), (old, r)
            print(f"{'':<10} before: cold {old['cold_s']:.2f} s, warm {old['warm_s']:.2f} s; "
                  f"after / before: cold {r['cold_s'] / old['cold_s']:.2f} (CPU "
                  f"{r['cold_cpu_s'] / old['cold_cpu_s']:.2f}), warm "
                  f"{r['warm_s'] / old['warm_s']:.2f}")
    if not args.skip_samples:
        _references(results)
    if args.synthetic_n6:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "synthetic_n6.jsonl"
            t = time.perf_counter()
            items = synthetic_space(6, args.synthetic_n6, 20261122, path)
            gen = time.perf_counter() - t
            size = path.stat().st_size / 1e6
            print(f"synthetic n6: {args.synthetic_n6} premises, {items:,} items, {size:.0f} MB "
                  f"(generated in {gen:.1f} s)")
            ratios: list[float] = []
            for run in range(args.repeat):
                if args.repeat > 1:
                    print(f"  run {run + 1} of {args.repeat}:")
                r = _synthetic_run(path, items, args, after)
                ratios.append(r["cold_s"] / r["reference"]["json_s"])
                results["synthetic_n6"] = r
            if args.repeat > 1:
                ratios.sort()
                print(f"synthetic n6, {args.repeat} runs: audit / json pass min "
                      f"{ratios[0]:.1f}x, median {ratios[len(ratios) // 2]:.1f}x")
    print(json.dumps({k: {"items_per_s_cold": round(v["items"] / v["cold_s"]),
                          "items_per_s_warm": round(v["items"] / v.get("warm_s", v["cold_s"]))}
                      for k, v in results.items()}))


if __name__ == "__main__":
    main()
