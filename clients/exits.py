"""How a ``causal-oracle`` run ends: its exit code and the one line it prints.

====  =====================================================================
code  meaning
====  =====================================================================
0     success
1     a bug: an exception nobody meant (``--debug`` shows its traceback),
      including a server's own bug (gRPC ``INTERNAL``/``UNKNOWN``)
2     bad input, or an unusable path or server: the line names it and says why
      (also text that is not UTF-8 — an argument's bytes — bound for a UTF-8 output)
3     an ``audit --fail-on`` finding (``EXIT_GATE``)
130   interrupted (Ctrl-C): ``causal-oracle: interrupted``, workers stopped quietly
141   the output's reader went away (``causal-oracle explain … | head -1``): nothing
      printed, as a Unix tool killed by SIGPIPE (128 + 13) ends
====  =====================================================================

The codes are defined here and nowhere else (``EXIT_OK`` … ``EXIT_CLOSED_PIPE``); every
verb returns one of them.

A closed pipe is not an error of ours nor of the input: Python ignores SIGPIPE and
raises ``BrokenPipeError`` instead, so ``closed_pipe()`` does what the Python
documentation recommends (the note on SIGPIPE in the ``signal`` module): point
stdout at ``os.devnull``, so that the flush at exit cannot raise again, and end.
The code is 141 rather than the documentation's 1 (a bug, here) so that a
``set -o pipefail`` script sees what it sees of ``yes | head -1``.

``exit_code(error, server=…, debug=…)`` prints the line for an exception that
ended a verb and returns the code.  ``quiet_pool(ctx, workers)`` is a
``multiprocessing`` pool whose workers ignore SIGINT: Ctrl-C in a terminal
reaches every process of the group, and only the parent should answer it (it
terminates the pool on the way out), not each worker with a traceback.

>>> from causal_oracle.entry import InputError
>>> import contextlib, io, sys
>>> with contextlib.redirect_stderr(io.StringIO()) as err:
...     code = exit_code(InputError("--report x.json is a directory"))
>>> code, err.getvalue()
(2, 'causal-oracle: error: --report x.json is a directory\\n')
>>> with contextlib.redirect_stderr(io.StringIO()) as err:
...     code = exit_code(KeyboardInterrupt())
>>> code, err.getvalue()
(130, 'causal-oracle: interrupted\\n')
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

from causal_oracle.entry import BudgetExceeded, InputError

EXIT_OK, EXIT_BUG, EXIT_BAD_INPUT, EXIT_GATE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CLOSED_PIPE = 141  # 128 + SIGPIPE

#: gRPC status names that mean the server itself failed (its bug, not the input's or
#: the connection's)
SERVER_BUGS = frozenset({"INTERNAL", "UNKNOWN", "DATA_LOSS"})


def exit_code(error: BaseException, *, server: str | None = None, debug: bool = False) -> int:
    """Print the one line for ``error`` on stderr and return the exit code; under
    ``debug`` a bug is raised again (for its traceback)."""
    def say(text: str) -> None:
        print(f"causal-oracle: {text}", file=sys.stderr)

    if isinstance(error, KeyboardInterrupt):
        say("interrupted")
        return EXIT_INTERRUPTED
    if isinstance(error, InputError):
        say(f"error: {error.describe()}")
        return EXIT_BAD_INPUT
    if isinstance(error, BudgetExceeded):
        say(f"error: budget exceeded: {error}")
        return EXIT_BAD_INPUT
    remote = sys.modules.get("causal_oracle.clients.remote")
    if remote is not None and isinstance(error, remote.RemoteError):
        code = getattr(error, "code", None)
        name = getattr(code, "name", None)
        where = "" if server and server in str(error) else f"server {server}: " if server \
            else ""
        if name is not None and name not in SERVER_BUGS:
            say(f"error: {where}{error}")
            return EXIT_BAD_INPUT
        if debug:
            raise error
        say(f"error: {where}{error} (a fault of the server; its log has the details)")
        return EXIT_BUG
    if isinstance(error, UnicodeEncodeError) and "surrogate" in error.reason:
        # bytes that are not UTF-8 (an argument or a row, read with surrogateescape) on
        # their way into an output that must be UTF-8: the input's fault, not ours
        bad = error.object[error.start:error.end][:20]
        say(f"error: the input holds bytes that are not UTF-8 text ({bad!a}), which "
            "cannot be written to the output")
        return EXIT_BAD_INPUT
    if isinstance(error, OSError) and error.filename is not None \
            and not isinstance(error, BrokenPipeError):
        # a path the checks before the work did not foresee: still the path's fault
        say(f"error: {error.filename}: {error.strerror or error}")
        return EXIT_BAD_INPUT
    if debug:
        raise error
    say(f"internal error: {type(error).__name__}: {error} (run with --debug for a "
        "traceback)")
    return EXIT_BUG


def closed_pipe() -> int:
    """The reader of stdout went away: the rest of the output goes to ``os.devnull``
    (the flush at exit must not fail again) and the run ends quietly with 141."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout is no file (a test's capture)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the rest of the process
    return EXIT_CLOSED_PIPE


def version_line() -> str:
    """``causal-oracle X.Y.Z``: the installed distribution's version (``--version``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"causal-oracle {version('causal-oracle')}"
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "causal-oracle (not installed: version unknown)"


def ignore_sigint() -> None:
    """Pool initializer: a worker leaves Ctrl-C to its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def quiet_pool(ctx: Any, workers: int) -> Iterator[Any]:
    """``ctx.Pool(workers)`` whose workers ignore SIGINT (blocked while they start, so a
    Ctrl-C at that moment cannot reach one before it ignores it); terminated on exit."""
    blocking = hasattr(signal, "pthread_sigmask")
    if blocking:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = ctx.Pool(workers, initializer=ignore_sigint)
    finally:
        if blocking:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    with pool:
        yield pool


__all__ = ["EXIT_BAD_INPUT", "EXIT_BUG", "EXIT_CLOSED_PIPE", "EXIT_GATE", "EXIT_INTERRUPTED",
           "EXIT_OK", "closed_pipe", "exit_code", "ignore_sigint", "quiet_pool", "version_line"]
