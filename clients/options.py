"""Command-line options every computing verb shares, declared once.

``server_options`` adds ``--server`` and its TLS flags, ``limit_options`` the
in-process limits (time budget, text size, statements; ``limits_of`` reads them back),
``profile_option`` the semantics profile; ``client`` opens the gRPC client the server
options describe.  A limit may be given before or after the verb.  Verbs take these
instead of declaring their own, so every verb spells an option the same way.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from causal_oracle.clients.arg_types import positive
from causal_oracle.entry import DEFAULT_BUDGET_S, PROFILES, InputError, Limits
from causal_oracle.entry.limits import IN_PROCESS_STATEMENTS, IN_PROCESS_TEXT_BYTES


def server_options(p: argparse.ArgumentParser) -> None:
    """``--server HOST:PORT`` and ``--server-ca/--server-cert/--server-key``."""
    p.add_argument("--server", metavar="HOST:PORT",
                   help="ask a running `causal-oracle serve` instead of computing in-process")
    p.add_argument("--server-ca", metavar="PEM", help="use TLS, trusting this CA (or 'system')")
    p.add_argument("--server-cert", metavar="PEM", help="client certificate (mutual TLS)")
    p.add_argument("--server-key", metavar="PEM", help="client private key (mutual TLS)")


def limit_options(p: argparse.ArgumentParser, top: bool = False) -> None:
    """``--budget SECONDS``, ``--max-premise-bytes N``, ``--max-statements N``: the
    in-process service's limits; given before or after the command."""
    default = None if top else argparse.SUPPRESS
    p.add_argument("--budget", type=positive(float), metavar="SECONDS", default=default,
                   help=f"time budget per item, in-process (default {DEFAULT_BUDGET_S:g} s); "
                        f"over it: exit 2")
    p.add_argument("--max-premise-bytes", type=positive(int), metavar="N", default=default,
                   dest="in_process_text_bytes",
                   help=f"largest text field, in bytes (default {IN_PROCESS_TEXT_BYTES:,})")
    p.add_argument("--max-statements", type=positive(int), metavar="N", default=default,
                   dest="in_process_statements",
                   help=f"most statements in a premise (default {IN_PROCESS_STATEMENTS:,})")


def limits_of(args: argparse.Namespace) -> Limits | None:
    """The in-process limits the options ask for (None: the defaults)."""
    changes = {field: value for field, value in (
        ("budget_s", getattr(args, "budget", None)),
        ("text_bytes", getattr(args, "in_process_text_bytes", None)),
        ("statements", getattr(args, "in_process_statements", None))) if value is not None}
    return Limits.in_process(**changes) if changes else None


COLUMN_ROLES = ("premise", "hypothesis", "input", "label", "relation", "id")


def column_options(p: argparse.ArgumentParser) -> None:
    """``--premise-column`` … ``--id-column``: the dataset's names for the roles the
    families read (default: the role's own name, or what the reader auto-detects)."""
    for role in COLUMN_ROLES:
        p.add_argument(f"--{role}-column", metavar="NAME", default=None,
                       help=f"column holding the {role} (default {role!r} or auto-detected)")


def columns_of(args: argparse.Namespace) -> dict[str, str]:
    """The column names the options give, by role."""
    return {role: name for role in COLUMN_ROLES
            if (name := getattr(args, f"{role}_column", None)) is not None}


def profile_option(p: argparse.ArgumentParser, compelled: bool = False) -> None:
    """``--profile``: the semantics profile of Corr2Cause items (``compelled``, the
    Corr2Cause++ reading by the CPDAG's directed edges, where a verb can take it)."""
    choices = (*PROFILES, "compelled") if compelled else PROFILES
    p.add_argument("--profile", choices=choices, default="corr2cause",
                   help="semantics profile of Corr2Cause items (default: corr2cause)"
                        + ("; compelled: the Corr2Cause++ reading" if compelled else ""))


def client(args: argparse.Namespace) -> Any:
    """The ``OracleClient`` of ``args.server`` with its TLS files read."""
    from causal_oracle.clients.remote import OracleClient

    def read(option: str, path: str | None) -> bytes | None:
        if path is None or path == "system":
            return None
        try:
            return Path(path).read_bytes()
        except OSError as error:
            raise InputError(f"{option} {path}: {error.strerror}") from None

    if (args.server_cert is None) != (args.server_key is None):
        raise InputError("mutual TLS needs both --server-cert and --server-key")
    return OracleClient(args.server, tls=args.server_ca is not None,
                        tls_root=read("--server-ca", args.server_ca),
                        tls_client_cert=read("--server-cert", args.server_cert),
                        tls_client_key=read("--server-key", args.server_key))


__all__ = ["COLUMN_ROLES", "client", "column_options", "columns_of", "limit_options", "limits_of",
           "profile_option", "server_options"]
