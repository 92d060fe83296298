"""What ingestion makes of one PDF: pages, text per page, detected tables, joins, passages
with the ``tables`` fix off and on, and warnings — plus a page image with the tables drawn.

Used by ``python -m ragdash inspect FILE.pdf`` and the dashboard's Documents page.
"""

from __future__ import annotations

import io
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ragdash.errors import IngestError
from ragdash.ingestion.documents import Document, Passage
from ragdash.ingestion.ingest import MAX_PDF_PAGES, Progress, read_pdf
from ragdash.ingestion.pdf_layout import BBox, TableRegion, page_layout
from ragdash.ingestion.segmentation import PASSAGE_MAX_CHARS, document_passages, segment_pages
from ragdash.ingestion.tables import cells, join_page_tables

#: Outline and fill (RGBA) of table boxes drawn on a page image, by detection method.
BOX_COLORS = {"ruled": (220, 38, 38), "aligned": (37, 99, 235)}


@dataclass(frozen=True)
class PageTable:
    """A table region detected on one page (1-based), as drawn on the page image."""

    page: int
    bbox: BBox
    method: str
    rows: int
    columns: int


@dataclass(frozen=True)
class DetectedTable:
    """A table as the ``tables`` fix sees it: joined across the pages it spans."""

    page_start: int
    page_end: int
    rows: int  # data rows, header excluded, after joining
    columns: int
    header: str
    joined_rows: int  # rows re-assembled from two halves cut by a page break

    @property
    def page_breaks(self) -> int:
        """How many page breaks this table was joined across."""
        return self.page_end - self.page_start


@dataclass(frozen=True)
class SizeStats:
    """Passage sizes, in characters."""

    count: int
    min: int
    median: float
    p90: int
    max: int
    over_limit: int  # passages longer than PASSAGE_MAX_CHARS

    @classmethod
    def of(cls, sizes: Sequence[int]) -> SizeStats:
        if not sizes:
            return cls(0, 0, 0.0, 0, 0, 0)
        ordered = sorted(sizes)
        p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
        over = sum(size > PASSAGE_MAX_CHARS for size in ordered)
        return cls(len(ordered), ordered[0], statistics.median(ordered), p90, ordered[-1], over)


@dataclass(frozen=True)
class IngestionReport:
    """Everything ingestion did with one PDF. ``chars_per_page`` counts non-blank
    characters of each page's text layer."""

    pages: int
    chars_per_page: tuple[int, ...]
    page_tables: tuple[PageTable, ...]
    tables: tuple[DetectedTable, ...]
    fragments_joined: int  # page breaks that tables were joined across
    rows_joined: int  # rows glued back from halves cut by a page break
    passages_without_fix: SizeStats
    passages_with_fix: SizeStats
    warnings: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return asdict(self)


def _table_summary(lines: Sequence[str], start: int, end: int, joined: int) -> DetectedTable:
    header = lines[0]
    width = max(len(cells(line)) for line in lines)
    return DetectedTable(start, end, len(lines) - 1, width, header, joined)


def _layout_warnings(doc: Document, laid_out: Sequence[str]) -> list[str]:
    """Pages whose structured text was not used because it lost or changed words."""
    if doc.table_pages is None:
        return []
    skipped = [
        str(n)
        for n, (used, laid) in enumerate(zip(laid_out, doc.table_pages, strict=True), start=1)
        if used != laid
    ]
    if not skipped:
        return []
    return [
        f"page(s) {', '.join(skipped)}: table layout did not keep every word; "
        "the plain text is used there"
    ]


def sizes(passages: Sequence[Passage]) -> SizeStats:
    """Size distribution of passages' text."""
    return SizeStats.of([len(p.text) for p in passages])


def inspect_pdf(
    data: bytes, max_pages: int = MAX_PDF_PAGES, progress: Progress | None = None
) -> IngestionReport:
    """Ingest ``data`` as ragdash would and report what the retriever will see.

    Raises :class:`~ragdash.errors.IngestError` (with a plain message) for a PDF that cannot
    be used: empty, corrupt, encrypted, too many pages, or without any text layer.
    """
    pdf = read_pdf(data, max_pages, progress)
    doc = Document(
        "inspected", "", None, "current", "upload.pdf", "pdf", pdf.pages, 0, pdf.table_pages
    )
    laid_out = segment_pages(doc)
    page_tables = tuple(
        PageTable(layout.page, region.bbox, region.method, len(region.rows), region.columns)
        for layout in pdf.layouts
        for region in layout.tables
    )
    tables = tuple(
        _table_summary(block.lines, block.page_start, block.page_end, block.joined_rows)
        for block in join_page_tables(laid_out)
        if block.kind == "table"
    )
    warnings = [*pdf.warnings, *_layout_warnings(doc, laid_out)]
    with_fix = document_passages(doc, join_tables=True)
    oversize = [p.label for p in with_fix if len(p.text) > PASSAGE_MAX_CHARS]
    if oversize:
        warnings.append(
            f"{len(oversize)} passage(s) exceed {PASSAGE_MAX_CHARS} characters with the tables "
            f"fix (a single very long row or line): {', '.join(oversize[:5])}"
        )
    return IngestionReport(
        pages=len(pdf.pages),
        chars_per_page=tuple(len("".join(text.split())) for text in pdf.pages),
        page_tables=page_tables,
        tables=tables,
        fragments_joined=sum(t.page_breaks for t in tables),
        rows_joined=sum(t.joined_rows for t in tables),
        passages_without_fix=sizes(document_passages(doc, join_tables=False)),
        passages_with_fix=sizes(with_fix),
        warnings=tuple(warnings),
    )


def page_tables_of(data: bytes, page_number: int) -> tuple[TableRegion, ...]:
    """The table regions detected on one page (1-based) of a PDF."""
    return _with_page(data, page_number, lambda page: page_layout(page, page_number).tables)


def render_page_with_tables(pdf_bytes: bytes, page_number: int, resolution: int = 72) -> Any:
    """A PIL image of one page (1-based) with each detected table's box drawn over it:
    red for ruled tables, blue for column-aligned ones.

    Raises :class:`~ragdash.ingestion.ingest.IngestError` if the PDF cannot be opened or has no such
    page.
    """

    def draw(page: Any) -> Any:
        tables = page_layout(page, page_number).tables
        image = page.to_image(resolution=resolution)
        for table in tables:
            color = BOX_COLORS.get(table.method, (0, 0, 0))
            image.draw_rect(table.bbox, fill=(*color, 40), stroke=(*color, 255), stroke_width=2)
        return image.annotated.convert("RGB")

    return _with_page(pdf_bytes, page_number, draw)


def _with_page(data: bytes, page_number: int, use: Any) -> Any:
    import pdfplumber

    if not data:
        raise IngestError("is empty (0 bytes)")
    try:
        pdf = pdfplumber.open(io.BytesIO(data))
    except Exception as exc:  # pdfminer raises many unrelated types for damaged files
        raise IngestError(f"could not be opened as a PDF ({type(exc).__name__})") from None
    with pdf:
        if not 1 <= page_number <= len(pdf.pages):
            raise IngestError(f"has no page {page_number} (it has {len(pdf.pages)} pages)")
        return use(pdf.pages[page_number - 1])
