"""The reward endpoint over HTTP/JSON, for trainers that call a URL instead of a function.

Trainers and environment servers speak HTTP/JSON, not gRPC.  This is a Starlette
application served by uvicorn (the ``rl`` extra), bound to 127.0.0.1 unless told
otherwise, that scores on a ``Scorer`` (``rewards.pool``: worker processes, the
cooperative budget inside, a hard per-sample cap around it):

=====================  ==================================================================
``GET /health``        ``{"status": "ok", "families": […], "workers", "cap_s"}``
``POST /verify``       NeMo-Gym's shape: ``{"responses_create_params": {"input": …},
                       "response": {"output": […]}, …}`` → the request with ``reward``
                       (``null`` without one), ``valid`` and ``details`` (status,
                       reason, what the reply was read as, the expected answer, the
                       relation)
``POST /get_reward``   OpenRLHF's shape: ``{"query": […], "prompts": […], "labels": […]}``
                       → ``{"rewards", "scores", "valid", "reasons", "extra_logs"}``
                       (``null`` without a reward, ``valid`` false and its reason)
``POST /batch``        ``{"items": [{"prompt", "completion", "premise"?, "hypothesis"?,
                       "task"?, "ground_truth"?}, …]}`` → ``{"results": [{"reward",
                       "valid", "status", "reason", …}, …]}``
=====================  ==================================================================

Each of the three takes ``"reasoning": true`` (a ``/batch`` item too, for itself) to
ask for the reasoning components (``rewards.scoring``): ``/verify``'s ``details`` and
each ``/batch`` result gain ``"reasoning": {"reasoning", "lucky", "unsupported",
"claims", "false_claims"}`` (``reasoning`` the share of the reply's checkable causal
claims that are true, ``null`` without one), ``/get_reward``'s ``extra_logs`` the lists
``reasoning``, ``lucky``, ``unsupported``.  Without it every response is unchanged.

Every response is strict JSON (RFC 8259: no NaN or Infinity; a reward that could not be
given is ``null`` with ``valid: false`` and a reason), every error too — 400 for a body
that is not strict JSON (NaN, Infinity and overflowing numbers included) or not of the
shape, 401 without the token (``--auth-token-file``), 404, 405, 413 for a body over
``MAX_BODY_BYTES`` (counted as it streams in: a chunked body is refused as soon as it
passes the limit) or more than ``MAX_ITEMS`` samples, and 500 only for a bug, each as
``{"error": message}``.  Inside a batch a bad item (not an object, a column that is not
text) is that item's ``invalid`` result and the others are scored; a lone surrogate
escape in a text field is replaced by U+FFFD (``rewards.inputs``).  Every text field is
then held to the entry layer's limits like any other input.  ``causal-oracle serve
--http-port PORT`` runs it, alone or beside the gRPC port (``run``), with TLS, mutual
TLS and the shared-secret header as the gRPC server takes them (``rewards.http_security``).

    >>> from starlette.testclient import TestClient
    >>> from causal_oracle.rewards import RewardConfig, Scorer
    >>> with Scorer(RewardConfig(workers=0)) as scorer:
    ...     client = TestClient(application(scorer))
    ...     client.post("/batch", json={"items": [{"prompt": "Toy?", "completion": "yes"}]}
    ...                 ).json()["results"][0]["status"]
    'no_question'
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import signal
import socket
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from causal_oracle.auth import server_token
from causal_oracle.entry import REGISTRY, InputError
from causal_oracle.entry.limits import MAX_BATCH_ITEMS, REWARD_CAP_S
from causal_oracle.rewards.http_security import TlsFiles, TokenGate
from causal_oracle.rewards.inputs import Refused, column_value, excerpt
from causal_oracle.rewards.pool import Scorer
from causal_oracle.rewards.scoring import Reward, RewardConfig, Sample
from causal_oracle.rewards.trainers import (
    COLUMNS,
    openrlhf_samples,
    prompt_text,
    reply_text,
    sample_of,
)
from causal_oracle.serve_options import grpc_port
from causal_oracle.server_config import default_workers

log = logging.getLogger("causal_oracle.rewards.http")

MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_ITEMS = MAX_BATCH_ITEMS  # samples in one request, as in one gRPC batch message


ROUTES = "GET /health, POST /verify, POST /get_reward, POST /batch"


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def reply(body: Any, status: int = 200) -> Response:
    """``body`` as strict JSON (RFC 8259: no NaN or Infinity; ASCII, so a lone surrogate
    echoed from a request is an escape, never an encoding error)."""
    return Response(json.dumps(body, ensure_ascii=True, allow_nan=False,
                               separators=(",", ":")),
                    status_code=status, media_type="application/json")


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (JSON has no NaN or Infinity)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {excerpt(text, 40)} is out of range")
    return value


_WIDE = float(2**63)  # orjson reads an integer past 64 bits as a float: at least this


def _widened(value: Any) -> bool:
    """Whether ``value`` holds a float of at least 2^63 (maybe an integer orjson widened:
    ``json`` reads it exactly).  Visits the values, not the text: a step's payload is a
    few lists of strings."""
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, float):
            if abs(v) >= _WIDE:
                return True
        elif isinstance(v, list):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.values())
    return False


def strict_json(body: bytes | bytearray) -> Any:
    """``body`` parsed as strict JSON; ``ValueError`` for NaN, Infinity or a number that
    overflows a float (Python's ``json`` would accept all three).

    orjson reads a body first (it works on the bytes: a 20 MiB step with non-ASCII
    replies in a third of ``json``'s time, which first decodes the whole body to a
    4-byte-per-character string); what it refuses — NaN, Infinity, an overflowing
    number, a lone surrogate escape (replaced later: ``rewards.inputs``), nesting past
    its depth — and a body where it may have widened an integer past 64 bits to a float
    are read by ``json``, which accepts the surrogate and the integer and says why it
    refuses the rest."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    else:
        if not _widened(value):
            return value
    return json.loads(body, parse_constant=_not_a_number, parse_float=_finite)


async def _json(request: Request) -> Any:
    """The request's body, counted as it streams in (413 as soon as it passes
    ``MAX_BODY_BYTES``, declared or not), parsed as strict JSON (400)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise BadRequest(413, f"the body is over {MAX_BODY_BYTES:,} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise BadRequest(413, f"the body is over {MAX_BODY_BYTES:,} bytes")
    try:
        return strict_json(body)
    except (ValueError, RecursionError) as error:
        raise BadRequest(400, f"the body is not JSON: {excerpt(str(error))}") from None


def _list(body: Mapping[str, Any], name: str, required: bool = True) -> list[Any]:
    value = body.get(name)
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise BadRequest(400, f"{name!r} must be a list")
    if len(value) > MAX_ITEMS:
        raise BadRequest(413, f"{len(value):,} items in {name!r}; the limit is {MAX_ITEMS:,}")
    return value


def _details(r: Reward) -> dict[str, Any]:
    return {k: v for k, v in r.as_dict().items() if k != "reward"}


def result(r: Reward) -> dict[str, Any]:
    """One sample's result: the reward (``null`` without one), ``valid`` and the rest."""
    return {**r.as_dict(), "valid": not r.failed}


def asks_reasoning(body: Mapping[str, Any], where: str = "") -> bool:
    """Whether ``body`` asks for the reasoning components (``"reasoning": true``);
    ``Refused`` for a value that is not a JSON boolean."""
    value = body.get("reasoning", False)
    if not isinstance(value, bool):
        raise Refused(f"{where}reasoning must be true or false")
    return value


def item_sample(item: Any, i: int, reasoning: bool = False) -> Sample:
    """``/batch`` item ``i`` as a sample; an item that is not an object, or a field of the
    wrong type, makes an ``invalid`` sample naming it (the other items are scored)."""
    where = f"items[{i}]"
    if not isinstance(item, Mapping):
        return Sample("", "", problem=f"{where} must be a JSON object")
    return sample_of(lambda: Sample(
        prompt_text(item.get("prompt", "")), reply_text(item.get("completion", "")),
        **{c: column_value(item.get(c), f"{where}.{c}") for c in COLUMNS},
        fallback=column_value(item.get("ground_truth"), f"{where}.ground_truth"),
        reasoning=asks_reasoning(item, f"{where}.") or reasoning))


def _asked(body: Mapping[str, Any]) -> bool:
    try:
        return asks_reasoning(body)
    except Refused as error:
        raise BadRequest(400, str(error)) from None


def _reasoning_logs(rewards: list[Reward]) -> dict[str, list[Any]]:
    parts = [r.parts for r in rewards]
    return {"reasoning": [p.reasoning if p else None for p in parts],
            "lucky": [float(p.lucky) if p else None for p in parts],
            "unsupported": [float(p.unsupported) if p else None for p in parts]}


async def _http_error(request: Request, error: Exception) -> Response:
    if isinstance(error, HTTPException):
        path = excerpt(request.url.path, 100)
        message = {404: f"no route {path}; the routes are {ROUTES}",
                   405: f"{excerpt(request.method, 20)} is not allowed on {path}; the routes "
                        f"are {ROUTES}"}.get(error.status_code, str(error.detail))
        return reply({"error": message}, error.status_code)
    log.error("internal error on %s: %r", excerpt(request.url.path, 100), error)
    return reply({"error": f"internal error (a bug): {type(error).__name__}"}, 500)


def application(scorer: Scorer, token: str | None = None) -> Starlette:
    """The endpoint's ASGI application, scoring on ``scorer`` (every request must carry
    ``token`` when given: ``rewards.http_security``)."""

    def route(handler: Callable[[Any], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                body = await _json(request)
                if not isinstance(body, dict):
                    raise BadRequest(400, "the body must be a JSON object")
                return await handler(body)
            except BadRequest as error:
                return reply({"error": str(error)}, error.status)
        return endpoint

    async def health(request: Request) -> Response:
        return reply({"status": "ok", "families": list(REGISTRY.names()),
                      "workers": scorer.config.workers, "cap_s": scorer.config.cap_s})

    async def verify(body: dict[str, Any]) -> Response:
        params = body.get("responses_create_params")
        prompt = params.get("input") if isinstance(params, Mapping) else None
        if prompt is None or "response" not in body:
            raise BadRequest(400, "expected 'responses_create_params.input' and 'response'")
        try:
            sample = Sample(prompt_text(prompt), reply_text(body["response"]),
                            **{c: column_value(body.get(c), c) for c in COLUMNS},
                            reasoning=asks_reasoning(body))
        except (Refused, RecursionError) as error:
            raise BadRequest(400, str(error) if isinstance(error, Refused)
                             else "the body is nested too deeply") from None
        [r] = await scorer.score_many_async([sample])
        return reply({**body, "reward": r.reward, "valid": not r.failed,
                      "details": _details(r)})

    async def get_reward(body: dict[str, Any]) -> Response:
        queries = _list(body, "query")
        prompts = _list(body, "prompts")
        labels = _list(body, "labels", required=False)
        if len(prompts) != len(queries):
            raise BadRequest(400, "'query' and 'prompts' must have the same length")
        asked = _asked(body)
        samples = openrlhf_samples(queries, prompts, labels)
        if asked:
            samples = [replace(s, reasoning=True) for s in samples]
        rewards = await scorer.score_many_async(samples)
        values = [r.reward for r in rewards]
        logs = {"acc": [r.acc for r in rewards],
                "unreadable": [float(r.status == "unreadable") for r in rewards],
                "verifier_failed": [float(r.failed) for r in rewards]}
        if asked:
            logs.update(_reasoning_logs(rewards))
        return reply({"rewards": values, "scores": values,
                      "valid": [not r.failed for r in rewards],
                      "reasons": [r.reason if r.failed else None for r in rewards],
                      "extra_logs": logs})

    async def batch(body: dict[str, Any]) -> Response:
        items = _list(body, "items")
        asked = _asked(body)
        rewards = await scorer.score_many_async([item_sample(x, i, asked)
                                                 for i, x in enumerate(items)])
        return reply({"results": [result(r) for r in rewards]})

    app = Starlette(routes=[
        Route("/health", health, methods=["GET"]),
        Route("/verify", route(verify), methods=["POST"]),
        Route("/get_reward", route(get_reward), methods=["POST"]),
        Route("/batch", route(batch), methods=["POST"]),
    ], middleware=[Middleware(TokenGate, token=token)] if token else [],
        exception_handlers={HTTPException: _http_error, Exception: _http_error})
    app.router.redirect_slashes = False  # "/batch/" is a JSON 404, not an empty redirect
    return app


def config_of(args: argparse.Namespace) -> RewardConfig:
    """The scorer's config from ``serve``'s options: the hard cap per sample
    ``--reward-cap`` (default ``REWARD_CAP_S``, as in-process), the cooperative budget
    inside it (``--solver-budget``, at most ``BUDGET_SHARE`` of the cap:
    ``RewardConfig.within``), workers as for gRPC (0: one per core)."""
    budget = args.solver_budget
    cap = getattr(args, "reward_cap", REWARD_CAP_S)
    for name, value in (("--solver-budget", budget), ("--reward-cap", cap)):
        if not value > 0 or math.isinf(value):
            raise InputError(f"{name} must be a positive number of seconds")
    return RewardConfig.within(cap, budget, workers=args.workers or default_workers())


@dataclass(frozen=True)
class Security:
    """The endpoint's checked TLS files and token (``rewards.http_security``, ``auth``)."""

    tls: TlsFiles | None
    token: str | None

    @classmethod
    def of(cls, args: argparse.Namespace) -> Security:
        return cls(TlsFiles.of(args.tls_cert, args.tls_key, getattr(args, "tls_client_ca", None)),
                   server_token(args.host, getattr(args, "auth_token_file", None)))


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; ``InputError`` (exit 2) when it cannot bind."""
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = info[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, UnicodeError) as error:
        raise InputError(f"cannot bind {host}:{port}: {error}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as error:
        sock.close()
        raise InputError(f"cannot bind {host}:{port}: {error.strerror or error}") from None
    sock.setblocking(False)
    return sock


async def serve(args: argparse.Namespace, security: Security | None = None) -> None:
    """Serve HTTP on ``--http-port`` (and gRPC on ``--port`` when given) until SIGTERM or
    SIGINT."""
    import uvicorn

    from causal_oracle import server as grpc_server
    from causal_oracle.server_config import config_of as grpc_config_of

    security = security or Security.of(args)
    sock = bind(args.host, args.http_port)
    grpc = None
    try:
        if grpc_port(args) is not None:
            grpc = grpc_server.OracleServer(grpc_config_of(args))
            port = await grpc.start()
            print(f"causal-oracle: serving {grpc_server.SERVICE_NAME} on {args.host}:{port}",
                  flush=True)
    except BaseException:
        sock.close()
        raise

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:  # ours below: a clean exit, status 0
            yield

    scorer = Scorer(config_of(args))
    tls = security.tls.uvicorn_options() if security.tls else {}
    http = Server(uvicorn.Config(application(scorer, security.token), log_level="warning",
                                 lifespan="off", **tls))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: setattr(http, "should_exit", True))

    async def announce() -> None:
        while not http.started:
            await asyncio.sleep(0.05)
        bound = sock.getsockname()[1]
        scheme = "https" if security.tls else "http"
        extra = (", mutual TLS" if security.tls and security.tls.client_ca else "") + \
            (", token required" if security.token else "")
        print(f"causal-oracle: serving rewards over HTTP on {scheme}://{args.host}:{bound} "
              f"({scorer.config.workers} worker(s), {scorer.config.cap_s:g} s cap per "
              f"sample{extra})", flush=True)

    ready = asyncio.create_task(announce())
    try:
        await http.serve(sockets=[sock])
    finally:
        ready.cancel()
        sock.close()
        if grpc is not None:
            await grpc.stop()
        scorer.close()


def run(args: argparse.Namespace) -> int:
    """``causal-oracle serve --http-port PORT``: a bad option, an unusable TLS or token
    file, or an address that cannot be bound raises ``InputError`` (exit 2) before
    anything serves."""
    config_of(args)
    security = Security.of(args)
    asyncio.run(serve(args, security))
    print("causal-oracle: stopped", flush=True)
    return 0


__all__ = ["MAX_BODY_BYTES", "MAX_ITEMS", "Security", "application", "bind", "item_sample",
           "reply", "result", "run", "serve", "strict_json"]
