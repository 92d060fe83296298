"""Table geometry on a PDF page, rendered as the pipe rows the text-table join understands.

pdfplumber gives words with positions and the page's ruling lines. A *ruled* table comes
from ``page.find_tables()`` (only asked where the page has lines or rectangles — it is slow
otherwise); an *aligned* table is a run of lines whose words fall into the same columns with
wide gaps between them. Each detected table becomes ``cell | cell | cell`` rows at its place
in reading order; every other line stays exactly as ``extract_text`` gives it. The result is
the page's *structured* text: the same words, arranged so that :mod:`ragdash.ingestion.tables` can
see the table and join it across page breaks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragdash.ingestion.tables import CELL_SEPARATOR

BBox = tuple[float, float, float, float]  # x0, top, x1, bottom in PDF points, top-down
Word = dict[str, Any]  # a pdfplumber word: text, x0, x1, top, bottom

#: Words on one line whose tops differ by at most this many points (pdfplumber's default).
LINE_TOLERANCE = 3.0
#: A horizontal gap wider than this fraction of the text height separates two columns
#: (a word space is about a quarter of it).
COLUMN_GAP = 0.8
#: A vertical gap wider than this many line heights ends an aligned table.
ROW_GAP = 1.5
#: An aligned table needs at least this many lines that have two or more columns.
MIN_ALIGNED_ROWS = 2


@dataclass(frozen=True)
class TableRegion:
    """One table detected on one page: where it is, how it was found, and its cells."""

    bbox: BBox
    method: str  # "ruled" (find_tables), "aligned" (column-aligned words) or "text" (pipes)
    rows: tuple[tuple[str, ...], ...]

    @property
    def columns(self) -> int:
        return max((len(row) for row in self.rows), default=0)

    def pipe_rows(self) -> list[str]:
        """The table as text rows, ``cell | cell | cell``; an empty first cell shows as a
        leading ``|`` (the row continues the one above, e.g. after a page break)."""
        lines = []
        for row in self.rows:
            line = f" {CELL_SEPARATOR} ".join(row).strip()
            if row and not row[0]:
                line = f"{CELL_SEPARATOR} {line.lstrip(CELL_SEPARATOR).strip()}"
            lines.append(line)
        return lines


@dataclass(frozen=True)
class PageLayout:
    """A page's structured text and the tables found on it. Pages are 1-based."""

    page: int
    text: str
    tables: tuple[TableRegion, ...]


def _center(word: Word) -> tuple[float, float]:
    return (word["x0"] + word["x1"]) / 2, (word["top"] + word["bottom"]) / 2


def _inside(point: tuple[float, float], box: BBox, pad: float = 1.0) -> bool:
    x, y = point
    return box[0] - pad <= x <= box[2] + pad and box[1] - pad <= y <= box[3] + pad


def _cell_text(words: Iterable[Word]) -> str:
    """Words of one cell in reading order, one space apart; a literal ``|`` becomes ``/``."""
    ordered = sorted(words, key=lambda w: (round(w["top"] / LINE_TOLERANCE), w["x0"]))
    return " ".join(w["text"] for w in ordered).replace(CELL_SEPARATOR, "/")


def text_rows(words: Sequence[Word]) -> list[list[Word]]:
    """Words grouped into lines (top within :data:`LINE_TOLERANCE`), each sorted by x."""
    rows: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if rows and word["top"] - rows[-1][0]["top"] <= LINE_TOLERANCE:
            rows[-1].append(word)
        else:
            rows.append([word])
    return [sorted(row, key=lambda w: w["x0"]) for row in rows]


def segments(row: Sequence[Word]) -> list[list[Word]]:
    """Split one line where the gap between words is wider than a column gap."""
    result: list[list[Word]] = []
    for word in row:
        height = max(word["bottom"] - word["top"], 1.0)
        if result and word["x0"] - result[-1][-1]["x1"] <= COLUMN_GAP * height:
            result[-1].append(word)
        else:
            result.append([word])
    return result


def _span(segment: Sequence[Word]) -> tuple[float, float]:
    return min(w["x0"] for w in segment), max(w["x1"] for w in segment)


def _merge_intervals(spans: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[list[float]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def _aligned_region(run: list[list[list[Word]]], at_top: bool = False) -> TableRegion | None:
    """A table from a run of segmented lines, or None if its columns do not line up.

    A line with nothing in the first column continues the cells of the row above — except
    right under the first row of a table that opens the page: there it is the rest of a row
    cut by the page break (under a repeated header) and stays a row of its own, with an
    empty first cell, for the join to glue back."""
    columns = _merge_intervals(_span(seg) for line in run for seg in line)
    if len(columns) < 2:
        return None
    rows: list[list[list[Word]]] = []
    for line in run:
        cells: list[list[Word]] = [[] for _ in columns]
        for seg in line:
            start, end = _span(seg)
            index = next(i for i, (a, b) in enumerate(columns) if a <= start and end <= b)
            cells[index].extend(seg)
        if rows and not cells[0] and not (at_top and len(rows) == 1 and rows[0][0]):
            for previous, extra in zip(rows[-1], cells, strict=True):
                previous.extend(extra)
        else:
            rows.append(cells)
    if sum(1 for row in rows if sum(1 for cell in row if cell) >= 2) < MIN_ALIGNED_ROWS:
        return None
    words = [w for line in run for seg in line for w in seg]
    bbox = (
        min(w["x0"] for w in words),
        min(w["top"] for w in words),
        max(w["x1"] for w in words),
        max(w["bottom"] for w in words),
    )
    return TableRegion(bbox, "aligned", tuple(tuple(_cell_text(c) for c in row) for row in rows))


def aligned_tables(words: Sequence[Word], page_top: float | None = None) -> list[TableRegion]:
    """Tables made of column-aligned lines: runs of lines with two or more wide-gap
    segments (a wrapped cell's extra line, with nothing in the first column, may sit
    between them), whose segments fall into shared columns. ``page_top`` is the top of the
    page's first text line (a table starting there opens the page)."""
    regions: list[TableRegion] = []
    run: list[list[list[Word]]] = []
    multi = 0
    first_right = 0.0  # right edge of the first column so far

    def close() -> None:
        nonlocal run, multi, first_right
        if multi >= MIN_ALIGNED_ROWS:
            at_top = page_top is not None and run[0][0][0]["top"] - page_top <= LINE_TOLERANCE
            region = _aligned_region(run, at_top)
            if region is not None:
                regions.append(region)
        run, multi, first_right = [], 0, 0.0

    previous_bottom = None
    lead: list[list[list[Word]]] = []  # one-column lines opening the page
    for row in text_rows(words):
        height = max(max(w["bottom"] - w["top"] for w in row), 1.0)
        if previous_bottom is not None and row[0]["top"] - previous_bottom > ROW_GAP * height:
            close()
            lead = []
        previous_bottom = max(w["bottom"] for w in row)
        segs = segments(row)
        if len(segs) >= 2:
            if not run and lead and min(_span(line[0])[0] for line in lead) > _span(segs[0])[1]:
                run.extend(lead)  # right of the first column: a cell continued from before
            lead = []
            run.append(segs)
            multi += 1
            first_right = max(first_right, _span(segs[0])[1])
        elif run and _span(segs[0])[0] > first_right:
            run.append(segs)  # starts right of the first column: a wrapped cell
        else:
            close()
            opens_page = page_top is not None and row[0]["top"] - page_top <= LINE_TOLERANCE
            lead = [*lead, segs] if lead or opens_page else []
    close()
    return regions


def text_tables(words: Sequence[Word]) -> list[TableRegion]:
    """Text tables already written with ``|`` separators: runs of lines holding a ``|``.
    They need no re-rendering (their text already has pipe rows); they are reported so the
    page view can show them."""
    regions = []
    run: list[list[Word]] = []
    for row in [*text_rows(words), []]:
        if row and any(CELL_SEPARATOR in w["text"] for w in row):
            run.append(row)
            continue
        if run:
            found = [w for line in run for w in line]
            bbox = (
                min(w["x0"] for w in found),
                min(w["top"] for w in found),
                max(w["x1"] for w in found),
                max(w["bottom"] for w in found),
            )
            cells = tuple(
                tuple(c.strip() for c in " ".join(w["text"] for w in line).split(CELL_SEPARATOR))
                for line in run
            )
            regions.append(TableRegion(bbox, "text", cells))
        run = []
    return regions


def _has_rulings(page: Any) -> bool:
    return len(page.lines) + len(page.rects) >= 2


def ruled_tables(page: Any, words: Sequence[Word]) -> list[TableRegion]:
    """Tables drawn with ruling lines, via ``page.find_tables()``; each word goes to the
    cell holding its center (or the nearest cell of its table). Tables with fewer than two
    rows or two columns (a framed box) are ignored."""
    if not _has_rulings(page):
        return []
    regions = []
    for table in page.find_tables():
        grid = [list(row.cells) for row in table.rows]
        if len(grid) < 2 or max(len(row) for row in grid) < 2:
            continue
        cells: dict[tuple[int, int], list[Word]] = {}
        boxes = [((r, c), box) for r, row in enumerate(grid) for c, box in enumerate(row) if box]
        for word in words:
            point = _center(word)
            if not _inside(point, table.bbox):
                continue
            key = next((k for k, box in boxes if _inside(point, box, pad=0.0)), None)
            if key is None:
                key = min(boxes, key=lambda kb: _distance(point, kb[1]))[0]
            cells.setdefault(key, []).append(word)
        if not cells:
            continue
        rows = tuple(
            tuple(_cell_text(cells.get((r, c), [])) for c in range(len(row)))
            for r, row in enumerate(grid)
        )
        rows = tuple(row for row in rows if any(row))
        regions.append(TableRegion(tuple(table.bbox), "ruled", rows))
    return regions


def _distance(point: tuple[float, float], box: BBox) -> float:
    x, y = point
    dx = max(box[0] - x, 0.0, x - box[2])
    dy = max(box[1] - y, 0.0, y - box[3])
    return dx * dx + dy * dy


def compose(
    lines: Sequence[dict[str, Any]], words: Sequence[Word], tables: Sequence[TableRegion]
) -> str:
    """The structured text of a page: each ``extract_text`` line as it is, except that the
    lines holding a table's words give way to the table's pipe rows (once, where the table
    starts). Words of such a line that lie outside every table stay as a line of their own."""
    if not tables:
        return "\n".join(line["text"] for line in lines)
    owner = {id(w): _table_of(_center(w), tables) for w in words}
    out: list[str] = []
    emitted: set[int] = set()
    for line in lines:
        box = (line["x0"], line["top"], line["x1"], line["bottom"])
        mine = [w for w in words if _inside(_center(w), box, pad=0.5)]
        touched = [owner[id(w)] for w in mine if owner[id(w)] is not None]
        if not touched:
            out.append(line["text"])
            continue
        for index in dict.fromkeys(touched):
            if index not in emitted:
                emitted.add(index)
                out.extend(tables[index].pipe_rows())
        rest = [w for w in mine if owner[id(w)] is None]
        if rest:
            out.append(" ".join(w["text"] for w in sorted(rest, key=lambda w: w["x0"])))
    return "\n".join(out)


def _table_of(point: tuple[float, float], tables: Sequence[TableRegion]) -> int | None:
    return next((i for i, t in enumerate(tables) if _inside(point, t.bbox)), None)


def page_layout(page: Any, number: int, plain_text: str | None = None) -> PageLayout:
    """Detect the tables of one pdfplumber page and build its structured text.

    ``plain_text`` is the page's ``extract_text()`` if the caller already has it; a page
    without tables keeps exactly that text."""
    words = page.extract_words()
    ruled = ruled_tables(page, words)
    loose = [w for w in words if _table_of(_center(w), ruled) is None]
    piped = [w for w in loose if CELL_SEPARATOR in w["text"]]
    texts = text_tables(loose) if piped else []
    loose = [w for w in loose if _table_of(_center(w), texts) is None]
    page_top = min((w["top"] for w in words), default=None)
    aligned = aligned_tables(loose, page_top)
    tables = sorted([*ruled, *aligned], key=lambda t: (t.bbox[1], t.bbox[0]))
    if tables:
        text = compose(page.extract_text_lines(return_chars=False), words, tables)
    else:
        text = plain_text if plain_text is not None else page.extract_text() or ""
    found = sorted([*tables, *texts], key=lambda t: (t.bbox[1], t.bbox[0]))
    return PageLayout(number, text, tuple(found))
