"""Parsed PDFs kept on disk, one file per PDF content hash, so that a restart or a
re-upload of the same bytes never parses the PDF again.

The cache key is the SHA-256 of the file's bytes plus :data:`PARSER_VERSION` (and a hash of
the parsing modules' source); changing how pages are parsed (lines, tables, letter-spacing
repair) means bumping the version, which leaves every old entry unused. A damaged entry is
ignored and parsed again.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
from pathlib import Path
from typing import Any

from ragdash.atomic import atomic_write

#: Bump whenever :mod:`ragdash.ingestion.pdf_layout` or ``read_pdf`` change what they give.
PARSER_VERSION = "layout-4"


@functools.cache
def parser_digest() -> str:
    """A short hash of the parsing code itself, so an edit that forgets to bump
    :data:`PARSER_VERSION` still never serves a stale parse."""
    from ragdash.ingestion import letterspacing, pdf_layout, scans

    digest = hashlib.sha256()
    for module in (pdf_layout, letterspacing, scans):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:12]


class PdfCache:
    """Parsed PDFs (:class:`ragdash.ingestion.ingest.PdfText`) under ``folder``."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def path(self, data: bytes, variant: str = "") -> Path:
        """``variant`` names settings that change the parse (the OCR settings)."""
        digest = hashlib.sha256(data).hexdigest()
        suffix = f"-{variant}" if variant else ""
        return self.folder / f"{digest}-{PARSER_VERSION}-{parser_digest()}{suffix}.pickle"

    def get(self, data: bytes, variant: str = "") -> Any | None:
        """The cached parse of ``data``, or None."""
        path = self.path(data, variant)
        if not path.is_file():
            return None
        try:
            with path.open("rb") as handle:
                return pickle.load(handle)
        except Exception:  # a damaged or foreign entry: parse again
            return None

    def put(self, data: bytes, parsed: Any, variant: str = "") -> None:
        """Store a parse (best effort: a cache that cannot be written is no error)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            pickled = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
            atomic_write(self.path(data, variant), pickled)
        except OSError:
            pass
