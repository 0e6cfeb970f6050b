"""MkDocs hooks (``hooks:`` in mkdocs.yml): the reference pages generated from the code.

A page line that is exactly one of these markers is replaced when the site is built:

* ``<!-- generated: cli -->`` — every ``causal-oracle`` subcommand's ``--help``, from the
  argument parser itself (``causal_oracle.clients.cli.build_parser``), so the CLI reference
  cannot drift from the program;
* ``<!-- generated: api -->`` — the signature and docstring of every name in
  ``causal_oracle.__all__``, the library API.

The functions are plain, so the doc test calls them directly too (tests/test_docs.py).
"""

from __future__ import annotations

import argparse
import inspect
import os
from typing import Any

CLI_MARK = "<!-- generated: cli -->"
API_MARK = "<!-- generated: api -->"
WIDTH = "100"


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str,
                                                                argparse.ArgumentParser]]:
    out = []
    for action in parser._actions:  # argparse has no public way to list subparsers
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                out.append((name, helps.get(name, ""), sub))
                out.extend((f"{name} {n}", h, p) for n, h, p in _subcommands(sub))
    return out


def cli_reference() -> str:
    """Markdown: the top-level help, then one section per subcommand with its help."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH  # argparse wraps to the terminal's width: fix it
    try:
        from causal_oracle.clients.cli import build_parser

        parser = build_parser()
        parts = ["## causal-oracle", "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, summary, sub in _subcommands(parser):
            parts += [f"## {name}", ""]
            if summary:
                parts += [summary[0].upper() + summary[1:] + ".", ""]
            parts += ["```text", sub.format_help().rstrip(), "```", ""]
        return "\n".join(parts)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def api_reference() -> str:
    """Markdown: each public name's signature and docstring (``causal_oracle.__all__``)."""
    import causal_oracle

    functions, classes = [], []
    for name in causal_oracle.__all__:
        obj = getattr(causal_oracle, name)
        if inspect.isclass(obj):
            classes.append((name, obj))
        elif callable(obj):
            functions.append((name, obj))
    parts = ["## Functions", ""]
    for name, obj in functions:
        parts += _entry(f"co.{name}", f"co.{name}{inspect.signature(obj)}", obj)
    parts += ["## Results and errors", ""]
    for name, obj in classes:
        parts += _entry(f"co.{name}", f"class {name}", obj)
    parts += ["## Constants", ""]
    parts += [f"- `co.{n}` = `{getattr(causal_oracle, n)!r}`" for n in causal_oracle.__all__
              if not callable(getattr(causal_oracle, n))]
    return "\n".join(parts) + "\n"


def _entry(title: str, signature: str, obj: Any) -> list[str]:
    doc = inspect.getdoc(obj) or "(no docstring)"
    return [f"### {title}", "", "```python", signature, "```", "", "```text", doc, "```", ""]


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: put the generated reference where a page has its marker."""
    if CLI_MARK in markdown:
        markdown = markdown.replace(CLI_MARK, cli_reference())
    if API_MARK in markdown:
        markdown = markdown.replace(API_MARK, api_reference())
    return markdown
