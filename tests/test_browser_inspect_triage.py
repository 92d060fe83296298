"""Issue 43 in the real dashboard (headless Debian Chromium) at 1400 and 800 px: an uploaded
scan OCR was unsure of is never called Good — its verdict box is amber or red, and the
documents list says so in its verdict column — and "Triage this query" on Explore opens
Triage filled in and diagnosed in one click. Screenshots go to screenshots/ for a person
to look at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_harness import chromium_browser, running_app, wait_for_app
from conftest import require_browser

from tests.test_ocr_verdict import unsure_scan

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True, scope="module")
def _browser():
    """Chromium and playwright: skipped without them here, a failure in CI."""
    require_browser()

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "screenshots"
UPLOAD_INPUT = '[data-testid="stFileUploader"] input[type="file"]'
ALERT = '[data-testid="stAlert"]'
VERDICT = "Will this PDF be retrieved correctly?"


def _shot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.wait_for_timeout(600)
    page.screenshot(path=str(path), full_page=False)
    return path


def _overflow(page) -> int:
    return page.evaluate(
        "() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth"
        " - document.querySelector('[data-testid=\"stMain\"]').clientWidth"
    )


@pytest.mark.usefixtures("tesseract")
def test_an_unsure_scan_is_never_good_on_the_documents_page(tmp_path):
    source = tmp_path / "unsure-scan.pdf"
    source.write_bytes(unsure_scan())
    with chromium_browser() as browser, running_app(workspace=tmp_path / "ws") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(90_000)
        page.goto(f"{url}/documents")
        wait_for_app(page)
        page.set_input_files(UPLOAD_INPUT, str(source))
        page.get_by_text(re.compile(r"OCR: page 1 of 1 · \d+ s elapsed")).wait_for()
        page.locator(ALERT, has_text="unsure-scan.pdf added to the workspace").wait_for()
        wait_for_app(page)
        grid = page.locator('[data-testid="stDataFrame"]').first
        grid.wait_for()
        page.locator('[data-testid="stExpander"] summary', has_text="unsure-scan —").click()
        page.get_by_role("tab", name="Inspection").last.click()
        box = page.locator(ALERT, has_text=VERDICT).filter(has_text="OCR was unsure").first
        box.wait_for()
        assert not box.inner_text().split("?", 1)[1].strip().startswith("Good")
        amber_or_red = page.locator(
            '[data-testid="stAlertContentWarning"], [data-testid="stAlertContentError"]',
            has_text="OCR was unsure",
        )
        assert amber_or_red.count() >= 1, "the verdict box is amber or red, not green"
        assert page.locator('[data-testid="stException"]').count() == 0
        box.scroll_into_view_if_needed()
        _shot(page, "documents-unsure-scan-1400")
        page.set_viewport_size({"width": 800, "height": 900})
        page.wait_for_timeout(800)
        assert _overflow(page) <= 1, "the Documents page fits an 800 px window"
        box.scroll_into_view_if_needed()
        _shot(page, "documents-unsure-scan-800")
        grid.scroll_into_view_if_needed()
        _shot(page, "documents-list-800")
        # the OCR tab says where the unsure words are in words, not point coordinates
        page.get_by_role("tab", name="OCR (scanned pages)").last.click()
        words = page.get_by_text("Low-confidence words")
        words.wait_for()
        words.scroll_into_view_if_needed()
        _shot(page, "documents-ocr-words-800")
        # a table a page break cut, drawn as a table with the fix off and on
        page.locator('[data-testid="stExpander"] summary', has_text="plans —").click()
        plans = page.locator('[data-testid="stExpander"]', has_text="plans —").first
        plans.get_by_role("tab", name="Passages").click()
        title = plans.get_by_text("Tables cut by a page break (1), fix off and on")
        title.wait_for()
        joined = plans.locator('table[aria-label="Table 1 joined"]')
        assert "Basic" in joined.inner_text() and "10 Go" in joined.inner_text()
        title.scroll_into_view_if_needed()
        _shot(page, "documents-joined-table-800")
        page.set_viewport_size({"width": 1400, "height": 1000})
        title.scroll_into_view_if_needed()
        _shot(page, "documents-joined-table-1400")
        page.close()


def test_triage_this_query_opens_triage_filled_in_and_diagnosed(tmp_path):
    with chromium_browser() as browser, running_app(workspace=tmp_path / "ws") as url:
        for width, height in ((1400, 1000), (800, 900)):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(90_000)
            page.goto(f"{url}/?q=return+policy+days&fixes=recency&expect=returns-2026"
                      "&evidence=30+days")  # fmt: skip
            wait_for_app(page)
            page.get_by_role("button", name="Triage this query").click()
            page.wait_for_url(re.compile(r"/triage"))
            page.get_by_text("Opened from Explore").wait_for()
            wait_for_app(page)
            save = page.get_by_role("button", name="Save as case")
            save.wait_for()
            # the verdict and Save as case in the first screenful, the form folded above
            verdict = page.locator(ALERT, has_text="Ranking or filtering problem").first
            for shown in (verdict, save):
                assert shown.bounding_box()["y"] + 20 < height, "below the fold"
            assert page.locator('[data-testid="stException"]').count() == 0
            _shot(page, f"triage-from-explore-{width}")
            page.locator('[data-testid="stExpander"] summary', has_text="The report:").click()
            query = page.get_by_role("textbox", name="Query, as near as the report gives it")
            assert query.input_value() == "return policy days"
            assert _overflow(page) <= 1
            _shot(page, f"triage-report-open-{width}")
            page.close()
