"""What parsing a PDF gives (:class:`PdfText`), on its own so that the parse cache
(:mod:`ragdash.ingestion.pdf_cache`) can rebuild it without importing the loader that uses the
cache (:mod:`ragdash.ingestion.ingest`, which re-exports it)."""

from __future__ import annotations

from dataclasses import dataclass

from ragdash.ingestion.pdf_layout import PageLayout

__all__ = ["PdfText"]


@dataclass(frozen=True)
class PdfText:
    """The text layer of a PDF, page by page, with warnings about pages that have none.

    ``layouts`` holds each page's detected tables and structured text (tables as pipe rows),
    which the ``tables`` fix segments instead of the plain text.
    """

    pages: tuple[str, ...]
    warnings: tuple[str, ...]
    layouts: tuple[PageLayout, ...] = ()
    #: Pages whose glyphs were drawn twice at the same place (bold by double printing) and
    #: were read once (:func:`ragdash.ingestion.textlayer.without_overprint`).
    overprinted: tuple[int, ...] = ()

    @property
    def table_pages(self) -> tuple[str, ...] | None:
        """The structured text of every page, or None if layouts were not computed."""
        return tuple(layout.text for layout in self.layouts) if self.layouts else None
