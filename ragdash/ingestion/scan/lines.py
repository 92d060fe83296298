"""Words into lines and cells: OCR words grouped into the rows and column segments of the same
page model a text layer gives, and the page's tables found in them."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ragdash.ingestion.pdf_layout import COLUMN_GAP, Line, PageLayout, aligned_tables
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings
from ragdash.ingestion.scan.words import _FIGURE, OcrPage, OcrWord
from ragdash.ingestion.scan_grid import grid_tables

__all__ = [
    "ocr_layout",
    "words_to_lines",
]


def _rows(words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN) -> list[list[OcrWord]]:
    """Words in rows by baseline: Tesseract's lines (a table's cells, when it read each
    column as a block), each put in the row whose baseline is within 45% of the text
    height of its own (``ScanSettings.row_baseline``, among its last ``row_lookback`` rows)
    and whose words it does not overlap side by side; rows top to bottom, words left to
    right. The page was straightened first, so a row's cells share a baseline across the
    whole page."""
    by_line: dict[int, list[OcrWord]] = {}
    for word in words:
        by_line.setdefault(word.line, []).append(word)
    pieces = []
    for piece in by_line.values():
        base = statistics.median(w.bottom for w in piece)
        height = statistics.median(w.height for w in piece)
        pieces.append((base, height, sorted(piece, key=lambda w: w.x0)))
    pieces.sort(key=lambda p: (p[0], p[2][0].x0))
    rows: list[list[Any]] = []  # [baseline, height, words, spans]
    for base, height, piece in pieces:
        span = (piece[0].x0, piece[-1].x1)
        best = None
        for row in rows[-scan.row_lookback:]:
            gap = abs(row[0] - base)
            if gap > scan.row_baseline * min(row[1], height):
                continue
            if any(a < span[1] and span[0] < b for a, b in row[3]):
                continue  # side by side overlap: another line of the same column
            if best is None or gap < best[0]:
                best = (gap, row)
        if best is None:
            rows.append([base, height, list(piece), [span]])
            continue
        row = best[1]
        count = len(row[2])
        row[0] = (row[0] * count + base * len(piece)) / (count + len(piece))
        row[1] = max(row[1], height)
        row[2].extend(piece)
        row[3].append(span)
    rows.sort(key=lambda r: min(w.top for w in r[2]))
    return [sorted(r[2], key=lambda w: w.x0) for r in rows]


def words_to_lines(
    words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> list[Line]:
    """OCR words as page :class:`~ragdash.ingestion.pdf_layout.Line` objects, top to bottom,
    each cut into column segments where the gap between two words is wider than
    :data:`~ragdash.ingestion.pdf_layout.COLUMN_GAP` times the row's text height. A lone
    ``|`` is a table's vertical rule read as a character: it is left out (the gap it sits
    in already separates the columns)."""
    lines = []
    kept = [w for w in words if w.text.strip("|¦[]") or len(w.text) > 2]
    for row in _rows(kept, scan):
        row = _zeros_in_figures(row)
        height = statistics.median(w.height for w in row)
        segments: list[list[Any]] = []
        for word in row:
            if segments and word.x0 - segments[-1][1] <= COLUMN_GAP * height * scan.segment_gap:
                segments[-1][1] = max(segments[-1][1], word.x1)
                segments[-1][2] += " " + word.text
            else:
                segments.append([word.x0, word.x1, word.text])
        top, bottom = min(w.top for w in row), max(w.bottom for w in row)
        pad = scan.line_pad * (bottom - top)
        lines.append(
            Line(
                " ".join(w.text for w in row),
                min(w.x0 for w in row),
                round(max(0.0, top - pad), 2),
                max(w.x1 for w in row),
                round(bottom + pad, 2),
                tuple((a, b, t) for a, b, t in segments),
            )
        )
    return lines


def _zeros_in_figures(row: list[OcrWord]) -> list[OcrWord]:
    """``row`` with a lone ``O`` or ``o`` between two figures (or after the last one) read
    as the ``0`` it is: a census row's empty counts came back ``1963 O 1889``.

    >>> row = [OcrWord(t, 30 * n, 0, 30 * n + 20, 8, 90.0) for n, t in
    ...        enumerate(["Totals", "1963", "O", "1889", "0", "o"])]
    >>> " ".join(w.text for w in _zeros_in_figures(row))
    'Totals 1963 0 1889 0 0'
    >>> " ".join(w.text for w in _zeros_in_figures(row[:3] + [replace(row[3], text="Road")]))
    'Totals 1963 O Road'
    """
    out = list(row)
    for n, word in enumerate(row):
        if word.text not in ("O", "o") or n == 0:
            continue
        before = _FIGURE.fullmatch(out[n - 1].text)
        after = n + 1 == len(row) or _FIGURE.fullmatch(row[n + 1].text)
        if before and after:
            out[n] = replace(word, text="0")
    return out


def ocr_layout(ocr: OcrPage, scan: ScanSettings = DEFAULT_SCAN) -> PageLayout:
    """The page model of an OCR'd page: its rows as lines, the ruled tables its grid lines
    draw (:func:`~ragdash.ingestion.scan_grid.grid_tables`) and the column-aligned tables
    found in the other lines, with the OCR words kept in :attr:`PageLayout.ocr`. A ``|``
    in OCR text is a rule or a speck, not a cell separator, so no table is read from
    pipes."""
    lines = words_to_lines(ocr.words, scan)
    ruled = grid_tables(ocr.words, ocr.rules, lines, scan)
    taken = {i for table in ruled for i in table.lines}
    aligned = aligned_tables(lines, taken, ocr.height)
    tables = sorted([*ruled, *aligned], key=lambda t: (t.bbox[1], t.bbox[0]))
    return PageLayout(ocr.page, tuple(lines), tuple(tables), ocr.width, ocr.height, (), ocr)
