"""The standalone HTML report in headless Debian Chromium, opened from disk with the network
off: the testbed's diff (no fixes → all fixes) shows its 4 repaired cases with their reasons
and highlighted passages and asks for nothing but the file; the report of a hostile corpus
executes nothing and applies no injected style.

Needs /usr/bin/chromium and python playwright (never `playwright install`)."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE_CASES, SAMPLE_DOCS, require_browser
from test_browser import (
    HOSTILE_LINES,
    HOSTILE_OLD_ID,
    RED,
    write_hostile_corpus,
)

from ragdash.checks.ablation import configurations
from ragdash.cli import main
from ragdash.visible import visible_controls

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def chromium():
    require_browser()
    from browser_harness import chromium_browser

    with chromium_browser() as browser:
        yield browser


def open_offline(browser, path, dialogs: list[str], requests: list[str]):
    """``path`` opened from disk in a context with the network off; every request and
    every dialog is recorded."""
    context = browser.new_context(offline=True, java_script_enabled=True)
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # give anything injected the chance to fire
    return context, page


def test_the_testbed_diff_report_opens_offline_and_names_the_four_repairs(
    chromium, tmp_path, capsys
):
    lib = tmp_path / "lib.sqlite"
    common = ["check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
              "--library", str(lib), "--save-run"]  # fmt: skip
    assert main([*common, "--fixes", "none", "--run-name", "no fixes"]) == 1
    assert main([*common, "--fixes", "all", "--run-name", "all fixes"]) == 0
    report = tmp_path / "report.html"
    assert main(["report", "2", "--against", "1", "--library", str(lib), "-o", str(report)]) == 0
    capsys.readouterr()
    dialogs: list[str] = []
    requests: list[str] = []
    context, page = open_offline(chromium, report, dialogs, requests)
    try:
        assert page.title() == "ragdash diff #1 'no fixes' → #2 'all fixes'"
        rows = page.locator("table.changes tr").all_inner_texts()[1:]
        assert len(rows) == 4
        repaired = {"stale-version": "recency", "ocr-noise": "ocr", "typo": "fuzzy",
                    "split-table": "tables"}  # fmt: skip
        for case, fix in repaired.items():
            row = next(r for r in rows if r.startswith(case))
            named = row.split(" — ")[1]  # the ablation's verdict: which fix alone repairs it
            assert "fail→pass" in row and fix in named and "alone repairs it" in named
        heat = page.locator("table.heat td.cell")
        assert heat.count() == 8 * len(configurations())
        assert page.locator("table.deltas").inner_text().count("+0.219") == 1  # MRR
        # the repaired passages, highlighted as in Explore: evidence outlined
        passage = page.locator(".case", has_text="repaired: ocr-noise").locator(".rd-passage")
        assert passage.locator("mark.evidence").inner_text() == "identity provider"
        assert passage.locator("mark.hit-ocr").count() >= 1
        outline = passage.locator("mark.evidence").evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline == "solid"
        assert requests == [report.as_uri()]  # the file itself, nothing else
        assert dialogs == []
    finally:
        context.close()


def test_the_report_of_a_hostile_corpus_executes_nothing_and_applies_no_injected_style(
    chromium, tmp_path, capsys
):
    docs = write_hostile_corpus(tmp_path / "docs")
    old_id = HOSTILE_OLD_ID  # its passage is sent to the model too (top-k 2)
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{
        "name": "hostile-case", "query": "zephyrine maintenance notes", "top_k": 2,
        "expected_id": "harmless", "evidence": ["<img src=x onerror=alert(3)>"],
    }]), encoding="utf-8")  # fmt: skip
    report = tmp_path / "hostile.html"
    code = main(["check", "--docs", str(docs), "--cases", str(cases), "--fixes", "all",
                 "--run-name", "<script>alert(4)</script>", "--report", str(report)])  # fmt: skip
    assert code == 1
    capsys.readouterr()
    dialogs: list[str] = []
    requests: list[str] = []
    context, page = open_offline(chromium, report, dialogs, requests)
    try:
        passage = page.locator(".rd-passage", has_text="Zephyrine").first
        text = passage.inner_text()
        for line in HOSTILE_LINES:
            shown = visible_controls(line)  # bidi and zero-width as code points
            assert shown in text, f"{shown!r} not shown literally"
        assert passage.locator("img, script, style, a, strong, b").count() == 0
        assert page.locator(".rd-passage", has_text="Zephyrine").count() == 2
        assert old_id in page.locator(".case").inner_text()
        assert page.locator("img, b, script, a, iframe, object").count() == 0
        assert page.locator("style").count() == 1  # the report's own
        assert page.locator("img[onerror], a[href^='javascript:' i]").count() == 0
        assert "<script>alert(4)</script>" in page.locator("h1").inner_text()
        assert "<img src=x onerror=alert(3)>" in page.locator(".case").inner_text()
        restyled = page.evaluate(
            """(red) => {
                const bg = getComputedStyle(document.body).backgroundColor;
                const h1 = document.querySelector('h1');
                const style = getComputedStyle(h1);
                return [bg === red, style.display === 'none', h1.getBoundingClientRect().height];
            }""",
            RED,
        )
        assert restyled[0] is False and restyled[1] is False and restyled[2] > 0
        assert requests == [report.as_uri()]
        assert dialogs == []
    finally:
        context.close()


def test_the_dashboard_compares_two_saved_runs_and_downloads_the_diff_report(
    chromium, tmp_path, capsys
):
    from browser_harness import running_app, wait_for_app

    ws = tmp_path / "ws"
    common = ["check", "--docs", str(SAMPLE_DOCS), "--workspace", str(ws), "--save-run"]
    assert main([*common, "--fixes", "none", "--run-name", "no fixes"]) == 1
    assert main([*common, "--fixes", "all", "--run-name", "all fixes"]) == 0
    capsys.readouterr()
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(60_000)
    try:
        with running_app(workspace=ws) as url:
            page.goto(f"{url}/suite?fixes=all")
            wait_for_app(page)
            summary = page.locator('[data-testid="stMarkdownContainer"]',
                                   has_text="fail→pass").first  # fmt: skip
            summary.scroll_into_view_if_needed()
            assert summary.inner_text().startswith("4 fail→pass, 0 pass→fail — from 4/8 to 8/8")
            with page.expect_download() as download:
                page.get_by_role("button", name="Download the diff as an HTML report").click()
            report = tmp_path / "from-dashboard.html"
            download.value.save_as(report)
        dialogs: list[str] = []
        requests: list[str] = []
        context, offline = open_offline(chromium, report, dialogs, requests)
        try:
            assert offline.title() == "ragdash diff #1 'no fixes' → #2 'all fixes'"
            assert offline.locator("table.changes td.change-fixed").count() == 4
            assert requests == [report.as_uri()] and dialogs == []
        finally:
            context.close()
    finally:
        page.close()
