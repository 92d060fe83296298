"""Crafted PDFs that attack the parser, built byte by byte in the test run (nothing stored):
a page of 2,000,000 tiny text operations, a stream that inflates to hundreds of MB, a page
200,000 pt wide. Each is a valid PDF a viewer would open."""

from __future__ import annotations

import zlib


def raw_pdf(content: bytes, width: float = 612, height: float = 792, flate: bool = True) -> bytes:
    """A one-page PDF whose page draws ``content`` (compressed when ``flate``) in Helvetica."""
    stream = zlib.compress(content, 9) if flate else content
    filters = b"/Filter /FlateDecode " if flate else b""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
        % (str(width).encode(), str(height).encode()),
        b"<< " + filters + b"/Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def text_ops_pdf(operations: int = 2_000_000) -> bytes:
    """``operations`` one-letter show-text operations on one page (~140 KB compressed)."""
    return raw_pdf(b"BT /F1 1 Tf 10 10 Td " + b"(a) Tj " * operations + b"ET")


def inflating_pdf(megabytes: int = 300) -> bytes:
    """A page whose content stream is ``megabytes`` MB of spaces once inflated (~300 KB)."""
    body = b"BT /F1 12 Tf 72 720 Td (Inflated) Tj ET\n" + b" " * (megabytes * 1_000_000)
    return raw_pdf(body)


def huge_page_pdf(points: float = 200_000) -> bytes:
    """A tiny PDF declaring one ``points`` × ``points`` page with a line of text on it."""
    return raw_pdf(b"BT /F1 12 Tf 72 72 Td (Huge page) Tj ET", points, points)


def small_pdf(text: str = "Plain words on a normal page") -> bytes:
    """A normal one-page PDF, for comparison."""
    return raw_pdf(b"BT /F1 12 Tf 72 720 Td (" + text.encode() + b") Tj ET")


def noise_pages_pdf(pages: int = 500, pixels: int = 600, seed: int = 7) -> bytes:
    """``pages`` pages sharing one image of random grey noise (stored once: a small file
    that asks OCR for every page) — the upload that held a parse slot for hours."""
    import io
    import random

    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    rng = random.Random(seed)
    noise = Image.frombytes(
        "L", (pixels, pixels), bytes(rng.getrandbits(8) for _ in range(pixels * pixels))
    )
    reader = ImageReader(noise)
    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=(612, 792))
    for _ in range(pages):
        pdf.drawImage(reader, 0, 0, 612, 792)  # one XObject, drawn on every page
        pdf.showPage()
    pdf.save()
    return out.getvalue()
