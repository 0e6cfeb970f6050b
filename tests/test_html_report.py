"""The HTML audit report, opened in a real browser (headless Chromium via selenium).

``.ci/run`` installs the distribution's ``chromium`` and ``chromium-driver`` when they
are missing, so in CI this test runs; elsewhere it skips with the reason.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from causal_oracle.clients.cli import main
from causal_oracle.clients.html_report import render_html

DATA = Path(__file__).parent / "data"


def _report(tmp_path: Path) -> Path:
    out = tmp_path / "report.html"
    assert main(["audit", str(DATA / "n4.jsonl"), "--quiet", "--html", str(out)]) == 0
    return out


def test_report_is_self_contained(tmp_path: Path) -> None:
    text = _report(tmp_path).read_text(encoding="utf-8")
    assert "<svg" in text and "Cause classes" in text
    for external in ("http://", "https://", "src=", "<link"):
        if external == "http://":  # only the SVG namespace may name a URL
            assert text.count("http://") == text.count("http://www.w3.org/2000/svg")
        else:
            assert external not in text
    data = json.loads(text.split('<script id="data" type="application/json">')[1]
                      .split("</script>")[0])
    findings = data["findings"]
    assert any(f["type"] == "disagree" for f in findings)
    first = next(f for f in findings if f["type"] == "disagree")
    drawing = first["drawing"]
    assert "Conclusion:" in drawing["explanation"] and drawing["graphs"][0]["names"]


def test_witness_is_highlighted_in_the_drawing() -> None:
    premise = ("Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
               "relations among these 3 variables are as follows: A correlates with C. B "
               "correlates with C. However, A is independent of B.")
    from causal_oracle import audit
    report = audit([{"premise": premise, "hypothesis": "A directly causes C.", "label": 0}])
    page = render_html(report.to_json())
    data = json.loads(page.split('<script id="data" type="application/json">')[1]
                      .split("</script>")[0])
    cpdag, member = data["findings"][0]["drawing"]["graphs"]
    assert cpdag["directed"] == [["A", "C"], ["B", "C"]] and cpdag["highlight"] == [["A", "C"]]
    assert member["title"] == "member 1: witness"


def _driver():  # pragma: no cover - depends on the machine
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


def test_report_in_headless_chromium(tmp_path: Path) -> None:
    page = _report(tmp_path)
    driver = _driver()
    try:
        from selenium.webdriver.common.by import By

        driver.get(page.as_uri())
        rows = driver.find_elements(By.CSS_SELECTOR, "tr.finding")
        assert rows, "the findings table is empty"
        total = len(rows)
        # filter: only disagreements on the direct-cause relation
        box = driver.find_element(By.ID, "filter")
        box.send_keys("direct_cause")
        filtered = driver.find_elements(By.CSS_SELECTOR, "tr.finding")
        assert 0 < len(filtered) < total
        assert all("direct_cause" in r.text for r in filtered)
        # sort by row: ascending at first, one click on the header reverses it
        def numbers() -> list[int]:
            return [int(r.find_element(By.CLASS_NAME, "c-row").text)
                    for r in driver.find_elements(By.CSS_SELECTOR, "tr.finding")]

        assert numbers() == sorted(numbers())
        driver.find_element(By.CSS_SELECTOR, 'th[data-key="row"]').click()
        assert numbers() == sorted(numbers(), reverse=True) and len(set(numbers())) > 1
        # drill-down: the class is drawn, the witness in red, the explanation shown
        driver.find_elements(By.CSS_SELECTOR, "tr.finding")[0].click()
        drill = driver.find_element(By.ID, "drill")
        assert drill.is_displayed()
        graphs = drill.find_elements(By.CSS_SELECTOR, "svg.graph")
        assert graphs and graphs[0].size["width"] > 100
        assert drill.find_elements(By.CSS_SELECTOR, "svg.graph circle.node")
        assert drill.find_elements(By.CSS_SELECTOR, "svg.graph line.edge")
        assert drill.find_elements(By.CSS_SELECTOR, "svg.graph line.witness")
        assert "Conclusion:" in driver.find_element(By.ID, "drill-text").text
        charts = driver.find_elements(By.CSS_SELECTOR, "svg.chart rect")
        assert charts
        shot = tmp_path / "report.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        print(f"screenshot: {shot}")
    finally:
        driver.quit()
