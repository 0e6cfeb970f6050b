"""gRPC batches of new Corr2Cause items: verifications per second on the bulk path.

    .venv/bin/python bench/grpc_batch.py [--premises 200] [--runs 3] [--workers 2]

Each run draws ``--premises`` distinct random n = 6 classes (``audit_speed.
synthetic_space``: every pair × six hypothesis templates, 90 items a premise, a new
seed per run), starts a fresh server (``--workers``, so every item is new to it and
to its workers' caches), warms it up on other items (``tests/data/n4.jsonl``), then
sends the items as a user would: ``AsyncOracleClient.verify_batch`` on lists of
``--batch-size`` requests (``make_request``, built before the clock starts),
``--concurrency`` calls in flight (4 by default: with 2, the workers wait whenever both
answered batches are being written by the server's main process and read by the client;
measured 51–57k/s at 2 against 61–64k/s at 4, the same items, runs alternating), and
times them.  The client sends each batch's
premises once (``VerifyGroup``s, ``clients.remote.batch_request``); an
``--old-python`` server that does not know groups would skip them (the client then
raises), so that run sends the old form (``--old-form`` sends it to this server too).  Every
response is checked against the item's relation (written by the oracle when the space
was drawn): a wrong or failed item stops the benchmark.

The reference, measured in the same run on the same items: the worker's own code in
this one process (``server_pool._run_items`` with a fresh service: the bulk
labeller, no gRPC, no second worker), and the per-item path the server took before
(``server_pool._run_one`` for each item, a certificate each).  ``--old-python
PATH`` also times a server started with another interpreter (e.g. a checkout from
before the bulk path: ``/work/main/.venv/bin/python``) on the same items.

Printed per run, with CPU time per item: the worker's code in this process, and over
the served run the server's main process, its workers (from /proc) and this client
process (``client``: building the grouped messages, gRPC, reading the responses);
then the min and median over runs, and last one JSON object.
Target on 2 cores: ≥ 50,000 verifications/s with 2 workers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit_speed import synthetic_space
from grpc_load import start_server

from causal_oracle import entry as svc
from causal_oracle import server_pool
from causal_oracle.clients.remote import AsyncOracleClient, make_request
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.wire import split_premise

ROOT = Path(__file__).resolve().parent.parent
RELATIONS = {"entailment": pb.RELATION_ENTAILMENT, "neutral": pb.RELATION_NEUTRAL,
             "contradiction": pb.RELATION_CONTRADICTION}


def draw(premises: int, seed: int) -> list[dict[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "space.jsonl"
        synthetic_space(6, premises, seed, path)
        with path.open(encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]


def warm_items() -> list[pb.VerifyRequest]:
    with (ROOT / "tests/data/n4.jsonl").open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [make_request(r["premise"], r["hypothesis"], certificate="none") for r in rows]


async def send(target: str, batches: list[list[pb.VerifyRequest]], concurrency: int,
               group: bool = True) -> tuple[float, list[list[pb.VerifyResponse | Exception]]]:
    """Seconds to send ``batches`` (``AsyncOracleClient.verify_batch``, ``concurrency``
    calls in flight; ``group``: premises once per batch), and each batch's results in
    request order."""
    async with AsyncOracleClient(target, timeout=600) as client:
        out: list[list[pb.VerifyResponse | Exception] | None] = [None] * len(batches)
        todo = iter(range(len(batches)))

        async def worker() -> None:
            for k in todo:
                out[k] = await client.verify_batch(batches[k], group=group)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start, out  # type: ignore[return-value]


#: CPU seconds of one timed phase: the server's main process, its workers (every other
#: process under it), and this client process
Cpu = dict[str, float]


def _children(pid: int) -> list[int]:
    """``pid`` and every process under it (from /proc; only ``pid`` where there is none)."""
    found = [pid]
    try:
        stats = [(int(p.name), (p / "stat").read_text()) for p in Path("/proc").iterdir()
                 if p.name.isdigit()]
    except OSError:
        return found
    parents = {}
    for child, stat in stats:
        parents[child] = int(stat.rsplit(")", 1)[1].split()[1])
    for parent in found:  # grows as it goes: breadth first
        found.extend(c for c, p in parents.items() if p == parent)
    return found


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of ``pid`` (0 once it is gone or without /proc)."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def served(target: str, server: int, rows: list[dict[str, str]], batch_size: int,
           concurrency: int, group: bool = True) -> tuple[float, Cpu]:
    """Seconds to answer ``rows`` over gRPC (every answer checked), and the CPU seconds
    spent meanwhile (``Cpu``; ``server``: the server's pid)."""
    requests = [make_request(r["premise"], r["hypothesis"], certificate="none") for r in rows]
    asyncio.run(send(target, [warm_items()], 1, group))
    batches = [requests[k:k + batch_size] for k in range(0, len(requests), batch_size)]
    pids = _children(server)
    before = [_cpu_of(p) for p in pids]
    client = time.process_time()
    seconds, responses = asyncio.run(send(target, batches, concurrency, group))
    client = time.process_time() - client
    spent = [_cpu_of(p) - b for p, b in zip(pids, before, strict=True)]
    answers = [item for response in responses for item in response]
    assert len(answers) == len(rows)
    for row, item in zip(rows, answers, strict=True):
        if isinstance(item, Exception) or item.relation != RELATIONS[row["relation"]]:
            raise SystemExit(f"wrong answer for {row['id']}: {item}")
    return seconds, {"server_main": spent[0], "workers": sum(spent[1:]), "client": client}


def with_server(python: str | None, workers: int, rows: list[dict[str, str]],
                batch_size: int, concurrency: int, group: bool = True
                ) -> tuple[float, Cpu]:
    process, target = start_server(workers, python=python)
    try:
        return served(target, process.pid, rows, batch_size, concurrency, group)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)


def in_process(rows: list[dict[str, str]], bulk: bool) -> tuple[float, float]:
    """Seconds (wall, CPU) for the worker's code to answer ``rows`` in this process,
    cold."""
    items: server_pool.Items = []
    last = b""
    for r in rows:
        head, rest = split_premise(make_request(r["premise"], r["hypothesis"],
                                                certificate="none").SerializeToString(), last)
        items.append((head, rest, None))
        last = head
    service = svc.Service(svc.Limits())
    start, cpu = time.perf_counter(), time.process_time()
    if bulk:
        results = server_pool._run_items("verify", items, service)
    else:
        results = [server_pool._run_one(service, "verify", head + rest, None)
                   for head, rest, _ in items]
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert all(ok for ok, _ in results)
    return seconds, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--premises", type=int, default=200, help="classes per run (×90 items)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=4,
                        help="VerifyBatch calls in flight")
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--old-python", metavar="PATH",
                        help="also time a server run by this interpreter on the same items "
                        "(sent in the old form: every item with its premise)")
    parser.add_argument("--old-form", action="store_true",
                        help="send this server the old form too (no VerifyGroup)")
    args = parser.parse_args(argv)

    columns = ["server", "in_process_bulk", "in_process_per_item"]
    if args.old_python:
        columns.append("old_server")
    rates: dict[str, list[float]] = {c: [] for c in columns}
    #: CPU time per item (µs): the worker's code in this process (bulk and per-item
    #: paths), and each part of a served run (server main, workers, client)
    cpu_us: dict[str, list[float]] = {}
    for run in range(args.runs):
        rows = draw(args.premises, args.seed + run)
        n = len(rows)
        bulk, bulk_cpu = in_process(rows, bulk=True)
        per_item, per_item_cpu = in_process(rows, bulk=False)
        served_s, cpu = with_server(None, args.workers, rows, args.batch_size,
                                    args.concurrency, not args.old_form)
        seconds = {"server": served_s, "in_process_bulk": bulk, "in_process_per_item": per_item}
        spent = {"worker_code_bulk": bulk_cpu, "worker_code_per_item": per_item_cpu,
                 **{f"server_{k}" if k == "workers" else k: v for k, v in cpu.items()}}
        if args.old_python:  # a server from before groups: the old form
            seconds["old_server"], old_cpu = with_server(
                args.old_python, args.workers, rows, args.batch_size, args.concurrency,
                group=False)
            spent.update({f"old_{k}": v for k, v in old_cpu.items()})
        for name, value in spent.items():
            cpu_us.setdefault(name, []).append(value / n * 1e6)
        for c in columns:
            rates[c].append(n / seconds[c])
        ratio = rates["server"][-1] / rates["in_process_bulk"][-1]
        print(f"run {run + 1}: {n:,} new items; " + ", ".join(
            f"{c} {rates[c][-1]:,.0f}/s" for c in columns)
            + f"; server / in-process bulk {ratio:.2f}; CPU per item (µs) " + ", ".join(
                f"{name} {us[-1]:.1f}" for name, us in cpu_us.items()), flush=True)
    summary = {c: {"min": round(min(v)), "median": round(statistics.median(v))}
               for c, v in rates.items()}
    ratios = [s / b for s, b in zip(rates["server"], rates["in_process_bulk"], strict=True)]
    summary["server_over_in_process_bulk"] = {"min": round(min(ratios), 2),
                                              "median": round(statistics.median(ratios), 2)}
    if args.old_python:
        old = [s / o for s, o in zip(rates["server"], rates["old_server"], strict=True)]
        summary["server_over_old_server"] = {"min": round(min(old), 2),
                                             "median": round(statistics.median(old), 2)}
    for name, value in summary.items():
        print(f"{name}: min {value['min']:,}, median {value['median']:,}")
    for name, us in cpu_us.items():
        summary[f"cpu_us_{name}"] = {"min": round(min(us), 1),
                                     "median": round(statistics.median(us), 1)}
        print(f"CPU per item, {name}: min {min(us):.1f} µs, "
              f"median {statistics.median(us):.1f} µs")
    print(json.dumps({"items_per_run": args.premises * 90, "workers": args.workers,
                      **summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
