"""A scanned PDF uploaded in the real dashboard (headless Debian Chromium): OCR with
progress, the OCR tab with the page image and the OCR text, searchable, its evidence found
by a proof check. Screenshots at 1400 and 800 px go to screenshots/ for a person to look at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_harness import chromium_browser, running_app, wait_for_app
from conftest import require_browser

from benchmarks.scanbench import ScanDoc, image_pdf, render_pages
from tests.test_scans import POLICY, _font

pytestmark = [
    pytest.mark.browser,
    pytest.mark.usefixtures("tesseract"),
]


@pytest.fixture(autouse=True, scope="module")
def _browser():
    require_browser()

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "screenshots"
UPLOAD_INPUT = '[data-testid="stFileUploader"] input[type="file"]'
ALERT = '[data-testid="stAlert"]'

HAMPERS = ScanDoc(
    "hampers",
    "Hamper Refunds",
    ("Refunds for quokkaberry hampers are paid to the original card within 5 working "
     "days of the return.",),
)


def _scan() -> bytes:
    first, _ = render_pages(POLICY, 200, _font(), seed=3)
    second, _ = render_pages(HAMPERS, 200, _font(), seed=4)
    return image_pdf([*first, *second], 200)


def _shot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    tall = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
        "[data-testid=\"stAppViewContainer\"]')].map(e => e.scrollHeight), 0)"
    )
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": min(max(tall, size["height"]), 8000)})
    page.wait_for_timeout(500)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)
    return path


def _image_share(panel) -> float:
    """The page image's drawn width as a share of the OCR tab's width (issue 29: it was a
    thumbnail beside a long OCR column)."""
    image = panel.locator('[data-testid="stImage"] img').first
    return image.evaluate("img => img.getBoundingClientRect().width") / panel.evaluate(
        "p => p.getBoundingClientRect().width"
    )


def test_an_uploaded_scan_is_ocrd_with_progress_shown_searchable_and_proven(tmp_path):
    source = tmp_path / "scan-notes.pdf"
    source.write_bytes(_scan())
    ws = tmp_path / "ws"
    with chromium_browser() as browser, running_app(workspace=ws) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        page.goto(f"{url}/documents")
        wait_for_app(page)
        page.set_input_files(UPLOAD_INPUT, str(source))
        # progress names the page being OCR'd, and the time it has taken
        progress = r"Reading scan-notes\.pdf: OCR: page \d of 2 · \d+ s elapsed"
        page.get_by_text(re.compile(progress)).wait_for()
        page.locator(ALERT, has_text="scan-notes.pdf added to the workspace").wait_for()
        assert (ws / "uploads" / "scan-notes.pdf").is_file()
        wait_for_app(page)
        page.locator('[data-testid="stExpander"] summary', has_text="scan-notes —").click()
        tab = page.get_by_role("tab", name="OCR (scanned pages)")
        tab.click()
        panel = page.locator('[role="tabpanel"]', has=page.get_by_text("Words read"))
        panel.get_by_text("Confidence", exact=True).wait_for()
        image = panel.locator('[data-testid="stImage"] img').first
        image.wait_for()
        assert image.evaluate("img => img.naturalWidth") > 300  # the page image, drawn
        assert "red boxes are words" in panel.inner_text()
        assert _image_share(panel) > 0.9, "the page image is as wide as the tab, not a thumbnail"
        text = " ".join(panel.locator(".rd-passage").first.inner_text().split())
        assert "Returns are accepted within 30 days" in text
        assert page.locator('[data-testid="stException"]').count() == 0
        _shot(page, "scan-ocr-tab-1400")
        page.set_viewport_size({"width": 800, "height": 1000})
        page.wait_for_timeout(800)
        overflow = page.evaluate(
            "() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth"
            " - document.querySelector('[data-testid=\"stMain\"]').clientWidth"
        )
        assert overflow <= 1, "the OCR tab fits an 800 px window"
        assert _image_share(panel) > 0.9, "at 800 px too, the page image fills the tab"
        _shot(page, "scan-ocr-tab-800")

        # searchable, and a proof check finds its evidence on the OCR'd page 2
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.goto(
            f"{url}/?q=quokkaberry+hampers+refunds&fixes=none&expect=scan-notes"
            "&evidence=5+working+days"
        )
        wait_for_app(page)
        verdict = page.locator('[data-testid="stMain"] .rd-verdict.rd-v-pass').first
        verdict.wait_for()
        assert verdict.inner_text().strip().startswith("PASS")
        assert "scan-notes" in page.locator('[data-testid="stMain"]').inner_text()
        page.close()
