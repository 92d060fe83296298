"""A minimal text-only PDF writer: lines of Helvetica at given positions, no dependency.

Why: the ``split-table`` stress fault lays a table out across a page break and sends the
result through the real ingestion (pdfplumber), so the fault is a PDF like any upload —
without making reportlab a runtime dependency. Text outside Latin-1 is written as ``?``.

    >>> data = text_pdf([[(72, 700, 11, "Plan | Storage")], [(72, 770, 11, "10 Go | 5 EUR")]])
    >>> data[:8]
    b'%PDF-1.4'
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["PAGE_HEIGHT", "PAGE_WIDTH", "text_pdf"]

PAGE_WIDTH, PAGE_HEIGHT = 595.2756, 841.8898  # A4 in points

Line = tuple[float, float, float, str]  # x, y, font size, text


def _escape(text: str) -> bytes:
    raw = text.encode("latin-1", "replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def text_pdf(pages: Sequence[Sequence[Line]]) -> bytes:
    """A PDF with one page per item of ``pages``, each line drawn at (x, y) in points from
    the bottom-left corner, deterministic byte for byte."""
    objects: list[bytes] = [b"", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                            b"/Encoding /WinAnsiEncoding >>"]  # fmt: skip
    kids = []
    for lines in pages:
        ops = [b"BT"]
        for x, y, size, text in lines:
            ops.append(b"/F1 %.1f Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj" % (size, x, y, _escape(text)))
        ops.append(b"ET")
        stream = b"\n".join(ops)
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.4f %.4f] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R >> >> >>" % (PAGE_WIDTH, PAGE_HEIGHT, content)
        )
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))  # fmt: skip
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
