"""Code repairs: characters Tesseract reads for others inside one word (a brace for a
parenthesis, a bar for an ``l``, a letter between digits) and codes read in the shape the
page's other codes have."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings
from ragdash.ingestion.scan.words import _DIGIT_OF, OcrWord, _repair_pairs

__all__ = [
    "codes_like_the_page",
]


_SECTION_FIVE = re.compile(r"§[\d,.]*\d[\d,.]*")


#: A bar inside a word, with a letter or an apostrophe beside it.
_BAR_IN_WORD = re.compile(r"(?<=[^\W\d_'’])\||\|(?=[^\W\d_'’]|['’])")


#: A letter Tesseract reads for a digit, between two digits (``TRA6S13`` is ``TRA6513``).
_LETTER_IN_DIGITS = re.compile(r"(?<=\d)[SOolI](?=\d)")


#: A ``g`` opening a number (``g,237``, ``g85``): the 9 it looks like.
_NINE_AS_G = re.compile(r"g[\d,.]*\d[\d,.]*\d")


def _bar_letter(match: re.Match[str]) -> str:
    """``l`` for a bar read inside a lowercase word, ``I`` beside capitals."""
    text, at = match.string, match.start()
    near = text[max(0, at - 1) : at] + text[at + 1 : at + 2]
    letters = [ch for ch in near if ch.isalpha()]
    return "I" if letters and all(ch.isupper() for ch in letters) else "l"


def _brackets(text: str) -> str:
    """A brace Tesseract read for a parenthesis that closes or opens it (``{16.0-29.0)``),
    and a section sign read for the 5 that opens a number (``§3,113``, ``§,331``: a
    section sign opens no thousands: ``§12`` stays).

    >>> _brackets("{16.0-29.0)"), _brackets("(4.1}"), _brackets("{x}")
    ('(16.0-29.0)', '(4.1)', '{x}')
    >>> _brackets("§3,113"), _brackets("§,331"), _brackets("§12")
    ('53,113', '5,331', '§12')

    A bar beside a letter inside a word is the letter it looks like (``|’épicerie`` is
    ``l’épicerie``, ``|NCOME`` is ``INCOME``); a bar alone or between digits stays::

    >>> _brackets("|’épicerie"), _brackets("|NCOME"), _brackets("a|b"), _brackets("1|2")
    ('l’épicerie', 'INCOME', 'alb', '1|2')

    A letter shaped like a digit between two digits is that digit::

    >>> _brackets("TRA6S13"), _brackets("1O0"), _brackets("S13"), _brackets("6So")
    ('TRA6513', '100', 'S13', '6So')
    >>> _brackets("g,237"), _brackets("g85"), _brackets("g2"), _brackets("go")
    ('9,237', '985', 'g2', 'go')
    """
    if _SECTION_FIVE.fullmatch(text) and ("," in text or "." in text):  # §12 stays
        text = "5" + text[1:]
    if "|" in text and any(ch.isalpha() for ch in text):
        text = _BAR_IN_WORD.sub(_bar_letter, text)
    text = _LETTER_IN_DIGITS.sub(lambda m: _DIGIT_OF[m.group(0)], text)
    if _NINE_AS_G.fullmatch(text):
        text = "9" + text[1:]
    if "{" in text and ")" in text and "(" not in text and "}" not in text:
        text = text.replace("{", "(")
    if "}" in text and "(" in text and ")" not in text and "{" not in text:
        text = text.replace("}", ")")
    return text


_CODE = re.compile(r"[A-Z]{2,}[0-9]{2,}")


def _shape(text: str) -> str:
    return re.sub(r"[0-9]", "9", re.sub(r"[A-Z]", "A", text))


def codes_like_the_page(
    words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``words`` with a code the page has others of read in their shape: where capitals
    meet digits, a ``5`` read as ``S`` (``TRAS 143`` for ``TRA5143``, often cut in two at
    the misread letter) becomes the digit, and the two pieces one word, only when the
    result has the shape (``AAA9999``) of ``ScanSettings.code_evidence`` codes the page read
    surely (``TRA7314``, ``TRA9373``), more of them than of the shape as read. Without
    such evidence nothing changes: ``SS0`` stays for the ``ocr`` fix, ``TRAS`` may be a
    word.

    >>> page = [OcrWord(t, 0, 10 * n, 30, 10 * n + 6, 91.0, 1, n) for n, t in
    ...         enumerate(["TRA7314", "TRA9373"])]
    >>> cut = [OcrWord("TRAS", 0, 30, 19, 36, 78.0, 1, 9),
    ...        OcrWord("143", 21, 30, 30, 36, 96.0, 1, 9)]
    >>> [w.text for w in codes_like_the_page(page + cut)]
    ['TRA7314', 'TRA9373', 'TRA5143']
    >>> [w.text for w in codes_like_the_page(cut)]
    ['TRAS', '143']
    >>> twice = [OcrWord(t, 0, 50 + 10 * n, 30, 56 + 10 * n, 91.0, 1, 20 + n) for n, t in
    ...          enumerate(["TLES702", "DORS356"])]
    >>> [w.text for w in codes_like_the_page(page + [page[0]] + twice + cut)][-3:]
    ['TLE5702', 'DOR5356', 'TRA5143']
    """
    shapes: dict[str, int] = {}
    for w in words:
        if w.conf >= scan.low_confidence and _CODE.fullmatch(w.text):
            shapes[_shape(w.text)] = shapes.get(_shape(w.text), 0) + 1

    def as_code(text: str) -> str | None:
        m = re.fullmatch(r"([A-Z]+?)([SOIl]{1,2})([0-9]*)", text)
        if not m:
            return None
        code = m.group(1) + "".join(_DIGIT_OF[ch] for ch in m.group(2)) + m.group(3)
        evidence = shapes.get(_shape(code), 0)
        # the misread shape may recur (the same S for 5 elsewhere): the code's must outnumber it
        known = evidence >= scan.code_evidence and evidence > shapes.get(_shape(text), 0)
        return code if known and _CODE.fullmatch(code) else None

    if not shapes:
        return tuple(words)
    return _repair_pairs(
        words, scan.code_reach,
        lambda word, after: as_code(word.text + after.text) if after.text.isdigit() else None,
        lambda word: as_code(word.text) if any(ch.isdigit() for ch in word.text) else None,
    )  # fmt: skip
