"""The CLI's path and exit-code contract (issue 20), verb by verb.

Every verb that writes a file, run against every kind of unusable output or input
path (and an unreachable ``--server``), must exit 2 with one message naming the
path or the address, leave its inputs byte-identical and leave no partial or
temporary file behind.  A Ctrl-C exits 130 with one line, leaving nothing
either; a complete run creates missing output folders, whatever the verb.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import DATA

from causal_oracle.clients import cli, outputs

Argv = Callable[[str, str], list[str]]

#: the writing verbs: argv for (input, output)
WRITERS: dict[str, Argv] = {
    "audit --report": lambda i, o: ["audit", i, "--quiet", "--report", o],
    "audit --junit": lambda i, o: ["audit", i, "--quiet", "--junit", o],
    "audit --write-corrected": lambda i, o: ["audit", i, "--quiet", "--write-corrected", o],
    "audit --html": lambda i, o: ["audit", i, "--quiet", "--html", o],
    "eval": lambda i, o: ["eval", "--model", "majority", "--data", i, "--report", o,
                          "--quiet"],
    "generate": lambda i, o: ["generate", "--n", "2", "--out", o, "--compare", i],
    "export lm-eval": lambda i, o: ["export", "lm-eval", o, "--data", i],
}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = cli.main(argv)
    except SystemExit as stop:  # argparse
        code = int(stop.code or 0)
    return code, capsys.readouterr().err


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` (hidden temporaries too) with its bytes."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the input ``n2.jsonl`` (generator layout, 12 rows), an empty
    ``empty.jsonl``, ``columns.jsonl`` whose columns no benchmark reads, a folder
    ``folder`` and a data-less folder ``nodata``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "n2.jsonl").write_bytes((DATA / "n2.jsonl").read_bytes())
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "columns.jsonl").write_text('{"question": "?", "gold": 1}\n' * 3,
                                            encoding="utf-8")
    (tmp_path / "folder").mkdir()
    (tmp_path / "nodata").mkdir()
    (tmp_path / "nodata" / "README.md").write_text("no data here\n", encoding="utf-8")
    return tmp_path


def _refused(work: Path, argv: list[str], named: str, capsys: pytest.CaptureFixture[str],
             ) -> str:
    before = _snapshot(work)
    code, err = _run(argv, capsys)
    assert code == 2, (argv, code, err)
    assert named in err, (argv, err)
    assert "Traceback" not in err and "internal error" not in err, err
    assert _snapshot(work) == before, argv  # inputs intact, nothing partial or temporary
    return err


# ---- outputs --------------------------------------------------------------------------------

OUTPUT_CASES = {
    "the input": ("n2.jsonl", "n2.jsonl"),
    "a directory": ("folder", "folder"),
    "inside a file": ("n2.jsonl/x.json", "n2.jsonl"),
    "empty": ("", None),
    "trailing slash": ("newdir/", "newdir/"),
    "unwritable": ("/proc/self/x", "/proc/self"),
}


@pytest.mark.parametrize("case", OUTPUT_CASES)
@pytest.mark.parametrize("verb", WRITERS)
def test_unusable_output_paths_exit_2(verb: str, case: str, work: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    if verb == "export lm-eval" and case in ("a directory", "trailing slash"):
        pytest.skip("export writes into a folder: DIR or DIR/ is what it wants")
    out, named = OUTPUT_CASES[case]
    option = {"eval": "--report", "generate": "--out", "export lm-eval": "DIR"}.get(
        verb, verb.split()[-1])
    _refused(work, WRITERS[verb]("n2.jsonl", out), named or option, capsys)


def test_export_wants_a_folder(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "notes.txt").write_text("mine\n", encoding="utf-8")
    _refused(work, ["export", "lm-eval", "notes.txt", "--data", "n2.jsonl"],
             "DIR notes.txt exists and is not a folder", capsys)
    (work / "pack").mkdir()
    (work / "pack" / "utils.py").mkdir()
    _refused(work, ["export", "lm-eval", "pack", "--data", "n2.jsonl"],
             "pack/utils.py is a directory", capsys)
    assert cli.main(["export", "lm-eval", "pack2/", "--data", "n2.jsonl"]) == 0
    assert (work / "pack2" / "utils.py").is_file()


@pytest.mark.parametrize("verb", WRITERS)
def test_no_space_left_exits_2(verb: str, work: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    argv = WRITERS[verb]("n2.jsonl", "/dev/full")
    if verb == "generate":  # --compare reads the output back: it must be a regular file
        argv = argv[:argv.index("--compare")]
    err = _refused(work, argv, "/dev/full", capsys)
    if verb.startswith(("audit", "generate")):  # written in place: the device is full
        assert "no space left on device writing /dev/full" in err
    else:  # eval writes files beside its report, export fills a folder: refused at once
        assert "/dev/full is not a regular file" in err or "is not a folder" in err


def test_an_output_inside_an_input_folder_or_twice_is_refused(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = work / "data"
    data.mkdir()
    (data / "train.jsonl").write_bytes((DATA / "n2.jsonl").read_bytes())
    _refused(work, ["audit", "data", "--quiet", "--report", "data/report.json"],
             "inside the input folder data", capsys)
    _refused(work, ["audit", "n2.jsonl", "--quiet", "--report", "r.json", "--html", "r.json"],
             "--report and --html are the same file r.json", capsys)
    _refused(work, ["eval", "--model", "majority", "--data", "n2.jsonl", "--report", "r.md"],
             "the same file r.md", capsys)


# ---- inputs and servers ---------------------------------------------------------------------

#: the verbs with their input in each place they take one; the output is a new file
READERS: dict[str, Argv] = {**WRITERS, "audit --baseline": lambda i, o: [
    "audit", "n2.jsonl", "--quiet", "--baseline", i, "--report", o]}
INPUT_CASES = {"missing": "missing.jsonl", "empty": "empty.jsonl", "no data": "nodata",
               "wrong columns": "columns.jsonl"}


@pytest.mark.parametrize("case", INPUT_CASES)
@pytest.mark.parametrize("verb", ["audit --report", "eval", "generate", "export lm-eval",
                                  "audit --baseline"])
def test_unusable_inputs_exit_2_before_any_output(verb: str, case: str, work: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    given = INPUT_CASES[case]
    out = "pack" if verb == "export lm-eval" else "out/result.json"
    _refused(work, READERS[verb](given, out), given, capsys)


def _free_port() -> int:
    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_server_exits_2_naming_it(work: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    row = json.loads((work / "n2.jsonl").read_text(encoding="utf-8").splitlines()[0])
    address = f"127.0.0.1:{_free_port()}"
    for argv in (["verify", "--premise", row["premise"], "--hypothesis", row["hypothesis"]],
                 ["explain", "--premise", row["premise"], "--hypothesis", row["hypothesis"]],
                 ["answer", "--prompt", "x"],
                 ["grade", "--prompt", "x", "--reply", "y"],
                 ["audit", "n2.jsonl", "--quiet", "--report", "r.json"],
                 ["eval", "--model", "majority", "--data", "n2.jsonl", "--report", "r.json"]):
        err = _refused(work, [*argv, "--server", address], address, capsys)
        assert "cannot reach the server" in err and err.count("\n") == 1, err


def test_corrupt_parquet_and_arrow_inputs_exit_2_naming_the_file(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in (work / "n2.jsonl").read_text().splitlines()]
    table = pa.Table.from_pylist(rows)
    pq.write_table(table, work / "good.parquet")
    data = (work / "good.parquet").read_bytes()
    (work / "bad.parquet").write_bytes(data[:100] + b"\0" * 64 + data[164:])
    (work / "good.parquet").unlink()
    saved = work / "saved"
    saved.mkdir()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    stream = sink.getvalue().to_pybytes()
    (saved / "data-00000-of-00001.arrow").write_bytes(stream[:len(stream) // 2])
    (saved / "state.json").write_text(json.dumps(
        {"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}), encoding="utf-8")
    for given, named in (("bad.parquet", "bad.parquet: not a readable Parquet file"),
                         ("saved", "data-00000-of-00001.arrow: not a readable Arrow file")):
        for verb in ("audit --report", "eval"):
            _refused(work, READERS[verb](given, "out/r.json"), named, capsys)


# ---- complete runs, interrupts, options -----------------------------------------------------

def test_every_writer_creates_missing_folders(work: Path) -> None:
    for verb, argv in WRITERS.items():
        out = f"new/{verb.replace(' ', '_').replace('-', '')}/out.json"
        if verb == "generate":
            argv = lambda i, o: ["generate", "--n", "2", "--out", o]  # noqa: E731
        assert cli.main(argv("n2.jsonl", out)) == 0, verb
        assert (work / out).exists(), verb
    leftovers = [p for p in work.rglob("*") if p.name.endswith(outputs.TEMP_SUFFIX)]
    assert leftovers == []


def test_an_interrupt_while_writing_leaves_the_old_file(
        work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from causal_oracle.clients import generate

    (work / "g.jsonl").write_text("old\n", encoding="utf-8")
    reference = generate.reference()

    def cut(options, service):  # type: ignore[no-untyped-def]
        rows = reference.items(options, service)
        yield next(rows)
        raise KeyboardInterrupt

    monkeypatch.setattr(generate, "reference", lambda: replace(reference, items=cut))
    before = _snapshot(work)
    for out in ("g.jsonl", "sub/dir/g.jsonl"):
        code, err = _run(["generate", "--n", "2", "--out", out], capsys)
        assert code == 130 and err == "causal-oracle: interrupted\n", err
        assert _snapshot(work) == before


def test_an_interrupt_while_writing_a_task_pack_leaves_no_file(
        work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = outputs._Pending.flush

    def flush(self: outputs._Pending) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        real(self)

    monkeypatch.setattr(outputs._Pending, "flush", flush)
    before = _snapshot(work)
    code, err = _run(["export", "lm-eval", "pack", "--data", "n2.jsonl"], capsys)
    assert code == 130 and err == "causal-oracle: interrupted\n"
    assert _snapshot(work) == before


@pytest.mark.parametrize("argv, named", [
    (["audit", "n2.jsonl", "--workers", "-1"], "--workers"),
    (["eval", "--model", "majority", "--data", "n2.jsonl", "--report", "r.json",
      "--batch-size", "0"], "--batch-size"),
    (["eval", "--model", "majority", "--data", "n2.jsonl", "--report", "r.json",
      "--limit", "x"], "--limit"),
    (["generate", "--n", "7", "--out", "g.jsonl", "--classes", "0"], "--classes"),
])
def test_numeric_options_are_checked_when_parsed(argv: list[str], named: str, work: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _refused(work, argv, named, capsys)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"causal-oracle {version('causal-oracle')}\n"


def _sigint_handler(_: int) -> bool:
    import signal

    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_pool_workers_leave_ctrl_c_to_the_parent() -> None:
    import multiprocessing
    import signal

    from causal_oracle.clients.exits import quiet_pool

    before = signal.getsignal(signal.SIGINT)
    with quiet_pool(multiprocessing.get_context("fork"), 2) as pool:
        assert pool.map(_sigint_handler, range(4)) == [True] * 4
    assert signal.getsignal(signal.SIGINT) == before  # the parent still answers Ctrl-C
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
