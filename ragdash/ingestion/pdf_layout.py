"""Table regions on a PDF page, found from pdfplumber's text lines and ruling lines.

Every page is read once: ``extract_text`` (the baseline text) and, from the same cached
text map, its lines with their characters. Each line is cut into *segments* where the gap
between two characters is wider than a column gap. Tables are then found per region, never
per page:

* a *ruled* table comes from ``page.find_tables()`` (asked only where the page has ruling
  lines or rectangles — it is slow otherwise); its rows are pdfplumber's cells;
* an *aligned* table is a run of lines whose segments share columns, with at least one
  column of short cells — several columns of long text lines are multi-column prose, not a
  table;
* on a page set in three or more prose columns (:func:`prose_columns`), aligned tables are
  first looked for inside each column, each line read by its piece in that column;
* a *text* table is a run of lines written with ``|`` separators;
* one or two aligned rows opening a page are kept as a *weak* region: a table only if the
  join finds they continue the table that ends the page before.

A :class:`PageLayout` keeps the page's lines exactly as ``extract_text`` gives them, with
their positions, and the regions that are tables; :mod:`ragdash.ingestion.tables` decides
which fragments continue each other across page breaks.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ragdash.ingestion.letterspacing import repair_line
from ragdash.settings import check_ranges

__all__ = [
    "ANCHOR_TOLERANCE",
    "BBox",
    "CAPTION",
    "CELL_SEPARATOR",
    "COLUMN_GAP",
    "DEFAULT_LAYOUT",
    "FOOT_SHARE",
    "LINE_TOLERANCE",
    "LayoutSettings",
    "Line",
    "MARKER",
    "MAX_HEADER_LINES",
    "MIN_ALIGNED_ROWS",
    "PageLayout",
    "ROW_GAP",
    "RUNNING_TEXT_WORDS",
    "SHORT_CELL_WORDS",
    "SHORT_COLUMN_SHARE",
    "TableRegion",
    "Word",
    "aligned_tables",
    "is_caption",
    "page_layout",
    "page_lines",
    "ruled_region",
    "ruled_tables",
    "text_tables",
]

BBox = tuple[float, float, float, float]  # x0, top, x1, bottom in PDF points, top-down
Word = dict[str, Any]

CELL_SEPARATOR = "|"

#: (lowest, highest, what it is) of each setting of :class:`LayoutSettings`, checked in
#: ``__post_init__``: a whole-number range takes whole numbers only.
_LAYOUT_RANGES: dict[str, tuple[float, float, str]] = {
    "line_tolerance": (0.0, 100.0, "points"),
    "column_gap": (0.0, 20.0, "text heights"),
    "row_gap": (0.0, 100.0, "line heights"),
    "min_aligned_rows": (1, 1000, "lines"),
    "short_cell_words": (1, 1000, "words"),
    "short_column_share": (0.0, 1.0, "a share"),
    "running_text_words": (1, 1000, "words"),
    "max_header_lines": (0, 1000, "lines"),
    "foot_share": (0.0, 1.0, "a share of the page height"),
    "anchor_tolerance": (0.0, 1000.0, "points"),
    "note_words": (1, 10_000, "words"),
    "word_space": (0.0, 10.0, "text heights"),
    "slant_share": (0.0, 1.0, "a share"),
    "anchor_parts": (1, 1000, "parts of the lines"),
    "column_share": (0.0, 1.0, "a share of the lines"),
    "numeric_key_share": (0.0, 1.0, "a share"),
    "group_label_words": (1, 1000, "words"),
    "number_column_cells": (1, 1000, "cells"),
    "number_column_share": (0.0, 1.0, "a share"),
    "wrap_evidence": (1, 1000, "cells"),
    "weak_foot": (0.0, 1.0, "a share of the page height"),
    "title_width": (0.0, 1.0, "a share of the table's width"),
    "title_words": (0, 1000, "words"),
    "set_apart_gap": (0.0, 100.0, "line heights"),
    "short_key_words": (0, 1000, "words"),
    "outside_label_pieces": (1, 1000, "pieces"),
    "outside_label_words": (1, 1000, "words"),
    "header_words": (1, 1000, "words"),
    "ruled_header_rows": (0, 1000, "rows"),
    "prose_columns": (1, 1000, "columns"),
    "prose_column_share": (0.0, 1.0, "a share of the lines"),
    "prose_piece_words": (1, 1000, "words"),
    "prose_piece_chars": (1, 1000, "characters a word"),
    "same_text": (0.0, 1.0, "a token overlap"),
    "same_header": (0.0, 1.0, "a token overlap"),
    "column_tolerance": (0.0, 1000.0, "points"),
    "column_agreement": (0.0, 1.0, "a share of the columns"),
    "width_ratio_low": (0.0, 1.0, "a width ratio"),
    "width_ratio_high": (1.0, 100.0, "a width ratio"),
    "caption_lines": (0, 1000, "lines"),
    "max_header_rows": (0, 1000, "rows"),
    "fit_rows": (1, 1000, "rows"),
    "title_gap": (0.0, 100.0, "line heights"),
    "title_lines": (1, 1000, "lines"),
    "max_labels": (0, 1000, "lines"),
    "label_words": (1, 1000, "words"),
    "window": (1, 100, "pages"),
    "same_place": (0.0, 1000.0, "points"),
    "margin_share": (0.0, 1.0, "a share of the page height"),
    "band_share": (0.0, 1.0, "a share of the page height"),
    "near_same": (0.0, 100.0, "a similarity"),
    "near_letters": (1, 10_000, "letters"),
    "near_place": (0.0, 1000.0, "points"),
    "near_run_share": (0.0, 1.0, "a share"),
    "furniture_letters": (0, 1000, "letters"),
}


@dataclass(frozen=True)
class LayoutSettings:
    """Every threshold of table finding (this module), of the joins across page breaks
    (:mod:`ragdash.ingestion.joins`) and of page furniture
    (:mod:`ragdash.ingestion.furniture`), in one frozen dataclass that refuses a value
    outside its range with a message naming it — as pdfplumber's ``TableSettings`` does
    for its own table finder, and :class:`~ragdash.ingestion.scan.settings.ScanSettings`
    for the scan passes. Why one place: a threshold fitted to one document is found only
    when all of them can be read, changed and measured together (issue 44). The module
    names (``COLUMN_GAP``, ``joins.COLUMN_TOLERANCE``, ``furniture.NEAR_PLACE``) read
    :data:`DEFAULT_LAYOUT`; :func:`ragdash.ingestion.joins.join_tables` and
    :func:`ragdash.ingestion.furniture.find_furniture` take other settings.

    Each comment says what the value decides and, where known, where it came from; a value
    with no source named was set by eye when its rule was written, on the development sets
    (set 1 first, then set 2), and no measurement of it alone is recorded — the sets'
    figures in docs/pdfs-and-scans.md were measured with all of them as they are.

    >>> LayoutSettings().column_tolerance
    8.0
    >>> LayoutSettings(column_tolerance=-1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ragdash.errors.SettingsError: layout setting column_tolerance=-1 is outside 0–1000 (points)
    >>> LayoutSettings(window=1.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ragdash.errors.SettingsError: layout setting window=1.5 is not a whole number
    """

    # -- lines and aligned tables (this module) --
    #: Words on one line whose tops differ by at most this many points (pdfplumber's default).
    line_tolerance: float = 3.0
    #: A horizontal gap wider than this fraction of the text height separates two columns
    #: (a word space is about a quarter of it; by eye).
    column_gap: float = 0.8
    #: A vertical gap wider than this many line heights ends an aligned table (by eye).
    row_gap: float = 3.0
    #: An aligned table needs at least this many lines that have two or more columns.
    min_aligned_rows: int = 3
    #: A table has a column whose cells are mostly (``short_column_share``) this many words
    #: or fewer (keys, codes, numbers); multi-column prose has none (by eye).
    short_cell_words: int = 3
    short_column_share: float = 0.6
    #: A column whose cells have this many words at the median holds running text; a table
    #: has at most one such column (a description), text set in columns has two or more.
    running_text_words: int = 6
    #: A table's header is at most this many lines.
    max_header_lines: int = 8
    #: The bottom margin (share of the page height) where only furniture sits.
    foot_share: float = 0.1
    #: Column starts closer than this many points are the same column (by eye: half a
    #: column gap of 10 pt type).
    anchor_tolerance: float = 6.0
    #: A caption or a continuation note is a short line: at most this many words (one idea
    #: for ``is_caption`` and ``joins.NOTE_WORDS``, which had the same 20 each).
    note_words: int = 20
    #: Characters further apart than this share of the text height are two words.
    word_space: float = 0.2
    #: A character is slanted (a diagonal watermark) when its matrix's shear is more than
    #: this share of its scale.
    slant_share: float = 0.2
    #: A column start is shared by at least 1/this of the multi-column lines (and by two).
    anchor_parts: int = 3
    #: ... and a table's columns by this share of its lines (and ``min_aligned_rows``).
    column_share: float = 0.3
    #: Row keys are numbers (a numbered list, not a table's keys) on this share of rows.
    numeric_key_share: float = 0.6
    #: A one-cell line in the key column of at most this many words is a group label (the
    #: same in ``joins``: a group row, a label above the fragment on the next page).
    group_label_words: int = 4
    #: A column of figures: rows of at least this many cells, and this share with a number.
    number_column_cells: int = 3
    number_column_share: float = 0.8
    #: A key that wraps above its row: at least this many cells that fit only that way.
    wrap_evidence: int = 3
    #: A weak region (rows opening a page) must end above this share of the page height.
    weak_foot: float = 0.88
    #: A title line over a run is wider than this share of it, or longer than this many
    #: words, or opens with a bracket.
    title_width: float = 0.5
    title_words: int = 3
    #: A line set apart from its run by more than the run's median gap plus this many of
    #: its heights starts a new table.
    set_apart_gap: float = 0.25
    #: A line at the run's left edge of at most this many words fits the run (a short key).
    short_key_words: int = 4
    #: A label left of a ruled grid is at most this many pieces of this many words each.
    outside_label_pieces: int = 2
    outside_label_words: int = 4
    #: A header cell is a name: a cell of more words than this, or a list item, is a row's.
    header_words: int = 12
    #: A ruled table's header is at most this many rows.
    ruled_header_rows: int = 3
    #: A page set in prose columns: at least this many column starts, each where a line of
    #: prose starts on this share of the page's lines (a line whose every piece holds
    #: ``prose_piece_words`` words or more, or ``prose_piece_chars`` characters a word:
    #: CJK prose has no spaces).
    prose_columns: int = 3
    prose_column_share: float = 0.3
    prose_piece_words: int = 4
    prose_piece_chars: int = 6
    # -- joins across page breaks (ragdash/ingestion/joins.py) --
    #: Two lines are "the same caption or header" at this token overlap (Jaccard).
    same_text: float = 0.6
    #: A header row of B is A's header repeated at this token overlap.
    same_header: float = 0.5
    #: Column left edges agree within this many points.
    column_tolerance: float = 8.0
    #: Share of the columns of the narrower fragment that must line up with the other's.
    column_agreement: float = 0.6
    #: A repeated header set narrower or wider on the facing page (margins swap) is
    #: compared by relative places within these width ratios (issue 44, class c).
    width_ratio_low: float = 0.8
    width_ratio_high: float = 1.25
    #: Lines of A's page above it read as its caption.
    caption_lines: int = 8
    #: Rows opening both fragments alike are header lines, at most this many.
    max_header_rows: int = 4
    #: A few loose rows fit a table's columns only when there are at least this many (or as
    #: many as the table's columns).
    fit_rows: int = 3
    #: A table's caption lines sit within this many line heights of each other ...
    title_gap: float = 2.5
    #: ... at most this many.
    title_lines: int = 3
    #: Lines between two fragments on one page that may be group labels, and their length.
    max_labels: int = 2
    label_words: int = 8
    # -- page furniture (ragdash/ingestion/furniture.py) --
    #: Pages on either side compared with each page.
    window: int = 2
    #: Two lines are at the same place if their tops (or bottoms, from the page bottom) are
    #: this close, in points.
    same_place: float = 4.0
    #: The top and bottom margins where a bare page number counts as furniture.
    margin_share: float = 0.12
    #: The top and bottom bands where a line repeated on a nearby page counts as furniture
    #: wherever it sits in the band (running headers move a little between page styles).
    band_share: float = 0.2
    #: A running line read a little differently on another page (OCR noise) still repeats
    #: when at least this similar (0–100), with this many letters, and within
    #: ``near_place`` points of where it sits on the other page (a scanned sheet lies
    #: higher or lower on the glass; set from one scan's legend at 49, 61 and 74 pt —
    #: see docs/pdfs-and-scans.md for what it was validated on).
    near_same: float = 90.0
    near_letters: int = 12
    near_place: float = 30.0
    #: ... or when one unbroken run of it, with ``near_letters`` letters or more, is this
    #: share of it or more (a running header beside a logo OCR reads differently).
    near_run_share: float = 0.6
    #: A line with fewer letters than this is no running header (a page number is judged
    #: on its own).
    furniture_letters: int = 3

    def __post_init__(self) -> None:
        check_ranges(self, _LAYOUT_RANGES, "layout")

    @property
    def width_ratio(self) -> tuple[float, float]:
        """The range of width ratios a repeated header is compared within."""
        return (self.width_ratio_low, self.width_ratio_high)


#: The settings ragdash reads pages and joins tables with.
DEFAULT_LAYOUT = LayoutSettings()

#: The thresholds under their module names (:class:`LayoutSettings` says what each decides).
LINE_TOLERANCE = DEFAULT_LAYOUT.line_tolerance
COLUMN_GAP = DEFAULT_LAYOUT.column_gap
ROW_GAP = DEFAULT_LAYOUT.row_gap
MIN_ALIGNED_ROWS = DEFAULT_LAYOUT.min_aligned_rows
SHORT_CELL_WORDS = DEFAULT_LAYOUT.short_cell_words
SHORT_COLUMN_SHARE = DEFAULT_LAYOUT.short_column_share
RUNNING_TEXT_WORDS = DEFAULT_LAYOUT.running_text_words
MAX_HEADER_LINES = DEFAULT_LAYOUT.max_header_lines
FOOT_SHARE = DEFAULT_LAYOUT.foot_share
ANCHOR_TOLERANCE = DEFAULT_LAYOUT.anchor_tolerance

#: A caption or a continuation note: "Table 2. …", "Exhibit 3 (Cont. 1)", "— Continued".
CAPTION = re.compile(
    r"^\s*(table|tableau|tabla|tabelle|figure|fig\.|exhibit|chart|graph|annex|appendix|"
    r"schedule|question|source|note)\b|^\s*\d+(\.\d+)+\s",
    re.IGNORECASE,
)
#: Words saying a table goes on, in the scripts ragdash meets ("Continued", "(cont.)",
#: "(suite)", "Fortsetzung", "(forts.)", "vervolg", "续表", "（续）", "続き", "계속"); a
#: continuation marker is a short line holding one of them — never a sentence of any
#: particular document.
MARKER = re.compile(
    r"continu|\bcont(\.|'d|d)(?!\w)|\(cont\b|\bsuite\b|fortsetzung|\bforts\.|\bvervolg\b"
    r"|续表|續表|[（(]\s*[续續]\s*[)）]|[续續続]\s*$|続き|계속",
    re.IGNORECASE,
)


def is_caption(text: str) -> bool:
    """A short line that names a table or says it goes on."""
    short = len(text.split()) <= DEFAULT_LAYOUT.note_words
    return short and (bool(CAPTION.match(text)) or bool(MARKER.search(text)))


_NUMERIC = re.compile(r"^[\s$€£%()+\-–—.,/:*0-9]*\d[\s$€£%()+\-–—.,/:*0-9]*$")


@dataclass(frozen=True)
class Line:
    """One text line of a page, exactly as ``extract_text`` gives it, with its box and its
    column segments (x0, x1, text) — pieces separated by a gap wider than a column gap."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    segments: tuple[tuple[float, float, str], ...] = ()
    upright: bool = True  # False for rotated text (a vertical margin note, a turned header)

    @property
    def height(self) -> float:
        return max(self.bottom - self.top, 1.0)


@dataclass(frozen=True)
class TableRegion:
    """One table detected on one page.

    ``rows`` are the cells of each row (header rows first, ``header_rows`` of them);
    ``row_text`` is how each row reads in a passage: a ruled row as its cells joined with
    `` | `` (pdfplumber's convention), an aligned or text row as its lines exactly as the
    page's text gives them. ``lines`` are the indexes of the page lines the table holds;
    ``anchors`` the columns' left edges relative to the table's left edge.
    """

    bbox: BBox
    method: str  # "ruled" (find_tables), "aligned" (column-aligned lines) or "text" (pipes)
    rows: tuple[tuple[str, ...], ...]
    header_rows: int = 0
    row_text: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    anchors: tuple[float, ...] = ()
    title: str = ""  # a title row inside a ruled box ("AXE 3 – OUTILS"), not a data row
    #: One or two aligned rows opening a page: a table only if they continue the table that
    #: ends the page before (the join decides; otherwise they are dropped).
    weak: bool = False
    #: A ruled grid's vertical rules, relative to the table's left edge: its columns as
    #: drawn, whatever the indentation of the text in them.
    edges: tuple[float, ...] = ()

    @property
    def columns(self) -> int:
        """Columns that hold text in at least one row."""
        used = {i for row in self.rows for i, cell in enumerate(row) if cell.strip()}
        return len(used)

    @property
    def header(self) -> tuple[str, ...]:
        return self.row_text[: self.header_rows]

    @property
    def data(self) -> tuple[str, ...]:
        return self.row_text[self.header_rows :]

    @property
    def running_text(self) -> bool:
        """Two or more of its columns hold running text (cells of
        :data:`RUNNING_TEXT_WORDS` words or more at the median): text set in columns, such
        as a worksheet beside a prose column, more likely than a table. Never a ruled
        table (its rules say it is one). Only the report uses this; joining does not."""
        if self.method != "aligned":
            return False
        per_column: dict[int, list[int]] = {}
        for row in self.rows[self.header_rows :]:
            for i, cell in enumerate(row):
                if any(ch.isalnum() for ch in cell):
                    per_column.setdefault(i, []).append(len(cell.split()))
        running = [
            c for c in per_column.values()
            if len(c) >= 2 and statistics.median(c) >= RUNNING_TEXT_WORDS
        ]
        return len(running) >= 2

    def pipe_rows(self) -> list[str]:
        """The table as text rows, ``cell | cell | cell``."""
        return [f" {CELL_SEPARATOR} ".join(c for c in row if c) for row in self.rows]


@dataclass(frozen=True)
class PageLayout:
    """A page's lines and the tables found on it. Pages are 1-based."""

    page: int
    lines: tuple[Line, ...]
    tables: tuple[TableRegion, ...]
    width: float = 612.0
    height: float = 792.0
    letter_spaced: tuple[str, ...] = ()  # lines repaired from letter-spaced extraction
    #: The page's OCR words with boxes and confidences when its text came from OCR
    #: (:class:`ragdash.ingestion.scans.OcrPage`), else None.
    ocr: Any = None

    @property
    def plain(self) -> str:
        """The page's text, as ``extract_text`` gives it (letter spacing repaired)."""
        return "\n".join(line.text for line in self.lines)

    @property
    def text(self) -> str:
        """The structured text: table lines replaced by the tables' pipe rows."""
        owner = {
            i: t for t, table in enumerate(self.tables) if not table.weak for i in table.lines
        }
        out: list[str] = []
        done: set[int] = set()
        for i, line in enumerate(self.lines):
            if i not in owner:
                out.append(line.text)
            elif owner[i] not in done:
                done.add(owner[i])
                out.extend(self.tables[owner[i]].pipe_rows())
        return "\n".join(out)


# --------------------------------------------------------------------------- lines


def _segments(chars: Sequence[dict[str, Any]]) -> tuple[tuple[float, float, str], ...]:
    """Cut a line's characters where the gap is wider than a column gap. A character drawn
    twice at the same place (bold by double printing) counts once."""
    result: list[list[Any]] = []
    previous: dict[str, Any] | None = None
    for char in chars:
        if char.get("text", " ").isspace() or _slanted(char):
            continue  # a diagonal watermark's letter lies across the columns, not in them
        if (
            previous is not None
            and char["text"] == previous["text"]
            and abs(char["x0"] - previous["x0"]) < 1.0
        ):
            continue
        previous = char
        height = max(char["bottom"] - char["top"], 1.0)
        if result and char["x0"] - result[-1][1] <= COLUMN_GAP * height:
            seg = result[-1]
            gap = char["x0"] - seg[1]
            seg[2] += (" " if gap > DEFAULT_LAYOUT.word_space * height else "") + char["text"]
            seg[1] = max(seg[1], char["x1"])
        else:
            result.append([char["x0"], char["x1"], char["text"]])
    return tuple((a, b, t) for a, b, t in result)


def _slanted(char: dict[str, Any]) -> bool:
    """A character drawn at a slant (neither upright nor turned a quarter): a diagonal
    watermark ("DRAFT", a publisher's name) whose letters the text layer puts into lines."""
    matrix = char.get("matrix")
    if not matrix or len(matrix) < 4:
        return False
    a, b = abs(matrix[0]), abs(matrix[1])
    return min(a, b) > DEFAULT_LAYOUT.slant_share * max(a, b)


def page_lines(page: Any) -> tuple[list[Line], list[str]]:
    """The page's text lines with positions and segments, and the lines whose letter
    spacing was repaired (as they were before)."""
    lines = []
    repaired = []
    for raw in page.extract_text_lines(return_chars=True, strip=True):
        chars = raw.get("chars", [])
        text = raw["text"]
        fixed = repair_line(text, chars)
        if fixed != text:
            repaired.append(text)
            text = fixed
        upright = not chars or any(c.get("upright", True) and not _slanted(c) for c in chars)
        lines.append(
            Line(text, raw["x0"], raw["top"], raw["x1"], raw["bottom"], _segments(chars), upright)
        )
    return lines, repaired


# --------------------------------------------------------------------------- helpers


def _numeric(text: str) -> bool:
    return bool(_NUMERIC.match(text))


def _anchors(lines: Sequence[Line], left: float) -> tuple[float, ...]:
    """Column left edges (relative to ``left``) that start a segment in at least a third of
    the lines with two or more segments."""
    multi = [line for line in lines if len(line.segments) >= 2]
    if not multi:
        return ()
    starts = sorted(seg[0] - left for line in multi for seg in line.segments)
    clusters: list[list[float]] = []
    for x in starts:
        if clusters and x - clusters[-1][-1] <= ANCHOR_TOLERANCE / 2:
            clusters[-1].append(x)
        else:
            clusters.append([x])
    need = max(2, len(multi) // DEFAULT_LAYOUT.anchor_parts)
    return tuple(round(statistics.median(c), 1) for c in clusters if len(c) >= need)


def _has_number(line: Line) -> bool:
    """Some segment of the line is a number, an amount or a date."""
    return any(_numeric(s[2]) for s in line.segments) or _numeric(line.text)


# --------------------------------------------------------------------------- aligned


def _columns(lines: Sequence[Line]) -> list[tuple[float, float]]:
    """Column intervals from the lines holding the most common number of segments — or a
    larger number that a good share of the lines hold (records whose first line fills
    every column and whose wrapped lines fill two)."""
    counts = [len(line.segments) for line in lines if len(line.segments) >= 2]
    if not counts:
        return []
    modal = max(set(counts), key=lambda c: (counts.count(c), c))
    common = max(MIN_ALIGNED_ROWS, DEFAULT_LAYOUT.column_share * len(counts))
    modal = max([modal, *(c for c in set(counts) if counts.count(c) >= common)])
    spans = sorted((s[0], s[1]) for line in lines if len(line.segments) == modal
                   for s in line.segments)
    merged: list[list[float]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _cells_of(line: Line, columns: Sequence[tuple[float, float]]) -> list[str]:
    cells = [""] * len(columns)
    for a, b, text in line.segments:
        overlaps = [min(b, cb) - max(a, ca) for ca, cb in columns]
        best = max(range(len(columns)), key=lambda i: (overlaps[i], -abs(columns[i][0] - a)))
        if overlaps[best] <= 0:
            best = min(range(len(columns)), key=lambda i: abs(columns[i][0] - a))
        cells[best] = f"{cells[best]} {text}".strip()
    return cells


def _prose_like(lines: Sequence[Line], columns: Sequence[tuple[float, float]]) -> bool:
    """True for multi-column prose: no column is made mostly of short cells (a key, a code,
    a number — at most :data:`SHORT_CELL_WORDS` words), which every table has."""
    per_column: list[list[int]] = [[] for _ in columns]
    for line in lines:
        for i, cell in enumerate(_cells_of(line, columns)):
            if any(ch.isalnum() for ch in cell):  # a bullet or a mark is no cell
                per_column[i].append(len(cell.split()))
    filled = [c for c in per_column if len(c) >= 2]
    if len(filled) < 2:
        return True
    return not any(
        sum(n <= SHORT_CELL_WORDS for n in c) >= SHORT_COLUMN_SHARE * len(c) for c in filled
    )


def _aligned_region(lines: list[Line], indexes: list[int], top_of_page: bool) -> TableRegion | None:
    run = [lines[i] for i in indexes]
    counts = [len(line.segments) for line in run if len(line.segments) >= 2]
    modal = max(set(counts), key=lambda c: (counts.count(c), c))
    multi = [line for line in run if len(line.segments) >= 2]
    # lines opening in the key column (a wrapped row's later lines open further right)
    left = min(line.segments[0][0] for line in multi)
    keyed = [line for line in multi if line.segments[0][0] - left < ANCHOR_TOLERANCE]
    numeric_keys = (sum(_numeric(line.segments[0][2]) for line in keyed)
                    >= DEFAULT_LAYOUT.numeric_key_share * len(keyed))  # fmt: skip
    header = next(
        (
            n
            for n, line in enumerate(run[: MAX_HEADER_LINES + 1])
            if _has_number(line)
            and len(line.segments) >= max(2, modal - 2)
            # where keys are numbers (years, codes), a row keyed by a word is a header row
            and (not numeric_keys or _numeric(line.segments[0][2]))
        ),
        0,
    )
    if header == 0 and not any(_has_number(line) for line in run):
        header = 1  # a table of words only: its first row names the columns
    while (
        header > 1
        and len(run[header - 1].segments) < modal
        and all(_numeric(seg[2]) for seg in run[header - 1].segments)
    ):
        header -= 1  # numbers alone over the rows ("5,000 8,000"): group labels, no names
    columns = _columns(run[header:])  # header cells may be centred over their column
    if len(columns) < 2 or _prose_like(run[header:], columns):
        return None
    key_x = columns[0][1]
    while (
        header > 1
        and len(run[header - 1].segments) == 1
        and abs(run[header - 1].x0 - columns[0][0]) < ANCHOR_TOLERANCE
        and len(run[header - 1].text.split()) <= DEFAULT_LAYOUT.group_label_words
    ):
        header -= 1  # a one-cell line in the key column over the rows: a group label
    if header and all(
        len(line.segments) == 1 and abs(line.x0 - columns[0][0]) < ANCHOR_TOLERANCE
        for line in run[:header]
    ):
        header = 0  # labels alone in the key column name no columns: they are rows
    if top_of_page:
        # one-cell lines right under the header, right of the key column: the rest of a
        # row cut by the page break, not header lines
        while header > 0 and len(run[header - 1].segments) == 1 and run[header - 1].x0 > key_x:
            header -= 1
    rows: list[list[str]] = []
    texts: list[list[str]] = []
    leading = _wraps_lead(run[header:], columns)
    numbers = _number_columns([_cells_of(line, columns) for line in run[header:]])
    pending: list[tuple[list[str], str]] = []  # wrapped lines waiting for their record
    for n, line in enumerate(run):
        cells = _cells_of(line, columns)
        starts_right = bool(line.segments) and line.segments[0][0] > key_x
        wrapped = n >= header and not cells[0] and starts_right
        if leading and wrapped:
            pending.append((cells, line.text))  # the first line(s) of the next record
            continue
        # a line of words beside a wrapped key, with nothing in the columns every record
        # fills with numbers: the record above goes on (any script — no spaces needed)
        goes_on = (
            not leading and n > header and bool(numbers) and len(rows) > header
            and sum(1 for c in cells if c) >= 2 and not any(cells[i] for i in numbers)
        )
        continues = (wrapped or goes_on) and n > header and rows and not (
            top_of_page and n == header
        )
        if continues:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
            texts[-1].append(line.text)
        else:
            for held, _ in reversed(pending):
                cells = [f"{a} {b}".strip() for a, b in zip(held, cells, strict=True)]
            rows.append(cells)
            texts.append([*(text for _, text in pending), line.text])
            pending = []
    if pending:  # wrapped lines after the last record: its own, or a record cut by the page
        if len(rows) > header:
            for held, text in pending:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], held, strict=True)]
                texts[-1].append(text)
        else:
            rows.extend(cells for cells, _ in pending)
            texts.extend([text] for _, text in pending)
    if sum(1 for row in rows[header:] if sum(1 for c in row if c) >= 2) < 2:
        return None
    bbox = (
        min(line.x0 for line in run),
        min(line.top for line in run),
        max(line.x1 for line in run),
        max(line.bottom for line in run),
    )
    return TableRegion(
        bbox,
        "aligned",
        tuple(tuple(r) for r in rows),
        header,
        tuple("\n".join(t) for t in texts),
        tuple(indexes),
        _anchors(run, bbox[0]),
    )


def _number_columns(rows: Sequence[Sequence[str]]) -> list[int]:
    """Columns (past the first) that hold a number in most records: of the rows with three
    or more cells, at least :data:`MIN_ALIGNED_ROWS` and four in five have a number there."""
    full = [row for row in rows if sum(1 for c in row if c) >= DEFAULT_LAYOUT.number_column_cells]
    if len(full) < MIN_ALIGNED_ROWS:
        return []
    width = max(len(row) for row in full)
    return [
        i for i in range(1, width)
        if sum(1 for row in full if i < len(row) and _numeric(row[i]))
        >= DEFAULT_LAYOUT.number_column_share * len(full)
    ]


def _wraps_lead(run: Sequence[Line], columns: Sequence[tuple[float, float]]) -> bool:
    """True when a table's wrapped lines (no key cell) belong to the record BELOW them —
    multi-line cells set vertically centred or bottom-aligned, so a record's extra line sits
    above its main line — rather than to the record above (the usual top-aligned cells).

    Told by line breaking, for each wrapped line between two keyed lines: the first line of
    a wrapped cell is one that the cell's next word did not fit on. Reading the keyed line
    above as the first line and the wrapped line as its continuation is implausible when
    the two would have fitted on one line of the column (as wide as its widest text);
    when that happens often and the other reading is never implausible, wraps lead."""
    widths = [b - a for a, b in columns]

    def keyed(line: Line) -> bool:
        return bool(_cells_of(line, columns)[0])

    def fits(first: str, width_first: float, cont: str, width_cont: float, col: int) -> bool:
        word = cont.split()[0] if cont.split() else ""
        word_width = width_cont * len(word) / max(len(cont), 1)
        space = width_first / max(len(first), 1)
        return width_first + space + word_width <= widths[col]

    def pieces(line: Line) -> dict[int, tuple[float, str]]:
        found: dict[int, tuple[float, str]] = {}
        for a, b, text in line.segments:
            col = max(
                range(len(columns)), key=lambda i: min(b, columns[i][1]) - max(a, columns[i][0])
            )
            if b <= columns[col][1] + 1 and col not in found:
                found[col] = (b - a, text)
        return found

    below_wrong = above_wrong = 0
    for n in range(1, len(run) - 1):
        line, up, down = run[n], run[n - 1], run[n + 1]
        if keyed(line) or not keyed(up) or not keyed(down):
            continue
        mine, ups, downs = pieces(line), pieces(up), pieces(down)
        for col, (width, text) in mine.items():
            if col in downs and fits(text, width, downs[col][1], downs[col][0], col):
                below_wrong += 1
            if col in ups and fits(ups[col][1], ups[col][0], text, width, col):
                above_wrong += 1
    return below_wrong == 0 and above_wrong >= DEFAULT_LAYOUT.wrap_evidence


def aligned_tables(
    lines: list[Line], taken: set[int], page_height: float = 0.0
) -> list[TableRegion]:
    """Runs of lines with two or more segments in shared columns (a wrapped cell's extra
    line, or a one-cell group label, may sit between them)."""
    regions: list[TableRegion] = []
    run: list[int] = []
    multi = 0

    def first_table() -> bool:  # no table found above on this page (loose rows aside)
        return all(region.weak for region in regions)

    def at_foot(i: int) -> bool:
        """Line ``i`` ends the page's text (only the bottom margin's lines below it): a
        label there, right under the rows, is a row the page break cut, not text after."""
        foot = (1 - FOOT_SHARE) * page_height
        return page_height > 0 and lines[i].bottom <= foot and all(
            lines[j].top >= foot for j in range(i + 1, len(lines))
        )

    def close() -> None:
        nonlocal run, multi
        while run and (is_caption(lines[run[0]].text) or _title_line(lines, run)):
            multi -= len(lines[run[0]].segments) >= 2
            run.pop(0)  # a caption or title over the table is not one of its rows
        multi_lines = [lines[j] for j in run if len(lines[j].segments) >= 2]
        left = min((x.segments[0][0] for x in multi_lines), default=0.0)
        keyed = [x for x in multi_lines if x.segments[0][0] - left < ANCHOR_TOLERANCE]
        key_right = (  # the key column's right edge, from rows with a key cell
            statistics.median(x.segments[0][1] for x in keyed) if keyed else 0.0
        )
        while (
            run and len(lines[run[-1]].segments) < 2 and lines[run[-1]].x0 <= key_right
            and not at_foot(run[-1])
        ):
            run.pop()  # a trailing one-cell line in the key column: a label or text after
        if multi >= MIN_ALIGNED_ROWS and run:
            region = _aligned_region(lines, run, first_table())
            if region is not None:
                regions.append(region)
        elif run and not regions and multi >= 1 and not any(t < run[0] for t in taken):
            region = _weak_region(lines, run, page_height)
            if region is not None:
                regions.append(region)
        run, multi = [], 0

    previous: Line | None = None
    for i, line in enumerate(lines):
        if i in taken:
            close()
            previous = None
            continue
        if not line.upright:
            continue  # rotated margin text sits beside a table, not in it
        if previous is not None and line.top - previous.bottom > ROW_GAP * line.height:
            close()
        previous = line
        if len(line.segments) >= 2:
            if _starts_new_table(line, [lines[j] for j in run]):
                close()
            if not run and first_table():
                run.extend(_lead(lines, i, taken))
            run.append(i)
            multi += 1
        elif run and _fits_run(line, [lines[j] for j in run]):
            run.append(i)
        else:
            close()
    close()
    return regions


def _weak_region(
    lines: Sequence[Line], run: Sequence[int], page_height: float
) -> TableRegion | None:
    """One or two rows with numbers in several columns, first on the page and above its
    bottom margin: perhaps the last rows of a table from the page before (a running header
    of this shape is page furniture, and the join drops it)."""
    found = [lines[i] for i in run]
    multi = [line for line in found if len(line.segments) >= 2]
    if not multi or page_height <= 0 or found[-1].bottom > DEFAULT_LAYOUT.weak_foot * page_height:
        return None
    if not all(sum(_numeric(seg[2]) for seg in line.segments) >= 1 for line in multi):
        return None
    left = min(line.x0 for line in found)
    starts = sorted({round(seg[0] - left, 1) for line in multi for seg in line.segments})
    rows = tuple(tuple(seg[2] for seg in line.segments) for line in found)
    bbox = (left, found[0].top, max(line.x1 for line in found), found[-1].bottom)
    return TableRegion(
        bbox, "aligned", rows, 0, tuple(line.text for line in found), tuple(run),
        tuple(starts), weak=True,
    )


def _title_line(lines: Sequence[Line], run: Sequence[int]) -> bool:
    """The run's first line is one piece of text that reads as a title, not a column name:
    wider than half the table, longer than three words, or a bracketed note ("[In
    thousands]")."""
    first = lines[run[0]]
    if len(first.segments) != 1 or len(run) < 2:
        return False
    left = min(lines[i].x0 for i in run)
    right = max(lines[i].x1 for i in run)
    text = first.text.strip()
    key = next((lines[i] for i in run if len(lines[i].segments) >= 2), None)
    if key is not None and first.x0 > key.segments[0][1]:
        return False  # right of the first column: the rest of a row cut by the page break
    wide = first.x1 - first.x0 > DEFAULT_LAYOUT.title_width * (right - left)
    return wide or len(text.split()) > DEFAULT_LAYOUT.title_words or text.startswith(("[", "("))


def _lead(lines: Sequence[Line], first: int, taken: set[int]) -> list[int]:
    """One-cell lines right above the first table row of a page, right of its first column
    and with no wide gap: the rest of a row cut by the page break."""
    key_right = lines[first].segments[0][1]
    lead: list[int] = []
    below = lines[first]
    for j in range(first - 1, -1, -1):
        line = lines[j]
        if (
            j in taken
            or len(line.segments) != 1
            or line.x0 <= key_right
            or below.top - line.bottom > ROW_GAP * line.height
        ):
            break
        lead.insert(0, j)
        below = line
    return lead


def _starts_new_table(line: Line, run: Sequence[Line]) -> bool:
    """A line with several segments that opens another table inside a run: a header row
    (no numbers) after rows of numbers, or a row of another shape right under a one-cell
    title line ("Stock list")."""
    multi = [r for r in run if len(r.segments) >= 2]
    if len(multi) < 2:
        return False
    counts = [len(r.segments) for r in multi]
    modal = max(set(counts), key=lambda c: (counts.count(c), c))
    numbered = sum(1 for r in run if _has_number(r)) >= MIN_ALIGNED_ROWS
    left = min(r.segments[0][0] for r in multi)
    flush = line.segments[0][0] - left < ANCHOR_TOLERANCE  # an indented first cell wraps
    if (
        numbered and flush and not any(ch.isdigit() for ch in line.text)
        and len(line.segments) >= modal - 1 and _set_apart(line, run)
    ):
        return True  # a header row (words across the columns) after rows of numbers
    titled = len(run[-1].segments) == 1 and abs(run[-1].x0 - multi[0].x0) < ANCHOR_TOLERANCE
    return titled and len(line.segments) != modal


def _set_apart(line: Line, run: Sequence[Line]) -> bool:
    """More space above ``line`` than between the run's lines (a row's wrapped line sits at
    the run's own line pitch; a new table's header does not)."""
    gaps = [b.top - a.bottom for a, b in zip(run, run[1:], strict=False)]
    if not gaps:
        return True
    gap = statistics.median(gaps) + DEFAULT_LAYOUT.set_apart_gap * line.height
    return line.top - run[-1].bottom > gap


def _fits_run(line: Line, run: Sequence[Line]) -> bool:
    """A one-segment line inside a table: a wrapped cell (starts right of the first
    column, or where another column's cells start: a bill's title wraps on three lines
    under the title column while the first column's numbers are narrow) or a short group
    label in the first column ("Sex", "Projected")."""
    left = min(r.segments[0][0] for r in run if r.segments)
    first_right = statistics.median(r.segments[0][1] for r in run if len(r.segments) >= 2)
    if line.x0 > first_right - 1:
        return True
    if line.x0 > left + ANCHOR_TOLERANCE and any(
        abs(line.x0 - seg[0]) < ANCHOR_TOLERANCE for r in run for seg in r.segments[1:]
    ):
        return True  # starts where a column's cells start: that cell's wrapped line
    return (abs(line.x0 - left) < ANCHOR_TOLERANCE * 2
            and len(line.text.split()) <= DEFAULT_LAYOUT.short_key_words)  # fmt: skip


# --------------------------------------------------------------------------- text tables


def text_tables(lines: list[Line]) -> list[TableRegion]:
    """Runs of lines already written with ``|`` separators."""
    regions = []
    run: list[int] = []
    for i, line in enumerate([*lines, None]):
        if line is not None and CELL_SEPARATOR in line.text and line.text.replace("|", "").strip():
            run.append(i)
            continue
        if run:
            found = [lines[j] for j in run]
            rows = tuple(
                tuple(c.strip() for c in x.text.strip().strip("|").split(CELL_SEPARATOR))
                for x in found
            )
            bbox = (
                min(x.x0 for x in found),
                min(x.top for x in found),
                max(x.x1 for x in found),
                max(x.bottom for x in found),
            )
            digits = any(ch.isdigit() for cell in rows[0] for ch in cell)
            header = 1 if len(run) > 1 and not digits else 0
            regions.append(
                TableRegion(
                    bbox, "text", rows, header, tuple(x.text for x in found), tuple(run), ()
                )
            )
        run = []
    return regions


# --------------------------------------------------------------------------- ruled


def _has_rulings(page: Any) -> bool:
    return len(page.lines) + len(page.rects) >= 2


def _ruled_row_text(
    raw: Sequence[str | None], box: BBox, lines: Sequence[Line], inside: Sequence[int]
) -> str:
    """How a ruled row reads in a passage: the page's own text line when the row is exactly
    one line of the table (so text quoted from the page still matches), else its cells
    joined with `` | `` (pdfplumber's convention: spanned cells dropped, newlines as
    spaces) — a row of multi-line cells interleaves its cells over several lines."""
    mine = [
        lines[i] for i in inside if box[1] - 1 <= (lines[i].top + lines[i].bottom) / 2 <= box[3] + 1
    ]
    whole = len(mine) == 1 and box[0] - 2 <= mine[0].x0 and mine[0].x1 <= box[2] + 2
    if whole and all("\n" not in (c or "") for c in raw):
        return mine[0].text
    if len(mine) == 1 and _label_left(mine[0], box) and all("\n" not in (c or "") for c in raw):
        return mine[0].text  # the row's label column sits left of the ruled grid
    cells = " | ".join((c or "").replace("\n", " ") for c in raw if c is not None)
    upright = [line.text for line in mine if line.upright and line.text.strip()]
    if len(upright) >= 2 and _words(cells) != _words("\n".join(upright)):
        # cells of several lines: the page's lines interleave them. Keep both readings —
        # the cells (each cell whole) and the lines as the page's text gives them — so a
        # row quoted either way is still found in the table's passage.
        return "\n".join([cells, *upright])
    return cells


def _words(text: str) -> list[str]:
    return text.replace(CELL_SEPARATOR, " ").split()


def _label_left(line: Line, box: BBox) -> tuple[str, ...]:
    """The cells of ``line`` left of a ruled grid whose rules miss its label column: at
    most two short pieces, ending before the grid, while the rest of the line lies inside
    it. Empty if the line does not look like that."""
    if line.x1 > box[2] + 2 or line.x0 >= box[0] - 2:
        return ()
    outside = [seg for seg in line.segments if seg[1] <= box[0] + 1]
    if not outside or len(outside) > DEFAULT_LAYOUT.outside_label_pieces or any(
        len(seg[2].split()) > DEFAULT_LAYOUT.outside_label_words for seg in outside
    ):
        return ()
    return tuple(seg[2] for seg in outside)


def _with_label_column(
    kept: list[tuple[str, list[str]]], boxes: Sequence[BBox], lines: Sequence[Line],
    inside: Sequence[int],
) -> list[tuple[str, list[str]]]:
    """Give every row the label cells found left of the grid (see :func:`_label_left`),
    as leading columns, when most data rows have such a label."""
    labels = []
    for box in boxes:
        mine = [lines[i] for i in inside
                if box[1] - 1 <= (lines[i].top + lines[i].bottom) / 2 <= box[3] + 1]
        labels.append(_label_left(mine[0], box) if len(mine) == 1 else ())
    found = [lab for lab in labels if lab]
    if len(found) < max(2, len(kept) // 2) or len(labels) != len(kept):
        return kept
    width = max(len(lab) for lab in found)
    return [
        (text, [*lab, *[""] * (width - len(lab))] + row)
        for (text, row), lab in zip(kept, labels, strict=True)
    ]


def _merged_rows(
    raw: Sequence[str | None], box: BBox, lines: Sequence[Line], inside: Sequence[int]
) -> list[tuple[str, list[str]]]:
    """Rows that pdfplumber merged into one because no rule separates them: a ruled "row"
    whose cells hold the same number of lines k >= 2, at least two of them numbers on every
    line, over exactly k text lines of the page. Split back into k rows, each reading as
    its page line; a cell of one line (a label spanning the block) goes with the first row.
    Empty when the row is a real one (wrapped text cells)."""
    cells = [(c or "") for c in raw]
    counts = [c.count("\n") + 1 for c in cells if c.strip()]
    k = max(counts, default=1)
    if k < 2 or any(n not in (1, k) for n in counts):
        return []
    numeric = [c for c in cells if c.count("\n") + 1 == k and all(
        _numeric(part) for part in c.split("\n"))]
    if len(numeric) < 2:
        return []
    mine = [
        lines[i] for i in inside if box[1] - 1 <= (lines[i].top + lines[i].bottom) / 2 <= box[3] + 1
    ]
    rows = []
    for j in range(k):
        row = [
            (c.split("\n")[j] if c.count("\n") + 1 == k else (c if j == 0 else "")).strip()
            for c in cells
        ]
        joined = " ".join(part for part in row if part)
        # the page's own line when one starts with this row's text, else the cells
        line = next((x.text for x in mine if x.text.startswith(joined)), joined)
        rows.append((line, row))
    return rows


def _nested(box: BBox, others: Sequence[BBox]) -> bool:
    """``box`` lies inside a larger table's box (within a point): hairlines inside a cell
    make ``find_tables`` return a second, narrower table over the same text."""
    def area(b: BBox) -> float:
        return (b[2] - b[0]) * (b[3] - b[1])

    return any(
        o[0] - 1 <= box[0] and box[2] <= o[2] + 1 and o[1] - 1 <= box[1] and box[3] <= o[3] + 1
        and area(o) > area(box)
        for o in others
    )


def ruled_tables(page: Any, lines: list[Line]) -> list[TableRegion]:
    """Tables drawn with ruling lines, via ``page.find_tables()``. Tables with fewer than
    two rows or two columns (a framed box) are ignored."""
    if not _has_rulings(page):
        return []
    regions = []
    found = page.find_tables()
    for table in found:
        if _nested(table.bbox, [t.bbox for t in found if t is not table]):
            continue  # a table drawn inside another one's frame: its lines are the outer's
        region = ruled_region(
            tuple(table.bbox), table.extract(), [tuple(row.bbox) for row in table.rows], lines,
            sorted({round(x, 1) for cell in table.cells for x in (cell[0], cell[2])}),
        )
        if region is not None:
            regions.append(region)
    return regions


#: A header cell is a name: a cell of more words than this, or a list item, is a row's.
HEADER_WORDS = DEFAULT_LAYOUT.header_words


def _header_like(row: Sequence[str]) -> bool:
    """No cell of ``row`` is a list item or longer than :data:`HEADER_WORDS` words: a row
    of sentences ("Suivi Dont les éléments s'enchaînent …", "• Planifier …") under a
    header is the first row of data, though no figure is in it."""
    return not any(
        c.lstrip().startswith(("•", "-", "–", "▪", "◦")) or len(c.split()) > HEADER_WORDS
        for c in row
        if c
    )


def _label_row(raw: Sequence[str | None]) -> bool:
    """A ruled row whose only text is its first cell while every other cell is drawn and
    empty (``""``, not ``None``: no cell spans it): a row label — a group title or a label
    whose figures come on a later line ("持有至到期投资", "Pesticides" in a grid of its
    own) — never a title spanning the box nor a header, which names the columns it heads.

    >>> _label_row(["Non-current assets", "", ""]), _label_row(["AXE 3 – OUTILS", None, None])
    (True, False)
    """
    cells = list(raw)
    return len(cells) >= 2 and bool((cells[0] or "").strip()) and all(c == "" for c in cells[1:])


def ruled_region(
    bbox: BBox, raw: Sequence[Sequence[str | None]], row_boxes: Sequence[BBox],
    lines: Sequence[Line], edges: Sequence[float] = (),
) -> TableRegion | None:
    """The table a ruled grid draws: ``raw`` holds each row's cells as pdfplumber's
    ``extract`` gives them (a cell's lines joined with newlines, None where a spanned cell
    continues), ``row_boxes`` each row's box, ``lines`` the page's lines. None for a grid
    of fewer than two rows or two columns (a framed box). The same for a grid drawn in a
    PDF and one found in a scan's image, so the two read alike."""
    x0, top, x1, bottom = bbox
    inside = tuple(
        i
        for i, line in enumerate(lines)
        if top - 1 <= (line.top + line.bottom) / 2 <= bottom + 1
        and line.x0 < x1
        and line.x1 > x0
    )
    kept = []
    drawn_label = False  # the first kept row: a label whose other cells are drawn, empty
    for r, box in zip(raw, row_boxes, strict=True):
        merged = _merged_rows(r, box, lines, inside)
        if merged:
            kept.extend(merged)
            continue
        row = [(c or "").replace("\n", " ").strip() for c in r]
        if any(row):
            if not kept:
                drawn_label = _label_row(r)
            kept.append((_ruled_row_text(r, box, lines, inside), row))
    kept = _with_label_column(kept, row_boxes, lines, inside)
    if len(kept) < 2 or max(sum(1 for c in row if c) for _, row in kept) < 2:
        return None
    title = ""
    if sum(1 for c in kept[0][1] if c) == 1 and len(kept) > 2 and not drawn_label:
        title = next(c for c in kept[0][1] if c)
        kept = kept[1:]
    texts = tuple(text for text, _ in kept)
    cells = tuple(tuple(row) for _, row in kept)
    header = 0
    while (
        not drawn_label
        and header < min(DEFAULT_LAYOUT.ruled_header_rows, len(cells) - 1)
        and (header == 0 or cells[header][0])  # a row with no key continues a row
        and (header == 0 or _header_like(cells[header]))
        and not any(_numeric(c) for c in cells[header] if c)
        and any(any(_numeric(c) for c in row if c) for row in cells[header + 1 :])
    ):
        header += 1
    if (header == 0 and len(cells) > 2 and not drawn_label
            and not any(_numeric(c) for c in cells[0] if c)):
        header = 1
    region_lines = [lines[i] for i in inside]
    return TableRegion(
        (x0, top, x1, bottom), "ruled", cells, header, texts, inside,
        _anchors(region_lines, x0), title, edges=tuple(round(x - x0, 1) for x in edges),
    )  # fmt: skip


# --------------------------------------------------------------------------- page


#: A page set in prose columns: at least this many column starts, each where a line of
#: prose starts on this share of the page's lines (a line whose every piece holds
#: :data:`PROSE_PIECE_WORDS` words or more).
PROSE_COLUMNS = DEFAULT_LAYOUT.prose_columns
PROSE_COLUMN_SHARE = DEFAULT_LAYOUT.prose_column_share
PROSE_PIECE_WORDS = DEFAULT_LAYOUT.prose_piece_words


def prose_columns(lines: Sequence[Line]) -> tuple[float, ...]:
    """The left edges of the page's prose columns when it is set in three or more (a
    journal or a register page), else ``()``. ``extract_text`` reads such a page across:
    one text line holds a piece of every column, so a table inside one column shares its
    lines with the prose beside it; the columns are found where pieces of prose start on
    many lines.

    >>> row = lambda *xs: Line("", 0, 0, 0, 0, tuple((x, x + 150, "a b c d") for x in xs))
    >>> prose_columns([row(36, 222, 408)] * 5 + [row(36)])
    (36.0, 222.0, 408.0)
    >>> prose_columns([row(36, 300)] * 5)
    ()
    """
    starts: dict[float, set[int]] = {}
    for n, line in enumerate(lines):
        if not line.segments or not all(_prose_piece(seg[2]) for seg in line.segments):
            continue  # a line of prose in every column it touches, not a table's row
        for x0, _, _ in line.segments:
            key = next((k for k in starts if abs(k - x0) <= ANCHOR_TOLERANCE), float(x0))
            starts.setdefault(key, set()).add(n)
    found = sorted(
        x for x, rows in starts.items() if len(rows) >= PROSE_COLUMN_SHARE * len(lines)
    )
    return tuple(found) if len(found) >= PROSE_COLUMNS else ()


def _prose_piece(text: str) -> bool:
    """A piece of a running line of prose: :data:`PROSE_PIECE_WORDS` words or more, or as
    many characters as that many words (a script written without spaces)."""
    chars = DEFAULT_LAYOUT.prose_piece_chars * PROSE_PIECE_WORDS
    return len(text.split()) >= PROSE_PIECE_WORDS or len(text.strip()) >= chars


def band_line(line: Line, left: float, right: float) -> Line:
    """The piece of a page line inside one prose column (``left`` to ``right``), as a line
    of its own; an empty line when none of it is there."""
    segs = tuple(
        s for s in line.segments if left - ANCHOR_TOLERANCE <= s[0] < right - ANCHOR_TOLERANCE
    )
    if not segs:
        return Line("", 0, 0, 0, 0)
    text = " ".join(s[2] for s in segs)
    return Line(text, segs[0][0], line.top, segs[-1][1], line.bottom, segs, line.upright)


def _spans_columns(line: Line, columns: Sequence[float]) -> bool:
    """A line with a piece running over the gutter into the next prose column (the row of
    a table set across the page, under the prose): it is read whole, never cut into the
    columns' pieces. (A line of prose keeps each piece inside its column.)

    >>> cols = (36.0, 222.0, 408.0)
    >>> _spans_columns(Line("", 0, 0, 0, 0, ((45, 187, "a"), (195, 333, "b"))), cols)
    True
    >>> _spans_columns(Line("", 0, 0, 0, 0, ((45, 199, "a"), (222, 387, "b"))), cols)
    False
    """
    for x0, x1, _ in line.segments:
        after = [c for c in columns if c > x0 + ANCHOR_TOLERANCE]
        if after and x1 > after[0] + ANCHOR_TOLERANCE:
            return True
    return False


def _prose_rows(lines: Sequence[Line]) -> set[int]:
    """On a page set in prose columns, the lines made only of prose pieces: no table set
    across the page holds them, so a table under the prose (a register's cost table)
    starts after them, not among them. Empty on any other page."""
    if not prose_columns(lines):
        return set()
    return {
        i for i, line in enumerate(lines)
        if len(line.segments) >= 2 and all(_prose_piece(seg[2]) for seg in line.segments)
    }


def _band_tables(
    lines: list[Line], taken: set[int], page_height: float
) -> list[TableRegion]:
    """Tables inside one column of a page set in prose columns: each column's pieces of
    the lines are read as lines of their own (a row's text is its piece of the page line)."""
    columns = prose_columns(lines)
    across = {i for i, line in enumerate(lines) if _spans_columns(line, columns)}
    found: list[TableRegion] = []
    for k, left in enumerate(columns):
        right = columns[k + 1] if k + 1 < len(columns) else float("inf")
        pieces = [
            (i, band_line(line, left, right)) for i, line in enumerate(lines) if i not in across
        ]
        pieces = [(i, piece) for i, piece in pieces if piece.text]  # lines of this column
        index = [i for i, _ in pieces]
        band = [piece for _, piece in pieces]
        held = {n for n, i in enumerate(index) if i in taken}
        for region in aligned_tables(band, held, page_height):
            own = tuple(index[n] for n in region.lines)
            if not taken.intersection(own):
                found.append(replace(region, lines=own))
                taken |= set(own)
    return found


def page_layout(page: Any, number: int, plain_text: str | None = None) -> PageLayout:
    """Read one pdfplumber page: its lines (the same as ``extract_text``) and its tables.

    ``plain_text`` is accepted for compatibility; the lines come from the same cached text
    map, so no second pass over the characters is made."""
    lines, repaired = page_lines(page)
    ruled = ruled_tables(page, lines)
    taken = {i for t in ruled for i in t.lines}
    texts = text_tables([line if i not in taken else Line("", 0, 0, 0, 0)
                         for i, line in enumerate(lines)])
    taken |= {i for t in texts for i in t.lines}
    # a page in prose columns: tables inside one column first, the rest as lines across
    aligned = _band_tables(lines, taken, float(page.height))
    taken |= {i for t in aligned for i in t.lines}
    aligned += aligned_tables(lines, taken | _prose_rows(lines), float(page.height))
    tables = sorted([*ruled, *texts, *aligned], key=lambda t: (t.bbox[1], t.bbox[0]))
    return PageLayout(
        number, tuple(lines), tuple(tables), float(page.width), float(page.height),
        tuple(repaired),
    )
