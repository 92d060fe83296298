"""Marks on a scanned page that are not letters: list bullets and pictograms.

A born-digital PDF prints a list's bullet as a character (``•``) and draws a pictogram (a
smiley that stands for "human resources", a phone, a tick) as a picture: its text reads
``• Build a toolbox`` and has nothing where the pictogram is. Tesseract reads both the
other way round: it drops a bullet as a speck, or reads it as ``e_``, and reads a smiley
as ``©`` or ``ee,``. A row quoted from the born-digital page is then not found in the
scan's text. Each is told by its shape, which no letter has:

* a **bullet** is a solid round blot — it fills about π/4 of its box with no hole in it,
  where a letter has a counter or thin strokes — a quarter to two thirds as tall as the
  word after it on its line, and centred on that word's middle (a full stop sits on the
  baseline and is far smaller);
* a **pictogram** is a mark Tesseract read as no letter or digit (or as a word no
  dictionary has, unsurely), about square, at least :data:`PICTOGRAM_HEIGHT` times as
  tall as the page's text and taller than the words on its own line, and not a sign
  printed as text (:data:`TEXT_SIGNS`): a large ``&`` in a heading is as tall as the
  heading's words, and ``$$`` is a cost; both stay.

A runnable example (a made-up page: a blot, then a word)::

    >>> import numpy as np
    >>> from PIL import Image
    >>> from ragdash.ingestion.scans import OcrWord
    >>> page = np.full((60, 300), 255, np.uint8)
    >>> yy, xx = np.mgrid[:60, :300]
    >>> page[(yy - 30) ** 2 + (xx - 20) ** 2 <= 42] = 0            # a bullet, 13 px round
    >>> word = OcrWord("Build", 20.0, 10.0, 60.0, 20.0, 95.0)       # at 2 px per point
    >>> [w.text for w in bullets(Image.fromarray(page), 2.0, [word])]
    ['•', 'Build']
    >>> smiley = OcrWord("©", 80.0, 4.0, 96.0, 22.0, 95.0, line=2)
    >>> text = [OcrWord("Council", 10.0 * n, 40.0, 10.0 * n + 8, 48.0, 96.0) for n in range(9)]
    >>> costs = OcrWord("$$", 80.0, 44.0, 96.0, 60.0, 95.0, line=3)  # as tall, a sign of text
    >>> [w.text for w in pictograms([*text, smiley, costs], lambda _w: True)][-2:]
    ['Council', '$$']
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings

__all__ = ["BULLET", "PICTOGRAM_HEIGHT", "bullets", "pictograms"]

#: How a bullet reads in a PDF's text layer.
BULLET = "•"
#: A mark at least this many times as tall as the page's text (the median height of its
#: sure words) may be a pictogram.
PICTOGRAM_HEIGHT = DEFAULT_SCAN.pictogram_height
#: ... and this many times as tall as the other words on its own line.
PICTOGRAM_LINE_HEIGHT = DEFAULT_SCAN.pictogram_line_height
#: A word Tesseract read less surely than this (0–100) may be a misread mark.
UNSURE = DEFAULT_SCAN.mark_unsure
#: Signs printed as text, however tall their glyph (a ``$`` reaches above the capitals and
#: below the line): a mark read as one of them is text. Tesseract reads an icon as the
#: round sign nearest its shape (``©``, ``®``, ``@``) or as letters.
TEXT_SIGNS = "$€£¥%&#§+=<>*/"
#: Darker than this (0-255) is ink.
INK_LEVEL = DEFAULT_SCAN.ink_level


def _round_blots(
    image: Any, scale: float, scan: ScanSettings = DEFAULT_SCAN
) -> list[tuple[float, float, float, float]]:
    """Solid round blots of ink on ``image`` (drawn at ``scale`` pixels per point), as
    boxes in points: square to a third either way, filling 68–92% of their box (a disk
    fills 79%; a filled square more, a letter less), with no hole."""
    import numpy as np
    from scipy import ndimage

    ink = np.asarray(image.convert("L")) < scan.ink_level
    labels, _count = ndimage.label(ink, structure=np.ones((3, 3), bool))
    blots = []
    for n, where in enumerate(ndimage.find_objects(labels), start=1):
        if where is None:
            continue
        tall, wide = where[0].stop - where[0].start, where[1].stop - where[1].start
        if (not scan.blot_min <= max(tall, wide) / scale <= scan.blot_max
                or not scan.blot_aspect_min <= wide / tall <= scan.blot_aspect_max):  # fmt: skip
            continue
        mine = labels[where] == n
        area = int(mine.sum())
        if not scan.blot_fill_min <= area / (tall * wide) <= scan.blot_fill_max:
            continue
        if int(ndimage.binary_fill_holes(mine).sum()) > scan.blot_hole * area:
            continue  # a ring: an "o", a "0"
        blots.append((where[1].start / scale, where[0].start / scale,
                      where[1].stop / scale, where[0].stop / scale))  # fmt: skip
    return blots


def bullets(
    image: Any, scale: float, words: Sequence[Any], scan: ScanSettings = DEFAULT_SCAN
) -> list[Any]:
    """``words`` (:class:`~ragdash.ingestion.scans.OcrWord`) with the page's list bullets
    read as :data:`BULLET`: a bullet Tesseract dropped is put in before the word it
    stands before, one it read as a short unsure mark (``e_``) is read again as a bullet.
    A bullet's box spans the height of that word, so it stays on the word's line wherever
    rows are rebuilt."""
    out = list(words)
    for x0, top, x1, bottom in _round_blots(image, scale, scan):
        size, middle = max(x1 - x0, bottom - top), (top + bottom) / 2
        after = [
            w for w in out
            if w.x0 >= x1 - scan.bullet_slack and w.x0 - x1 <= scan.bullet_reach * w.height
            and abs(middle - (w.top + w.bottom) / 2) <= scan.bullet_middle * w.height
            and scan.bullet_size_min * w.height <= size <= scan.bullet_size_max * w.height
        ]  # fmt: skip
        if not after:
            continue
        word = min(after, key=lambda w: w.x0)
        over = [
            n for n, w in enumerate(out)
            if w.x0 - scan.bullet_slack <= (x0 + x1) / 2 <= w.x1 + scan.bullet_slack
            and w.top <= middle <= w.bottom
        ]  # fmt: skip
        mark = replace(word, text=BULLET, x0=round(x0, 2), x1=round(x1, 2))
        if not over:
            out.insert(out.index(word), mark)
        elif len(over) == 1 and _misread_mark(out[over[0]], size, scan):
            out[over[0]] = replace(mark, conf=out[over[0]].conf)
    return out


def _misread_mark(word: Any, size: float, scan: ScanSettings = DEFAULT_SCAN) -> bool:
    """A word that is a bullet misread: a mark or two, unsure or with no letter, hardly
    wider than the blot."""
    text = word.text.strip()
    unsure = word.conf < scan.mark_unsure or not any(ch.isalnum() for ch in text)
    return (len(text) <= scan.mark_length and unsure
            and word.x1 - word.x0 <= scan.mark_width * size)  # fmt: skip


def pictograms(
    words: Sequence[Any], known: Callable[[str], bool], scan: ScanSettings = DEFAULT_SCAN
) -> list[Any]:
    """``words`` without the pictograms Tesseract read as text (see the module's
    docstring); ``known`` tells a dictionary word."""
    sure = [w.height for w in words
            if w.conf >= scan.mark_unsure and any(ch.isalpha() for ch in w.text)]  # fmt: skip
    if not sure:
        return list(words)
    page = statistics.median(sure)
    by_line: dict[tuple[int, int], list[float]] = {}
    for w in words:
        by_line.setdefault((w.block, w.line), []).append(w.height)

    def pictogram(word: Any) -> bool:
        if word.height < scan.pictogram_height * page:
            return False
        ratio = (word.x1 - word.x0) / word.height
        if not scan.pictogram_aspect_min <= ratio <= scan.pictogram_aspect_max:
            return False  # an icon is about square; a tall "$" or a long word is not
        text = word.text.strip()
        if any(ch.isalnum() for ch in text) and (word.conf >= scan.mark_unsure or known(text)):
            return False
        if any(ch in TEXT_SIGNS for ch in text):
            return False  # "$$" in a cell of costs: a sign printed as text
        others = list(by_line[(word.block, word.line)])
        others.remove(word.height)
        return not others or word.height >= scan.pictogram_line_height * statistics.median(others)

    return [w for w in words if not pictogram(w)]
