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

    def __init__(self, cap: int, mb: int) -> None:
        self.cap, self.mb = cap, mb

    def _over(self) -> None:
        _refuse(
            f"has a compressed stream that inflates past the limit of {self.mb:,} MB per "
            f"stream ({LIMIT_ENV['stream_mb']})"
        )

    def decompress(self, data: bytes) -> bytes:
        d = zlib.decompressobj()
        out = d.decompress(data, self.cap + 1)
        if len(out) > self.cap or d.unconsumed_tail:
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


def install_limits(limits: ParseLimits) -> None:
    """Put the per-PDF limits into pdfminer (this process only)."""
    from pdfminer import converter, pdftypes

    cap = limits.stream_mb * 1_000_000
    pdftypes.zlib = _BoundedZlib(cap, limits.stream_mb)  # type: ignore[assignment]
    decode = pdftypes.PDFStream.decode

    def bounded_decode(self: Any) -> None:  # other filters (LZW, run length) too
        decode(self)
        if self.data is not None and len(self.data) > cap:
            pdftypes.zlib._over()  # type: ignore[attr-defined]

    pdftypes.PDFStream.decode = bounded_decode  # type: ignore[method-assign]
    begin_page = converter.PDFLayoutAnalyzer.begin_page
    render_char = converter.PDFLayoutAnalyzer.render_char

    def counted_begin(self: Any, page: Any, ctm: Any) -> None:
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
        if _page["objects"] > limits.page_objects:
            _refuse(
                f"page {self.pageno} exceeds the limit of {limits.page_objects:,} text "
                f"objects per page ({LIMIT_ENV['page_objects']})"
            )
        return render_char(self, *args, **kwargs)

    converter.PDFLayoutAnalyzer.begin_page = counted_begin  # type: ignore[method-assign]
    converter.PDFLayoutAnalyzer.render_char = counted_char  # type: ignore[method-assign]


def _cap_memory(limits: ParseLimits) -> None:
    size = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    cpu = int(limits.seconds) + 5  # a backstop: the parent kills it on the wall clock
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))


def _die_with_parent() -> None:
    try:
        import ctypes
        import os
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            os._exit(1)
    except (OSError, AttributeError):
        pass  # not Linux: the parent still kills it on every way out


def _run(request: dict[str, Any], out: Any) -> Any:
    task = request["task"]
    if task == "parse":
        from ragdash.ingestion.ingest import _parse_pdf

        def progress(fraction: float, label: str) -> None:
            write_frame(out, b"p", f"{fraction:.4f} {label}".encode())

        return _parse_pdf(request["data"], request["max_pages"], progress)
    if task == "render":
        from ragdash.ingestion.inspection import _render_page

        image = _render_page(request["data"], request["page"], request["resolution"])
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()
    raise IngestError(f"unknown task {task!r}")


def main() -> int:
    """Read one request, answer it, exit."""
    _die_with_parent()
    logging.disable(logging.CRITICAL)  # pdfminer's warnings about damaged files
    out = sys.stdout.buffer
    frame = read_frame(sys.stdin.buffer)
    if frame is None:
        return 1
    request = pickle.loads(frame[1])
    limits: ParseLimits = request["limits"]
    _cap_memory(limits)
    install_limits(limits)
    try:
        result = _run(request, out)
    except MemoryError:
        message = (
            f"needs more than the limit of {limits.memory_mb:,} MiB of memory to read "
            f"({LIMIT_ENV['memory_mb']})"
        )
        write_frame(out, b"e", (_reached[0] if _reached else message).encode())
        return 0
    except RecursionError:
        write_frame(out, b"e", b"could not be read as a PDF (objects nested too deeply)")
        return 0
    except IngestError as exc:
        if not _reached and "MemoryError" in str(exc):  # pdfplumber wrapped it
            _reached.append(
                f"needs more than the limit of {limits.memory_mb:,} MiB of memory to read "
                f"({LIMIT_ENV['memory_mb']})"
            )
        write_frame(out, b"e", (_reached[0] if _reached else str(exc)).encode())
        return 0
    except Exception as exc:  # a bug or an odd file: one line for the user, never a trace
        detail = _reached[0] if _reached else f"could not be read ({type(exc).__name__})"
        write_frame(out, b"e", detail.encode())
        return 0
    if _reached:  # a limit reached where pdfminer swallowed the error
        write_frame(out, b"e", _reached[0].encode())
        return 0
    write_frame(out, b"r", pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
