"""Cutting documents into passages, with the ``tables`` ingestion fix on or off."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import replace

from ragdash.ingestion.documents import Corpus, Document, IngestMessage, Passage
from ragdash.ingestion.tables import Block, chunk_table, join_page_tables
from ragdash.retrieval.tokens import tokenize

#: A text document longer than this is split into paragraphs; shorter ones stay whole.
LONG_TEXT_CHARS = 1200
#: A paragraph shorter than this (a heading, a one-liner) is kept with the next one.
MIN_PARAGRAPH_CHARS = 80
#: A joined table longer than this is cut into chunks, each carrying the header row.
TABLE_CHUNK_ROWS = 25
#: With the tables fix, a prose block or table chunk of a PDF longer than this is cut (at
#: line ends, preferably sentence ends; table chunks only between rows).
PASSAGE_MAX_CHARS = 1500

#: Most passages a corpus may hold (memory: about 3.3 KB per passage, see the benchmark);
#: documents past it are left out with a message. Override with the environment variable.
DEFAULT_MAX_PASSAGES = 200_000
MAX_PASSAGES_ENV = "RAGDASH_MAX_PASSAGES"

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


def document_passages(doc: Document, join_tables: bool = False) -> list[Passage]:
    """The passages of one document.

    Paged documents (PDFs) give one passage per page; with ``join_tables`` each page's prose
    stays a passage (cut if longer than :data:`PASSAGE_MAX_CHARS`) and each table — found by
    layout (:func:`segment_pages`), joined across page breaks — becomes its own passage(s),
    every row whole and under the header row.
    A text document stays one passage unless it is long, then it is split into paragraphs.
    """
    if not join_tables or not _paged(doc):
        return [
            _passage(doc, text, page, page, i, kind)
            for i, (text, page, kind) in enumerate(_plain_pieces(doc))
        ]
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


def max_passages(environ: dict[str, str] | None = None) -> int:
    """The passage limit: ``RAGDASH_MAX_PASSAGES`` if set to a positive whole number, else
    :data:`DEFAULT_MAX_PASSAGES`."""
    value = (os.environ if environ is None else environ).get(MAX_PASSAGES_ENV, "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    return DEFAULT_MAX_PASSAGES
