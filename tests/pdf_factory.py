"""Real PDFs for the tests, made with reportlab: ruled, unruled and text tables that run over
page breaks, prose after tables, two tables on a page, OCR-damaged text, and bad PDFs.

Every builder returns the PDF's bytes; pdfplumber parses them in the tests like any upload.
"""

from __future__ import annotations

import io

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

Rows = list[list[str]]

_STYLES = getSampleStyleSheet()
RULED = TableStyle(
    [
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold"),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
)
UNRULED = TableStyle(
    [("FONT", (0, 0), (-1, 0), "Helvetica-Bold"), ("VALIGN", (0, 0), (-1, -1), "TOP")]
)


def inventory_rows(count: int) -> Rows:
    """A header and ``count`` data rows of made-up stock items, every value distinct."""
    rows = [["Item code", "Product", "Warehouse", "Quantity"]]
    places = ["Lyon", "Porto", "Gdansk", "Leeds", "Turin"]
    for i in range(1, count + 1):
        rows.append([f"SKU-{i:04d}", f"Widget model {i}", places[i % len(places)], str(7 * i)])
    return rows


def prose(sentences: int, topic: str = "warehouse") -> str:
    """Plain prose of ``sentences`` sentences."""
    return " ".join(
        f"Sentence {n} explains how the {topic} team handles returns and restocking."
        for n in range(1, sentences + 1)
    )


def _build(story: list, **kwargs) -> bytes:
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=A4, invariant=1, **kwargs)
    doc.build(story)
    return out.getvalue()


def table_pdf(
    rows: Rows,
    ruled: bool = True,
    before: str = "",
    after: str = "",
    repeat_header: bool = True,
    split_in_row: bool = False,
    col_widths: list[float] | None = None,
) -> bytes:
    """A flowing document: optional prose, one table (header repeated on each page if
    ``repeat_header``), optional prose after it. reportlab breaks the table over pages."""
    story: list = []
    if before:
        story += [Paragraph(before, _STYLES["Normal"]), Spacer(1, 12)]
    story.append(
        Table(
            rows,
            colWidths=col_widths,
            repeatRows=1 if repeat_header else 0,
            style=RULED if ruled else UNRULED,
            splitInRow=1 if split_in_row else 0,
        )
    )
    if after:
        story += [Spacer(1, 12), Paragraph(after, _STYLES["Normal"])]
    return _build(story)


def two_tables_pdf(first: Rows, second: Rows, ruled: bool = True) -> bytes:
    """One page holding two tables, each under its own heading."""
    story = [
        Paragraph("Stock levels", _STYLES["Heading2"]),
        Table(first, style=RULED if ruled else UNRULED),
        Spacer(1, 18),
        Paragraph("Carrier contacts", _STYLES["Heading2"]),
        Table(second, style=RULED if ruled else UNRULED),
    ]
    return _build(story)


def text_pages_pdf(pages: list[list[str]], font_size: int = 11) -> bytes:
    """Each inner list is one page of lines drawn top-down, exactly as given."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    _, height = A4
    for lines in pages:
        canvas.setFont("Helvetica", font_size)
        y = height - 72
        for line in lines:
            canvas.drawString(72, y, line)
            y -= font_size + 8
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def image_only_pdf(pages: int = 2) -> bytes:
    """Pages with drawings but no text layer, like a scan."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    for n in range(pages):
        canvas.setFillColor(colors.grey)
        canvas.rect(72, 400 - 20 * n, 300, 200, fill=1)
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def encrypted_pdf() -> bytes:
    """A PDF that needs a user password to open."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1, encrypt="secret")
    canvas.drawString(72, 700, "Confidential salary bands")
    canvas.showPage()
    canvas.save()
    return out.getvalue()


def many_pages_pdf(pages: int, lines_per_page: int = 30) -> bytes:
    """A long text PDF (``pages`` pages of numbered lines) to test limits and speed."""
    return text_pages_pdf(
        [
            [
                f"Page {p} line {n}: the returns policy applies to every order."
                for n in range(lines_per_page)
            ]
            for p in range(1, pages + 1)
        ]
    )


def text_then_scan_pdf() -> bytes:
    """Page 1 has a text layer; page 2 is a drawing only, like a scanned page."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    canvas.drawString(72, 760, "Returns are accepted within 30 days of delivery.")
    canvas.showPage()
    canvas.setFillColor(colors.grey)
    canvas.rect(72, 400, 300, 200, fill=1)
    canvas.showPage()
    canvas.save()
    return out.getvalue()


# --------------------------------------------------------------------------- drawn pages
# Pages drawn item by item at exact places, for the layouts real PDFs have: running
# headers and footers, facing pages shifted sideways, captions, multi-column prose.

Item = tuple[float, float, str]  # x, distance from the page top, text


def drawn_pdf(
    pages: list[list[Item]], font_size: float = 9, rotated: bool = False,
    font: str = "Helvetica",
) -> bytes:
    """Each page is a list of (x, top, text) drawn with Helvetica (or ``font``: the CID font
    ``STSong-Light`` draws Chinese without any font file); ``rotated`` adds a vertical
    margin note on every page (text that breaks a page-level word check)."""
    if font == "STSong-Light":
        from reportlab.pdfbase import pdfmetrics
        from reportlab.pdfbase.cidfonts import UnicodeCIDFont

        pdfmetrics.registerFont(UnicodeCIDFont(font))
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    _, height = A4
    for items in pages:
        canvas.setFont(font, font_size)
        for x, top, text in items:
            canvas.drawString(x, height - top - font_size, text)
        if rotated:
            canvas.saveState()
            canvas.translate(570, 300)
            canvas.rotate(90)
            canvas.drawString(0, 0, "Draft - for internal review only")
            canvas.restoreState()
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def table_items(
    rows: Rows, columns: list[float], top: float, shift: float = 0, step: float = 14
) -> tuple[list[Item], float]:
    """A stream table (no rulings): each row's cells at the column x positions."""
    items = []
    for row in rows:
        cells = zip(columns, row, strict=True)
        items.extend((x + shift, top, str(cell)) for x, cell in cells if str(cell))
        top += step
    return items, top


def furniture(page: int, pages: int, shift: float = 0) -> list[Item]:
    """A running header (mirrored on facing pages) and a page-number footer."""
    return [
        (72 + shift, 30, "Northwind Logistics - Annual Statistics 2024"),
        (280 + shift, 800, f"Page {page} of {pages}"),
    ]


def letter_spaced_pdf(text: str, gap: float = 4.0) -> bytes:
    """One line drawn a character at a time with a gap wider than a word space between
    letters (how some generators place dates), plus a normal line."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    canvas.setFont("Helvetica", 11)
    canvas.drawString(72, 760, "Invoice date and reference:")
    x = 72.0
    for char in text:
        if char == " ":
            x += 3 * gap
            continue
        canvas.drawString(x, 740, char)
        x += stringWidth(char, "Helvetica", 11) + gap
    canvas.showPage()
    canvas.save()
    return out.getvalue()


def report_pdf(story_rows: Rows, ruled: bool = True, pages_text: str = "Page") -> bytes:
    """A report: a running header and a page-number footer drawn on every page (as
    reportlab's page templates do), and a long table flowing under them."""

    def furniture(canvas: Canvas, doc: SimpleDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(72, A4[1] - 40, "Contoso Freight - Quarterly Operations Report")
        canvas.drawString(A4[0] / 2, 30, f"{pages_text} {doc.page}")
        canvas.restoreState()

    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=A4, invariant=1)
    story = [
        Paragraph("Table 4. Depot stock by item", _STYLES["Heading2"]),
        Table(story_rows, repeatRows=1, style=RULED if ruled else UNRULED),
        Spacer(1, 12),
        Paragraph(prose(3, "audit"), _STYLES["Normal"]),
    ]
    doc.build(story, onFirstPage=furniture, onLaterPages=furniture)
    return out.getvalue()


def two_column_prose_pdf(paragraphs: int = 24) -> bytes:
    """Running text in two columns over several pages (a newsletter or a journal)."""
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate

    out = io.BytesIO()
    width, height = A4
    column = (width - 144 - 18) / 2
    frames = [
        Frame(72, 72, column, height - 144, id="left"),
        Frame(72 + column + 18, 72, column, height - 144, id="right"),
    ]
    doc = BaseDocTemplate(out, pagesize=A4, invariant=1)
    doc.addPageTemplates([PageTemplate(id="two", frames=frames)])
    doc.build([Paragraph(prose(6, f"topic{n}"), _STYLES["Normal"]) for n in range(paragraphs)])
    return out.getvalue()


def wrapped_records_pdf() -> bytes:
    """A two-page licence listing laid out like report generators that centre multi-line
    cells vertically: a record's wrapped first line sits ABOVE its main line (the line with
    the key), and page 2 opens, under its header, with such a line — the start of its first
    record, not the tail of page 1's last one. A three-line running header sits over the
    column header; its last line is one piece of text that happens to start where a column
    starts."""
    columns = [40.0, 110.0, 220.0, 330.0, 490.0, 545.0]
    furniture_block = [
        (40.0, 20.0, "MARCH 2024"), (250.0, 20.0, "R27 LISTING BY TYPE"), (520.0, 20.0, "RPT27"),
        (260.0, 30.0, "OF ACTIVE PERMITS"), (460.0, 30.0, "4/1/2024"),
        (330.0, 40.0, "STATE PERMIT BOARD"),
    ]
    header = [
        (40.0, 58.0, "PERMIT"), (330.0, 58.0, "SITE"),
        *[(x, 68.0, name) for x, name in zip(
            columns, ["NUMBER", "NAME", "OWNER", "ADDRESS", "CITY", "EXPIRES"], strict=True)],
    ]
    towns = ["ADA", "ENID", "LAWTON", "TULSA", "NORMAN"]
    pages: list[list[Item]] = []
    number = 0
    for page, count in ((1, 22), (2, 20)):
        items: list[Item] = [*furniture_block, *header]
        top = 80.0
        for i in range(count):
            number += 1
            wrapped = page == 2 and i == 0 or i % 3 == 2 or page == 1 and i == count - 1
            address = "4500 WEST INDUSTRIAL PARKWAY" if i % 5 == 0 else f"{12 + i} OAK ST"
            if wrapped:
                items.append((330.0, top, f"{1200 + number} NORTH LONG BOULEVARD"))
                top += 10.7
                address = "SUITE 5"
            cells = [f"{640000 + number}BAW", f"CAFE {number}", f"OWNER {number} LLC", address,
                     towns[number % 5], f"2024/{number % 12 + 1:02d}/15"]
            items.extend((x, top, cell) for x, cell in zip(columns, cells, strict=True))
            top += 10.7
        items.append((280.0, 800.0, f"Page {page} of 151"))
        pages.append(items)
    return drawn_pdf(pages)


def banded_table_pdf() -> bytes:
    """A tax table set in three side-by-side bands of the same five columns over two pages
    (each printed line holds one row of every band), its header repeated over each band on
    every page, and a group label line of numbers (one per band) opening each block."""
    names = ["From", "To", "Single", "Joint", "Head"]
    offsets = [0.0, 34.0, 68.0, 102.0, 136.0]
    bands = [40.0, 220.0, 400.0]
    columns = [band + off for band in bands for off in offsets]
    pages: list[list[Item]] = []
    for page in (1, 2):
        items: list[Item] = [
            (40.0, 30.0, "Tax Table for 2024 income"), (280.0, 800.0, f"- {page} -")
        ]
        header, top = table_items([names * 3], columns, 60.0)
        items.extend(header)
        start = (page - 1) * 3
        items.extend((band, top, f"{start + k + 1},000") for k, band in enumerate(bands))
        top += 14
        lines = []
        for i in range(20):
            line = []
            for k in range(3):
                low = (start + k + 1) * 1000 + 50 * i
                tax = low // 10 + 3
                line += [f"{low:,}", f"{low + 50:,}", str(tax), str(tax - 4), str(tax + 2)]
            lines.append(line)
        rows, _ = table_items(lines, columns, top)
        items.extend(rows)
        pages.append(items)
    return drawn_pdf(pages, font_size=8)


def worksheet_beside_prose_pdf() -> bytes:
    """A numbered worksheet (instruction, dot leader, line number) set beside a column of
    prose, line for line: columns of running text, not a table."""
    prose_lines = [
        "If you received a distribution from a plan you must",
        "figure the taxable part of it with this worksheet and",
        "keep a copy of it with your records for next year so",
        "that you can use the amounts it gives in that year",
        "when you file again for the same plan and beneficiary",
        "as described in the publication for pension income",
        "which also explains how rollovers are to be reported",
        "and what to do when more than one person is involved",
    ]
    items: list[Item] = [(42.0, 40.0, "Simplified Method Worksheet and Notes")]
    top = 70.0
    for n, text in enumerate(prose_lines, start=1):
        items += [
            (42.0, top, f"{n}."),
            (58.0, top, f"Enter the amount from line {n} of last year . . ."),
            (280.0, top, f"{n}."),
            (330.0, top, text),
        ]
        top += 12
    return drawn_pdf([items])
