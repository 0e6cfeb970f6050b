"""The command blocks of the README and of every page under ``docs/``, run as a new user
would: on a fresh copy of the repository.

The repository's tracked files (``git ls-files``, as the working tree has them) are copied
to a temporary ``causal-oracle/`` folder, whose ``.venv`` stands for the one the set-up made
(it links to the environment running this test, with its install stamps, so nothing is
installed), and ``.venv/bin`` is put first on ``PATH`` as the README tells the reader to
do.  The README's set-up block runs first (``./scripts/demo``; ``./scripts/test`` is what
runs this test, so it is not run again), then every other block, each on its own, in that
copy: the README's in order, then each page's.  What a block is:

* a fenced ``sh`` / ``bash`` block: a script; every command must exit 0, or with the status
  that a ``# exit status N`` comment at the end of the command names;
* a fenced block (no language, or ``console``) whose first line starts with ``$ ``: a
  terminal session, run in one shell: each ``$ `` line (with its ``\\`` continuation
  lines) is a command, and the lines up to the next ``$ `` are its output (stdout and
  stderr), compared after masking timings (``0.19 s``, ``2,173 items/s``); ``…`` in the
  shown output stands for any text within a line, and a line that is only ``…`` for any
  number of lines;
* a ``pycon`` block (``>>> ``): a doctest (``...`` elides output), run in the copy;
* a ``python`` block: a script run with the environment's Python.

A block that needs something the suite may not have is preceded by a line the reader sees,
``> **Needs:** CLAUSE; CLAUSE.``, and is run whenever every clause is met here (else it is
skipped with the clause).  The clauses (``NEEDS`` below reads them; an unknown one fails):

* ``the gpu extra``, ``the gpu and ray extras``: their packages import;
* ``the trl package``: it imports;
* ``a CUDA GPU``: ``nvidia-smi`` lists one;
* ``a running server: `causal-oracle serve …` ``: the test starts that command in the copy,
  waits for its ports, runs the block and stops the server (skipped if a port is taken);
* ``runs until stopped``: the block starts a server; the test waits for its ports, then
  stops it with SIGTERM and expects exit status 0;
* ``the slow suite``: a block of tens of seconds, run unless ``-m "not slow"``;
* ``a long benchmark``: minutes; run when ``CAUSAL_ORACLE_DOCS_LONG=1``;
* ``network access`` (a model or package download, a hosted model): run when
  ``CAUSAL_ORACLE_DOCS_NETWORK=1``;
* a path under ``../shared/`` (data kept beside a checkout): run when it exists there.

Other blocks (``text``, layouts) are prose; a guard test fails when one of them holds a
command that would then go untested.  Nothing here reaches the network unless asked to.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
SHELLS = {"sh", "bash", "shell"}
TRANSCRIPTS = {"", "console"}
TIMEOUT_S = 300
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)\s*$")
_NEEDS_LINE = re.compile(r"^>?\s*\*\*Needs:\*\*\s*(.+)$")
_STATUS = re.compile(r"#\s*exit status (\d+)\s*$")
_COMMANDISH = re.compile(r"^\s*(\$ |>>> )?(causal-oracle|python|pip|pytest|lm_eval|curl|"
                         r"\./scripts/|scripts/|\.venv/bin/|source |export |mkdocs )")
# timings: "0.19 s", "(1.44 s)", "2,173 items/s", "0 tokens/s", "12 ms"
_TIMING = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?=\s?(?:items/s|tokens/s|calls/s|ms|s)\b)")

# what each extra of pyproject.toml brings, by the modules its tests import
EXTRA_MODULES = {
    "test": ("pytest", "hypothesis", "selenium", "mkdocs"),
    "gpu": ("torch", "transformers", "accelerate", "matplotlib"),
    "ray": ("ray",),
    "rl": ("starlette", "uvicorn", "httpx", "reasoning_gym"),
    "verifiers": ("verifiers",),
    "harness": ("lm_eval", "inspect_ai", "datasets", "pyarrow"),
    "data": ("pyarrow",),
    "vllm": ("vllm",),
}


# ---------------------------------------------------------------------------- needs

@dataclass(frozen=True)
class Need:
    """One clause of a ``**Needs:**`` line."""

    kind: str     # extras, package, gpu, server, serves, slow, long, network, path
    arg: str      # the extras, the package, the server command, the path
    text: str     # the clause as the reader sees it

    def missing(self) -> str | None:
        """Why it is not met here, or None when it is (``server``: the port is free)."""
        if self.kind == "extras":
            for extra in self.arg.split(","):
                gone = [m for m in EXTRA_MODULES[extra] if importlib.util.find_spec(m) is None]
                if gone:
                    return f"the {extra} extra ({', '.join(gone)} missing)"
        elif self.kind == "package":
            if importlib.util.find_spec(self.arg) is None:
                return f"the {self.arg} package"
        elif self.kind == "gpu":
            smi = shutil.which("nvidia-smi")
            listed = smi and subprocess.run([smi, "-L"], capture_output=True, text=True,
                                            check=False).stdout.strip()
            if not listed:
                return "a CUDA GPU"
        elif self.kind == "server":
            busy = [p for p in ports_of(self.arg) if not port_free(p)]
            if busy:
                return f"port {busy[0]} is in use (the server the block needs would bind it)"
        elif self.kind == "serves":
            busy = [p for p in ports_of(self.arg) if not port_free(p)]
            if busy:
                return f"port {busy[0]} is in use"
        elif self.kind == "long":
            if os.environ.get("CAUSAL_ORACLE_DOCS_LONG") != "1":
                return "a long benchmark (set CAUSAL_ORACLE_DOCS_LONG=1)"
        elif self.kind == "network":
            if os.environ.get("CAUSAL_ORACLE_DOCS_NETWORK") != "1":
                return f"{self.text} (set CAUSAL_ORACLE_DOCS_NETWORK=1)"
        elif self.kind == "path" and not (ROOT / self.arg).exists():
            return f"{self.arg} (not beside this checkout)"
        return None


_NETWORK = ("network access", "a model download", "a hosted model", "a package download",
            "a model endpoint")


def need_of(clause: str) -> Need:
    """Read one clause; an unknown one raises ``ValueError`` (the guard test shows it)."""
    text = clause.strip().rstrip(".").strip()
    plain = text.replace("`", "")
    low = plain.lower()
    if (m := re.fullmatch(r"the (.+?) extras?(?: \(.*\))?", low)):
        names = [n.strip() for n in re.split(r",|\band\b", m.group(1)) if n.strip()]
        unknown = [n for n in names if n not in EXTRA_MODULES]
        if unknown:
            raise ValueError(f"unknown extra {unknown[0]!r} in {text!r}")
        return Need("extras", ",".join(names), text)
    if (m := re.fullmatch(r"the ([\w.]+) package(?: \(.*\))?", low)):
        return Need("package", m.group(1), text)
    if low.startswith("a cuda gpu"):
        return Need("gpu", "", text)
    if low.startswith("a running server:"):
        command = re.search(r"`([^`]+)`", text)
        if not command:
            raise ValueError(f"a running server: give its command in backquotes: {text!r}")
        return Need("server", command.group(1), text)
    if low.startswith("runs until stopped"):
        return Need("serves", "", text)
    if low.startswith("the slow suite"):
        return Need("slow", "", text)
    if low.startswith("a long benchmark"):
        return Need("long", "", text)
    if low.startswith(_NETWORK):
        return Need("network", "", text)
    if (m := re.search(r"(\.\./shared/[\w./-]+)", plain)):
        return Need("path", m.group(1).rstrip("."), text)
    raise ValueError(f"unknown Needs clause {text!r}")


def clauses(line: str) -> list[str]:
    """The clauses of a Needs line: split at ``;`` outside parentheses."""
    out, depth, current = [], 0, []
    for ch in line:
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth == 0:
            out.append("".join(current))
            current = []
        else:
            current.append(ch)
    out.append("".join(current))
    return [c for c in out if c.strip()]


def ports_of(command: str) -> list[int]:
    words = shlex.split(command, comments=True)
    ports = [int(words[i + 1]) for i, w in enumerate(words[:-1])
             if w in ("--port", "--http-port") and words[i + 1].isdigit()]
    return ports or ([50051] if "serve" in words else [])


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _wait_ports(ports: list[int], proc: subprocess.Popen[str], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    for port in ports:
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"the server exited with {proc.returncode}:\n"
                                     f"{proc.stdout.read() if proc.stdout else ''}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise AssertionError(f"the server did not open port {port} in {timeout} s")
            time.sleep(0.2)


# ---------------------------------------------------------------------------- blocks

@dataclass
class Block:
    path: Path                     # the Markdown file
    line: int                      # 1-based line of the opening fence
    lang: str
    text: str
    section: str
    needs: list[Need] = field(default_factory=list)
    kind: str = field(init=False)

    def __post_init__(self) -> None:
        first = next((ln for ln in self.text.splitlines() if ln.strip()), "")
        if self.lang in SHELLS:
            self.kind = "script"
        elif self.lang in TRANSCRIPTS and first.startswith("$ "):
            self.kind = "transcript"
        elif self.lang == "pycon":
            self.kind = "doctest"
        elif self.lang == "python":
            self.kind = "python"
        else:
            self.kind = "prose"

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)} line {self.line}"

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.section.lower()).strip("-")[:32]
        name = self.path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
        return f"{name}:L{self.line}-{slug}"

    def needs_of(self, kind: str) -> list[Need]:
        return [n for n in self.needs if n.kind == kind]


def parse(text: str, path: Path = README) -> list[Block]:
    """The fenced blocks of a Markdown text, each with the ``**Needs:**`` line before it
    (blank lines between are allowed; any other text in between drops it)."""
    blocks: list[Block] = []
    lines = text.splitlines()
    section, needs, i = "top", None, 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line.strip())
        if fence:
            start, body = i, []
            indent = len(line) - len(line.lstrip())
            i += 1
            while i < len(lines) and lines[i].strip() != fence.group(1):
                body.append(lines[i][indent:])
                i += 1
            block = Block(path, start + 1, fence.group(2).lower(), "\n".join(body) + "\n",
                          section)
            if needs:
                try:
                    block.needs = [need_of(c) for c in clauses(needs)]
                except ValueError as error:
                    raise ValueError(f"{path} line {start}: {error}") from None
            blocks.append(block)
            needs = None
        elif line.startswith("#"):
            section, needs = line.lstrip("#").strip(), None
        elif (m := _NEEDS_LINE.match(line.strip())):
            needs = m.group(1)
        elif line.strip():
            needs = None
        i += 1
    return blocks


def _read_all() -> list[Block]:
    out = []
    for path in [README, *PAGES]:
        out.extend(parse(path.read_text(encoding="utf-8"), path))
    return out


BLOCKS = _read_all()


# ---------------------------------------------------------------------------- running

def _commands(text: str, *, transcript: bool) -> list[tuple[str, int, str]]:
    """``(command, expected status, shown output)`` in order.  A script's command is a
    line with its ``\\`` continuation lines; a transcript's starts with ``$ ``."""
    out: list[tuple[str, int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if transcript and not line.startswith("$ "):
            if not out:
                raise AssertionError(f"output before the first command: {line!r}")
            cmd, status, shown = out[-1]
            out[-1] = (cmd, status, shown + line + "\n")
            i += 1
            continue
        cmd = [line[2:] if transcript else line]
        while cmd[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd.append(lines[i])
        i += 1
        joined = "\n".join(cmd)
        if not transcript and (not joined.strip() or joined.lstrip().startswith("#")):
            continue
        status = _STATUS.search(cmd[-1])
        out.append((joined, int(status.group(1)) if status else 0, ""))
    return out


def _session(commands: list[tuple[str, int, str]], *, strict: bool) -> str:
    """One bash script running the commands in order; around each one it prints markers
    with its number and exit status, and it stops at the first unexpected status."""
    parts = ["exec 2>&1"]
    if strict:
        parts.append("set -o pipefail")
    for n, (cmd, status, _) in enumerate(commands):
        if re.match(r"\s*\./scripts/test\b", cmd):
            cmd = ": './scripts/test' runs this test: it is not run again from it"
        parts.append(f"printf '\\036B{n}\\036'")
        parts.append(cmd)
        parts.append(f"__s=$?; printf '\\036E{n} %d\\036' \"$__s\"; "
                     f"[ \"$__s\" -eq {status} ] || exit 97")
    return "\n".join(parts) + "\n"


def _run_session(block: Block, clone: Path, env: dict[str, str]) -> list[tuple[str, int, str,
                                                                               int, str]]:
    commands = _commands(block.text, transcript=block.kind == "transcript")
    assert commands, f"{block.where}: a command block without commands"
    script = _session(commands, strict=block.kind == "script")
    done = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S, check=False)
    results = []
    for n, (cmd, status, shown) in enumerate(commands):
        m = re.search(f"\x1eB{n}\x1e(.*?)\x1eE{n} (\\d+)\x1e", done.stdout, re.S)
        if not m:
            tail = done.stdout.rsplit("\x1e", 1)[-1]
            raise AssertionError(f"{block.where}: `{cmd}` did not finish "
                                 f"(bash status {done.returncode}):\n{tail[-3000:]}")
        results.append((cmd, status, shown, int(m.group(2)), m.group(1)))
        if int(m.group(2)) != status:
            raise AssertionError(f"{block.where}: `{cmd}` exited {m.group(2)}, "
                                 f"the page expects {status}:\n{m.group(1)[-3000:]}")
    return results


def _normalise(text: str) -> list[str]:
    lines = [_TIMING.sub("N", ln.rstrip()) for ln in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _pattern(shown: list[str]) -> re.Pattern[str]:
    parts = []
    for ln in shown:
        if ln.strip() == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in ln.split("…")) + r"\n")
    return re.compile("".join(parts))


def _matches(shown: str, printed: str) -> bool:
    expected = _normalise(shown)
    got = _normalise(printed)
    return _pattern(expected).fullmatch("".join(ln + "\n" for ln in got)) is not None


def _start(command: str, clone: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=clone, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def _stop(proc: subprocess.Popen[str]) -> tuple[int, str]:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    return proc.returncode, out


@pytest.fixture
def servers(clone: Path, env: dict[str, str]) -> Iterator[list[subprocess.Popen[str]]]:
    """Servers a block's ``a running server: `…` `` clauses start; stopped afterwards."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        _stop(proc)


# ---------------------------------------------------------------------------- the copy

def _venv() -> Path:
    if sys.prefix == sys.base_prefix:
        pytest.skip("the doc test needs the project's virtual environment (./scripts/test)")
    return Path(sys.prefix)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = _venv()
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("the doc test copies the tracked files: needs git and a checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    base = tmp_path_factory.mktemp("clone")
    dest = base / "causal-oracle"
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_file():  # a tracked file deleted in the working tree is not copied
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    # .venv as the set-up leaves it: the environment running this test, already installed
    (dest / ".venv").mkdir()
    for entry in venv.iterdir():
        if not entry.name.startswith(".causal-oracle-installed"):
            (dest / ".venv" / entry.name).symlink_to(entry)
    for stamp in ("core", "test", "torch", "browser"):
        (dest / ".venv" / f".causal-oracle-installed-{stamp}").touch()
    # data kept beside the checkout (../shared) is beside the copy too, when there is any
    if (ROOT.parent / "shared").is_dir():
        (base / "shared").symlink_to(ROOT.parent / "shared")
    return dest


@pytest.fixture(scope="module")
def env(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("home")
    out = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "FUZZ_"))}
    out.update(PATH=f"{clone / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8", LC_ALL="C.UTF-8",
               XDG_CACHE_HOME=str(home / "cache"), NO_COLOR="1")
    if os.environ.get("CAUSAL_ORACLE_DOCS_NETWORK") != "1":
        out.update(HF_HOME=str(home / "hf"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
                   TRANSFORMERS_OFFLINE="1")
    return out


@pytest.fixture(scope="module")
def set_up(clone: Path, env: dict[str, str]) -> list[tuple[str, int, str, int, str]]:
    """Runs the README's set-up block; the other blocks start from what it leaves."""
    first = next(b for b in BLOCKS if b.kind == "script" and b.path == README)
    assert "./scripts/demo" in first.text and "./scripts/test" in first.text, \
        "the README's first command block is the two set-up commands"
    return _run_session(first, clone, env)


def _params() -> list:
    out = []
    for block in BLOCKS:
        if block.kind == "prose":
            continue
        marks = []
        if block.needs_of("slow"):
            marks.append(pytest.mark.slow)
        out.append(pytest.param(block, marks=marks, id=block.id))
    return out


@pytest.mark.parametrize("block", _params())
def test_doc_block(block: Block, clone: Path, env: dict[str, str], set_up: list,
                   servers: list[subprocess.Popen[str]]) -> None:
    if block.kind == "script" and "./scripts/demo" in block.text and block.path == README:
        return  # the set-up block: run by the fixture, which would have failed
    missing = [why for need in block.needs if (why := need.missing())]
    if missing:
        pytest.skip(f"{block.where} needs {'; '.join(missing)}")
    for need in block.needs_of("server"):
        proc = _start(need.arg, clone, env)
        servers.append(proc)
        _wait_ports(ports_of(need.arg), proc)
    if block.needs_of("serves"):
        _run_server_block(block, clone, env)
    elif block.kind in ("script", "transcript"):
        for cmd, _, shown, _, printed in _run_session(block, clone, env):
            if shown.strip():
                assert _matches(shown, printed), (
                    f"{block.where}: `{cmd}` printed\n{printed}\nthe page shows\n{shown}")
    elif block.kind == "doctest":
        path = clone / "out" / f"doctest_{block.id.replace(':', '_')}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_text(block.text, encoding="utf-8")
        done = subprocess.run(["python", "-m", "doctest", "-o", "ELLIPSIS", str(path)],
                              cwd=clone, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)
        assert done.returncode == 0, f"{block.where}:\n{done.stdout}{done.stderr}"
    else:
        done = subprocess.run(["python", "-"], input=block.text, cwd=clone, env=env,
                              capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
        assert done.returncode == 0, f"{block.where}:\n{done.stdout}{done.stderr}"


def _run_server_block(block: Block, clone: Path, env: dict[str, str]) -> None:
    """A block that starts a server (one command): it must come up on its ports and stop
    cleanly (exit 0) on SIGTERM, as on Ctrl-C."""
    commands = _commands(block.text, transcript=block.kind == "transcript")
    assert len(commands) == 1, f"{block.where}: a server block holds one command"
    command = commands[0][0]
    proc = _start(command, clone, env)
    try:
        _wait_ports(ports_of(command), proc)
        seen = _wait_line(proc, "causal-oracle: serving")  # printed once it handles signals
        proc.send_signal(signal.SIGTERM)  # the server alone: it stops its workers itself
    finally:
        status, out = _stop(proc)
    assert status == 0, f"{block.where}: `{command}` exited {status} when stopped:\n{seen}{out}"


def _wait_line(proc: subprocess.Popen[str], text: str, timeout: float = 90) -> str:
    """The server's output up to the first line holding ``text``."""
    import selectors

    seen: list[str] = []
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        assert proc.stdout is not None
        sel.register(proc.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline and proc.poll() is None:
            if sel.select(timeout=1):
                line = proc.stdout.readline()
                seen.append(line)
                if text in line:
                    break
    return "".join(seen)


# ---------------------------------------------------------------------------- guards

def test_every_command_is_in_a_block_that_runs_or_says_what_it_needs() -> None:
    """A command in a prose block (``text``, an indented block, a layout) would never run:
    it must be in a runnable block, which runs or says (visibly) what it needs."""
    stray = [f"{b.where}: {ln.strip()}" for b in BLOCKS if b.kind == "prose"
             for ln in b.text.splitlines() if _COMMANDISH.match(ln)]
    indented = []
    for path in [README, *PAGES]:
        lines = path.read_text(encoding="utf-8").splitlines()
        inside = False
        for n, ln in enumerate(lines):
            if _FENCE.match(ln.strip()):
                inside = not inside
            elif not inside and ln.startswith("    ") and _COMMANDISH.match(ln):
                indented.append(f"{path.relative_to(ROOT)} line {n + 1}: {ln.strip()}")
    assert not stray and not indented, (
        f"commands outside the runnable blocks (fence them as sh): {stray + indented}")


def test_no_block_is_hidden_behind_an_html_comment() -> None:
    """What a block needs is said in a line the reader sees, not in a comment."""
    hidden = [f"{p.relative_to(ROOT)} line {n + 1}" for p in [README, *PAGES]
              for n, ln in enumerate(p.read_text(encoding="utf-8").splitlines())
              if re.match(r"\s*<!--\s*(not run|slow)", ln)]
    assert not hidden, f"HTML-comment marks (use a visible **Needs:** line): {hidden}"


def test_every_needs_line_is_read_and_belongs_to_a_block() -> None:
    for path in [README, *PAGES]:
        lines = path.read_text(encoding="utf-8").splitlines()
        for n, ln in enumerate(lines):
            if ln.lstrip().startswith(("> **Needs:**", "**Needs:**")):
                nxt = next((x for x in lines[n + 1:] if x.strip()), "")
                assert _NEEDS_LINE.match(ln.strip()), f"{path} line {n + 1}: {ln!r}"
                assert _FENCE.match(nxt.strip()), (
                    f"{path} line {n + 1}: a Needs line is followed by a block")


def test_a_long_block_names_the_test_that_runs_it_and_it_exists() -> None:
    """A long block that says a test runs it in the slow suite names a real test file, so
    skipping the block here does not leave its command untested."""
    named = [(b, m.group(1)) for b in BLOCKS for n in b.needs if n.kind == "long"
             for m in re.finditer(r"(tests/test_\w+\.py)", n.text)]
    assert named, "no long block names the test that runs it"
    missing = [(str(b.path.relative_to(ROOT)), b.line, t) for b, t in named
               if not (ROOT / t).is_file()]
    assert not missing, f"long blocks naming a test file that does not exist: {missing}"


def test_the_readme_is_a_guide() -> None:
    """The README stays short: reference material lives in docs/."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250)"


def test_the_parser_reads_the_kinds_of_block() -> None:
    sample = ("## A\n\n```sh\nx \\\n  y   # exit status 3\n# a comment\nz\n```\n\n"
              "> **Needs:** a CUDA GPU; the `gpu` and `ray` extras.\n\n```sh\ngpu\n```\n\n"
              "> **Needs:** the slow suite (about 40 s).\n"
              "```\n$ a\none\n…\n$ b\n```\n\n```pycon\n>>> 1\n1\n```\n"
              "> **Needs:** a running server: `causal-oracle serve --port 50052`.\n"
              "```python\nx = 1\n```\n")
    script, gpu, session, doc, py = parse(sample)
    assert (script.kind, script.section, script.needs) == ("script", "A", [])
    assert _commands(script.text, transcript=False) == [
        ("x \\\n  y   # exit status 3", 3, ""), ("z", 0, "")]
    assert [(n.kind, n.arg) for n in gpu.needs] == [("gpu", ""), ("extras", "gpu,ray")]
    assert session.kind == "transcript" and session.needs_of("slow")
    assert _commands(session.text, transcript=True) == [("a", 0, "one\n…\n"), ("b", 0, "")]
    assert doc.kind == "doctest"
    assert py.needs_of("server")[0].arg == "causal-oracle serve --port 50052"
    assert ports_of(py.needs[0].arg) == [50052]
    assert ports_of("causal-oracle serve --http-port 8000 --port 50051") == [8000, 50051]
    with pytest.raises(ValueError, match="unknown Needs clause"):
        need_of("a friendly wizard")
    with pytest.raises(ValueError, match="unknown extra"):
        need_of("the `wizard` extra")


def test_output_comparison_masks_timings_and_reads_ellipses() -> None:
    assert _matches("done: 2,173 items/s (0.19 s)\n", "done: 40,026.8 items/s (1.2 s)\n")
    assert not _matches("408 items\n", "409 items\n")
    assert _matches("a\n…\nz\n", "a\nb\nc\nz\n") and _matches("a\n…\nz\n", "a\nz\n")
    assert _matches("table out/r.md…, results\n", "table out/r.md, chart r.png, results\n")
    assert not _matches("a\nz\n", "a\nb\nz\n")
