"""The procedural datasets without their optional packages, in a fresh interpreter.

Each test runs a child ``python -c`` in which importing ``reasoning_gym`` (and, for the
verifiers environment, ``verifiers``) fails, as it does where the ``rl`` extra is not
installed: a ``sys.meta_path`` finder refuses the package and its submodules before
``causal_oracle.environments`` is imported.  The child asserts and prints ``ok``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from causal_oracle.environments import Corr2CauseConfig, Corr2CauseDataset

BLOCK = """
import importlib.abc, sys

class Refuse(importlib.abc.MetaPathFinder):
    def __init__(self, *names):
        self.names = names
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return None

sys.meta_path.insert(0, Refuse({names}))
for loaded in [m for m in sys.modules if m.split(".")[0] in ({names})]:
    del sys.modules[loaded]
"""


def _run(body: str, *blocked: str) -> str:
    names = ", ".join(repr(n) for n in blocked)
    code = BLOCK.replace("{names}", names) + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def test_the_standalone_fallback_works_without_reasoning_gym() -> None:
    out = _run("""
        import math
        try:
            import reasoning_gym  # noqa: F401
        except ImportError:
            pass
        else:
            raise AssertionError("reasoning_gym was not blocked")

        import causal_oracle.environments as envs
        from causal_oracle.environments import (HAVE_REASONING_GYM, Corr2CauseConfig,
                                                Corr2CauseDataset, create, register)
        from causal_oracle.environments.base import ProceduralDataset
        assert HAVE_REASONING_GYM is False
        assert ProceduralDataset.__module__ == "causal_oracle.environments.base"
        assert "causal_corr2cause" in envs.CATALOGUE
        assert register() is False          # nothing to register with

        FLIP = {"Yes": "No", "No": "Yes", "entailment": "contradiction",
                "contradiction": "neutral", "neutral": "entailment"}
        data = Corr2CauseDataset(Corr2CauseConfig(size=6, seed=7, balanced=True))
        made = create("causal_corr2cause", size=6, seed=7, balanced=True)
        items = list(data)
        assert len(data) == len(items) == 6 and list(made) == items
        assert [data[i] for i in range(6)] == items            # indexing = iteration
        assert [e["metadata"]["source_index"] for e in items] == list(range(6))
        assert items != list(create("causal_corr2cause", size=6, seed=8, balanced=True))
        shifted = Corr2CauseDataset(Corr2CauseConfig(size=3, seed=9, balanced=True))[0]
        assert (shifted["question"], shifted["answer"]) == (items[2]["question"],
                                                            items[2]["answer"])  # seed + idx
        for e in items:
            assert data.score_answer(e["answer"], e) == 1.0
            assert data.score_answer(FLIP[e["answer"]], e) == 0.0
            assert data.score_answer("I cannot tell.", e) == 0.0
            assert data.score_answer(None, e) == 0.0
        broken = {**items[0], "metadata": {**items[0]["metadata"], "item": "What is 2 + 2?"}}
        assert math.isnan(data.score_answer("Yes", broken))   # no score, not a silent 0

        three = create("causal_corr2cause", size=4, seed=1, three_class=True)
        for e in three:
            assert e["answer"] in ("entailment", "neutral", "contradiction")
            assert three.score_answer(e["answer"], e) == 1.0
            assert three.score_answer("Yes", e) == 0.0          # a relation word is asked for

        for bad in (-1, -100, 1.5, "0"):
            try:
                data[bad]
            except IndexError:
                pass
            else:
                raise AssertionError(f"data[{bad!r}] did not raise IndexError")
        try:
            create("causal_corr2cause", size=2, seed=0, min_nodez=3)
        except Exception as error:
            assert type(error).__name__ == "InputError" and "min_nodez" in str(error)
        else:
            raise AssertionError("an unknown knob was accepted")
        try:
            create("causal_nonesuch")
        except Exception as error:
            assert "unknown dataset 'causal_nonesuch'; known: " in str(error)
            assert "causal_corr2cause" in str(error)
        else:
            raise AssertionError("an unknown dataset was accepted")
        print("ok")
    """, "reasoning_gym")
    assert out.strip().endswith("ok")


def test_the_verifiers_environment_imports_without_verifiers() -> None:
    out = _run("""
        from causal_oracle.environments.verifiers_env import load_environment
        try:
            load_environment(size=2, eval_size=1)
        except ImportError as error:
            assert "causal-oracle[verifiers]" in str(error), error
        else:
            raise AssertionError("load_environment ran without verifiers")
        print("ok")
    """, "verifiers", "reasoning_gym")
    assert out.strip().endswith("ok")


def test_items_past_the_size_are_drawn_as_reasoning_gym_draws_them() -> None:
    """``size`` bounds iteration, not indexing: Reasoning Gym's composite dataset asks a
    sub-dataset for the composite's index, so item ``idx`` is ``seed + idx`` whatever the
    size (an index of another type is refused)."""
    small = Corr2CauseDataset(Corr2CauseConfig(size=3, seed=0, min_nodes=3, max_nodes=4))
    large = Corr2CauseDataset(Corr2CauseConfig(size=50, seed=0, min_nodes=3, max_nodes=4))
    assert len(list(small)) == 3
    assert small[7] == large[7] and small[2] == large[2]
    for bad in (True, -1, 1.0):
        with pytest.raises(IndexError):
            small[bad]  # type: ignore[index]
