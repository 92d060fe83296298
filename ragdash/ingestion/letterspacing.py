"""Letter-spaced extraction: ``0 9 / 1 8 / 2 0 15`` where the PDF shows ``09/18/2015``.

Some PDFs place every character on its own with a gap a little wider than pdfplumber's word
tolerance, so each character becomes a word. Such a line is rebuilt from its characters.

A *letter-spaced run* is a stretch of at least :data:`MIN_RUN` characters whose gaps are all
alike (within :data:`UNIFORM` points) and small (under :data:`MAX_GAP_SHARE` of the text
height), in which letters or digits sit next to letters or digits of their own kind
(``0 9``, ``R E``) at least twice — spaced operators (``q = 1 – p``) or table columns
(``1 2 3`` far apart) are not. Inside a run, a space is kept only where a gap is clearly
wider than the run's usual gap; the rest of the line keeps pdfplumber's spacing.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

__all__ = [
    "MAX_GAP_SHARE",
    "MIN_GAP",
    "MIN_RUN",
    "SPACE_EXTRA",
    "UNIFORM",
    "WORD_GAPS",
    "X_TOLERANCE",
    "looks_letter_spaced",
    "repair_line",
]

#: pdfplumber's default word tolerance: a wider gap between two characters is a space.
X_TOLERANCE = 3.0
MIN_RUN = 5
MIN_GAP = 1.0
MAX_GAP_SHARE = 0.6
UNIFORM = 1.5
#: A gap up to this many usual gaps wide, with spacing going on after it, is a word break
#: inside the run.
WORD_GAPS = 5.0
#: Inside a run, a gap wider than the usual one by this share of the height is a space.
SPACE_EXTRA = 0.2


def looks_letter_spaced(text: str) -> bool:
    """A cheap first look: at least four one-character words."""
    return sum(len(w) == 1 for w in text.split()) >= 4


def _kind(ch: str) -> str:
    return "digit" if ch.isdigit() else "letter" if ch.isalpha() else "other"


def _runs(glyphs: Sequence[dict[str, Any]], gaps: Sequence[float], height: float) -> list:
    """(first gap, last gap) index ranges of letter-spaced runs."""
    spaced = [MIN_GAP <= g <= MAX_GAP_SHARE * height for g in gaps]
    runs = []
    i = 0
    while i < len(gaps):
        if not spaced[i]:
            i += 1
            continue
        j = i

        def alike(k: int, first: float = gaps[i]) -> bool:
            return k < len(gaps) and spaced[k] and abs(gaps[k] - first) <= UNIFORM

        while j + 1 < len(gaps):
            if alike(j + 1):
                j += 1
            elif gaps[i] < gaps[j + 1] <= WORD_GAPS * gaps[i] and alike(j + 2):
                j += 2  # a word break inside letter-spaced text ("R E F   D U E")
            else:
                break
        if j - i + 2 >= MIN_RUN:
            pairs = sum(
                1
                for k in range(i, j + 1)
                if _kind(glyphs[k]["text"]) == _kind(glyphs[k + 1]["text"]) != "other"
            )
            if pairs >= 2:
                runs.append((i, j))
        i = j + 1
    return runs


def repair_line(text: str, chars: Sequence[dict[str, Any]]) -> str:
    """The line rebuilt from its characters if it holds a letter-spaced run, else ``text``."""
    if not looks_letter_spaced(text):
        return text
    glyphs = sorted((c for c in chars if not c.get("text", " ").isspace()), key=lambda c: c["x0"])
    if len(glyphs) < MIN_RUN:
        return text
    gaps = [b["x0"] - a["x1"] for a, b in zip(glyphs, glyphs[1:], strict=False)]
    height = statistics.median(max(c["bottom"] - c["top"], 1.0) for c in glyphs)
    runs = _runs(glyphs, gaps, height)
    if not runs:
        return text
    inside: dict[int, float] = {}
    for i, j in runs:
        usual = statistics.median(gaps[i : j + 1])
        for k in range(i, j + 1):
            inside[k] = usual
    out = glyphs[0]["text"]
    for k, (gap, char) in enumerate(zip(gaps, glyphs[1:], strict=True)):
        limit = inside[k] + SPACE_EXTRA * height if k in inside else X_TOLERANCE
        out += (" " if gap > limit else "") + char["text"]
    return out
