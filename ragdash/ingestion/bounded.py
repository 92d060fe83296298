"""PDF work in a child process with a wall-clock limit, a memory limit and limits on what
one PDF may make pdfminer do — so no upload can keep a core busy or eat the server's memory.

Why a child process: pdfminer is pure Python and a 141 KB PDF with 2,000,000 tiny text
operations kept it busy for 15 minutes at 3.4 GB; a thread cannot be stopped and memory a
thread took is not given back. A child is killed (its whole process group, so an OCR
program it started dies too) when the wall-clock limit passes, when the progress callback
raises (the dashboard's *Cancel upload*, a closed tab: Streamlit raises in the script
thread at its next progress update, at most 0.25 s later) or when the parent goes away
(the child watches for that itself).
A child that answered well is kept idle for the next PDF (see :data:`MAX_IDLE_WORKERS`),
so only the first PDF pays for starting Python and importing pdfplumber; a child that
refused, timed out or was cancelled is never reused.
Inside the child ``RLIMIT_AS`` caps memory and :mod:`ragdash.ingestion.parse_child` counts
inflated stream bytes, text objects per page and page size; going over one refuses the PDF
with a message naming the limit, e.g. ``page 1 exceeds the limit of 100,000 text objects
per page (RAGDASH_MAX_PAGE_OBJECTS)``.

The limits come from the environment (see :meth:`ParseLimits.from_env`); the defaults
leave real PDFs far inside them (the densest page of the dev set has 7,162 characters).

One budget holds for the whole process (the Streamlit server is one process whose sessions
are threads): at most :attr:`ParseBudget.workers` children at once, and their memory limits
may not add up past :attr:`ParseBudget.total_mb` (see :meth:`ParseBudget.from_env`). Each
child's own limit bounds one PDF, but three tabs uploading a PDF bomb at once drove the
server to 5.33 GB. A worker kept idle for the next PDF counts; it is stopped when a parse
needs its room. Further parses wait their turn and tell their progress callback
``waiting for another upload to finish: 2 PDFs are being read`` every
:data:`TICK_SECONDS`, so *Cancel upload* stops a waiting upload as it stops a running one.

>>> limits = ParseLimits.from_env({"RAGDASH_PARSE_SECONDS": "30"})
>>> limits.seconds, limits.page_objects
(30.0, 100000)
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ragdash.errors import IngestError, SettingsError

__all__ = [
    "BUDGET_ENV",
    "LIMIT_ENV",
    "ParseBudget",
    "ParseLimits",
    "busy_workers",
    "idle_workers",
    "read_frame",
    "run_in_child",
    "stop_idle_workers",
    "write_frame",
]

#: The environment variable that sets each limit (field of :class:`ParseLimits`).
LIMIT_ENV = {
    "seconds": "RAGDASH_PARSE_SECONDS",
    "memory_mb": "RAGDASH_PARSE_MEMORY_MB",
    "stream_mb": "RAGDASH_MAX_STREAM_MB",
    "page_objects": "RAGDASH_MAX_PAGE_OBJECTS",
    "page_points": "RAGDASH_MAX_PAGE_POINTS",
    "ocr_page_seconds": "RAGDASH_OCR_PAGE_SECONDS",
    "ocr_seconds": "RAGDASH_OCR_SECONDS",
}

#: The environment variables of the process-wide :class:`ParseBudget`.
BUDGET_ENV = {"workers": "RAGDASH_PARSE_WORKERS", "total_mb": "RAGDASH_PARSE_TOTAL_MB"}

#: How often the parent wakes to check the clock and call the progress callback.
TICK_SECONDS = 0.25


@dataclass(frozen=True)
class ParseLimits:
    """What parsing one PDF may take. ``seconds``: wall clock for the whole PDF (OCR
    included); ``memory_mb``: the child's address space; ``stream_mb``: the inflated size
    of one compressed stream; ``page_objects``: text objects (characters) on one page;
    ``page_points``: the longer side of a page (14,400 pt = 200 in is the PDF format's own
    limit); ``ocr_page_seconds``: added to ``seconds`` for each page that needs OCR, once
    the parse knows how many (a 30-page scan at ~12 s a page on a loaded 2-core machine
    would not fit in 300 s; a text PDF keeps the plain limit); ``ocr_seconds``: the most
    OCR may add in all, whatever the page count — without it a 1 MB upload of 500 pages
    sharing one noise image was allowed 8.4 hours and held a parse slot for them.

    >>> limits = ParseLimits(seconds=10, ocr_page_seconds=30, ocr_seconds=60)
    >>> limits.ocr_allowance(1)
    (30.0, '30 s for each of the 1 page(s) to OCR (RAGDASH_OCR_PAGE_SECONDS)')
    >>> limits.ocr_allowance(500)
    (60.0, 'the limit of 60 s of OCR per PDF (RAGDASH_OCR_SECONDS)')
    >>> limits.overtime(500)
    'took longer than the limit of 70 s to read (10 s, RAGDASH_PARSE_SECONDS, plus the \
limit of 60 s of OCR per PDF (RAGDASH_OCR_SECONDS)); stopped'
    """

    seconds: float = 300.0
    memory_mb: int = 2048
    stream_mb: int = 100
    page_objects: int = 100_000
    page_points: float = 14_400.0
    ocr_page_seconds: float = 60.0
    ocr_seconds: float = 600.0

    def ocr_allowance(self, pages: int) -> tuple[float, str]:
        """The seconds OCR of ``pages`` pages may add to :attr:`seconds` — the per-page
        allowance, capped by :attr:`ocr_seconds` — and the limit that sets them, named."""
        pages = max(0, min(int(pages), 100_000))
        per_page = pages * self.ocr_page_seconds
        if per_page <= self.ocr_seconds:
            return float(per_page), (
                f"{self.ocr_page_seconds:g} s for each of the {pages:,} page(s) to OCR "
                f"({LIMIT_ENV['ocr_page_seconds']})"
            )
        return float(self.ocr_seconds), (
            f"the limit of {self.ocr_seconds:g} s of OCR per PDF ({LIMIT_ENV['ocr_seconds']})"
        )

    def overtime(self, ocr_pages: int = 0) -> str:
        """What a parse stopped on its wall clock says: the limit it actually had, with
        the OCR allowance it was given (a run killed after 95 s once named 10 s)."""
        if not ocr_pages:
            return (
                f"took longer than the limit of {self.seconds:g} s to read "
                f"({LIMIT_ENV['seconds']}); stopped"
            )
        extra, named = self.ocr_allowance(ocr_pages)
        return (
            f"took longer than the limit of {self.seconds + extra:g} s to read "
            f"({self.seconds:g} s, {LIMIT_ENV['seconds']}, plus {named}); stopped"
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ParseLimits:
        """Defaults, overridden by ``RAGDASH_PARSE_SECONDS`` and the others of
        :data:`LIMIT_ENV`; a value that is no positive number raises
        :class:`~ragdash.errors.SettingsError` naming the variable."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(LIMIT_ENV[f.name], "").strip()
            if not raw:
                continue
            kind = float if isinstance(f.default, float) else int
            try:
                value = kind(raw)
            except ValueError:
                value = 0
            if not 0 < value < 10**12:
                raise SettingsError(
                    f"{LIMIT_ENV[f.name]}={raw[:20]!r} is not a positive number"
                )
            values[f.name] = value
        return cls(**values)


@dataclass(frozen=True)
class ParseBudget:
    """What all parse children of this process may take together: ``workers`` children
    at once (busy or kept idle) and ``total_mb`` MiB of their memory limits summed.

    >>> ParseBudget.from_env({"RAGDASH_PARSE_WORKERS": "3"}, memory_mb=2048).total_mb
    4096
    >>> ParseBudget.from_env({"RAGDASH_PARSE_TOTAL_MB": "1000"}, memory_mb=2048)
    Traceback (most recent call last):
    ...
    ragdash.errors.SettingsError: RAGDASH_PARSE_TOTAL_MB=1000 is less than one PDF's \
memory limit of 2,048 MiB (RAGDASH_PARSE_MEMORY_MB): no PDF could be read
    """

    workers: int = 2
    total_mb: int = 4096

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, memory_mb: int = 2048
    ) -> ParseBudget:
        """``RAGDASH_PARSE_WORKERS`` (default: the cores this process may use, at most 4)
        and ``RAGDASH_PARSE_TOTAL_MB`` (default 4,096 MiB, or one child's ``memory_mb`` if
        that is more). A total below ``memory_mb`` would let no PDF be read, so it raises
        :class:`~ragdash.errors.SettingsError` naming both variables, as does a value that
        is no positive whole number."""
        env = os.environ if environ is None else environ
        values = {"workers": min(_cores(), 4), "total_mb": max(4096, memory_mb)}
        for name, variable in BUDGET_ENV.items():
            raw = env.get(variable, "").strip()
            if not raw:
                continue
            if not (raw.isdigit() and 0 < int(raw) < 10**9):
                raise SettingsError(f"{variable}={raw[:20]!r} is not a positive whole number")
            values[name] = int(raw)
        if values["total_mb"] < memory_mb:
            raise SettingsError(
                f"{BUDGET_ENV['total_mb']}={values['total_mb']} is less than one PDF's memory "
                f"limit of {memory_mb:,} MiB ({LIMIT_ENV['memory_mb']}): no PDF could be read"
            )
        return cls(**values)


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def write_frame(stream: Any, kind: bytes, payload: bytes) -> None:
    """One message between parent and child: a kind byte, a length, the payload."""
    stream.write(kind + struct.pack(">Q", len(payload)) + payload)
    stream.flush()


def read_frame(stream: Any) -> tuple[bytes, bytes] | None:
    """The next message, or None at the end of the stream."""
    head = stream.read(9)
    if len(head) < 9:
        return None
    kind, size = head[:1], struct.unpack(">Q", head[1:])[0]
    payload = stream.read(size)
    return (kind, payload) if len(payload) == size else None


#: Variables that say only where the caller is, never how a PDF is read: left out of a
#: child's environment, so that a kept worker serves the next PDF whatever they say. (Under
#: pytest, PYTEST_CURRENT_TEST changes with every test and each test may have its own cache
#: folder: the suite started a new worker, about 0.35 CPU-seconds, for nearly every PDF.)
CALLER_ONLY = ("RAGDASH_CACHE_DIR", "PYTEST_CURRENT_TEST")


def _child_env() -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in CALLER_ONLY}
    root = str(Path(__file__).resolve().parents[2])  # the folder that holds ragdash/
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


#: Called with the child's pid when it starts (tests watch it die).
child_started: Callable[[int], None] | None = None

#: A worker that answered well is kept for the next PDF (saves starting Python and
#: importing pdfplumber, ~0.4 s of CPU); at most this many idle, and only while small.
MAX_IDLE_WORKERS = 1
MAX_IDLE_RSS_MB = 400
MAX_WORKER_REQUESTS = 50

# (worker, requests served, the environment it was started with, its token): a worker is
# reused only under the same environment (PATH decides whether Tesseract is found, RAGDASH_*
# the limits)
_idle: list[tuple[subprocess.Popen, int, int, int]] = []
_idle_lock = threading.Lock()
# The process-wide budget: every child that lives (reading or idle) holds a share —
# id of a reservation -> MiB; guarded by _idle_lock, waited on through _room.
_held: dict[int, int] = {}
_busy: dict[int, int] = {}  # reservation -> pid of a child that is reading a PDF now
_room = threading.Condition(_idle_lock)
_tokens = iter(range(1, 1 << 62))


def _env_key(env: Mapping[str, str]) -> int:
    return hash(frozenset(env.items()))


def _spawn(env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragdash.ingestion.parse_child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: killing it kills what it started
        env=env,
    )
    if child_started is not None:
        child_started(proc.pid)
    return proc


def waiting_message(reading: int) -> str:
    """What a parse that waits for room tells its progress callback.

    >>> waiting_message(2)
    'waiting for another upload to finish: 2 PDFs are being read'
    """
    return (
        f"waiting for another upload to finish: {reading:,} "
        f"PDF{'s are' if reading != 1 else ' is'} being read"
    )


def _take_worker(
    limits: ParseLimits, progress: Callable[[float, str], None] | None
) -> tuple[subprocess.Popen, int, int, int]:
    """A worker for one request and the reservation it holds in the budget: an idle one
    started under this environment, else a new one once the budget has room — waiting
    (telling ``progress``, which may raise to cancel) while other PDFs are read."""
    env = _child_env()
    key = _env_key(env)
    budget = ParseBudget.from_env(memory_mb=limits.memory_mb)
    stale: list[tuple[subprocess.Popen, int]] = []
    try:
        while True:
            with _room:
                reuse = None
                while _idle:
                    proc, served, started_under, token = _idle.pop()
                    if proc.poll() is None and started_under == key:
                        reuse = (proc, served, key, token)
                        break
                    stale.append((proc, token))  # killed outside the lock, then released
                if reuse is not None:
                    _busy[reuse[3]] = reuse[0].pid
                    return reuse
                if not stale:
                    fits = (
                        len(_held) < budget.workers
                        and sum(_held.values()) + limits.memory_mb <= budget.total_mb
                    )
                    if fits:
                        token = next(_tokens)
                        _held[token] = limits.memory_mb
                        break
                    reading = len(_held)  # every idle worker was taken above: all read
                    _room.wait(timeout=TICK_SECONDS)
            if stale:
                _stop(stale)
                stale = []
                continue
            if progress:
                progress(0.0, waiting_message(reading))  # may raise: nothing is held yet
    finally:
        _stop(stale)
    try:
        proc = _spawn(env)
    except BaseException:
        _release(token)
        raise
    with _room:
        _busy[token] = proc.pid
    return proc, 0, key, token


def _release(token: int) -> None:
    with _room:
        _held.pop(token, None)
        _busy.pop(token, None)
        _room.notify_all()


def _stop(workers: list[tuple[subprocess.Popen, int]]) -> None:
    for proc, token in workers:
        _kill(proc)
        _release(token)


def _keep_worker(
    proc: subprocess.Popen, served: int, peak_mb: int, key: int, token: int
) -> bool:
    if peak_mb > MAX_IDLE_RSS_MB or served >= MAX_WORKER_REQUESTS:
        return False
    with _room:
        if len(_idle) >= MAX_IDLE_WORKERS:
            return False
        _idle.append((proc, served, key, token))
        _busy.pop(token, None)
        _room.notify_all()  # a waiting parse may take it, or stop it to make room
    return True


def stop_idle_workers() -> None:
    """Kill the workers kept for the next PDF (they also exit with their parent)."""
    with _room:
        workers, _idle[:] = list(_idle), []
    _stop([(proc, token) for proc, _, _, token in workers])


def idle_workers() -> list[int]:
    """The pids of the workers kept for the next PDF."""
    with _idle_lock:
        return [proc.pid for proc, _, _, _ in _idle]


def busy_workers() -> list[int]:
    """The pids of the children reading a PDF now (idle ones not counted)."""
    with _idle_lock:
        return sorted(_busy.values())


def run_in_child(
    task: str,
    request: dict[str, Any],
    progress: Callable[[float, str], None] | None = None,
    limits: ParseLimits | None = None,
) -> Any:
    """Run ``task`` (``parse`` or ``render``) of :mod:`ragdash.ingestion.parse_child` on
    ``request`` in a child process and return its result.

    Raises :class:`IngestError` naming the limit that was reached, the child's own
    refusal, or whatever ``progress`` raised (the child is killed first in every case;
    only a child that answered well is kept for the next PDF).
    """
    limits = limits or ParseLimits.from_env()
    payload = pickle.dumps({"task": task, "limits": limits, **request})
    frames: queue.Queue[tuple[bytes, bytes] | None] = queue.Queue()
    proc, served, key, token = _take_worker(limits, progress)

    def send() -> None:
        with contextlib.suppress(OSError, ValueError):  # a dead child: the reader says how
            write_frame(proc.stdin, b"q", payload)

    def receive() -> None:
        try:
            while (frame := read_frame(proc.stdout)) is not None:
                frames.put(frame)
                if frame[0] in (b"r", b"e"):
                    return  # the answer: the worker waits for its next request
        except (OSError, ValueError):
            pass
        frames.put(None)

    threads = [threading.Thread(target=f, daemon=True) for f in (send, receive)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + limits.seconds
    state: tuple[float, str] = (0.0, "opening the PDF")
    ocr_pages = 0  # pages the child said it will OCR: their allowance is on the deadline
    kept = False
    try:
        while True:
            try:
                frame = frames.get(timeout=TICK_SECONDS)
            except queue.Empty:
                if time.monotonic() > deadline:
                    raise IngestError(limits.overtime(ocr_pages)) from None
                if progress:
                    progress(*state)  # may raise (Cancel): the finally kills the child
                continue
            if frame is None:
                raise IngestError(_death(proc, limits, ocr_pages))
            kind, body = frame
            if kind == b"p":
                fraction, _, label = body.decode("utf-8", "replace").partition(" ")
                state = (float(fraction), label)
                if progress:
                    progress(*state)
            elif kind == b"o" and not ocr_pages:  # pages to OCR: more time, within a budget
                text = body.decode("ascii", "replace")
                ocr_pages = max(0, min(int(text) if text.isdigit() else 0, 100_000))
                deadline += limits.ocr_allowance(ocr_pages)[0]
            elif kind == b"e":
                raise _error_of(body.decode("utf-8", "replace"))
            elif kind == b"r":
                result, peak_mb = pickle.loads(body)
                for thread in threads:
                    thread.join(timeout=2)
                kept = _keep_worker(proc, served + 1, peak_mb, key, token)
                return result
    finally:
        if not kept:
            _kill(proc)
            _release(token)
            for thread in threads:
                thread.join(timeout=2)


def _error_of(body: str) -> IngestError:
    """The child's refusal as the same kind of error the parse raised in the child.

    >>> _error_of("OcrUnavailable\\nTesseract is not installed")
    OcrUnavailable('Tesseract is not installed')
    >>> _error_of("NoSuchError\\nodd")
    IngestError('odd')
    """
    import ragdash.errors

    name, _, message = body.partition("\n")
    kind = getattr(ragdash.errors, name, None)
    if not (isinstance(kind, type) and issubclass(kind, IngestError)):
        kind = IngestError
    return kind(message)


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
    proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        try:
            if pipe:
                pipe.close()
        except OSError:
            pass


def _death(proc: subprocess.Popen, limits: ParseLimits, ocr_pages: int = 0) -> str:
    code = proc.wait()
    if code < 0 and -code == signal.SIGXCPU:
        return limits.overtime(ocr_pages)
    return (
        f"stopped the PDF reader (exit status {code}): it may need more than the limit of "
        f"{limits.memory_mb:,} MiB of memory ({LIMIT_ENV['memory_mb']})"
    )
