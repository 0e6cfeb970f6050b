"""The documentation site builds (``mkdocs build --strict``), its generated references
come from the code, and the behaviour the pages promise holds.

The command blocks of the pages themselves run in tests/test_readme.py.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from causal_oracle.clients.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import docs_hooks  # noqa: E402  (scripts/ is not a package)


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs and mkdocs-material are not installed (the test extra has them)")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "causal-oracle audit" in cli and "--fail-on" in cli
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "co.verify" in api


def _subcommand_names() -> list[str]:
    return [name for name, _, _ in docs_hooks._subcommands(build_parser())]


def test_the_cli_reference_has_every_subcommand_and_option() -> None:
    page = docs_hooks.cli_reference()
    names = _subcommand_names()
    assert {"verify", "explain", "audit", "serve", "generate", "answer", "grade"} <= set(names)
    for name in names:
        assert f"\n## {name}\n" in page
    for option in ("--report", "--html", "--fail-on", "--premise", "--http-port"):
        assert option in page


def test_the_api_reference_has_every_public_name_with_its_docstring() -> None:
    import causal_oracle

    page = docs_hooks.api_reference()
    for name in causal_oracle.__all__:
        assert f"### co.{name}\n" in page or f"`co.{name}` = " in page
    assert (causal_oracle.verify.__doc__ or "").strip().splitlines()[0] in page


def test_the_hook_replaces_only_its_markers() -> None:
    text = f"# CLI\n\n{docs_hooks.CLI_MARK}\n\nafter\n"
    out = docs_hooks.on_page_markdown(text, None, None, None)
    assert docs_hooks.CLI_MARK not in out and "## verify" in out and out.endswith("after\n")
    assert docs_hooks.on_page_markdown("plain\n", None, None, None) == "plain\n"


# ---------------------------------------------------------------- claims the pages make

def test_output_files_into_a_missing_folder_create_it(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    """getting-started.md and the CLI reference: a missing folder in an output path is
    created (exit 0), for the audit's --report, --html, --junit and --write-corrected."""
    data = ROOT / "examples" / "ie_sample.jsonl"
    deep = tmp_path / "a" / "b"
    status = main(["audit", str(data), "--quiet", "--report", str(deep / "r.json"),
                   "--html", str(tmp_path / "h" / "r.html"),
                   "--junit", str(tmp_path / "j" / "r.xml"),
                   "--write-corrected", str(tmp_path / "c" / "fixed.jsonl")])
    assert status == 0, capsys.readouterr().err
    assert json.loads((deep / "r.json").read_text(encoding="utf-8"))["summary"]["items"] > 0
    assert (tmp_path / "h" / "r.html").read_text(encoding="utf-8").startswith("<!")
    assert (tmp_path / "j" / "r.xml").stat().st_size > 0
    assert (tmp_path / "c" / "fixed.jsonl").stat().st_size > 0


def test_generate_out_into_a_missing_folder_creates_it(tmp_path: Path) -> None:
    out = tmp_path / "new" / "folder" / "n3.jsonl"
    assert main(["generate", "--n", "3", "--out", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 90  # 5 classes x 18


def test_an_output_over_its_input_is_refused(tmp_path: Path) -> None:
    """The same pages: an output is never written over an input (exit 2)."""
    data = tmp_path / "in.jsonl"
    data.write_bytes((ROOT / "examples" / "ie_sample.jsonl").read_bytes())
    assert main(["audit", str(data), "--quiet", "--report", str(data)]) == 2
    assert data.read_bytes() == (ROOT / "examples" / "ie_sample.jsonl").read_bytes()
