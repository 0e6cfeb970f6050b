"""A shared secret between the servers and their clients: ``--auth-token-file``.

Both servers (gRPC: ``server.py``; HTTP: ``rewards.http``) bind 127.0.0.1 by default,
where only this machine's users can connect, and there no secret is needed.  Bound to
any other address, anyone who can reach the port could spend its solver time, so a
server *refuses to start* on a non-loopback address unless it is given a token file:

* the file holds one token (surrounding whitespace ignored; at least
  ``MIN_TOKEN_CHARS`` characters), read once at start-up; a missing, unreadable or
  empty file stops the server before it binds, naming the file;
* clients send it as ``authorization: Bearer <token>`` — gRPC call metadata, checked by
  ``interceptor`` (``UNAUTHENTICATED`` otherwise), or the HTTP header, checked by
  ``rewards.http_security`` (401 with a JSON body otherwise);
* tokens are compared in constant time (``hmac.compare_digest``).

Over a network, pair it with TLS (``--tls-cert/--tls-key``): a bearer token sent in
clear text can be read by anyone on the path.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    >>> authorised("Bearer s3cret-token-x", "s3cret-token-x"), authorised(None, "s3cret-token-x")
    (True, False)
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from causal_oracle.entry import InputError

HEADER = "authorization"
SCHEME = "Bearer "
MIN_TOKEN_CHARS = 8
MAX_TOKEN_BYTES = 4096


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` reaches this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def read_token(path: str, option: str = "--auth-token-file") -> str:
    """The token in ``path``; ``InputError`` naming the file when it cannot serve as one."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_TOKEN_BYTES + 1)
    except OSError as error:
        raise InputError(f"{option} {path}: cannot read it ({error.strerror or error})"
                         ) from None
    if len(raw) > MAX_TOKEN_BYTES:
        raise InputError(f"{option} {path}: over {MAX_TOKEN_BYTES} bytes; a token file holds "
                         "one token")
    try:
        token = raw.decode("ascii").strip()
    except UnicodeDecodeError:
        raise InputError(f"{option} {path}: the token must be printable ASCII") from None
    if len(token) < MIN_TOKEN_CHARS or not token.isprintable() or any(c.isspace()
                                                                    for c in token):
        raise InputError(f"{option} {path}: need one token of at least {MIN_TOKEN_CHARS} "
                         "printable characters without spaces")
    return token


def server_token(host: str, token_file: str | None) -> str | None:
    """The token a server bound to ``host`` checks (None: no check, loopback only);
    ``InputError`` when ``host`` is not loopback and no token file is given."""
    if token_file:
        return read_token(token_file)
    if not is_loopback(host):
        raise InputError(f"--host {host} is not a loopback address: give --auth-token-file "
                         "(a shared secret clients send as 'authorization: Bearer <token>'), "
                         "and TLS (--tls-cert/--tls-key) over a network")
    return None


def authorised(header: str | None, token: str) -> bool:
    """Whether an ``authorization`` header value carries ``token``."""
    if header is None or not header.startswith(SCHEME):
        return False
    return hmac.compare_digest(header[len(SCHEME):].strip().encode("utf-8", "replace"),
                               token.encode("ascii"))


DENIED = "missing or wrong 'authorization: Bearer <token>' (see --auth-token-file)"


def interceptor(token: str) -> Any:
    """A ``grpc.aio.ServerInterceptor`` that answers ``UNAUTHENTICATED`` to every call whose
    metadata does not carry ``token``."""
    import grpc

    async def deny_unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, DENIED)

    class TokenInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
        async def intercept_service(self, continuation: Any, details: Any) -> Any:
            handler = await continuation(details)
            header = next((v for k, v in details.invocation_metadata or ()
                           if k == HEADER and isinstance(v, str)), None)
            if handler is None or authorised(header, token):
                return handler
            if handler.request_streaming and handler.response_streaming:
                return grpc.stream_stream_rpc_method_handler(deny_unary)
            if handler.request_streaming:
                return grpc.stream_unary_rpc_method_handler(deny_unary)
            if handler.response_streaming:
                return grpc.unary_stream_rpc_method_handler(deny_unary)
            return grpc.unary_unary_rpc_method_handler(deny_unary)

    return TokenInterceptor()


__all__ = ["DENIED", "HEADER", "MIN_TOKEN_CHARS", "authorised", "interceptor", "is_loopback",
           "read_token", "server_token"]
