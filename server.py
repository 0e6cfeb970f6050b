"""gRPC service: a thin mapping between ``causal_oracle.v1`` messages and the oracle.

The service answers ``Verify`` (one Corr2Cause item), ``VerifyStream`` (the same,
many items over one bidirectional stream, responses tagged with the client's id)
and ``Answer`` (CI-Bench CP/BA/FI/CI and intervention-effect questions).  All the
reasoning happens in ``clients.engine`` and ``clients.tasks``; this module only
unpacks requests, calls them, packs replies and turns errors into status codes:

* ``INVALID_ARGUMENT`` — text the grammars reject (line, column and expected
  tokens in the message, and as ``google.rpc.BadRequest`` plus an ``ItemError``
  in the status details) or a question the oracle cannot take;
* ``RESOURCE_EXHAUSTED`` — input over a size limit (bytes, variables,
  statements) or over the solver budget (``google.rpc.QuotaFailure`` details);
* ``DEADLINE_EXCEEDED`` — the call's deadline passed while the solver worked:
  solver work is interrupted by a timer inside the worker, which is then free;
* ``INTERNAL`` — a bug (logged here with its traceback; never sent to clients).

Solver work runs in a pool of worker processes (one per core by default), so a
slow premise holds one worker and never the event loop.  Answers are pure
functions of the request, so the event loop keeps a bounded LRU of recent
responses: a repeated item (Corr2Cause has 415,944 items over 2,376 premises) is
answered without a round trip to a worker.

Operations: binds 127.0.0.1 by default; optional TLS; standard health checking
(``grpc.health.v1``) and server reflection; on SIGTERM/SIGINT health turns
NOT_SERVING, new calls are refused and calls in flight get ``--grace`` seconds
to finish.  Run ``causal-oracle serve`` or ``python server.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from causal_oracle.clients import serve_cli
from causal_oracle.clients.serve_cli import (
    DEFAULT_CACHE_ITEMS,
    DEFAULT_GRACE_S,
    DEFAULT_SOLVER_BUDGET_S,
)
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2_grpc as pb_grpc

log = logging.getLogger("causal_oracle.server")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Oracle"].full_name

# ---- limits ---------------------------------------------------------------------------

MAX_RECEIVE_BYTES = 16 * 1024 * 1024  # gRPC message limits (explicit, not the defaults)
MAX_SEND_BYTES = 64 * 1024 * 1024
MAX_TEXT_BYTES = 256 * 1024  # each text field of a request
MAX_STATEMENTS = 4096  # correlation + independence sentences in one premise
STREAM_BATCH = 64  # at most this many stream items go to a worker at once
STREAM_WINDOW = 4096  # stream items waiting for a worker (back-pressure on the reader)

_INVALID, _EXHAUSTED, _DEADLINE, _INTERNAL = (
    code_pb2.INVALID_ARGUMENT, code_pb2.RESOURCE_EXHAUSTED, code_pb2.DEADLINE_EXCEEDED,
    code_pb2.INTERNAL)


def _item_error(code: int, kind: str, message: str, field: str = "") -> pb.ItemError:
    return pb.ItemError(code=code, kind=kind, message=message, field=field,
                        description=message)


def _size_error(request: pb.VerifyRequest | pb.AnswerRequest) -> pb.ItemError | None:
    """RESOURCE_EXHAUSTED for a text field over ``MAX_TEXT_BYTES`` (checked before any work)."""
    if request.ByteSize() <= MAX_TEXT_BYTES:
        return None
    for field in ("premise", "hypothesis", "input", "prompt", "model_answer"):
        if field not in request.DESCRIPTOR.fields_by_name:
            continue
        text: str = getattr(request, field)
        if len(text) > MAX_TEXT_BYTES // 4 and len(text.encode()) > MAX_TEXT_BYTES:
            return _item_error(_EXHAUSTED, "budget_exceeded",
                               f"the {field} is {len(text.encode()):,} bytes; the limit is "
                               f"{MAX_TEXT_BYTES:,} bytes", field)
    return None


# ---- worker side: runs in the pool's processes ----------------------------------------

class _Interrupted(Exception):
    """Raised by the worker's timer inside solver loops: ``deadline`` or ``budget``."""


_armed: str | None = None


def _on_alarm(signum: int, frame: object) -> None:
    if _armed is not None:
        raise _Interrupted(_armed)


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server process handles shutdown
    signal.signal(signal.SIGALRM, _on_alarm)


def _limited(fn: Callable[[], Any], deadline: float | None, budget: float) -> Any:
    """``fn()`` interrupted when the absolute ``deadline`` or the ``budget`` runs out."""
    global _armed
    limit, why = budget, "budget"
    if deadline is not None and deadline - time.time() < limit:
        limit, why = deadline - time.time(), "deadline"
    if limit <= 0:
        raise _Interrupted(why)
    _armed = why
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return fn()
    finally:
        _armed = None
        signal.setitimer(signal.ITIMER_REAL, 0)


def _profile_name(value: int) -> str:
    return pb.Profile.Name(value or pb.PROFILE_CORR2CAUSE).removeprefix("PROFILE_").lower()


def _profile_value(name: str) -> int:
    return pb.Profile.Value("PROFILE_" + name.upper())


_RELATIONS = {"entailment": pb.RELATION_ENTAILMENT, "neutral": pb.RELATION_NEUTRAL,
              "contradiction": pb.RELATION_CONTRADICTION,
              "inconsistent": pb.RELATION_INCONSISTENT}
_FORMATS = {pb.EXPLANATION_FORMAT_TEXT: "text", pb.EXPLANATION_FORMAT_JSON: "json",
            pb.EXPLANATION_FORMAT_DOT: "dot"}


def _certificate(result: Any, detail: int) -> pb.Certificate:
    """The certificate of a ``clients.engine.VerifyResult``, names instead of indices."""
    data = result.verdict.certificate.to_json(result.premise.variables)

    def edges(pairs: list[list[str]]) -> list[pb.Edge]:
        return [pb.Edge(source=a, target=b) for a, b in pairs]

    cert = pb.Certificate(verdict=_RELATIONS[data["verdict"]],
                          profile=_profile_value(data["profile"]),
                          relation_kind=data["relation"], form=data["form"], pair=data["pair"],
                          class_size=data["class_size"],
                          cpdag_directed=edges(data["cpdag_directed"]),
                          cpdag_undirected=edges(data["cpdag_undirected"]))
    if detail == pb.CERTIFICATE_DETAIL_FULL:
        cert.members.extend(pb.Graph(edges=edges(m)) for m in data["members"])
        cert.witnesses.extend(
            pb.Witness(holds=False) if w is None else
            pb.Witness(holds=True, paths=[pb.Path(nodes=p) for p in w])
            for w in data["witnesses"])
    c = data["conflict"]
    if c is not None:
        conflict = cert.conflict
        conflict.kind, conflict.message = c["kind"], c["message"]
        if c["statement"] is not None:
            conflict.statement.CopyFrom(pb.Statement(**c["statement"]))
        if c["path"] is not None:
            conflict.path.CopyFrom(pb.Path(nodes=c["path"]))
        if c["candidate"] is not None:
            conflict.candidate.CopyFrom(pb.Graph(edges=edges(c["candidate"])))
    return cert


def _grade_corr2cause(response: pb.VerifyResponse, result: Any, text: str) -> None:
    """Pack ``clients.engine.grade_answer`` (the one reading of Corr2Cause answers)."""
    from causal_oracle.clients.engine import grade_answer

    graded = grade_answer(result, text)
    response.normalised_answer = str(graded["normalised"])
    response.grade_reason = str(graded["reason"])
    if graded["correct"] is None:
        response.grade = pb.GRADE_UNGRADABLE if not graded["gradable"] else \
            pb.GRADE_UNREADABLE
    else:
        response.grade = pb.GRADE_CORRECT if graded["correct"] else pb.GRADE_WRONG


@lru_cache(maxsize=4096)
def _item_of(text: str) -> Any:
    from causal_oracle.parser import parse_item

    return parse_item(text)


def _check_premise(premise: Any) -> None:
    from causal_oracle.oracle.equivalence import MAX_VARIABLES
    from causal_oracle.oracle.errors import BudgetExceeded

    if premise.n > MAX_VARIABLES:
        raise BudgetExceeded(f"the premise has {premise.n} variables; the limit is "
                             f"{MAX_VARIABLES}")
    statements = len(premise.correlations) + len(premise.independences)
    if statements > MAX_STATEMENTS:
        raise BudgetExceeded(f"the premise has {statements:,} statements; the limit is "
                             f"{MAX_STATEMENTS:,}")


def _verify(request: pb.VerifyRequest) -> pb.VerifyResponse:
    from causal_oracle.clients import engine
    from causal_oracle.oracle.errors import InputError

    options = request.options
    profile = _profile_name(options.profile)
    if request.input:
        if request.premise or request.hypothesis:
            raise InputError("give either input or premise/hypothesis, not both")
        premise, hypothesis = _item_of(request.input.replace("\r\n", "\n"))
        _check_premise(premise)
        result = engine.verify_objects(premise, hypothesis, profile)
    else:
        if not request.premise or not request.hypothesis:
            raise InputError("give premise and hypothesis (or input)")
        _check_premise(engine.premise_of(request.premise.strip()))
        result = engine.verify(request.premise, request.hypothesis, profile)
    s = result.summary()
    response = pb.VerifyResponse(
        relation=_RELATIONS[s["relation"]], class_size=s["class_size"], holds_in=s["holds_in"],
        ambiguous=s["ambiguous"], profile=_profile_value(profile),
        certificate_checked=s["certificate_checked"], reason=s["reason"],
        labels_by_profile=[pb.ProfileLabel(profile=_profile_value(p), label=v)
                           for p, v in s["labels_by_profile"].items()],
        variables=result.premise.variables, hypothesis_kind=result.hypothesis.kind.value)
    if s["label"] is not None:
        response.label = s["label"]
    fmt = _FORMATS.get(options.explanation_format)
    if fmt is not None:
        response.explanation_format = options.explanation_format
        response.explanation = result.explain(fmt)
    if options.certificate_detail != pb.CERTIFICATE_DETAIL_NONE:
        response.certificate.CopyFrom(_certificate(result, options.certificate_detail))
    if request.HasField("model_answer"):
        _grade_corr2cause(response, result, request.model_answer)
    return response


def _answer(request: pb.AnswerRequest) -> pb.AnswerResponse:
    from causal_oracle.clients import tasks

    task = request.task or None
    result = tasks.answer(request.prompt, task)
    response = pb.AnswerResponse(
        task=result["task"], answer_text=result["answer_text"],
        answer_json=json.dumps(result["answer"], ensure_ascii=False),
        certificate_checked=result["certificate_checked"], explanation=result["explanation"])
    if request.HasField("model_answer"):
        graded = tasks.grade(request.prompt, request.model_answer, task)
        response.grade = {True: pb.GRADE_CORRECT, False: pb.GRADE_WRONG,
                          None: pb.GRADE_UNREADABLE}[graded["correct"]]
        response.normalised_answer = graded["normalised"]
        response.grade_reason = graded["reason"] or ""
        response.expected = graded["expected"]
    return response


def _error_of(error: BaseException) -> pb.ItemError:
    from causal_oracle.oracle.errors import BudgetExceeded, InputError
    from causal_oracle.parser.errors import ParseError

    if isinstance(error, _Interrupted):
        if str(error) == "deadline":
            return _item_error(_DEADLINE, "deadline_exceeded",
                               "the deadline passed while the solver was working")
        return _item_error(_EXHAUSTED, "budget_exceeded",
                           "the solver's time budget for one item was exceeded", "solver")
    if isinstance(error, ParseError):
        fields = ("premise", "hypothesis", "input")
        return pb.ItemError(code=_INVALID, kind="parse_error", message=error.message,
                            field=error.what if error.what in fields else "",
                            line=error.line or 0, column=error.column or 0,
                            expected=error.expected, context=error.context, what=error.what,
                            description=error.describe())
    if isinstance(error, InputError):
        return pb.ItemError(code=_INVALID, kind="input_error", message=error.message,
                            line=error.line or 0, column=error.column or 0,
                            context=error.context, description=error.describe())
    if isinstance(error, BudgetExceeded):
        return _item_error(_EXHAUSTED, "budget_exceeded", str(error), "solver")
    log.error("internal error", exc_info=error)
    return _item_error(_INTERNAL, "internal", f"internal error: {type(error).__name__}")


def _run_items(kind: str, items: list[tuple[bytes, float | None]], budget: float
               ) -> list[tuple[bool, bytes]]:
    """Worker entry: ``(ok, serialised response or ItemError)`` per serialised request."""
    parse, work = ((pb.VerifyRequest.FromString, _verify) if kind == "verify"
                   else (pb.AnswerRequest.FromString, _answer))
    out = []
    for data, deadline in items:
        request = parse(data)
        try:
            response = _limited(partial(work, request), deadline, budget)
        except Exception as error:
            out.append((False, _error_of(error).SerializeToString()))
        else:
            out.append((True, response.SerializeToString()))
    return out


# ---- the event-loop side ----------------------------------------------------------------

class WorkerPool:
    """Worker processes (forkserver: safe beside gRPC's threads); rebuilt if one dies."""

    def __init__(self, workers: int, budget: float) -> None:
        self.workers, self.budget = workers, budget
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        ctx = multiprocessing.get_context("forkserver")
        # Not causal_oracle.server itself: under `python -m causal_oracle.server` each
        # child re-runs it as __mp_main__, and runpy warns if it was preloaded.
        ctx.set_forkserver_preload(["causal_oracle.clients.engine", "causal_oracle.clients.tasks"])
        return ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_init_worker)

    def warm_up(self) -> None:
        futures = [self._executor.submit(_run_items, "verify", [], 1.0)
                   for _ in range(self.workers)]
        for f in futures:
            f.result()

    async def run(self, kind: str, items: list[tuple[bytes, float | None]]
                  ) -> list[tuple[bool, bytes]]:
        loop = asyncio.get_running_loop()
        executor = self._executor
        try:
            return await loop.run_in_executor(executor, _run_items, kind, items, self.budget)
        except BrokenProcessPool:
            if executor is self._executor:
                log.error("a worker process died; restarting the pool")
                self._executor = self._start()
            error = _item_error(_INTERNAL, "internal", "a worker process died")
            return [(False, error.SerializeToString())] * len(items)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


class _Cache:
    """A bounded LRU of responses keyed by the serialised request."""

    def __init__(self, size: int) -> None:
        self.size, self._data = size, OrderedDict[bytes, Any]()

    def get(self, key: bytes) -> Any:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: bytes, value: Any) -> None:
        if self.size <= 0:
            return
        self._data[key] = value
        if len(self._data) > self.size:
            self._data.popitem(last=False)


def _deadline(context: grpc.aio.ServicerContext) -> float | None:
    remaining = context.time_remaining()
    return None if remaining is None else time.time() + remaining


async def _abort(context: grpc.aio.ServicerContext, error: pb.ItemError) -> None:
    details: list[Any] = []
    if error.code == _INVALID:
        details.append(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=error.field or "request",
                                                        description=error.description)]))
    elif error.code == _EXHAUSTED:
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
    await context.abort_with_status(rpc_status.to_status(status))


class OracleServicer(pb_grpc.OracleServicer):
    def __init__(self, pool: WorkerPool, cache_items: int = DEFAULT_CACHE_ITEMS) -> None:
        self.pool = pool
        self.cache = _Cache(cache_items)

    async def _unary(self, kind: str, request: Any, parse: Callable[[bytes], Any],
                     context: grpc.aio.ServicerContext) -> Any:
        error = _size_error(request)
        if error is not None:
            await _abort(context, error)
        key = kind.encode() + request.SerializeToString(deterministic=True)
        response = self.cache.get(key)
        if response is None:
            try:
                [(ok, data)] = await self.pool.run(kind, [(key[len(kind):],
                                                           _deadline(context))])
            except Exception as failure:  # never an UNKNOWN with a traceback
                log.error("internal error", exc_info=failure)
                ok, data = False, _item_error(_INTERNAL, "internal",
                                              "internal error").SerializeToString()
            if not ok:
                await _abort(context, pb.ItemError.FromString(data))
            response = parse(data)
            self.cache.put(key, response)
        return response

    async def Verify(self, request: pb.VerifyRequest, context: grpc.aio.ServicerContext
                     ) -> pb.VerifyResponse:
        return await self._unary("verify", request, pb.VerifyResponse.FromString, context)

    async def Answer(self, request: pb.AnswerRequest, context: grpc.aio.ServicerContext
                     ) -> pb.AnswerResponse:
        return await self._unary("answer", request, pb.AnswerResponse.FromString, context)

    async def VerifyStream(self, request_iterator: AsyncIterator[pb.VerifyStreamRequest],
                           context: grpc.aio.ServicerContext) -> None:
        """Cache hits are answered as they are read; misses go to the workers in batches
        (of what arrived while every worker was busy) and are answered as they finish."""
        deadline = _deadline(context)
        most = 2 * self.pool.workers  # batches in flight
        write_lock = asyncio.Lock()
        window = asyncio.Semaphore(STREAM_WINDOW)  # misses in flight (back-pressure)
        waiting: list[tuple[int, bytes]] = []
        running: set[asyncio.Task[None]] = set()
        failures: list[BaseException] = []
        closed = False

        async def emit(response: pb.VerifyStreamResponse) -> None:
            async with write_lock:
                await context.write(response)

        async def compute(batch: list[tuple[int, bytes]]) -> None:
            try:
                results = await self.pool.run("verify", [(k[len(b"verify"):], deadline)
                                                         for _, k in batch])
                for (rid, key), (ok, data) in zip(batch, results, strict=True):
                    if ok:
                        response = pb.VerifyResponse.FromString(data)
                        self.cache.put(key, response)
                        await emit(pb.VerifyStreamResponse(id=rid, result=response))
                    else:
                        await emit(pb.VerifyStreamResponse(id=rid,
                                                           error=pb.ItemError.FromString(data)))
            except Exception as error:  # reported once the stream ends
                failures.append(error)
            finally:
                for _ in batch:
                    window.release()

        def flush() -> None:
            while waiting and len(running) < most and not closed:
                batch = waiting[:STREAM_BATCH]
                del waiting[:STREAM_BATCH]
                task = asyncio.create_task(compute(batch))
                running.add(task)
                task.add_done_callback(lambda t: (running.discard(t), flush()))

        try:
            async for item in request_iterator:
                request = item.request
                error = _size_error(request)
                if error is not None:
                    await emit(pb.VerifyStreamResponse(id=item.id, error=error))
                    continue
                key = b"verify" + request.SerializeToString(deterministic=True)
                hit = self.cache.get(key)
                if hit is not None:
                    await emit(pb.VerifyStreamResponse(id=item.id, result=hit))
                    continue
                await window.acquire()
                waiting.append((item.id, key))
                flush()
            while running or waiting:
                flush()
                await asyncio.wait(set(running))
        finally:
            closed = True
            for task in running:
                task.cancel()
        if failures:
            log.error("internal error in a stream", exc_info=failures[0])
            await _abort(context, _item_error(_INTERNAL, "internal", "internal error"))


# ---- serving ----------------------------------------------------------------------------

@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    workers: int = 0  # 0: one per core
    tls_cert: str | None = None
    tls_key: str | None = None
    grace: float = DEFAULT_GRACE_S
    solver_budget: float = DEFAULT_SOLVER_BUDGET_S
    cache_items: int = DEFAULT_CACHE_ITEMS


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class OracleServer:
    """The service on one port: ``await start()`` → bound port, ``await stop()``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.port: int | None = None
        self.health = health.aio.HealthServicer()
        self._server: grpc.aio.Server | None = None
        self._pool: WorkerPool | None = None
        self._stopping = False
        self._stopped = asyncio.Event()

    async def start(self) -> int:
        c = self.config
        self._pool = WorkerPool(c.workers or default_workers(), c.solver_budget)
        await asyncio.get_running_loop().run_in_executor(None, self._pool.warm_up)
        server = grpc.aio.server(options=[
            ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
            ("grpc.max_send_message_length", MAX_SEND_BYTES),
            ("grpc.so_reuseport", 0),
        ])
        pb_grpc.add_OracleServicer_to_server(OracleServicer(self._pool, c.cache_items), server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME), server)
        address = f"{c.host}:{c.port}"
        if c.tls_cert or c.tls_key:
            if not (c.tls_cert and c.tls_key):
                raise ValueError("TLS needs both --tls-cert and --tls-key")
            with open(c.tls_key, "rb") as k, open(c.tls_cert, "rb") as cert:
                credentials = grpc.ssl_server_credentials([(k.read(), cert.read())])
            self.port = server.add_secure_port(address, credentials)
        else:
            self.port = server.add_insecure_port(address)
        if not self.port:
            raise OSError(f"cannot bind {address}")
        await server.start()
        self._server = server
        for name in ("", SERVICE_NAME):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        return self.port

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING, refuse new calls, let calls in flight finish within ``grace``."""
        if self._server is None or self._stopping:
            return
        self._stopping = True
        try:
            await self.health.enter_graceful_shutdown()
            await self._server.stop(self.config.grace if grace is None else grace)
            if self._pool is not None:
                await asyncio.get_running_loop().run_in_executor(None, self._pool.shutdown)
        finally:
            self._stopped.set()

    async def wait(self) -> None:
        """Until ``stop()`` has finished (server down, workers gone)."""
        await self._stopped.wait()


async def serve(config: ServerConfig, ready: Callable[[int], None] | None = None) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully."""
    server = OracleServer(config)
    port = await server.start()
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stopping.add(loop.create_task(server.stop())))
    if ready is not None:
        ready(port)
    await server.wait()


def run(args: argparse.Namespace) -> int:
    """``causal-oracle serve``: serve until SIGTERM/SIGINT; prints the bound address."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    config = ServerConfig(host=args.host, port=args.port, workers=args.workers,
                          tls_cert=args.tls_cert, tls_key=args.tls_key, grace=args.grace,
                          solver_budget=args.solver_budget, cache_items=args.cache_items)

    def ready(port: int) -> None:
        workers = config.workers or default_workers()
        print(f"causal-oracle: serving {SERVICE_NAME} on {config.host}:{port} "
              f"({workers} worker(s){', TLS' if config.tls_cert else ''})", flush=True)

    asyncio.run(serve(config, ready))
    print("causal-oracle: stopped", flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m causal_oracle.server",
                                     description=__doc__.split("\n")[0])
    serve_cli.add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    # Run through the importable module so worker processes find the same functions.
    from causal_oracle import server as _server

    sys.exit(_server.main())
