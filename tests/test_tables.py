"""Text-table fragments and joining them across a page break."""

from __future__ import annotations

import pytest

from ragdash.ingestion.tables import (
    Block,
    cells,
    chunk_table,
    is_table_line,
    join_page_tables,
    page_blocks,
)

HEADER = "Plan | Storage | Monthly price"


@pytest.mark.parametrize(
    ("line", "expected"),
    [("a | b", True), ("Basic |", True), ("|", False), (" | | ", False), ("plain words", False)],
)
def test_is_table_line(line, expected):
    assert is_table_line(line) is expected


def test_cells_ignore_outer_pipes_and_trailing_empties():
    assert cells("| Pro | 100 Go | 15 EUR |") == ["Pro", "100 Go", "15 EUR"]
    assert cells("Basic |") == ["Basic"]


def test_page_blocks_groups_prose_and_table_lines_in_order():
    page = "Intro line\n\nMore prose\n" + HEADER + "\nPro | 100 Go | 15 EUR\n\nAfter the table"
    blocks = page_blocks(page, 3)
    assert [b.kind for b in blocks] == ["prose", "table", "prose"]
    assert blocks[0].text == "Intro line\n\nMore prose"  # blank line kept inside prose
    assert blocks[1].lines == (HEADER, "Pro | 100 Go | 15 EUR")
    assert all(b.page_start == b.page_end == 3 for b in blocks)


def test_blank_lines_inside_a_table_are_dropped():
    blocks = page_blocks(f"{HEADER}\n\nPro | 100 Go | 15 EUR", 1)
    assert len(blocks) == 1
    assert blocks[0].lines == (HEADER, "Pro | 100 Go | 15 EUR")


def _single_table(blocks: list[Block]) -> Block:
    tables = [b for b in blocks if b.kind == "table"]
    assert len(tables) == 1
    return tables[0]


def test_a_row_cut_after_its_first_cell_is_reassembled():
    pages = [
        f"Subscription plans\n{HEADER}\nBasic |",
        "10 Go | 5 EUR\nPro | 100 Go | 15 EUR\nPrices exclude VAT.",
    ]
    table = _single_table(join_page_tables(pages))
    assert (table.page_start, table.page_end) == (1, 2)
    assert table.lines[0] == HEADER
    assert cells(table.lines[1]) == ["Basic", "10 Go", "5 EUR"]
    assert cells(table.lines[2]) == ["Pro", "100 Go", "15 EUR"]
    assert table.joined_rows == 1


def test_a_row_cut_inside_a_cell_is_glued_back():
    pages = [f"{HEADER}\nBasic | 10", "Go | 5 EUR"]
    table = _single_table(join_page_tables(pages))
    assert cells(table.lines[1]) == ["Basic", "10 Go", "5 EUR"]


def test_whole_rows_on_both_sides_of_a_break_are_kept_as_they_are():
    pages = [f"{HEADER}\nBasic | 10 Go | 5 EUR", "Pro | 100 Go | 15 EUR"]
    table = _single_table(join_page_tables(pages))
    assert table.lines[1:] == ("Basic | 10 Go | 5 EUR", "Pro | 100 Go | 15 EUR")
    assert table.joined_rows == 0


def test_a_header_repeated_on_the_next_page_is_not_duplicated():
    pages = [f"{HEADER}\nBasic | 10 Go | 5 EUR", f"{HEADER}\nPro | 100 Go | 15 EUR"]
    table = _single_table(join_page_tables(pages))
    assert table.lines.count(HEADER) == 1
    assert len(table.lines) == 3


def test_a_table_over_three_pages_joins_into_one_block():
    pages = [f"{HEADER}\nA | 1 | 2", "B | 3 | 4", "C | 5 | 6\nThe end."]
    table = _single_table(join_page_tables(pages))
    assert (table.page_start, table.page_end) == (1, 3)
    assert [cells(line)[0] for line in table.lines[1:]] == ["A", "B", "C"]


def test_prose_is_never_joined_across_pages():
    blocks = join_page_tables(["First page ends mid", "sentence on the second page"])
    assert [(b.kind, b.page_start, b.page_end) for b in blocks] == [
        ("prose", 1, 1),
        ("prose", 2, 2),
    ]


def test_a_table_is_not_joined_with_a_table_that_does_not_open_the_next_page():
    pages = [f"{HEADER}\nA | 1 | 2", "Some prose first\nX | Y\n1 | 2"]
    tables = [b for b in join_page_tables(pages) if b.kind == "table"]
    assert [(t.page_start, t.page_end) for t in tables] == [(1, 1), (2, 2)]


def test_a_table_is_not_joined_when_prose_ends_its_page():
    pages = [f"{HEADER}\nA | 1 | 2\nA closing remark.", "B | 3 | 4"]
    tables = [b for b in join_page_tables(pages) if b.kind == "table"]
    assert [(t.page_start, t.page_end) for t in tables] == [(1, 1), (2, 2)]


def test_chunk_table_gives_every_chunk_the_header_and_loses_no_row():
    rows = tuple(f"Item {i} | {i} | EUR" for i in range(7))
    block = Block("table", ("Item | Qty | Currency", *rows), 1, 2)
    chunks = chunk_table(block, 3)
    assert len(chunks) == 3
    assert all(chunk.lines[0] == "Item | Qty | Currency" for chunk in chunks)
    assert all(len(chunk.lines) - 1 <= 3 for chunk in chunks)
    assert tuple(line for chunk in chunks for line in chunk.lines[1:]) == rows
    assert all((c.page_start, c.page_end) == (1, 2) for c in chunks)


def test_chunk_table_leaves_a_short_table_whole():
    block = Block("table", (HEADER, "A | 1 | 2"), 1, 1)
    assert chunk_table(block, 25) == [block]
