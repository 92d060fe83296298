"""In Chromium against the real server: a PDF of 2,000,000 text operations (limits raised so
it would run for minutes) is being read in a child process; *Cancel upload*, or closing the
tab, kills that child within seconds and the server's memory is back where it was."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from browser_harness import chromium_browser, running_app, wait_for_app
from conftest import require_browser
from hostile_pdfs import text_ops_pdf

pytestmark = pytest.mark.browser

UPLOAD_INPUT = '[data-testid="stFileUploader"] input[type="file"]'
ALERT = '[data-testid="stAlert"]'


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _ppid(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(re.search(r"^PPid:\s+(\d+)", status, re.M).group(1))


def _rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+)", status, re.M).group(1)) / 1024


def _server_pid(url: str) -> int:
    port = url.rsplit(":", 1)[1]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and f"--server.port={port}" in _cmdline(int(entry.name)):
            return int(entry.name)
    raise AssertionError("no server process")


def _parse_children(server: int) -> list[int]:
    return [
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit()
        and _ppid(int(p.name)) == server
        and "ragdash.ingestion.parse_child" in _cmdline(int(p.name))
    ]


def _wait(condition, timeout: float) -> float:
    """Seconds until ``condition()`` held (fails after ``timeout``)."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "timed out"
        time.sleep(0.1)
    return time.monotonic() - start


def _staging_gone(ws: Path) -> bool:
    """No staging folder of the cancelled upload is left in the workspace's ``tmp/``."""
    return not (ws / "tmp").exists() or not list((ws / "tmp").iterdir())


@pytest.fixture(scope="module")
def browser():
    require_browser()
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def slow_pdf(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RAGDASH_MAX_PAGE_OBJECTS", "100000000")  # would run for minutes
    path = tmp_path / "slow.pdf"
    path.write_bytes(text_ops_pdf(2_000_000))
    return path


def _start_upload(page, url: str, pdf: Path) -> tuple[int, float, int]:
    page.goto(f"{url}/documents")
    wait_for_app(page)
    server = _server_pid(url)
    before = _rss_mb(server)
    page.set_input_files(UPLOAD_INPUT, str(pdf))
    _wait(lambda: _parse_children(server), 60)
    [child] = _parse_children(server)
    time.sleep(2.0)  # let it grow
    return server, before, child


def test_cancel_upload_kills_the_parsing_child_and_memory_returns(browser, slow_pdf, tmp_path):
    ws = tmp_path / "ws"
    with running_app(workspace=ws) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        server, before, child = _start_upload(page, url, slow_pdf)
        child_mb = _rss_mb(child)
        page.get_by_role("button", name="Cancel upload").click()
        took = _wait(lambda: not Path(f"/proc/{child}").exists(), 10)
        page.locator(ALERT, has_text="Upload cancelled").wait_for(timeout=20_000)
        after = _rss_mb(server)
        print(f"cancel: child gone {took:.1f}s after the click (it had {child_mb:.0f} MB); "
              f"server {before:.0f} MB before, {after:.0f} MB after")  # fmt: skip
        assert after < before + 50
        assert not (ws / "uploads" / "slow.pdf").exists()
        # Streamlit's fast reruns start the new run (the alert) on a new thread while the
        # cancelled one is still unwinding: the staging folder goes when that one ends.
        _wait(lambda: _staging_gone(ws), 15)
        page.close()


def test_closing_the_tab_kills_the_parsing_child(browser, slow_pdf, tmp_path):
    ws = tmp_path / "ws"
    with running_app(workspace=ws) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        server, before, child = _start_upload(page, url, slow_pdf)
        page.close()
        took = _wait(lambda: not Path(f"/proc/{child}").exists(), 15)
        after = _rss_mb(server)
        print(f"close: child gone {took:.1f}s after the tab closed; "
              f"server {before:.0f} MB before, {after:.0f} MB after")  # fmt: skip
        assert after < before + 50
        assert not (ws / "uploads" / "slow.pdf").exists()
        _wait(lambda: _staging_gone(ws), 15)
