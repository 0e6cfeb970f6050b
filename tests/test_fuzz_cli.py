"""The CLI under fuzzing: ``main([...])`` in-process on mutated argument lists and files.

Each input is a command line of one verb (verify, explain, answer, grade, audit, eval,
export lm-eval) built from typed slots — text from the benchmarks' own items (mutated
as ``test_fuzz_contract.mutate`` does), numbers that are no numbers of seconds
(``nan``, ``inf``, ``-1``…), data files whose rows are mutated or whose bytes are not
UTF-8, templates, output paths — and then mutated as a list: tokens dropped,
duplicated, swapped, options added with values of the wrong kind.  The contract: exit
0, 2, 3 (a gate) or 130, never 1, and never a traceback or "internal error" on stderr.

Nothing reaches the network or starts servers: ``serve``, ``--server``, ``--ray`` and
model names other than the baselines are never generated (``HF_HUB_OFFLINE`` is set
anyway), and ``generate`` is left out (its work is sized by its options, not bounded
by ``--budget``).  ``FUZZ_SEED`` and ``FUZZ_INPUTS`` as in ``test_fuzz_contract``.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_fuzz_contract import FUZZ_INPUTS, FUZZ_SEED, PROMPTS, REPLIES, SEEDS, mutate

from causal_oracle.clients import cli
from causal_oracle.clients.cli import main

DATA = Path(__file__).parent / "data"
ALLOWED_EXITS = {0, 2, 3, 130}
MODELS = ("majority", "oracle", "random-uniform", "random-proportional")

#: the values of each kind of slot: good ones and every kind of bad one
VALUES = {
    "seconds": ["2", "0.5", "1e-9", "0", "-1", "nan", "inf", "-inf", "1e400", "x", ""],
    "count": ["1", "2", "3", "0", "-1", "x", "1.5", "", "99999999999999999999"],
    "workers": ["1", "2", "-1", "x", ""],
    "bytes": ["1", "100", "100000", "0", "-5", "nan", "1e3"],
    "profile": ["corr2cause", "loose", "strict", "compelled", "zz", ""],
    "task": ["CP", "BA", "FI", "CI", "IE", "clear", "cladder", "corr2cause", "corr2cause++",
             "CP,IE", "zz", ""],
    "format": ["text", "json", "dot", "xml"],
    "model": list(MODELS),
    "fail_on": ["disagree", "inconsistent,unreadable", "new", "disagree,zz", ""],
    "column": ["premise", "hypothesis", "input", "label", "relation", "id", "zz", ""],
    "inconsistent": ["drop", "flag", "keep"],
    "mode": ["logits", "generate", "zz"],
}
TOP = [("--budget", "seconds"), ("--max-premise-bytes", "bytes"),
       ("--max-statements", "count")]
VERB_OPTIONS = {
    "verify": [("--profile", "profile"), ("--json", None), ("--input", "input")],
    "explain": [("--format", "format"), ("--profile", "profile"), ("--input", "input")],
    "answer": [("--task", "task"), ("--json", None), ("--profile", "profile")],
    "grade": [("--task", "task"), ("--json", None), ("--answer", "reply")],
    "audit": [("--report", "out"), ("--junit", "out"), ("--html", "out"),
              ("--write-corrected", "out"), ("--fail-on", "fail_on"), ("--baseline", "file"),
              ("--profile", "profile"), ("--inconsistent", "inconsistent"),
              ("--workers", "workers"), ("--input-column", "column"),
              ("--label-column", "column"), ("--cladder-models", "file")],
    "eval": [("--task", "task"), ("--limit", "count"), ("--template", "template"),
             ("--mode", "mode"), ("--seed", "count"), ("--batch-size", "count"),
             ("--max-new-tokens", "count"), ("--json", None), ("--fresh", None),
             ("--profile", "profile"), ("--stop", "reply"), ("--answer-words", "reply")],
    "export": [("--data", "file")],
}
DATA_FILES = ["n3.jsonl", "n4.jsonl", "hf_layout_sample.csv", "cibench/items_sample.jsonl",
              "clear/items_subset.jsonl", "cladder/test-generate-det.json",
              "cladder/test-model-meta.json"]


class Slots:
    """Values for slots, files written under ``root`` (one fresh name per use)."""

    def __init__(self, rng: random.Random, root: Path) -> None:
        self.rng, self.root, self.made = rng, root, 0
        self.sources = {name: (DATA / name).read_bytes() for name in DATA_FILES}

    def _path(self, suffix: str) -> Path:
        self.made += 1
        return self.root / f"f{self.made}{suffix}"

    def _file(self) -> str:
        rng = self.rng
        name = rng.choice(DATA_FILES)
        data = self.sources[name]
        if name.endswith(".jsonl") or name.endswith(".csv"):
            lines = data.splitlines(keepends=True)
            start = rng.randrange(1, len(lines))
            head = lines[:1] if name.endswith(".csv") else []
            data = b"".join(head + lines[start:start + rng.randint(1, 4)])
        elif name.endswith("det.json"):  # a JSON array: a few of its rows
            rows = json.loads(data)
            start = rng.randrange(len(rows))
            data = json.dumps(rows[start:start + rng.randint(1, 4)]).encode()
        if rng.randrange(6) == 0:
            data = data[:rng.randrange(len(data) + 1)]
        roll = rng.randrange(8)
        if roll == 0:
            data = mutate(rng, data.decode("utf-8", "replace")).encode("utf-8", "surrogatepass")
        elif roll == 1:
            i = rng.randrange(len(data) + 1)
            data = data[:i] + rng.randbytes(rng.randrange(1, 8)) + data[i:]
        elif roll == 2:
            data = rng.choice([b"", b"\xff\xfe", b"[" * 5000, b'{"a":' * 5000, b"\x00" * 10,
                               b"a,b\n1", b"[]", b"{}", b"null"])
        path = self._path(rng.choice([".jsonl", ".json", ".csv", ".tsv", ""])
                          if roll < 3 else Path(name).suffix)
        path.write_bytes(data)
        return str(path)

    def value(self, kind: str) -> str:
        rng = self.rng
        if kind in VALUES:
            return rng.choice(VALUES[kind])
        texts = {"premise": SEEDS["premise"], "hypothesis": SEEDS["hypothesis"],
                 "input": SEEDS["input"], "prompt": PROMPTS, "reply": REPLIES}.get(kind)
        if texts is not None:  # half of them as the benchmark wrote them
            text = rng.choice(texts)
            return mutate(rng, text) if rng.randrange(2) else text
        if kind == "out":
            return str(self._path("") / rng.choice(["r.json", "r.xml", "r.html", "c.jsonl",
                                                    "c.csv", ""]))
        if kind == "template":
            path = self._path(".txt")
            path.write_bytes(rng.choice([b"{prompt}\nAnswer:", b"{premise} / {hypothesis}",
                                         b"\xff\xfe{prompt}", b"no placeholder", b"{task}",
                                         "{prompt} \u2028 é".encode()]))
            return str(path)
        if kind == "file":
            roll = rng.randrange(8)
            if roll == 0:
                return str(self.root / "missing.jsonl")
            if roll == 1:  # a directory: a datasets folder of one small file, or none
                folder = self._path("")
                folder.mkdir()
                if rng.randrange(2):
                    Path(self._file()).rename(folder / "data.jsonl")
                return str(folder)
            return self._file()
        raise AssertionError(kind)


def command(rng: random.Random, slots: Slots) -> list[str]:
    """One command line: a verb with its slots filled, then mutated as a list."""
    verb = rng.choices(list(VERB_OPTIONS), weights=[20, 10, 20, 20, 12, 2, 2])[0]
    argv: list[str] = []
    for option, kind in TOP:
        if rng.randrange(6) == 0:
            argv += [option, slots.value(kind)]
    if not argv or rng.randrange(2):
        argv += ["--budget", "2"]
    if verb in ("verify", "explain"):
        argv += [verb, "--premise", slots.value("premise"), "--hypothesis",
                 slots.value("hypothesis")]
    elif verb == "answer":
        argv += [verb, "--prompt", slots.value("prompt")]
    elif verb == "grade":
        argv += [verb, "--prompt", slots.value("prompt"), "--answer", slots.value("reply")]
    elif verb == "audit":
        argv += [verb, slots.value("file"), "--quiet"]
    elif verb == "eval":
        argv += [verb, "--model", slots.value("model"), "--data", slots.value("file"),
                 "--report", slots.value("out"), "--quiet"]
    else:
        argv += ["export", "lm-eval", "--data", slots.value("file"), slots.value("out")]
    for _ in range(rng.randrange(3)):
        option, kind = rng.choice(VERB_OPTIONS[verb])
        argv += [option] if kind is None else [option, slots.value(kind)]
    for _ in range(rng.choice([0, 0, 1, 2])):
        op, i = rng.randrange(5), rng.randrange(len(argv))
        if op == 0:
            del argv[i]
        elif op == 1:
            argv.insert(i, argv[i])
        elif op == 2:
            j = rng.randrange(len(argv))
            argv[i], argv[j] = argv[j], argv[i]
        elif op == 3:
            argv[i] = slots.value(rng.choice(list(VALUES)))
        elif not argv[i].startswith("-"):
            argv[i] = mutate(rng, argv[i])
    return _offline(argv)


def _offline(argv: list[str]) -> list[str]:
    """A mutation never names a model to download: ``--model`` keeps a baseline."""
    out = []
    for i, token in enumerate(argv):
        if token.startswith("--model="):
            token = "--model=majority"
        elif i and argv[i - 1] == "--model" and token not in MODELS:
            token = "majority"
        out.append(token)
    return out


def run_cli(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse: exit 2 with its usage line
            code = stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
    return code, err.getvalue()


def fuzz_cli(root: Path, seed: int, inputs: int) -> Counter[str]:
    rng, counts = random.Random(seed), Counter[str]()
    slots = Slots(rng, root)
    for _ in range(inputs):
        argv = command(rng, slots)
        code, err = run_cli(argv)
        counts["inputs"] += 1
        counts[f"exit {code}"] += 1
        assert code in ALLOWED_EXITS, (code, err[-2000:], argv)
        assert "Traceback" not in err and "internal error" not in err, (err[-2000:], argv)
    return counts


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working directory of its own (relative outputs land there), no network, and
    the process's default service restored afterwards (``--budget`` configures it)."""
    from causal_oracle.entry import service

    monkeypatch.chdir(tmp_path)
    # one parser for the whole run (argparse parsers are reusable; building one costs
    # more than most commands it parses)
    monkeypatch.setattr(cli, "build_parser", functools.cache(cli.build_parser))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("CAUSAL_ORACLE_SERVER", raising=False)
    previous = service.DEFAULT
    yield tmp_path
    service.DEFAULT = previous


def test_cli_fuzz_smoke(sandbox: Path) -> None:
    """A few hundred inputs of the same fuzzer, in the default run."""
    counts = fuzz_cli(sandbox, FUZZ_SEED, 300)
    assert counts["exit 0"] and counts["exit 2"]


@pytest.mark.slow
def test_cli_fuzz_seeded(sandbox: Path) -> None:
    """≥ 20,000 command lines: exit 0, 2, 3 or 130 only, and never a traceback."""
    counts = fuzz_cli(sandbox, FUZZ_SEED, FUZZ_INPUTS)
    print(f"\ncli fuzz, seed {FUZZ_SEED}: {json.dumps(dict(counts))}")
    assert counts["inputs"] >= FUZZ_INPUTS
