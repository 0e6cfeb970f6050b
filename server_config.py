"""The gRPC server's configuration: one checked ``ServerConfig`` from the options.

``config_of`` turns the parsed options of ``causal-oracle serve`` (``serve_options``)
into a ``ServerConfig``; ``checked`` refuses a bad combination with ``InputError``
naming the option (exit 2) before anything starts.
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass

from causal_oracle import entry as svc
from causal_oracle import serve_options
from causal_oracle.auth import server_token
from causal_oracle.entry import InputError
from causal_oracle.entry.limits import SERVER_STATEMENTS, SERVER_TEXT_BYTES

DEFAULT_CACHE_ITEMS = svc.DEFAULT_CACHE_ITEMS
DEFAULT_CACHE_MB = serve_options.DEFAULT_CACHE_MB


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    workers: int = 0  # 0: one per core
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_client_ca: str | None = None  # mutual TLS: clients must present a cert from this CA
    auth_token_file: str | None = None  # shared secret (``auth``); required off loopback
    reflection: bool = True
    grace: float = serve_options.DEFAULT_GRACE_S
    solver_budget: float = svc.DEFAULT_BUDGET_S
    cache_items: int = DEFAULT_CACHE_ITEMS
    cache_mb: int = DEFAULT_CACHE_MB  # the response cache's keys and values, in MiB
    max_premise_bytes: int = SERVER_TEXT_BYTES
    max_statements: int = SERVER_STATEMENTS

    def checked(self) -> ServerConfig:
        """The config, or ``InputError`` saying which option is wrong."""
        if not 0 <= self.port <= 65535:
            raise InputError(f"--port {self.port} is not a port (0 to 65535)")
        if self.workers < 0:
            raise InputError(f"--workers {self.workers}: give 0 (one per core) or more")
        if not (math.isfinite(self.solver_budget) and self.solver_budget > 0
                and math.isfinite(self.grace) and self.grace >= 0 and self.cache_items >= 0
                and self.cache_mb >= 0):
            raise InputError("--solver-budget must be a positive finite number, --grace a "
                             "finite one not negative, --cache-items and --cache-mb not "
                             "negative")
        if bool(self.tls_cert) != bool(self.tls_key):
            raise InputError("TLS needs both --tls-cert and --tls-key")
        if self.tls_client_ca and not self.tls_cert:
            raise InputError("--tls-client-ca (mutual TLS) needs --tls-cert and --tls-key")
        for option, path in (("--tls-cert", self.tls_cert), ("--tls-key", self.tls_key),
                             ("--tls-client-ca", self.tls_client_ca)):
            if path and not os.path.isfile(path):
                raise InputError(f"{option} {path}: no such file")
        self.auth_token()
        return self

    def auth_token(self) -> str | None:
        """The token calls must carry (None: none); ``InputError`` off loopback without
        one, or for an unusable token file (``auth``)."""
        return server_token(self.host, self.auth_token_file)

    def limits(self) -> svc.Limits:
        return svc.Limits(text_bytes=self.max_premise_bytes, statements=self.max_statements,
                          budget_s=self.solver_budget, cache_items=min(self.cache_items, 8192))


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1




def config_of(args: argparse.Namespace) -> ServerConfig:
    port = serve_options.grpc_port(args)
    return ServerConfig(host=args.host,
                        port=serve_options.DEFAULT_PORT if port is None else port,
                        workers=args.workers,
                        tls_cert=args.tls_cert, tls_key=args.tls_key,
                        tls_client_ca=getattr(args, "tls_client_ca", None),
                        auth_token_file=getattr(args, "auth_token_file", None),
                        reflection=not getattr(args, "no_reflection", False), grace=args.grace,
                        solver_budget=args.solver_budget,
                        cache_items=args.cache_items,
                        cache_mb=getattr(args, "cache_mb", DEFAULT_CACHE_MB),
                        max_premise_bytes=getattr(args, "max_premise_bytes", SERVER_TEXT_BYTES),
                        max_statements=getattr(args, "max_statements", SERVER_STATEMENTS)
                        ).checked()


__all__ = ["DEFAULT_CACHE_ITEMS", "DEFAULT_CACHE_MB", "ServerConfig", "config_of",
           "default_workers"]
