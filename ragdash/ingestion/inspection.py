"""What ingestion makes of one PDF: pages, text per page, detected tables, joins, passages
with the ``tables`` fix off and on, and warnings — plus a page image with the tables drawn.

Used by ``python -m ragdash inspect FILE.pdf`` and the dashboard's Documents page.
"""

from __future__ import annotations

import io
import re
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ragdash.errors import IngestError
from ragdash.ingestion.bounded import run_in_child
from ragdash.ingestion.documents import Document, Passage
from ragdash.ingestion.furniture import find_furniture
from ragdash.ingestion.ingest import MAX_PDF_PAGES, PdfText, Progress, read_pdf
from ragdash.ingestion.joins import JoinDecision, bands_of, column_names
from ragdash.ingestion.page_image import (  # noqa: F401
    MAX_RENDER_PIXELS,
    render_resolution,
    shown,
)
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.ingestion.pdf_layout import BBox, TableRegion, page_layout
from ragdash.ingestion.scans import DEFAULT_OCR, OcrSettings
from ragdash.ingestion.segmentation import (
    PASSAGE_MAX_CHARS,
    document_passages,
    document_tables,
)
from ragdash.ingestion.textlayer import TextLayerNotes, garbled_pages, page_list
from ragdash.settings import DEFAULT_OCR_RISK, OcrRisk
from ragdash.text import shortened

__all__ = [
    "BOX_COLORS",
    "DOUBTFUL_REASONS",
    "DetectedTable",
    "IngestionReport",
    "OcrPageRead",
    "PageTable",
    "SHOWN",
    "SizeStats",
    "VERDICT_LEVELS",
    "as_document",
    "document_verdict",
    "inspect_pdf",
    "render_page_with_tables",
    "reversed_words",
    "sizes",
    "verdict",
    "verdict_level",
    "where_on_page",
]

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
    bands: int = 1  # side-by-side bands of the same columns; ``columns`` is one band's


def _page_table(page: int, region: TableRegion) -> PageTable:
    bands = bands_of(column_names(region))
    columns = region.columns // bands if region.columns % bands == 0 else region.columns
    return PageTable(page, region.bbox, region.method, len(region.rows), columns, bands)


#: How many items (page ranges, passages) the verdict and warnings list before saying
#: "and N more".
SHOWN = 6

#: Join refusals that rest on column positions alone (no caption, text, new header or
#: restarting rows between): the ones worth a look, as column detection can err.
DOUBTFUL_REASONS = ("columns differ",)


@dataclass(frozen=True)
class DetectedTable:
    """A table as the ``tables`` fix sees it: joined across the pages it spans."""

    page_start: int
    page_end: int
    rows: int  # data rows, header excluded, after joining
    columns: int
    header: str
    joined_rows: int  # rows re-assembled from two halves cut by a page break
    method: str = ""
    joins: tuple[JoinDecision, ...] = ()
    #: Side-by-side bands of the same columns (a tax table set three across the page):
    #: ``columns`` and ``rows`` are then those a reader sees — one band's columns, and each
    #: band's part of a printed line counted as a row.
    bands: int = 1

    @property
    def page_breaks(self) -> int:
        """How many page breaks this table was joined across."""
        return self.page_end - self.page_start


@dataclass(frozen=True)
class OcrPageRead:
    """How sure OCR was of one page it read: its words, how many were under the
    :class:`~ragdash.settings.OcrRisk` confidence, and the share (0–1) of its text-like inked
    area no word covers."""

    page: int
    words: int
    unsure: int
    uncovered: float

    @property
    def unsure_share(self) -> float:
        return self.unsure / self.words if self.words else 0.0


#: The verdict's first words → its colour: green reads as it is, amber needs a look, red
#: loses text.
VERDICT_LEVELS = {"Good": "green", "Retrievable with care": "amber", "At risk": "red"}


def verdict_level(text: str) -> str:
    """``green``, ``amber`` or ``red`` for a verdict of :func:`verdict` (``""`` for other
    text)::

        >>> verdict_level("At risk: page(s) 2 have no text layer")
        'red'
    """
    head = text.split(":", 1)[0]
    return VERDICT_LEVELS.get(head, "")


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
    characters of each page's text layer; ``decisions`` holds every join decision, taken
    or not; ``furniture`` the running headers, footers and page numbers found (with the
    pages they are on); ``verdict`` answers "will this PDF be retrieved correctly?"."""

    pages: int
    chars_per_page: tuple[int, ...]
    page_tables: tuple[PageTable, ...]
    tables: tuple[DetectedTable, ...]
    fragments_joined: int  # page breaks that tables were joined across
    rows_joined: int  # rows glued back from halves cut by a page break
    passages_without_fix: SizeStats
    passages_with_fix: SizeStats
    warnings: tuple[str, ...]
    decisions: tuple[JoinDecision, ...] = ()
    furniture: tuple[str, ...] = ()
    no_text_pages: tuple[int, ...] = ()
    verdict: str = ""
    #: Text-layer trouble (:mod:`ragdash.ingestion.textlayer`): pages OCR read and found no
    #: words on, pages whose doubled glyphs were read once, pages whose layer is noise or
    #: still doubled letter by letter (OCR them instead).
    ocr_empty_pages: tuple[int, ...] = ()
    overprinted_pages: tuple[int, ...] = ()
    garbled_pages: tuple[int, ...] = ()
    #: OCR'd pages where much of the inked area has no recognised word: (page, share 0–1).
    ocr_missed: tuple[tuple[int, float], ...] = ()
    #: Every page OCR read, with how sure it was (:class:`OcrPageRead`).
    ocr_read: tuple[OcrPageRead, ...] = ()
    #: Words read backwards, as a rotated label comes out: (page, as read, the word).
    reversed_words: tuple[tuple[int, str, str], ...] = ()

    @property
    def level(self) -> str:
        """The verdict's colour: ``green``, ``amber`` or ``red`` (:func:`verdict_level`)."""
        return verdict_level(self.verdict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {**asdict(self), "level": self.level}


def _furniture_lines(doc: Document) -> tuple[str, ...]:
    """Each distinct furniture line (digits folded) with the pages it was found on."""
    layouts = doc.layouts or ()
    found: dict[str, list[int]] = {}
    examples: dict[str, str] = {}
    for page, indexes in find_furniture(layouts).items():
        for i in sorted(indexes):
            text = layouts[page - 1].lines[i].text
            key = " ".join(re.sub(r"\d+", "#", text).split())
            found.setdefault(key, []).append(page)
            examples.setdefault(key, text)
    return tuple(
        f"{examples[key][:80]} (p{_ranges(pages)})"
        for key, pages in sorted(found.items(), key=lambda kv: kv[1][0])
    )


def _ranges(pages: Sequence[int]) -> str:
    pages = sorted(set(pages))
    parts = []
    start = prev = pages[0]
    for page in [*pages[1:], None]:
        if page is not None and page == prev + 1:
            prev = page
            continue
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        if page is not None:
            start = prev = page
    return ", ".join(parts)


def verdict(
    pages: int,
    no_text: Sequence[int],
    tables: Sequence[DetectedTable],
    decisions: Sequence[JoinDecision],
    letter_spaced: bool,
    ocr_empty: Sequence[int] = (),
    layers: TextLayerNotes | None = None,
    ocr_missed: Sequence[tuple[int, float]] = (),
    ocr_read: Sequence[OcrPageRead] = (),
    risk: OcrRisk = DEFAULT_OCR_RISK,
    backwards: Sequence[tuple[int, str, str]] = (),
) -> str:
    """The answer to "will this PDF be retrieved correctly?", in words.

    ``ocr_empty`` are the pages of ``no_text`` that OCR already read and found no words on:
    asking for OCR there would send the user to do what was done, so they are named apart.
    A scan whose OCR left inked areas without words (``ocr_missed``: page, share of the
    inked area) is never called "Good": what OCR did not read cannot be retrieved.
    Lists of page ranges are cut at :data:`SHOWN` with the number left out said.
    A page OCR read (``ocr_read``) with unsure words or inked area without words above the
    shares of ``risk`` is named too — never "Good": a misread word is not found by a query
    that spells it right.

    >>> verdict(2, (), (), (), False, ocr_missed=((2, 0.48),))[:79]
    'At risk: OCR may have missed text on page 2: about 48% of the inked area has no'
    >>> verdict(1, (), (), (), False, ocr_read=(OcrPageRead(1, 240, 28, 0.10),))[:78]
    'At risk: OCR was unsure of words on page 1 (28 of 240 words under 80% confiden'
    """
    notes = []
    blank = [n for n in no_text if n not in set(ocr_empty)]
    if blank:
        notes.append(
            f"page(s) {shortened(_ranges(blank).split(', '), 2 * SHOWN)} have no text layer: "
            "nothing on them can be retrieved "
            "until they are OCRed"
        )
    if ocr_empty:
        notes.append(
            f"OCR ran on page{'s' if len(ocr_empty) > 1 else ''} {page_list(ocr_empty)} and "
            "found no words: blank pages, or pictures without text — nothing there to retrieve"
        )
    if layers is not None:
        notes.extend(layers.notes())
    missed = sorted(ocr_missed, key=lambda m: m[0])
    if missed:
        shown_pages = shortened(
            [f"page {page}: about {share:.0%} of the inked area has no words"
             for page, share in missed],
            5, sep="; ",
        )  # fmt: skip
        notes.append(
            f"OCR may have missed text on {shown_pages} — see the orange boxes in the "
            "OCR tab; a cleaner or higher-resolution scan may read"
        )
    ocr_notes, ocr_level = _ocr_notes(ocr_read, {page for page, _ in missed}, risk)
    notes.extend(ocr_notes)
    crossing = [t for t in tables if t.page_end > t.page_start]
    if crossing:
        spans = shortened([f"p{t.page_start}-{t.page_end}" for t in crossing], SHOWN)
        notes.append(
            f"{len(crossing)} table(s) cross page breaks ({spans}): with the tables fix off, "
            "rows either side of a break are in different passages — turn the tables fix on"
        )
    apart = [d for d in decisions if not d.joined and d.page_a != d.page_b]
    doubtful = [d for d in apart if any(w in d.reason for w in DOUBTFUL_REASONS)]
    if doubtful:
        where = shortened([f"p{d.page_a}-{d.page_b}" for d in doubtful], SHOWN)
        notes.append(
            f"{len(doubtful)} page break(s) between tables were kept apart only because their "
            f"columns do not line up ({where}) — if one is really one table, a question about "
            "the rows either side of it will miss"
        )
    if letter_spaced:
        notes.append("letter-spaced text was found and rejoined; check the page text")
    if backwards:
        shown_words = shortened([f"{read} → {word}" for _, read, word in backwards], 4)
        notes.append(
            f"{len(backwards)} word(s) read backwards on page(s) "
            f"{_ranges([page for page, _, _ in backwards])} ({shown_words}): a rotated label "
            "comes out reversed, and a query for the word misses it"
        )
    if not notes:
        if tables:
            return (
                f"Good: {len(tables)} table(s), none crossing a page break; every page has "
                "text. Retrieval sees each page as it is."
            )
        return "Good: every page has text and no table crosses a page break."
    at_risk = blank or missed or (layers is not None and layers.garbled) or ocr_level == "red"
    head = "At risk" if at_risk else "Retrievable with care"
    return f"{head}: " + "; ".join(notes) + "."


def _ocr_notes(
    read: Sequence[OcrPageRead], missed: set[int], risk: OcrRisk
) -> tuple[list[str], str]:
    """The verdict's sentences about pages OCR read with unsure words or inked area without
    words above ``risk``'s shares (``missed`` pages are said already), and the worst level."""
    unsure = [r for r in read if r.unsure_share > risk.unsure_care]
    bare = [r for r in read if r.uncovered > risk.uncovered_care and r.page not in missed]
    levels = {risk.level(r.unsure_share, r.uncovered) for r in read}
    level = "red" if "red" in levels else "amber" if "amber" in levels else "green"
    notes = []
    if unsure:
        where = shortened(
            [f"page {r.page} ({r.unsure} of {r.words} words under {risk.unsure_below:.0f}% "
             f"confidence, {r.unsure_share:.0%})" for r in sorted(unsure, key=lambda r: r.page)],
            5, sep="; ",
        )  # fmt: skip
        notes.append(
            f"OCR was unsure of words on {where} — a misread word is not found by a query "
            "that spells it right: check the words boxed in red in the OCR tab"
        )
    if bare:
        where = shortened(
            [f"page {r.page} (about {r.uncovered:.0%})"
             for r in sorted(bare, key=lambda r: r.page)],
            5, sep="; ",
        )  # fmt: skip
        notes.append(
            f"OCR left part of the inked area without words on {where} — see the orange "
            "boxes in the OCR tab"
        )
    return notes, level


def _ocr_read(layouts: Sequence[Any], risk: OcrRisk) -> tuple[OcrPageRead, ...]:
    """Each page OCR read words on, with how sure it was."""
    return tuple(
        OcrPageRead(
            layout.page,
            len(layout.ocr.words),
            len(layout.ocr.low_confidence(risk.unsure_below)),
            layout.ocr.quality.uncovered if layout.ocr.quality is not None else 0.0,
        )
        for layout in layouts
        if layout is not None and layout.ocr is not None and layout.ocr.words
    )


def _ocr_missed(layouts: Sequence[Any], risk: OcrRisk) -> tuple[tuple[int, float], ...]:
    """OCR'd pages where more of the inked area than ``risk`` allows has no words."""
    return tuple(
        (layout.page, layout.ocr.quality.uncovered)
        for layout in layouts
        if layout is not None and layout.ocr is not None and layout.ocr.quality is not None
        and layout.ocr.quality.uncovered > risk.uncovered_risk and layout.ocr.quality.regions
    )


def _reported_tables(joined: Sequence[Any]) -> tuple[DetectedTable, ...]:
    """The joined tables worth reporting: text set in columns within one page (a worksheet
    beside prose) is no table to report; a table that crosses a page break is kept."""
    return tuple(
        DetectedTable(
            t.page_start,
            t.page_end,
            t.logical_rows,
            t.logical_columns,
            t.header_text,
            t.rows_joined,
            t.method,
            tuple(d for d in t.joins),
            t.bands,
        )
        for t in joined
        if t.page_end > t.page_start or not all(r.running_text for _, r in t.regions)
    )


#: A word read backwards: at least this many letters ("hgiH" → High) ...
REVERSED_MIN_LETTERS = 4
#: ... whose reverse is at least this common (wordfreq's Zipf scale: 3 is a word a few times
#: in a million, "richness" 3.3) while it is itself no word (Zipf under 1: never seen).
REVERSED_MIN_ZIPF = 2.5
REVERSED_MAX_ZIPF = 1.0
_LETTERS = re.compile(rf"[^\W\d_]{{{REVERSED_MIN_LETTERS},}}")


def reversed_words(pages: Sequence[str], lang: str = "en") -> tuple[tuple[int, str, str], ...]:
    """Words that read backwards — a label set rotated (a chart's axis, a table's slanted
    header) whose letters the text layer or OCR gives in reverse order: ``ssenhciR hgiH``
    for "High Richness". Each is (page, as read, the word) once per page, by
    :data:`wordfreq <REVERSED_MIN_ZIPF>` in ``lang``; empty without wordfreq. A page's lone
    candidate counts only with its capital at the end (``ssenhciR``): on the first 40 pages
    of each development PDF (265 pages) the two lone ones were a misspelling and an acronym
    (``deined``, ``CSED``), and none is flagged now.

    >>> reversed_words(["Species ssenhciR hgiH per site", "stressed desserts"])
    ((1, 'ssenhciR', 'Richness'), (1, 'hgiH', 'High'))
    """
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # pragma: no cover - a runtime dependency
        return ()
    found: list[tuple[int, str, str]] = []
    for number, text in enumerate(pages, start=1):
        seen: set[str] = set()
        page: list[tuple[int, str, str]] = []
        for token in _LETTERS.findall(text):
            if token in seen:
                continue
            seen.add(token)
            back = token[::-1]
            if (
                zipf_frequency(back.lower(), lang) >= REVERSED_MIN_ZIPF
                and zipf_frequency(token.lower(), lang) < REVERSED_MAX_ZIPF
            ):
                page.append((number, token, back))
        # one lone candidate is a misspelling or an acronym ("deined", "CSED") unless it
        # carries its capital at the end, as a capitalised word read backwards does
        found.extend(
            hit for hit in page
            if len(page) > 1 or (hit[1][-1].isupper() and hit[1][:-1].islower())
        )  # fmt: skip
    return tuple(found)


def where_on_page(box: Sequence[float], width: float, height: float) -> str:
    """Where a box (x0, top, x1, bottom, in points) sits on a page, in words a reader finds
    it by: ``top left``, ``middle``, ``bottom right``.

    >>> where_on_page((20, 700, 120, 720), 612, 792)
    'bottom left'
    """
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    row = ("top", "middle", "bottom")[min(2, max(0, int(3 * y / max(height, 1))))]
    col = ("left", "", "right")[min(2, max(0, int(3 * x / max(width, 1))))]
    return f"{row} {col}".strip()


def document_verdict(
    doc: Document, risk: OcrRisk = DEFAULT_OCR_RISK, tables: tuple[Any, Any] | None = None
) -> str:
    """The :func:`verdict` of a document as loaded (its parsed pages), without reading the
    file again — what the Documents page lists beside each PDF. A text document is "Good"
    (nothing was extracted). Pages whose glyphs were drawn twice are not known here (the
    parse repaired them), so their note is left to the full inspection. ``tables`` is
    :func:`~ragdash.ingestion.segmentation.document_tables` of ``doc`` when the caller has it.

    >>> from ragdash.ingestion.documents import Document
    >>> document_verdict(Document("a", "A", None, "current", "a.md", "text", ("hi",), 0))[:4]
    'Good'
    """
    layouts = tuple(doc.layouts or ())
    if doc.kind != "pdf" or not layouts:
        return "Good: a text file is read as written."
    joined, decisions = tables if tables is not None else document_tables(doc)
    no_text = tuple(n for n, text in enumerate(doc.pages, start=1) if not text.strip())
    ocr_empty = tuple(
        n for n in no_text if n <= len(layouts) and getattr(layouts[n - 1], "ocr", None)
    )
    return verdict(
        len(doc.pages), no_text, _reported_tables(joined), tuple(decisions),
        any(getattr(x, "letter_spaced", False) for x in layouts), ocr_empty,
        TextLayerNotes((), garbled_pages(doc.pages, layouts)), _ocr_missed(layouts, risk),
        _ocr_read(layouts, risk), risk, reversed_words(doc.pages),
    )  # fmt: skip


def sizes(passages: Sequence[Passage]) -> SizeStats:
    """Size distribution of passages' text."""
    return SizeStats.of([len(p.text) for p in passages])


def inspect_pdf(
    data: bytes,
    max_pages: int = MAX_PDF_PAGES,
    progress: Progress | None = None,
    cache: PdfCache | None = None,
    ocr: OcrSettings = DEFAULT_OCR,
    risk: OcrRisk = DEFAULT_OCR_RISK,
) -> IngestionReport:
    """Ingest ``data`` as ragdash would and report what the retriever will see (read with
    ``ocr``: its ``pages`` are OCR'd even with a text layer, as ``ocr_pages`` asks).

    Raises :class:`~ragdash.errors.IngestError` (with a plain message) for a PDF that cannot
    be used: empty, corrupt, encrypted, too many pages, or without any text layer.
    """
    pdf = read_pdf(data, max_pages, progress, cache, ocr)
    doc = as_document(pdf)
    joined, decisions = document_tables(doc)
    # text set in columns (a worksheet beside prose) within one page is no table to report;
    # it changes no passage either way, and a table that crosses a page break is kept
    crossing = {id(r) for t in joined if t.page_end > t.page_start for _, r in t.regions}
    page_tables = tuple(
        _page_table(layout.page, region)
        for layout in pdf.layouts
        for region in layout.tables
        if not region.weak and not (region.running_text and id(region) not in crossing)
    )
    tables = _reported_tables(joined)
    infos = tuple(d for d in decisions)
    warnings = list(pdf.warnings)
    with_fix = document_passages(doc, join_tables=True)
    oversize = [p.label for p in with_fix if len(p.text) > PASSAGE_MAX_CHARS and p.kind == "table"]
    if oversize:
        warnings.append(
            f"{len(oversize)} table passage(s) exceed {PASSAGE_MAX_CHARS} characters (a single "
            f"very long row): {shortened(oversize, SHOWN)}"
        )
    no_text = tuple(n for n, text in enumerate(pdf.pages, start=1) if not text.strip())
    layers = _text_layers(pdf)
    ocr_empty = tuple(
        n for n in no_text if n <= len(pdf.layouts) and pdf.layouts[n - 1].ocr is not None
    )
    ocr_missed = _ocr_missed(pdf.layouts, risk)
    ocr_read = _ocr_read(pdf.layouts, risk)
    backwards = reversed_words(pdf.pages)
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
        decisions=infos,
        furniture=_furniture_lines(doc),
        no_text_pages=no_text,
        verdict=verdict(
            len(pdf.pages), no_text, tables, infos, any(x.letter_spaced for x in pdf.layouts),
            ocr_empty, layers, ocr_missed, ocr_read, risk, backwards,
        ),
        ocr_empty_pages=ocr_empty,
        overprinted_pages=layers.overprinted,
        garbled_pages=layers.garbled,
        ocr_missed=ocr_missed,
        ocr_read=ocr_read,
        reversed_words=backwards,
    )


def _text_layers(pdf: PdfText) -> TextLayerNotes:
    """Pages read once from glyphs drawn twice, and text-layer pages that read as noise or
    still spell lines letter by letter twice
    (:func:`~ragdash.ingestion.textlayer.garbled_pages`)."""
    return TextLayerNotes(tuple(pdf.overprinted), garbled_pages(pdf.pages, pdf.layouts))


def as_document(pdf: PdfText, doc_id: str = "inspected") -> Document:
    """A parsed PDF as the document ragdash would index."""
    return Document(
        doc_id,
        "",
        None,
        "current",
        "upload.pdf",
        "pdf",
        pdf.pages,
        0,
        pdf.table_pages,
        pdf.layouts or None,
    )


def render_page_with_tables(pdf_bytes: bytes, page_number: int, resolution: int = 72) -> Any:
    """A PIL image of one page (1-based) with each detected table's box drawn over it:
    red for ruled tables, blue for column-aligned ones; at most
    :data:`~ragdash.ingestion.page_image.MAX_RENDER_PIXELS` pixels whatever size the page
    declares. Drawn in a child process under the same limits
    as parsing (:mod:`ragdash.ingestion.bounded`).

    Raises :class:`~ragdash.ingestion.ingest.IngestError` if the PDF cannot be opened or has no such
    page, or goes over a limit.
    """
    from PIL import Image

    if not pdf_bytes:
        raise IngestError("is empty (0 bytes)")
    png = run_in_child(
        "render", {"data": pdf_bytes, "page": page_number, "resolution": resolution}
    )
    return shown(Image.open(io.BytesIO(png)).convert("RGB"))  # a thin page stays visible


def _render_page(pdf_bytes: bytes, page_number: int, resolution: int) -> Any:
    """:func:`render_page_with_tables` in this process (the child's side)."""

    def draw(page: Any) -> Any:
        tables = [t for t in page_layout(page, page_number).tables if not t.weak]
        image = page.to_image(resolution=render_resolution(page.width, page.height, resolution))
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
