"""The pixel budget of every page image ragdash draws (the Documents page's page view, OCR),
and the smallest size a side of one may have.

Kept apart from :mod:`ragdash.ingestion.inspection` so that OCR, which ingestion runs, can
use it without importing the inspection report (which imports ingestion)."""

from __future__ import annotations

import math
from typing import Any

from ragdash.errors import IngestError

__all__ = ["MAX_RENDER_PIXELS", "MIN_SHOWN_PIXELS", "SHOWN_WIDTH", "render_resolution", "shown"]


#: The most pixels a page image may have: a 638-byte PDF can declare a 14,400 × 14,400 pt
#: page, which at 80 dpi is 256 million pixels (gigabytes, then PIL's decompression-bomb
#: error). Larger pages are drawn at a lower resolution instead.
MAX_RENDER_PIXELS = 4_000_000
#: The widest image a page shows: Streamlit scales a wider one down to this width on the
#: server (``MAXIMUM_CONTENT_WIDTH``), and the other side with it.
SHOWN_WIDTH = 1460
#: The fewest pixels a side of a page image keeps, drawn and once shown. A 14,400 × 3 pt
#: page drawn at 80 dpi is 16,000 × 4 px; scaled to 1,460 px wide its height was 0 px and
#: the page's card failed (PIL: "height must be > 0").
MIN_SHOWN_PIXELS = 4


def render_resolution(width_pt: float, height_pt: float, wanted: int) -> float:
    """``wanted`` dpi, lowered so the page image stays within :data:`MAX_RENDER_PIXELS`,
    and raised when the page's thinner side would be drawn under one pixel::

    >>> render_resolution(612, 792, 80)   # a Letter page: as asked
    80
    >>> round(render_resolution(14_400, 14_400, 80), 1)   # a 200-inch page: 10 dpi
    10.0
    >>> round(render_resolution(14_400, 0.5, 80))   # a thread of a page: 1 px high
    145

    Raises :class:`IngestError` for a page that cannot keep one pixel on its thinner side
    within the budget.
    """
    inches = max(width_pt, 1.0) * max(height_pt, 1.0) / 72 / 72
    budget = (MAX_RENDER_PIXELS / inches) ** 0.5
    resolution = wanted if wanted <= budget else budget
    thinnest = min(width_pt, height_pt)
    if thinnest * resolution / 72 < 1:
        resolution = 72 / max(thinnest, 1e-6) * 1.01  # one pixel, with room for rounding
        if width_pt * height_pt * (resolution / 72) ** 2 > MAX_RENDER_PIXELS:
            raise IngestError(
                f"has a page of {width_pt:g} × {height_pt:g} pt, too thin to draw within "
                f"{MAX_RENDER_PIXELS:,} pixels"
            )
    return resolution


def shown(image: Any) -> Any:
    """``image`` (PIL), padded with white above and below when showing it at
    :data:`SHOWN_WIDTH` pixels wide would leave it under :data:`MIN_SHOWN_PIXELS` high —
    a long thin page stays a visible strip instead of an error."""
    width, height = image.size
    scale = min(1.0, SHOWN_WIDTH / max(width, 1))
    if height * scale >= MIN_SHOWN_PIXELS:
        return image
    from PIL import Image

    tall = math.ceil(MIN_SHOWN_PIXELS / scale)
    canvas = Image.new(image.mode, (width, tall), "white")
    canvas.paste(image, (0, (tall - height) // 2))
    return canvas
