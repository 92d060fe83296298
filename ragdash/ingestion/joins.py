"""Joining table fragments across page breaks — only when nothing says they are different.

For each page break the last table of page N (fragment A) and the first table of page N+1
(fragment B) are compared, and the decision is recorded with its reason in words. They are
joined only if all of these hold:

* after A on page N there is nothing but page furniture (:mod:`ragdash.ingestion.furniture`)
  and continuation notes ("Continued on page 35"), or — when B's title says "Continued" — any
  short note ("See notes at end of table"), or a label-only row left outside A's ruled grid;
* before B on page N+1 there is nothing but furniture, continuation captions ("Table 2 —
  Continued", "(suite)", "(Cont. 1)") and a repeat of A's own caption or header;
* B does not open with a new header row (a repeated header is dropped from the joined text);
* B's columns agree with A's (their left edges, relative to the table's left edge so that a
  facing page's margin shift does not matter);
* B's rows do not restart (it does not start with the keys the table started with, and a
  numbered key does not go back).

A short label in the first column right above a headerless B ("Projected") is a group label
of its rows, not a caption. A first row of B with an empty key cell — or a label continued in
lower case — is the rest of A's last row, cut by the break: it is re-assembled into that row
rather than counted as a new one.

Two tables one above the other on a page are joined only when nothing but one or two short
group labels (or a gap under a header standing alone) parts them, the lower one has no
header, its columns line up and its rows do not restart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ragdash.ingestion.pdf_layout import (
    ANCHOR_TOLERANCE,
    CAPTION,
    DEFAULT_LAYOUT,
    MARKER,
    LayoutSettings,
    PageLayout,
    TableRegion,
    band_line,
    prose_columns,
)

__all__ = [
    "CAPTION_LINES",
    "COLUMN_AGREEMENT",
    "COLUMN_TOLERANCE",
    "JoinDecision",
    "JoinedTable",
    "LABEL_WORDS",
    "MAX_HEADER_ROWS",
    "MAX_LABELS",
    "NOTE_WORDS",
    "Row",
    "SAME_HEADER",
    "SAME_TEXT",
    "WIDTH_RATIO",
    "bands_of",
    "column_names",
    "decide",
    "decide_same_page",
    "has_marker",
    "is_row_label",
    "join_tables",
    "similarity",
    "title_lines",
    "without_furniture",
]

#: The join thresholds under their module names; each is a field of
#: :class:`~ragdash.ingestion.pdf_layout.LayoutSettings`, which says what it decides, and
#: :func:`join_tables` takes other settings.
SAME_TEXT = DEFAULT_LAYOUT.same_text
SAME_HEADER = DEFAULT_LAYOUT.same_header
COLUMN_TOLERANCE = DEFAULT_LAYOUT.column_tolerance
COLUMN_AGREEMENT = DEFAULT_LAYOUT.column_agreement
CAPTION_LINES = DEFAULT_LAYOUT.caption_lines
NOTE_WORDS = DEFAULT_LAYOUT.note_words
MAX_HEADER_ROWS = DEFAULT_LAYOUT.max_header_rows

_TOKEN = re.compile(r"\w+(?:[.,\-/]\w+)*")


_NUMBERED = re.compile(
    r"^\s*(?:table|tableau|tabla|tabelle|exhibit|schedule|annex|appendix|figure|表)\s*"
    r"([a-z]?\d+(?:[.\-–]\d+)*[a-z]?)\b",
    re.IGNORECASE,
)


def _table_number(text: str) -> str:
    """The number a caption gives its table ("Table 4." → "4", "Exhibit A-2" → "a-2"),
    or "" — two captions with different numbers name two tables, however alike."""
    found = _NUMBERED.match(text)
    return found.group(1).lower() if found else ""


def has_marker(text: str, settings: LayoutSettings = DEFAULT_LAYOUT) -> bool:
    """A short line saying the table goes on ("Continued", "(suite)", "(Cont. 2)")."""
    return bool(MARKER.search(text)) and len(text.split()) <= settings.note_words


def similarity(a: str, b: str) -> float:
    """Token overlap (Jaccard) of two texts, case-insensitive."""
    ta, tb = set(_TOKEN.findall(a.lower())), set(_TOKEN.findall(b.lower()))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


@dataclass(frozen=True)
class Row:
    """One data row of a joined table: how it reads, its cells, the page it starts on, and
    whether it is a group label ("Sex", "Projected") that heads the rows under it."""

    text: str
    cells: tuple[str, ...]
    page: int
    group: bool = False
    last_page: int = 0

    @property
    def pages(self) -> tuple[int, int]:
        return self.page, max(self.page, self.last_page)


@dataclass(frozen=True)
class JoinDecision:
    """What was decided at one page break (or between two tables of one page)."""

    page_a: int
    page_b: int
    joined: bool
    reason: str
    row_before: str
    row_after: str
    skipped: tuple[str, ...] = ()  # furniture and notes passed over
    group_label: str = ""  # a group label opening the next page's rows, kept as a row
    #: Row labels printed under A's ruled grid at the foot of its page, kept as a row.
    foot_labels: tuple[str, ...] = ()


@dataclass
class JoinedTable:
    """A table as the tables fix sees it: one or more fragments joined across pages."""

    header: tuple[str, ...]
    rows: list[Row]
    method: str
    columns: int
    page_start: int
    page_end: int
    caption: tuple[str, ...] = ()
    joins: list[JoinDecision] = field(default_factory=list)
    rows_joined: int = 0
    first_key: str = ""
    last_region: TableRegion | None = None
    last_context: tuple[str, ...] = ()
    regions: list[tuple[int, TableRegion]] = field(default_factory=list)  # (page, fragment)
    column_names: tuple[str, ...] = ()
    title: tuple[str, ...] = ()  # its caption ("Table 2. …"), carried into every chunk

    @property
    def bands(self) -> int:
        """How many side-by-side bands of the same columns the table is set in (a tax
        table printed in three bands across the page), 1 for an ordinary table."""
        return bands_of(self.column_names)

    @property
    def logical_columns(self) -> int:
        """Columns as a reader sees them: those of one band."""
        return self.columns // self.bands if self.columns % self.bands == 0 else self.columns

    @property
    def logical_rows(self) -> int:
        """Data rows as a reader sees them: each band's part of a line is a row of its own."""
        bands = self.bands
        if bands == 1:
            return len(self.rows)
        width = len(self.column_names) // bands
        return sum(
            any(c.strip() for c in row.cells[b * width : (b + 1) * width])
            for row in self.rows
            for b in range(bands)
        )

    @property
    def header_text(self) -> str:
        """The column names (a header of several lines merged column by column); of one
        band when the columns repeat side by side."""
        names = self.column_names
        if any(names):
            names = names[: len(names) // self.bands]
            return " | ".join(name for name in names if name)
        return " / ".join(h.replace("\n", " ") for h in self.header)


_DIGITS = re.compile(r"\d[\d,.]*")


def bands_of(names: Sequence[str]) -> int:
    """How many times a run of column names repeats side by side (digits ignored): 3 for
    ``At least | But less than | Single | At least | But less than | Single | …`` in three
    bands, 1 when the names do not repeat."""
    keys = [" ".join(_DIGITS.sub("", name).lower().split()) for name in names]
    count = len(keys)
    for width in range(2, count // 2 + 1):
        if count % width:
            continue
        first = keys[:width]
        if sum(bool(k) for k in first) * 2 > width and all(
            keys[i] == first[i % width] for i in range(count)
        ):
            return count // width
    return 1


def _is_group(cells: Sequence[str], width: int, settings: LayoutSettings = DEFAULT_LAYOUT) -> bool:
    filled = [c for c in cells if c.strip()]
    return width >= 2 and len(filled) == 1 and bool(cells) and bool(cells[0].strip()) and len(
        cells[0].split()
    ) <= settings.group_label_words and not any(ch.isdigit() for ch in cells[0])


def _rows(
    region: TableRegion, page: int, settings: LayoutSettings = DEFAULT_LAYOUT
) -> list[Row]:
    width = region.columns
    return [
        Row(text, tuple(cells), page, _is_group(cells, width, settings), page)
        for cells, text in zip(
            region.rows[region.header_rows :], region.row_text[region.header_rows :], strict=True
        )
    ]


def _main_line(row: Row) -> str:
    """The line of a row that holds its key (a record whose wrapped line sits above its
    main line reads from that line), else its first line."""
    lines = row.text.splitlines()
    key = "".join(_key(row).split())
    if key and len(lines) > 1:
        return next((x for x in lines if key in "".join(x.split())), lines[0])
    return lines[0] if lines else ""


def _key(row: Row) -> str:
    return row.cells[0].strip() if row.cells else ""


def _first_key(rows: Sequence[Row], count: int = 1) -> str:
    """The keys of the first ``count`` rows that hold a number (data rows, not titles or
    labels), joined with " / "."""
    keys = [
        _key(r) for r in rows if _key(r) and any(ch.isdigit() for c in r.cells for ch in c)
    ][:count]
    return " / ".join(keys)


def _restarts(table: JoinedTable, rows_b: Sequence[Row]) -> str:
    """The keys B starts with if they are the keys the table started with (two rows when
    both have two: one repeated category is no restart), else ""."""
    count = 2 if len(table.rows) > 3 and len(rows_b) > 1 else 1
    mine = _first_key(table.rows, count)
    theirs = _first_key(rows_b, count)
    return theirs if theirs and theirs == mine and len(table.rows) > 2 else ""


def _number(key: str) -> float | None:
    try:
        return float(key.replace(",", ""))
    except ValueError:
        return None


#: A repeated header may be set a little narrower or wider on the facing page (its margins
#: swap, the text block is not the same width): its columns are compared by their places
#: relative to the table's width, within this range of width ratios.
WIDTH_RATIO = DEFAULT_LAYOUT.width_ratio


def _columns_agree(
    a: Sequence[float], b: Sequence[float], scaled: bool = False,
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> bool:
    """The column starts of two fragments line up after one sideways shift — or, with
    ``scaled`` (B repeats A's header), after one shift and one stretch: the same columns in
    the same proportions of the table's width, as on a facing page set narrower.

    >>> _columns_agree([0, 158, 258, 368], [0, 142, 232, 331])
    False
    >>> _columns_agree([0, 158, 258, 368], [0, 142, 232, 331], scaled=True)
    True
    """
    if len(a) < 2 or len(b) < 2:
        return True
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    shifts = {0.0, *(y - x for x in small[:2] for y in large[:3])}
    best = max(
        sum(any(abs(x + s - y) <= settings.column_tolerance for y in large) for x in small)
        for s in shifts
    )
    if best >= settings.column_agreement * len(small):
        return True
    if not scaled:
        return False
    low, high = settings.width_ratio
    for x0 in small[:2]:
        for y0 in large[:3]:
            for x1 in small[-2:]:
                for y1 in large[-3:]:
                    if x1 <= x0 or y1 <= y0 or not low <= (y1 - y0) / (x1 - x0) <= high:
                        continue
                    ratio = (y1 - y0) / (x1 - x0)
                    hits = sum(
                        any(abs(y0 + (x - x0) * ratio - y) <= settings.column_tolerance
                            for y in large)
                        for x in small
                    )
                    if hits >= settings.column_agreement * len(small):
                        return True
    return False


def _columns_fit(
    table: Sequence[float], rows: Sequence[float], settings: LayoutSettings = DEFAULT_LAYOUT
) -> bool:
    """Every column start of a few loose rows is one of the table's (after one shift)."""
    if len(table) < 2 or len(rows) < min(settings.fit_rows, len(table)):
        return False  # a heading with a page number is no row of a wider table
    shifts = {0.0, *(t - r for r in rows[:1] for t in table)}
    return any(
        all(any(abs(r + s - t) <= settings.column_tolerance for t in table) for r in rows)
        for s in shifts
    )


def _span(region: TableRegion) -> tuple[int, int]:
    return (min(region.lines), max(region.lines)) if region.lines else (-1, -1)


def _content(
    layout: PageLayout, furniture: frozenset[int], indexes: Sequence[int]
) -> list[str]:
    """Text lines at ``indexes`` that are neither furniture, rotated margin text nor inside
    a table, and say something: a line with no letter or digit (a rule or speck of a scan
    read as ``=``, an ornament ``* * *``) is no caption and no text between fragments."""
    in_table = {i for t in layout.tables if not t.weak for i in t.lines}
    return [
        layout.lines[i].text
        for i in indexes
        if i not in furniture
        and i not in in_table
        and layout.lines[i].upright
        and any(ch.isalnum() for ch in layout.lines[i].text)
    ]


def _column_text(
    layout: PageLayout, furniture: frozenset[int], region: TableRegion, after: bool
) -> list[str] | None:
    """On a page set in prose columns (:func:`~ragdash.ingestion.pdf_layout.prose_columns`)
    with the table inside one of them: what a reader meets after the table (``after``) — the
    rest of its column, then the later columns — or before it — the earlier columns, then
    its column above it — each line read by its piece in a column (the prose beside the
    table is not after or before it). ``None`` when the page is not in prose columns or
    the table spans several of them."""
    columns = prose_columns(layout.lines)
    if not columns:
        return None
    edges = [*columns, float("inf")]
    inside = [
        k for k in range(len(columns))
        if edges[k] - ANCHOR_TOLERANCE <= region.bbox[0] < edges[k + 1] - ANCHOR_TOLERANCE
    ]
    if not inside or region.bbox[2] > edges[inside[0] + 1] + ANCHOR_TOLERANCE:
        return None
    own = inside[0]
    rows = set(region.lines)
    texts = []
    for k in range(len(columns)):
        if (after and k < own) or (not after and k > own):
            continue
        for i, line in enumerate(layout.lines):
            if i in furniture or not line.upright:
                continue
            piece = band_line(line, edges[k], edges[k + 1])
            if not any(ch.isalnum() for ch in piece.text):
                continue
            if k == own:
                if i in rows:
                    continue
                below = piece.top >= region.bbox[3] - 1
                above = piece.bottom <= region.bbox[1] + 1
                if not (below if after else above):
                    continue
            texts.append(piece.text)
    return texts


def _caption(
    layout: PageLayout, furniture: frozenset[int], region: TableRegion,
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> list[str]:
    first, _ = _span(region)
    above = _content(layout, furniture, range(0, max(first, 0)))
    extra = [region.title] if region.title else []
    return [*above[-settings.caption_lines:], *extra, *region.header]


def title_lines(
    layout: PageLayout, furniture: frozenset[int], region: TableRegion,
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> tuple[str, ...]:
    """The table's own caption: the lines right above it (no wide gap, at most three) when
    the first of them names a table ("Table 2. …", "Exhibit 3 …"), or its title row."""
    if region.title:
        return (region.title,)
    first, _ = _span(region)
    picked: list[int] = []
    below = layout.lines[first] if first >= 0 else None
    for i in range(first - 1, -1, -1):
        line = layout.lines[i]
        if below is None or below.top - line.bottom > settings.title_gap * line.height:
            break
        picked.insert(0, i)
        below = line
        if len(picked) == settings.title_lines or CAPTION.match(line.text):
            break
    while picked and not CAPTION.match(layout.lines[picked[0]].text):
        picked.pop(0)
    return tuple(layout.lines[i].text for i in picked)


_ENUMERATOR = re.compile(r"^\s*[(（]?[0-9一二三四五六七八九十ivxIVXa-zA-Z]{1,3}[.)、．）]\s*")


def is_row_label(text: str, settings: LayoutSettings = DEFAULT_LAYOUT) -> bool:
    """A label a row could hold: a few words (or one run of an unspaced script), no caption
    or continuation marker, and no figure once a leading enumerator ("1.", "（二）",
    "a)") is set aside.

    >>> is_row_label("1.重新计量设定受益计"), is_row_label("Total 1,204"), is_row_label("Table 3")
    (True, False, False)
    """
    words = text.split()
    bare = _ENUMERATOR.sub("", text)
    return (
        0 < len(words) <= settings.label_words
        and not any(ch.isdigit() for ch in bare)
        and not CAPTION.match(text)
        and not has_marker(text, settings)
    )


def _row_labels_below(
    layout: PageLayout, furniture: frozenset[int], region: TableRegion, after: Sequence[int],
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> tuple[int, ...]:
    """Label-only lines right under a ruled grid, at the foot of its page, that are its
    next row left outside the rules (pdfplumber's grid stops at the last ruled line): each
    directly under the one above (a gap under two line heights), starting in the grid's
    first column and ending before its second — no figure in a value column — and a row
    label, not a caption. At most :data:`MAX_LABELS`; anything else after them and the
    lines are text after the table, as before."""
    if region.method != "ruled" or len(region.anchors) < 2:
        return ()
    left, second = region.bbox[0], region.bbox[0] + region.anchors[1]
    picked: list[int] = []
    edge = region.bbox[3]
    rest = [
        i for i in after if i not in furniture and any(c.isalnum() for c in layout.lines[i].text)
    ]
    for i in rest:
        line = layout.lines[i]
        if has_marker(line.text, settings):
            break  # "Continued on next page" under the label: a note, judged as before
        if (
            len(picked) >= settings.max_labels
            or line.top - edge > 2 * line.height
            or abs(line.x0 - left) > 2 * settings.column_tolerance
            or line.x1 > second
            or not is_row_label(line.text.strip(), settings)
        ):
            return ()
        picked.append(i)
        edge = line.bottom
    return tuple(picked)


def _group_label_above(
    layout: PageLayout, furniture: frozenset[int], region: TableRegion,
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> str | None:
    """A short label line right above a headerless table, in its first column ("Projected",
    "Women"): a group label of the rows under it, not a caption."""
    first, _ = _span(region)
    if region.header_rows or region.title or first <= 0:
        return None
    above = [i for i in range(first) if i not in furniture and layout.lines[i].upright]
    if not above or above[-1] != first - 1:
        return None
    line = layout.lines[above[-1]]
    text = line.text.strip()
    in_key_column = abs(line.x0 - region.bbox[0]) <= 2 * settings.column_tolerance
    if len(region.anchors) >= 2:  # and ends before the second column: no figure beside it
        in_key_column = in_key_column and line.x1 <= region.bbox[0] + region.anchors[1]
    if (len(text.split()) <= settings.group_label_words and in_key_column
            and is_row_label(text, settings)):  # fmt: skip
        return text
    return None


def decide(
    table: JoinedTable,
    layout_a: PageLayout,
    furniture_a: frozenset[int],
    layout_b: PageLayout,
    furniture_b: frozenset[int],
    region_b: TableRegion,
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> JoinDecision:
    """Should ``region_b`` (the first table of ``layout_b``) continue ``table`` (whose last
    fragment is the last table of ``layout_a``)? The decision says why."""
    region_a = table.last_region
    assert region_a is not None
    rows_b = _rows(region_b, layout_b.page, settings)
    before = table.rows[-1].text.splitlines()[-1] if table.rows else ""
    after = _main_line(rows_b[0]) if rows_b else ""

    def no(reason: str) -> JoinDecision:
        return JoinDecision(layout_a.page, layout_b.page, False, reason, before, after)

    if not rows_b:
        return no("the next page's table has no data rows")
    _, last_a = _span(region_a)
    after_a = [  # a sub- or superscript set lower than the table's last row is in it
        i for i in range(last_a + 1, len(layout_a.lines))
        if layout_a.lines[i].top >= region_a.bbox[3] - 1
        or layout_a.lines[i].x1 < region_a.bbox[0] or layout_a.lines[i].x0 > region_a.bbox[2]
    ]
    foot = _row_labels_below(layout_a, furniture_a, region_a, after_a, settings)
    tail = _column_text(layout_a, furniture_a, region_a, after=True)
    if tail is None:
        tail = _content(layout_a, furniture_a, [i for i in after_a if i not in foot])
    else:
        foot = ()
    first_b, _ = _span(region_b)
    head = _column_text(layout_b, furniture_b, region_b, after=False)
    if head is None:
        head = _content(layout_b, furniture_b, range(0, max(first_b, 0)))
    # B under a "Continued" title vouches for the join: a short note closing A's page
    # ("See notes at end of table", "Suite page suivante") is then no text between
    context = [*table.last_context, *table.caption]
    numbers = {n for n in map(_table_number, context) if n}
    above_b = [line.text for line in layout_b.lines[: max(first_b, 0)]]  # furniture too:
    # a "—Continued" title repeated on every page is found as a running line
    vouched = any(
        has_marker(line, settings) and _table_number(line) in {"", *numbers}
        for line in [*above_b, *head]
    )
    for line in tail:
        note = vouched and len(line.split()) <= settings.note_words and not _table_number(line)
        if not has_marker(line, settings) and not note:
            return no(f"text after the table on p{layout_a.page}: {line[:80]!r}")
    label = _group_label_above(layout_b, furniture_b, region_b, settings)
    if label is not None:
        head = head[:-1]  # a group label ("Projected") opening the page's rows
    if region_b.title:
        head.append(region_b.title)
    for line in head:
        number = _table_number(line)
        if number and numbers and number not in numbers:
            return no(f"another table's caption sits between: {line[:80]!r}")
        if has_marker(line, settings):
            continue
        if any(similarity(line, seen) >= settings.same_text for seen in context):
            continue
        return no(f"a caption, title or text sits between: {line[:80]!r}")
    repeated = False
    if region_b.header and table.header:
        score = similarity(" ".join(region_b.header), " ".join(table.header))
        if score < settings.same_header:
            return no(f"p{layout_b.page} opens with a new header row: {region_b.header[0][:60]!r}")
        repeated = True
    if region_b.weak and not _columns_fit(region_a.anchors, region_b.anchors, settings):
        return no("the rows opening the page do not sit in the table's columns")
    drawn = len(region_a.edges) >= 3 and len(region_b.edges) >= 3  # two ruled grids:
    # their rules are their columns (a label's indentation moves no column)
    if not (
        _columns_agree(region_a.anchors, region_b.anchors, repeated, settings)
        or (drawn and _columns_agree(region_a.edges, region_b.edges, repeated, settings))
    ):
        return no(
            f"columns differ ({len(region_a.anchors)} vs {len(region_b.anchors)} column "
            "positions that do not line up)"
        )
    key_b = _first_key(rows_b)
    restart = _restarts(table, rows_b)
    if restart:
        return no(f"rows restart: {restart!r} again, as at the table's start")
    last_key = next((_key(r) for r in reversed(table.rows) if _key(r)), "")
    a_num, b_num = _number(last_key), _number(key_b)
    if a_num is not None and b_num is not None and b_num < a_num:
        return no(f"numbering goes back ({last_key} then {key_b})")
    skipped = [
        layout_a.lines[i].text for i in sorted(furniture_a) if i > last_a
    ] + [layout_b.lines[i].text for i in sorted(furniture_b) if i < first_b]
    parts = [f"{len(skipped)} furniture line(s)"] if skipped else []
    if any(has_marker(line, settings) for line in [*tail, *head]):
        parts.append("a continuation note")
    if region_b.header:
        parts.append("a repeated header (dropped)")
    between = f"only {' and '.join(parts)} between" if parts else "nothing between"
    reason = f"joined: {between}; columns agree"
    if label is not None:
        reason += f"; {label!r} opens the page as a group label"
    labels = tuple(layout_a.lines[i].text.strip() for i in foot)
    if labels:
        reason += f"; {', '.join(repr(x) for x in labels)} under the grid is its last row's label"
    return JoinDecision(
        layout_a.page, layout_b.page, True, reason, before, after, tuple(skipped), label or "",
        labels,
    )


def column_names(region: TableRegion) -> tuple[str, ...]:
    """Each column's name: its header cells, top to bottom, joined with spaces."""
    header = region.rows[: region.header_rows]
    if not header:
        return ()
    width = max(len(row) for row in header)
    return tuple(
        " ".join(row[i] for row in header if i < len(row) and row[i].strip())
        for i in range(width)
    )


#: Lines between two fragments on one page that may be group labels, and their length.
MAX_LABELS = DEFAULT_LAYOUT.max_labels
LABEL_WORDS = DEFAULT_LAYOUT.label_words


def decide_same_page(
    table: JoinedTable,
    region_a: TableRegion,
    region_b: TableRegion,
    layout: PageLayout,
    furniture: frozenset[int],
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> JoinDecision:
    """Two tables one above the other on a page are one table cut by group labels only if
    nothing but one or two short label lines sits between them, the lower one has no header
    of its own, its columns line up and its rows do not restart."""
    rows_b = _rows(region_b, layout.page, settings)
    before = table.rows[-1].text.splitlines()[-1] if table.rows else ""
    after = rows_b[0].text.splitlines()[0] if rows_b else ""

    def no(reason: str) -> JoinDecision:
        return JoinDecision(layout.page, layout.page, False, reason, before, after)

    if not rows_b or region_b.header_rows or region_a.method != region_b.method:
        return no("two tables on one page are kept apart (the second has its own header)")
    _, last_a = _span(region_a)
    first_b, _ = _span(region_b)
    between = _content(layout, furniture, range(last_a + 1, max(first_b, 0)))
    labels_ok = len(between) <= settings.max_labels and all(
        len(line.split()) <= settings.label_words and not CAPTION.match(line)
        and not has_marker(line, settings)
        for line in between
    )
    if not labels_ok:
        return no("two tables on one page are kept apart (text or a caption between)")
    if region_b.weak and not _columns_fit(region_a.anchors, region_b.anchors, settings):
        return no("the rows opening the page do not sit in the table's columns")
    if not _columns_agree(region_a.anchors, region_b.anchors, False, settings):
        return no("two tables on one page are kept apart (columns differ)")
    restart = _restarts(table, rows_b)
    if restart:
        return no(f"two tables on one page are kept apart (rows restart at {restart!r})")
    reason = "joined: one table cut only by group label(s) " + (
        ", ".join(repr(x) for x in between) if between else "(a wide gap)"
    )
    return JoinDecision(layout.page, layout.page, True, reason, before, after, tuple(between))


def _start(
    region: TableRegion, layout: PageLayout, furniture: frozenset[int],
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> JoinedTable:
    rows = _rows(region, layout.page, settings)
    caption = tuple(_caption(layout, furniture, region, settings))
    return JoinedTable(
        header=region.header,
        rows=rows,
        method=region.method,
        columns=region.columns,
        page_start=layout.page,
        page_end=layout.page,
        caption=caption,
        first_key=_first_key(rows),
        last_region=region,
        last_context=caption,
        regions=[(layout.page, region)],
        column_names=column_names(region),
        title=title_lines(layout, furniture, region, settings),
    )


def _glue_text(tail: str, head: str, width: int) -> str:
    """A text-table row cut by the break, glued back: ``Basic |`` + ``10 Go | 5 EUR``."""
    from ragdash.ingestion.tables import _join_cut_row

    glued = _join_cut_row(tail, head, width)
    return glued if glued is not None else f"{tail}\n{head}"


def _cjk(ch: str) -> bool:
    return "\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af"


def _glue_cell(a: str, b: str) -> str:
    """Two halves of one cell: joined with a space, or none between CJK characters."""
    if not a or not b:
        return (a or b).strip()
    return f"{a}{b}" if _cjk(a[-1]) and _cjk(b[0]) else f"{a} {b}"


def _label_continues(last: Row, first: Row) -> bool:
    """A row label cut by the break ("1.重新计量设定受益计" / "划净负债或净资产的变动"): the
    last row of the page is a label alone (no numbers, only its first cell) and the next
    page's first label goes on with a lower-case or CJK character, not a new label."""
    if not last.cells or not first.cells or not first.cells[0] or not last.cells[0]:
        return False
    alone = not any(c.strip() for c in last.cells[1:])
    numbers = any(ch.isdigit() for ch in last.cells[0][-3:])
    head = first.cells[0][0]
    tail = last.cells[0][-1]
    goes_on = head.islower() or (_cjk(head) and _cjk(tail))
    return alone and not numbers and goes_on and not last.text.rstrip().endswith((".", ":"))


def _norm(text: str) -> str:
    return " ".join(text.replace("|", " ").split()).lower()


def _drop_repeated_header(
    table: JoinedTable, rows: list[Row], settings: LayoutSettings = DEFAULT_LAYOUT
) -> list[Row]:
    """B's leading rows that repeat the table's header (or its first row, when that is a
    header taken for data: column names that are years) — layout, not data."""
    opening = [r for r in table.rows if r.page == table.page_start]
    same = 0
    while (
        same < min(len(opening), len(rows) - 1, settings.max_header_rows)
        and _norm(rows[same].text) == _norm(opening[same].text)
        and not (same == 0 and not table.header)  # handled below: a header taken for data
    ):
        same += 1
    if same:
        # the rows opening both fragments are the same: the header's further lines (a
        # header of several lines, of which only the first was told from the data)
        table.header = (*table.header, *(r.text for r in table.rows[:same]))
        table.rows = table.rows[same:]
        rows = rows[same:]
    seen = {_norm(line) for h in table.header for line in (h, *h.splitlines())}
    if table.rows and not table.header:
        seen.add(_norm(table.rows[0].text))

    def repeated(row: Row) -> bool:
        lines = [_norm(x) for x in row.text.splitlines() if x.strip()]
        return _norm(row.text) in seen or bool(lines) and all(x in seen for x in lines)

    while rows and repeated(rows[0]) and len(rows) > 1:
        if not table.header and table.rows and _norm(rows[0].text) == _norm(table.rows[0].text):
            table.header = (table.rows[0].text,)  # repeated on each page: it is the header
            table.column_names = table.rows[0].cells
            table.rows = table.rows[1:]
        rows = rows[1:]
    return rows


def _append(table: JoinedTable, region: TableRegion, layout: PageLayout,
            furniture: frozenset[int], decision: JoinDecision,
            settings: LayoutSettings = DEFAULT_LAYOUT) -> None:
    rows = _rows(region, layout.page, settings)
    if decision.page_a != decision.page_b:
        rows = _drop_repeated_header(table, rows, settings)
    for label in decision.foot_labels:  # the row begun under the grid at A's foot
        cells = (label, *[""] * max(table.columns - 1, 0))
        table.rows.append(Row(label, cells, decision.page_a, False, decision.page_a))
    if rows and table.rows and decision.page_a != decision.page_b and not decision.group_label:
        last, first = table.rows[-1], rows[0]
        cut = False
        if region.method == "text":
            head_cells = [c for c in first.cells if c]
            tail_cells = [c for c in last.cells if c]
            cut = (len(tail_cells) < table.columns and len(head_cells) < table.columns) or (
                bool(first.cells) and not first.cells[0]
            )
            text = _glue_text(last.text, first.text, table.columns) if cut else ""
        else:
            cut = bool(first.cells) and not first.cells[0].strip() and bool(_key(last))
            cut = cut or _label_continues(last, first)
            text = f"{last.text}\n{first.text}"
        if cut:
            cells = tuple(
                _glue_cell(*pair)
                for pair in zip(
                    [*last.cells, *[""] * (len(first.cells) - len(last.cells))],
                    [*first.cells, *[""] * (len(last.cells) - len(first.cells))],
                    strict=True,
                )
            )
            if region.method == "ruled":  # pdfplumber's convention: one row, cells merged
                # — and the two halves as the pages' lines read, so a row quoted from
                # either page is still found
                parts = [" | ".join(cells), *last.text.splitlines(), *first.text.splitlines()]
                text = "\n".join(dict.fromkeys(p for p in parts if p.strip()))
            table.rows[-1] = Row(text, cells, last.page, last.group, layout.page)
            rows = rows[1:]
            table.rows_joined += 1
    table.rows.extend(rows)
    table.page_end = layout.page
    table.joins.append(decision)
    table.last_region = region
    table.last_context = tuple(_caption(layout, furniture, region, settings))
    table.regions.append((layout.page, region))


def without_furniture(
    region: TableRegion, layout: PageLayout, marks: frozenset[int]
) -> TableRegion:
    """A table with the page furniture it swallowed taken out (a footer right under the last
    row, a running header right over the column header): those lines stay page text."""
    caught = [i for i in region.lines if i in marks]
    if not caught or region.method == "ruled":
        return region
    furniture_text = {layout.lines[i].text for i in caught}
    rows, texts, header = [], [], region.header_rows
    for n, (cells, text) in enumerate(zip(region.rows, region.row_text, strict=True)):
        kept = [line for line in text.split("\n") if line not in furniture_text]
        if not kept:
            header -= n < region.header_rows
            continue
        rows.append(cells)
        texts.append("\n".join(kept))
    lines = tuple(i for i in region.lines if i not in marks)
    return replace(
        region, rows=tuple(rows), row_text=tuple(texts), header_rows=max(header, 0), lines=lines
    )


def join_tables(
    layouts: Sequence[PageLayout], furniture: dict[int, frozenset[int]],
    settings: LayoutSettings = DEFAULT_LAYOUT,
) -> tuple[list[JoinedTable], list[JoinDecision]]:
    """Every table of the document, fragments joined across page breaks where they continue
    each other, and every decision taken at a page break (joined or not), by the join
    thresholds of ``settings`` (:class:`~ragdash.ingestion.pdf_layout.LayoutSettings`)."""
    layouts = [
        replace(
            layout,
            tables=tuple(
                t
                for t in (
                    without_furniture(t, layout, furniture.get(layout.page, frozenset()))
                    for t in layout.tables
                )
                if t.lines and t.rows
            ),
        )
        for layout in layouts
    ]
    tables: list[JoinedTable] = []
    decisions: list[JoinDecision] = []
    previous: PageLayout | None = None
    for layout in layouts:
        marks = furniture.get(layout.page, frozenset())
        regions = sorted(layout.tables, key=lambda t: _span(t)[0])
        regions = [r for n, r in enumerate(regions) if n == 0 or not r.weak]
        if regions and regions[0].weak:
            # one or two rows opening the page: a table only as the rest of the last one
            weak = regions.pop(0)
            candidate = tables[-1] if tables else None
            if (
                not any(i in marks for i in weak.lines)  # a running header, not rows
                and candidate is not None
                and previous is not None
                and candidate.page_end == previous.page == layout.page - 1
                and candidate.last_region is _last(previous)
            ):
                decision = decide(
                    candidate, previous, furniture.get(previous.page, frozenset()),
                    layout, marks, weak, settings,
                )
                if decision.joined:
                    decisions.append(decision)
                    _append(candidate, weak, layout, marks, decision, settings)
        for index, region in enumerate(regions):
            candidate = tables[-1] if tables else None
            if (
                index == 0
                and candidate is not None
                and previous is not None
                and candidate.page_end == previous.page
                and previous.page == layout.page - 1
                and candidate.last_region is not None
                and candidate.last_region is _last(previous)
            ):
                decision = decide(
                    candidate, previous, furniture.get(previous.page, frozenset()),
                    layout, marks, region, settings,
                )
                decisions.append(decision)
                if decision.joined:
                    if decision.group_label:
                        candidate.rows.append(
                            Row(decision.group_label, (decision.group_label,), layout.page, True,
                                layout.page)
                        )
                    _append(candidate, region, layout, marks, decision, settings)
                    continue
            elif index > 0 and tables:
                decision = decide_same_page(
                    tables[-1], regions[index - 1], region, layout, marks, settings
                )
                decisions.append(decision)
                if decision.joined and _words_only(tables[-1]):
                    # the upper part was the header, parted from its rows by a gap
                    head = tables[-1]
                    head.header = (*head.header, *(r.text for r in head.rows))
                    head.column_names = ()  # its columns are not the rows' columns
                    head.columns = region.columns
                    head.rows = []
                if decision.joined:
                    labels = decision.skipped
                    for label in labels:  # the labels between become group-label rows
                        tables[-1].rows.append(Row(label, (label,), layout.page, True, layout.page))
                    _append(tables[-1], region, layout, marks, decision, settings)
                    continue
            tables.append(_start(region, layout, marks, settings))
        previous = layout
    return tables, decisions


def _words_only(table: JoinedTable) -> bool:
    """A fragment with no digit in any row: a header standing alone."""
    return len(table.regions) == 1 and not any(
        ch.isdigit() for row in table.rows for ch in row.text
    )


def _last(layout: PageLayout) -> TableRegion | None:
    regions = sorted(layout.tables, key=lambda t: _span(t)[0])
    return regions[-1] if regions else None
