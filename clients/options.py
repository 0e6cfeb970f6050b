"""Command-line options every computing verb shares, declared once.

``server_options`` adds ``--server`` and its TLS flags, ``limit_options`` the
in-process limits (time budget, text size, statements; ``limits_of`` reads them back),
``profile_option`` the semantics profile; ``client`` opens the gRPC client the server
options describe.  A limit may be given before or after the verb.  Verbs take these
instead of declaring their own, so every verb spells an option the same way.

The verbs on one question (``verify``, ``explain``, ``answer``, ``grade``) share one
grammar, ``question_options``: ``--prompt TEXT`` for any family (detected from the
text; ``--task`` forces one), ``--premise``/``--hypothesis`` for a Corr2Cause item, and
``--json``.  Old spellings stay as ``deprecated`` aliases that say so on stderr
(``--input`` for ``--prompt``, ``--answer`` for ``--reply``, ``--format json`` for
``--json``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from causal_oracle.clients.arg_types import positive
from causal_oracle.clients.columns import ROLES
from causal_oracle.entry import DEFAULT_BUDGET_S, PROFILES, REGISTRY, InputError, Limits, join_input
from causal_oracle.entry.limits import IN_PROCESS_STATEMENTS, IN_PROCESS_TEXT_BYTES


def server_options(p: argparse.ArgumentParser) -> None:
    """``--server HOST:PORT`` and ``--server-ca/--server-cert/--server-key``."""
    p.add_argument("--server", metavar="HOST:PORT",
                   help="ask a running `causal-oracle serve` instead of computing in-process")
    p.add_argument("--server-ca", metavar="PEM", help="use TLS, trusting this CA (or 'system')")
    p.add_argument("--server-cert", metavar="PEM", help="client certificate (mutual TLS)")
    p.add_argument("--server-key", metavar="PEM", help="client private key (mutual TLS)")
    p.add_argument("--server-token-file", metavar="FILE",
                   help="the shared secret of a server started with --auth-token-file "
                        "(sent as 'authorization: Bearer <token>')")


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


COLUMN_ROLES = ROLES


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


def deprecation(old: str, new: str) -> None:
    """The one-line notice an old spelling prints on stderr."""
    print(f"causal-oracle: {old} is deprecated; use {new}", file=sys.stderr)


class Deprecated(argparse.Action):
    """An old option spelling: stores like the new one and says so on stderr."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str,
                 **kwargs: Any) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        deprecation(option_string or "/".join(self.option_strings), self.new)
        setattr(namespace, self.dest, values)


def question_options(p: argparse.ArgumentParser) -> None:
    """``--prompt`` (any family) or ``--premise``/``--hypothesis`` (Corr2Cause),
    ``--task``, ``--json``; ``--input`` stays as a deprecated ``--prompt``."""
    p.add_argument("--prompt", help="the question, as the benchmark writes it, of any family "
                   "(detected from the text; \\n is read as a newline)")
    p.add_argument("--input", dest="input_text", action=Deprecated, new="--prompt",
                   help=argparse.SUPPRESS)
    p.add_argument("--premise", help="a Corr2Cause premise (with --hypothesis)")
    p.add_argument("--hypothesis", help="a Corr2Cause hypothesis (with --premise)")
    p.add_argument("--task", metavar="TASK",
                   help=f"family or task ({', '.join(REGISTRY.tasks())}; default: detected "
                        f"from the text)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def question_of(args: argparse.Namespace) -> str:
    """The question text the options give (``\\n`` read as a newline); ``InputError``
    when none or both forms are given."""
    pair = args.premise is not None or args.hypothesis is not None
    given = [t for t in (args.prompt, getattr(args, "input_text", None)) if t is not None]
    if len(given) > 1 or (given and pair):
        raise InputError("give one of --prompt or --premise/--hypothesis, not both")
    if given:
        return str(given[0]).replace("\\n", "\n")
    if args.premise is None or args.hypothesis is None:
        raise InputError("give --prompt TEXT (any benchmark's question), or --premise and "
                         "--hypothesis (a Corr2Cause item)")
    return join_input(args.premise.strip(), args.hypothesis.strip())


def client(args: argparse.Namespace) -> Any:
    """The ``OracleClient`` of ``args.server`` with its TLS files read."""
    from causal_oracle.auth import read_token
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
    token = None if args.server_token_file is None else read_token(args.server_token_file,
                                                                     "--server-token-file")
    return OracleClient(args.server, tls=args.server_ca is not None,
                        tls_root=read("--server-ca", args.server_ca),
                        tls_client_cert=read("--server-cert", args.server_cert),
                        tls_client_key=read("--server-key", args.server_key), token=token)


__all__ = ["COLUMN_ROLES", "Deprecated", "client", "column_options", "columns_of",
           "deprecation", "limit_options", "limits_of", "profile_option", "question_of",
           "question_options", "server_options"]
