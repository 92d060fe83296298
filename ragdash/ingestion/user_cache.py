"""Where the command line keeps parsed PDFs between calls: the user's cache folder.

Why: reading a PDF (pdfplumber's layout pass, OCR of scanned pages) is the slow part of every
command — a folder of ten real PDFs took two minutes, a 400-page PDF half a minute — and
without a cache every ``check``, ``query`` or ``inspect`` paid it again for the same bytes.
The parse cache itself (:class:`ragdash.ingestion.pdf_cache.PdfCache`, keyed by the PDF's
content hash and the parser's version) is the dashboard workspace's; this module only says
where the command line's copy lives:

1. ``--cache-dir DIR`` (the caller passes it),
2. else ``$RAGDASH_CACHE_DIR``,
3. else the platform's user cache folder (``platformdirs.user_cache_dir("ragdash")``:
   ``~/.cache/ragdash`` on Linux, ``~/Library/Caches/ragdash`` on macOS,
   ``%LOCALAPPDATA%\\ragdash\\Cache`` on Windows).

Parsed PDFs go in its ``pdf`` subfolder. ragdash writes only files it names there and deletes
nothing; removing the folder is always safe (the next call parses again).
"""

from __future__ import annotations

import os
from pathlib import Path

from ragdash.ingestion.pdf_cache import PdfCache

__all__ = ["CACHE_ENV", "cache_folder", "parse_cache"]

#: The environment variable that moves the cache (tests point it at a temporary folder).
CACHE_ENV = "RAGDASH_CACHE_DIR"


def cache_folder(override: str | Path | None = None) -> Path:
    """The cache folder: ``override``, else ``$RAGDASH_CACHE_DIR``, else the user's."""
    if override:
        return Path(override).expanduser()
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("ragdash", appauthor=False))


def parse_cache(override: str | Path | None = None) -> PdfCache:
    """The parse cache in :func:`cache_folder` (created on the first write)."""
    return PdfCache(cache_folder(override) / "pdf")
