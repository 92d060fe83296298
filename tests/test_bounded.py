"""Bounded parsing: every PDF is read in a child process with a wall-clock and memory limit
and limits on inflated streams, text objects per page and page size — crafted PDFs are
refused with the limit named, and Cancel (a progress callback that raises) or a dead
parent leaves no process behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hostile_pdfs import huge_page_pdf, inflating_pdf, noise_pages_pdf, small_pdf, text_ops_pdf

from ragdash.errors import IngestCancelled, IngestError, SettingsError
from ragdash.ingestion import bounded
from ragdash.ingestion.bounded import ParseLimits
from ragdash.ingestion.ingest import load_folder, read_pdf
from ragdash.ingestion.inspection import render_page_with_tables

ROOT = Path(__file__).resolve().parent.parent


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


@pytest.fixture
def children(monkeypatch):
    """The pids of every parsing child started during the test (none kept from before)."""
    bounded.stop_idle_workers()
    pids: list[int] = []
    monkeypatch.setattr(bounded, "child_started", pids.append)
    return pids


def test_a_normal_pdf_parses_in_a_child_as_before(children):
    parsed = read_pdf(small_pdf("Return policy thirty days"))
    assert parsed.pages == ("Return policy thirty days",)
    assert len(children) == 1 and children[0] != os.getpid()


def test_a_child_that_answered_well_reads_the_next_pdf_and_a_failed_one_is_killed(children):
    read_pdf(small_pdf("First"))
    assert read_pdf(small_pdf("Second")).pages == ("Second",)
    assert len(children) == 1 and bounded.idle_workers() == children
    with pytest.raises(IngestError, match="pt per side"):
        read_pdf(huge_page_pdf(200_000))  # served by the same worker, which is then killed
    assert not alive(children[0]) and bounded.idle_workers() == []
    assert read_pdf(small_pdf("Third")).pages == ("Third",)  # a fresh one, same limits
    assert len(children) == 2


def test_two_million_text_operations_are_refused_naming_the_limit(children):
    with pytest.raises(IngestError) as info:
        read_pdf(text_ops_pdf(2_000_000))
    assert "exceeds the limit of 100,000 text objects per page" in str(info.value)
    assert "RAGDASH_MAX_PAGE_OBJECTS" in str(info.value)
    assert not alive(children[0])


def test_a_stream_inflating_to_300_mb_is_refused_naming_the_limit(children):
    with pytest.raises(IngestError, match=r"inflates past the limit of 100 MB per stream"):
        read_pdf(inflating_pdf(300))


def test_a_page_200000_points_wide_is_refused_naming_the_limit():
    with pytest.raises(IngestError, match=r"200,000 × 200,000 pt, over the limit of 14,400 pt"):
        read_pdf(huge_page_pdf(200_000))


def test_the_page_image_is_drawn_under_the_same_limits(children):
    with pytest.raises(IngestError, match="text objects per page"):
        render_page_with_tables(text_ops_pdf(300_000), 1, 80)
    assert not alive(children[0])
    image = render_page_with_tables(small_pdf(), 1, 80)
    assert image.size == (680, 880)  # 612 × 792 pt at 80 dpi


def test_the_wall_clock_limit_stops_a_slow_parse_and_kills_the_child(monkeypatch, children):
    monkeypatch.setenv("RAGDASH_PARSE_SECONDS", "2")
    monkeypatch.setenv("RAGDASH_MAX_PAGE_OBJECTS", "100000000")
    with pytest.raises(IngestError, match=r"longer than the limit of 2 s .*RAGDASH_PARSE_SEC"):
        read_pdf(text_ops_pdf(2_000_000))
    assert not alive(children[0])


def test_the_memory_limit_stops_a_parse_that_grows(monkeypatch, children):
    monkeypatch.setenv("RAGDASH_PARSE_MEMORY_MB", "300")
    monkeypatch.setenv("RAGDASH_MAX_STREAM_MB", "100000")
    with pytest.raises(IngestError, match=r"300 MiB of memory .*RAGDASH_PARSE_MEMORY_MB"):
        read_pdf(inflating_pdf(300))


def test_cancel_kills_the_child_at_once(monkeypatch, children):
    monkeypatch.setenv("RAGDASH_MAX_PAGE_OBJECTS", "100000000")
    calls = []

    def progress(fraction: float, label: str) -> None:
        calls.append(label)
        if len(calls) == 3:  # what the dashboard's Cancel does at the next update
            raise IngestCancelled()

    started = time.monotonic()
    with pytest.raises(IngestCancelled):
        read_pdf(text_ops_pdf(2_000_000), progress=progress)
    assert time.monotonic() - started < 30
    assert not alive(children[0])


def test_the_child_dies_with_its_parent(tmp_path):
    """kill -9 of the process that asked for the parse (a crashed server) ends the parse."""
    pdf = tmp_path / "slow.pdf"
    pdf.write_bytes(text_ops_pdf(2_000_000))
    pid_file = tmp_path / "child.pid"
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from ragdash.ingestion import bounded
        from ragdash.ingestion.ingest import read_pdf
        bounded.child_started = lambda pid: Path({str(pid_file)!r}).write_text(str(pid))
        read_pdf(Path({str(pdf)!r}).read_bytes())
        """
    )
    env = {**os.environ, "RAGDASH_MAX_PAGE_OBJECTS": "100000000", "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", script], env=env)
    try:
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.1)
        child = int(pid_file.read_text())
        time.sleep(1.0)  # let it get going
        assert alive(child)
        parent.kill()
        parent.wait()
        for _ in range(50):
            if not alive(child):
                break
            time.sleep(0.1)
        assert not alive(child), "the parsing child outlived its parent"
    finally:
        parent.kill()


def test_a_folder_with_a_hostile_pdf_loads_the_rest(tmp_path):
    (tmp_path / "ok.md").write_text("---\nupdated: 2026-01-01\n---\nfine text\n")
    (tmp_path / "bomb.pdf").write_bytes(inflating_pdf(300))
    corpus = load_folder(tmp_path)
    assert corpus.doc_ids == ("ok",)
    [message] = [m for m in corpus.messages if m.source == "bomb.pdf"]
    assert "inflates past the limit" in message.message


def test_limits_come_from_the_environment_and_bad_values_are_named():
    assert ParseLimits.from_env({}) == ParseLimits()
    limits = ParseLimits.from_env({"RAGDASH_PARSE_MEMORY_MB": "512", "RAGDASH_PARSE_SECONDS": "9"})
    assert (limits.memory_mb, limits.seconds) == (512, 9.0)
    for bad in ("0", "-3", "lots", "9" * 40):
        with pytest.raises(SettingsError, match="RAGDASH_MAX_PAGE_OBJECTS"):
            ParseLimits.from_env({"RAGDASH_MAX_PAGE_OBJECTS": bad})
    assert ParseLimits().ocr_seconds == 600  # ten minutes of OCR per PDF unless set
    assert ParseLimits.from_env({"RAGDASH_OCR_SECONDS": "90"}).ocr_seconds == 90
    with pytest.raises(SettingsError, match="RAGDASH_OCR_SECONDS"):
        ParseLimits.from_env({"RAGDASH_OCR_SECONDS": "0"})


@pytest.mark.usefixtures("tesseract")
def test_a_many_page_noise_pdf_stops_at_the_configured_ocr_budget_naming_it(
    monkeypatch, children
):
    """Regression (issue 40 #3): 500 pages sharing one noise image were allowed 300 s plus
    60 s a page (8.4 hours); the total OCR budget stops them and says which limit it was."""
    data = noise_pages_pdf(40)
    assert len(data) < 1_000_000
    monkeypatch.setenv("RAGDASH_OCR_SECONDS", "3")
    started = time.monotonic()
    with pytest.raises(IngestError) as raised:
        read_pdf(data)
    took = time.monotonic() - started
    message = str(raised.value)
    assert "the limit of 3 s of OCR per PDF (RAGDASH_OCR_SECONDS)" in message, message
    assert "of 40 pages" in message
    assert took < 60, took  # one noise page alone takes ~50 s of OCR on a loaded machine
    assert not any(alive(pid) for pid in children)


def test_a_parse_stopped_during_ocr_names_the_limit_it_actually_hit(
    monkeypatch, children, tmp_path
):
    """Regression (issue 40 #3): a run given 60 s a page for OCR and killed long after its
    plain limit named only that plain limit ("the limit of 10 s" after 95 s)."""
    fake = tmp_path / "bin" / "tesseract"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        'case "$*" in *--version*) echo "tesseract 5.3.0"; exit 0;; esac\n'
        "sleep 60\n"  # a page Tesseract never finishes
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("RAGDASH_PARSE_SECONDS", "5")  # room to open the PDF
    monkeypatch.setenv("RAGDASH_OCR_PAGE_SECONDS", "3")
    # A worker started under these limits first (kept idle, then reused): the 5 s are then
    # the PDF's own, not a child's start, which took longer at load 9 in a fresh-venv run.
    read_pdf(small_pdf("A page of text to start a reader"))
    started = time.monotonic()
    with pytest.raises(IngestError) as raised:
        read_pdf(noise_pages_pdf(1))
    assert time.monotonic() - started < 30
    message = str(raised.value)
    assert "limit of 5 s" not in message, message
    assert "3 s for each of the 1 page(s) to OCR (RAGDASH_OCR_PAGE_SECONDS)" in message, message
    assert not any(alive(pid) for pid in children)


def _parse_children() -> list[int]:
    """Live children of this process running the PDF reader, from /proc (not from the
    module's own bookkeeping)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        mine = ppid == os.getpid() and b"ragdash.ingestion.parse_child" in cmdline
        if mine and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize(
    "env",
    [
        {"RAGDASH_PARSE_WORKERS": "2"},
        # three of 2,048 MiB would need 6,144 MiB: the total keeps it to two at once
        {"RAGDASH_PARSE_WORKERS": "3", "RAGDASH_PARSE_TOTAL_MB": "4096"},
    ],
)
def test_concurrent_parses_share_one_budget_and_the_next_waits_with_a_message(
    monkeypatch, children, env
):
    """Regression (issue 24 #6): three tabs uploading at once started three children of
    2 GiB each; now at most RAGDASH_PARSE_WORKERS live at once (the idle one included),
    their memory limits fit RAGDASH_PARSE_TOTAL_MB, and the next parse waits, saying so,
    then completes."""
    import threading

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    read_pdf(small_pdf("Warm"))  # leaves one idle worker, which counts toward the budget
    assert len(bounded.idle_workers()) == 1
    release = threading.Event()
    waiting = threading.Event()
    labels: dict[int, list[str]] = {0: [], 1: [], 2: []}
    results: dict[int, tuple[str, ...]] = {}
    most = [0]

    def run(n: int) -> None:
        def progress(fraction: float, label: str) -> None:
            labels[n].append(label)
            if label.startswith("waiting"):
                waiting.set()
            else:
                release.wait(timeout=120)  # holds its child until the test lets go

        results[n] = read_pdf(small_pdf(f"Parse {n}"), progress=progress).pages

    finished = threading.Event()

    def watch() -> None:  # samples the live children until every parse has answered
        while not finished.is_set():
            most[0] = max(most[0], len(_parse_children()))
            time.sleep(0.02)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(3)]
    watcher = threading.Thread(target=watch)
    watcher.start()
    for thread in threads:
        thread.start()
    try:
        assert waiting.wait(timeout=120), "no parse waited for room"
        assert len(_parse_children()) == 2
        assert len(bounded.busy_workers()) == 2
    finally:
        release.set()
    for thread in threads:
        thread.join(timeout=120)
    finished.set()
    watcher.join(timeout=120)
    assert results == {n: (f"Parse {n}",) for n in range(3)}
    assert most[0] == 2
    (queued,) = [n for n in range(3) if any(x.startswith("waiting") for x in labels[n])]
    assert "waiting for another upload to finish: 2 PDFs are being read" in labels[queued]
    assert labels[queued][-1] != labels[queued][0]  # it went on to read its own PDF


def test_a_parse_cancelled_while_waiting_starts_no_child_and_frees_nothing_it_lacked(
    monkeypatch, children
):
    """Cancel (the progress callback raising) stops a parse that waits for room; the
    parse that holds the room goes on and later parses still run."""
    import threading

    monkeypatch.setenv("RAGDASH_PARSE_WORKERS", "1")
    release, holding = threading.Event(), threading.Event()
    out: list[tuple[str, ...]] = []

    def hold(fraction: float, label: str) -> None:
        holding.set()
        release.wait(timeout=120)

    holder = threading.Thread(
        target=lambda: out.append(read_pdf(small_pdf("Holder"), progress=hold).pages)
    )
    holder.start()
    assert holding.wait(timeout=120)
    seen: list[str] = []

    def cancel(fraction: float, label: str) -> None:
        seen.append(label)
        raise IngestCancelled()

    with pytest.raises(IngestCancelled):
        read_pdf(small_pdf("Cancelled"), progress=cancel)
    assert seen == ["waiting for another upload to finish: 1 PDF is being read"]
    assert len(children) == 1  # the cancelled parse never started a child
    release.set()
    holder.join(timeout=120)
    assert out == [("Holder",)]
    assert read_pdf(small_pdf("After")).pages == ("After",)


def test_the_parse_budget_comes_from_the_environment_and_bad_values_are_named(monkeypatch):
    monkeypatch.setenv("RAGDASH_PARSE_WORKERS", "two")
    with pytest.raises(SettingsError, match="RAGDASH_PARSE_WORKERS='two' is not a positive"):
        read_pdf(small_pdf())
    monkeypatch.setenv("RAGDASH_PARSE_WORKERS", "3")
    monkeypatch.setenv("RAGDASH_PARSE_TOTAL_MB", "1024")
    with pytest.raises(SettingsError, match="RAGDASH_PARSE_TOTAL_MB=1024 is less than"):
        read_pdf(small_pdf())
    # three workers of 2,048 MiB would need 6,144 MiB: the total keeps it to two at once
    budget = bounded.ParseBudget.from_env({"RAGDASH_PARSE_WORKERS": "3"}, memory_mb=2048)
    assert (budget.workers, budget.total_mb) == (3, 4096)
