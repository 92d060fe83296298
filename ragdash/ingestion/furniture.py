"""Page furniture: running headers, footers and page numbers.

A line is furniture when it sits in the top or bottom band of the page and the same line
(digits ignored, so page numbers may vary) sits in the same band of a nearby page — at the
same height, measured from the top or from the bottom so that pages of different sizes
compare, or moved a little — or when it is a bare page number ("4", "- 34 -",
"Page 1 of 151", "A-6") in the top or bottom margin. Left and right positions are ignored:
facing pages mirror their running headers.

Lines inside a detected table are furniture only in the page margin and only if they do
not line up with the table's columns (a table's first row, or its column header, sits at
the same height on every page; a running header swallowed by a table does not align).
Furniture stays in the page's text; the table join skips it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from rapidfuzz import fuzz

from ragdash.ingestion.pdf_layout import (
    ANCHOR_TOLERANCE,
    Line,
    PageLayout,
    TableRegion,
    is_caption,
)

__all__ = [
    "BAND_SHARE",
    "MARGIN_SHARE",
    "NEAR_PLACE",
    "NEAR_RUN_SHARE",
    "SAME_PLACE",
    "WINDOW",
    "find_furniture",
    "is_page_number",
]

#: Pages on either side compared with each page.
WINDOW = 2
#: Two lines are at the same place if their tops (or bottoms, from the page bottom) are
#: this close, in points.
SAME_PLACE = 4.0
#: The top and bottom margins where a bare page number counts as furniture.
MARGIN_SHARE = 0.12
#: The top and bottom bands where a line repeated on a nearby page counts as furniture
#: wherever it sits in the band (running headers move a little between page styles).
BAND_SHARE = 0.2

#: A running line read a little differently on another page (OCR noise: ``BMFOR_`` and
#: ``BMFOR__``, a page number dropped, a logo read as ``Œ)``) still repeats when at least
#: this similar (0–100), with this many letters, and within :data:`NEAR_PLACE` points of
#: where it sits on the other page (a scanned sheet lies a little higher or lower on the
#: glass each time: a legend at 49, 61 and 74 pt on three pages of one scan).
NEAR_SAME = 90.0
NEAR_LETTERS = 12
NEAR_PLACE = 30.0
#: ... or when one unbroken run of it, with :data:`NEAR_LETTERS` letters or more, is this
#: share of it or more: a running header beside a logo that OCR reads differently on every
#: page (``HIGHLIGHTS FROM PIRLS 2011 : APPEND A``, ``… 2011 AP > NDIX A``).
NEAR_RUN_SHARE = 0.6

_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^[\s\-–—]*(page\s*)?([a-z]{0,2}[\-–.]?\d+|[ivxlc]+)(\s*(of|/|de|sur)\s*\d+)?[\s\-–—]*$",
    re.IGNORECASE,
)


def _key(text: str) -> str:
    return " ".join(_DIGITS.sub("#", text.lower()).split())


def _shares_a_run(key: str, other: str) -> bool:
    """``key`` and ``other`` have one unbroken run in common that holds
    :data:`NEAR_LETTERS` letters and :data:`NEAR_RUN_SHARE` of each of them.

    >>> _shares_a_run("highlights from pirls # ap > ndix a", "highlights from pirls # : append a")
    True
    >>> _shares_a_run("highlights from pirls #", "appendix a: highlights of the national study")
    False
    """
    found = SequenceMatcher(None, key, other, autojunk=False).find_longest_match()
    run = key[found.a : found.a + found.size]
    return _letters(run) >= NEAR_LETTERS and found.size >= NEAR_RUN_SHARE * max(
        len(key), len(other)
    )


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


def is_page_number(text: str) -> bool:
    """A bare page number or ``Page N of M``."""
    return bool(_PAGE_NUMBER.match(text.strip()))


def _in_columns(line: Line, table: TableRegion) -> bool:
    """At least half of the line's pieces start where the table's columns start."""
    if not table.anchors or not line.segments:
        return True
    left = table.bbox[0]
    hits = sum(
        any(abs(seg[0] - left - anchor) <= ANCHOR_TOLERANCE for anchor in table.anchors)
        for seg in line.segments
    )
    return hits * 2 >= len(line.segments)


def find_furniture(layouts: Sequence[PageLayout]) -> dict[int, frozenset[int]]:
    """For each page number, the indexes of its lines that are page furniture."""
    places: list[dict[str, list[tuple[float, float]]]] = []
    for layout in layouts:
        keyed: dict[str, list[tuple[float, float]]] = {}
        for line in layout.lines:
            place = (line.top, layout.height - line.bottom)
            keyed.setdefault(_key(line.text), []).append(place)
            if _letters(line.text) < 3:
                keyed.setdefault(f"={line.text.strip()}", []).append(place)
        places.append(keyed)
    result: dict[int, frozenset[int]] = {}
    for n, layout in enumerate(layouts):
        owner = {i: table for table in layout.tables if not table.weak for i in table.lines}
        in_table = set(owner)
        found: set[int] = set()
        band = MARGIN_SHARE * layout.height
        held: list[int] = []  # column-aligned lines of a table, furniture only by their block
        for i, line in enumerate(layout.lines):
            in_margin = line.top < band or line.bottom > layout.height - band
            if i in in_table and not in_margin:
                continue
            if in_margin and is_page_number(line.text):
                found.add(i)
                continue
            if i in in_table and _in_columns(line, owner[i]):
                # a column header repeated on every page is the table's own — unless it
                # is one piece of text set in the block of a running header or footer
                if len(line.segments) == 1:
                    held.append(i)
                continue
            if _repeated(layouts, places, n, line):
                found.add(i)
        for order in (held, held[::-1]):  # from the top down, then from the bottom up
            for i in order:
                if i not in found and _in_block(layout.lines, i, found) and _repeated(
                    layouts, places, n, layout.lines[i]
                ):
                    found.add(i)
        result[layout.page] = frozenset(found)
    return result


def _in_block(lines: Sequence[Line], i: int, found: set[int]) -> bool:
    """Line ``i`` is set closer to a furniture line next to it (above, or below) than to
    the line on its other side: it belongs to that running header or footer block."""
    line = lines[i]
    above = line.top - lines[i - 1].bottom if i > 0 else float("inf")
    below = lines[i + 1].top - line.bottom if i + 1 < len(lines) else float("inf")
    return (i - 1 in found and above < below) or (i + 1 in found and below < above)


def _repeated(
    layouts: Sequence[PageLayout],
    places: list[dict[str, list[tuple[float, float]]]],
    n: int,
    line: Line,
) -> bool:
    """The line sits in the top or bottom band of page ``n`` and the same line (digits
    ignored) sits in the same band of a nearby page."""
    layout = layouts[n]
    in_band = line.top < BAND_SHARE * layout.height or line.bottom > (1 - BAND_SHARE) * (
        layout.height
    )
    if not in_band:
        return False
    if _letters(line.text) >= 3:
        key = _key(line.text)
    elif len(line.text.strip()) >= 3:
        key = f"={line.text.strip()}"
    else:
        return False
    below = layout.height - line.bottom
    for m in range(max(0, n - WINDOW), min(len(layouts), n + WINDOW + 1)):
        if m == n or layouts[m].page - layout.page not in range(-WINDOW, WINDOW + 1):
            continue
        edge = BAND_SHARE * layouts[m].height
        if any(
            abs(top - line.top) <= SAME_PLACE
            or abs(bottom - below) <= SAME_PLACE
            or (top < edge) == (line.top < edge) and min(top, bottom) < edge
            for top, bottom in places[m].get(key, ())
        ):
            return True
        if _letters(key) >= NEAR_LETTERS and not is_caption(line.text) and any(
            (abs(top - line.top) <= NEAR_PLACE or abs(bottom - below) <= NEAR_PLACE)
            and (fuzz.ratio(key, other) >= NEAR_SAME or _shares_a_run(key, other))
            for other, spots in places[m].items() if not other.startswith("=")
            for top, bottom in spots
        ):  # fmt: skip
            return True  # the same line read a little differently (OCR): "2.3.09", "Page"
    return False
