"""End to end: the audit over the shared samples, the report contract, and the CLI verbs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA

from causal_oracle.clients.audit import run_audit
from causal_oracle.clients.cli import main

P3 = ("Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
      "relations among these 3 variables are as follows: A correlates with C. B correlates "
      "with C. However, A is independent of B.")


@pytest.mark.parametrize("name", ["n2", "n3", "n4", "n4_fromZ", "n4_paraph", "n5_sample",
                                  "hf_layout_sample"])
def test_audit_reads_every_row_and_checks_every_certificate(name: str) -> None:
    suffix = ".csv" if name.startswith("hf") else ".jsonl"
    report = run_audit(DATA / f"{name}{suffix}", workers=1).to_json()
    s = report["summary"]
    assert s["unreadable"] == 0
    assert s["agree"] + s["disagree"] + s["ambiguous"] + s["inconsistent"] == s["items"]
    assert s["undetermined"] == s["internal_error"] == 0
    assert report["certificates_checked"] == s["items"]
    assert all(d["certificate_checked"] for d in report["disagreements"])
    assert len(report["disagreements"]) == s["disagree"]


def test_renamed_variables_give_the_same_findings() -> None:
    plain = run_audit(DATA / "n4.jsonl").to_json()
    renamed = run_audit(DATA / "n4_fromZ.jsonl").to_json()
    assert [d["row"] for d in plain["disagreements"]] == [d["row"] for d in
                                                          renamed["disagreements"]]
    assert plain["summary"] == renamed["summary"]
    # the known findings at n = 4 (see README): 6 disagreements, and one more row whose gold
    # disagrees with the corr2cause label but which the profiles label differently
    assert plain["summary"]["disagree"] == 6
    assert plain["summary"]["ambiguous"] == 8
    assert sum(a["derived_label"] != a["gold"] for a in plain["ambiguous"]) == 1


@pytest.mark.slow
def test_n6_sample_audit_reports_inconsistent_premises() -> None:
    report = run_audit(DATA / "n6_sample.jsonl", workers=2).to_json()
    assert report["summary"]["unreadable"] == 0
    assert report["inconsistent"]
    for entry in report["inconsistent"]:
        assert entry["reason"] and "premise" in entry["reason"]


def test_report_contract_and_bad_rows(tmp_path: Path) -> None:
    rows = [
        {"id": "good", "premise": P3, "hypothesis": "A directly causes C.", "label": 0},
        {"id": "garbage", "premise": "hello", "hypothesis": "A directly causes C.", "label": 0},
        {"id": "nolabel", "premise": P3, "hypothesis": "A directly causes C."},
    ]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n{not json\n", encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["audit", str(path), "--report", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["summary"] == {"items": 4, "agree": 0, "disagree": 1, "ambiguous": 0,
                                 "undetermined": 0, "inconsistent": 0, "unreadable": 3,
                                 "internal_error": 0, "answered": 0}
    (d,) = report["disagreements"]
    assert set(d) >= {"row", "id", "hypothesis", "gold", "derived_label", "derived_relation",
                      "class_size", "holds_in", "certificate_checked"}
    assert (d["row"], d["id"], d["derived_label"], d["derived_relation"]) == (1, "good", 1,
                                                                              "entailment")
    errors = {u["id"]: u["error"] for u in report["unreadable"]}
    assert "line 1, column 1" in errors["garbage"]
    assert "label" in errors["nolabel"]
    assert "line 4" in errors[None] and "invalid JSON" in errors[None]


def test_column_overrides(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text('text,gold\n"Premise: ' + P3 + '\nHypothesis: B directly causes A.",0\n',
                    encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["audit", str(path), "--input-column", "text", "--label-column", "gold",
                 "--report", str(out)]) == 0
    assert json.loads(out.read_text())["summary"]["agree"] == 1


def test_verify_and_explain_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--premise", P3, "--hypothesis", "A directly causes C.", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["label"], out["relation"], out["class_size"]) == (1, "entailment", 1)
    assert out["certificate_checked"] is True
    assert main(["explain", "--premise", P3, "--hypothesis",
                 "There exists at least one collider (i.e., common effect) of A and B.",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["colliders"][0]["triple"] == ["A", "C", "B"]
    assert main(["explain", "--input", f"Premise: {P3}\\nHypothesis: C directly causes A.",
                 "--format", "dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph")


def test_bad_input_exits_2_with_position(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--premise", "Suppose nothing", "--hypothesis", "A causes B."]) == 2
    err = capsys.readouterr().err
    assert "line 1, column 9" in err and "Traceback" not in err
    assert main(["verify", "--premise", P3, "--hypothesis", "A directly causes Z."]) == 2
    assert "'Z'" in capsys.readouterr().err


def test_inconsistent_premise_is_a_clear_statement(capsys: pytest.CaptureFixture[str]) -> None:
    premise = P3.replace("However, A is independent of B.",
                         "However, A is independent of B. A and B are independent given C.")
    assert main(["verify", "--premise", premise, "--hypothesis", "A directly causes C."]) == 0
    out = capsys.readouterr().out
    assert "inconsistent" in out and "either a collider" in out


def test_console_script_runs_as_a_module() -> None:
    done = subprocess.run([sys.executable, "-m", "causal_oracle.clients.cli", "verify",
                           "--premise", P3, "--hypothesis", "A directly causes C."],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "entailment" in done.stdout


def test_parallel_audit_reports_exactly_what_a_serial_one_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import causal_oracle.clients.audit as audit

    lines = (DATA / "n4.jsonl").read_text(encoding="utf-8").splitlines()[:150]
    lines[10] = "{broken json"
    lines.insert(20, "")
    lines[40] = json.dumps({"premise": "nonsense", "hypothesis": "A directly causes B.",
                            "label": 1})
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(audit, "_RANGE_BYTES", 4096)  # many small ranges
    assert len(list(audit._byte_ranges(path))) > 10
    serial = run_audit(path, workers=1).to_json()
    parallel = run_audit(path, workers=2).to_json()
    for key in ("summary", "three_class", "by_relation", "by_num_nodes", "disagreements",
                "inconsistent", "unreadable", "certificates_checked"):
        assert parallel[key] == serial[key], key
    assert {u["row"] for u in serial["unreadable"]} == {11, 41}
    assert any("line 11" in u["error"] for u in serial["unreadable"])
