"""Cutting documents into passages, with the ``tables`` ingestion fix on or off."""

from __future__ import annotations

import re
from collections import Counter

from ragdash.documents import Corpus, Document, Passage
from ragdash.tables import Block, chunk_table, join_page_tables
from ragdash.tokens import tokenize

#: A text document longer than this is split into paragraphs; shorter ones stay whole.
LONG_TEXT_CHARS = 1200
#: A paragraph shorter than this (a heading, a one-liner) is kept with the next one.
MIN_PARAGRAPH_CHARS = 80
#: A joined table longer than this is cut into chunks, each carrying the header row.
TABLE_CHUNK_ROWS = 25
#: With the tables fix, a prose block or table chunk of a PDF longer than this is cut (at
#: line ends, preferably sentence ends; table chunks only between rows).
PASSAGE_MAX_CHARS = 1500

_BLANK_LINES = re.compile(r"\n\s*\n")


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


def split_prose(block: Block, max_chars: int = PASSAGE_MAX_CHARS) -> list[Block]:
    """Cut a long prose block at line ends into pieces of at most about ``max_chars``;
    past half the budget a piece ends at the first line that ends a sentence."""
    if len(block.text) <= max_chars:
        return [block]
    pieces: list[list[str]] = [[]]
    size = 0
    for line in block.lines:
        if pieces[-1] and size + 1 + len(line) > max_chars:
            pieces.append([])
            size = 0
        pieces[-1].append(line)
        size += 1 + len(line)
        if size >= max_chars // 2 and line.rstrip().endswith((".", "!", "?", ":")):
            pieces.append([])
            size = 0
    return [
        Block("prose", tuple(lines), block.page_start, block.page_end)
        for lines in pieces
        if "".join(lines).strip()
    ]


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


def document_passages(doc: Document, join_tables: bool = False) -> list[Passage]:
    """The passages of one document.

    Paged documents (PDFs) give one passage per page; with ``join_tables`` each page's prose
    stays a passage (cut if longer than :data:`PASSAGE_MAX_CHARS`) and each table — found by
    layout (:func:`segment_pages`), joined across page breaks — becomes its own passage(s),
    every row whole and under the header row.
    A text document stays one passage unless it is long, then it is split into paragraphs.
    """
    if doc.kind != "pdf" and len(doc.pages) == 1:
        text = doc.pages[0].strip()
        if len(text) <= LONG_TEXT_CHARS:
            return [_passage(doc, text, 1, 1, 0, "document")] if text else []
        return [_passage(doc, p, 1, 1, i, "paragraph") for i, p in enumerate(paragraphs(text))]
    if not join_tables:
        pages = [(n, text.strip()) for n, text in enumerate(doc.pages, start=1) if text.strip()]
        return [_passage(doc, text, n, n, i, "page") for i, (n, text) in enumerate(pages)]
    pieces = []
    for block in join_page_tables(segment_pages(doc)):
        if block.kind == "table":
            pieces.extend(chunk_table(block, TABLE_CHUNK_ROWS, PASSAGE_MAX_CHARS))
        else:
            pieces.extend(split_prose(block))
    pieces = [block for block in pieces if block.text.strip()]
    return [
        _passage(doc, block.text.strip(), block.page_start, block.page_end, i, block.kind)
        for i, block in enumerate(pieces)
    ]


def corpus_passages(corpus: Corpus, join_tables: bool = False) -> tuple[Passage, ...]:
    """Every passage of the corpus, in list order."""
    return tuple(p for doc in corpus.documents for p in document_passages(doc, join_tables))
