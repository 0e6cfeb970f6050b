"""Load benchmark of the gRPC service: unary and streaming Verify over loopback.

    .venv/bin/python bench/grpc_load.py [--server HOST:PORT] [--requests N]

Drives the service from this (second) process with real Corr2Cause items
(``tests/data/*.jsonl``, 4,262 items over their premises):

1. warm-up: every item once over the stream (so that "cached premise" below is true,
   and the resident set has reached its working size);
2. unary: ``N`` ``Verify`` calls, ``--concurrency`` at a time (default 1, so that the
   percentiles are the latency a caller sees, not time queued behind other calls),
   each timed;
3. streaming: ``N`` items over one ``VerifyStream`` through ``AsyncOracleClient.
   verify_many`` (bounded in flight, responses reordered to the request order);
4. batched: ``N`` items as ``VerifyBatch`` messages of ``--batch-size`` items (order
   kept by the server; a premise once per group, as ``clients.remote.batch_request``
   builds them, or ``--old-form``), reported with its ratio to the stream measured in
   this run.

The server's resident set (the server process and its worker processes, found by
the listening port under /proc) is read after the warm-up (``rss_mb_start``) and
after the two phases (``rss_mb_end``); ``rss_mb_cold`` is before the warm-up.
Without ``--server`` a server subprocess is started (``server.py --port 0``).

The last line printed is one JSON object: ``unary_rps``, ``unary_p50_ms``,
``unary_p99_ms``, ``stream_items_per_s``, ``rss_mb_start``, ``rss_mb_end`` (plus
``requests`` and ``rss_mb_cold``), ``batch_items_per_s`` and ``batch_over_stream``.
Targets on 2 cores: batched cached items ≥ 50,000/s, streaming ≥ 5,000 items/s,
unary p99 ≤ 5 ms, RSS within ±10 % across 100,000 requests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent

from causal_oracle.clients.remote import (  # noqa: E402
    AsyncOracleClient,
    batch_request,
    make_request,
)
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2_grpc as pb_grpc  # noqa: E402


def load_items() -> list[tuple[str, str]]:
    items = []
    for path in sorted((ROOT / "tests/data").glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if "premise" in row and "hypothesis" in row:
                    items.append((row["premise"], row["hypothesis"]))
    return items


# ---- the server's resident set, from /proc ------------------------------------------------

def _listening_inodes(port: int) -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # LISTEN
                inodes.add(fields[9])
    return inodes


def server_pid(port: int) -> int | None:
    """The process listening on ``port`` (None where /proc does not tell)."""
    wanted = {f"socket:[{inode}]" for inode in _listening_inodes(port)}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") in wanted:
                    return int(pid)
        except OSError:
            continue
    return None


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(pid))
    return tree


def tree_rss_mb(pid: int | None) -> float | None:
    """Resident set of ``pid`` and all its descendants, in MiB."""
    if pid is None:
        return None
    tree, total, todo = _children(), 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(tree.get(p, ()))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return round(total / 1024, 1)


# ---- load -------------------------------------------------------------------------------------

async def unary_phase(target: str, items: list[tuple[str, str]], n: int, concurrency: int
                      ) -> tuple[float, list[float]]:
    requests = [make_request(p, h, certificate="none") for p, h in items]
    latencies: list[float] = []
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.OracleStub(channel)
        counter = iter(range(n))

        async def worker() -> None:
            for i in counter:
                start = time.perf_counter()
                await stub.Verify(requests[i % len(requests)], timeout=30)
                latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds = time.perf_counter() - start
    return seconds, latencies


async def stream_phase(target: str, items: list[tuple[str, str]], n: int,
                       max_in_flight: int) -> float:
    requests = [make_request(p, h, certificate="none") for p, h in items]
    async with AsyncOracleClient(target, timeout=None) as client:
        start = time.perf_counter()
        count = 0
        async for response in client.verify_many(
                (requests[i % len(requests)] for i in range(n)), max_in_flight=max_in_flight,
                return_exceptions=True):
            if isinstance(response, Exception):
                raise response
            count += 1
        seconds = time.perf_counter() - start
    assert count == n
    return seconds


async def answered(target: str, items: list[tuple[str, str]], max_in_flight: int
                   ) -> list[tuple[str, str]]:
    """The warm-up: every item once over the stream; the items the oracle answers (a test
    file corrupts some premises on purpose: their errors would stop the phases)."""
    requests = [make_request(p, h, certificate="none") for p, h in items]
    async with AsyncOracleClient(target, timeout=None) as client:
        results = [r async for r in client.verify_many(requests, max_in_flight=max_in_flight,
                                                       return_exceptions=True)]
    return [item for item, r in zip(items, results, strict=True)
            if not isinstance(r, Exception)]


async def batch_phase(target: str, items: list[tuple[str, str]], n: int, batch_size: int,
                      concurrency: int, group: bool = True) -> float:
    """``n`` items as ``VerifyBatch`` messages of ``batch_size``, ``concurrency`` at once;
    the messages are built before the clock starts (the client's cost is not the server's),
    as the client builds them (``batch_request``: a premise once per group; ``group``
    False: the old form, each item with its premise)."""
    requests = [make_request(p, h, certificate="none") for p, h in items]
    batches = [batch_request([requests[(k + i) % len(requests)]
                              for i in range(min(batch_size, n - k))], group)[0]
               for k in range(0, n, batch_size)]
    async with grpc.aio.insecure_channel(target, options=[
            ("grpc.max_receive_message_length", 256 * 1024 * 1024)]) as channel:
        stub = pb_grpc.OracleStub(channel)
        todo = iter(batches)
        answered = 0

        async def worker() -> None:
            nonlocal answered
            for batch in todo:
                response = await stub.VerifyBatch(batch, timeout=600)
                assert len(response.items) == len(batch.items) + sum(
                    len(g.items) for g in batch.groups)
                answered += len(response.items)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds = time.perf_counter() - start
    assert answered == n
    return seconds


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def start_server(workers: int, options: list[str] | None = None, python: str | None = None
                 ) -> tuple[subprocess.Popen[str], str]:
    """A server subprocess on a free port (``python``: another interpreter, e.g. another
    checkout's virtual environment, for a before/after comparison)."""
    process = subprocess.Popen([python or sys.executable, "-m", "causal_oracle.server",
                                "--port", "0",
                                "--workers", str(workers), *(options or [])], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if " on " not in line:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, line.split(" on ")[1].split()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", metavar="HOST:PORT",
                        help="a running service (default: start one on 127.0.0.1, port 0)")
    parser.add_argument("--requests", type=int, default=100_000,
                        help="requests in each of the unary and streaming phases")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="unary calls in flight (default 1: latency of one caller)")
    parser.add_argument("--max-in-flight", type=int, default=512,
                        help="stream items in flight")
    parser.add_argument("--workers", type=int, default=0,
                        help="worker processes of a server started here (0 = one per core)")
    parser.add_argument("--batch-size", type=int, default=2000,
                        help="items per VerifyBatch message (batch phase)")
    parser.add_argument("--batch-concurrency", type=int, default=2,
                        help="VerifyBatch calls in flight")
    parser.add_argument("--old-form", action="store_true",
                        help="batch phase: every item with its premise (no VerifyGroup)")
    parser.add_argument("--skip-unary", action="store_true",
                        help="skip the unary phase (it takes the longest)")
    parser.add_argument("--server-pid", type=int, help="the server's pid (default: by port)")
    args = parser.parse_args(argv)

    process = None
    target = args.server
    if target is None:
        process, target = start_server(args.workers)
    try:
        pid = args.server_pid or (process.pid if process else
                                  server_pid(int(target.rsplit(":", 1)[1])))
        items = load_items()
        rss_cold = tree_rss_mb(pid)
        items = asyncio.run(answered(target, items, args.max_in_flight))
        rss_start = tree_rss_mb(pid)
        print(f"{len(items):,} items; warm-up done; server pid {pid}, RSS {rss_cold} → "
              f"{rss_start} MiB", flush=True)
        seconds, latencies = (None, []) if args.skip_unary else asyncio.run(
            unary_phase(target, items, args.requests, args.concurrency))
        if seconds is not None:
            print(f"unary: {args.requests:,} calls in {seconds:.2f} s", flush=True)
        stream_seconds = asyncio.run(stream_phase(target, items, args.requests,
                                                  args.max_in_flight))
        print(f"stream: {args.requests:,} items in {stream_seconds:.2f} s", flush=True)
        batch_seconds = asyncio.run(batch_phase(target, items, args.requests,
                                                args.batch_size, args.batch_concurrency,
                                                not args.old_form))
        print(f"batch: {args.requests:,} items in {batch_seconds:.2f} s", flush=True)
        rss_end = tree_rss_mb(pid)
    finally:
        if process is not None:
            process.send_signal(signal.SIGTERM)
            process.wait(60)
    print(json.dumps({
        **({} if seconds is None else {  # --skip-unary: no unary numbers at all
            "unary_rps": round(args.requests / seconds, 1),
            "unary_p50_ms": round(_percentile(latencies, 0.50) * 1000, 3),
            "unary_p99_ms": round(_percentile(latencies, 0.99) * 1000, 3)}),
        "stream_items_per_s": round(args.requests / stream_seconds, 1),
        "batch_items_per_s": round(args.requests / batch_seconds, 1),
        "batch_over_stream": round(stream_seconds / batch_seconds, 2),
        "rss_mb_start": rss_start,
        "rss_mb_end": rss_end,
        "requests": args.requests,
        "rss_mb_cold": rss_cold,
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
