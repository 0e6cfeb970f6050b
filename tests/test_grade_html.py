"""``causal-oracle grade FILE --html OUT.html``: the graded file as a self-contained page.

The file mixes every family (``test_grade_file.build_rows``: the oracle's answers,
flipped answers, the gold, junk) with a broken line and a row without a reply.  The
page must need nothing from outside, show the JSON summary's counts, and list every
row — each wrong, unreadable and error row among them, before the correct ones.  The
browser test opens it in headless Chromium (skipping where Chromium or chromedriver is
missing, as the audit's does) and reads the counts and rows the script draws.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_audit_surfaces import _driver
from test_grade_file import build_rows

from causal_oracle.clients.cli import main
from causal_oracle.clients.grade_html import COLUMNS, GRADES, percent, render_grade_html

FIRST = ("wrong", "UNREADABLE", "error")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The file graded once: its JSON report and its page (in a folder not yet made)."""
    folder = tmp_path_factory.mktemp("grade_html")
    data = folder / "replies.jsonl"
    lines = [json.dumps(row) for row in build_rows(120, per_family=4)]
    lines.insert(5, '{"id": "broken", "prompt": ')
    lines.insert(9, json.dumps({"id": "silent", "prompt": "Is A a cause of B?"}))
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page, report = folder / "new" / "page.html", folder / "report.json"
    code = main(["grade", str(data), "--html", str(page), "--report", str(report)])
    assert code == 0
    return {"page": page, "report": json.loads(report.read_text(encoding="utf-8")),
            "data": data}


def _payload(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8")
    return json.loads(text.split('<script id="data" type="application/json">')[1]
                      .split("</script>")[0])


def test_the_page_needs_nothing_from_outside(graded: dict[str, Any]) -> None:
    text = graded["page"].read_text(encoding="utf-8")
    assert text.count("http://") == text.count("http://www.w3.org/2000/svg")
    assert "https://" not in text and "src=" not in text and "<link" not in text
    assert "<style>" in text and "<svg" in text


def test_the_counts_are_the_json_summary(graded: dict[str, Any]) -> None:
    text = graded["page"].read_text(encoding="utf-8")
    s = graded["report"]["summary"]
    assert s["errors"] == 2 and s["scored"] > s["readable"] > s["correct"] > 0
    expected = {**s, "unreadable": s["scored"] - s["readable"]}
    for key, _ in COLUMNS:
        value = expected[key]
        shown = percent(value) if isinstance(value, float) or value is None else str(value)
        assert f'id="count-{key}">{shown}<' in text, key
    for family in graded["report"]["by_family"]:
        assert f"<th>family {family}</th>" in text
    for task in graded["report"]["by_task"]:
        assert f"<th>task {task}</th>" in text


def test_every_row_is_listed_wrong_and_unreadable_first(graded: dict[str, Any]) -> None:
    records = graded["report"]["records"]
    rows = _payload(graded["page"])["findings"]
    assert sorted(r["row"] for r in rows) == [r["row"] for r in records]
    by_row = {r["row"]: r for r in rows}
    for record in records:
        row = by_row[record["row"]]
        assert row["type"] == record["outcome"]
        assert (row["normalised"], row["expected"]) == \
            (record.get("normalised"), record.get("expected"))
        assert row["reason"] == (record.get("error") or record.get("reason"))
    kinds = [r["type"] for r in rows]
    assert {"wrong", "UNREADABLE", "error", "correct"} <= set(kinds)
    last_first = max(i for i, k in enumerate(kinds) if k in FIRST)
    assert all(k in FIRST for k in kinds[:last_first + 1])


def test_an_existing_page_is_kept_when_the_grading_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("old", encoding="utf-8")
    data = tmp_path / "two.jsonl"
    data.write_text('{"prompt": "x", "response": "yes", "output": "no"}\n', encoding="utf-8")
    assert main(["grade", str(data), "--html", str(page)]) == 2
    assert page.read_text(encoding="utf-8") == "old"
    assert main(["grade", str(data), "--html", str(data), "--reply-column", "response"]) == 2
    assert main(["grade", "--prompt", "x", "--reply", "yes", "--html", str(page)]) == 2


def test_the_renderer_takes_a_result_in_memory() -> None:
    import causal_oracle as co

    root = Path(__file__).parent.parent
    result = co.grade_file(root / "examples" / "ie_sample.jsonl", reply_column="label")
    text = render_grade_html(result.to_json())
    assert 'id="count-items">' + str(result.summary.items) + "<" in text


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = _driver()
    yield driver
    driver.quit()


def test_the_page_in_a_browser(graded: dict[str, Any], browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    report = graded["report"]
    browser.get(graded["page"].as_uri())
    assert browser.find_element(By.ID, "count-items").text == str(report["summary"]["items"])
    assert browser.find_element(By.ID, "count-accuracy").text == \
        percent(report["summary"]["accuracy"])
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.finding")
    shown = Counter(r.get_attribute("data-outcome") for r in rows)
    assert shown == Counter(r["outcome"] for r in report["records"])
    assert rows[0].get_attribute("data-outcome") in FIRST
    assert browser.find_element(By.ID, "count").text == f"{len(rows)} of {len(rows)}"
    Select(browser.find_element(By.ID, "outcome")).select_by_value("UNREADABLE")
    unreadable = browser.find_elements(By.CSS_SELECTOR, "tr.finding")
    wanted = sorted(r["row"] for r in report["records"] if r["outcome"] == "UNREADABLE")
    assert sorted(int(r.find_element(By.CLASS_NAME, "c-row").text) for r in unreadable) == wanted
    unreadable[0].click()
    assert browser.find_element(By.ID, "drill").is_displayed()
    assert "UNREADABLE" in browser.find_element(By.ID, "drill-title").text
    Select(browser.find_element(By.ID, "outcome")).select_by_value("")
    box = browser.find_element(By.ID, "filter")
    box.send_keys("silent")
    assert [r.get_attribute("data-outcome") for r in
            browser.find_elements(By.CSS_SELECTOR, "tr.finding")] == ["error"]
    assert set(GRADES) >= set(shown)


@pytest.fixture(scope="module")
def reasoned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A file of reasoned replies graded with ``--reasoning --html``."""
    from test_grade_file import _reasoned_file

    folder = tmp_path_factory.mktemp("grade_html_reasoning")
    page, report = folder / "page.html", folder / "report.json"
    assert main(["grade", str(_reasoned_file(folder)), "--reasoning", "--html", str(page),
                 "--report", str(report)]) == 0
    return {"page": page, "report": json.loads(report.read_text(encoding="utf-8"))}


def test_claim_spans_are_marked_by_verdict_with_why(reasoned: dict[str, Any]) -> None:
    text = reasoned["page"].read_text(encoding="utf-8")
    assert 'id="reasoning-summary">' in text and "1 of 3 (33.3%)" in text
    claims = [c for r in reasoned["report"]["records"] for c in r["reasoning"]["claims"]]
    assert text.count('<mark class="claim ') == len(claims)
    titles = [html.unescape(t.split('"', 1)[0]) for t in text.split(' title="')[1:]]
    for c in claims:
        assert f"{c['kind']} — {c['verdict'].replace('_', ' ')}: {c['why']}" in titles
    assert "http" not in text.split('id="reasoning-summary"')[1]  # still self-contained
    plain = render_grade_html({**reasoned["report"], "summary": {
        k: v for k, v in reasoned["report"]["summary"].items() if k != "reasoning"}})
    assert "<mark class" not in plain and "reasoning-summary" not in plain


def test_overlapping_claims_share_one_mark() -> None:
    from causal_oracle.clients.grade_html import highlighted

    claims = [{"span": [0, 6], "kind": "edge", "verdict": "true", "why": "w1"},
              {"span": [0, 6], "kind": "edge", "verdict": "false", "why": "w2"},
              {"span": [8, 9], "kind": "answer", "verdict": "not_decidable", "why": "<w3>"}]
    got = highlighted("A -> B. Y", claims)
    assert got.count("<mark") == 2 and "w1\nedge — false: w2" in got and "&lt;w3&gt;" in got
    assert got.startswith('<mark class="claim claim-false"') and got.endswith("Y</mark>")


def test_the_highlighted_reasoning_in_a_browser(reasoned: dict[str, Any], browser: Any
                                                ) -> None:
    from selenium.webdriver.common.by import By

    browser.get(reasoned["page"].as_uri())
    marks = browser.find_elements(By.CSS_SELECTOR, "mark.claim")
    records = reasoned["report"]["records"]
    claims = [c for r in records for c in r["reasoning"]["claims"]]
    assert [m.text for m in marks] == [c["text"] for c in claims]
    colours = {"true": "rgba(200, 230, 201, 1)", "false": "rgba(255, 205, 210, 1)",
               "not_decidable": "rgba(224, 224, 224, 1)"}
    for mark, claim in zip(marks, claims, strict=True):
        assert mark.value_of_css_property("background-color") == colours[claim["verdict"]]
        assert claim["why"] in mark.get_attribute("title")
    lucky = browser.find_element(By.ID, f"reply-{records[0]['row']}")
    assert "lucky" in lucky.find_element(By.CLASS_NAME, "who").text
