"""Letter-spaced extraction: ``0 9 / 1 8 / 2 0 15`` where the PDF shows ``09/18/2015``.

Some PDFs place every character on its own with a gap a little wider than pdfplumber's word
tolerance, so each character becomes a word. A line is *letter-spaced* when most of its
words are single characters; it is rebuilt from its characters, breaking words only where a
gap is clearly wider than the line's usual letter gap.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

#: A line needs at least this many words, and this share of one-character words, to be
#: treated as letter-spaced.
MIN_WORDS = 6
SINGLE_SHARE = 0.6
#: A gap wider than the usual letter gap by this fraction of the text height is a space.
SPACE_EXTRA = 0.2


def looks_letter_spaced(text: str) -> bool:
    """Most words of the line are single characters (``2 0 1 5``)."""
    words = text.split()
    if len(words) < MIN_WORDS:
        return False
    return sum(len(w) == 1 for w in words) >= SINGLE_SHARE * len(words)


def repair_line(text: str, chars: Sequence[dict[str, Any]]) -> str:
    """The line rebuilt from its characters if it is letter-spaced, else ``text``."""
    if not looks_letter_spaced(text):
        return text
    glyphs = sorted((c for c in chars if not c.get("text", " ").isspace()), key=lambda c: c["x0"])
    if len(glyphs) < MIN_WORDS:
        return text
    gaps = [b["x0"] - a["x1"] for a, b in zip(glyphs, glyphs[1:], strict=False)]
    height = statistics.median(max(c["bottom"] - c["top"], 1.0) for c in glyphs)
    usual = statistics.median(gaps)
    out = glyphs[0]["text"]
    for gap, char in zip(gaps, glyphs[1:], strict=True):
        out += (" " if gap > usual + SPACE_EXTRA * height else "") + char["text"]
    return out
