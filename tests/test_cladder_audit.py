"""Auditing CLadder gold answers: undetermined items counted apart, each disagreement
with its cause class — shown on fixtures built here, including the generator's
independent-parents approximation (upstream issue #15) on a model of our own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import causal_oracle as co
from causal_oracle.clients import cli
from causal_oracle.entry import default
from causal_oracle.entry.families import cladder as family

HERE = Path(__file__).parent
SAMPLE = HERE / "data" / "cladder"
ALARM = ("Imagine a self-contained, hypothetical world with only the following conditions, "
         "and without any unmentioned factors or causal relationships: Husband has a direct "
         "effect on wife and alarm clock. Wife has a direct effect on alarm clock.")
MAPPING = {"Xname": "husband", "X1": "alarm set by husband", "X0": "alarm not set by husband",
           "V2name": "wife", "V21": "alarm set by wife", "V20": "alarm not set by wife",
           "Yname": "alarm clock", "Y1": "ringing alarm", "Y0": "silent alarm"}
# Our own mediation model: the wife mostly does what the husband does, and the alarm rings
# when they agree.  Exactly, P(ringing) = 0.814; with the parents husband and wife treated
# as independent (the generator's belief propagation without evidence) it is 0.47.
OWN = {"model_id": 9001, "background": ALARM, "variable_mapping": MAPPING,
       "structure": "X->V2,X->Y,V2->Y",
       "params": {"p(X)": 0.5, "p(V2 | X)": [0.1, 0.9],
                  "p(Y | X, V2)": [[0.9, 0.04], [0.04, 0.9]]}}
# A model whose printed numbers are not its own: the text prints 50% and 53%, the model
# has 0.52 and 0.50.
MISPRINTED = {"model_id": 9002, "background": ALARM, "variable_mapping": MAPPING,
              "structure": "X->V2,X->Y,V2->Y",
              "params": {"p(X)": 0.5, "p(V2 | X)": [0.5, 0.5],
                         "p(Y | X, V2)": [[0.52, 0.52], [0.5, 0.5]]}}


def _rows(name: str) -> list[dict[str, Any]]:
    return list(json.loads((SAMPLE / f"test-generate-{name}.json").read_text(encoding="utf-8")))


@pytest.fixture()
def models(tmp_path: Path) -> Path:
    """The sample's model file with our two models added, loaded."""
    data = json.loads((SAMPLE / "test-model-meta.json").read_text(encoding="utf-8"))
    path = tmp_path / "models.json"
    path.write_text(json.dumps([*data, OWN, MISPRINTED]), encoding="utf-8")
    family.load_models(path)
    return path


def _record(row: dict[str, Any]) -> dict[str, Any]:
    item = default().item(row)
    assert item is not None
    return default().audit_item(item)


def _own_rows() -> list[dict[str, Any]]:
    marginal = {"desc_id": "own-mediation-marginal-q0", "question_id": 1,
                "given_info": "The overall probability of alarm set by husband is 50%. For "
                              "husbands that don't set the alarm, the probability of ringing "
                              "alarm is 81%. For husbands that set the alarm, the probability "
                              "of ringing alarm is 81%.",
                "question": "Is ringing alarm more likely than silent alarm overall?",
                "answer": "no",  # what P(ringing) = 0.47, parents independent, says
                "meta": {"model_id": 9001}}
    ate = {"desc_id": "own-mediation-ate-q0", "question_id": 2,
           "given_info": "For husbands that don't set the alarm, the probability of ringing "
                         "alarm is 50%. For husbands that set the alarm, the probability of "
                         "ringing alarm is 53%.",
           "question": "Will alarm set by husband increase the chance of ringing alarm?",
           "answer": "no",  # the model's own effect is -0.02
           "meta": {"model_id": 9002}}
    return [marginal, ate]


def _kinds(record: dict[str, Any]) -> list[str]:
    return [c["kind"] for c in record.get("causes", ())]


def test_the_issue_15_pattern_on_a_model_of_our_own(models: Path) -> None:
    record = _record(_own_rows()[0])
    assert (record["derived"], record["gold"], record["agree"]) == ("yes", "no", False)
    assert record["certificate_checked"] is True
    assert _kinds(record) == ["independent_parents_approximation"]
    assert "0.47" in record["causes"][0]["detail"] and "0.814" in record["causes"][0]["detail"]


def test_printed_numbers_that_are_not_the_models_are_rounding(models: Path) -> None:
    record = _record(_own_rows()[1])
    assert (record["derived"], record["agree"]) == ("yes", False)
    assert _kinds(record) == ["rounding"]
    assert "0.5200 in the model, printed 50%" in record["causes"][0]["detail"]


def test_a_contradicting_counterfactual_premise(models: Path) -> None:
    for row in _rows("det"):
        record = _record(row)
        if "contradicting_premise" in record.get("flags", ()):
            break
    else:
        pytest.fail("the sample has no contradicting premise")
    assert record["agree"] is True  # the benchmark's gold reads it as we do …
    flipped = dict(row, answer="no" if row["answer"] == "yes" else "yes")
    record = _record(flipped)  # … a gold that reads it otherwise disagrees
    assert record["agree"] is False
    assert _kinds(record) == ["contradicting_counterfactual_premise"]


def test_the_other_valid_adjustment_set(models: Path) -> None:
    fork = [r for r in _rows("easy") if r["desc_id"].startswith("candle-fork-backadj-model2")]
    records = [_record(r) for r in fork]
    assert {r["derived"] for r in records} == {"no"}  # neither method is more correct
    # both sets valid: ambiguous with the reason (DESIGN §3.6), never a disagreement,
    # whichever method the gold prefers
    assert {r["gold"] for r in records} == {"yes", "no"}
    assert all(r["ambiguous"] and r["agree"] is None for r in records)
    assert all("both methods are valid backdoor adjustments" in r["reason"] for r in records)


def test_a_mechanism_the_text_states_differently_from_its_model(models: Path) -> None:
    row = next(r for r in _rows("det") if r["desc_id"] ==
               "firing_employee-diamondcut-det-counterfactual-model152-spec0-q0")
    record = _record(row)
    assert record["agree"] is False
    assert _kinds(record) == ["stated_mechanism_differs_from_model"]


def test_the_report_counts_undetermined_apart_and_keeps_ids(models: Path) -> None:
    rows = [*_rows("easy"), *_own_rows()]
    report = co.audit(rows).to_json()
    summary = report["summary"]
    undetermined = summary["undetermined_reasons"]
    assert set(undetermined) <= {"rounding", "not identifiable"} and undetermined
    assert summary["unreadable"] == 0
    assert summary["undetermined"] == sum(undetermined.values())
    assert summary["agree"] + summary["disagree"] + summary["ambiguous"] + \
        summary["undetermined"] == summary["items"]
    assert {e["reason"] for e in report["undetermined"]} == set(undetermined)
    assert report["disagreements"]
    for entry in report["disagreements"]:
        assert entry["derived"] in ("yes", "no") and entry["certificate_checked"]
        assert entry["causes"] and entry["id"]
    ids = {entry["id"] for entry in report["disagreements"]}
    assert {"own-mediation-marginal-q0", "own-mediation-ate-q0"} <= ids
    assert report["causes"]["independent_parents_approximation"] >= 1
    tasks = report["by_task"]
    assert "CLadder rung 1 marginal / mediation" in tasks
    assert any(t.startswith("CLadder rung 3 nde / arrowhead") and
               "not identifiable" in v.get("undetermined_reasons", {})
               for t, v in tasks.items())
    facets = report["families"]["cladder"]["facets"]
    assert set(facets) == {"task", "rung", "query type", "graph"}
    assert sum(c["items"] for c in facets["rung"].values()) == summary["items"]


def test_other_families_reports_have_no_undetermined_column() -> None:
    rows = [json.loads(line) for line in (HERE / "data" / "n3.jsonl").read_text().splitlines()
            [:10]]
    report = co.audit(rows)
    assert report.to_json()["summary"]["undetermined"] == 0
    from causal_oracle.clients.audit_report import summary_table

    assert "undet." not in summary_table(report)


def test_the_cli_audits_a_question_file_with_its_model_file(
        models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    code = cli.main(["audit", str(SAMPLE / "test-generate-det.json"), "--cladder-models",
                     str(models), "--report", str(out), "--quiet"])
    assert code == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["summary"]["unreadable"] == 0
    assert report["summary"]["items"] == len(_rows("det"))
    assert report["certificates_checked"] == report["summary"]["items"]
    assert report["disagreements"] and all(d["causes"] for d in report["disagreements"])
    assert "stated_mechanism_differs_from_model" in capsys.readouterr().out
