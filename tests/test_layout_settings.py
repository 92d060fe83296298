"""The thresholds of table finding, joins, furniture and the scan passes live in two frozen
settings dataclasses (issue 44): a bad value is refused with a message naming the field
and the value, and a changed setting changes what the public entry points do."""

from __future__ import annotations

import numpy as np
import pytest
from pdf_factory import drawn_pdf, furniture, table_items

from ragdash.errors import SettingsError
from ragdash.ingestion.furniture import find_furniture
from ragdash.ingestion.ingest import read_pdf
from ragdash.ingestion.joins import join_tables
from ragdash.ingestion.ocr_prep import remove_specks
from ragdash.ingestion.pdf_layout import DEFAULT_LAYOUT, LayoutSettings, Line, PageLayout
from ragdash.ingestion.scan.figures import separators_like_the_column
from ragdash.ingestion.scan.lines import words_to_lines
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings
from ragdash.ingestion.scan.words import OcrWord


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"column_tolerance": -1}, "layout setting column_tolerance=-1 is outside 0–1000 (points)"),
        ({"window": 1.5}, "layout setting window=1.5 is not a whole number"),
        ({"same_text": "0.6"}, "layout setting same_text='0.6' is not a number"),
        ({"near_place": True}, "layout setting near_place=True is not a number"),
        ({"width_ratio_high": 0.5}, "layout setting width_ratio_high=0.5 is outside 1–100"),
    ],
)
def test_a_bad_layout_setting_is_refused_naming_the_field_and_the_value(kwargs, message):
    with pytest.raises(SettingsError) as caught:
        LayoutSettings(**kwargs)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"binary_level": 300}, "scan setting binary_level=300 is outside 1–254 (a grey level)"),
        ({"row_lookback": 2.5}, "scan setting row_lookback=2.5 is not a whole number"),
        ({"lone_max_width": -0.5}, "scan setting lone_max_width=-0.5 is outside 0–100"),
        ({"reread_psm": 14}, "scan setting reread_psm=14 is outside 0–13"),
    ],
)
def test_a_bad_scan_setting_is_refused_naming_the_field_and_the_value(kwargs, message):
    with pytest.raises(SettingsError) as caught:
        ScanSettings(**kwargs)
    assert str(caught.value).startswith(message)


def test_the_defaults_are_the_values_the_modules_used_inline():
    """The module names read the one default (the refactor changed no value)."""
    from ragdash.ingestion import furniture as furniture_module
    from ragdash.ingestion import joins, pdf_layout

    assert (pdf_layout.COLUMN_GAP, pdf_layout.ANCHOR_TOLERANCE) == (0.8, 6.0)
    assert (joins.COLUMN_TOLERANCE, joins.WIDTH_RATIO, joins.NOTE_WORDS) == (8.0, (0.8, 1.25), 20)
    assert (furniture_module.NEAR_PLACE, furniture_module.WINDOW) == (30.0, 2)
    assert LayoutSettings() == DEFAULT_LAYOUT
    assert ScanSettings() == DEFAULT_SCAN


COLUMNS = [72, 230, 310, 390]


def _rows(start: int, count: int) -> list[list[str]]:
    return [[f"Region-{i:03d}", f"{1000 + 37 * i:,}", str(11 * i % 97), f"{i % 50}.5%"]
            for i in range(start, start + count)]  # fmt: skip


def test_the_column_tolerance_decides_whether_fragments_set_a_few_points_apart_join():
    """Page 2's second and third columns start 6 pt right of page 1's: within the default
    column tolerance (8 pt) the fragments are one table; with a tolerance of 2 pt they
    are two (the columns differ)."""
    pages = []
    for number, (rows, columns) in enumerate(
        [(_rows(0, 45), COLUMNS), (_rows(45, 20), [72, 236, 316, 390])], start=1
    ):
        items = furniture(number, 2)
        body, _ = table_items(rows, columns, 70.0)
        pages.append(items + body)
    layouts = read_pdf(drawn_pdf(pages)).layouts
    marks = find_furniture(layouts)

    tables, decisions = join_tables(layouts, marks)
    assert [d.joined for d in decisions] == [True]
    assert len(tables) == 1

    tables, decisions = join_tables(layouts, marks, LayoutSettings(column_tolerance=2.0))
    assert [d.joined for d in decisions] == [False]
    assert "columns differ" in decisions[0].reason
    assert len(tables) == 2


def test_the_near_place_tolerance_decides_whether_a_legend_lying_lower_is_furniture():
    """A running legend read a little differently on each scanned sheet, 49, 61 and 74 pt
    from the top: within the default 30 pt it is furniture on every page; with
    ``near_place`` at 4 pt (the exact-place tolerance) the sheets lie too far apart."""

    def layout(number: int, legend: str, top: float) -> PageLayout:
        lines = (
            Line(legend, 72, top, 300, top + 10, ((72, 300, legend),)),
            Line("Body text of the page", 72, 300, 300, 310, ((72, 300, "Body text"),)),
        )
        return PageLayout(number, lines, (), 612, 792)

    pages = [
        layout(1, "Human resources $=0 to 50000$", 49),
        layout(2, "Human resources $=0to50000$", 61),
        layout(3, "Œ) Human resources $=0 to 50000$", 74),
    ]
    assert all(0 in found for found in find_furniture(pages).values())
    strict = find_furniture(pages, LayoutSettings(near_place=4.0))
    assert 0 not in strict[3]


def test_the_speck_size_setting_decides_what_dust_is_removed():
    """A blot of 3 by 3 pixels at 200 dpi (about a full stop) stays by default and is
    removed as dust when ``speck_size`` is 1.5 pt."""
    page = np.full((60, 60), 255, np.uint8)
    page[30:33, 30:33] = 0
    assert int(remove_specks(page, 200 / 72)[31, 31]) == 0
    assert int(remove_specks(page, 200 / 72, ScanSettings(speck_size=1.5))[31, 31]) == 255


def test_the_separator_reach_decides_whether_a_figure_cut_at_its_comma_is_rejoined():
    col = [OcrWord(t, 48, 10 * n, 70, 10 * n + 6, 95.0, 1, n)
           for n, t in enumerate(["13,397", "12,998", "13,051"])]  # fmt: skip
    cut = [OcrWord("12", 50, 40, 56, 46, 90.0, 1, 4), OcrWord("530", 58, 40, 70, 46, 90.0, 1, 4)]
    assert [w.text for w in separators_like_the_column(col + cut)][-1] == "12,530"
    near = ScanSettings(separator_reach=0.1)  # the pieces are 2 pt apart, a third of a height
    assert [w.text for w in separators_like_the_column(col + cut, near)][-2:] == ["12", "530"]


def test_the_segment_gap_decides_where_an_ocr_row_is_cut_into_cells():
    """Two words 9 pt apart on a row 10 pt high: one cell at the default (a gap wider than
    0.8 × 1.25 text heights cuts), two cells when ``segment_gap`` is 1.0 (0.8 heights)."""
    words = [OcrWord("Total", 10, 0, 40, 10, 95.0, 1, 1),
             OcrWord("1,204", 49, 0, 77, 10, 95.0, 1, 1)]  # fmt: skip
    (line,) = words_to_lines(words)
    assert len(line.segments) == 1
    (line,) = words_to_lines(words, ScanSettings(segment_gap=1.0))
    assert len(line.segments) == 2
