"""Python client of the ``causal_oracle.v1`` gRPC service (sync and asyncio).

>>> with OracleClient("127.0.0.1:50051") as client:            # doctest: +SKIP
...     response = client.verify(premise, hypothesis)
...     for item in client.verify_many(requests, max_in_flight=256):
...         ...

* ``verify`` / ``answer`` — unary calls with a deadline (``timeout`` seconds);
* ``verify_batch`` / ``answer_batch`` — many items in one call, results in request
  order; requests that share a premise go as a ``VerifyGroup``, the premise once
  (``batch_request``);
* ``verify_many`` — batching over the ``VerifyStream`` stream: requests are sent
  with ids, at most ``max_in_flight`` unanswered at a time, and the responses
  come back in the order of the requests;
* retries with exponential backoff (and jitter) on ``UNAVAILABLE`` only — a
  stream resends just the items that were not answered;
* one ``RetryPolicy`` for both clients;
* requests, results and errors are the codec's (``clients.remote_codec``): errors arrive
  as the oracle's own exceptions (``ParseError``/``InputError``, ``BudgetExceeded``,
  ``DeadlineExceeded``, ``Unreachable``, ``RemoteError``), a ``VerifyResponse`` as a
  ``RemoteResult`` with the interface of ``entry.VerifyResult``, an ``AnswerResponse``
  as the ``TaskAnswer`` the in-process service returns (``answer_result``).

``AsyncOracleClient`` has the same methods as coroutines (``verify_many`` is an
async generator).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from causal_oracle.clients.remote_batch import (
    batch_bytes,
    batch_request,
    in_order,
    outcomes,
    raw_verify_batch,
)
from causal_oracle.clients.remote_codec import (
    DeadlineExceeded,
    RemoteError,
    RemoteResult,
    Unreachable,
    error_from_item,
    error_from_rpc,
    make_request,
)
from causal_oracle.entry import (
    OracleError,
    TaskAnswer,
)
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb
from causal_oracle.proto.causal_oracle.v1 import oracle_pb2_grpc as pb_grpc
from causal_oracle.proto.pack import task_answer_of

__all__ = ["AsyncOracleClient", "DeadlineExceeded", "OracleClient", "RemoteError",
           "RemoteResult", "Unreachable", "batch_request", "error_from_item",
           "error_from_rpc", "make_request", "pb"]

DEFAULT_TIMEOUT_S = 60.0
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024),
                   ("grpc.max_send_message_length", 16 * 1024 * 1024)]
T = TypeVar("T")


# ---- one retry policy for both clients --------------------------------------------------

@dataclass(frozen=True)
class RetryPolicy:
    """Retry on ``UNAVAILABLE`` only: ``retries`` attempts after the first, waiting
    ``backoff`` × 2^k (at most ``max_backoff``) with jitter, never past the deadline."""

    retries: int = 4
    backoff: float = 0.05
    max_backoff: float = 2.0

    def pause(self, attempt: int) -> float:
        return min(self.max_backoff, self.backoff * 2 ** attempt) * (0.5 + random.random())

    def start(self, timeout: float | None) -> _Attempts:
        return _Attempts(self, None if timeout is None else time.monotonic() + timeout)


class _Attempts:
    """One call's attempts under a ``RetryPolicy`` and its deadline."""

    def __init__(self, policy: RetryPolicy, end: float | None) -> None:
        self.policy, self.end, self.attempt = policy, end, 0

    def remaining(self) -> float | None:
        return None if self.end is None else max(0.0, self.end - time.monotonic())

    def after(self, error: grpc.RpcError, target: str) -> float:
        """The pause before the next attempt, or the oracle's exception to raise."""
        pause = self.policy.pause(self.attempt)
        if not _retryable(error) or self.attempt >= self.policy.retries or (
                self.end is not None and time.monotonic() + pause >= self.end):
            raise error_from_rpc(error, target) from None
        self.attempt += 1
        return pause


def _retryable(error: BaseException) -> bool:
    return isinstance(error, grpc.RpcError) and \
        error.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]


# ---- the sync client ------------------------------------------------------------------

def _channel_credentials(root_certificates: bytes | None, client_key: bytes | None = None,
                         client_cert: bytes | None = None) -> grpc.ChannelCredentials:
    """TLS credentials; with ``client_key``/``client_cert`` the client proves who it is
    (mutual TLS, for a server started with ``--tls-client-ca``)."""
    return grpc.ssl_channel_credentials(root_certificates=root_certificates,
                                        private_key=client_key, certificate_chain=client_cert)


class OracleClient:
    """Blocking client.  ``timeout``: default deadline of a call (seconds);
    ``retries``: attempts after the first on UNAVAILABLE, waiting ``backoff`` × 2^k
    (at most ``max_backoff``) with jitter; ``tls_root``: PEM roots to use TLS;
    ``token``: the shared secret of a server started with ``--auth-token-file``."""

    def __init__(self, target: str, *, timeout: float | None = DEFAULT_TIMEOUT_S,
                 retries: int = 4, backoff: float = 0.05, max_backoff: float = 2.0,
                 tls_root: bytes | None = None, tls: bool = False,
                 tls_client_key: bytes | None = None, tls_client_cert: bytes | None = None,
                 token: str | None = None) -> None:
        self.target, self.timeout = target, timeout
        #: ``authorization: Bearer <token>`` on every call, for a server started with
        #: ``--auth-token-file`` (``auth.py``)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else None
        self.retries, self.backoff, self.max_backoff = retries, backoff, max_backoff
        self.retry = RetryPolicy(retries, backoff, max_backoff)
        if tls or tls_root is not None or tls_client_cert is not None:
            credentials = _channel_credentials(tls_root, tls_client_key, tls_client_cert)
            self._channel = grpc.secure_channel(target, credentials, options=CHANNEL_OPTIONS)
        else:
            self._channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
        self._stub = pb_grpc.OracleStub(self._channel)
        self._verify_batch = raw_verify_batch(self._channel)  # takes ``batch_bytes``
        self._health = health_pb2_grpc.HealthStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> OracleClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _pause(self, attempt: int) -> float:
        return self.retry.pause(attempt)

    def _call(self, method: Callable[..., T], request: Any, timeout: float | None) -> T:
        retry = self.retry.start(self.timeout if timeout is None else timeout)
        while True:
            try:
                return method(request, timeout=retry.remaining(), metadata=self._metadata)
            except grpc.RpcError as error:
                pause = retry.after(error, self.target)
            time.sleep(pause)

    def verify_request(self, request: pb.VerifyRequest, *, timeout: float | None = None
                       ) -> pb.VerifyResponse:
        return self._call(self._stub.Verify, request, timeout)

    def verify(self, premise: str = "", hypothesis: str = "", *, timeout: float | None = None,
               **options: Any) -> pb.VerifyResponse:
        """One item; ``options`` as for ``make_request`` (input, model_answer, profile,
        certificate, explanation)."""
        return self.verify_request(make_request(premise, hypothesis, **options),
                                   timeout=timeout)

    def verify_result(self, premise: str = "", hypothesis: str = "", *,
                      timeout: float | None = None, **options: Any) -> RemoteResult:
        """Like ``verify``, as a ``RemoteResult`` (the engine's interface)."""
        def refetch(**changes: Any) -> pb.VerifyResponse:
            return self.verify(premise, hypothesis, timeout=timeout, **{**options, **changes})

        return RemoteResult(self.verify(premise, hypothesis, timeout=timeout, **options),
                            refetch)

    def answer(self, prompt: str, task: str | None = None, *, model_answer: str | None = None,
               timeout: float | None = None, reasoning: bool = False) -> pb.AnswerResponse:
        """One ``Answer`` call (``reasoning``: check ``model_answer``'s claims too)."""
        request = pb.AnswerRequest(prompt=prompt, task=task or "", reasoning=reasoning)
        if model_answer is not None:
            request.model_answer = model_answer
        return self._call(self._stub.Answer, request, timeout)

    def answer_result(self, prompt: str, task: str | None = None, *,
                      model_answer: str | None = None, timeout: float | None = None
                      ) -> TaskAnswer:
        """``answer`` as the ``TaskAnswer`` the in-process service returns."""
        return task_answer_of(self.answer(prompt, task, model_answer=model_answer,
                                          timeout=timeout))

    def verify_batch(self, requests: Iterable[pb.VerifyRequest], *,
                     timeout: float | None = None, group: bool = True
                     ) -> list[pb.VerifyResponse | Exception]:
        """Many items in one ``VerifyBatch`` call; results in request order, a failed item
        as its exception (``ParseError``, ``BudgetExceeded``, …).  A premise that several
        requests share is sent once (``batch_request``; ``group=False``: not, for a
        server from before ``VerifyGroup``)."""
        batch, order = batch_bytes(requests, group)
        response = self._call(self._verify_batch, batch, timeout)
        return in_order(outcomes(response.items), order, self.target)

    def answer_batch(self, requests: Iterable[pb.AnswerRequest], *,
                     timeout: float | None = None) -> list[pb.AnswerResponse | Exception]:
        """Many ``Answer`` items in one ``AnswerBatch`` call, as ``verify_batch``."""
        batch = pb.AnswerBatchRequest(items=list(requests))
        return outcomes(self._call(self._stub.AnswerBatch, batch, timeout).items)

    def health(self, service: str = "", *, timeout: float | None = 5.0) -> str:
        """The health status name (``SERVING``, ``NOT_SERVING``, …)."""
        response = self._call(self._health.Check,
                              health_pb2.HealthCheckRequest(service=service), timeout)
        return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)

    def verify_many(self, requests: Iterable[pb.VerifyRequest], *, max_in_flight: int = 256,
                    timeout: float | None = None, return_exceptions: bool = False
                    ) -> Iterator[pb.VerifyResponse | OracleError | RemoteError]:
        """Responses in the order of ``requests``, over one stream (re-opened on
        UNAVAILABLE for the unanswered items).  A failed item raises its error, or is
        yielded as the exception with ``return_exceptions``.  ``timeout`` bounds the
        whole batch (default: none)."""
        source = iter(requests)
        retry: deque[tuple[int, pb.VerifyRequest]] = deque()
        in_order = _InOrder(return_exceptions)
        state = {"next_id": 0, "exhausted": False}
        attempt = 0
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            window = threading.Semaphore(max_in_flight)
            lock, stop = threading.Lock(), threading.Event()
            pending: dict[int, pb.VerifyRequest] = {}

            def feed(window: threading.Semaphore = window, lock: threading.Lock = lock,
                     stop: threading.Event = stop,
                     pending: dict[int, pb.VerifyRequest] = pending
                     ) -> Iterator[pb.VerifyStreamRequest]:
                while True:
                    window.acquire()
                    with lock:
                        if stop.is_set():
                            return
                        if retry:
                            rid, request = retry.popleft()
                        elif state["exhausted"]:
                            return
                        else:
                            try:
                                request = next(source)
                            except StopIteration:
                                state["exhausted"] = True
                                return
                            rid = state["next_id"]
                            state["next_id"] += 1
                        pending[rid] = request
                    yield pb.VerifyStreamRequest(id=rid, request=request)

            remaining = None if end is None else max(0.0, end - time.monotonic())
            call = self._stub.VerifyStream(feed(), timeout=remaining, metadata=self._metadata)
            try:
                for response in call:
                    with lock:
                        pending.pop(response.id, None)
                    window.release()
                    yield from in_order.add(response)
                return
            except grpc.RpcError as error:
                with lock:
                    stop.set()
                    _requeue(retry, pending)
                pause = self._pause(attempt)
                if not _retryable(error) or attempt >= self.retries or (
                        end is not None and time.monotonic() + pause >= end):
                    raise error_from_rpc(error, self.target) from None
                attempt += 1
                time.sleep(pause)
            finally:
                stop.set()  # wake the feeding thread if it waits for room
                for _ in range(max_in_flight + 1):
                    window.release()
                call.cancel()


# ---- the asyncio client ---------------------------------------------------------------

class AsyncOracleClient:
    """The asyncio twin of ``OracleClient`` (create and use it inside one event loop)."""

    def __init__(self, target: str, *, timeout: float | None = DEFAULT_TIMEOUT_S,
                 retries: int = 4, backoff: float = 0.05, max_backoff: float = 2.0,
                 tls_root: bytes | None = None, tls: bool = False,
                 tls_client_key: bytes | None = None, tls_client_cert: bytes | None = None,
                 token: str | None = None) -> None:
        self.target, self.timeout = target, timeout
        #: ``authorization: Bearer <token>`` on every call, for a server started with
        #: ``--auth-token-file`` (``auth.py``)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else None
        self.retries, self.backoff, self.max_backoff = retries, backoff, max_backoff
        self.retry = RetryPolicy(retries, backoff, max_backoff)
        if tls or tls_root is not None or tls_client_cert is not None:
            credentials = _channel_credentials(tls_root, tls_client_key, tls_client_cert)
            self._channel = grpc.aio.secure_channel(target, credentials,
                                                    options=CHANNEL_OPTIONS)
        else:
            self._channel = grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS)
        self._stub = pb_grpc.OracleStub(self._channel)
        self._verify_batch = raw_verify_batch(self._channel)  # takes ``batch_bytes``
        self._health = health_pb2_grpc.HealthStub(self._channel)

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> AsyncOracleClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    _pause = OracleClient._pause

    async def _call(self, method: Callable[..., Any], request: Any, timeout: float | None
                    ) -> Any:
        retry = self.retry.start(self.timeout if timeout is None else timeout)
        while True:
            try:
                return await method(request, timeout=retry.remaining(),
                                    metadata=self._metadata)
            except grpc.RpcError as error:
                pause = retry.after(error, self.target)
            await asyncio.sleep(pause)

    async def verify_request(self, request: pb.VerifyRequest, *,
                             timeout: float | None = None) -> pb.VerifyResponse:
        return await self._call(self._stub.Verify, request, timeout)

    async def verify(self, premise: str = "", hypothesis: str = "", *,
                     timeout: float | None = None, **options: Any) -> pb.VerifyResponse:
        return await self.verify_request(make_request(premise, hypothesis, **options),
                                         timeout=timeout)

    async def answer(self, prompt: str, task: str | None = None, *,
                     model_answer: str | None = None, timeout: float | None = None
                     ) -> pb.AnswerResponse:
        request = pb.AnswerRequest(prompt=prompt, task=task or "")
        if model_answer is not None:
            request.model_answer = model_answer
        return await self._call(self._stub.Answer, request, timeout)

    async def verify_batch(self, requests: Iterable[pb.VerifyRequest], *,
                           timeout: float | None = None, group: bool = True
                           ) -> list[pb.VerifyResponse | Exception]:
        """As ``OracleClient.verify_batch``: one ``VerifyBatch`` call, a premise shared by
        several requests sent once (``batch_request``), results in request order."""
        batch, order = batch_bytes(requests, group)
        response = await self._call(self._verify_batch, batch, timeout)
        return in_order(outcomes(response.items), order, self.target)

    async def health(self, service: str = "", *, timeout: float | None = 5.0) -> str:
        response = await self._call(self._health.Check,
                                    health_pb2.HealthCheckRequest(service=service), timeout)
        return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)

    async def verify_many(self, requests: Iterable[pb.VerifyRequest]
                          | AsyncIterable[pb.VerifyRequest], *, max_in_flight: int = 256,
                          timeout: float | None = None, return_exceptions: bool = False
                          ) -> AsyncIterator[pb.VerifyResponse | OracleError | RemoteError]:
        """As ``OracleClient.verify_many``, as an async generator."""
        if isinstance(requests, AsyncIterable):
            source: AsyncIterator[pb.VerifyRequest] = aiter(requests)
        else:
            source = _as_async(requests)
        retry: deque[tuple[int, pb.VerifyRequest]] = deque()
        in_order = _InOrder(return_exceptions)
        next_id = attempt = 0
        exhausted = False
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            window = asyncio.Semaphore(max_in_flight)
            pending: dict[int, pb.VerifyRequest] = {}
            remaining = None if end is None else max(0.0, end - time.monotonic())
            call = self._stub.VerifyStream(timeout=remaining, metadata=self._metadata)

            async def write(window: asyncio.Semaphore = window,
                            pending: dict[int, pb.VerifyRequest] = pending,
                            call: Any = call) -> None:
                nonlocal next_id, exhausted
                while True:
                    await window.acquire()
                    if retry:
                        rid, request = retry.popleft()
                    elif exhausted:
                        break
                    else:
                        try:
                            request = await anext(source)
                        except StopAsyncIteration:
                            exhausted = True
                            break
                        rid, next_id = next_id, next_id + 1
                    pending[rid] = request
                    await call.write(pb.VerifyStreamRequest(id=rid, request=request))
                await call.done_writing()

            writer = asyncio.create_task(write())
            try:
                async for response in call:
                    pending.pop(response.id, None)
                    window.release()
                    for item in in_order.add(response):
                        yield item
                await writer
                return
            except grpc.RpcError as error:
                writer.cancel()
                _requeue(retry, pending)
                pause = self._pause(attempt)
                if not _retryable(error) or attempt >= self.retries or (
                        end is not None and time.monotonic() + pause >= end):
                    raise error_from_rpc(error, self.target) from None
                attempt += 1
                await asyncio.sleep(pause)
            finally:
                if not writer.done():
                    writer.cancel()
                call.cancel()


class _InOrder:
    """Stream responses arrive in any order; hand them out by request id 0, 1, 2, …

    Each response becomes its result or its error; an error is raised when its turn
    comes unless ``return_exceptions``.  Shared by the sync and asyncio clients and
    kept across retries, so resent items slot back into place.
    """

    def __init__(self, return_exceptions: bool) -> None:
        self.return_exceptions = return_exceptions
        self.waiting: dict[int, pb.VerifyResponse | OracleError | RemoteError] = {}
        self.next_id = 0

    def add(self, response: pb.VerifyStreamResponse
            ) -> Iterator[pb.VerifyResponse | OracleError | RemoteError]:
        """Store ``response``; the returned iterator yields whatever is now next in line."""
        self.waiting[response.id] = response.result if response.HasField("result") \
            else error_from_item(response.error)
        return self._ready()

    def _ready(self) -> Iterator[pb.VerifyResponse | OracleError | RemoteError]:
        while self.next_id in self.waiting:
            item = self.waiting.pop(self.next_id)
            self.next_id += 1
            if isinstance(item, OracleError | RemoteError) and not self.return_exceptions:
                raise item
            yield item


def _requeue(retry: deque[tuple[int, Any]], pending: dict[int, Any]) -> None:
    """Put the unanswered items of a failed stream back in front, in id order."""
    items = sorted([*retry, *pending.items()], key=lambda kv: kv[0])
    retry.clear()
    retry.extend(items)


async def _as_async(items: Iterable[T]) -> AsyncIterator[T]:
    for item in items:
        yield item
