"""The OpenCompass environment the OpenCompass test runs in, built in one place.

OpenCompass 0.5 pins ``numpy<2``, ``datasets<4``, exact scikit-learn and tree-sitter
versions and needs torch, so it never goes into the project's ``.venv``: it lives in its
own virtual environment (``.venv-opencompass/`` at the checkout's root, or
``$CAUSAL_ORACLE_OPENCOMPASS_VENV``) holding

1. torch from the local CPU wheel (``--no-index --no-deps``: pip sees only its find-links
   wheels, so never a CUDA build from the registry);
2. OpenCompass itself with ``--no-deps``, and then only the packages that importing its
   CLI, its datasets (``opencompass.datasets`` imports every dataset module), its
   inferencers, tasks, runners and summarizers needs — found by importing them in a bare
   environment until nothing was missing — plus torch's own dependencies; this leaves out
   what OpenCompass lists for models and metrics the CaLM path never loads
   (sentence-transformers, opencv, seaborn, accelerate, sacrebleu, …);
3. this checkout, editable, with its core dependencies.

A stamp file in the environment records the pins and a digest of the project's
dependencies; a change rebuilds it.  A build that fails (no network, most often) leaves a
note saying why, which the test shows when it skips.

    python scripts/opencompass_venv.py           build unless the stamp matches
    python scripts/opencompass_venv.py --check   exit 0 if it is built and current
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("CAUSAL_ORACLE_OPENCOMPASS_VENV", ROOT / ".venv-opencompass"))
TORCH = "torch==2.13.0"
OPENCOMPASS = "opencompass==0.5.4"
#: what OpenCompass's CaLM path imports (OpenCompass's own pins kept), torch's own
#: dependencies, and pyarrow below 21 (21 and later need numpy 2)
DEPENDENCIES = (
    "numpy<2", "pyarrow<21", "datasets<4", "transformers", "mmengine-lite==0.11.0rc3",
    "scikit-learn==1.5.0", "scipy", "tree-sitter==0.21.3", "tree_sitter_languages",
    "httpx==0.27.2", "rank_bm25==0.2.2", "evaluate", "jieba", "rouge_chinese", "rouge_score",
    "nltk", "tiktoken", "gradio_client", "timeout_decorator", "openai", "absl-py",
    "jsonlines", "fuzzywuzzy", "h5py", "python-Levenshtein", "tabulate", "prettytable",
    "importlib_metadata", "requests", "tqdm", "packaging",
    "filelock", "typing_extensions", "sympy", "networkx", "jinja2", "fsspec",
)
STAMP = VENV / ".causal-oracle-opencompass"
FAILED = VENV / ".causal-oracle-opencompass-failed"


def stamp_text() -> str:
    """The pins and the project's dependencies this environment was built for."""
    deps = re.search(r"^dependencies = \[(.*?)^\]", (ROOT / "pyproject.toml").read_text(
        encoding="utf-8"), re.S | re.M)
    digest = hashlib.sha256((deps.group(1) if deps else "").encode()).hexdigest()[:16]
    pins = " ".join((TORCH, OPENCOMPASS, *DEPENDENCIES))
    return f"{sys.version_info[:2]} {pins} project-deps {digest}\n"


def python() -> Path:
    return VENV / "bin" / "python"


def is_current() -> bool:
    return STAMP.exists() and STAMP.read_text(encoding="utf-8") == stamp_text()


def failure() -> str | None:
    """Why the last build failed, if it did and nothing was built since."""
    return FAILED.read_text(encoding="utf-8").strip() if FAILED.exists() else None


def _say(message: str) -> None:
    print(f"causal-oracle: {message}", file=sys.stderr, flush=True)


def build(*, cache: bool = True) -> None:
    """Build the environment from scratch (raises ``RuntimeError`` on a failed step)."""
    _say(f"building the OpenCompass environment {VENV} (once; minutes) …")
    if (VENV / "pyvenv.cfg").exists():
        shutil.rmtree(VENV)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(python()), "-W", "ignore:Editable installation:UserWarning", "-m", "pip",
           "install", "--quiet", "--no-warn-conflicts", *(() if cache else ("--no-cache-dir",))]
    steps = (("torch from the local CPU wheel", ["--no-index", "--no-deps", TORCH]),
             ("OpenCompass without its dependencies", ["--no-deps", OPENCOMPASS]),
             ("what its CaLM path imports", list(DEPENDENCIES)),
             ("this checkout (editable)", ["-e", str(ROOT)]))
    for what, args in steps:
        start = time.monotonic()
        _say(f"  installing {what} …")
        done = subprocess.run([*pip, *args], check=False)
        if done.returncode != 0:
            raise RuntimeError(f"installing {what}: pip exited with {done.returncode}")
        _say(f"  … {time.monotonic() - start:.0f} s")
    STAMP.write_text(stamp_text(), encoding="utf-8")


def ensure(*, cache: bool = True) -> str | None:
    """Build unless current; None when ready, else why it could not be built."""
    if is_current():
        return None
    FAILED.unlink(missing_ok=True)
    try:
        build(cache=cache)
    except (subprocess.CalledProcessError, RuntimeError, OSError) as error:
        reason = (f"building the OpenCompass environment at {VENV} failed ({error}); "
                  "it needs network access to the package registry and a local "
                  "torch 2.13.0 wheel")
        VENV.mkdir(parents=True, exist_ok=True)
        FAILED.write_text(reason + "\n", encoding="utf-8")
        _say(reason)
        return reason
    return None


def main(argv: list[str]) -> int:
    if "--check" in argv:
        return 0 if is_current() else 1
    return 0 if ensure(cache="--no-cache-dir" not in argv) is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
