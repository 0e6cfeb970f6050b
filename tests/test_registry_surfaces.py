"""Every surface reaches every benchmark family through the one registry, and agrees.

For each registered family (the built-in ones and a toy family that only this test
registers, ``tests/toy_family.py``), the same dataset rows go through the library API,
the CLI (in-process ``causal-oracle``), the gRPC service (a real server on 127.0.0.1
with worker processes), ``eval``'s scorer, ``audit`` and the harness plug-ins, and
must come back with the same answer, the same grade and the same gold reading.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import causal_oracle as co
from causal_oracle.clients import cli, harness, readers
from causal_oracle.clients.evaluate.data import load_items
from causal_oracle.clients.evaluate.run import EvalConfig, run_eval
from causal_oracle.clients.evaluate.scoring import InProcessScorer
from causal_oracle.clients.remote import OracleClient
from causal_oracle.entry import REGISTRY, default, join_input

TESTS = Path(__file__).parent
DATA = TESTS / "data"
EXAMPLES = TESTS.parent / "examples"


def _jsonl(path: Path, n: int) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for _, line in zip(range(n), handle, strict=False)]


def _rows() -> dict[str, list[dict[str, Any]]]:
    """Two rows of every built-in family, as their datasets write them, and the toy's."""
    n3 = _jsonl(DATA / "n3.jsonl", 40)
    cibench = _jsonl(DATA / "cibench" / "items_sample.jsonl", 200)
    return {
        "corr2cause": [n3[0], {"input": join_input(n3[7]["premise"], n3[7]["hypothesis"]),
                               "label": n3[7]["label"]}],
        "corr2cause++": json.loads((DATA / "corr2causepp" / "sample.json").read_text())[:2],
        "cibench": [next(r for r in cibench if r["task"] == t) for t in ("CP", "BA")],
        "ie": _jsonl(EXAMPLES / "ie_sample.jsonl", 2),
        "clear": _jsonl(DATA / "clear" / "items_subset.jsonl", 2),
        "cladder": _cladder_rows(),
        "calm": [{**_jsonl(DATA / "calm" / "lite_sample" / "CEI-B_0.2-UC_EN.json", 1)[0],
                  "task": "CEI-B_0.2-UC_EN"},
                 {**_jsonl(DATA / "calm" / "lite_sample" / "BAS-C_min-BAS_CN.json", 1)[0],
                  "task": "BAS-C_min-BAS_CN"},
                 {**_jsonl(DATA / "calm" / "lite_sample" / "ATE-P_ATE-basic_EN.json", 1)[0],
                  "task": "ATE-P_ATE-basic_EN"}],
        "toy": [{"toy": "Toy: is 3 + 4 even?", "even": "no"},
                {"toy": "Toy: is 10 + 12 even?", "even": "no"}],  # the second gold is wrong
    }


def _cladder_rows() -> list[dict[str, Any]]:
    """A question with its background as a field, and a whole prompt with its label."""
    folder = DATA / "cladder"
    models = {m["model_id"]: m for m in json.loads((folder / "test-model-meta.json").read_text(
        encoding="utf-8"))}
    easy = json.loads((folder / "test-generate-easy.json").read_text(encoding="utf-8"))
    det = json.loads((folder / "test-generate-det.json").read_text(encoding="utf-8"))
    first, second = easy[0], det[0]
    return [{"background": models[first["meta"]["model_id"]]["background"],
             "given_info": first["given_info"], "question": first["question"],
             "answer": first["answer"]},
            {"prompt": " ".join((models[second["meta"]["model_id"]]["background"],
                                 second["given_info"], second["question"])),
             "label": second["answer"]}]


ROWS = _rows()
REPLIES = ("Entailment", "yes", "No.", "@@@")


@pytest.fixture(scope="module")
def toy() -> Iterator[None]:
    sys.path.insert(0, str(TESTS))
    import toy_family

    REGISTRY.register(toy_family.FAMILY)
    yield
    REGISTRY.unregister(toy_family.FAMILY.name)


@pytest.fixture(scope="module")
def served(toy: None) -> Iterator[str]:
    from test_grpc_service import ServerThread

    thread = ServerThread(workers=1, grace=1.0)
    thread.start()
    yield thread.target
    thread.stop(grace=1.0)


def _cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert cli.main(argv) == 0, capsys.readouterr().err
    return dict(json.loads(capsys.readouterr().out))


def test_every_family_has_rows_here(toy: None) -> None:
    assert set(REGISTRY.names()) == set(ROWS), "give a new family rows in this test"


def test_every_row_is_read_by_its_family(toy: None) -> None:
    for family, rows in ROWS.items():
        for row in rows:
            item = default().item(row)
            assert item is not None and item.family == family, (family, row)


@pytest.mark.parametrize("family", sorted(ROWS))
def test_answers_and_grades_agree_across_surfaces(
        family: str, served: str, capsys: pytest.CaptureFixture[str]) -> None:
    scorer = InProcessScorer()
    with OracleClient(served, timeout=120) as client:
        for row in ROWS[family]:
            item = default().item(row)
            assert item is not None
            library = co.answer(item.prompt)
            remote = client.answer_result(item.prompt)
            shown = _cli_json(["answer", "--prompt", item.prompt, "--json"], capsys)
            assert library.certificate_checked and remote.certificate_checked
            assert (remote.task, remote.answer_text, remote.answer) == \
                (library.task, library.answer_text, library.answer)
            assert (shown["task"], shown["answer_text"]) == (library.task, library.answer_text)
            for reply in (library.answer_text, *REPLIES):
                graded = co.grade(item.prompt, reply)
                if reply == library.answer_text and library.answer_text:
                    assert graded.correct is True, (family, reply, graded)
                by_rpc = client.answer_result(item.prompt, model_answer=reply).grade
                by_cli = _cli_json(["grade", "--prompt", item.prompt, "--answer", reply,
                                    "--json"], capsys)
                by_eval = scorer.grade(item.prompt, reply, item.task)
                by_harness = harness.grade_doc(harness.doc_of(1, row), reply)
                want = (graded.correct, graded.normalised)
                assert by_rpc is not None and (by_rpc.correct, by_rpc.normalised) == want
                assert (by_cli["correct"], by_cli["normalised"]) == want
                assert by_eval == (graded.correct if graded.readable and graded.gradable
                                   else None, graded.normalised)
                assert by_harness["normalised"] == graded.normalised
                assert by_harness["acc_oracle"] == float(bool(graded.correct))


#: CaLM files whose rendered prompt does not tell the task's variant (a natural ``-B``
#: question asks for the same JSON as a ``-P`` one): every surface is given the task
CALM_TASKED = [("lite_sample", "NIE-B_NIE-natural_CN.json"), ("lite_sample",
               "ETT-P_ETT-hard_EN.json"), ("lite_sample", "IV-C_CaLM-IV_CN.json"),
               ("full_sample", "CDE-B_CDE-natural_EN.json")]


@pytest.mark.parametrize("folder,name", CALM_TASKED, ids=[n for _, n in CALM_TASKED])
def test_a_calm_item_with_its_task_is_graded_alike_everywhere(
        folder: str, name: str, served: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The task a CaLM file's name gives reaches the library, the CLI (``--task``), gRPC
    ``Answer``, ``eval``'s scorer and the harness doc (read from the file as shipped)."""
    path = DATA / "calm" / folder / name
    doc = next(d for d in (harness.doc_of(r.ref, r.row) for r in readers.read_records(path)
                           if r.row is not None) if d is not None)
    task = doc["task"]
    assert name.startswith(task + "_")
    library = co.answer(doc["prompt"], task)
    scorer = InProcessScorer()
    with OracleClient(served, timeout=120) as client:
        remote = client.answer_result(doc["prompt"], task)
        assert (remote.task, remote.answer_text) == (library.task, library.answer_text) \
            == (task, library.answer_text)
        for reply in (library.answer_text, *REPLIES, "是", "0.5000"):
            graded = co.grade(doc["prompt"], reply, task)
            if reply == library.answer_text:
                assert graded.correct is True, (name, reply, graded)
            by_rpc = client.answer_result(doc["prompt"], task, model_answer=reply).grade
            by_cli = _cli_json(["grade", "--prompt", doc["prompt"], "--task", task,
                                "--answer", reply, "--json"], capsys)
            want = (graded.correct, graded.normalised)
            assert by_rpc is not None and (by_rpc.correct, by_rpc.normalised) == want
            assert (by_cli["correct"], by_cli["normalised"]) == want
            assert scorer.grade(doc["prompt"], reply, task) == (
                graded.correct if graded.readable and graded.gradable else None,
                graded.normalised)
            by_harness = harness.grade_doc(doc, reply)
            assert by_harness["normalised"] == graded.normalised
            assert by_harness["acc_oracle"] == float(bool(graded.correct))


def test_audit_agrees_across_surfaces(toy: None, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``co.audit`` on rows, the CLI on a file and ``eval``'s gold reading agree."""
    rows = [row for family in sorted(ROWS) for row in ROWS[family]
            if family not in ("corr2cause++",)]  # Corr2Cause++ files are JSON arrays
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    in_memory = co.audit(rows).to_json()
    report = tmp_path / "report.json"
    assert cli.main(["audit", str(path), "--report", str(report), "--quiet"]) == 0
    written = json.loads(report.read_text(encoding="utf-8"))
    assert written["summary"] == in_memory["summary"]
    assert written["summary"]["unreadable"] == 0
    assert written["by_task"].keys() == in_memory["by_task"].keys()
    assert {"TOY", "CP", "BA", "IE"} <= set(written["by_task"])
    toy_wrong = [d for d in written["disagreements"] if d["task"] == "TOY"]
    assert [d["row"] for d in toy_wrong] == [rows.index(ROWS["toy"][1]) + 1]
    items = load_items(path)
    assert {i.task for i in items} >= {"corr2cause", "CP", "BA", "IE", "CLEAR", "TOY"}
    capsys.readouterr()


def test_gold_yes_reads_the_same_in_audit_and_eval(tmp_path: Path) -> None:
    row = dict(ROWS["corr2cause"][0])
    result = co.verify(row["premise"], row["hypothesis"])
    row["label"] = "yes" if result.label else "no"
    path = tmp_path / "words.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert co.audit([row]).summary.agree == 1
    assert co.audit(path).summary.agree == 1
    [item] = load_items(path)
    assert item.gold == result.label


def test_a_datasets_folder_in_audit_and_eval(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    rows = _jsonl(DATA / "n3.jsonl", 12)
    folder = tmp_path / "saved"
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
    report = co.audit(folder)
    assert report.summary.items == 12 and report.summary.unreadable == 0
    assert len(load_items(folder)) == 12


def test_eval_reads_clear_and_corr2causepp_rows(tmp_path: Path) -> None:
    clear = tmp_path / "clear.jsonl"
    clear.write_text("".join(json.dumps(r) + "\n"
                             for r in _jsonl(DATA / "clear" / "items_subset.jsonl", 6)))
    pp = tmp_path / "pp.json"
    pp.write_text(json.dumps(json.loads((DATA / "corr2causepp" / "sample.json")
                                        .read_text())[:6]))
    for path, task in ((clear, "CLEAR"), (pp, "corr2cause++")):
        out = run_eval(EvalConfig(model="oracle", data=path, report=tmp_path / f"{task}.json"))
        entry = out["metrics"]["tasks"][task]
        assert entry["items"] == 6 and entry["oracle"]["accuracy"] == 1.0, entry


def test_the_toy_family_is_served_everywhere(served: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Registered by ``tests/toy_family.py`` alone: the library, the CLI, audit, the
    harness task list and the gRPC ``Answer`` call all answer it."""
    prompt = ROWS["toy"][0]["toy"]
    assert co.answer(prompt).answer == {"even": False, "sum": 7}
    assert co.answer(prompt, "toy").answer_text == "no"
    assert _cli_json(["answer", "--prompt", prompt, "--json"], capsys)["answer_text"] == "no"
    with OracleClient(served, timeout=60) as client:
        assert client.answer_result(prompt).answer == {"even": False, "sum": 7}
        assert client.answer_result(prompt, "TOY", model_answer="No.").grade.correct is True
    assert co.audit(ROWS["toy"]).summary.disagree == 1
    assert "toy" in harness.TASKS and harness.TASKS["toy"].instruction == "Answer yes or no."
    with pytest.raises(co.InputError, match="not a toy question"):
        co.answer("Toy: is three + 4 even?")


def test_an_unfaithful_premise_is_inconsistent_over_grpc(served: str) -> None:
    """The fuzz reproducer of an unlisted separation: a clean ``inconsistent`` answer
    over gRPC ``Verify``, ``VerifyBatch`` and ``Answer`` (never INTERNAL)."""
    from causal_oracle.clients.remote import make_request
    from causal_oracle.proto.causal_oracle.v1 import oracle_pb2 as pb

    premise = ("Suppose there is a closed system of 3 variables, A, B and C. All the "
               "statistical relations among these 3 variables are as follows: A is "
               "independent of B. A is independent of C. A and C are independent given B. "
               "B is independent of C. B and C are independent given A.")
    with OracleClient(served, timeout=60) as client:
        response = client.verify(premise, "A directly causes B.")
        assert response.relation == pb.RELATION_INCONSISTENT and response.reason
        [item] = client.verify_batch([make_request(premise, "B directly causes C.")])
        assert item.relation == pb.RELATION_INCONSISTENT
        answered = client.answer_result(join_input(premise, "A directly causes C."),
                                        model_answer="Yes")
        assert answered.answer["relation"] == "inconsistent"
        assert answered.grade is not None and not answered.grade.gradable


def test_a_rejected_certificate_is_an_internal_error_not_a_finding(
        toy: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checker that refuses the solver's answer is a bug: the audit row says so (never an
    ordinary unreadable row), the library raises ``CertificateRejected``."""
    import toy_family

    def refuse(question: Any, solution: Any) -> Any:
        raise co.CertificateRejected("the parity does not follow from the sum")

    monkeypatch.setattr(toy_family.FAMILY, "check", refuse)
    service = default().__class__()
    item = service.item({"toy": "Toy: is 5 + 4 even?", "even": "no"})
    assert item is not None
    assert service.audit_item(item)["error"].startswith("internal error: CertificateRejected")
    with pytest.raises(co.CertificateRejected):
        service.answer("Toy: is 5 + 4 even?")
