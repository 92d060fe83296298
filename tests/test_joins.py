"""Joining table fragments across page breaks on PDFs drawn like real ones: page furniture
between the fragments, facing pages shifted sideways, captions, new headers, other column
shapes, restarting rows, rows cut mid-cell, group labels, multi-column prose, margin text,
letter-spaced text — and the proof check: no case that passes with the tables fix off
fails with it on."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pdf_factory import (
    Rows,
    banded_table_pdf,
    drawn_pdf,
    furniture,
    letter_spaced_pdf,
    table_items,
    worksheet_beside_prose_pdf,
    wrapped_records_pdf,
)

from ragdash.case import Case
from ragdash.checks.proof import check_case
from ragdash.ingestion.documents import Corpus, Document
from ragdash.ingestion.furniture import find_furniture
from ragdash.ingestion.ingest import read_pdf
from ragdash.ingestion.inspection import as_document, inspect_pdf
from ragdash.ingestion.joins import has_marker, join_tables, similarity
from ragdash.ingestion.scans import OcrPage, OcrWord, ocr_layout
from ragdash.ingestion.segmentation import (
    SEAM_ROWS,
    TABLE_CHUNK_ROWS,
    document_passages,
    document_tables,
)
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import Fixes

COLUMNS = [72, 230, 310, 390]
HEADER = ["Region", "Shipments", "Returns", "Share"]
REGIONS = ["Aland", "Brabant", "Carinthia", "Dalarna", "Esbjerg", "Friesland", "Gotland"]


def line_of(i: int) -> str:
    """Row ``i`` of :func:`stats_rows` as the page's text line gives it."""
    return " ".join(stats_rows(i, 1)[0])


def stats_rows(start: int, count: int) -> Rows:
    return [
        [f"{REGIONS[i % 7]}-{i:03d}", f"{1000 + 37 * i:,}", str(11 * i % 97), f"{i % 50}.5%"]
        for i in range(start, start + count)
    ]


def page(
    number: int,
    pages: int,
    rows: Rows,
    caption: str = "",
    header: list[str] | None = None,
    shift: float = 0,
    after: list[str] = (),
    columns: list[float] = COLUMNS,
) -> list:
    items = furniture(number, pages, shift)
    top = 70.0
    if caption:
        items.append((72 + shift, top, caption))
        top += 24
    if header:
        head, top = table_items([header], columns, top, shift)
        items += head
        top += 4
    body, top = table_items(rows, columns, top, shift)
    items += body
    for line in after:
        top += 20
        items.append((72 + shift, top, line))
    return items


def doc_of(data: bytes, doc_id: str = "doc") -> Document:
    return as_document(read_pdf(data), doc_id)


@pytest.fixture(scope="module")
def facing() -> bytes:
    """One table over three pages: running header and page-number footer on every page,
    even pages shifted 30 pt left, the header repeated under a '(continued)' caption on
    page 2 and not at all on page 3, a source note and prose after it."""
    return drawn_pdf(
        [
            page(1, 3, stats_rows(0, 45), "Table 1. Shipments by region", HEADER),
            page(2, 3, stats_rows(45, 45), "Table 1. Shipments by region (continued)", HEADER,
                 shift=-30),
            page(3, 3, stats_rows(90, 10), after=["Source: internal logistics data.",
                                                  "The shipping season closed early."]),
        ]
    )


def test_furniture_between_fragments_does_not_block_the_join(facing):
    tables, decisions = document_tables(doc_of(facing))
    (table,) = tables
    assert (table.page_start, table.page_end, len(table.rows)) == (1, 3, 100)
    assert [d.joined for d in decisions] == [True, True]
    assert all("furniture" in d.reason for d in decisions)
    assert any("Page 1 of 3" in line for line in decisions[0].skipped)
    assert (decisions[0].row_before, decisions[0].row_after) == (line_of(44), line_of(45))


def test_the_report_lists_furniture_and_every_join_with_its_reason(facing):
    report = inspect_pdf(facing)
    assert any("Northwind Logistics" in line for line in report.furniture)
    assert any(line.startswith("Page 1 of 3") for line in report.furniture)
    (table,) = report.tables
    assert (table.page_start, table.page_end, table.rows, table.columns) == (1, 3, 100, 4)
    assert table.header == "Region | Shipments | Returns | Share"  # the column names
    assert [j.joined for j in table.joins] == [True, True]
    assert "cross page breaks" in report.verdict and "tables fix on" in report.verdict


def test_furniture_stays_in_the_page_passage(facing):
    doc = doc_of(facing)
    pages = [p for p in document_passages(doc, join_tables=True) if p.kind == "page"]
    assert [p.page_start for p in pages] == [1, 2, 3]
    assert all("Northwind Logistics" in p.text for p in pages)
    assert "Source: internal logistics data." in pages[2].text
    assert all("Aland-" not in p.text for p in pages)  # the joined table left its pages


def test_chunks_keep_rows_whole_name_their_real_pages_and_keep_each_break_inside(facing):
    doc = doc_of(facing)
    (table,), _ = document_tables(doc)
    chunks = [p for p in document_passages(doc, join_tables=True) if p.kind == "table"]
    # every chunk: the table's caption, its header, then whole rows
    assert all(c.text.splitlines()[:2] == ["Table 1. Shipments by region",
                                           "Region Shipments Returns Share"] for c in chunks)
    rows = [line for c in chunks for line in c.text.splitlines()[2:]]
    assert rows == [r.text for r in table.rows]  # every row once, in order, whole
    assert all(len(c.text.splitlines()) - 2 <= TABLE_CHUNK_ROWS for c in chunks)
    page_of = {r.text: r.page for r in table.rows}
    for c in chunks:
        pages = {page_of[line] for line in c.text.splitlines()[2:]}
        assert (c.page_start, c.page_end) == (min(pages), max(pages))
    for before, after in ((line_of(44), line_of(45)), (line_of(89), line_of(90))):
        assert any(before in c.text and after in c.text for c in chunks), (before, after)
    assert SEAM_ROWS >= 1


def _two_pages(second: list) -> bytes:
    return drawn_pdf([page(1, 2, stats_rows(0, 40), "Table 1. Shipments by region", HEADER),
                      second])


@pytest.mark.parametrize(
    ("second", "why"),
    [
        (page(2, 2, stats_rows(40, 20), "Table 2. Shipments by carrier", HEADER), "caption"),
        (
            page(2, 2, [["Bolt", "555-0100", "Aarhus", "Hub 1", "A", "3.1"]] * 12, "",
                 ["Carrier", "Phone", "Depot", "Hub", "Zone", "Rate"],
                 columns=[72, 160, 250, 330, 400, 460]),
            "header",
        ),
        (
            page(2, 2, [["Bolt 9", "555-0100", "Aarhus 4", "Hub 1", "A 5", "3.1"]] * 12,
                 columns=[72, 120, 200, 330, 400, 480]),
            "columns",
        ),
        (page(2, 2, stats_rows(0, 20)), "restart"),
    ],
    ids=["caption", "new-header", "other-columns", "rows-restart"],
)
def test_a_different_table_on_the_next_page_is_not_joined(second, why):
    tables, decisions = document_tables(doc_of(_two_pages(second)))
    assert len(tables) == 2
    (decision,) = [d for d in decisions if d.page_a != d.page_b]
    assert not decision.joined
    words = {"caption": "caption", "header": "header", "columns": "columns",
             "restart": "restart"}
    assert words[why] in decision.reason


def _scanned_rows(rows: Rows, top: float) -> list[OcrWord]:
    """OCR words of ``rows`` set in :data:`COLUMNS` from ``top`` down, 14 pt apart."""
    words = []
    for n, row in enumerate(rows):
        y = top + 14 * n
        for x, cell in zip(COLUMNS, row, strict=True):
            words.append(OcrWord(cell, x, y, x + 6 * len(cell), y + 9, 95.0, 1, n + 1))
    return words


@pytest.mark.parametrize("mark", ["=", "* * *", "—"])
def test_a_scan_speck_read_as_a_mark_above_the_rows_does_not_block_the_join(mark):
    """OCR reads a speck or a rule's stub above the continued rows as ``=``: a line with no
    letter or digit is no caption, and the table still continues on the next page; a word
    there still stops it."""
    first = OcrPage(1, 200, tuple(_scanned_rows(stats_rows(0, 48), 100)), 595, 842)

    def second(line: str) -> OcrPage:
        above = OcrWord(line, 300, 150, 300 + 6 * len(line), 159, 70.0, 9, 900)
        return OcrPage(2, 200, (above, *_scanned_rows(stats_rows(48, 20), 230)), 595, 842)

    for text, joined in ((mark, True), ("Notes", False)):
        layouts = [ocr_layout(first), ocr_layout(second(text))]
        tables, decisions = join_tables(layouts, find_furniture(layouts))
        assert [d.joined for d in decisions if d.page_a != d.page_b] == [joined], text
        assert [len(t.rows) for t in tables] == ([68] if joined else [48, 20])


def test_two_tables_adjacent_on_one_page_stay_apart():
    items = page(1, 1, stats_rows(0, 8), "Table 1. Shipments by region", HEADER)
    second, _ = table_items([["Carrier", "Phone", "Depot", "Hub", "Zone", "Rate"],
                             *[["Bolt", "555-0100", "Aarhus", "Hub 1", "A", "3.1"]] * 5],
                            [72, 160, 250, 330, 400, 460], 300)
    tables, decisions = document_tables(doc_of(drawn_pdf([items + second])))
    assert [len(t.rows) for t in tables] == [8, 5]
    assert [d.joined for d in decisions] == [False]


def test_multi_column_prose_is_not_a_table():
    words = "the committee reviewed inserting a copy of figures through the annual report"
    lines = [" ".join(words.split()[i % 5 :][:7]) for i in range(40)]
    items = [(x, 60 + 14 * n, line) for n, line in enumerate(lines) for x in (40, 220, 400)]
    layout = read_pdf(drawn_pdf([items], font_size=8)).layouts[0]
    assert layout.tables == ()


def test_a_row_cut_mid_cell_is_reassembled_into_its_row():
    cols = [72, 130, 220]
    head = ["LINE", "POSITION", "DESCRIPTION AND VALIDITY"]
    first = [[str(n // 2 + 1), f"{n:02d}-{n + 4:02d}", f"Field number {n}"] for n in range(30)]
    first.append(["5", "45-50", "Establishment Date"])
    rest = [
        ["", "", "Year and month that the entity was"],
        ["", "", "established on the master file"],
    ]
    rest += [[str(6 + n // 3), f"{n:02d}", f"Later field {n}"] for n in range(20)]
    data = drawn_pdf([page(1, 2, first, "Exhibit 12 Entity Display", head, columns=cols),
                      page(2, 2, rest, "Exhibit 12 (Cont. 1) Entity Display", head,
                           columns=cols)])
    (table,), (decision,) = document_tables(doc_of(data))
    assert decision.joined and table.rows_joined == 1
    (row,) = [r for r in table.rows if "Establishment Date" in r.text]
    tail = "Year and month that the entity was established on the master file"
    assert row.cells[2].endswith(tail)
    assert row.pages == (1, 2) and len(table.rows) == 31 + 20


def test_group_label_rows_stay_with_their_rows_and_label_later_chunks():
    rows: Rows = []
    for group in ("Sex", "Race/Ethnicity", "Age group"):
        rows.append([group, "", "", ""])
        rows += stats_rows(len(rows), 24)
    data = drawn_pdf([page(1, 2, rows[:40], "Table 3. Shipments by group", HEADER),
                      page(2, 2, rows[40:], "Table 3. Shipments by group (continued)", HEADER)])
    doc = doc_of(data)
    (table,), _ = document_tables(doc)
    assert [r.cells[0] for r in table.rows if r.group] == ["Sex", "Race/Ethnicity", "Age group"]
    chunks = [p.text.splitlines() for p in document_passages(doc, join_tables=True)
              if p.kind == "table"]
    assert all(c[:2] == ["Table 3. Shipments by group", "Region Shipments Returns Share"]
               for c in chunks)
    assert all(c[-1] not in ("Sex", "Race/Ethnicity", "Age group") for c in chunks)
    for c in chunks:  # a chunk that starts inside a group says which group
        assert c[2] in ("Sex", "Race/Ethnicity", "Age group"), c[:3]


def test_margin_text_on_a_page_does_not_hide_its_table():
    data = drawn_pdf([page(1, 2, stats_rows(0, 40), "Table 1. Shipments", HEADER),
                      page(2, 2, stats_rows(40, 20), "Table 1. Shipments (continued)", HEADER)],
                     rotated=True)
    (table,), (decision,) = document_tables(doc_of(data))
    assert decision.joined and len(table.rows) == 60


def test_letter_spaced_text_is_rejoined_and_flagged():
    pdf = read_pdf(letter_spaced_pdf("09/18/2015 REF-42"))
    assert "09/18/2015 REF-42" in pdf.pages[0]
    assert any("letter-spaced" in w for w in pdf.warnings)


@pytest.mark.parametrize(
    ("text", "expected"), [("Continued on page 35", True), ("AXE 3 – OUTILS (suite)", True),
                           ("Exhibit 2.3.59-12 (Cont. 2)", True), ("Table 2. Returns", False)]
)
def test_continuation_notes(text, expected):
    assert has_marker(text) is expected


def test_similarity_is_token_overlap():
    assert similarity("Table 1. Shipments", "table 1. shipments") == 1.0
    assert similarity("Exhibit 2.3.59-98", "Exhibit 2.3.59-97 (Cont. 2)") < 0.5


def test_no_fixture_case_that_passes_without_the_tables_fix_fails_with_it(facing):
    split = drawn_pdf([page(1, 2, stats_rows(200, 40), "Table 1. Shipments", HEADER),
                       page(2, 2, stats_rows(240, 20), "Table 2. Carriers", HEADER)])
    docs = (doc_of(facing, "facing"), replace(doc_of(split, "separate"), order=1))
    index = CorpusIndex(Corpus(docs))
    across = [
        Case(f"across-{a}", f"{stats_rows(a, 1)[0][0]} {stats_rows(a + 1, 1)[0][0]} shipments",
             "facing", (line_of(a), line_of(a + 1)))
        for a in (44, 89)
    ]
    single = [
        Case(f"row-{doc}-{i}", f"{stats_rows(i, 1)[0][0]} shipments", doc, (line_of(i),))
        for doc, first, count in (("facing", 0, 100), ("separate", 200, 60))
        for i in range(first, first + count, 7)
    ]
    off = [check_case(index, c, Fixes()).passed for c in across]
    on = [check_case(index, c, Fixes().with_only(["tables"])).passed for c in across]
    assert off == [False, False] and on == [True, True]
    broken = [c.name for c in single if check_case(index, c, Fixes()).passed
              and not check_case(index, c, Fixes().with_only(["tables"])).passed]
    assert broken == []


def test_a_row_label_cut_by_the_break_is_glued_into_its_own_cell():
    from pdf_factory import inventory_rows, table_pdf

    rows = inventory_rows(60)
    probe = doc_of(table_pdf(rows, ruled=True))
    (table,), _ = document_tables(probe)
    last = max(i for i, r in enumerate(table.rows) if r.page == 1)  # last row on page 1
    rows[last + 1] = ["Remeasurement of the defined", "", "", ""]
    rows[last + 2] = ["benefit plan liability", "Widget model X", "Leeds", "999"]
    (table,), (decision,) = document_tables(doc_of(table_pdf(rows, ruled=True)))
    assert decision.joined and table.rows_joined == 1
    (row,) = [r for r in table.rows if r.cells[0].startswith("Remeasurement")]
    assert row.cells == (
        "Remeasurement of the defined benefit plan liability", "Widget model X", "Leeds", "999"
    )


def test_a_totals_row_stays_in_the_chunk_of_the_rows_it_sums():
    from ragdash.ingestion.joins import Row
    from ragdash.ingestion.segmentation import chunk_rows

    rows = [Row(f"Item {i} {i}", (f"Item {i}", str(i)), 1) for i in range(5)]
    rows.append(Row("Total 10", ("Total", "10"), 1))
    chunks = chunk_rows(("Item Count",), rows, max_rows=5)
    assert [c[0].splitlines()[-1] for c in chunks] == ["Item 3 3", "Total 10"]
    assert all(c[0].startswith("Item Count\n") for c in chunks)


def test_a_chunk_never_ends_at_a_page_break():
    from ragdash.ingestion.joins import Row
    from ragdash.ingestion.segmentation import chunk_rows

    rows = [Row(f"r{i}", (f"r{i}",), 1 if i < 5 else 2) for i in range(10)]
    chunks = chunk_rows(("h",), rows, max_rows=5)  # 5 rows fill a chunk right at the break
    assert any("r4" in text and "r5" in text for text, _, _ in chunks)
    assert all(len(text.splitlines()) - 1 <= 5 for text, _, _ in chunks)
    assert [(a, b) for _, a, b in chunks] == [(1, 1), (1, 2), (2, 2)]


@pytest.mark.parametrize("ruled", [True, False])
def test_a_report_table_under_running_headers_and_page_numbers_joins(ruled):
    from pdf_factory import inventory_rows, report_pdf

    data = report_pdf(inventory_rows(120), ruled=ruled)
    doc = doc_of(data)
    tables, decisions = document_tables(doc)
    (table,) = [t for t in tables if t.page_end > t.page_start]
    assert [r.cells[0] for r in table.rows] == [f"SKU-{i:04d}" for i in range(1, 121)]
    assert all(d.joined and "furniture" in d.reason for d in decisions if d.page_a != d.page_b)
    pages = [p for p in document_passages(doc, join_tables=True) if p.kind == "page"]
    assert all("Contoso Freight" in p.text for p in pages)  # furniture stays page text


def test_two_column_prose_over_pages_is_no_table_and_keeps_its_passages():
    from pdf_factory import two_column_prose_pdf

    doc = doc_of(two_column_prose_pdf())
    assert len(doc.pages) >= 2
    assert all(layout.tables == () for layout in doc.layouts)
    assert document_passages(doc, join_tables=True) == document_passages(doc)


def test_a_group_label_opening_the_next_page_does_not_stop_the_join():
    first = page(1, 2, stats_rows(0, 40), "Table 5. Shipments, actual and projected", HEADER)
    second = furniture(2, 2)
    second.append((72, 70, "Projected"))
    body, _ = table_items(stats_rows(40, 20), COLUMNS, 84)
    data = drawn_pdf([first, second + body])
    (table,), (decision,) = document_tables(doc_of(data))
    assert decision.joined and "'Projected' opens the page as a group label" in decision.reason
    assert [r.text for r in table.rows if r.group] == ["Projected"]
    assert len([r for r in table.rows if not r.group]) == 60


def test_a_heading_over_a_new_table_is_not_a_group_label():
    second = furniture(2, 2)
    second.append((72, 70, "Regional depot stock, by item and warehouse"))
    body, _ = table_items(stats_rows(40, 20), COLUMNS, 90)
    data = drawn_pdf([page(1, 2, stats_rows(0, 40), "Table 5. Shipments", HEADER),
                      second + body])
    _, (decision,) = document_tables(doc_of(data))
    assert not decision.joined and "caption, title or text" in decision.reason


def test_rows_of_a_table_ruled_only_between_columns_are_split_back():
    # pdfplumber sees one tall "row" when no rule separates the rows: each cell holds
    # every row's value, one per line. They are split back into rows that read as the
    # page's lines.
    import io

    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate, Table, TableStyle

    rows = [["Country", "Replies", "Share"]] + [
        [name, str(10 + 7 * i), f"0,{31 + i:03d}"]
        for i, name in enumerate(["Latvia", "Malta", "Iceland", "Luxembourg", "Israel"])
    ]
    style = TableStyle([
        ("BOX", (0, 0), (-1, -1), 0.8, colors.black),
        ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
        ("LINEAFTER", (0, 0), (-2, -1), 0.8, colors.black),
    ])
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=A4, invariant=1).build([Table(rows, style=style)])
    (layout,) = read_pdf(out.getvalue()).layouts
    (table,) = layout.tables
    assert table.method == "ruled"
    assert table.data == ("Latvia 10 0,031", "Malta 17 0,032", "Iceland 24 0,033",
                          "Luxembourg 31 0,034", "Israel 38 0,035")
    assert table.rows[table.header_rows] == ("Latvia", "10", "0,031")


def test_a_repeated_header_of_years_is_dropped_from_the_joined_rows():
    # Column names that are years look like data; repeated on the next page they are
    # still the header, not a row.
    head = ["Region", "2019", "2020", "2021"]
    data = drawn_pdf([page(1, 2, stats_rows(0, 40), "Table 6. Shipments by year", head),
                      page(2, 2, stats_rows(40, 20), "Table 6. Shipments by year (continued)",
                           head)])
    (table,), (decision,) = document_tables(doc_of(data))
    assert decision.joined
    assert "Region 2019 2020 2021" not in [r.text for r in table.rows]
    assert table.header == ("Region 2019 2020 2021",)  # repeated on each page: the header
    assert len(table.rows) == 60


def test_two_rows_left_over_on_the_next_page_are_joined_and_nothing_else_is():
    rows = stats_rows(0, 42)
    second = furniture(2, 2)
    body, top = table_items(rows[40:], COLUMNS, 70)  # two rows, no header, then prose
    second += body + [(72, top + 30, "The shipping season closed early this year.")]
    data = drawn_pdf([page(1, 2, rows[:40], "Table 1. Shipments by region", HEADER), second])
    (table,), (decision,) = document_tables(doc_of(data))
    assert decision.joined and len(table.rows) == 42 and table.page_end == 2
    # a page that opens with two rows of another shape keeps them as text
    other = furniture(2, 2)
    other += table_items([["Bolt 9", "555-0100", "Hub 7", "A 5", "3.1"]] * 2,
                         [72, 120, 200, 440, 500], 70)[0]
    data = drawn_pdf([page(1, 2, rows[:40], "Table 1. Shipments by region", HEADER), other])
    (table,), decisions = document_tables(doc_of(data))
    assert len(table.rows) == 40 and decisions == []


@pytest.fixture(scope="module")
def wrapped() -> tuple[list, list]:
    return document_tables(doc_of(wrapped_records_pdf()))


def test_a_wrapped_line_over_its_record_is_not_the_tail_of_the_last_row(wrapped):
    tables, decisions = wrapped
    (table,) = tables
    (decision,) = decisions
    assert decision.joined and table.rows_joined == 0  # nothing was cut at the break
    assert decision.row_after.startswith("640023BAW")
    first_of_page_2 = next(r for r in table.rows if r.page == 2)
    assert first_of_page_2.text.splitlines() == [
        "1223 NORTH LONG BOULEVARD", "640023BAW CAFE 23 OWNER 23 LLC SUITE 5 TULSA 2024/12/15"
    ]
    last_of_page_1 = [r for r in table.rows if r.page == 1][-1]
    assert last_of_page_1.text.startswith("1222 NORTH LONG BOULEVARD\n640022BAW")
    # inside a page too, a wrapped line goes with the record under it
    row = next(r for r in table.rows if "640003BAW" in r.text)
    assert row.text.startswith("1203 NORTH LONG BOULEVARD\n") and row.cells[3].startswith("1203")


def test_a_running_header_line_aligned_with_a_column_is_furniture_not_header(wrapped):
    (table,), _ = wrapped
    assert "STATE PERMIT BOARD" not in table.header_text
    assert table.header_text == "PERMIT NUMBER | NAME | OWNER | SITE ADDRESS | CITY | EXPIRES"


def test_inspect_reports_no_cut_row_and_the_header_only(capsys, tmp_path):
    from ragdash.cli import main

    path = tmp_path / "listing.pdf"
    path.write_bytes(wrapped_records_pdf())
    main(["inspect", str(path)])
    out = capsys.readouterr().out
    assert "0 cut row(s) re-assembled" in out
    assert "STATE PERMIT BOARD (p1-2)" in out  # listed as furniture
    header_rows = [line for line in out.splitlines() if line.startswith("1-2 ")]
    assert header_rows and "STATE PERMIT BOARD" not in header_rows[0]


def test_a_table_set_in_side_by_side_bands_is_reported_as_its_logical_columns():
    tables, decisions = document_tables(doc_of(banded_table_pdf()))
    (table,) = tables
    assert decisions[0].joined
    assert (table.columns, table.bands, table.logical_columns) == (15, 3, 5)
    # the group label line of numbers ("1,000 2,000 3,000") names no column
    assert table.header_text == "From | To | Single | Joint | Head"
    report = inspect_pdf(banded_table_pdf())
    (detected,) = report.tables
    assert (detected.columns, detected.bands, detected.rows) == (5, 3, 2 * 3 * 21)
    assert detected.header == "From | To | Single | Joint | Head"


def test_a_worksheet_beside_prose_is_not_reported_as_a_table():
    report = inspect_pdf(worksheet_beside_prose_pdf())
    assert report.tables == () and report.page_tables == ()


def test_a_running_footer_read_a_little_differently_on_one_page_is_still_furniture():
    """OCR drops or changes a character of a running line on one page (the page number
    of ``Bill Status 2019-2020 Page 1``, ``BMFOR_`` for ``BMFOR__``): it is still the
    footer, not text after the table that stops the join. A table caption that differs
    only by its number stays a caption."""
    from ragdash.ingestion.furniture import find_furniture
    from ragdash.ingestion.pdf_layout import Line, PageLayout

    def layout(number: int, footer: str, caption: str) -> PageLayout:
        lines = (
            Line(caption, 72, 60, 300, 70, ((72, 300, caption),)),
            Line("Body text of the page", 72, 300, 300, 310, ((72, 300, "Body text"),)),
            Line(footer, 72, 760, 330, 770, ((72, 330, footer),)),
        )
        return PageLayout(number, lines, (), 612, 792)

    pages = [
        layout(1, "Bill Status 2019-2020 Page", "Table 4. Bills by sponsor and stage"),
        layout(2, "Bill Status 2019-2020 Page 2", "Table 5. Bills by sponsor and stage!"),
        layout(3, "Bill Status 2019-2020 Page 3", "Statistical summary of the session"),
    ]
    found = find_furniture(pages)
    assert all(2 in found[n] for n in (1, 2, 3))  # the footer, on every page
    assert 0 not in found[1] and 0 not in found[2]  # the captions are not furniture


def test_a_running_legend_on_scanned_sheets_lying_higher_or_lower_is_still_furniture():
    """Each sheet of a scan lies a little higher or lower on the glass (a plan's legend at
    49, 61 and 74 pt on three pages) and OCR reads the legend's icon as ``Œ)`` on one of
    them: it is still the running legend above the table, not text that stops the join.
    The same reading far lower on its page is another line."""
    from ragdash.ingestion.furniture import find_furniture
    from ragdash.ingestion.pdf_layout import Line, PageLayout

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
    found = find_furniture(pages)
    assert all(0 in found[n] for n in (1, 2, 3))
    pages[2] = layout(3, "Œ) Human resources $=0 to 50000$", 140)  # far lower: another line
    assert 0 not in find_furniture(pages)[3]


def test_a_running_header_beside_a_logo_read_differently_on_each_page_is_furniture():
    """A running header set beside a logo that OCR reads otherwise on every page
    (``HIGHLIGHTS FROM PIRLS 2011 : APPEND A``, ``… 2011 AP > NDIX A``): the long run they
    share makes it the same running line, not text between a table's fragments. A line
    that shares only a few words with it is not."""
    from ragdash.ingestion.furniture import find_furniture
    from ragdash.ingestion.pdf_layout import Line, PageLayout

    def layout(number: int, header: str) -> PageLayout:
        lines = (
            Line(header, 72, 31, 560, 41, ((72, 560, header),)),
            Line("Body text of the page", 72, 300, 300, 310, ((72, 300, "Body text"),)),
        )
        return PageLayout(number, lines, (), 612, 792)

    pages = [
        layout(1, "HIGHLIGHTS FROM PIRLS 2011 : APPEND A"),
        layout(2, "APPEND x A HIGHLIGHTS. FROM PIRLS 2011"),
        layout(3, "HIGHLIGHTS FROM PIRLS 2011 AP > NDIX A"),
    ]
    assert 0 in find_furniture(pages)[3]
    pages[2] = layout(3, "Other findings from PIRLS 2011 schools")
    assert 0 not in find_furniture(pages)[3]
