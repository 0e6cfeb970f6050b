"""``causal-oracle serve``: the command-line face of ``server.py`` (imported lazily,
so that the other verbs do not pay for loading gRPC); the options are
``serve_options``'s, shared with ``python -m causal_oracle.server``."""

from __future__ import annotations

import argparse

from causal_oracle.serve_options import add_arguments


def cmd_serve(args: argparse.Namespace) -> int:
    from causal_oracle import server

    return server.run(args)


def add_cli_command(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("serve", help="run the gRPC service (until SIGTERM / Ctrl-C)")
    add_arguments(p)
    p.set_defaults(func=cmd_serve)
