"""Bidi and zero-width characters in the Test suite's grids, in headless Chromium (issue 24
#9): a case named with a right-to-left override (U+202E) and a zero-width space shows them
as ``⟨U+202E⟩`` / ``⟨U+200B⟩`` in the page's text — the case table, and the saved-runs grid
(drawn on a canvas; its cells are read from the grid's accessible table) — never raw."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest
from browser_harness import chromium_browser, running_app, wait_for_app
from conftest import SAMPLE_CASES, SAMPLE_DOCS, require_browser

from ragdash.storage.case_store import add_case, load_cases

pytestmark = pytest.mark.browser

RLO, ZWSP = "\u202e", "\u200b"
CASE = f"typo {RLO}esac{ZWSP}"
CASE_SHOWN = "typo ⟨U+202E⟩esac⟨U+200B⟩"
TABLE = '[aria-label="Every case under the current fixes"]'


@pytest.fixture(scope="module")
def suite_page(tmp_path_factory):
    require_browser()
    root = tmp_path_factory.mktemp("grids")
    docs = root / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    workspace = root / "workspace"
    typo = next(c for c in load_cases(SAMPLE_CASES) if c.name == "typo")
    add_case(workspace, replace(typo, name=CASE))
    with running_app(docs=docs, workspace=workspace) as url, chromium_browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.set_default_timeout(45_000)
        page.goto(f"{url}/suite")
        wait_for_app(page)
        yield page
        page.close()


def test_the_suite_case_table_shows_code_points_in_chromium(suite_page):
    table = suite_page.locator(TABLE).inner_text()
    assert CASE_SHOWN in table
    assert RLO not in table and ZWSP not in table
    text = suite_page.locator('[data-testid="stMain"]').inner_text()
    assert RLO not in text and ZWSP not in text



GRID_CELLS = """() => Array.from(
  document.querySelectorAll('[data-testid="stDataFrame"] [role="gridcell"]'),
  (cell) => cell.textContent)"""


def test_the_saved_runs_grid_shows_code_points_in_chromium(suite_page):
    suite_page.get_by_label("Run name").fill(f"no {RLO}fixes{ZWSP}")
    suite_page.get_by_role("button", name="Save this run").click()
    suite_page.get_by_text("Saved run #1").wait_for()
    wait_for_app(suite_page)
    cells = suite_page.evaluate(GRID_CELLS)
    assert "no ⟨U+202E⟩fixes⟨U+200B⟩" in cells
    assert [c for c in cells if RLO in c or ZWSP in c] == []
    text = suite_page.locator('[data-testid="stMain"]').inner_text()
    assert RLO not in text and ZWSP not in text
