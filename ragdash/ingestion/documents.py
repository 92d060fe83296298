"""Plain data: documents, passages, ingestion messages and the corpus that holds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any

from ragdash.text import tokenize, tokenize_unicode

__all__ = ["Corpus", "Document", "IngestMessage", "Passage", "STATUSES"]

STATUSES = ("current", "withdrawn")


@dataclass(frozen=True)
class Document:
    """One source file, with its metadata and its text page by page.

    A text file has one page. ``order`` is the list position that decides ties when no fix
    is on (``metadata.csv`` rows first, then the other files by name). ``table_pages`` is a
    PDF's structured text, page by page — detected tables rendered as ``cell | cell`` rows —
    which the ``tables`` fix segments instead of ``pages`` (see
    :mod:`ragdash.ingestion.pdf_layout`); None when there is none.
    """

    doc_id: str
    subject: str
    updated: date | None
    status: str
    source: str
    kind: str  # "text" or "pdf"
    pages: tuple[str, ...]
    order: float  # the list order (a stress test's stale copy sits half a step before)
    table_pages: tuple[str, ...] | None = None
    #: A PDF's pages as parsed (:class:`ragdash.ingestion.pdf_layout.PageLayout`): lines
    #: with positions and table regions, which the ``tables`` fix joins across page breaks.
    layouts: tuple[Any, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        return "\n".join(self.pages)


@dataclass(frozen=True)
class Passage:
    """A retrievable piece of a document: what the retriever scores and the model reads."""

    doc_id: str
    text: str
    page_start: int  # 1-based; text files are page 1
    page_end: int
    position: int  # 0-based index of the passage within its document
    order: float  # the document's list order
    kind: str  # "page", "paragraph", "document", "prose" or "table"
    subject: str = ""
    updated: date | None = None
    status: str = "current"

    @cached_property
    def tokens(self) -> frozenset[str]:
        """The passage's baseline tokens (worked out on first use and kept). Not built for
        every passage up front: the index keeps its own postings (token ids in numpy), and a
        set of strings per passage cost about 8 KB each — most of the memory at 100,000
        passages — while only the passages a page shows ever need theirs."""
        return frozenset(tokenize(self.text))

    @cached_property
    def unicode_tokens(self) -> frozenset[str]:
        """The passage's tokens under the ``unicode`` fix (worked out on first use)."""
        return frozenset(tokenize_unicode(self.text))

    def tokens_for(self, unicode: bool) -> frozenset[str]:
        """The tokens the retriever sees: baseline ``[a-z0-9]+`` or (``unicode``) any script."""
        return self.unicode_tokens if unicode else self.tokens

    @property
    def label(self) -> str:
        """Short human name, e.g. ``plans p1-2 #3``."""
        pages = (
            f"p{self.page_start}"
            if self.page_start == self.page_end
            else (f"p{self.page_start}-{self.page_end}")
        )
        return f"{self.doc_id} {pages} #{self.position + 1}"


@dataclass(frozen=True)
class IngestMessage:
    """A per-file problem found while loading. ``level`` is ``error`` (file skipped) or
    ``warning`` (file loaded with a caveat)."""

    source: str
    level: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.level}: {self.message}"


@dataclass(frozen=True)
class Corpus:
    """The loaded documents, in list order, plus what went wrong while loading them."""

    documents: tuple[Document, ...]
    messages: tuple[IngestMessage, ...] = ()

    def document(self, doc_id: str) -> Document | None:
        for doc in self.documents:
            if doc.doc_id == doc_id:
                return doc
        return None

    @property
    def doc_ids(self) -> tuple[str, ...]:
        return tuple(doc.doc_id for doc in self.documents)
