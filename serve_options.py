"""The command-line options of the gRPC service, declared once.

``causal-oracle serve`` (``clients/serve_cli.py``) and ``python -m
causal_oracle.server`` (``server.main``) take the same options, with the same
defaults and range checks.  They live beside ``server.py`` rather than in it so
that declaring them loads no gRPC (every other CLI verb builds this parser too),
and rather than in ``clients/`` so that the server imports nothing from there.
``causal-oracle serve`` also takes ``--http-port`` (the reward endpoint,
``rewards.http``): alone it serves HTTP only, with ``--port`` both.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from causal_oracle.entry.limits import DEFAULT_BUDGET_S as DEFAULT_SOLVER_BUDGET_S
from causal_oracle.entry.limits import (
    DEFAULT_CACHE_ITEMS,
    REWARD_CAP_S,
    SERVER_STATEMENTS,
    SERVER_TEXT_BYTES,
)

DEFAULT_PORT = 50051
DEFAULT_GRACE_S = 10.0  # seconds calls in flight get at shutdown
DEFAULT_CACHE_MB = 128  # the response cache's bound in bytes (and --cache-items in entries)


def _int_in(low: int, high: int | None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                f"{value} is out of range ({low} to {high if high is not None else 'any'})")
        return value
    parse.__name__ = "integer"
    return parse


def _seconds(low: float, *, zero: bool) -> Callable[[str], float]:
    """A finite number of seconds, above ``low`` (or equal to it when ``zero``): ``nan``
    and ``inf`` are refused here, at parse time (exit 2), not by every call later."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not math.isfinite(value) or value < low or (value == low and not zero):
            bound = f"≥ {low:g}" if zero else f"> {low:g}"
            raise argparse.ArgumentTypeError(f"{text} is not allowed: give a finite number "
                                             f"of seconds {bound}")
        return value
    parse.__name__ = "seconds"
    return parse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=_int_in(0, 65535), default=None,
                   help=f"gRPC port (0 = any free one; default {DEFAULT_PORT}, none when "
                        "--http-port is given without it)")
    p.add_argument("--workers", type=_int_in(0, None), default=0,
                   help="solver worker processes (0 = one per core; default 0)")
    p.add_argument("--tls-cert", help="PEM certificate chain (with --tls-key: serve TLS)")
    p.add_argument("--tls-key", help="PEM private key")
    p.add_argument("--tls-client-ca", help="PEM CA: require client certificates signed by it "
                   "(mutual TLS; needs --tls-cert/--tls-key)")
    p.add_argument("--auth-token-file", default=None,
                   help="file holding a shared secret every client must send as "
                        "'authorization: Bearer <token>' (gRPC metadata or HTTP header); "
                        "required when --host is not a loopback address")
    p.add_argument("--no-reflection", action="store_true",
                   help="do not serve gRPC server reflection")
    p.add_argument("--grace", type=_seconds(0.0, zero=True), default=DEFAULT_GRACE_S,
                   help=f"seconds calls in flight get at shutdown (default {DEFAULT_GRACE_S:g})")
    p.add_argument("--solver-budget", type=_seconds(0.0, zero=False),
                   default=DEFAULT_SOLVER_BUDGET_S,
                   help=f"seconds of solver time per item (default {DEFAULT_SOLVER_BUDGET_S:g})")
    p.add_argument("--cache-items", type=_int_in(0, None), default=DEFAULT_CACHE_ITEMS,
                   help=f"responses kept for repeated items (default {DEFAULT_CACHE_ITEMS}); "
                        "also the items each worker's caches keep (at most 8192)")
    p.add_argument("--cache-mb", type=_int_in(0, None), default=DEFAULT_CACHE_MB,
                   help=f"MiB of requests and responses the response cache keeps (default "
                        f"{DEFAULT_CACHE_MB})")
    p.add_argument("--max-premise-bytes", type=_int_in(1, None), default=SERVER_TEXT_BYTES,
                   help=f"largest text field of a request, in bytes (default "
                        f"{SERVER_TEXT_BYTES:,})")
    p.add_argument("--max-statements", type=_int_in(1, None), default=SERVER_STATEMENTS,
                   help=f"most statements in a premise (default {SERVER_STATEMENTS:,})")


def add_http_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--http-port", type=_int_in(0, 65535), default=None,
                   help="also (or, without --port, only) serve the HTTP/JSON reward endpoint "
                        "on this port (needs the rl extra)")
    p.add_argument("--reward-cap", type=_seconds(0.0, zero=False), default=REWARD_CAP_S,
                   help=f"hard cap per reward sample over HTTP, in seconds: a sample past it "
                        f"gets no reward (valid false, status timeout), never 0 (default "
                        f"{REWARD_CAP_S:g}; the solver budget inside it is at most 80 %%)")


def grpc_port(args: argparse.Namespace) -> int | None:
    """The gRPC port to serve: ``--port``, else the default unless ``--http-port`` alone
    was asked for (then None: no gRPC)."""
    if args.port is not None:
        return int(args.port)
    return None if getattr(args, "http_port", None) is not None else DEFAULT_PORT
