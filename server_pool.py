"""The gRPC server's solver workers: processes that can be taken back one at a time.

Solver work runs in worker processes (forkserver: safe beside gRPC's threads), so a
slow item holds one worker and never the event loop.  Each item runs under a
cooperative budget (``oracle.budget`` through ``entry``: loops check the clock, no
signals) of ``min(solver budget, the call's deadline)``.  Every worker is its own
process with its own pipe, so one worker can be taken back without disturbing the
others, and a worker is *replaced* (killed, a fresh one started) when

* its batch overruns the items' budgets by ``WATCHDOG_SLACK_S`` (the watchdog): the
  items get RESOURCE_EXHAUSTED;
* it dies (memory?): the batch is retried once on a fresh worker;
* the call that gave it the batch is cancelled — the client went away, the deadline
  passed, or the server's ``--grace`` ran out at shutdown — and the work would go on
  for more than ``ABANDON_WAIT_S``: nobody wants the answer, and the next call must
  not queue behind it.  Work that the cooperative deadline ends within that time
  anyway is left to end, and the worker serves again.

``shutdown()`` kills what still runs (the server has already given calls in flight
their grace), so the server exits within its grace.  Workers start with their own
``entry.Service`` and import the modules that registered the parent's benchmark
families.  Jobs and results cross the pipe as plain framed bytes (no pickle): a job
is ``kind`` and per item its premise field, the rest of its serialised request and
its deadline (``server_batch.Items``; a premise field is sent once per run of the
items that share it), a result ``(ok, response bytes)`` or ``(False, ItemError
bytes)`` per item, in order.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import logging
import math
import multiprocessing
import signal
import struct
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from causal_oracle import entry as svc
from causal_oracle.entry import BudgetExceeded, CertificateRejected, InputError, budget
from causal_oracle.proto import pack
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.server_batch import Items, bulk_answers

log = logging.getLogger("causal_oracle.server")

WATCHDOG_SLACK_S = 2.0  # a worker this far past its items' budgets is replaced
ABANDON_WAIT_S = 0.5  # a cancelled batch that ends on its own within this keeps its worker
START_TIMEOUT_S = 120.0  # a fresh worker that is not ready by then is replaced
GC_THRESHOLD = (100_000, 50, 100)  # the collector's generations (``collect_rarely``)
EXHAUSTED, DEADLINE = pack.EXHAUSTED, pack.DEADLINE
item_error = pack.item_error

_WORKER_SERVICE: svc.Service | None = None
_KINDS: dict[str, tuple[Callable[[bytes], Any], Callable[[svc.Service, Any], Any]]] = {
    "verify": (pb.VerifyRequest.FromString, pack.verify),
    "answer": (pb.AnswerRequest.FromString, pack.answer),
}
#: a job item: deadline (NaN: none), the length of its premise field (``_SAME``: the
#: previous item's; ``encode_job``), the length of the rest
_ITEM = struct.Struct("!dII")
_SAME = 0xFFFFFFFF
_RESULT = struct.Struct("!?I")  # a result: ok, payload length

Results = list[tuple[bool, bytes]]


# ---- the worker side -----------------------------------------------------------------------

def _init_worker(limits: svc.Limits, families: tuple[str, ...] = (),
                 path: tuple[str, ...] = ()) -> None:
    """A worker's start: its own service, and the modules that registered the parent's
    benchmark families (a family registered by a user's module is served too)."""
    global _WORKER_SERVICE
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server process handles shutdown
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    svc.import_modules(families, path)
    _WORKER_SERVICE = svc.Service(limits)
    collect_rarely()


def collect_rarely() -> None:
    """What a server process has made so far (modules, grammars, descriptors) out of the
    cyclic collector's sight (``gc.freeze``), and its young generation collected every
    ``GC_THRESHOLD[0]`` allocations instead of every 700.  A batch allocates hundreds
    of thousands of short-lived objects, hardly any in cycles (reference counting
    frees them): with the defaults the collector ran thousands of times a batch and
    took a tenth of a worker's time (measured: 32-37 µs of CPU per new item became
    29-32 µs); the caches bound what lives long."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def error_item(error: BaseException) -> pb.ItemError:
    """The ``ItemError`` of any exception an item raised: the oracle's own errors by
    ``pack.error_of``; exhaustion of memory or recursion depth is RESOURCE_EXHAUSTED
    (the input was too big for this server); anything else — ``CertificateRejected``
    (the checker refused the solver's answer) or an exception nobody meant — is a bug:
    INTERNAL, logged here with its traceback (the client's data is not in the log)."""
    if isinstance(error, (InputError, BudgetExceeded)):
        return pack.error_of(error)
    if isinstance(error, (MemoryError, RecursionError)):
        return item_error(EXHAUSTED, "budget_exceeded", "the input needs more memory or "
                          f"nesting than this server allows ({type(error).__name__})",
                          "solver")
    kind = "certificate_rejected" if isinstance(error, CertificateRejected) else "internal"
    log.error("internal error (a bug): %s", type(error).__name__,
              exc_info=(type(error), error, error.__traceback__))
    return item_error(pack.code_pb2.INTERNAL, kind, f"internal error: {type(error).__name__}")


def _run_one(service: svc.Service, kind: str, data: bytes, deadline: float | None
             ) -> tuple[bool, bytes]:
    parse, work = _KINDS[kind]
    seconds, by_deadline = service.limits.budget_s, False
    if deadline is not None:
        left = deadline - time.time()
        if seconds is None or left < seconds:
            seconds, by_deadline = left, True
    try:
        if seconds is not None and seconds <= 0:
            raise BudgetExceeded("no time left")
        with budget(seconds):
            return True, work(service, parse(data)).SerializeToString()
    except Exception as error:
        return _failed(error, deadline if by_deadline else None)


def _failed(error: BaseException, deadline: float | None) -> tuple[bool, bytes]:
    """The ``ItemError`` of an item that raised ``error`` (``deadline``: the call's, when
    it bounded the item's budget): DEADLINE_EXCEEDED once that deadline has passed."""
    at_deadline = (isinstance(error, BudgetExceeded) and deadline is not None
                   and time.time() >= deadline - 0.05)
    item = (item_error(DEADLINE, "deadline_exceeded",
                       "the deadline passed while the solver was working")
            if at_deadline else error_item(error))
    return False, item.SerializeToString()


def _run_items(kind: str, items: Items, service: svc.Service | None = None) -> Results:
    """``(ok, serialised response or ItemError)`` per serialised request; a Verify
    item of a premise's run by the bulk path (``server_batch``) where it can."""
    service = service or _WORKER_SERVICE or svc.default()
    if kind != "verify":
        return [_run_one(service, kind, head + rest, deadline) for head, rest, deadline in items]
    out = []
    for (head, rest, deadline), answer in zip(items, bulk_answers(service, items),
                                              strict=True):
        if answer is None:
            out.append(_run_one(service, kind, head + rest, deadline))
        elif isinstance(answer, BudgetExceeded):
            out.append(_failed(answer, deadline))
        else:
            out.append(answer)
    return out


def encode_job(kind: str, items: Items) -> bytes:
    """A job's frame.  An item's premise field is sent when it differs from the item
    before's (a batch's items of one premise share it), so a premise crosses the pipe
    once per run of its items, not once per item."""
    name = kind.encode("ascii")
    parts = [bytes([len(name)]), name]
    pack_item, last = _ITEM.pack, None
    for head, rest, deadline in items:
        at = math.nan if deadline is None else deadline
        if head is last or head == last:
            parts += [pack_item(at, _SAME, len(rest)), rest]
        else:
            parts += [pack_item(at, len(head), len(rest)), head, rest]
            last = head
    return b"".join(parts)


def decode_job(message: bytes) -> tuple[str, Items]:
    """``encode_job``'s way back: a run's items share one premise field object."""
    end = 1 + message[0]
    kind, at = message[1:end].decode("ascii"), end
    items: Items = []
    unpack, step, total = _ITEM.unpack_from, _ITEM.size, len(message)
    head = b""
    while at < total:
        deadline, size, rest = unpack(message, at)
        at += step
        if size != _SAME:
            head = message[at:at + size]
            at += size
        # NaN (no deadline) is the one value unequal to itself
        items.append((head, message[at:at + rest], None if deadline != deadline else deadline))
        at += rest
    return kind, items


def encode_results(results: Results) -> bytes:
    return b"".join(_RESULT.pack(ok, len(data)) + data for ok, data in results)


def decode_results(message: bytes) -> Results:
    out, at = [], 0
    while at < len(message):
        ok, size = _RESULT.unpack_from(message, at)
        at += _RESULT.size
        out.append((ok, message[at:at + size]))
        at += size
    return out


def _worker_main(conn: Connection, limits: svc.Limits, families: tuple[str, ...],
                 path: tuple[str, ...]) -> None:
    """A worker: say it is ready (an empty message), then answer jobs until the pipe
    closes (the server is done with this worker: it ends quietly)."""
    _init_worker(limits, families, path)
    try:
        conn.send_bytes(b"")
        while True:
            kind, items = decode_job(conn.recv_bytes())
            conn.send_bytes(encode_results(_run_items(kind, items)))
    except (EOFError, OSError):
        return


# ---- the server side -----------------------------------------------------------------------

class WorkerDied(Exception):
    """The worker's pipe closed before it answered."""


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, ctx: Any, limits: svc.Limits) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, daemon=True, name="oracle-worker",
                                   args=(child, limits, svc.REGISTRY.modules(),
                                         tuple(sys.path)))
        self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self, timeout: float) -> None:
        """Block until the worker has started (for ``warm_up``, off the event loop)."""
        if not self.conn.poll(timeout):
            raise WorkerDied("the worker did not start")
        self._receive()
        self.ready = True

    def _receive(self) -> bytes:
        try:
            return self.conn.recv_bytes()
        except (EOFError, OSError) as error:
            raise WorkerDied("the worker process died") from error

    async def _message(self, timeout: float | None) -> bytes:
        """The next message, read when the pipe is readable (the event loop never blocks
        on a worker that is still working)."""
        loop = asyncio.get_running_loop()
        readable: asyncio.Future[None] = loop.create_future()
        fd = self.conn.fileno()
        loop.add_reader(fd, lambda: readable.done() or readable.set_result(None))
        try:
            await asyncio.wait_for(readable, timeout)
        finally:
            loop.remove_reader(fd)
        return self._receive()

    async def call(self, kind: str, items: Items, watchdog: float | None) -> Results:
        if not self.ready:
            await self._message(START_TIMEOUT_S)
            self.ready = True
        try:
            self.conn.send_bytes(encode_job(kind, items))
        except OSError as error:
            raise WorkerDied("the worker process died") from error
        return decode_results(await self._message(watchdog))

    def kill(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.process.kill()
        self.process.join(5)
        self.conn.close()

    def close(self) -> None:
        """An idle worker: close its pipe (it exits); killed if it lingers."""
        self.conn.close()
        self.process.join(1)
        if self.process.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self.process.kill()
            self.process.join(5)


class WorkerPool:
    """``workers`` worker processes in numbered slots; ``await run(kind, items)``
    answers a batch on the next free worker, ``run(kind, items, slot)`` preferably on
    the worker of that slot (a premise's items go to one worker, whose caches then hold
    its class: ``server_batch``), on another only when that one is idle meanwhile.
    One batch per worker at a time, so a batch's watchdog runs only while it runs;
    waiting batches are served first come, first served."""

    def __init__(self, workers: int, limits: svc.Limits) -> None:
        self.workers, self.limits = workers, limits
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(["causal_oracle.entry.service"])
        self._slots: list[_Worker | None] = [None] * workers
        self._idle: set[int] = set()  # slots whose worker is free
        #: batches waiting for a worker: (the slot wanted or None for any, its future)
        self._waiting: collections.deque[tuple[int | None, asyncio.Future[int]]] = (
            collections.deque())
        self._all: set[_Worker] = set()
        self._draining: set[asyncio.Task[None]] = set()
        self._closing = False

    def _spawn(self, slot: int) -> _Worker:
        worker = _Worker(self._ctx, self.limits)
        self._all.add(worker)
        self._slots[slot] = worker
        return worker

    def warm_up(self) -> None:
        """Start every worker and wait until each is ready (blocking: off the loop)."""
        for slot, worker in enumerate([self._spawn(k) for k in range(self.workers)]):
            worker.wait_ready(START_TIMEOUT_S)
            self._idle.add(slot)

    async def _acquire(self, slot: int | None) -> int:
        """A free slot, ``slot`` itself when it is free, waiting in turn otherwise.  An
        idle slot has nobody waiting (``_release`` hands a freed slot to a waiting
        batch), so taking one at once jumps no queue; and a batch never waits for its
        own slot while another worker is idle (it takes that one: its premise's class
        may then be derived twice, but no worker idles while work waits, and a slow
        item holds up only the batches behind it on its own worker)."""
        if slot is not None and slot in self._idle:
            self._idle.discard(slot)
            return slot
        if self._idle:
            return self._idle.pop()
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.append((slot, future))
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release(future.result())  # handed over as the call was cancelled
            else:
                with contextlib.suppress(ValueError):
                    self._waiting.remove((slot, future))
            raise

    def _release(self, slot: int) -> None:
        """``slot``'s worker is free: to the first batch waiting for it or for any
        worker; else to the first batch waiting for another slot (taken meanwhile)."""
        for entry in [e for e in self._waiting if e[1].done()]:  # cancelled while waiting
            self._waiting.remove(entry)
        chosen = next((e for e in self._waiting if e[0] is None or e[0] == slot),
                      self._waiting[0] if self._waiting else None)
        if chosen is None:
            self._idle.add(slot)
            return
        self._waiting.remove(chosen)
        chosen[1].set_result(slot)

    def _retire(self, slot: int, worker: _Worker, why: str | None) -> None:
        """Kill ``worker`` and, unless the pool is closing, start its replacement in
        its slot."""
        if why:
            log.warning("%s; replacing the worker", why)
        self._all.discard(worker)
        worker.kill()
        if not self._closing:
            self._spawn(slot)
            self._release(slot)

    def _watchdog(self, items: Items) -> float | None:
        per_item = self.limits.budget_s
        latest = max((d for _, _, d in items if d is not None), default=None)
        total = None if per_item is None else per_item * len(items)
        if latest is not None and all(d is not None for _, _, d in items):
            left = latest - time.time()
            total = left if total is None else min(total, left)
        return None if total is None else max(0.0, total) + WATCHDOG_SLACK_S

    def _ends_soon(self, items: Items) -> bool:
        """Whether the batch's deadlines end its work within ``ABANDON_WAIT_S``."""
        soon = time.time() + ABANDON_WAIT_S
        return all(d is not None and d <= soon for _, _, d in items)

    async def run(self, kind: str, items: Items, slot: int | None = None) -> Results:
        """The batch's results, in order, from the next free worker (``slot``'s, when
        given)."""
        if self._closing and not self._all:
            error = item_error(pack.code_pb2.UNAVAILABLE, "unavailable",
                               "the server is shutting down")
            return [(False, error.SerializeToString())] * len(items)
        at = await self._acquire(slot)
        for attempt in range(2):
            worker = self._slots[at]
            assert worker is not None
            try:
                results = await worker.call(kind, items, self._watchdog(items))
            except TimeoutError:
                self._retire(at, worker, "a worker overran its budget")
                error = item_error(EXHAUSTED, "budget_exceeded", "the solver overran the "
                                   "time budget and its worker was replaced", "solver")
                return [(False, error.SerializeToString())] * len(items)
            except WorkerDied:
                self._retire(at, worker, "a worker process died")
                if attempt or self._closing:
                    error = item_error(EXHAUSTED, "budget_exceeded", "the worker process "
                                       "died on this input (memory?)", "solver")
                    return [(False, error.SerializeToString())] * len(items)
                at = await self._acquire(at if slot is not None else None)
                continue
            except asyncio.CancelledError:
                self._abandon(at, worker, items)
                raise
            self._release(at)
            return results
        raise AssertionError("unreachable")

    def _abandon(self, slot: int, worker: _Worker, items: Items) -> None:
        """The call that gave ``worker`` its batch was cancelled: let the work end on its
        own if its deadline ends it soon, else replace the worker now."""
        if self._closing or not worker.ready or not self._ends_soon(items):
            self._retire(slot, worker, None if self._closing else
                         "a cancelled call's work was abandoned")
            return

        async def drain() -> None:
            try:
                await worker._message(ABANDON_WAIT_S + WATCHDOG_SLACK_S)
            except (TimeoutError, WorkerDied):
                self._retire(slot, worker, "a cancelled call's work did not stop")
            except asyncio.CancelledError:
                self._retire(slot, worker, None)
                raise
            else:
                self._release(slot)

        task = asyncio.get_running_loop().create_task(drain())
        self._draining.add(task)
        task.add_done_callback(self._draining.discard)

    def closing(self) -> None:
        """No more replacements: the server is shutting down."""
        self._closing = True

    def shutdown(self) -> None:
        """Take every worker back now: idle ones exit, busy ones are killed (their calls
        have had their grace)."""
        self._closing = True
        for task in list(self._draining):
            task.cancel()
        idle = {self._slots[k] for k in self._idle}
        for _, future in self._waiting:
            future.cancel()
        self._waiting.clear()
        for worker in list(self._all):
            if worker in idle:
                worker.close()
            else:
                worker.kill()
        self._all.clear()


__all__ = ["ABANDON_WAIT_S", "GC_THRESHOLD", "WATCHDOG_SLACK_S", "WorkerPool", "collect_rarely",
           "error_item"]
