"""Ruled tables of a scanned page, rebuilt from the rules in its image and the words OCR read.

A born-digital PDF draws a table's grid as line objects, and pdfplumber cuts the grid into
cells: a row whose cells wrap over several lines still reads as one row,
``cell | cell | cell``. A scan of the same page has no line objects, only ink, and its
rows were rebuilt from text lines alone: a row of multi-line cells came out as the page's
lines interleaving the cells, and a spanned label ("Technique" over five rows) as lines of
their own. So the rules that :func:`~ragdash.ingestion.ocr_prep.find_rules` found in the
image (before they were painted out for Tesseract) are handed to pdfplumber's own table
finder — the same edges → intersections → cells → tables steps, with its default
tolerances — and each OCR word goes to the cell that holds its centre. The table is then
read by :func:`~ragdash.ingestion.pdf_layout.ruled_region`, as a drawn grid is.

>>> from ragdash.ingestion.scans import OcrWord
>>> rules = [(10, 10, 300, 11), (10, 40, 300, 41), (10, 80, 300, 81),   # three across
...          (10, 10, 11, 81), (150, 10, 151, 81), (299, 10, 300, 81)]  # three down
>>> words = [OcrWord("Plan", 20, 20, 50, 30, 95), OcrWord("Price", 160, 20, 190, 30, 95),
...          OcrWord("Basic", 20, 50, 50, 60, 95), OcrWord("plan", 20, 64, 50, 74, 95),
...          OcrWord("10", 160, 50, 175, 60, 95)]
>>> [t.rows for t in grid_tables(words, rules, [])]
[(('Plan', 'Price'), ('Basic plan', '10'))]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from ragdash.ingestion.ocr_prep import Rule
from ragdash.ingestion.pdf_layout import BBox, Line, TableRegion, ruled_region
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings

__all__ = ["SNAP", "grid_tables"]

#: pdfplumber's default snap, join and intersection tolerances (points): a rule's pieces,
#: cut where another rule crosses, are joined back within this.
SNAP = DEFAULT_SCAN.snap


def _edge(orientation: str, at: float, start: float, end: float) -> dict[str, Any]:
    """A pdfplumber edge: across (``"h"``) at height ``at`` from x ``start`` to ``end``, or
    down (``"v"``) at x ``at`` from ``start`` to ``end``."""
    if orientation == "h":
        return {"orientation": "h", "x0": start, "x1": end, "top": at, "bottom": at,
                "width": end - start, "height": 0.0}  # fmt: skip
    return {"orientation": "v", "x0": at, "x1": at, "top": start, "bottom": end,
            "width": 0.0, "height": end - start}  # fmt: skip


def _edges(rules: Sequence[Rule]) -> list[dict[str, Any]]:
    """The rules as pdfplumber edges: a rule wider than tall runs across, else down."""
    edges = []
    for x0, top, x1, bottom in rules:
        if x1 - x0 >= bottom - top:
            edges.append(_edge("h", (top + bottom) / 2, x0, x1))
        else:
            edges.append(_edge("v", (x0 + x1) / 2, top, bottom))
    return edges


#: A cell's side between two rules that cross it is drawn whole again when the scan kept at
#: least this share of it.
MEND_SHARE = DEFAULT_SCAN.mend_share


def _mended(
    edges: list[dict[str, Any]], scan: ScanSettings = DEFAULT_SCAN
) -> list[dict[str, Any]]:
    """``edges`` (merged: the pieces of one line share its exact position) with the cell
    sides a scan broke drawn whole again. Between two rules that both cross a line, the
    stretch is one cell's side; when at least :data:`MEND_SHARE` of it is there, the gaps
    are lost ink (a rule thinned by the scan under a header's last line), not a drawing
    that leaves the cell open — and pdfplumber makes a cell only of four whole sides, so
    without mending the cell and the row's value were lost."""
    added = []
    snap = scan.snap
    for kind, other in (("h", "v"), ("v", "h")):
        pos, lo, hi = ("top", "x0", "x1") if kind == "h" else ("x0", "top", "bottom")
        opos, olo, ohi = ("x0", "top", "bottom") if kind == "h" else ("top", "x0", "x1")
        crossers = [e for e in edges if e["orientation"] == other]
        groups: dict[float, list[dict[str, Any]]] = {}
        for e in edges:
            if e["orientation"] == kind:
                groups.setdefault(e[pos], []).append(e)
        for at, group in groups.items():
            start = min(e[lo] for e in group) - snap
            end = max(e[hi] for e in group) + snap
            walls = sorted({c[opos] for c in crossers
                            if c[olo] - snap <= at <= c[ohi] + snap
                            and start <= c[opos] <= end})  # fmt: skip
            for a, b in zip(walls, walls[1:], strict=False):
                kept = sum(max(0.0, min(e[hi], b) - max(e[lo], a)) for e in group)
                if scan.mend_share * (b - a) <= kept < b - a - snap:
                    added.append(_edge(kind, at, a, b))
    return edges + added


def _cell_text(words: Sequence[Any], scan: ScanSettings = DEFAULT_SCAN) -> str:
    """A cell's words as pdfplumber gives a cell's text: its lines top to bottom, words left
    to right, lines joined with newlines. Words whose middles lie within half a word's
    height of either share a line (``ScanSettings.cell_line``)."""
    lines: list[list[Any]] = []
    for word in sorted(words, key=lambda w: (w.top + w.bottom) / 2):
        middle = (word.top + word.bottom) / 2
        if lines:
            last = lines[-1]
            centre = sum((w.top + w.bottom) / 2 for w in last) / len(last)
            if abs(middle - centre) <= scan.cell_line * max(word.height, last[0].height):
                last.append(word)
                continue
        lines.append([word])
    return "\n".join(" ".join(w.text for w in sorted(line, key=lambda w: w.x0)) for line in lines)


def grid_tables(
    words: Sequence[Any], rules: Sequence[Rule], lines: Sequence[Line],
    scan: ScanSettings = DEFAULT_SCAN,
) -> list[TableRegion]:
    """The ruled tables that ``rules`` draw on a scanned page, their cells filled with the
    OCR ``words`` (:class:`~ragdash.ingestion.scans.OcrWord`) centred in them; ``lines``
    are the page's lines (:func:`~ragdash.ingestion.scans.words_to_lines`). Grids of
    fewer than two rows or two columns are not tables (see
    :func:`~ragdash.ingestion.pdf_layout.ruled_region`)."""
    from pdfplumber.table import (
        Table,
        cells_to_tables,
        edges_to_intersections,
        intersections_to_cells,
        merge_edges,
    )
    from pdfplumber.utils import filter_edges

    if len(rules) < 4:
        return []
    snap = scan.snap
    edges = merge_edges(_edges(rules), snap, snap, snap, snap)
    edges = merge_edges(_mended(edges, scan), snap, snap, snap, snap)
    edges = filter_edges(edges, min_length=snap)
    cells = intersections_to_cells(edges_to_intersections(edges, snap, snap))
    regions = []
    for found in cells_to_tables(cells):
        table = Table(None, found)  # type: ignore[arg-type]  # the page is read by extract() only
        raw: list[list[str | None]] = []
        boxes: list[BBox] = []
        for row in table.rows:
            texts: list[str | None] = []
            for cell in row.cells:
                if cell is None:
                    texts.append(None)
                    continue
                x0, top, x1, bottom = cell
                mine = [w for w in words if x0 <= (w.x0 + w.x1) / 2 <= x1
                        and top <= (w.top + w.bottom) / 2 <= bottom]  # fmt: skip
                texts.append(_cell_text(mine, scan))
            raw.append(texts)
            boxes.append(tuple(row.bbox))
        region = ruled_region(cast(BBox, tuple(table.bbox)), raw, boxes, lines)
        if region is None:
            continue
        crossing = sum(_runs_past(lines[i], region.bbox) for i in region.lines)
        if crossing * 2 > len(region.lines):
            continue  # one of several grids side by side that the page's rows run across
        regions.append(region)
    return regions


def _runs_past(line: Line, box: BBox) -> bool:
    """``line`` has at least as many words outside ``box`` (left or right of it) as inside:
    a row of a tax table printed as three boxed grids side by side runs across all three,
    and no one grid's row is the page's line. The aligned finder reads such a page as a
    born-digital PDF's text does, a row across the page (a label left of a grid, a word
    or two, is not enough)."""
    outside = inside = 0
    for x0, x1, text in line.segments or ((line.x0, line.x1, line.text),):
        count = len(text.split())
        if x1 <= box[0] + 1 or x0 >= box[2] - 1:
            outside += count
        else:
            inside += count
    return outside >= inside
