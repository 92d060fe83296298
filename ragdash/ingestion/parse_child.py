"""The child process of :func:`ragdash.ingestion.bounded.run_in_child`: it caps its own
memory, dies with its parent, installs the per-PDF limits into pdfminer, runs one task
(``parse``: :func:`ragdash.ingestion.ingest._parse_pdf`, OCR included; ``render``: a page
image) and sends the result back. Run as ``python -m ragdash.ingestion.parse_child``; the
request comes on stdin, progress and the result go to stdout as frames.

Each limit is counted where pdfminer does the work, so a PDF is stopped as soon as it goes
over — after the 100,001st character of a page, not after 2,000,000 — and the refusal
names the limit::

    page 1 exceeds the limit of 100,000 text objects per page (RAGDASH_MAX_PAGE_OBJECTS)

Limits are counted in module state because pdfplumber wraps every pdfminer error into its
own; the first limit reached is the answer whatever exception reaches the top.
"""

from __future__ import annotations

import io
import logging
import pickle
import resource
import sys
import zlib
from typing import Any

from ragdash.errors import IngestError
from ragdash.ingestion.bounded import LIMIT_ENV, ParseLimits, read_frame, write_frame

__all__ = ["LimitReached", "install_limits", "main"]


class LimitReached(IngestError):
    """A PDF went over one of the :class:`ParseLimits`; the message names it."""


_reached: list[str] = []
_page = {"number": 0, "objects": 0}


def _refuse(message: str) -> None:
    if not _reached:
        _reached.append(message)
    raise LimitReached(_reached[0])


class _BoundedZlib:
    """What pdfminer's stream decoder uses of :mod:`zlib`, with inflation capped."""

    error = zlib.error

    def __init__(self, cap: Any) -> None:
        self._cap = cap

    @property
    def cap(self) -> int:
        return self._cap()

    def _over(self) -> None:
        _refuse(
            f"has a compressed stream that inflates past the limit of {self.cap // 1_000_000:,}"
            f" MB per stream ({LIMIT_ENV['stream_mb']})"
        )

    def decompress(self, data: bytes) -> bytes:
        d = zlib.decompressobj()
        cap = self.cap
        out = d.decompress(data, cap + 1)
        if len(out) > cap or d.unconsumed_tail:
            self._over()
        if not d.eof:
            raise zlib.error("incomplete or truncated stream")
        return out

    def decompressobj(self) -> Any:
        outer, inner = self, zlib.decompressobj()

        class Counted:
            total = 0

            def decompress(self, data: bytes) -> bytes:
                out = inner.decompress(data)
                Counted.total += len(out)
                if Counted.total > outer.cap:
                    outer._over()
                return out

        return Counted()


#: The limits of the request being served (a worker serves one request at a time).
_current: dict[str, ParseLimits] = {}
_installed: list[bool] = []


def install_limits(limits: ParseLimits) -> None:
    """Put the per-PDF limits into pdfminer (this process only); a later call changes them."""
    _current["limits"] = limits
    if _installed:
        return
    _installed.append(True)
    from pdfminer import converter, pdftypes

    def cap() -> int:
        return _current["limits"].stream_mb * 1_000_000

    pdftypes.zlib = _BoundedZlib(cap)  # type: ignore[assignment]
    decode = pdftypes.PDFStream.decode

    def bounded_decode(self: Any) -> None:  # other filters (LZW, run length) too
        decode(self)
        if self.data is not None and len(self.data) > cap():
            pdftypes.zlib._over()  # type: ignore[attr-defined]

    pdftypes.PDFStream.decode = bounded_decode  # type: ignore[method-assign]
    begin_page = converter.PDFLayoutAnalyzer.begin_page
    render_char = converter.PDFLayoutAnalyzer.render_char

    def counted_begin(self: Any, page: Any, ctm: Any) -> None:
        limits = _current["limits"]
        _page["objects"] = 0
        x0, y0, x1, y1 = page.mediabox
        width, height = abs(x1 - x0), abs(y1 - y0)
        if max(width, height) > limits.page_points:
            _refuse(
                f"page {self.pageno} is {width:,.0f} × {height:,.0f} pt, over the limit of "
                f"{limits.page_points:,.0f} pt per side ({LIMIT_ENV['page_points']})"
            )
        begin_page(self, page, ctm)

    def counted_char(self: Any, *args: Any, **kwargs: Any) -> float:
        _page["objects"] += 1
        limit = _current["limits"].page_objects
        if _page["objects"] > limit:
            _refuse(
                f"page {self.pageno} exceeds the limit of {limit:,} text objects per page "
                f"({LIMIT_ENV['page_objects']})"
            )
        return render_char(self, *args, **kwargs)

    converter.PDFLayoutAnalyzer.begin_page = counted_begin  # type: ignore[method-assign]
    converter.PDFLayoutAnalyzer.render_char = counted_char  # type: ignore[method-assign]


def _cap_resources(limits: ParseLimits) -> None:
    """Memory and CPU for this request. Soft limits only (the hard ones stay open), so the
    next request of this worker may set others."""
    size = limits.memory_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (size if hard == resource.RLIM_INFINITY else
                                            min(size, hard), hard))  # fmt: skip
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime)
    cpu = used + int(limits.seconds) + 5  # a backstop: the parent kills it on the wall clock
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard == resource.RLIM_INFINITY or cpu < hard:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, hard))


def _watch_parent() -> None:
    """Exit as soon as the parent process is gone (a server killed with kill -9): checked
    every half second by a thread, whichever thread of the parent started this worker."""
    import os
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True).start()


def _run(request: dict[str, Any], out: Any) -> Any:
    task = request["task"]
    if task == "parse":
        from ragdash.ingestion.ingest import _parse_pdf

        def progress(fraction: float, label: str) -> None:
            write_frame(out, b"p", f"{fraction:.4f} {label}".encode())

        from ragdash.ingestion.scans import DEFAULT_OCR

        limits: ParseLimits = request["limits"]

        def ocr_budget(pages: int) -> tuple[float, str]:
            """The parent extends its clock by the OCR allowance, and so does the CPU cap;
            the OCR loop stops itself once the allowance is spent (the limit named)."""
            write_frame(out, b"o", str(int(pages)).encode("ascii"))
            extra, named = limits.ocr_allowance(pages)
            soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
            if soft != resource.RLIM_INFINITY:
                more = soft + int(extra)
                if hard == resource.RLIM_INFINITY or more <= hard:
                    resource.setrlimit(resource.RLIMIT_CPU, (more, hard))
            return extra, named

        ocr = request.get("ocr", DEFAULT_OCR)
        return _parse_pdf(request["data"], request["max_pages"], progress, ocr, ocr_budget)
    if task == "render":
        from ragdash.ingestion.inspection import _render_page

        image = _render_page(request["data"], request["page"], request["resolution"])
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()
    raise IngestError(f"unknown task {task!r}")


def _rss_mb() -> int:
    """This process's resident memory now (what keeping it idle costs), in MB."""
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * resource.getpagesize() // (1024 * 1024)


def _answer(request: dict[str, Any], out: Any) -> None:
    """Serve one request: a result frame, or an error frame with one plain line."""
    limits: ParseLimits = request["limits"]
    _reached.clear()
    _page["objects"] = 0
    _cap_resources(limits)
    install_limits(limits)
    memory = (
        f"needs more than the limit of {limits.memory_mb:,} MiB of memory to read "
        f"({LIMIT_ENV['memory_mb']})"
    )
    try:
        result = _run(request, out)
    except MemoryError:
        detail = _reached[0] if _reached else memory
    except RecursionError:
        detail = "could not be read as a PDF (objects nested too deeply)"
    except IngestError as exc:
        if not _reached and "MemoryError" in str(exc):  # pdfplumber wrapped it
            _reached.append(memory)
        if not _reached:  # the parent raises the same kind (OcrUnavailable, ...)
            write_frame(out, b"e", f"{type(exc).__name__}\n{exc}".encode())
            return
        detail = _reached[0]
    except Exception as exc:  # a bug or an odd file: one line for the user, never a trace
        detail = _reached[0] if _reached else f"could not be read ({type(exc).__name__})"
    else:
        if not _reached:
            payload = pickle.dumps((result, _rss_mb()), protocol=pickle.HIGHEST_PROTOCOL)
            write_frame(out, b"r", payload)
            return
        detail = _reached[0]  # a limit reached where pdfminer swallowed the error
    write_frame(out, b"e", f"IngestError\n{detail}".encode())


def main() -> int:
    """Answer requests until stdin closes (the parent keeps an idle worker for the next
    PDF; it kills it instead whenever a request goes wrong)."""
    _watch_parent()
    logging.disable(logging.CRITICAL)  # pdfminer's warnings about damaged files
    # Nothing this process runs uses pandas, but pytesseract imports it when it can (for a
    # DataFrame output ragdash never asks for): 0.4 CPU-seconds in every worker that OCRs.
    # A None entry makes `import pandas` raise ModuleNotFoundError, which pytesseract takes
    # as "pandas is not installed".
    sys.modules.setdefault("pandas", None)  # type: ignore[arg-type]
    out = sys.stdout.buffer
    while (frame := read_frame(sys.stdin.buffer)) is not None:
        _answer(pickle.loads(frame[1]), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
