"""Small tables of the kinds the held-out scans lost (issue 44), scanned: ``≤`` and ``≥`` in
cells (ragdash/ingestion/scan/figures.py, ``relations_from_glyphs``): Tesseract's English
model has no such sign and read ``≤ 5`` as ``<5``, ``≤ 50`` as ``s50``, ``≥ 10`` as
``210``; the scan must read them as printed, and never turn a printed ``<``, ``2``, ``$``
or ``s`` into one. And a summary table whose total and first rows are shaded grey: their
thousands figures were lost (ocr_prep's background flattening skipped a page whose shade
covered under 2% of it).

Each table is a born-digital PDF (reportlab, Liberation Sans or Serif) drawn as the
benchmark's scanner draws a document (``benchmarks.realscans.scanner_images``: resolution,
JPEG, blur, skew, uneven light, specks), then read back through ``read_pdf``."""

from __future__ import annotations

import io
import os
import subprocess

import pytest
from conftest import require, scanned

from ragdash.checks.proof import evidence_found
from ragdash.ingestion.ingest import read_pdf

#: Cells printed with a sign Tesseract cannot read (``≤``, ``≥``), and, in the last two
#: rows, cells printed with the characters it reads them as: these must stay as printed.
LIMITS = (
    ("Test", "Limit", "Result", "Share"),
    ("Lead", "≤ 5", "3", "≤5%"),
    ("Copper", "≥ 10", "12", "≥ 20%"),
    ("Nitrate", "≤ 50", "41", "≤10%"),
    ("Fluoride", "≤ 1.5", "0.9", "≥95%"),
    ("Zinc", "< 5", "210", "2 20%"),
    ("Iron", "> 8", "$1.5", "s50"),
)
SIGNED = [cell for row in LIMITS[1:5] for cell in row[1:] if cell[0] in "≤≥"]


def _font(family: str = "Liberation Sans", style: str = "Regular") -> str:
    out = subprocess.run(["fc-match", "-f", "%{file}", f"{family}:style={style}"],
                         capture_output=True, text=True, check=False).stdout  # fmt: skip
    if family.replace(" ", "") not in out or not os.path.isfile(out):
        require(f"no {family} {style} here (fontconfig; apt-get install fonts-liberation)")
    return out


def limits_pdf(path) -> None:
    """The limits table as a born-digital PDF, ruled, 10 pt."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.platypus import SimpleDocTemplate, Table, TableStyle

    pdfmetrics.registerFont(TTFont("LimitsSans", _font()))
    doc = SimpleDocTemplate(str(path), pagesize=A4, invariant=1)  # as dense as a real page's dust
    style = TableStyle([("FONT", (0, 0), (-1, -1), "LimitsSans", 10),
                        ("GRID", (0, 0), (-1, -1), 0.5, colors.black)])  # fmt: skip
    doc.build([Table([list(row) for row in LIMITS], style=style)])


@pytest.mark.usefixtures("tesseract")
@pytest.mark.parametrize("seed", [1, 2])  # 200 dpi, JPEG q71, blur 1.06 px; 150 dpi, q40
def test_less_or_equal_signs_in_a_scanned_table_are_read_as_printed(tmp_path, seed):
    path = tmp_path / "limits.pdf"
    limits_pdf(path)
    data, how = scanned(path, seed)
    pdf = read_pdf(io.BytesIO(data).getvalue())
    text = pdf.layouts[0].text
    found = [cell for cell in SIGNED if evidence_found(cell, text)]
    # Tesseract alone: 0 or 1 of the 8; a cell may still lose a digit or its point
    assert len(found) >= 6, f"{found} of {SIGNED} read as printed ({how}):\n{text}"
    lines = text.splitlines()
    zinc = next(n for n, line in enumerate(lines) if "Zinc" in line)
    printed = "\n".join(lines[zinc:zinc + 2])  # the Zinc and Iron rows
    assert not set("≤≥") & set(printed), f"a printed <, >, 2, $ or s made a sign ({how}):\n{text}"


#: A summary table as census profiles print it: the total and the first row shaded grey,
#: the total in bold, figures with thousands separators.
SUMMARY = (
    ("", "Number", "Percent", "Median"),
    ("Total population", "1,204,118", "100.0", "38.2"),
    ("Households", "12,530", "", "2.6"),
    ("Under 18 years", "287,402", "23.9", "9.1"),
    ("18 to 64 years", "741,905", "61.6", "41.0"),
)


def summary_pdf(path, family: str) -> None:
    """The summary table as a born-digital PDF, ruled, 7 pt, its first two rows shaded
    (#bbbbbb) on an A4 page: the shade covers well under 2% of the page."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.platypus import SimpleDocTemplate, Table, TableStyle

    pdfmetrics.registerFont(TTFont(f"Summary{family}", _font(f"Liberation {family}")))
    pdfmetrics.registerFont(TTFont(f"Summary{family}Bold", _font(f"Liberation {family}", "Bold")))
    style = TableStyle([
        ("FONT", (0, 0), (-1, -1), f"Summary{family}", 7),
        ("FONT", (0, 1), (-1, 1), f"Summary{family}Bold", 7),
        ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
        ("BACKGROUND", (0, 1), (-1, 2), colors.HexColor("#bbbbbb")),
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
    ])  # fmt: skip
    doc = SimpleDocTemplate(str(path), pagesize=A4, invariant=1)
    doc.build([Table([list(row) for row in SUMMARY], style=style)])


@pytest.mark.usefixtures("tesseract")
@pytest.mark.parametrize(("family", "seed"), [("Serif", 2), ("Sans", 2), ("Serif", 4)])
def test_thousands_figures_in_a_small_shaded_summary_table_are_read(tmp_path, family, seed):
    """Seed 2 is 150 dpi at JPEG q40, seed 4 200 dpi at q54: the shaded rows' figures read
    as ``(ee)``, ``1530`` or ``12,830,`` before the shade was flattened."""
    path = tmp_path / "summary.pdf"
    summary_pdf(path, family)
    data, how = scanned(path, seed)
    text = read_pdf(data).pages[0]  # the plain text: a row's cells one after another
    for label, figure, *_ in SUMMARY[1:3]:  # the shaded rows, their label with the figure
        assert evidence_found(f"{label} {figure}", text), f"{label} {figure} ({how}) in:\n{text}"
    for _label, figure, *_ in SUMMARY[3:]:
        assert evidence_found(figure, text), f"{figure} ({how}) in:\n{text}"
