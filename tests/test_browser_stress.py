"""The Stress test page (issue 26) in headless Debian Chromium at 1400 and 800 px: a run on
the bundled samples draws the matrix inside the window, labels readable (>= 11 px), each
cell saying ``passed/total``; a click on a cell opens its faulted case in Explore, where the
fault is named on top and the injected document is marked.

Needs /usr/bin/chromium and python playwright (never `playwright install`); skips without
them, fails in CI (``conftest.require_browser``). Screenshots go to screenshots/ (git-ignored).
"""

from __future__ import annotations

import re

import pytest
from browser_harness import eventually, running_app, wait_for_app
from test_browser_demo import WIDTHS, browser, open_view, shot, sized_page  # noqa: F401

pytestmark = pytest.mark.browser

CHART = '[data-testid="stVegaLiteChart"]'
#: Where each axis label of the first matrix sits: [text, left, right, font size].
LABELS = """() => ['X', 'Y'].flatMap(axis => [...document.querySelectorAll(
    `[data-testid="stVegaLiteChart"] svg g[aria-label^="${axis}-axis"] .role-axis-label text`)])
    .map(t => { const r = t.getBoundingClientRect();
                return [t.textContent, r.left, r.right,
                        parseFloat(getComputedStyle(t).fontSize)]; })"""
#: The middle of one cell, found by its row and column labels.
CELL = """([column, row]) => {
    const find = (axis, text) => [...document.querySelectorAll(
        `[data-testid="stVegaLiteChart"] svg g[aria-label^="${axis}-axis"] .role-axis-label text`)]
        .find(t => t.textContent === text).getBoundingClientRect();
    const x = find('X', column), y = find('Y', row);
    return [(x.left + x.right) / 2, (y.top + y.bottom) / 2];
}"""
CELL_WORDS = """() => [...document.querySelectorAll(
    '[data-testid="stVegaLiteChart"] svg g.mark-text.role-mark text')].map(t => t.textContent)"""


@pytest.fixture(scope="module")
def app_url(browser, tmp_path_factory) -> str:  # noqa: F811 - the demo tests' browser
    with running_app(workspace=tmp_path_factory.mktemp("ws")) as url:
        yield url


def _run(page, url: str) -> None:
    open_view(page, url + "/stress")
    page.get_by_role("button", name="Run the stress test").click()
    page.locator(f"{CHART} svg").first.wait_for(timeout=120_000)
    wait_for_app(page, timeout=120_000)
    page.wait_for_timeout(1000)  # charts size themselves after the first paint


@pytest.mark.parametrize("sized_page", WIDTHS, indirect=True, ids=lambda w: f"{w}px")
def test_the_matrix_fits_the_window_and_a_cell_opens_the_faulted_case(
    app_url, sized_page  # noqa: F811 - the demo tests' fixture, sized by the parameter
):
    page, width = sized_page
    _run(page, app_url)
    viewport = page.evaluate("() => document.documentElement.clientWidth")
    chart = page.locator(CHART).first
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport + 0.5, (box, viewport)
    svg = page.locator(f"{CHART} svg").first.bounding_box()
    assert svg["x"] + svg["width"] <= viewport + 0.5, (svg, viewport)
    labels = page.evaluate(LABELS)
    assert {"No fix", "Targeted fix", "All fixes", "stale duplicate"} <= {t for t, *_ in labels}
    for text, left, right, size in labels:
        assert left >= 0 and right <= viewport + 0.5 and size >= 11, (text, left, right, size)
    words = page.evaluate(CELL_WORDS)
    assert words and [w for w in words if not re.fullmatch(r"\d+/\d+|n/a", w)] == []
    shot(page, f"stress-matrix-{width}")

    chart.scroll_into_view_if_needed()  # the screenshot resized the window
    page.wait_for_timeout(300)
    page.mouse.click(*page.evaluate(CELL, ["No fix", "stale duplicate"]))
    page.locator('[data-testid="stMain"] h1', has_text="Explore").wait_for()
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    assert eventually(lambda: "fault injected: stale duplicate" in main.inner_text(), True)
    text = main.inner_text()
    assert "injected by the stress test" in text or "(injected)" in text
    assert "stress=" in page.evaluate("() => location.href")
    shot(page, f"stress-explore-{width}")
