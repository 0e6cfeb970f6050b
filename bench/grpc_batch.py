"""gRPC batches of new Corr2Cause items: verifications per second on the bulk path.

    .venv/bin/python bench/grpc_batch.py [--premises 200] [--runs 3] [--workers 2]

Each run draws ``--premises`` distinct random n = 6 classes (``audit_speed.
synthetic_space``: every pair × six hypothesis templates, 90 items a premise, a new
seed per run), starts a fresh server (``--workers``, so every item is new to it and
to its workers' caches), warms it up on other items (``tests/data/n4.jsonl``), then
sends the items as ``VerifyBatch`` messages of ``--batch-size`` items,
``--concurrency`` in flight, and times them.  Every response is checked against the
item's relation (written by the oracle when the space was drawn): a wrong or failed
item stops the benchmark.

The reference, measured in the same run on the same items: the worker's own code in
this one process (``server_pool._run_items`` with a fresh service: the bulk
labeller, no gRPC, no second worker), and the per-item path the server took before
(``server_pool._run_one`` for each item, a certificate each).  ``--old-python
PATH`` also times a server started with another interpreter (e.g. a checkout from
before the bulk path: ``/work/main/.venv/bin/python``) on the same items.

Printed per run (with the worker code's CPU time per item, in this process), then the
min and median over runs, and last one JSON object.
Target on 2 cores: ≥ 50,000 verifications/s with 2 workers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit_speed import synthetic_space
from grpc_load import start_server

from causal_oracle import entry as svc
from causal_oracle import server_pool
from causal_oracle.clients.remote import make_request
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2_grpc as pb_grpc

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


async def send(target: str, batches: list[pb.VerifyBatchRequest], concurrency: int
               ) -> tuple[float, list[pb.VerifyBatchResponse]]:
    async with grpc.aio.insecure_channel(target, options=[
            ("grpc.max_receive_message_length", 256 * 1024 * 1024),
            ("grpc.max_send_message_length", 256 * 1024 * 1024)]) as channel:
        stub = pb_grpc.OracleStub(channel)
        out: list[pb.VerifyBatchResponse | None] = [None] * len(batches)
        todo = iter(range(len(batches)))

        async def worker() -> None:
            for k in todo:
                out[k] = await stub.VerifyBatch(batches[k], timeout=600)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start, out  # type: ignore[return-value]


def served(target: str, rows: list[dict[str, str]], batch_size: int, concurrency: int
           ) -> float:
    """Seconds to answer ``rows`` over gRPC (every answer checked)."""
    requests = [make_request(r["premise"], r["hypothesis"], certificate="none") for r in rows]
    asyncio.run(send(target, [pb.VerifyBatchRequest(items=warm_items())], 1))
    batches = [pb.VerifyBatchRequest(items=requests[k:k + batch_size])
               for k in range(0, len(requests), batch_size)]
    seconds, responses = asyncio.run(send(target, batches, concurrency))
    answers = [item for response in responses for item in response.items]
    assert len(answers) == len(rows)
    for row, item in zip(rows, answers, strict=True):
        if not item.HasField("result") or item.result.relation != RELATIONS[row["relation"]]:
            raise SystemExit(f"wrong answer for {row['id']}: {item}")
    return seconds


def with_server(python: str | None, workers: int, rows: list[dict[str, str]],
                batch_size: int, concurrency: int) -> float:
    process, target = start_server(workers, python=python)
    try:
        return served(target, rows, batch_size, concurrency)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)


def in_process(rows: list[dict[str, str]], bulk: bool) -> tuple[float, float]:
    """Seconds (wall, CPU) for the worker's code to answer ``rows`` in this process,
    cold."""
    items = [(make_request(r["premise"], r["hypothesis"], certificate="none")
              .SerializeToString(), None) for r in rows]
    service = svc.Service(svc.Limits())
    start, cpu = time.perf_counter(), time.process_time()
    if bulk:
        results = server_pool._run_items("verify", items, service)
    else:
        results = [server_pool._run_one(service, "verify", data, None) for data, _ in items]
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert all(ok for ok, _ in results)
    return seconds, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--premises", type=int, default=200, help="classes per run (×90 items)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--old-python", metavar="PATH",
                        help="also time a server run by this interpreter on the same items")
    args = parser.parse_args(argv)

    columns = ["server", "in_process_bulk", "in_process_per_item"]
    if args.old_python:
        columns.append("old_server")
    rates: dict[str, list[float]] = {c: [] for c in columns}
    #: the worker's CPU time per item in this process (µs), bulk and per-item paths
    worker_us: dict[str, list[float]] = {"bulk": [], "per_item": []}
    for run in range(args.runs):
        rows = draw(args.premises, args.seed + run)
        bulk, bulk_cpu = in_process(rows, bulk=True)
        per_item, per_item_cpu = in_process(rows, bulk=False)
        seconds = {"server": with_server(None, args.workers, rows, args.batch_size,
                                         args.concurrency),
                   "in_process_bulk": bulk, "in_process_per_item": per_item}
        for name, cpu in (("bulk", bulk_cpu), ("per_item", per_item_cpu)):
            worker_us[name].append(cpu / len(rows) * 1e6)
        if args.old_python:
            seconds["old_server"] = with_server(args.old_python, args.workers, rows,
                                                args.batch_size, args.concurrency)
        for c in columns:
            rates[c].append(len(rows) / seconds[c])
        ratio = rates["server"][-1] / rates["in_process_bulk"][-1]
        print(f"run {run + 1}: {len(rows):,} new items; " + ", ".join(
            f"{c} {rates[c][-1]:,.0f}/s" for c in columns)
            + f"; server / in-process bulk {ratio:.2f}; worker CPU per item "
            f"{worker_us['bulk'][-1]:.1f} µs bulk, {worker_us['per_item'][-1]:.1f} µs "
            "per-item path", flush=True)
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
    for name, us in worker_us.items():
        summary[f"worker_cpu_us_{name}"] = {"min": round(min(us), 1),
                                            "median": round(statistics.median(us), 1)}
        print(f"worker CPU per item, {name}: min {min(us):.1f} µs, "
              f"median {statistics.median(us):.1f} µs")
    print(json.dumps({"items_per_run": args.premises * 90, "workers": args.workers,
                      **summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
