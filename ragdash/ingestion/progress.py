"""Progress of a long load in words a user can plan by: which page, how long it has taken and
about how long is left.

Reading a PDF reports ``progress(fraction, step)`` (:data:`~ragdash.ingestion.ingest.Progress`):
``page 3 of 12`` while parsing, ``OCR of page 7 (3 of 12 to read)`` before each page OCR
reads. An upload of a 12-page scan sat at one fraction for about 50 s with no sign of life
(a page of OCR takes 5–15 s on a loaded machine); :class:`ProgressClock` turns those calls,
which the bounded parse repeats every tick while a page is read, into
``OCR: page 3 of 12 · 41 s elapsed · about 2 min left``.

    >>> clock = ProgressClock(now=iter([0.0, 20.0]).__next__)
    >>> clock.update(0.0, "OCR of page 1 (1 of 12 to read)")[1]
    'OCR: page 1 of 12 · 0 s elapsed'
    >>> clock.update(0.1, "OCR of page 2 (2 of 12 to read)")[1]
    'OCR: page 2 of 12 · 20 s elapsed · about 4 min left'
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

__all__ = ["ProgressClock", "duration_words"]

_OCR_STEP = re.compile(r"OCR of page \d+ \((\d+) of (\d+) to read\)")
_PAGE_STEP = re.compile(r"page (\d+) of (\d+)")
#: No estimate before this share of the work is done: one quick page says little.
MIN_SHARE_FOR_ESTIMATE = 0.05


def duration_words(seconds: float) -> str:
    """``41 s``, ``2 min``, ``1 h 5 min``: rounded as a person says it.

    >>> duration_words(41.2), duration_words(95), duration_words(3900)
    ('41 s', '2 min', '1 h 5 min')
    """
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


class ProgressClock:
    """Reads ``(fraction, step)`` progress calls and says the page, the time elapsed since
    the first call and an estimate of the time left (from the pages done so far of the
    current phase: parsing, then OCR). ``now`` is the clock (``time.monotonic``)."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._started: float | None = None
        self._phase: tuple[str, float] | None = None  # (phase, when its first page began)

    def update(self, fraction: float, step: str) -> tuple[float, str]:
        """The fraction of the phase done (0–1) and the words to show."""
        at = self._now()
        if self._started is None:
            self._started = at
        elapsed = at - self._started
        ocr = _OCR_STEP.search(step)
        page = None if ocr else _PAGE_STEP.fullmatch(step.strip())
        found = ocr or page
        if not found:
            return fraction, f"{step} · {duration_words(elapsed)} elapsed"
        phase = "OCR" if ocr else "reading"
        done, total = int(found.group(1)) - 1, max(int(found.group(2)), 1)
        if self._phase is None or self._phase[0] != phase:
            self._phase = (phase, at)
        share = done / total
        # "Reading plans.pdf: page 3 of 12" while parsing, "…: OCR: page 3 of 12" in OCR
        named = "OCR: " if ocr else ""
        words = f"{named}page {done + 1} of {total} · {duration_words(elapsed)} elapsed"
        spent = at - self._phase[1]
        if share >= MIN_SHARE_FOR_ESTIMATE and spent > 0:
            words += f" · about {duration_words(spent / share * (1 - share))} left"
        return share, words
