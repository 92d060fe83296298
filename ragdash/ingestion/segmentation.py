"""Cutting documents into passages, with the ``tables`` ingestion fix on or off."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import replace

from ragdash.ingestion.documents import Corpus, Document, IngestMessage, Passage
from ragdash.ingestion.furniture import find_furniture
from ragdash.ingestion.joins import JoinDecision, JoinedTable, Row, join_tables
from ragdash.ingestion.pdf_layout import PageLayout, TableRegion, prose_columns
from ragdash.ingestion.tables import chunk_table, join_page_tables, page_blocks
from ragdash.text import tokenize

__all__ = [
    "DEFAULT_MAX_PASSAGES",
    "LONG_TEXT_CHARS",
    "MAX_PASSAGES_ENV",
    "MIN_PARAGRAPH_CHARS",
    "PASSAGE_MAX_CHARS",
    "SEAM_ROWS",
    "TABLE_CHUNK_ROWS",
    "cap_passages",
    "chunk_rows",
    "corpus_passages",
    "current_layouts",
    "document_passages",
    "document_tables",
    "max_passages",
    "paragraphs",
    "passage_count",
    "segment_pages",
]

#: A text document longer than this is split into paragraphs; shorter ones stay whole.
LONG_TEXT_CHARS = 1200
#: A paragraph shorter than this (a heading, a one-liner) is kept with the next one.
MIN_PARAGRAPH_CHARS = 80
#: A joined table longer than this is cut into chunks, each carrying the header row.
TABLE_CHUNK_ROWS = 25
#: With the tables fix, a table chunk longer than this is cut (only between rows).
PASSAGE_MAX_CHARS = 1500
#: A chunk boundary keeps at least this many rows on each side of a page break together,
#: so the rows either side of every break share a passage.
SEAM_ROWS = 3

#: Most passages a corpus may hold (memory: about 3.3 KB per passage, see the benchmark);
#: documents past it are left out with a message. Override with the environment variable.
DEFAULT_MAX_PASSAGES = 200_000
MAX_PASSAGES_ENV = "RAGDASH_MAX_PASSAGES"

_BLANK_LINES = re.compile(r"\n\s*\n")
_TOTAL = re.compile(r"\s*(grand\s+)?(sub)?totals?\b|\s*sum\b|\s*合计|\s*总计", re.IGNORECASE)


def paragraphs(text: str) -> list[str]:
    """Blank-line paragraphs, with short ones (headings) merged into the following one."""
    result: list[str] = []
    pending = ""
    for part in _BLANK_LINES.split(text.strip()):
        part = part.strip()
        if not part:
            continue
        pending = f"{pending}\n\n{part}" if pending else part
        if len(pending) >= MIN_PARAGRAPH_CHARS:
            result.append(pending)
            pending = ""
    if pending:
        if result and len(pending) < MIN_PARAGRAPH_CHARS:
            result[-1] = f"{result[-1]}\n\n{pending}"
        else:
            result.append(pending)
    return result


def segment_pages(doc: Document) -> tuple[str, ...]:
    """The page texts the ``tables`` fix segments: a PDF's structured page (tables as pipe
    rows) wherever it holds exactly the words of the page's text, else the page's text.

    The check keeps a changed page (an edit, an injected fault) from being shadowed by a
    structured copy of its old text.
    """
    if doc.table_pages is None or len(doc.table_pages) != len(doc.pages):
        return doc.pages
    return tuple(
        laid if Counter(tokenize(laid)) == Counter(tokenize(plain)) else plain
        for laid, plain in zip(doc.table_pages, doc.pages, strict=True)
    )


def _passage(doc: Document, text: str, start: int, end: int, position: int, kind: str) -> Passage:
    return Passage(
        doc_id=doc.doc_id,
        text=text,
        page_start=start,
        page_end=end,
        position=position,
        order=doc.order,
        kind=kind,
        subject=doc.subject,
        updated=doc.updated,
        status=doc.status,
    )


def _paged(doc: Document) -> bool:
    return doc.kind == "pdf" or len(doc.pages) != 1


def _plain_pieces(doc: Document) -> list[tuple[str, int, str]]:
    """(text, page, kind) of each passage with the tables fix off: a short text document
    whole, a long one by paragraphs, a paged document one passage per non-empty page."""
    if not _paged(doc):
        text = doc.pages[0].strip()
        if len(text) <= LONG_TEXT_CHARS:
            return [(text, 1, "document")] if text else []
        return [(p, 1, "paragraph") for p in paragraphs(text)]
    return [(text.strip(), n, "page") for n, text in enumerate(doc.pages, start=1) if text.strip()]


def passage_count(doc: Document) -> int:
    """How many passages the document gives with the tables fix off — cheap (no tokenizing),
    for limits checked before a corpus is indexed."""
    return len(_plain_pieces(doc))


def cap_passages(corpus: Corpus, limit: int) -> Corpus:
    """The corpus with documents left out, in list order, once their passages would take
    the total past ``limit``; each left-out document gets an error message saying so."""
    kept: list[Document] = []
    messages = list(corpus.messages)
    total = 0
    for doc in corpus.documents:
        count = passage_count(doc)
        if total + count > limit:
            messages.append(
                IngestMessage(
                    doc.source,
                    "error",
                    f"document skipped: its {count} passage(s) would take the corpus past "
                    f"the limit of {limit:,} passages ({total:,} loaded) — remove documents "
                    f"or raise {MAX_PASSAGES_ENV}",
                )
            )
            continue
        total += count
        kept.append(replace(doc, order=len(kept)))
    if len(kept) == len(corpus.documents):
        return corpus
    return Corpus(tuple(kept), tuple(messages))


def current_layouts(doc: Document) -> tuple[PageLayout, ...] | None:
    """The document's parsed pages, with the tables of any page whose text was changed
    since parsing (an edit, an injected fault) dropped unless every line they hold is still
    a line of the page's text — so a changed page is never shadowed by its old layout.
    None when the document has no layouts."""
    layouts = doc.layouts
    if not layouts or len(layouts) != len(doc.pages):
        return None
    result = []
    for layout, text in zip(layouts, doc.pages, strict=True):
        if layout.plain == text:
            result.append(layout)
            continue
        present = set(text.splitlines())
        kept = tuple(
            t for t in layout.tables if all(layout.lines[i].text in present for i in t.lines)
        )
        result.append(replace(layout, tables=kept))
    return tuple(result)


def document_tables(doc: Document) -> tuple[list[JoinedTable], list[JoinDecision]]:
    """The document's tables joined across page breaks, and every join decision."""
    layouts = current_layouts(doc)
    if layouts is None:
        return [], []
    return join_tables(layouts, find_furniture(layouts))


def _group_of(rows: list[Row], index: int) -> Row | None:
    """The group label row that heads row ``index`` (the nearest label above it)."""
    for row in reversed(rows[:index]):
        if row.group:
            return row
    return None


def chunk_rows(
    header: tuple[str, ...], rows: list[Row], max_rows: int, max_chars: int | None = None
) -> list[tuple[str, int, int]]:
    """Cut a joined table into chunks (text, first page, last page).

    Every chunk starts with the header rows (and, when it starts inside a group, the group
    label above it); a row is never cut; a group label never ends a chunk; and at least
    :data:`SEAM_ROWS` rows on each side of a page break stay in one chunk. Each chunk's pages
    are the pages its rows really come from."""
    head = "\n".join(header)
    seams = {i for i in range(1, len(rows)) if rows[i].page != rows[i - 1].page}

    def bad_cut(at: int) -> bool:  # a cut before row ``at``
        near_seam = any(s - SEAM_ROWS < at < s + SEAM_ROWS for s in seams)
        total = _TOTAL.match(rows[at].text) is not None  # totals stay with their rows
        return rows[at - 1].group or total or near_seam

    chunks: list[list[int]] = [[]]
    size = len(head)
    for i, row in enumerate(rows):
        full = len(chunks[-1]) >= max_rows
        too_big = max_chars is not None and size + 1 + len(row.text) > max_chars
        if chunks[-1] and (full or too_big):
            start = chunks[-1][0]
            cut = next((c for c in range(i, start, -1) if not bad_cut(c)), None)
            if cut is None:  # long rows: any cut but one right at a page break
                cut = next((c for c in range(i, start, -1) if c not in seams), None)
            if cut is not None:  # else the rows either side of a break stay together
                moved = [j for j in chunks[-1] if j >= cut]
                chunks[-1] = [j for j in chunks[-1] if j < cut]
                chunks.append(moved)
                size = len(head) + sum(1 + len(rows[j].text) for j in moved)
        chunks[-1].append(i)
        size += 1 + len(row.text)
    result = []
    for chunk in chunks:
        if not chunk:
            continue
        lines = list(header)
        group = _group_of(rows, chunk[0])
        if group is not None and not rows[chunk[0]].group:
            lines.append(group.text)
        lines.extend(rows[j].text for j in chunk)
        pages = [p for j in chunk for p in rows[j].pages]
        result.append(("\n".join(lines), min(pages), max(pages)))
    return result


def _text_table_pieces(doc: Document) -> tuple[list[tuple[str, int, int]], dict[int, str]]:
    """:func:`_table_pieces` for a document without layouts: tables written as ``|`` rows."""
    pages = segment_pages(doc)
    pieces: list[tuple[str, int, int]] = []
    spans = []
    for table in join_page_tables(pages):
        if table.kind == "table" and table.page_end > table.page_start:
            spans.append((table.page_start, table.page_end))
            pieces.extend(
                (block.text, block.page_start, block.page_end)
                for block in chunk_table(table, TABLE_CHUNK_ROWS, PASSAGE_MAX_CHARS)
            )
    rest = {}
    for start, end in spans:
        for page in range(start, end + 1):
            blocks = page_blocks(pages[page - 1], page)
            tables = [i for i, b in enumerate(blocks) if b.kind == "table"]
            drop = set(tables[-1:] if page == start else tables[:1] if page == end else tables)
            if page in rest:  # a page that ends one joined table and starts another
                drop |= set(tables[:1])
            rest[page] = "\n".join(b.text for i, b in enumerate(blocks) if i not in drop)
    return pieces, rest


def _table_pieces(doc: Document) -> tuple[list[tuple[str, int, int]], dict[int, str]]:
    """(text, first page, last page) of every chunk of every table that crosses a page
    break, joined; and the text of each page those tables touch, with the tables' lines
    taken out (tables within one page stay whole in their page's passage)."""
    layouts = current_layouts(doc)
    if layouts is None:
        return _text_table_pieces(doc)
    tables, _ = join_tables(layouts, find_furniture(layouts))
    pieces = []
    taken: dict[int, set[int]] = {}
    for table in tables:
        if table.page_end == table.page_start:
            continue
        head = (*table.title, *table.header)  # caption and header in every chunk
        pieces.extend(chunk_rows(head, table.rows, TABLE_CHUNK_ROWS, PASSAGE_MAX_CHARS))
        for page, region in table.regions:
            taken.setdefault(page, set()).update(_own_lines(layouts[page - 1], region))
    rest = {}
    for page, indexes in taken.items():
        layout = layouts[page - 1]
        remove = Counter(layout.lines[i].text for i in indexes)
        kept = []
        for line in doc.pages[page - 1].splitlines():
            if remove[line] > 0:
                remove[line] -= 1
            else:
                kept.append(line)
        rest[page] = "\n".join(kept)
    return pieces, rest


def _own_lines(layout: PageLayout, region: TableRegion) -> list[int]:
    """The page lines a table takes out of its page passage: all of its lines — but a
    table inside one column of a page set in prose columns shares its text lines with the
    prose beside it, and such a line (longer than the table's piece of it) stays."""
    if region.method == "ruled" or not prose_columns(layout.lines):
        return list(region.lines)
    pieces = {line for text in region.row_text for line in text.splitlines()}
    return [i for i in region.lines if layout.lines[i].text in pieces]


def document_passages(doc: Document, join_tables: bool = False) -> list[Passage]:
    """The passages of one document.

    Paged documents (PDFs) give one passage per page. With ``join_tables`` every table that
    a page break cut becomes passages of its own: its fragments joined (only where they
    continue each other, see :mod:`ragdash.ingestion.joins`), every row whole, the header
    row in every chunk, each chunk labelled with the pages its rows come from. Those
    tables' lines leave their pages' passages; everything else of a page — prose, page
    furniture, tables within one page — stays in its page passage exactly as without the fix.
    A text document stays one passage unless it is long, then it is split into paragraphs.
    """
    plain = _plain_pieces(doc)
    if not join_tables or not _paged(doc):
        return [
            _passage(doc, text, page, page, i, kind) for i, (text, page, kind) in enumerate(plain)
        ]
    pieces, rest = _table_pieces(doc)
    ordered: list[tuple[tuple[int, int, int], str, int, int, str]] = []
    for text, page, kind in plain:
        text = rest.get(page, text).strip()
        if text:
            ordered.append(((page, 0, 0), text, page, page, kind))
    for n, (text, start, end) in enumerate(pieces):
        if text.strip():
            ordered.append(((start, 1, n), text.strip(), start, end, "table"))
    ordered.sort(key=lambda item: item[0])
    return [
        _passage(doc, text, start, end, i, kind)
        for i, (_, text, start, end, kind) in enumerate(ordered)
    ]


def corpus_passages(corpus: Corpus, join_tables: bool = False) -> tuple[Passage, ...]:
    """Every passage of the corpus, in list order."""
    return tuple(p for doc in corpus.documents for p in document_passages(doc, join_tables))


def max_passages(environ: dict[str, str] | None = None) -> int:
    """The passage limit: ``RAGDASH_MAX_PASSAGES`` if set to a positive whole number, else
    :data:`DEFAULT_MAX_PASSAGES`."""
    value = (os.environ if environ is None else environ).get(MAX_PASSAGES_ENV, "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    return DEFAULT_MAX_PASSAGES
