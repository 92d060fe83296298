"""Generate sample_docs/plans.pdf: a two-page plan sheet whose table is cut by the page break.

The "Basic |" row ends page 1 and its values ("10 Go | 5 EUR") open page 2, as a PDF text
layer does when a table runs over a page boundary. The prose also carries two OCR errors
("Enterpr1se", "SS0"). Run: python scripts/make_sample_pdf.py  (needs reportlab).
"""

from __future__ import annotations

import sys
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

PAGE_1 = [
    ("Helvetica-Bold", 16, "Subscription plans"),
    ("Helvetica", 11, ""),
    ("Helvetica", 11, "Every plan includes email support and daily backups."),
    ("Helvetica", 11, "The Enterpr1se plan adds SS0 through your identity provider"),
    ("Helvetica", 11, "and a dedicated account manager."),
]
TABLE_HEAD = ["Plan | Storage | Monthly price", "Basic |"]
PAGE_2 = [
    "10 Go | 5 EUR",
    "Pro | 100 Go | 15 EUR",
    "Enterpr1se | 1 To | on request",
    "",
    "Prices are per month, excluding VAT. Upgrades take effect immediately.",
]


def write_pdf(path: Path) -> None:
    """Write the plans PDF to ``path`` (byte-for-byte reproducible)."""
    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.setTitle("Subscription plans")
    width, height = A4
    y = height - 72
    for font, size, text in PAGE_1:
        canvas.setFont(font, size)
        canvas.drawString(72, y, text)
        y -= size + 8
    # The table starts at the foot of the page so that the break cuts its first row.
    y = 110
    canvas.setFont("Helvetica", 11)
    for line in TABLE_HEAD:
        canvas.drawString(72, y, line)
        y -= 19
    canvas.showPage()
    y = height - 72
    canvas.setFont("Helvetica", 11)
    for line in PAGE_2:
        canvas.drawString(72, y, line)
        y -= 19
    canvas.showPage()
    canvas.save()


if __name__ == "__main__":
    default = Path(__file__).resolve().parent.parent / "sample_docs" / "plans.pdf"
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    write_pdf(target)
    print(f"wrote {target}")
