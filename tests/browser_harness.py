"""Start the real dashboard with `streamlit run` and drive it in Debian's headless Chromium
through playwright (never `playwright install`). Shared by tests/test_browser.py and
scripts/screenshots.py."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app(docs: Path | None = None, workspace: Path | None = None) -> Iterator[str]:
    """Run ``streamlit run app.py`` on a free port; yields the base URL."""
    port = free_port()
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
        "--server.headless=true", "--server.address=127.0.0.1", f"--server.port={port}",
        "--browser.gatherUsageStats=false", "--server.fileWatcherType=none",
    ]
    extra = []
    if docs is not None:
        extra += ["--docs", str(docs)]
    if workspace is not None:
        extra += ["--workspace", str(workspace)]
    if extra:
        cmd += ["--", *extra]
    env = dict(os.environ)
    log = open(os.devnull, "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {proc.returncode}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            raise RuntimeError("streamlit did not become healthy within 60 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextlib.contextmanager
def browser_page(width: int = 1400, height: int = 1000):
    """A playwright page in headless Debian Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()


def wait_for_app(page, timeout: float = 45_000) -> None:
    """Wait until Streamlit has connected, drawn the page and finished running the script."""
    page.wait_for_selector('[data-testid="stSidebarNav"]', timeout=timeout)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=timeout)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stStatusWidget"]')
              && document.querySelectorAll('[data-testid="stSkeleton"]').length === 0""",
        timeout=timeout,
    )
    page.wait_for_timeout(800)
