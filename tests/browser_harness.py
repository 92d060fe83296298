"""Start the real dashboard with `streamlit run` and drive it in Debian's headless Chromium
through playwright (never `playwright install`). Shared by tests/test_browser.py and
scripts/screenshots.py."""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlsplit

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


class CachedChromium:
    """Headless Chromium whose pages share one on-disk profile per test process.

    Most of a browser test's CPU is Chromium compiling Streamlit's JavaScript for every page
    it opens. A playwright ``browser.new_page`` opens a fresh incognito context, which
    keeps no code cache; pages of a persistent profile reuse the compiled code (measured on
    five page loads with a screenshot each: Chromium's CPU 20 -> 14 seconds). Every browser
    this process starts after the first finds that cache warm.

    ``new_page`` takes the viewport as ``Browser.new_page`` does; ``new_context`` (offline,
    downloads) opens an incognito context of a second, plain browser started when first
    asked for, as before.
    """

    def __init__(self, playwright, profile: Path) -> None:
        self._playwright = playwright
        self._context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        self._plain = None

    def new_page(self, viewport: dict[str, int] | None = None):
        page = self._context.new_page()
        if viewport:
            page.set_viewport_size(viewport)
        return page

    def new_context(self, **options):
        if self._plain is None:
            self._plain = self._playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
        return self._plain.new_context(**options)

    def close(self) -> None:
        self._context.close()
        if self._plain is not None:
            self._plain.close()


#: The profile folders this process made for Chromium, and those a browser now holds (a
#: profile takes one browser at a time: a browser opened inside another gets a new one).
_PROFILES: list[Path] = []
_PROFILES_IN_USE: set[Path] = set()


def _profile() -> Path:
    for folder in _PROFILES:
        if folder not in _PROFILES_IN_USE:
            return folder
    folder = Path(tempfile.mkdtemp(prefix="ragdash-chromium-"))
    if not _PROFILES:
        atexit.register(lambda: [shutil.rmtree(f, ignore_errors=True) for f in _PROFILES])
    _PROFILES.append(folder)
    return folder


@contextlib.contextmanager
def chromium_browser() -> Iterator[CachedChromium]:
    """Headless Debian Chromium (open many pages from one): see :class:`CachedChromium`."""
    from playwright.sync_api import sync_playwright

    profile = _profile()
    _PROFILES_IN_USE.add(profile)
    try:
        with sync_playwright() as pw:
            browser = CachedChromium(pw, profile)
            try:
                yield browser
            finally:
                browser.close()
    finally:
        _PROFILES_IN_USE.discard(profile)


@contextlib.contextmanager
def browser_page(width: int = 1400, height: int = 1000):
    """A playwright page in headless Debian Chromium."""
    with chromium_browser() as browser:
        yield browser.new_page(viewport={"width": width, "height": height})


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


#: The header line above each ranked passage on Explore: ``#1 · <doc id> · score …``.
RESULT_HEADER = re.compile(r"^#(\d+) · (.+?) · score ")
T = TypeVar("T")


def result_ids(page) -> list[str]:
    """Document ids of the ranked passages Explore shows, in rank order."""
    texts = page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"]')
    found = []
    for text in texts.all_inner_texts():
        match = RESULT_HEADER.match(text.strip())
        if match:
            found.append(match.group(2))
    return found


def first_result(page) -> str | None:
    """The document id of the first ranked passage, or None when none is shown."""
    ids = result_ids(page)
    return ids[0] if ids else None


def url_params(page) -> dict[str, str]:
    """The address bar's query parameters (the first value of each)."""
    # Asked of the page: ``page.url`` is only refreshed while playwright processes events,
    # which a polling loop's time.sleep does not let it do.
    href = page.evaluate("() => location.href")
    return {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}


def eventually(read: Callable[[], T], want: T, timeout: float = 20.0) -> T:
    """Poll ``read()`` until it returns ``want`` (a rerun may still be drawing); returns
    the last value read, so the caller's assertion shows what the page had instead."""
    deadline = time.time() + timeout
    while True:
        value = read()
        if value == want or time.time() > deadline:
            return value
        time.sleep(0.25)


#: Where a button's or tab's label is drawn (it clips with an ellipsis when too narrow).
BUTTON_LABELS = (
    '[data-testid="stMain"] button [data-testid="stMarkdownContainer"], '
    '[data-testid="stMain"] [role="tab"] [data-testid="stMarkdownContainer"]'
)


def visible_untruncated(page, selector: str, shown_only: bool = False) -> list[str]:
    """Texts of the elements matching ``selector`` that are cut, clipped or off-screen
    (``shown_only``: elements in a hidden tab or collapsed expander are left out)."""
    return page.evaluate(
        """([selector, shownOnly]) => {
            const bad = [];
            const width = document.documentElement.clientWidth;
            for (const el of document.querySelectorAll(selector)) {
                const r = el.getBoundingClientRect();
                if (shownOnly && (r.width === 0 || r.height === 0)) continue;
                const text = el.textContent.trim();
                const cut = el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0;
                if (r.width === 0 || r.height === 0 || r.left < 0 || r.right > width + 0.5
                    || cut || text.includes('…')) bad.push(text);
            }
            return bad;
        }""",
        [selector, shown_only],
    )
