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

import functools
import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from rapidfuzz import fuzz

from ragdash.ingestion.pdf_layout import (
    ANCHOR_TOLERANCE,
    DEFAULT_LAYOUT,
    LayoutSettings,
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

#: The furniture thresholds under their module names; each is a field of
#: :class:`~ragdash.ingestion.pdf_layout.LayoutSettings`, which says what it decides, and
#: :func:`find_furniture` takes other settings.
WINDOW = DEFAULT_LAYOUT.window
SAME_PLACE = DEFAULT_LAYOUT.same_place
MARGIN_SHARE = DEFAULT_LAYOUT.margin_share
BAND_SHARE = DEFAULT_LAYOUT.band_share
NEAR_SAME = DEFAULT_LAYOUT.near_same
NEAR_LETTERS = DEFAULT_LAYOUT.near_letters
NEAR_PLACE = DEFAULT_LAYOUT.near_place
NEAR_RUN_SHARE = DEFAULT_LAYOUT.near_run_share

_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^[\s\-–—]*(page\s*)?([a-z]{0,2}[\-–.]?\d+|[ivxlc]+)(\s*(of|/|de|sur)\s*\d+)?[\s\-–—]*$",
    re.IGNORECASE,
)


def _key(text: str) -> str:
    return " ".join(_DIGITS.sub("#", text.lower()).split())


def _shares_a_run(key: str, other: str, settings: LayoutSettings = DEFAULT_LAYOUT) -> bool:
    """``key`` and ``other`` have one unbroken run in common that holds
    :data:`NEAR_LETTERS` letters and :data:`NEAR_RUN_SHARE` of each of them.

    >>> _shares_a_run("highlights from pirls # ap > ndix a", "highlights from pirls # : append a")
    True
    >>> _shares_a_run("highlights from pirls #", "appendix a: highlights of the national study")
    False
    """
    found = SequenceMatcher(None, key, other, autojunk=False).find_longest_match()
    run = key[found.a : found.a + found.size]
    return _letters(run) >= settings.near_letters and found.size >= settings.near_run_share * max(
        len(key), len(other)
    )


@functools.lru_cache(maxsize=1 << 16)
def _read_alike(key: str, other: str, settings: LayoutSettings = DEFAULT_LAYOUT) -> bool:
    """``key`` and ``other`` are the same line read a little differently: a
    :data:`NEAR_SAME` similarity, or a long run in common (:func:`_shares_a_run`).

    Lengths too far apart for either are refused before any comparison (the similarity is
    at most ``200 * shorter / (both lengths)``, the run at most the shorter), and answers
    are remembered: the stress test segments the same pages once per faulted variant.

    >>> _read_alike("highlights from pirls # ap > ndix a", "highlights from pirls # : append a")
    True
    >>> _read_alike("page", "annual report of the board of directors")
    False
    """
    short, long_ = sorted((len(key), len(other)))
    if (
        200 * short >= settings.near_same * (short + long_)
        and fuzz.ratio(key, other, score_cutoff=settings.near_same) >= settings.near_same
    ):
        return True
    return short >= settings.near_run_share * long_ and _shares_a_run(key, other, settings)


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


def find_furniture(
    layouts: Sequence[PageLayout], settings: LayoutSettings = DEFAULT_LAYOUT
) -> dict[int, frozenset[int]]:
    """For each page number, the indexes of its lines that are page furniture, by the
    furniture thresholds of ``settings`` (:class:`~ragdash.ingestion.pdf_layout.LayoutSettings`)."""
    places: list[dict[str, list[tuple[float, float]]]] = []
    for layout in layouts:
        keyed: dict[str, list[tuple[float, float]]] = {}
        for line in layout.lines:
            place = (line.top, layout.height - line.bottom)
            keyed.setdefault(_key(line.text), []).append(place)
            if _letters(line.text) < settings.furniture_letters:
                keyed.setdefault(f"={line.text.strip()}", []).append(place)
        places.append(keyed)
    result: dict[int, frozenset[int]] = {}
    for n, layout in enumerate(layouts):
        owner = {i: table for table in layout.tables if not table.weak for i in table.lines}
        in_table = set(owner)
        found: set[int] = set()
        band = settings.margin_share * layout.height
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
            if _repeated(layouts, places, n, line, settings):
                found.add(i)
        for order in (held, held[::-1]):  # from the top down, then from the bottom up
            for i in order:
                if i not in found and _in_block(layout.lines, i, found) and _repeated(
                    layouts, places, n, layout.lines[i], settings
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
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> bool:
    """The line sits in the top or bottom band of page ``n`` and the same line (digits
    ignored) sits in the same band of a nearby page."""
    layout = layouts[n]
    band = settings.band_share
    in_band = line.top < band * layout.height or line.bottom > (1 - band) * (
        layout.height
    )
    if not in_band:
        return False
    if _letters(line.text) >= settings.furniture_letters:
        key = _key(line.text)
    elif len(line.text.strip()) >= settings.furniture_letters:
        key = f"={line.text.strip()}"
    else:
        return False
    below = layout.height - line.bottom
    window, same, near = settings.window, settings.same_place, settings.near_place
    for m in range(max(0, n - window), min(len(layouts), n + window + 1)):
        if m == n or layouts[m].page - layout.page not in range(-window, window + 1):
            continue
        edge = band * layouts[m].height
        if any(
            abs(top - line.top) <= same
            or abs(bottom - below) <= same
            or (top < edge) == (line.top < edge) and min(top, bottom) < edge
            for top, bottom in places[m].get(key, ())
        ):
            return True
        if _letters(key) >= settings.near_letters and not is_caption(line.text) and any(
            (abs(top - line.top) <= near or abs(bottom - below) <= near)
            and _read_alike(key, other, settings)
            for other, spots in places[m].items() if not other.startswith("=")
            for top, bottom in spots
        ):  # fmt: skip
            return True  # the same line read a little differently (OCR): "2.3.09", "Page"
    return False
