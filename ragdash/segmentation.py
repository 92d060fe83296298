"""Cutting documents into passages, with the ``tables`` ingestion fix on or off."""

from __future__ import annotations

import re

from ragdash.documents import Corpus, Document, Passage
from ragdash.tables import chunk_table, join_page_tables

#: A text document longer than this is split into paragraphs; shorter ones stay whole.
LONG_TEXT_CHARS = 1200
#: A paragraph shorter than this (a heading, a one-liner) is kept with the next one.
MIN_PARAGRAPH_CHARS = 80
#: A joined table longer than this is cut into chunks, each carrying the header row.
TABLE_CHUNK_ROWS = 25

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
    stays a passage and each table — joined across page breaks — becomes its own passage(s).
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
    for block in join_page_tables(doc.pages):
        if block.kind == "table":
            pieces.extend(chunk_table(block, TABLE_CHUNK_ROWS))
        else:
            pieces.append(block)
    pieces = [block for block in pieces if block.text.strip()]
    return [
        _passage(doc, block.text.strip(), block.page_start, block.page_end, i, block.kind)
        for i, block in enumerate(pieces)
    ]


def corpus_passages(corpus: Corpus, join_tables: bool = False) -> tuple[Passage, ...]:
    """Every passage of the corpus, in list order."""
    return tuple(p for doc in corpus.documents for p in document_passages(doc, join_tables))
