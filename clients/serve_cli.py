"""``causal-oracle serve``: the command-line face of ``server.py`` (imported lazily,
so that the other verbs do not pay for loading gRPC); the options are
``serve_options``'s, shared with ``python -m causal_oracle.server``.

An address the HTTP endpoint cannot bind (a port in use, a host that is no address
of this machine) is refused before anything starts, with exit 2 and one line
``causal-oracle: error: cannot bind HOST:PORT: why`` — as ``--port`` is for gRPC —
rather than left to the web server, which would log its own line and exit 3 (the
code of an ``audit --fail-on`` finding).
"""

from __future__ import annotations

import argparse
import socket

from causal_oracle.entry import InputError
from causal_oracle.serve_options import add_arguments, add_http_arguments


def check_bind(host: str, port: int) -> None:
    """``InputError`` unless a listening TCP socket can be bound to ``host:port`` now
    (with ``SO_REUSEADDR``, as the HTTP server binds)."""
    address = f"{host}:{port}"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as error:
        raise InputError(f"cannot bind {address}: {error}") from None
    family, kind, proto, _, where = infos[0]
    try:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(where)
            probe.listen()
    except OSError as error:
        raise InputError(f"cannot bind {address}: {error.strerror or error}") from None


def cmd_serve(args: argparse.Namespace) -> int:
    if args.http_port is not None:
        try:
            from causal_oracle.rewards import http
        except ImportError as error:
            raise InputError(f"--http-port needs the rl extra (pip install "
                             f"'causal-oracle[rl]'): {error}") from None
        check_bind(args.host, args.http_port)
        try:
            return http.run(args)
        except SystemExit as stop:  # the web server gave up starting (a race with the check)
            if stop.code in (None, 0):
                raise
            raise InputError(f"cannot serve HTTP on {args.host}:{args.http_port} (the web "
                             "server's own line above says why)") from None
    from causal_oracle import server

    return server.run(args)


def add_cli_command(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("serve", help="run the gRPC service and/or the HTTP reward "
                                             "endpoint (until SIGTERM / Ctrl-C)")
    add_arguments(p)
    add_http_arguments(p)
    p.set_defaults(func=cmd_serve)
