"""``causal-oracle check-reasoning``: every causal claim of a reply checked, not only its answer.

    causal-oracle check-reasoning --prompt TEXT --reply TEXT [--json]
    causal-oracle check-reasoning --prompt TEXT --reply-file REPLY.txt

Prints one line per claim the reply makes about the question's variables — its
characters, its words, its verdict (true, FALSE, undecidable) and why (a false claim's
witness) — then the contradictions, the counts, the score (the share of checkable
claims that are true) and the final answer's grade; ``--json`` prints the
``ReasoningResult`` as one object (``entry.reasoning``).  The question is read as for
``grade`` (``--prompt`` of any family, or ``--premise``/``--hypothesis``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from causal_oracle.clients.exits import EXIT_OK
from causal_oracle.clients.options import (
    limit_options,
    profile_option,
    question_of,
    question_options,
)
from causal_oracle.entry import InputError, default, profile_of
from causal_oracle.entry.reasoning import ReasoningResult, check_reasoning

_SHOWN = {"true": "true", "false": "FALSE", "not_decidable": "undecidable"}


def _reply(args: argparse.Namespace) -> str:
    if (args.reply is None) == (args.reply_file is None):
        raise InputError("give one of --reply TEXT or --reply-file FILE")
    if args.reply is not None:
        return str(args.reply).replace("\\n", "\n")
    try:
        return Path(args.reply_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read --reply-file {args.reply_file}: {error}") from None


def render(result: ReasoningResult) -> str:
    """The result as lines of text."""
    lines = []
    if not result.supported:
        lines.append(f"the {result.family} family does not support reasoning checks")
    for i, c in enumerate(result.claims, 1):
        start, end = c.claim.span
        lines.append(f"{i:>3}. [{start}:{end}] {c.text!r}: {_SHOWN[c.verdict.value]} — {c.why}")
    for clash in result.contradictions:
        lines.append(f"contradiction: claims {clash.first + 1} and {clash.second + 1}: "
                     f"{clash.why}")
    counts = ", ".join(f"{n} {_SHOWN[k]}" for k, n in result.to_json()["counts"].items())
    score = "n/a" if result.score is None else f"{result.score:.2f}"
    lines.append(f"claims: {len(result.claims)} ({counts}); score {score}")
    flags = [w for w, on in (("lucky", result.lucky), ("unsupported", result.unsupported)) if on]
    lines.append(f"final answer: {result.final.grade} ({result.final.normalised})"
                 + (f"; {', '.join(flags)}" if flags else ""))
    return "\n".join(lines)


def cmd_check_reasoning(args: argparse.Namespace) -> int:
    result = check_reasoning(default(), question_of(args), _reply(args), args.task,
                             profile=profile_of(args.profile))
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print(render(result))
    return EXIT_OK


def add_cli_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("check-reasoning", help="check every causal claim of a reply's "
                       "reasoning against the certificate")
    question_options(p)
    p.add_argument("--reply", help="the model's reply (\\n is read as a newline)")
    p.add_argument("--reply-file", metavar="FILE", help="read the reply from FILE")
    profile_option(p, compelled=True)
    limit_options(p)
    p.set_defaults(func=cmd_check_reasoning)
