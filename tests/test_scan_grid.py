"""Ruled tables of a scan, rebuilt from the rules found in its image (scan_grid)."""

from __future__ import annotations

from ragdash.ingestion.scan_grid import grid_tables
from ragdash.ingestion.scans import OcrWord, words_to_lines


def _grid(x0: float, x1: float, columns: int, rows: int, top: float = 10, step: float = 20):
    """The rules of a grid from x0 to x1: ``rows`` rows of ``columns`` equal cells."""
    width = (x1 - x0) / columns
    bottom = top + rows * step
    across = [(x0, top + n * step, x1, top + n * step + 0.7) for n in range(rows + 1)]
    down = [(x0 + k * width, top, x0 + k * width + 0.7, bottom) for k in range(columns + 1)]
    return across + down


def _row(y: float, cells: list[tuple[float, str]]) -> list[OcrWord]:
    words = []
    for x, text in cells:
        for part in text.split():
            words.append(OcrWord(part, x, y, x + 6 * len(part), y + 8, 95.0, 1, int(y)))
            x += 6 * len(part) + 4
    return words


def test_a_grid_reads_its_rows_cell_by_cell_and_a_wrapped_cell_whole():
    words = [
        *_row(15, [(15, "Plan"), (115, "Price")]),
        *_row(32, [(15, "Basic"), (115, "10")]),
        *_row(42, [(15, "monthly")]),  # the first cell wraps onto a second line
    ]
    rules = _grid(10, 210, 2, 1) + [(10, 50, 210, 50.7), (10, 30, 10.7, 50), (110, 30, 110.7, 50),
                                     (210, 30, 210.7, 50)]  # fmt: skip
    (table,) = grid_tables(words, rules, words_to_lines(words))
    assert table.rows == (("Plan", "Price"), ("Basic monthly", "10"))


def test_grids_side_by_side_that_the_rows_run_across_are_left_to_the_aligned_finder():
    """A tax table printed as three boxed grids side by side: each of the page's rows runs
    across all three, as a born-digital PDF's text gives it. No one grid is a table of its
    own (its rows would be a third of the page's line, and the three would claim the same
    lines, losing two of them)."""
    words = []
    for n in range(4):
        y = 15 + 20 * n
        words += _row(y, [(15, f"{5 + n},000"), (115, f"{500 + n}"), (215, f"{8 + n},000"),
                          (315, f"{800 + n}"), (415, f"{11 + n},000"), (515, f"{1100 + n}")])
    rules = _grid(10, 190, 2, 4) + _grid(210, 390, 2, 4) + _grid(410, 590, 2, 4)
    lines = words_to_lines(words)
    assert len(lines) == 4  # each row one line across the page
    assert grid_tables(words, rules, lines) == []
    one = [w for w in words if w.x0 < 200]
    assert len(grid_tables(one, rules, words_to_lines(one))) == 1  # alone, a grid is a table


def test_a_cell_side_the_scan_mostly_kept_is_whole_and_one_mostly_lost_stays_open():
    """The rule under a header cell came back from the scan in two pieces (a gap under
    the header's letters): the header cell stays a cell of its own. A side of which less
    than half is there is no side: the cells above and below it are one."""
    words = [*_row(15, [(15, "Plan"), (115, "Price")]), *_row(35, [(15, "Basic"), (115, "10")])]
    rules = _grid(10, 210, 2, 2)
    broken = [r for r in rules if not (r[1] == 30 and r[0] == 10)]  # the rule under the header
    mostly = broken + [(10, 30, 60, 30.7), (85, 30, 210, 30.7)]  # 50 and 100 of 100 kept
    (table,) = grid_tables(words, mostly, words_to_lines(words))
    assert table.rows == (("Plan", "Price"), ("Basic", "10"))
    little = broken + [(10, 30, 40, 30.7), (170, 30, 210, 30.7)]  # 30 and 40 of 100 kept
    tables = grid_tables(words, little, words_to_lines(words))
    assert [t.rows for t in tables] != [(("Plan", "Price"), ("Basic", "10"))]
