"""A family's own files (``Family.resources``): declared by the family, offered by the CLI.

CLadder's question files name their models by id; the backgrounds are in a separate
model file.  The family declares it (``Resource("cladder-models", …)``); the CLI offers
every declared resource as an option of ``audit`` and hands the path to the family that
declared it, so the CLI names no family.  A family of the tests' own shows that a new
family's file needs no change outside its module.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from causal_oracle.clients import cli
from causal_oracle.entry import REGISTRY, InputError, Registry, Resource

HERE = Path(__file__).resolve().parent
MODELS = HERE / "data" / "cladder" / "test-model-meta.json"
sys.path.insert(0, str(HERE))

_TOY_REGISTERED = "toy" in REGISTRY
import toy_family  # noqa: E402  (tests/ is on the path above)

if not _TOY_REGISTERED:  # importing it registers it; the tests here register their own
    REGISTRY.unregister(toy_family.FAMILY.name)


class HintedToy(toy_family.Toy):
    """The toy family with a file of its own beside its rows."""

    name = "hinted-toy"
    resources = (Resource("hinted-toy-hints", "HINTS.json", "the toy's hints file"),)
    loaded: ClassVar[list[str]] = []

    def load_resource(self, option: str, path: str | Path) -> int:
        if option != "hinted-toy-hints":
            return super().load_resource(option, path)
        hints = json.loads(Path(path).read_text(encoding="utf-8"))
        HintedToy.loaded.append(str(path))
        return len(hints)


@pytest.fixture()
def hinted() -> Iterator[HintedToy]:
    family = HintedToy()
    REGISTRY.register(family)
    HintedToy.loaded.clear()
    yield family
    REGISTRY.unregister(family.name)


def _audit_options() -> dict[str, Any]:
    parser = cli.build_parser()
    args = parser.parse_args(["audit", "rows.jsonl"])
    return vars(args)


def test_cladder_declares_its_model_file_and_the_cli_offers_it() -> None:
    assert "cladder-models" in [r.option for r in REGISTRY.resources()]
    assert "cladder_models" in _audit_options()
    models = json.loads(MODELS.read_text(encoding="utf-8"))
    assert REGISTRY.load_resource("cladder-models", MODELS) == len(models)


def test_a_new_familys_file_reaches_it_through_the_cli(hinted: HintedToy,
                                                       tmp_path: Path) -> None:
    assert "hinted_toy_hints" in _audit_options()
    hints = tmp_path / "hints.json"
    hints.write_text(json.dumps(["a", "b"]), encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"toy": "Toy: is 3 + 5 even?", "even": "yes"}) + "\n",
                    encoding="utf-8")
    report = tmp_path / "report.json"
    code = cli.main(["audit", str(rows), "--hinted-toy-hints", str(hints), "--quiet",
                     "--report", str(report)])
    assert code == 0
    assert HintedToy.loaded == [str(hints)]
    assert json.loads(report.read_text(encoding="utf-8"))["summary"]["items"] == 1


def test_the_option_is_absent_once_its_family_is_gone(hinted: HintedToy) -> None:
    REGISTRY.unregister(hinted.name)
    assert "hinted_toy_hints" not in _audit_options()


def test_an_unreadable_model_file_is_an_input_error_naming_it(tmp_path: Path) -> None:
    broken = tmp_path / "models.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="model file"):
        REGISTRY.load_resource("cladder-models", broken)
    code = cli.main(["audit", str(MODELS), "--cladder-models", str(broken), "--quiet"])
    assert code == 2


def test_a_resource_no_family_declares_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(InputError, match="--cladder-models"):
        REGISTRY.load_resource("nobody-reads-this", MODELS)


def test_a_family_without_resources_reads_none() -> None:
    with pytest.raises(InputError, match="reads no --anything"):
        toy_family.FAMILY.load_resource("anything", MODELS)


def test_a_resource_option_is_lower_case_words_joined_by_hyphens() -> None:
    for bad in ("Cladder-models", "cladder_models", "", "cladder--models", "--x"):
        with pytest.raises(TypeError):
            Resource(bad, "X", "help")
    assert Resource("cladder-models", "X", "help").dest == "cladder_models"


def test_two_families_cannot_read_the_same_option() -> None:
    registry = Registry()
    registry.register(HintedToy())

    class Copy(HintedToy):
        name = "copy-toy"

    with pytest.raises(TypeError, match="hinted-toy-hints"):
        registry.register(Copy())
    registry.register(HintedToy())  # the same family again replaces itself
    assert [r.option for r in registry.resources()] == ["hinted-toy-hints"]
