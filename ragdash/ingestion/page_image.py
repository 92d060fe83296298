"""The pixel budget of every page image ragdash draws (the Documents page's page view, OCR).

Kept apart from :mod:`ragdash.ingestion.inspection` so that OCR, which ingestion runs, can
use it without importing the inspection report (which imports ingestion)."""

from __future__ import annotations

__all__ = ["MAX_RENDER_PIXELS", "render_resolution"]


#: The most pixels a page image may have: a 638-byte PDF can declare a 14,400 × 14,400 pt
#: page, which at 80 dpi is 256 million pixels (gigabytes, then PIL's decompression-bomb
#: error). Larger pages are drawn at a lower resolution instead.
MAX_RENDER_PIXELS = 4_000_000


def render_resolution(width_pt: float, height_pt: float, wanted: int) -> float:
    """``wanted`` dpi, lowered so the page image stays within :data:`MAX_RENDER_PIXELS`::

    >>> render_resolution(612, 792, 80)   # a Letter page: as asked
    80
    >>> round(render_resolution(14_400, 14_400, 80), 1)   # a 200-inch page: 10 dpi
    10.0
    """
    inches = max(width_pt, 1.0) * max(height_pt, 1.0) / 72 / 72
    budget = (MAX_RENDER_PIXELS / inches) ** 0.5
    return wanted if wanted <= budget else budget
