"""Dataset readers: each format on a real file built from the benchmark samples.

Every test writes the same items in another layout and checks that the audit reads
all of them and reaches the same counts as the original file, and that row
references are 1-based file lines (record numbers for binary formats).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from causal_oracle.clients.audit import run_audit
from causal_oracle.clients.cli import main
from causal_oracle.clients.readers import Format, detect_columns, open_source

DATA = Path(__file__).parent / "data"
HF = DATA / "hf_layout_sample.csv"
N3 = DATA / "n3.jsonl"


def _hf_rows() -> list[dict[str, str]]:
    with HF.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _summary(path: Path, **kwargs: object) -> dict[str, int]:
    return run_audit(path, **kwargs).to_json()["summary"]  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def hf_summary() -> dict[str, int]:
    summary = _summary(HF)
    assert summary["items"] == 320 and summary["unreadable"] == 0
    return summary


def test_jsonl_rows_are_referenced_by_file_line(tmp_path: Path) -> None:
    lines = N3.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "n3.jsonl"
    path.write_text(lines[0] + "\n\n" + "\n".join(lines[1:]) + "\n", encoding="utf-8")
    refs = [r.ref for r in open_source(path).records()]
    assert refs[:3] == [1, 3, 4] and len(refs) == 90
    assert _summary(path)["agree"] + _summary(path)["disagree"] == 90


def test_json_array_same_counts_as_jsonl(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in N3.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / "n3.json"
    path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    source = open_source(path)
    assert source.format is Format.JSON_ARRAY
    records = list(source.records())
    assert len(records) == 90 and all(r.row for r in records)
    assert records[0].ref == 2  # "[" on line 1, the first object opens line 2
    assert _summary(path) == _summary(N3)


@pytest.mark.parametrize(("delimiter", "suffix", "bom"), [
    (",", ".csv", True), ("\t", ".tsv", False), (";", ".csv", True), ("|", ".txt", False)])
def test_delimited_with_bom_and_any_delimiter(tmp_path: Path, hf_summary: dict[str, int],
                                              delimiter: str, suffix: str, bom: bool) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["input", "label"], delimiter=delimiter)
    writer.writeheader()
    writer.writerows(_hf_rows())
    path = tmp_path / f"hf{suffix}"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + buf.getvalue().encode("utf-8"))
    report = run_audit(path).to_json()
    assert report["summary"] == hf_summary
    assert report["source"]["columns"] == ["input", "label"]


def test_ie_pipe_templates_are_audited_with_placeholders_as_names() -> None:
    files = sorted((DATA / "ie").glob("*/*.csv"))
    disagreements = []
    total = 0
    for path in files:
        report = run_audit(path).to_json()
        assert report["summary"]["unreadable"] == 0, report["unreadable"]
        total += report["summary"]["items"]
        disagreements += [(f"{path.parent.name}/{path.name}", d["row"])
                          for d in report["disagreements"]]
    assert total == 200
    # the one known wrong upstream row: the last of the file, on file line 7
    assert disagreements == [("obs/prompts_obs_cause_3.csv", 7)]


def test_a_template_layout_is_read_by_its_family_through_the_registry(
        tmp_path: Path) -> None:
    """The readers hand a delimited row to ``Registry.template_row``: a row in IE's
    template layout becomes an IE row; a row naming its task, or of another layout (or
    a JSON line with the template's columns), is left as the file holds it."""
    from causal_oracle.clients.readers import read_records

    path = tmp_path / "t.psv"
    path.write_text("dag|prompt|question|label\nx|P|Q?| yes\n", encoding="utf-8")
    [record] = list(read_records(path))
    assert record.ref == 2 and record.row == {"dag": "x", "task": "IE",
                                              "prompt": "P. \nQ?", "label": "yes"}
    path.write_text("task|prompt|question|label\nCP|P|Q?|yes\n", encoding="utf-8")
    [record] = list(read_records(path))
    assert record.row is not None and record.row["prompt"] == "P"
    lines = tmp_path / "t.jsonl"
    lines.write_text(json.dumps({"prompt": "P", "question": "Q?", "label": "yes"}) + "\n",
                     encoding="utf-8")
    [record] = list(read_records(lines))
    assert record.row == {"prompt": "P", "question": "Q?", "label": "yes"}


def test_parquet_rows_are_record_numbers(tmp_path: Path, hf_summary: dict[str, int]) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = _hf_rows()
    table = pa.Table.from_pylist([{"input": r["input"], "label": int(r["label"])}
                                  for r in rows])
    path = tmp_path / "test-00000-of-00001.parquet"
    pq.write_table(table, path, row_group_size=100)
    source = open_source(path)
    assert source.unit == "record" and source.count() == 320
    report = run_audit(path).to_json()
    assert report["summary"] == hf_summary
    assert report["disagreements"][0]["row"] >= 1


def test_datasets_save_to_disk_and_hub_folder(tmp_path: Path,
                                              hf_summary: dict[str, int]) -> None:
    datasets = pytest.importorskip("datasets")
    rows = [{"input": r["input"], "label": int(r["label"])} for r in _hf_rows()]
    single = tmp_path / "saved"
    datasets.Dataset.from_list(rows).save_to_disk(str(single))
    assert _summary(single) == hf_summary
    splits = tmp_path / "saved_dict"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows[:200]),
                          "test": datasets.Dataset.from_list(rows[200:])}
                         ).save_to_disk(str(splits))
    assert _summary(splits) == hf_summary
    hub = tmp_path / "hub" / "data"
    hub.mkdir(parents=True)
    datasets.Dataset.from_list(rows[:160]).to_parquet(str(hub / "test-00000-of-00002.parquet"))
    datasets.Dataset.from_list(rows[160:]).to_parquet(str(hub / "test-00001-of-00002.parquet"))
    (hub.parent / "README.md").write_text("---\nlicense: mit\n---\n", encoding="utf-8")
    assert _summary(hub.parent) == hf_summary


def test_mixed_file_bad_byte_and_broken_record_cost_one_row_each(tmp_path: Path) -> None:
    lines = N3.read_bytes().splitlines()[:30]
    lines[4] = lines[4].replace(b"Suppose", b"Supp\xffose")     # file line 5: a bad byte
    lines[11] = lines[11][:40]                                   # file line 12: cut short
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    for workers in (1, 2):
        report = run_audit(path, workers=workers).to_json()
        assert report["summary"]["items"] == 30
        assert report["summary"]["unreadable"] == 2
        bad = {u["row"]: u["error"] for u in report["unreadable"]}
        assert set(bad) == {5, 12}
        assert "not UTF-8" in bad[5] and "invalid JSON" in bad[12]


def test_mixed_csv_bad_byte_and_broken_record(tmp_path: Path) -> None:
    rows = _hf_rows()[:20]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["input", "label"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    data = buf.getvalue().encode("utf-8")
    lines = data.split(b"\n")
    # each row spans two lines (premise \n hypothesis): row 3 starts on line 6
    lines[5] = lines[5].replace(b"Premise", b"Pr\xe9mise")
    lines.insert(9, b"just,three,fields")                        # a record that breaks
    path = tmp_path / "mixed.csv"
    path.write_bytes(b"\n".join(lines))
    report = run_audit(path).to_json()
    assert report["summary"]["items"] == 21 and report["summary"]["unreadable"] == 2
    assert {u["row"] for u in report["unreadable"]} == {6, 10}


def test_column_auto_detection_says_what_it_found(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in N3.read_text(encoding="utf-8").splitlines()][:10]
    path = tmp_path / "renamed.jsonl"
    path.write_text("\n".join(json.dumps({"sentence1": r["premise"], "sentence2":
                                          r["hypothesis"], "gold": r["label"]})
                              for r in rows) + "\n", encoding="utf-8")
    report = run_audit(path).to_json()
    assert report["summary"]["unreadable"] == 0
    assert "premise←'sentence1'" in report["source"]["detected"]
    assert detect_columns(["x"], {"input": "x"}).names["input"] == "x"


def test_exit_2_when_nothing_is_readable(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert main(["audit", str(empty)]) == 2
    assert "no rows" in capsys.readouterr().err
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("question,answer_text\nfoo,bar\n", encoding="utf-8")
    assert main(["audit", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert "columns found: question, answer_text" in err and "--input-column" in err


def test_eval_exit_2_lists_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"question": "q", "answer_text": "a"}\n\xff\n', encoding="latin-1")
    assert main(["eval", "--model", "majority", "--data", str(wrong), "--report",
                 str(tmp_path / "r.json"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "columns found: question, answer_text" in err and "--input-column" in err


@pytest.mark.parametrize("layout", ["jsonl", "json"])
def test_deeply_nested_record_costs_one_row(tmp_path: Path, layout: str) -> None:
    """A record nested past the JSON decoder's recursion limit is one unreadable row
    (a fuzz finding of issue 10), in a JSON-lines file and in a JSON array alike."""
    rows = [json.loads(line) for line in N3.read_text(encoding="utf-8").splitlines()[:6]]
    deep = '{"premise": ' + "[" * 100_000 + "]" * 100_000 + "}"
    texts = [json.dumps(r) for r in rows]
    texts.insert(2, deep)
    path = tmp_path / f"deep.{layout}"
    if layout == "jsonl":
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    else:
        path.write_text("[\n" + ",\n".join(texts) + "\n]\n", encoding="utf-8")
    report = run_audit(path).to_json()
    assert report["summary"]["items"] == 7 and report["summary"]["unreadable"] == 1
    [bad] = report["unreadable"]
    assert bad["row"] == (3 if layout == "jsonl" else 4) and "nested too deeply" in bad["error"]


def test_rows_are_offered_their_files_name(tmp_path: Path) -> None:
    """A family whose files are named after their task completes the rows read from them
    (CaLM: ``AR-B_CaLM-AR_EN.json`` holds records with no task); ``named=False`` gives the
    rows as the file holds them, and a file named otherwise is left alone."""
    from causal_oracle.clients.readers import read_records

    shipped = Path(__file__).parent / "data" / "calm" / "lite_sample" / "AR-B_CaLM-AR_EN.json"
    named = [r.row for r in read_records(shipped)]
    raw = [r.row for r in read_records(shipped, named=False)]
    assert all(row is not None and "task" not in row for row in raw)
    assert named == [{**row, "task": "AR-B_CaLM-AR", "lang": "EN"} for row in raw if row]
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "AR-B_CaLM-AR_EN.json").write_bytes(shipped.read_bytes())
    (folder / "records.json").write_bytes(shipped.read_bytes())
    rows = [r.row for r in read_records(folder)]
    assert sum(1 for row in rows if row and row.get("task") == "AR-B_CaLM-AR") == len(raw)
    assert sum(1 for row in rows if row and "task" not in row) == len(raw)


def test_a_files_row_namer_reads_each_row_as_named_row_does(tmp_path: Path) -> None:
    """``row_namer`` reads the file's name once; each row comes out as ``named_row``
    makes it (a CaLM record completed from its file's name, any other row as it is), and
    a JSONL audit reads its rows that way in one process and in several."""
    from causal_oracle.clients import readers
    from causal_oracle.entry.registry import Registry

    rows = [{"index": 1, "question": "q"}, {"task": "t", "index": 2}, {"premise": "p"}]
    for name in ("ATE-P_ATE-basic_CN.jsonl", "data.jsonl", "x/AR-B_CaLM-AR_EN.json"):
        namer = readers.row_namer(tmp_path / name)
        for row in rows:
            want = readers.named_row(dict(row), name)
            assert (row if namer is None else namer(dict(row))) == want
    assert readers.row_namer(tmp_path / "ATE-P_ATE-basic_CN.jsonl")(dict(rows[0])) != rows[0]
    assert Registry().file_namer("ATE-P_ATE-basic_CN.jsonl") is None  # no family reads names
    path = tmp_path / "ATE-P_ATE-basic_CN.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows * 40), encoding="utf-8")
    one, two = (run_audit(path, workers=w).totals for w in (1, 2))
    assert one.families.keys() == two.families.keys()
    assert {k: v.counts.to_json() for k, v in one.families.items()} == \
        {k: v.counts.to_json() for k, v in two.families.items()}
