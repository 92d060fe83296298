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
    "LIMIT_ENV",
    "ParseLimits",
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
}

#: How often the parent wakes to check the clock and call the progress callback.
TICK_SECONDS = 0.25


@dataclass(frozen=True)
class ParseLimits:
    """What parsing one PDF may take. ``seconds``: wall clock for the whole PDF (OCR
    included); ``memory_mb``: the child's address space; ``stream_mb``: the inflated size
    of one compressed stream; ``page_objects``: text objects (characters) on one page;
    ``page_points``: the longer side of a page (14,400 pt = 200 in is the PDF format's own
    limit)."""

    seconds: float = 300.0
    memory_mb: int = 2048
    stream_mb: int = 100
    page_objects: int = 100_000
    page_points: float = 14_400.0

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


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
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

# (worker, requests served, the environment it was started with): a worker is reused only
# under the same environment (PATH decides whether Tesseract is found, RAGDASH_* the limits)
_idle: list[tuple[subprocess.Popen, int, int]] = []
_idle_lock = threading.Lock()


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


def _take_worker() -> tuple[subprocess.Popen, int, int]:
    env = _child_env()
    key = _env_key(env)
    with _idle_lock:
        while _idle:
            proc, served, started_under = _idle.pop()
            if proc.poll() is None and started_under == key:
                return proc, served, key
            _kill(proc)
    return _spawn(env), 0, key


def _keep_worker(proc: subprocess.Popen, served: int, peak_mb: int, key: int) -> bool:
    if peak_mb > MAX_IDLE_RSS_MB or served >= MAX_WORKER_REQUESTS:
        return False
    with _idle_lock:
        if len(_idle) >= MAX_IDLE_WORKERS:
            return False
        _idle.append((proc, served, key))
    return True


def stop_idle_workers() -> None:
    """Kill the workers kept for the next PDF (they also exit with their parent)."""
    with _idle_lock:
        workers, _idle[:] = list(_idle), []
    for proc, _, _ in workers:
        _kill(proc)


def idle_workers() -> list[int]:
    """The pids of the workers kept for the next PDF."""
    with _idle_lock:
        return [proc.pid for proc, _, _ in _idle]


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
    proc, served, key = _take_worker()
    frames: queue.Queue[tuple[bytes, bytes] | None] = queue.Queue()
    payload = pickle.dumps({"task": task, "limits": limits, **request})

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
    kept = False
    try:
        while True:
            try:
                frame = frames.get(timeout=TICK_SECONDS)
            except queue.Empty:
                if time.monotonic() > deadline:
                    raise IngestError(
                        f"took longer than the limit of {limits.seconds:g} s to read "
                        f"({LIMIT_ENV['seconds']}); stopped"
                    ) from None
                if progress:
                    progress(*state)  # may raise (Cancel): the finally kills the child
                continue
            if frame is None:
                raise IngestError(_death(proc, limits))
            kind, body = frame
            if kind == b"p":
                fraction, _, label = body.decode("utf-8", "replace").partition(" ")
                state = (float(fraction), label)
                if progress:
                    progress(*state)
            elif kind == b"e":
                raise _error_of(body.decode("utf-8", "replace"))
            elif kind == b"r":
                result, peak_mb = pickle.loads(body)
                for thread in threads:
                    thread.join(timeout=2)
                kept = _keep_worker(proc, served + 1, peak_mb, key)
                return result
    finally:
        if not kept:
            _kill(proc)
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


def _death(proc: subprocess.Popen, limits: ParseLimits) -> str:
    code = proc.wait()
    if code < 0 and -code == signal.SIGXCPU:
        return (
            f"took longer than the limit of {limits.seconds:g} s to read "
            f"({LIMIT_ENV['seconds']}); stopped"
        )
    return (
        f"stopped the PDF reader (exit status {code}): it may need more than the limit of "
        f"{limits.memory_mb:,} MiB of memory ({LIMIT_ENV['memory_mb']})"
    )
