"""One CLI grammar for every verb and family (issue 26, item 3).

``verify``, ``explain``, ``answer`` and ``grade`` take ``--prompt`` for a question of any
family and ``--json``; ``explain`` explains every family in words, as JSON and as DOT;
the old spellings still work and say they are deprecated; a named column the file
lacks is an error naming it; ``--server`` that cannot serve a file's rows is an error
unless ``--local-fallback``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import causal_oracle as co
from causal_oracle.clients.cli import main
from causal_oracle.entry import REGISTRY, default, join_input
from causal_oracle.entry.families.cladder import load_models

TESTS = Path(__file__).parent
DATA = TESTS / "data"
EXAMPLES = TESTS.parent / "examples"
P3 = ("Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
      "relations among these 3 variables are as follows: A correlates with C. B correlates "
      "with C. However, A is independent of B.")


def _first(path: Path, **where: str) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if all(row.get(k) == v for k, v in where.items()):
                return dict(row)
    raise AssertionError(f"no row {where} in {path}")


def _prompts() -> dict[str, str]:
    """One question of each family, as the datasets and examples write them."""
    load_models(DATA / "cladder" / "test-model-meta.json")
    easy = json.loads((DATA / "cladder" / "test-generate-easy.json").read_text("utf-8"))
    rows = {
        "cladder": easy[0],
        "clear": _first(DATA / "clear" / "items_subset.jsonl"),
        "cibench": _first(EXAMPLES / "cibench_sample.jsonl", task="CP"),
        "ie": _first(EXAMPLES / "ie_sample.jsonl"),
        "corr2cause++": json.loads((DATA / "corr2causepp" / "sample.json")
                                   .read_text("utf-8"))[0],
        "corr2cause": {"input": join_input(P3, "A directly causes C."), "label": 1},
        "calm": {**_first(DATA / "calm" / "lite_sample" / "CEI-B_0.6-UC_EN.json"),
                 "task": "CEI-B_0.6-UC_EN"},
    }
    out = {}
    for family, row in rows.items():
        item = default().item(row)
        assert item is not None and item.family == family, family
        out[family] = item.prompt
    return out


PROMPTS = _prompts()


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_family_is_here() -> None:
    assert set(PROMPTS) == set(REGISTRY.names())


@pytest.mark.parametrize("family", sorted(PROMPTS))
def test_explain_prompt_prints_the_familys_explanation(
        family: str, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = PROMPTS[family]
    code, out, err = _run(["explain", "--prompt", prompt], capsys)
    assert code == 0, err
    assert out.rstrip("\n") == co.answer(prompt).explanation
    code, out, err = _run(["explain", "--prompt", prompt, "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    answered = co.answer(prompt)
    assert (data["family"], data["task"], data["answer_text"]) == \
        (family, answered.task, answered.answer_text)
    assert data["certificate_checked"] is True and data["explanation"] == answered.explanation
    code, out, err = _run(["explain", "--prompt", prompt, "--dot"], capsys)
    assert code == 0, err
    assert out.startswith("digraph ") and out.rstrip().endswith("}")
    assert out.rstrip("\n") == data["dot"]
    assert co.explain(prompt, format="dot") == data["dot"]


def test_the_cladder_text_of_the_issue_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    prompt = PROMPTS["cladder"]
    assert prompt.startswith("Imagine a self-contained, hypothetical world")
    code, out, err = _run(["explain", "--input", prompt], capsys)  # the old spelling
    assert code == 0, err
    assert "expected one of" not in err and "--input is deprecated; use --prompt" in err
    assert out.rstrip("\n") == co.answer(prompt).explanation


def test_the_dot_marks_what_decides_the_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["explain", "--prompt", PROMPTS["cibench"], "--dot"], capsys)
    assert code == 0 and 'color="red"' in out  # the causal paths found
    tricky = ("A has a causal effect on b.\nQuestion:\nWe want to estimate the causal effect "
              "of thea on theb.\nBased on the information above, please identify all the "
              "causal paths between them.")
    dot = co.explain(tricky, format="dot")
    [[cause, effect]] = co.answer(tricky).answer  # one path, one edge
    assert f'"{cause}" -> "{effect}" [color="red" penwidth=2];' in dot


@pytest.mark.parametrize("family", sorted(PROMPTS))
def test_json_on_every_verb(family: str, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = PROMPTS[family]
    answered = co.answer(prompt)
    for argv in (["verify"], ["explain"], ["answer"],
                 ["grade", "--reply", answered.answer_text or "no"]):
        code, out, err = _run([*argv, "--prompt", prompt, "--json"], capsys)
        assert code == 0, (argv, err)
        data = json.loads(out)
        assert data["task"] == answered.task, argv
    graded = co.grade(prompt, answered.answer_text or "no")
    assert data == graded.to_json()
    assert data["grade"] == graded.grade and data["readable"] is True


def test_verify_prompt_gives_the_certified_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["verify", "--prompt", PROMPTS["ie"]], capsys)
    assert code == 0
    lines = dict(line.split(":", 1) for line in out.splitlines())
    assert lines["family"].strip() == "ie" and lines["answer"].strip() == \
        co.answer(PROMPTS["ie"]).answer_text
    assert lines["checked"].strip() == "certificate re-verified"


def test_old_spellings_work_and_say_so(capsys: pytest.CaptureFixture[str]) -> None:
    item = f"Premise: {P3}\\nHypothesis: C directly causes A."
    code, out, err = _run(["explain", "--input", item, "--format", "json"], capsys)
    assert code == 0
    assert json.loads(out)["relation"] == "contradiction"  # the derivation, as before
    assert "--input is deprecated" in err and "--format json is deprecated; use --json" in err
    code, out, err = _run(["verify", "--input", item, "--json"], capsys)
    assert code == 0 and json.loads(out)["relation"] == "contradiction"
    code, out, err = _run(["grade", "--prompt", PROMPTS["ie"], "--answer", "yes", "--json"],
                          capsys)
    assert code == 0 and "--answer is deprecated; use --reply" in err
    assert json.loads(out)["normalised"] == "yes"
    code, out, err = _run(["explain", "--premise", P3, "--hypothesis", "C directly causes A.",
                           "--dot"], capsys)
    assert code == 0 and out.startswith("digraph cpdag") and err == ""


def test_one_form_of_the_question(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["answer", "--prompt", PROMPTS["ie"], "--premise", P3,
                         "--hypothesis", "A directly causes C."], capsys)
    assert code == 2 and "not both" in err
    code, _, err = _run(["answer"], capsys)
    assert code == 2 and "--prompt" in err
    code, out, _ = _run(["answer", "--premise", P3, "--hypothesis", "A directly causes C.",
                         "--json"], capsys)
    assert code == 0 and json.loads(out)["answer"]["relation"] == "entailment"
    code, _, err = _run(["grade", "--prompt", PROMPTS["ie"]], capsys)
    assert code == 2 and "--reply" in err


# ---- named columns ------------------------------------------------------------------------

def test_a_named_column_the_file_lacks_is_an_error(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"premise": P3, "hypothesis": "A directly causes C.",
                                "label": 1}) + "\n", encoding="utf-8")
    code, _, err = _run(["audit", str(path), "--label-column", "gold_label"], capsys)
    assert code == 2
    assert "--label-column 'gold_label'" in err and "premise, hypothesis, label" in err
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({"premise": P3, "hypothesis": "A directly causes C."}) + "\n",
                    encoding="utf-8")
    code, _, err = _run(["audit", str(bare), "--label-column", "gold_label"], capsys)
    assert code == 2 and "'gold_label'" in err and "columns are: premise, hypothesis" in err


def test_a_named_column_of_a_later_row_is_found(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mixed.jsonl"
    rows = [_first(EXAMPLES / "ie_sample.jsonl"),
            {"premise": P3, "hypothesis": "A directly causes C.", "gold": 1}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, _, err = _run(["audit", str(path), "--label-column", "gold", "--quiet"], capsys)
    assert code == 0, err


# ---- --server -----------------------------------------------------------------------------

def test_a_server_that_cannot_serve_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    sample = str(EXAMPLES / "cibench_sample.jsonl")
    code, _, err = _run(["audit", sample, "--server", "127.0.0.1:1", "--quiet"], capsys)
    assert code == 2 and "127.0.0.1:1" in err and "unreachable" in err
    code, out, err = _run(["audit", sample, "--server", "127.0.0.1:1", "--quiet",
                           "--local-fallback"], capsys)
    assert code == 0 and "auditing in-process" in err
    assert "computed in-process (--local-fallback): 40" in out


def test_a_reachable_server_refuses_other_families_unless_told(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    sys.path.insert(0, str(TESTS))
    from test_grpc_service import ServerThread  # type: ignore[import-not-found]

    sample = str(EXAMPLES / "cibench_sample.jsonl")
    thread = ServerThread(workers=1, grace=1.0)
    thread.start()
    try:
        code, _, err = _run(["audit", sample, "--server", thread.target, "--quiet"], capsys)
        assert code == 2 and thread.target in err and "cibench (40 rows)" in err
        report = tmp_path / "r.json"
        code, _, err = _run(["audit", sample, "--server", thread.target, "--quiet",
                             "--local-fallback", "--report", str(report)], capsys)
    finally:
        thread.stop(grace=0.5)
    assert code == 0, err
    where = json.loads(report.read_text(encoding="utf-8"))["where"]
    assert where == {"server": thread.target, "remote_rows": 0, "in_process_rows": 40}


@pytest.fixture
def toy() -> Any:
    import sys

    sys.path.insert(0, str(TESTS))
    import toy_family  # type: ignore[import-not-found]

    REGISTRY.register(toy_family.FAMILY)
    yield toy_family.FAMILY
    REGISTRY.unregister(toy_family.FAMILY.name)


def test_a_family_without_a_graph_says_so(toy: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["explain", "--prompt", "Toy: is 3 + 4 even?", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert (data["family"], data["dot"], data["derivation"]) == (toy.name, None, None)
    code, _, err = _run(["explain", "--prompt", "Toy: is 3 + 4 even?", "--dot"], capsys)
    assert code == 2 and f"the {toy.name} family has no graph to draw" in err


def test_explain_json_of_a_corr2cause_item_carries_its_derivation(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["explain", "--premise", P3, "--hypothesis",
                         "There exists at least one collider (i.e., common effect) of A and B.",
                         "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["family"] == "corr2cause" and data["answer_text"] == "yes"
    assert data["derivation"]["colliders"][0]["triple"] == ["A", "C", "B"]
    assert data["dot"].startswith("digraph cpdag")
