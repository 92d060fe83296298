"""The words OCR reads and the page they make, with the small geometry every scan pass shares
(boxes that overlap, a figure's column, two words made one)."""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ragdash.ingestion.ocr_prep import OcrQuality, Rule
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings

__all__ = [
    "LOW_CONFIDENCE",
    "OcrPage",
    "OcrWord",
]


#: Words Tesseract is less sure of than this (0–100) are boxed on the page image.
LOW_CONFIDENCE = DEFAULT_SCAN.low_confidence


@dataclass(frozen=True)
class OcrWord:
    """One word Tesseract read: its text, its box in PDF points (top-down, like pdfplumber)
    and its confidence (0–100)."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    conf: float
    block: int = 0
    line: int = 0  # Tesseract's (block, paragraph, line) number, flattened

    @property
    def height(self) -> float:
        return max(self.bottom - self.top, 1.0)


@dataclass(frozen=True)
class OcrPage:
    """What OCR made of one page: the words with boxes and confidences, and the resolution
    the page was drawn at for it (``dpi``)."""

    page: int
    dpi: float
    words: tuple[OcrWord, ...]
    width: float
    height: float
    engine: str = ""
    #: How much of the page OCR read (None for a page read before it was measured).
    quality: OcrQuality | None = None
    #: The Tesseract language(s) the page was read in (``fra``; chosen when ``auto``).
    lang: str = ""
    #: The ruling lines found in the page image (:func:`~ragdash.ingestion.ocr_prep.find_rules`),
    #: in points of the straightened page: a ruled table is rebuilt from them.
    rules: tuple[Rule, ...] = ()

    @property
    def mean_confidence(self) -> float:
        """The words' mean confidence, 0 for a page where nothing was read."""
        return statistics.fmean(w.conf for w in self.words) if self.words else 0.0

    def low_confidence(self, threshold: float = LOW_CONFIDENCE) -> tuple[OcrWord, ...]:
        return tuple(w for w in self.words if w.conf < threshold)


_DIGIT_OF = {"S": "5", "O": "0", "o": "0", "l": "1", "I": "1"}


def _same_box(a: OcrWord, b: OcrWord, scan: ScanSettings = DEFAULT_SCAN) -> bool:
    """True when two readings' words cover nearly the same box (each edge within a third of
    the text height, ``ScanSettings.same_box_parts``): the same word read twice, not a word
    and part of it."""
    slack = min(a.height, b.height) / scan.same_box_parts
    return (abs(a.x0 - b.x0) <= slack and abs(a.x1 - b.x1) <= slack
            and abs(a.top - b.top) <= slack and abs(a.bottom - b.bottom) <= slack)  # fmt: skip


def _repair_pairs(
    words: Sequence[OcrWord],
    reach: float,
    joined: Callable[[OcrWord, OcrWord], str | None],
    alone: Callable[[OcrWord], str | None],
) -> tuple[OcrWord, ...]:
    """``words`` with each word and the next one on its line, at most ``reach`` of its
    height apart, made one word where ``joined`` gives their text; any other word's text
    replaced where ``alone`` gives one."""
    out: list[OcrWord] = []
    n = 0
    while n < len(words):
        word = words[n]
        after = words[n + 1] if n + 1 < len(words) else None
        if (after is not None and after.line == word.line
                and 0 <= after.x0 - word.x1 <= reach * word.height):  # fmt: skip
            text = joined(word, after)
            if text:
                out.append(replace(word, text=text, x1=after.x1, conf=min(word.conf, after.conf)))
                n += 2
                continue
        text = alone(word)
        out.append(replace(word, text=text) if text else word)
        n += 1
    return tuple(out)


def _flush_right(
    words: Sequence[OcrWord], right: float, height: float, scan: ScanSettings = DEFAULT_SCAN
) -> list[OcrWord]:
    """The words ending at ``right``, within half a text ``height``
    (``ScanSettings.column_edge``): a figure's column."""
    return [w for w in words if abs(w.x1 - right) <= scan.column_edge * height]


def _column_peers(
    words: Sequence[OcrWord], word: OcrWord, scan: ScanSettings = DEFAULT_SCAN
) -> list[OcrWord]:
    """The other words of ``word``'s column (:func:`_flush_right`)."""
    return [w for w in _flush_right(words, word.x1, word.height, scan) if w is not word]


def _overlap(a: OcrWord, b: OcrWord) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.top < b.bottom and b.top < a.bottom


_FIGURE = re.compile(r"[-+(]?[$€£]?\d[\d,.]*%?\)?")
