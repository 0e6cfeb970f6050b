"""Every surface of an audit shows the same counts, for every family (DESIGN.md §3.9).

For each registered family's sample, the test family of ``tests/toy_family.py``, the
n = 4 file and a file with hand-corrupted premises, one ``causal-oracle audit`` writes
the CLI table, the JSON report, the gate's message, JUnit, ``--records`` and the HTML
page; each is read back and its counts by outcome must be the JSON summary's, which
sum to the items.  The browser test opens each page in headless Chromium: every
finding is a row of the findings table (unreadable rows with their parse error and
caret), and the page's count cells are the JSON's.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from causal_oracle.clients.audit_table import HEADS
from causal_oracle.clients.cli import main
from causal_oracle.entry import REGISTRY
from causal_oracle.entry.audit_record import Outcome

TESTS = Path(__file__).parent
ROOT = TESTS.parent
DATA = TESTS / "data"
MODELS = DATA / "cladder" / "test-model-meta.json"

#: (name, path, extra options, the family whose sample it is)
SAMPLES = [
    ("corr2cause", ROOT / "examples" / "corr2cause_sample.jsonl", [], "corr2cause"),
    ("cibench", ROOT / "examples" / "cibench_sample.jsonl", [], "cibench"),
    ("ie", DATA / "ie", [], "ie"),
    ("clear", DATA / "clear" / "items_subset.jsonl", [], "clear"),
    *((f"cladder-{k}", DATA / "cladder" / f"test-generate-{k}.json",
       ["--cladder-models", str(MODELS)], "cladder") for k in ("easy", "hard", "det", "anti")),
    ("ie-examples", ROOT / "examples" / "ie_sample.jsonl", [], "ie"),
    ("corr2cause++", DATA / "corr2causepp" / "sample.json", [], "corr2cause++"),
    ("n4", DATA / "n4.jsonl", [], "corr2cause"),
    ("corrupted", DATA / "corrupted_premises.jsonl", [], "corr2cause"),
    ("toy", None, [], "toy"),
    # CaLM as shipped: records carry no task, their file's name does; the full set has
    # no gold (every item ``answered``)
    ("calm-lite", DATA / "calm" / "lite_sample", [], "calm"),
    ("calm-full", DATA / "calm" / "full_sample", [], "calm"),
    ("calm-ate-p-cn", DATA / "calm" / "lite_sample" / "ATE-P_ATE-basic_CN.json", [], "calm"),
]
FAIL_ON = "disagree,ambiguous,undetermined,inconsistent,unreadable"
OUTCOMES = [o.value for o in Outcome]
_GATE = {"disagree": r"(\d+) disagreement\(s\)", "ambiguous": r"(\d+) ambiguous item",
         "undetermined": r"(\d+) undetermined item", "inconsistent": r"(\d+) item\(s\) on incons",
         "unreadable": r"(\d+) unreadable row", "internal_error": r"(\d+) row\(s\) the oracle"}


@pytest.fixture(scope="module")
def toy() -> Iterator[None]:
    sys.path.insert(0, str(TESTS))
    import toy_family

    REGISTRY.register(toy_family.FAMILY)
    yield
    REGISTRY.unregister(toy_family.FAMILY.name)


def _toy_rows(path: Path) -> Path:
    rows = [{"id": "t1", "toy": "Toy: is 3 + 4 even?", "even": "no"},
            {"id": "t2", "toy": "Toy: is 2 + 4 even?", "even": "no"},  # wrong gold
            {"id": "t3", "toy": "Toy: is three + 4 even?", "even": "no"},  # unreadable
            {"id": "t4", "toy": "Toy: is 1 + 1 even?", "even": "yes"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _audit(name: str, source: Path | None, extra: list[str], tmp: Path,
           capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Run one audit writing every surface; return what each surface says."""
    path = source if source is not None else _toy_rows(tmp / "toy_rows.jsonl")
    out = {k: tmp / f"{name}.{k}" for k in ("json", "xml", "jsonl", "html")}
    capsys.readouterr()
    code = main(["audit", str(path), "--quiet", "--report", str(out["json"]), "--junit",
                 str(out["xml"]), "--records", str(out["jsonl"]), "--html", str(out["html"]),
                 "--fail-on", FAIL_ON, *extra])
    printed = capsys.readouterr().out
    report = json.loads(out["json"].read_text(encoding="utf-8"))
    s = report["summary"]
    assert code == (3 if s["items"] != s["agree"] + s["answered"] else 0)
    return {"report": report, "printed": printed, "code": code, **out}


def _table(printed: str) -> dict[str, int]:
    """The CLI table's overall row, by outcome (columns it does not show count 0)."""
    lines = printed.splitlines()
    words = {v: k.value for k, v in HEADS.items()}
    heads = lines[0].split()
    overall = next(line for line in lines if line.startswith("overall")).split()[1:]
    counts = dict(zip(heads, map(int, overall), strict=True))
    return {"items": counts["items"],
            **{o: 0 for o in OUTCOMES},
            **{words[h]: n for h, n in counts.items() if h != "items"}}


def _gate(printed: str) -> dict[str, int]:
    line = next((x for x in printed.splitlines() if x.startswith("gate failed")), "")
    return {o: int(m.group(1)) if (m := re.search(p, line)) else 0 for o, p in _GATE.items()}


def _junit(path: Path) -> tuple[dict[str, int], Counter[str]]:
    suite = ET.parse(path).getroot()
    kinds: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    for case in suite.findall("testcase"):
        classes[case.get("classname", "")] += 1
        for tag in ("failure", "error"):
            node = case.find(tag)
            if node is not None:
                kinds[{"disagreement": "disagree"}.get(node.get("type", ""),
                                                        node.get("type", ""))] += 1
        skipped = case.find("skipped")
        if skipped is not None:
            kinds[skipped.get("message", "").split(":")[0]] += 1
    counts = {o: kinds[o] for o in OUTCOMES if o not in ("agree", "answered")}
    counts["items"] = len(suite.findall("testcase"))
    counts["passed"] = counts["items"] - sum(kinds.values())
    assert int(suite.get("tests", -1)) == counts["items"]
    assert int(suite.get("failures", -1)) == counts["disagree"] + counts["inconsistent"]
    assert int(suite.get("errors", -1)) == counts["unreadable"] + counts["internal_error"]
    assert int(suite.get("skipped", -1)) == counts["ambiguous"] + counts["undetermined"]
    return counts, classes


def _page_data(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    return dict(json.loads(text.split('<script id="data" type="application/json">')[1]
                           .split("</script>")[0]))


@pytest.mark.parametrize("name,source,extra,family", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_every_surface_gives_the_same_counts(name: str, source: Path | None, extra: list[str],
                                             family: str, toy: None, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    got = _audit(name, source, extra, tmp_path, capsys)
    summary = got["report"]["summary"]
    assert sum(summary[o] for o in OUTCOMES) == summary["items"] > 0
    assert family in got["report"]["families"]
    # the CLI table and the gate
    assert _table(got["printed"]) == {k: summary[k] for k in ("items", *OUTCOMES)}
    assert _gate(got["printed"]) == {o: summary[o] for o in _GATE}
    # JUnit: one case per item, its class the family
    junit, classes = _junit(got["xml"])
    passed = junit.pop("passed")  # an answered item (no gold) passes: its certificate held
    assert passed == summary["agree"] + summary["answered"]
    assert junit == {k: summary[k] for k in junit}
    assert classes[family] == got["report"]["families"][family]["summary"]["items"]
    # --records: one line per item
    records = [json.loads(line) for line in got["jsonl"].read_text().splitlines()]
    assert len(records) == summary["items"]
    assert Counter(r["outcome"] for r in records) == {o: summary[o] for o in OUTCOMES
                                                       if summary[o]}
    assert {"id", "family", "facets", "gold", "derived", "outcome", "reason",
            "causes"} <= set(records[0])
    # the HTML: every finding listed, the count cells the JSON's
    findings = Counter(f["type"] for f in _page_data(got["html"])["findings"]
                       if f["type"] != "3-class")
    assert findings == {o: summary[o] for o in OUTCOMES
                        if o not in ("agree", "answered") and summary[o]}
    page = got["html"].read_text(encoding="utf-8")
    for external in ("https://", "src=", "<link"):  # self-contained: nothing fetched
        assert external not in page
    assert page.count("http://") == page.count("http://www.w3.org/2000/svg")
    for outcome in OUTCOMES:
        cell = re.search(f'id="count-{outcome}">(\\d+)<', page)
        assert cell is None or int(cell.group(1)) == summary[outcome], outcome
    # the legend speaks only of the outcomes its families have
    if family in ("cibench", "ie", "clear", "toy"):
        assert "DAG fits" not in got["printed"] and "profiles" not in got["printed"]


def test_the_cladder_page_counts_undetermined_and_no_disagreement(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name, source, extra, _ = next(s for s in SAMPLES if s[0] == "cladder-easy")
    got = _audit(name, source, extra, tmp_path, capsys)
    s = got["report"]["summary"]
    assert (s["disagree"], s["ambiguous"], s["undetermined"]) == (0, 2, 6)
    page = got["html"].read_text(encoding="utf-8")
    assert 'id="count-undetermined">6<' in page and 'id="count-disagree">0<' in page
    ambiguous = [f for f in _page_data(got["html"])["findings"] if f["type"] == "ambiguous"]
    facts = dict(ambiguous[0]["drawing"]["facts"])
    assert {"estimand", "identification", "formula", "bounds"} <= set(facts)


def test_calm_files_are_read_by_their_name_and_drawn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A CaLM record names no task: the file's name gives the exact task and language
    (``Registry.file_row``), so a numeric file is its own task, not ``<KIND>-any``; a
    finding is drawn with its graph."""
    name, source, extra, _ = next(s for s in SAMPLES if s[0] == "calm-ate-p-cn")
    got = _audit(name, source, extra, tmp_path, capsys)
    assert got["report"]["by_task"].keys() == {"ATE-P_ATE-basic"}
    assert "task ATE-P_ATE-basic " in got["printed"]
    records = [json.loads(line) for line in got["jsonl"].read_text().splitlines()]
    assert {(r["facets"]["task"], r["facets"]["language"]) for r in records} == {
        ("ATE-P_ATE-basic", "CN")}
    lite = _audit("calm-lite", DATA / "calm" / "lite_sample", [], tmp_path, capsys)
    assert len(lite["report"]["by_task"]) == len(list(source.parent.glob("*_EN.json")))
    findings = _page_data(lite["html"])["findings"]
    assert findings and all(f["drawing"]["graphs"][0]["directed"] for f in findings)
    assert all(f["drawing"]["explanation"] for f in findings)


def test_a_full_set_audit_answers_every_item_and_writes_no_gold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CaLM withholds the full set's gold: each item is answered (or found ambiguous),
    none unreadable; the corrected copy keeps the records as shipped (no gold written)."""
    source = DATA / "calm" / "full_sample"
    got = _audit("calm-full", source, [], tmp_path, capsys)
    s = got["report"]["summary"]
    assert s["unreadable"] == s["internal_error"] == s["agree"] == s["disagree"] == 0
    assert s["answered"] + s["ambiguous"] + s["undetermined"] == s["items"] > 0
    assert s["answered"] > s["ambiguous"] > 0  # options at fault, found without the gold
    assert set(s.get("undetermined_reasons", {})) <= {"degenerate question"}
    assert all(f["type"] != "answered" for f in _page_data(got["html"])["findings"])
    records = [json.loads(line) for line in got["jsonl"].read_text().splitlines()]
    assert all(r["gold"] is None and r["derived"] for r in records)
    out = tmp_path / "corrected.jsonl"
    capsys.readouterr()
    main(["audit", str(source / "AR-B_CaLM-AR_EN.json"), "--quiet", "--write-corrected",
          str(out)])
    given = [json.loads(line) for line in
             (source / "AR-B_CaLM-AR_EN.json").read_text(encoding="utf-8").splitlines()]
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [{k: v for k, v in w.items() if k != "oracle_change"} for w in written] == given
    assert {w["oracle_change"] for w in written} <= {""} | {
        w["oracle_change"] for w in written if w["oracle_change"].startswith("ambiguous")}


def _driver() -> Any:  # pragma: no cover - depends on the machine
    webdriver = pytest.importorskip("selenium.webdriver")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.skip("chromium / chromedriver not installed (.ci/run installs them)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--disable-gpu", "--window-size=1400,1800"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver_path), options=options)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = _driver()
    yield driver
    driver.quit()


@pytest.mark.parametrize("name,source,extra,family", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_every_finding_is_on_the_page_in_a_browser(
        name: str, source: Path | None, extra: list[str], family: str, toy: None,
        browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from selenium.webdriver.common.by import By

    got = _audit(name, source, extra, tmp_path, capsys)
    summary = got["report"]["summary"]
    browser.get(got["html"].as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.finding")
    shown = Counter(r.get_attribute("data-outcome") for r in rows)
    shown.pop("3-class", None)
    assert shown == {o: summary[o] for o in OUTCOMES
                     if o not in ("agree", "answered") and summary[o]}
    for outcome in OUTCOMES:
        cells = browser.find_elements(By.ID, f"count-{outcome}")
        assert not cells or int(cells[0].text) == summary[outcome], outcome
    assert browser.find_element(By.ID, "source").text.endswith(
        got["report"]["source"]["path"][-20:])
    for row in rows:  # each unreadable row opens to its error, caret included
        if row.get_attribute("data-outcome") != "unreadable":
            continue
        row.click()
        error = browser.find_element(By.ID, "drill-reason").text
        entry = next(u for u in got["report"]["unreadable"]
                     if str(u["row"]) == row.find_element(By.CLASS_NAME, "c-row").text)
        assert error == entry["error"].strip()
        if name == "corrupted":
            assert "line 1, column" in error and error.rstrip().endswith("^")
    disagreements = [r for r in rows if r.get_attribute("data-outcome") in
                     ("disagree", "ambiguous", "undetermined", "inconsistent")]
    if disagreements and family != "toy":
        disagreements[0].click()
        drill = browser.find_element(By.ID, "drill")
        assert drill.is_displayed()
        assert browser.find_element(By.ID, "drill-text").text  # the explanation
        if family != "corr2cause++" or browser.find_elements(By.CSS_SELECTOR, "svg.graph"):
            assert drill.find_elements(By.CSS_SELECTOR, "svg.graph circle.node")


@pytest.mark.parametrize("name", ["n4.jsonl", "hf_layout_sample.csv"])
def test_records_stream_in_row_order_with_workers(name: str) -> None:
    from causal_oracle.clients.audit import run_audit
    from causal_oracle.entry.audit_record import AuditRecord

    def collect(into: list[AuditRecord]) -> Any:
        return into.extend

    serial: list[AuditRecord] = []
    parallel: list[AuditRecord] = []
    report = run_audit(DATA / name, workers=1, sink=collect(serial))
    run_audit(DATA / name, workers=2, sink=collect(parallel))
    assert [r.to_json() for r in serial] == [r.to_json() for r in parallel]
    assert [r.row for r in serial] == sorted(r.row for r in serial)
    assert len(serial) == report.summary.items
    assert Counter(r.outcome for r in serial) == {o: report.summary[o] for o in Outcome
                                                   if report.summary[o]}
