"""The verifiers v1 taskset, driven through verifiers 0.4's own rollout path.

The project's venv holds verifiers 0.2 (the v0 API, ``tests/test_verifiers_env.py``);
0.4 cannot sit beside it (0.2 needs openai >= 3 and mcp < 2, 0.4 openai < 3 and mcp
2.0).  So this test builds, once, a small venv of its own under ``.cache/`` (git-ignored)
that sees the project's venv (a ``.pth`` adds its site-packages after its own) and holds
only what verifiers 0.4 adds or needs in another version (pip resolves against what is
there: verifiers, openai 2, mcp 2, a few small packages; about 4 s from the registry).  A
stamp records what it was built for (the release, the project's site-packages, Python),
so it is rebuilt only when that changes.  Without the registry the test skips, saying so.

This file is also the driver run inside that venv (``python tests/test_verifiers_v1.py
--drive``): it loads the taskset by its id through verifiers' own loaders (the taskset
class, its config type, its bundled harness), and for each reply closes a verifiers
``Rollout`` — the framework's finalize and scoring, under the task's own scoring
deadline and verifiers' ``TaskError`` boundary — on a trace whose assistant message is
the reply (a real ``open()`` would provision a runtime and run the model; here the
reply is given).  It prints what verifiers recorded as JSON; the tests below assert it:
gold 1, flipped 0, unreadable 0, an item the verifier cannot finish a failed rollout
with its error and no reward (never 0), never an exception.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
V1_RELEASE = "verifiers==0.4.0"  # the release this taskset is tested against
VENV = ROOT / ".cache" / "verifiers-v1"
ENV_PACKAGE = ROOT / "environments" / "causal_oracle_env"
TASKSET_ID = "causal-oracle-env"


def _bin(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _stamp() -> str:
    return json.dumps({"release": V1_RELEASE, "site": sysconfig.get_paths()["purelib"],
                       "python": sys.version.split()[0]}, sort_keys=True)


def build_venv(venv: Path = VENV) -> Path:
    """The overlay venv's interpreter, built when its stamp is missing or stale."""
    stamp = venv / ".causal-oracle-stamp"
    if stamp.is_file() and stamp.read_text() == _stamp() and _bin(venv).exists():
        return _bin(venv)
    import shutil
    import venv as venv_module

    shutil.rmtree(venv, ignore_errors=True)
    venv_module.EnvBuilder(with_pip=False).create(venv)
    site = subprocess.run([str(_bin(venv)), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    project = sysconfig.get_paths()["purelib"]
    # a .pth line that starts with "import" runs: addsitedir also reads the project
    # venv's own .pth files (its editable install of causal_oracle)
    Path(site, "_causal_oracle_project.pth").write_text(
        f"import site; site.addsitedir({project!r})\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(_bin(venv)),
                           "install", "--quiet", "--disable-pip-version-check", V1_RELEASE],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        shutil.rmtree(venv, ignore_errors=True)
        pytest.skip(f"could not install {V1_RELEASE} into {venv}: "
                    f"{(done.stderr or done.stdout)[-300:]}")
    stamp.write_text(_stamp())
    return _bin(venv)


@pytest.fixture(scope="module")
def driven() -> dict[str, Any]:
    start = time.perf_counter()
    python = build_venv()
    built = time.perf_counter() - start
    done = subprocess.run([str(python), __file__, "--drive"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["seconds"] = {"venv": round(built, 1), "drive": round(time.perf_counter() - start
                                                               - built, 1)}
    print("verifiers v1:", out["seconds"])
    return out


def test_loaded_by_id_through_verifiers_own_loaders(driven: dict[str, Any]) -> None:
    assert driven["version"] == V1_RELEASE.split("==")[1]
    assert driven["taskset"] == "CertifiedTaskset" and driven["task"] == "CertifiedTask"
    assert driven["harness"] == "NullHarnessConfig"  # the bundled tool-less chat harness
    assert driven["tasks"] == 6 and driven["taken"] == 2  # size, and a verifiers view
    assert len(driven["direct"]) == 3 and set(driven["direct"]) <= {"Yes", "No"}
    # the task's own timeouts: verifiers' scoring deadline = the reward's cap + 1 s
    assert driven["scoring_deadline"] == 3.5


@pytest.mark.parametrize(("case", "reward"), [
    ("gold", 1.0), ("gold after thinking", 1.0), ("flipped", 0.0), ("unreadable", 0.0)])
def test_scored_rollouts(driven: dict[str, Any], case: str, reward: float) -> None:
    got = driven["rollouts"][case]
    assert got["ok"] and got["errors"] == [] and got["stop"] is None
    assert got["rewards"]["certified_answer"] == {"score": reward, "weight": 1.0}
    assert got["reward"] == reward


def test_an_unscorable_rollout_is_dropped_with_its_error(driven: dict[str, Any]) -> None:
    for case in ("not a question", "past its cap"):
        got = driven["rollouts"][case]
        assert not got["ok"] and got["stop"] == "task_error", got
        assert got["rewards"]["certified_answer"] is None  # no reward, not 0
        [error] = got["errors"]
        assert error["type"] == "TaskError" and "Unscored" in error["message"]
    assert "no benchmark recognises this text" in \
        driven["rollouts"]["not a question"]["errors"][0]["message"]
    assert "past its cap of 0.2 s" in driven["rollouts"]["past its cap"]["errors"][0]["message"]


def test_the_format_term_is_weighted_by_config(driven: dict[str, Any]) -> None:
    got = driven["rollouts"]["formatted"]
    assert got["rewards"]["answer_format"] == {"score": 1.0, "weight": 0.25}
    assert got["reward"] == 1.25


def test_the_reasoning_term_is_weighted_by_config(driven: dict[str, Any]) -> None:
    got = driven["rollouts"]["reasoned"]  # one true claim of two, whichever the item
    assert got["rewards"]["causal_reasoning"] == {"score": 0.5, "weight": 0.5}
    assert got["reward"] == 1.25
    plain = driven["rollouts"]["reasoned, default"]
    assert "causal_reasoning" not in plain["rewards"] and plain["reward"] == 1.0


def test_bad_configuration_is_named(driven: dict[str, Any]) -> None:
    assert "unknown dataset 'causal_nonesuch'" in driven["bad"]["dataset"]
    assert "min_nodez" in driven["bad"]["knob"]
    assert "format_pattern" in driven["bad"]["pattern"]


def test_the_package_is_laid_out_for_prime() -> None:
    """``prime env install causal-oracle-env`` looks for ``environments/causal_oracle_env``
    holding ``pyproject.toml`` (name, version, description, tags), the module of that
    name and a README."""
    import tomllib

    project = tomllib.loads((ENV_PACKAGE / "pyproject.toml").read_text())["project"]
    assert project["name"] == TASKSET_ID and project["version"] and project["tags"]
    assert (ENV_PACKAGE / "causal_oracle_env.py").is_file()
    assert (ENV_PACKAGE / "README.md").is_file()


def test_the_v1_module_needs_verifiers_04_here() -> None:
    vf = pytest.importorskip("verifiers")
    if getattr(vf, "SingleTurnEnv", None) is None:
        pytest.skip("this venv has verifiers v1")
    with pytest.raises(ImportError, match=r"verifiers>=0\.4"):
        import causal_oracle.environments.verifiers_taskset  # noqa: F401


# ---- the driver, run inside the overlay venv ------------------------------------------------

def _drive() -> dict[str, Any]:  # pragma: no cover - runs in the subprocess
    import asyncio

    sys.path.insert(0, str(ENV_PACKAGE))
    import verifiers
    import verifiers.v1 as vf
    from pydantic import ValidationError
    from verifiers.v1.agent import resolve_rollout_timeouts
    from verifiers.v1.configs.agent import TimeoutConfig
    from verifiers.v1.graph import MessageNode
    from verifiers.v1.rollout import Rollout
    from verifiers.v1.session import RolloutLimits
    from verifiers.v1.utils.loaders import (
        default_harness_id,
        harness_config_type,
        load_harness,
        load_taskset,
    )

    from causal_oracle.entry import InputError

    def config(**fields: Any) -> Any:
        return vf.taskset_config_type(TASKSET_ID).model_validate({"id": TASKSET_ID, **fields})

    base = {"size": 6, "seed": 3, "scoring_timeout": 2.5,
            "knobs": {"min_nodes": 3, "max_nodes": 4}}
    taskset = load_taskset(config(**base))
    tasks = list(taskset)
    hid = default_harness_id(TASKSET_ID)
    harness_config = harness_config_type(hid).model_validate({"id": hid})
    harness = load_harness(harness_config)

    class Box:  # the runtime a rollout borrows (close() does not stop a borrowed one)
        stopped = False

    async def close(task: Any, reply: str) -> Any:
        rollout = Rollout(task=task, agent_config=vf.AgentConfig(), harness=harness,
                          ctx=vf.ModelContext(model="fake", client=vf.EvalClientConfig()),
                          runtime_config=vf.SubprocessConfig(),
                          timeouts=resolve_rollout_timeouts(TimeoutConfig(), task),
                          limits=RolloutLimits(), runtime=Box())
        rollout.trace.nodes.append(MessageNode(message=vf.AssistantMessage(content=reply),
                                               sampled=True))
        rollout._opened = True  # what open() sets once the harness has run
        trace = await rollout.close()
        return {"ok": trace.ok, "reward": trace.reward, "stop": trace.stop_condition,
                "rewards": {k: None if r is None else {"score": r.score, "weight": r.weight}
                            for k, r in trace.rewards.items()},
                "errors": [{"type": e.type, "message": e.message} for e in trace.errors]}

    flip = {"Yes": "No", "No": "Yes"}
    task = tasks[1]
    gold = task.data.answer
    cases = {
        "gold": (task, f"{gold}."),
        "gold after thinking": (task, f"<think>Yes? No? {flip[gold]}?</think>\n{gold}"),
        "flipped": (task, f"The answer is {flip[gold]}."),
        "unreadable": (task, "I cannot tell from the premise."),
        "not a question": (task.with_data(metadata={**task.data.metadata,
                                                    "item": "What is 2 + 2?"}), "Yes"),
    }
    rollouts = {name: asyncio.run(close(t, reply)) for name, (t, reply) in cases.items()}
    # a solver that takes longer than the task's cap (0.2 s here): stand one in
    from causal_oracle.environments import verifiers_taskset

    graded = verifiers_taskset.grade

    def slow(data: Any, reply: str) -> float:
        time.sleep(1.0)
        return graded(data, reply)

    verifiers_taskset.grade = slow
    rollouts["past its cap"] = asyncio.run(close(task.with_data(cap_s=0.2), gold))
    verifiers_taskset.grade = graded
    formatted = list(load_taskset(config(**base, format_weight=0.25)))[1]
    rollouts["formatted"] = asyncio.run(close(formatted, f"<answer>{gold}</answer>"))
    reasoned = list(load_taskset(config(**base, reasoning_weight=0.5)))[1]
    claim = "<think>A and B are adjacent. A and B are not adjacent.</think>"
    rollouts["reasoned"] = asyncio.run(close(reasoned, f"{claim}\n{gold}"))
    rollouts["reasoned, default"] = asyncio.run(close(task, f"{claim}\n{gold}"))

    bad = {}
    for label, fields in (("dataset", {"dataset": "causal_nonesuch"}),
                          ("knob", {"knobs": {"min_nodez": 3}}),
                          ("pattern", {"format_pattern": "<answer>("})):
        try:
            load_taskset(config(**fields))
            bad[label] = "accepted"
        except (ValidationError, InputError) as error:
            bad[label] = str(error)
    from causal_oracle.environments.verifiers_taskset import load_taskset as ours

    return {"version": verifiers.__version__, "taskset": type(taskset).__name__,
            "direct": [t.data.answer for t in ours(dataset="causal_corr2cause", size=3)],
            "task": type(task).__name__, "harness": type(harness_config).__name__,
            "tasks": len(tasks), "taken": len(list(taskset.take(2))),
            "scoring_deadline": resolve_rollout_timeouts(TimeoutConfig(), task).scoring,
            "rollouts": rollouts, "bad": bad}


if __name__ == "__main__" and sys.argv[1:] == ["--drive"]:
    print(json.dumps(_drive()))
