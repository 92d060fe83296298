"""A page of any declared size is drawn, and stays visible once shown: a 14,400 × 3 pt page
(a long thin strip) was accepted and then its card failed ("image resized to 0 px") when
Streamlit scaled the 16,000 × 4 px image down to the page width."""

from __future__ import annotations

import io

from conftest import open_documents
from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from ragdash.ingestion.inspection import render_page_with_tables
from ragdash.ingestion.page_image import MIN_SHOWN_PIXELS, SHOWN_WIDTH, render_resolution, shown

DOCUMENTS = "ragdash/ui/pages/documents.py"


def strip_pdf(width: float = 14_400, height: float = 3) -> bytes:
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(width, height), invariant=1)
    canvas.setFont("Helvetica", 2)
    canvas.drawString(10, 0.5, "zephyrine strip text")
    canvas.showPage()
    canvas.save()
    return out.getvalue()


def test_a_thin_page_keeps_pixels_on_every_side_drawn_and_shown():
    image = render_page_with_tables(strip_pdf(), 1, resolution=80)
    assert image.width >= SHOWN_WIDTH
    assert image.height * SHOWN_WIDTH / image.width >= MIN_SHOWN_PIXELS  # not 0 once shown
    for width, height in ((14_400, 0.5), (0.5, 14_400), (3, 3), (612, 792)):
        dpi = render_resolution(width, height, 80)
        assert min(width, height) * dpi / 72 >= 1
    tall = Image.new("RGB", (4, 16_000))
    assert shown(tall) is tall  # only width is scaled down: nothing to pad


def test_the_documents_page_draws_a_thin_page_without_an_error(app, tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "strip.pdf").write_bytes(strip_pdf())
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    at = app()
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run(timeout=120))
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == []
    assert len(at.get("image")) == 1  # the page view of strip.pdf
