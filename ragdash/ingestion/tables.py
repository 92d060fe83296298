"""Text-table fragments and how to join them across a page break.

A PDF's text layer cuts a table wherever the page ends: the row ``Basic |`` may sit at the
foot of one page and its value ``10 Go`` at the top of the next. This module finds table
lines, groups each page into prose and table blocks, and joins a table block at the end of
one page with the table block that opens the next — only there, never every page pair.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Block",
    "CELL_SEPARATOR",
    "cells",
    "chunk_table",
    "continues_row",
    "is_table_line",
    "join_page_tables",
    "page_blocks",
]

CELL_SEPARATOR = "|"


@dataclass(frozen=True)
class Block:
    """A run of lines of one kind. Pages are 1-based; a joined table spans several."""

    kind: str  # "prose" or "table"
    lines: tuple[str, ...]
    page_start: int
    page_end: int
    joined_rows: int = 0  # rows re-assembled from two halves cut by a page break

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def is_table_line(line: str) -> bool:
    """A line of a text table: it holds a ``|`` cell separator and some text."""
    return CELL_SEPARATOR in line and bool(line.replace(CELL_SEPARATOR, "").strip())


def cells(line: str) -> list[str]:
    """The non-empty cells of a table line (outer pipes and trailing empties ignored)."""
    parts = [part.strip() for part in line.strip().strip(CELL_SEPARATOR).split(CELL_SEPARATOR)]
    while parts and not parts[-1]:
        parts.pop()
    return parts


def page_blocks(page_text: str, page: int) -> list[Block]:
    """Group one page's lines into consecutive prose and table blocks.

    Blank lines stay inside prose (they are paragraph breaks) and are dropped inside tables.
    """
    runs: list[tuple[str, list[str]]] = []
    for line in page_text.splitlines():
        if not line.strip():
            if runs and runs[-1][0] == "prose":
                runs[-1][1].append(line)
            continue
        kind = "table" if is_table_line(line) else "prose"
        if runs and runs[-1][0] == kind:
            runs[-1][1].append(line)
        else:
            runs.append((kind, [line]))
    blocks = []
    for kind, lines in runs:
        while not lines[-1].strip():
            lines.pop()
        blocks.append(Block(kind, tuple(lines), page, page))
    return blocks


def _join_cut_row(tail: str, head: str, width: int) -> str | None:
    """Re-assemble a row cut by a page break, or None if the two lines are whole rows."""
    tail_cells, head_cells = cells(tail), cells(head)
    if width == 0 or len(tail_cells) >= width or len(head_cells) >= width:
        return None
    if tail.rstrip().endswith(CELL_SEPARATOR):
        return f"{tail.rstrip()} {head.strip()}"
    if len(tail_cells) + len(head_cells) == width:
        return f"{tail.rstrip()} {CELL_SEPARATOR} {head.strip()}"
    # The cut fell inside a cell ("Basic | 10" / "Go | 5 EUR"): glue the two halves.
    return f"{tail.rstrip()} {head.strip()}"


def continues_row(line: str, header: str) -> bool:
    """True if ``line`` has an empty first cell (it starts with ``|`` while the header does
    not): the rest of a row whose cells a page break cut, as a ruled table shows it."""
    return line.lstrip().startswith(CELL_SEPARATOR) and not header.lstrip().startswith(
        CELL_SEPARATOR
    )


def _merge_cells(tail: str, head: str) -> str:
    """Column by column, the cell halves of a row cut by a page break."""
    top = [part.strip() for part in tail.strip().split(CELL_SEPARATOR)]
    bottom = [part.strip() for part in head.strip().split(CELL_SEPARATOR)]
    width = max(len(top), len(bottom))
    top += [""] * (width - len(top))
    bottom += [""] * (width - len(bottom))
    merged = [" ".join(part for part in pair if part) for pair in zip(top, bottom, strict=True)]
    while merged and not merged[-1]:
        merged.pop()
    return f" {CELL_SEPARATOR} ".join(merged)


def _join(first: Block, second: Block) -> Block:
    header = first.lines[0]
    rows = list(second.lines)
    # A header repeated at the top of the next page is layout, not data.
    if rows and rows[0].strip() == header.strip():
        rows.pop(0)
    elif (
        len(rows) > 1
        and continues_row(rows[1], header)
        and _merge_cells(rows[0], rows[1]) == _merge_cells(header, "")
    ):
        del rows[:2]  # a repeated header of two lines
    lines = list(first.lines)
    joined = first.joined_rows + second.joined_rows
    if rows and len(lines) > 1 and continues_row(rows[0], header):
        lines[-1] = _merge_cells(lines[-1], rows.pop(0))
        joined += 1
    elif rows:
        glued = _join_cut_row(lines[-1], rows[0], len(cells(header)))
        if glued is not None:
            lines[-1] = glued
            rows.pop(0)
            joined += 1
    return Block("table", tuple(lines + rows), first.page_start, second.page_end, joined)


def join_page_tables(pages: list[str] | tuple[str, ...]) -> list[Block]:
    """Blocks of a whole document, with every table that a page break cut joined back.

    A table block that ends a page is joined with a table block that starts the next page;
    tables running over three or more pages join step by step. Prose is never joined.
    """
    result: list[Block] = []
    for number, text in enumerate(pages, start=1):
        blocks = page_blocks(text, number)
        if (
            blocks
            and result
            and result[-1].kind == "table"
            and blocks[0].kind == "table"
            and result[-1].page_end == number - 1
        ):
            result[-1] = _join(result[-1], blocks.pop(0))
        result.extend(blocks)
    return result


def chunk_table(block: Block, max_rows: int, max_chars: int | None = None) -> list[Block]:
    """Split a long table into blocks of at most ``max_rows`` data rows (and, if given, about
    ``max_chars`` characters), each carrying the header row, so every passage that holds
    rows also says what the columns are. A row is never cut, so one very long row may
    exceed ``max_chars`` on its own."""
    header, rows = block.lines[0], block.lines[1:]
    if len(rows) <= max_rows and (max_chars is None or len(block.text) <= max_chars):
        return [block]
    groups: list[list[str]] = [[]]
    size = len(header)
    for row in rows:
        full = len(groups[-1]) >= max_rows
        too_big = max_chars is not None and size + 1 + len(row) > max_chars
        if groups[-1] and (full or too_big):
            groups.append([])
            size = len(header)
        groups[-1].append(row)
        size += 1 + len(row)
    return [Block("table", (header, *group), block.page_start, block.page_end) for group in groups]
