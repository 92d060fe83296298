"""Text layers that are there but wrong: letters printed twice, and text that is no words.

Two classes a report must name, because "every page has text" is not "every page reads":

* **Overprinted** (bold by double printing): the PDF draws every glyph of a line twice at the
  same place, and pdfplumber reads ``HHIIGGHHLLIIGGHHTTSS FFRROOMM``. That is a clean doubling
  — the second glyph adds nothing — so the page is read again with duplicate glyphs dropped
  (:func:`without_overprint`) and the page is named in the report. A line whose words are
  doubled letter by letter after that (glyphs doubled at a small offset) is caught from the
  text (:func:`doubled_words`) and treated as garbled.
* **Garbled**: glyphs without a Unicode mapping (``(cid:72)``) or runs of letters that are no
  words (vowel-less, case flipping inside a word): retrieval sees noise there. Those pages
  are named with the way to OCR them instead (``ocr_pages`` in ``metadata.csv``, or
  ``inspect --ocr-pages``; see :func:`ragdash.ingestion.scans.parse_page_list`).

    >>> doubled_words("HHIIGGHHLLIIGGHHTTSS FFRROOMM PPIIRRLLSS 22001111")
    ['HHIIGGHHLLIIGGHHTTSS', 'FFRROOMM', 'PPIIRRLLSS', '22001111']
    >>> is_garbled("Claims are filed on the portal within thirty days " * 3)
    False
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragdash.errors import SettingsError
from ragdash.text import shortened

__all__ = [
    "GARBLED_SHARE",
    "MIN_TOKENS",
    "OVERPRINT_MIN",
    "TextLayerNotes",
    "doubled_words",
    "garbled_pages",
    "garbled_share",
    "is_garbled",
    "overprinted",
    "MAX_OCR_PAGES_SPEC",
    "page_list",
    "page_spec",
    "parse_page_list",
    "without_overprint",
]

#: A page with at least this many glyphs drawn twice at the same place is read once more
#: with the duplicates dropped (fewer is a dot or a rule drawn twice: nothing to read).
OVERPRINT_MIN = 8
#: A page is garbled when at least this share of its letter tokens are no words.
GARBLED_SHARE = 0.4
#: Below this many letter tokens a page says too little to judge.
MIN_TOKENS = 12

_CID = re.compile(r"\(cid:\d+\)")
# A word of unmapped glyphs: three or more in a row. One alone is a symbol (a math font's
# glyph between spaces), which costs a formula, not the page's words.
_CID_WORD = re.compile(r"(?:\(cid:\d+\)){3,}")
_LETTERS = re.compile(r"[^\W\d_]+")
_VOWELS = frozenset("aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿœ")
_CONSONANT_RUN = re.compile(r"[b-df-hj-np-tv-xz]{6,}")


def overprinted(chars: Iterable[dict[str, Any]]) -> int:
    """How many of ``chars`` (pdfplumber character dicts) repeat a glyph already drawn at the
    same place (same text, within a point) — the ink of bold-by-double-printing."""
    seen: set[tuple[str, int, int]] = set()
    repeats = 0
    for char in chars:
        text = char.get("text", "")
        if not text or text.isspace():
            continue
        key = (text, round(char["x0"]), round(char["top"]))
        if key in seen:
            repeats += 1
        else:
            seen.add(key)
    return repeats


def without_overprint(page: Any) -> tuple[Any, bool]:
    """``page`` with glyphs drawn twice at the same place read once (pdfplumber's
    ``dedupe_chars``), and whether any were; the page itself when fewer than
    :data:`OVERPRINT_MIN` glyphs repeat (the cheap count runs on every page, the dedupe only
    where it matters)."""
    if overprinted(page.chars) < OVERPRINT_MIN:
        return page, False
    return page.dedupe_chars(), True


def _doubled(word: str) -> bool:
    return (
        len(word) >= 4
        and len(word) % 2 == 0
        and all(word[i] == word[i + 1] for i in range(0, len(word), 2))
    )


def doubled_words(line: str) -> list[str]:
    """The words of ``line`` spelled with every character twice (``FFRROOMM``), when they are
    at least two and half the line's words — one ``AABB`` is a code, a line of them a
    doubled text layer."""
    words = line.split()
    found = [w for w in words if _doubled(w)]
    return found if len(found) >= 2 and 2 * len(found) >= len(words) else []


def _no_word(token: str) -> bool:
    lower = token.lower()
    if not lower.isascii():
        return not any(ch in _VOWELS for ch in lower) and lower.isalpha() and len(lower) > 3
    if len(lower) < 3:
        return False
    if not any(ch in _VOWELS for ch in lower):
        return True
    if _CONSONANT_RUN.search(lower):
        return True
    # case flipping inside a word ("sPUEMNMDIAXR"): not "McDonald", "iPhone" or "SQLite"
    flips = sum(a.islower() and b.isupper() for a, b in zip(token, token[1:], strict=False))
    return flips >= 1 and token[0].islower() and sum(ch.isupper() for ch in token) >= 3


def garbled_share(text: str) -> tuple[float, int]:
    """The share of ``text``'s letter tokens that are no words (unmapped ``(cid:N)`` glyphs
    count as such when three or more make a word), and how many tokens were judged. Scripts
    written without spaces (CJK) have no vowels to test and are never judged garbled here."""
    cids = len(_CID_WORD.findall(text))
    text = _CID.sub(" ", _CID_WORD.sub(" ", text))
    tokens = [t for t in _LETTERS.findall(text) if t.isascii() or not _cjk_like(t)]
    lines = [line for line in text.splitlines() if doubled_words(line)]
    doubled = sum(len(doubled_words(line)) for line in lines)
    bad = cids + doubled + sum(_no_word(t) for t in tokens if not _doubled(t))
    total = cids + len(tokens)
    return (bad / total if total else 0.0), total


def _cjk_like(token: str) -> bool:
    return any(ord(ch) > 0x2E80 for ch in token)


def is_garbled(text: str) -> bool:
    """True when at least :data:`GARBLED_SHARE` of a page's (at least :data:`MIN_TOKENS`)
    letter tokens are no words (a doubled line's words count among them)."""
    share, total = garbled_share(text)
    return total >= MIN_TOKENS and share >= GARBLED_SHARE


def garbled_pages(pages: Sequence[str], layouts: Sequence[Any] = ()) -> tuple[int, ...]:
    """The pages (1-based) whose text layer reads as noise (:func:`is_garbled`) or still
    spells a line letter by letter twice — not the pages OCR read (``layouts[n].ocr`` set):
    their text is OCR's, not the layer's."""
    return tuple(
        n
        for n, text in enumerate(pages, start=1)
        if text.strip()
        and not (n <= len(layouts) and getattr(layouts[n - 1], "ocr", None) is not None)
        and (is_garbled(text) or any(doubled_words(line) for line in text.splitlines()))
    )


def page_list(pages: Sequence[int], limit: int = 12) -> str:
    """Pages as a reader says them: ``2 and 400``, ``3, 5 and 9``, cut at ``limit`` with the
    number left out said.

        >>> page_list([2, 400])
        '2 and 400'
        >>> page_list(list(range(1, 20)), 3)
        '1, 2, 3 and 16 more'
    """
    items = [str(p) for p in sorted(set(pages))]
    if len(items) > limit:
        return shortened(items, limit)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def page_spec(pages: Sequence[int]) -> str:
    """Pages as the ``ocr_pages`` option takes them, runs folded: ``3-5,9``.

    >>> page_spec([9, 3, 4, 5])
    '3-5,9'
    """
    ordered = sorted(set(pages))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


#: The longest ``ocr_pages`` value read (a typed or pasted value, bounded like every input).
MAX_OCR_PAGES_SPEC = 2000
_PAGE_ITEM = re.compile(r"(\d{1,5})(?:\s*-\s*(\d{1,5}))?")


def parse_page_list(text: str, max_pages: int | None = None) -> tuple[int, ...]:
    """Pages as a person writes them — ``3, 5-7`` — as a sorted tuple of page numbers (the
    ``ocr_pages`` option of ``metadata.csv`` and ``inspect --ocr-pages``). Only whole numbers
    and ranges: anything else raises :class:`~ragdash.errors.SettingsError` naming it.

        >>> parse_page_list("3, 5-7")
        (3, 5, 6, 7)
        >>> parse_page_list("")
        ()
    """
    text = text.strip()
    if not text:
        return ()
    if len(text) > MAX_OCR_PAGES_SPEC:
        raise SettingsError(f"OCR pages: {len(text)} characters is too long a page list")
    pages: set[int] = set()
    for item in text.replace(";", ",").split(","):
        match = _PAGE_ITEM.fullmatch(item.strip())
        if not match:
            raise SettingsError(
                f"OCR pages: {item.strip()[:30]!r} is not a page or a range like 5-7"
            )
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if first < 1 or last < first:
            raise SettingsError(f"OCR pages: {item.strip()!r} is not a range of pages from 1")
        if max_pages is not None and last > max_pages:
            raise SettingsError(f"OCR pages: page {last} is past the last page ({max_pages})")
        if last - first > 10_000:
            raise SettingsError(f"OCR pages: {item.strip()!r} is too long a range")
        pages.update(range(first, last + 1))
    return tuple(sorted(pages))


@dataclass(frozen=True)
class TextLayerNotes:
    """Pages whose text layer was repaired (``overprinted``: glyphs drawn twice, read once)
    and pages whose layer reads as noise (``garbled``) — what the verdict says about them."""

    overprinted: tuple[int, ...] = ()
    garbled: tuple[int, ...] = ()

    def notes(self) -> list[str]:
        """The verdict's sentences about these pages (none when there are none)."""
        out = []
        if self.overprinted:
            out.append(
                f"page(s) {page_list(self.overprinted)} print every letter twice in their text "
                "layer (bold by double printing, read as 'HHEELLLLOO'); the duplicates were "
                "dropped so they read once — check the page text"
            )
        if self.garbled:
            spec = page_spec(self.garbled)
            out.append(
                f"page(s) {page_list(self.garbled)} have a garbled text layer (letters that "
                "form no words, or glyphs without a character): retrieval sees noise there — "
                f"OCR them instead (ocr_pages '{spec}' in metadata.csv, or "
                f"inspect --ocr-pages {spec})"
            )
        return out
