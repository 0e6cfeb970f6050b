"""gRPC service: a thin mapping between ``causal_oracle.v1`` messages and the entry layer.

Each RPC unpacks its request, asks the entry layer (``entry.Service``,
which owns every limit, the time budget and the caches), packs the reply and
turns errors into status codes.  Nothing here reasons, and nothing is imported
from ``clients/``.  The contract (DESIGN 5) for bad input is four codes only:

* ``INVALID_ARGUMENT`` — text the grammars reject (line, column and expected
  tokens in the message, as ``google.rpc.BadRequest`` and an ``ItemError`` in the
  status details), a question the oracle cannot take, an unknown enum value, or a
  message that cannot be decoded at all;
* ``RESOURCE_EXHAUSTED`` — input over a limit (bytes, variables, statements,
  paths) or over the per-item time budget (``google.rpc.QuotaFailure``);
* ``DEADLINE_EXCEEDED`` — the call's deadline passed while the solver worked;
* ``CANCELLED`` — the client went away.
``INTERNAL`` is reserved for bugs (logged once, never with the client's data).

Deadlines cannot be lost: solver work runs in a pool of worker processes with a
watchdog (``server_pool``), each item under a cooperative budget, so a slow item
holds one worker and never the event loop; a call that is cancelled (the client
went away, its deadline passed) gives its worker back or has it replaced, so that
nobody's work runs on for nobody; an LRU of serialised responses bounded in items
and bytes (``server_cache``)
answers repeated items without a round trip, and responses are framed without
re-encoding (``proto/wire.py``).  ``VerifyBatch``/``AnswerBatch`` carry many items
per message (order kept) for throughput, and a ``VerifyBatch`` may send a premise once
for its items (``VerifyGroup``); a batch's (or a stream's) Verify items go by premise
to one worker each (``server_items``), which answers a premise's items off its
class's relation tables (``server_batch``).  The configuration is ``server_config``.

Operations: binds 127.0.0.1 by default; optional TLS and mutual TLS (client
certificates); health checking (``grpc.health.v1``); server reflection unless
switched off; on SIGTERM/SIGINT health turns NOT_SERVING, new calls are refused,
calls in flight get ``--grace`` seconds, then what still runs is cancelled and the
busy workers are killed: the process exits within about ``--grace`` seconds,
however long the work.  Run ``causal-oracle serve``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from causal_oracle import entry as svc
from causal_oracle import serve_options
from causal_oracle.auth import interceptor as token_interceptor
from causal_oracle.entry import InputError
from causal_oracle.entry.limits import MAX_BATCH_ITEMS
from causal_oracle.proto import pack
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.wire import (
    Undecodable,
    batch_outcome,
    safe_batch_parser,
    safe_parser,
    split_premise,
    stream_item,
)
from causal_oracle.server_cache import ResponseCache
from causal_oracle.server_config import (
    DEFAULT_CACHE_ITEMS,
    DEFAULT_CACHE_MB,
    ServerConfig,
    config_of,
    default_workers,
)
from causal_oracle.server_items import STREAM_BATCH, ItemAnswerer, grouped_error
from causal_oracle.server_pool import WorkerPool, collect_rarely

log = logging.getLogger("causal_oracle.server")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Oracle"].full_name
MAX_RECEIVE_BYTES = 16 * 1024 * 1024  # gRPC message limits (explicit, not the defaults)
MAX_SEND_BYTES = 64 * 1024 * 1024
STREAM_WINDOW = 4096  # stream items waiting for a worker (back-pressure on the reader)

INVALID, EXHAUSTED, DEADLINE = pack.INVALID, pack.EXHAUSTED, pack.DEADLINE
item_error = pack.item_error


def _deadline(context: grpc.aio.ServicerContext) -> float | None:
    remaining = context.time_remaining()
    return None if remaining is None else time.time() + remaining


async def _abort(context: grpc.aio.ServicerContext, error: pb.ItemError) -> None:
    details: list[Any] = []
    if error.code == INVALID:
        details.append(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=error.field or "request",
                                                        description=error.description)]))
    elif error.code == EXHAUSTED:
        details.append(error_details_pb2.QuotaFailure(violations=[
            error_details_pb2.QuotaFailure.Violation(subject=error.field or "request",
                                                     description=error.description)]))
    details.append(error)
    packed = []
    for d in details:
        a = any_pb2.Any()
        a.Pack(d)
        packed.append(a)
    status = status_pb2.Status(code=error.code, message=error.description, details=packed)
    if context.done():  # the client went away or its deadline passed: nobody to tell
        raise asyncio.CancelledError
    try:
        await context.abort_with_status(rpc_status.to_status(status))
    except grpc.aio.AbortError:
        raise
    except Exception:  # the call finished between the check and the abort (a race)
        raise asyncio.CancelledError from None


def _guarded(method: Callable[[Any, grpc.aio.ServicerContext], Any]
             ) -> Callable[[Any, grpc.aio.ServicerContext], Any]:
    """``method`` with a total error mapping: its own aborts and cancellation pass, and
    any other exception — a bug of the server — is logged with its traceback and ends
    the call with INTERNAL (not gRPC's UNKNOWN, and nothing of the request is logged)."""
    async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(request, context)
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except Exception as error:
            log.error("internal error (a bug) in %s", method.__name__, exc_info=True)
            if context.done():
                raise asyncio.CancelledError from None
            await context.abort(grpc.StatusCode.INTERNAL,
                                f"internal error: {type(error).__name__}")
    call.__name__ = method.__name__
    return call


class OracleServicer:
    """The RPCs.  Requests arrive through ``safe_parser``; responses leave as bytes (the
    cache holds serialised responses, and a batch is the concatenation of its items)."""

    def __init__(self, pool: WorkerPool, service: svc.Service,
                 cache_items: int = DEFAULT_CACHE_ITEMS,
                 cache_bytes: int = DEFAULT_CACHE_MB << 20) -> None:
        self.pool, self.service = pool, service
        self.cache = ResponseCache(cache_items, cache_bytes)
        self.answerer = ItemAnswerer(pool, service, self.cache)

    def handlers(self) -> grpc.GenericRpcHandler:
        def unary(fn: Any, cls: Any) -> grpc.RpcMethodHandler:
            return grpc.unary_unary_rpc_method_handler(
                _guarded(fn), request_deserializer=safe_parser(cls),
                response_serializer=bytes)

        def batch(fn: Any, cls: Any) -> grpc.RpcMethodHandler:
            return grpc.unary_unary_rpc_method_handler(
                _guarded(fn), request_deserializer=safe_batch_parser(cls),
                response_serializer=bytes)
        return grpc.method_handlers_generic_handler(SERVICE_NAME, {
            "Verify": unary(self.Verify, pb.VerifyRequest),
            "Answer": unary(self.Answer, pb.AnswerRequest),
            "VerifyBatch": batch(self.VerifyBatch, pb.VerifyBatchRequest),
            "AnswerBatch": batch(self.AnswerBatch, pb.AnswerBatchRequest),
            "VerifyStream": grpc.stream_stream_rpc_method_handler(
                _guarded(self.VerifyStream),
                request_deserializer=safe_parser(pb.VerifyStreamRequest),
                response_serializer=bytes),
        })

    async def _items(self, kind: str, requests: Sequence[Any], deadline: float | None,
                     raw: Sequence[bytes] | None = None, groups: Sequence[Any] = ()
                     ) -> list[tuple[bool, bytes]]:
        """``(ok, bytes)`` per item, in order (``server_items.ItemAnswerer``)."""
        return await self.answerer.answer(kind, requests, deadline, raw, groups)

    async def _unary(self, kind: str, request: Any, context: grpc.aio.ServicerContext
                     ) -> bytes:
        if isinstance(request, Undecodable):
            await _abort(context, request.error)
        [(ok, data)] = await self._items(kind, [request], _deadline(context))
        if not ok:
            await _abort(context, pb.ItemError.FromString(data))
        return data

    async def Verify(self, request: Any, context: grpc.aio.ServicerContext) -> bytes:
        return await self._unary("verify", request, context)

    async def Answer(self, request: Any, context: grpc.aio.ServicerContext) -> bytes:
        return await self._unary("answer", request, context)

    async def _batch(self, kind: str, request: Any, context: grpc.aio.ServicerContext
                     ) -> bytes:
        if isinstance(request, Undecodable):
            await _abort(context, request.error)
        groups = getattr(request, "groups", ())
        count = len(request.items) + sum(len(g.items) for g in groups)
        if count > MAX_BATCH_ITEMS:
            await _abort(context, item_error(EXHAUSTED, "budget_exceeded", f"the batch has "
                                              f"{count:,} items (its items and its groups'); "
                                              f"the limit is {MAX_BATCH_ITEMS:,}", "items"))
        for k, group in enumerate(groups):
            if not group.items:
                await _abort(context, item_error(INVALID, "input_error", f"group {k} (from "
                                                  "0) has no items: a group gives a premise "
                                                  "and at least one item", "groups"))
        results = await self._items(kind, request.items, _deadline(context),
                                    getattr(request, "raw", None), groups)
        return b"".join([batch_outcome(ok, data) for ok, data in results])

    async def VerifyBatch(self, request: Any, context: grpc.aio.ServicerContext) -> bytes:
        return await self._batch("verify", request, context)

    async def AnswerBatch(self, request: Any, context: grpc.aio.ServicerContext) -> bytes:
        return await self._batch("answer", request, context)

    async def VerifyStream(self, request_iterator: AsyncIterator[Any],
                           context: grpc.aio.ServicerContext) -> None:
        """Cache hits are answered as they are read; misses wait in ``pending`` and go to
        the workers in batches of what arrived meanwhile (one batch per free worker), each
        answered, tagged with its id, when its batch is done.  At most ``STREAM_WINDOW``
        misses are unanswered (back-pressure on the reader)."""
        deadline = _deadline(context)
        window = asyncio.Semaphore(STREAM_WINDOW)
        write_lock = asyncio.Lock()
        pending: list[tuple[int, Any]] = []
        running: set[asyncio.Task[None]] = set()
        failed: list[BaseException] = []  # a batch that could not be answered ends the call

        async def answer(batch: list[tuple[int, Any]]) -> None:
            try:
                results = await self._items("verify", [r for _, r in batch], deadline)
                async with write_lock:
                    for (rid, _), (ok, data) in zip(batch, results, strict=True):
                        await context.write(stream_item(rid, ok, data))
            finally:
                for _ in batch:
                    window.release()

        def flush(done: asyncio.Task[None] | None = None) -> None:
            if done is not None:
                running.discard(done)
                if not done.cancelled() and done.exception() is not None:
                    failed.append(done.exception())  # type: ignore[arg-type]
            while pending and not failed and len(running) < self.pool.workers:
                batch = pending[:STREAM_BATCH]
                del pending[:STREAM_BATCH]
                task = asyncio.create_task(answer(batch))
                running.add(task)
                task.add_done_callback(flush)

        try:
            async for item in request_iterator:
                if isinstance(item, Undecodable):
                    await _abort(context, item.error)
                if item.WhichOneof("body") == "group":
                    requests = await _group_requests(item, context)
                else:
                    requests = [(item.id, item.request)]
                for rid, request in requests:
                    if isinstance(request, pb.ItemError):
                        async with write_lock:
                            await context.write(stream_item(
                                rid, False, request.SerializeToString()))
                        continue
                    hit = self.cache.get(("verify",
                                          *split_premise(request.SerializeToString())))
                    if hit is not None and hit[0]:
                        async with write_lock:
                            await context.write(stream_item(rid, True, hit[1]))
                        continue
                    await window.acquire()
                    pending.append((rid, request))
                    flush()
                    if failed:
                        break
                if failed:
                    break
            while running:
                await asyncio.gather(*list(running), return_exceptions=True)
            if failed:
                raise failed[0]
        finally:
            for task in running:
                task.cancel()
            if running:  # collect them: no "exception was never retrieved" in the log
                await asyncio.gather(*list(running), return_exceptions=True)


async def _group_requests(item: Any, context: grpc.aio.ServicerContext
                          ) -> list[tuple[int, Any]]:
    """A stream message's ``VerifyGroup`` as (id, request) per item — ``id + k`` for item
    k, the group's premise put back in — or (id, ItemError) for an item that gives a
    premise or input itself; an empty group or ids past 2^64 - 1 end the stream."""
    group = item.group
    if not group.items or item.id + len(group.items) > 1 << 64:
        await _abort(context, item_error(INVALID, "input_error", "a stream's group needs at "
                                          "least one item, and ids id + k that fit uint64",
                                          "group"))
    out: list[tuple[int, Any]] = []
    for k, sub in enumerate(group.items):
        error = grouped_error(sub)
        if error is None:
            request = pb.VerifyRequest(premise=group.premise)
            request.MergeFrom(sub)
            out.append((item.id + k, request))
        else:
            out.append((item.id + k, error))
    return out


# ---- serving ----------------------------------------------------------------------------------

def _credentials(c: ServerConfig) -> grpc.ServerCredentials:
    def read(path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()
    assert c.tls_cert and c.tls_key
    pair = [(read(c.tls_key), read(c.tls_cert))]
    if c.tls_client_ca:
        return grpc.ssl_server_credentials(pair, root_certificates=read(c.tls_client_ca),
                                           require_client_auth=True)
    return grpc.ssl_server_credentials(pair)


class OracleServer:
    """The service on one port: ``await start()`` → bound port, ``await stop()``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config.checked()
        self.port: int | None = None
        self.health = health.aio.HealthServicer()
        self._server: grpc.aio.Server | None = None
        self._pool: WorkerPool | None = None
        self.servicer: OracleServicer | None = None  # once started
        self._stopping = False
        self._stopped = asyncio.Event()

    async def start(self) -> int:
        c = self.config
        token = c.auth_token()
        interceptors = [token_interceptor(token)] if token else None
        server = grpc.aio.server(interceptors=interceptors, options=[
            ("grpc.max_receive_message_length",
             max(MAX_RECEIVE_BYTES, 4 * c.max_premise_bytes + 65536)),
            ("grpc.max_send_message_length", MAX_SEND_BYTES),
            ("grpc.so_reuseport", 0),
        ])
        address = f"{c.host}:{c.port}"
        try:
            if c.tls_cert:
                self.port = server.add_secure_port(address, _credentials(c))
            else:
                self.port = server.add_insecure_port(address)
        except (RuntimeError, OSError, ValueError) as error:
            raise InputError(f"cannot bind {address}: {error}") from None
        if not self.port:
            raise InputError(f"cannot bind {address}")
        self._pool = WorkerPool(c.workers or default_workers(), c.limits())
        await asyncio.get_running_loop().run_in_executor(None, self._pool.warm_up)
        servicer = self.servicer = OracleServicer(self._pool, svc.Service(c.limits()),
                                                  c.cache_items, c.cache_mb << 20)
        server.add_generic_rpc_handlers((servicer.handlers(),))
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        if c.reflection:
            reflection.enable_server_reflection(
                (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                 reflection.SERVICE_NAME), server)
        await server.start()
        self._server = server
        for name in ("", SERVICE_NAME):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        return self.port

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING, refuse new calls, let calls in flight finish within
        ``grace``; then cancel what still runs and take the workers back (killed when
        busy), so that the server is gone soon after ``grace``, however long the work."""
        if self._server is None or self._stopping:
            return
        self._stopping = True
        try:
            await self.health.enter_graceful_shutdown()
            if self._pool is not None:
                self._pool.closing()
            await self._server.stop(self.config.grace if grace is None else grace)
        finally:
            if self._pool is not None:
                self._pool.shutdown()
            self._stopped.set()

    async def wait(self) -> None:
        """Until ``stop()`` has finished (server down, workers gone)."""
        await self._stopped.wait()


async def serve(config: ServerConfig, ready: Callable[[int], None] | None = None) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully."""
    server = OracleServer(config)
    port = await server.start()
    # what start-up made (modules, grammars, descriptors) lives as long as the process:
    # out of the collector's sight, so that the collections a batch's many small objects
    # set off do not walk it all each time, and those collections are rarer
    collect_rarely()
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stopping.add(loop.create_task(server.stop())))
    if ready is not None:
        ready(port)
    await server.wait()


def run(args: argparse.Namespace) -> int:
    """``causal-oracle serve``: serve until SIGTERM/SIGINT; prints the bound address,
    and ends the process (``exit_now``) once stopped.  A bad option raises
    ``InputError`` (exit 2) before anything starts."""
    config = config_of(args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")

    def ready(port: int) -> None:
        workers = config.workers or default_workers()
        tls = ", mutual TLS" if config.tls_client_ca else ", TLS" if config.tls_cert else ""
        print(f"causal-oracle: serving {SERVICE_NAME} on {config.host}:{port} "
              f"({workers} worker(s){tls})", flush=True)

    asyncio.run(serve(config, ready))
    print("causal-oracle: stopped", flush=True)
    exit_now()


def exit_now() -> NoReturn:
    """End the process at once, with status 0, after a clean stop: the server is down,
    the workers are gone, and stdout, stderr and the log are flushed here.  What is
    skipped is the interpreter's teardown of a large module graph (gRPC's core, the
    solvers' libraries), which takes seconds on a loaded machine — past the promise
    that the process is gone about ``--grace`` seconds after SIGTERM."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    # the workers' fork server would tear down its preloaded modules the same slow way
    # once it sees this process gone (it holds our stdout open meanwhile): it has no
    # children left and nothing to say, so it goes now
    from multiprocessing import forkserver

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if pid:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    os._exit(0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m causal_oracle.server",
                                     description=__doc__.split("\n")[0])
    serve_options.add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except InputError as error:
        print(f"causal-oracle: error: {error.describe()}", file=sys.stderr)
        return 2


__all__ = ["SERVICE_NAME", "OracleServer", "OracleServicer", "serve"]

if __name__ == "__main__":
    # Run through the importable module so worker processes find the same functions.
    from causal_oracle import server as _server

    sys.exit(_server.main())
