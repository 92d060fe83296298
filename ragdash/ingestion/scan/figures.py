"""Figure repairs: numbers read again on their own, lone cells found, and a figure read as its
column writes the others (separators, decimal points, signs, look-alike letters)."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ragdash.ingestion.scan.lines import _rows
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings
from ragdash.ingestion.scan.tesseract import ocr_images
from ragdash.ingestion.scan.words import (
    _DIGIT_OF,
    _FIGURE,
    OcrWord,
    _column_peers,
    _flush_right,
    _repair_pairs,
)

__all__ = [
    "daggers_from_glyphs",
    "decimals_like_the_column",
    "figures_like_the_column",
    "lone_figures",
    "relations_from_glyphs",
    "reread_numbers",
    "separators_like_the_column",
    "signs_like_the_column",
]


def reread_numbers(
    image: Any, scale: float, lang: str, words: Sequence[OcrWord],
    scan: ScanSettings = DEFAULT_SCAN,
) -> tuple[OcrWord, ...]:
    """``words`` with the numbers Tesseract was unsure of read again on their own, enlarged
    ``ScanSettings.reread_scale`` times (``--psm 7``, one line), the new reading kept when it is one
    word with a digit and surer than the first. At 200 dpi small digits are a few pixels
    high, and a page reading of a blurred table took ``5`` for ``6`` (``53,113`` as
    ``63,113``) in one row of three; the enlarged word reads as printed, but a whole page
    enlarged lost its table columns to Tesseract's layout analysis, so only the words
    are. A short unsure word of capitals and marks (``TT?``, ``LL?``) is read again too:
    it is how a blurred ``77`` or ``117`` comes back; it is replaced only by a reading
    with a digit. One word over a column gap (:func:`_pieces`) is read again cell by
    cell."""
    unsure = sorted(
        (n for n, w in enumerate(words)
         if w.conf < scan.reread_confidence and (any(ch.isdigit() for ch in w.text)
                                            or _number_like(w, scan))),
        key=lambda n: words[n].conf,
    )[:scan.reread_limit]  # fmt: skip
    jobs: list[tuple[int, int, OcrWord]] = []  # (word, its piece or -1, what is read)
    for n in unsure:
        pieces = _pieces(image, scale, words[n], scan)
        if len(pieces) > 1:  # one "word" over a column gap: each cell read on its own
            jobs.extend((n, k, piece) for k, piece in enumerate(pieces))
        else:
            jobs.append((n, -1, words[n]))
    again = _read_again(image, scale, lang, [word for _, _, word in jobs], scan)
    out: list[OcrWord | tuple[OcrWord, ...]] = list(words)
    cells: dict[int, list[OcrWord | None]] = {}
    for (n, k, _), read in zip(jobs, again, strict=True):
        if k < 0:
            if read is not None:
                out[n] = read
        else:
            cells.setdefault(n, []).append(read)
    for n, read_cells in cells.items():
        if all(r is not None for r in read_cells):
            out[n] = tuple(r for r in read_cells if r is not None)
    return tuple(w for item in out for w in (item if isinstance(item, tuple) else (item,)))


def _read_again(
    image: Any, scale: float, lang: str, words: Sequence[OcrWord],
    scan: ScanSettings = DEFAULT_SCAN,
) -> list[OcrWord | None]:
    """Each of ``words`` read again on its own (:func:`reread_numbers`), or None where no
    reading is one surer word with a digit. The first try of every word is read by one
    Tesseract call (:func:`~ragdash.ingestion.scan.tesseract.ocr_images`), the two others of
    the words it left unread by one more; a word's first surer try wins, as when the words
    were read one at a time, try after try."""
    from PIL import Image, ImageOps

    tries: list[list[tuple[Any, int]]] = []  # per word, its images to try and their scale
    for word in words:
        pad = scan.reread_pad * word.height
        crop = image.crop((
            max(0, int((word.x0 - pad) * scale)), max(0, int((word.top - pad) * scale)),
            int(math.ceil((word.x1 + pad) * scale)), int(math.ceil((word.bottom + pad) * scale)),
        ))  # fmt: skip
        if crop.width < 2 or crop.height < 2:
            tries.append([])
            continue
        size = (crop.width * scan.reread_scale, crop.height * scan.reread_scale)
        big = crop.resize(size, Image.Resampling.BICUBIC)
        # enlarged smoothly first (it read blurred small digits as printed); when that has
        # no surer number, at its own size with a white margin, then enlarged in black and
        # white (an enlarged blur made Tesseract read a plain 117 as "LL?" that it read at
        # 96% unenlarged); the first surer reading with a digit is kept
        tries.append([
            (big, scan.reread_scale),
            (ImageOps.expand(crop, border=max(4, crop.height // 2), fill=255), 1),
            (big.point(lambda v: 0 if v < scan.binary_level else 255), scan.reread_scale),
        ])  # fmt: skip
    found: list[OcrWord | None] = [None] * len(words)
    # the first try alone, then the other two together: most words read at the first, and
    # a word's later tries cost little beside Tesseract's start (the first surer one wins)
    for steps in ((0,), (1, 2)):
        left = [n for n, t in enumerate(tries) if found[n] is None and len(t) > steps[-1]]
        if not left:
            break
        readings = ocr_images([tries[n][k][0] for n in left for k in steps],
                              [scale * tries[n][k][1] for n in left for k in steps], lang,
                              psm=scan.reread_psm, scan=scan)  # fmt: skip
        for i, n in enumerate(left):
            word = words[n]
            for again in readings[i * len(steps):(i + 1) * len(steps)]:
                if len(again) == 1 and again[0].conf > word.conf and any(
                    ch.isdigit() for ch in again[0].text
                ):
                    found[n] = replace(word, text=again[0].text, conf=again[0].conf)
                    break
    return found


def _pieces(
    image: Any, scale: float, word: OcrWord, scan: ScanSettings = DEFAULT_SCAN
) -> list[OcrWord]:
    """``word`` cut at the blank strips of ``ScanSettings.cell_gap`` or wider inside its box:
    Tesseract read two census cells ``373`` and ``317``, a column apart, as one word ``373-317``.
    The pieces have the word's text (read again by the caller)."""
    import numpy as np

    box = (int(word.x0 * scale), int(word.top * scale),
           int(math.ceil(word.x1 * scale)), int(math.ceil(word.bottom * scale)))  # fmt: skip
    ink = np.asarray(image.crop(box).convert("L")) < scan.binary_level
    if ink.size == 0:
        return [word]
    inked = np.asarray(ink.any(axis=0))
    wide = scan.cell_gap * word.height * scale
    pieces, start, blank = [], None, 0
    for x, has_ink in enumerate(inked):
        if has_ink:
            if start is not None and blank >= wide:
                pieces.append((start, x - blank))
                start = x
            elif start is None:
                start = x
            blank = 0
        else:
            blank += 1
    if start is not None:
        pieces.append((start, len(inked) - blank))
    if len(pieces) < 2:
        return [word]
    return [replace(word, x0=round(word.x0 + a / scale, 2), x1=round(word.x0 + b / scale, 2))
            for a, b in pieces]  # fmt: skip


def _among_figures(words: Sequence[OcrWord], one: bool = False) -> set[int]:
    """The ``id`` of each word whose neighbours on its line are figures (a digit, no
    letter), with at least one neighbour: a table cell, not the ``2011`` of a running
    line's ``January 14, 2011 /`` or the ``60`` of ``Vol. 60``. With ``one``, a word with
    one figure beside it (the first cell after a row's label, a cell beside a dash)."""
    def figure(word: OcrWord | None) -> bool:
        return word is not None and bool(re.search(r"\d", word.text)) and not re.search(
            r"[^\W\d_]", word.text)

    among = set()
    for n, word in enumerate(words):
        before = words[n - 1] if n and words[n - 1].line == word.line else None
        after = words[n + 1] if n + 1 < len(words) and words[n + 1].line == word.line else None
        near = [w for w in (before, after) if w is not None]
        if near and (any if one else all)(figure(w) for w in near):
            among.add(id(word))
    return among


_THOUSANDS = re.compile(r"\d{1,3}(,\d{3})+(\.\d+)?")


_POINT_THOUSANDS = re.compile(r"\d{1,3}\.\d{3}")


_BARE_THOUSANDS = re.compile(r"[1-9]\d{3,}")


def separators_like_the_column(
    words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``words`` with a thousands separator read as in its column: at 200 dpi a comma
    reads as a point (``53.113``) or as nothing (``12 530``, two words). When at least
    ``ScanSettings.separator_evidence`` sure figures ending at the same right edge are written
    ``49,674`` and none ``49.674``, the point becomes a comma and the two pieces one figure.
    A comma lost altogether (``77430``) is put back too, when no other figure there is
    written without one, and a four-digit figure only where the column writes its own
    four-digit figures with a comma (some styles write ``3542`` but ``12,530``).

    >>> col = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 95.0, 1, n) for n, t in
    ...        enumerate(["49,674", "51,020", "52,384"])]
    >>> odd = [OcrWord("53.113", 10, 40, 30, 46, 88.0, 1, 4),
    ...        OcrWord("12", 50, 40, 56, 46, 90.0, 1, 4),
    ...        OcrWord("530", 58, 40, 70, 46, 90.0, 1, 4)]
    >>> more = [OcrWord(t, 48, 10 * n, 70, 10 * n + 6, 95.0, 1, n) for n, t in
    ...         enumerate(["13,397", "12,998", "13,051"])]
    >>> [w.text for w in separators_like_the_column(col + more + odd)][-2:]
    ['53,113', '12,530']
    >>> [w.text for w in separators_like_the_column(odd)]
    ['53.113', '12', '530']
    >>> rate = OcrWord("71.8", 0, 40, 8, 46, 90.0, 1, 4)
    >>> lost, short = (OcrWord("77430", 12, 40, 30, 46, 83.0, 1, 4),
    ...                OcrWord("4243", 15, 40, 30, 46, 90.0, 1, 4))
    >>> [w.text for w in separators_like_the_column([*col, rate, lost])][-1]
    '77,430'
    >>> [w.text for w in separators_like_the_column([*col, rate, short])][-1]
    '4243'
    >>> [w.text for w in separators_like_the_column([*col, rate, lost, rate, lost])][-1]
    '77430'
    >>> year = OcrWord("2011", 15, 40, 30, 46, 96.0, 1, 4)
    >>> [w.text for w in separators_like_the_column([*col, rate, year])][-1]
    '2011'
    >>> [w.text for w in separators_like_the_column([
    ...     *col, replace(rate, text="January"), replace(year, text="77430")])][-1]
    '77430'
    """
    cells = _among_figures(words)

    def column_uses_commas(right: float, height: float, digits: int = 0) -> bool:
        peers = _flush_right(words, right, height, scan)
        commas = [w for w in peers
                  if w.conf >= scan.low_confidence and _THOUSANDS.fullmatch(w.text)]  # fmt: skip
        points = sum(bool(_POINT_THOUSANDS.fullmatch(w.text)) for w in peers)
        short = any(len(re.sub(r"\D", "", w.text.split(".")[0])) <= digits for w in commas)
        return (len(commas) >= scan.separator_evidence and points <= scan.separator_points
                and (digits != 4 or short))  # fmt: skip

    def pair(word: OcrWord, after: OcrWord) -> str | None:
        if (re.fullmatch(r"\d{1,3}", word.text) and re.fullmatch(r"\d{3}", after.text)
                and column_uses_commas(after.x1, word.height)):  # fmt: skip
            return f"{word.text},{after.text}"
        return None

    def point(word: OcrWord) -> str | None:
        if _POINT_THOUSANDS.fullmatch(word.text) and column_uses_commas(word.x1, word.height):
            return word.text.replace(".", ",")
        if (_BARE_THOUSANDS.fullmatch(word.text) and id(word) in cells
                and column_uses_commas(word.x1, word.height, len(word.text))
                and sum(bool(_BARE_THOUSANDS.fullmatch(w.text)) for w in
                        _flush_right(words, word.x1, word.height, scan)) == 1):  # fmt: skip
            return f"{int(word.text):,}"
        return None

    return _repair_pairs(words, scan.separator_reach, pair, point)


_DECIMAL = re.compile(r"\d[\d,]*\.(\d+)")


_WHOLE = re.compile(r"\d[\d,]*")


def decimals_like_the_column(
    words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``words`` with a decimal point put back where its column says one was lost: at
    200 dpi a small point can vanish (``1044`` for ``104.4``). When at least
    ``ScanSettings.decimal_evidence`` figures ending at the same right edge have a point and the
    same number of decimals, a whole number longer than the decimals gets the point — if no
    other figure there is a whole number, or if at least ``decimal_share`` of the
    ``decimal_neighbours`` figures of the column nearest it (above or below) have the point
    (at that share exactly, when the nearest of them has it). The first cell after a
    row's label, or a cell beside a dash, has one figure beside it, not two: it is judged
    by those nearest figures too.
    At 150 dpi and a low JPEG quality small type loses half its points (``27 48 78`` for
    ``2.7 4.8 7.8``: the column's lost points are whole numbers too, so the first test
    alone repairs nothing); a table of counts under a table of rates at the same right edge
    keeps its whole numbers, its nearest figures being counts. The points are the evidence,
    so unsure digits count.

    >>> col = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 55.0, 1, n) for n, t in
    ...        enumerate(["16.2", "348.2", "950.4"])]
    >>> count = OcrWord("49,736", 0, 40, 8, 46, 83.0, 1, 4)
    >>> lost = OcrWord("1044", 10, 40, 30, 46, 89.0, 1, 4)
    >>> [w.text for w in decimals_like_the_column([*col, count, lost])][-1]
    '104.4'
    >>> mixed = [OcrWord(t, 20, 50 + 10 * n, 30, 56 + 10 * n, 96.0, 1, 5 + n) for n, t in
    ...          enumerate(["12", "40", "33", "27"])]
    >>> below = replace(lost, top=90, bottom=96, line=9)  # its nearest figures: whole
    >>> [w.text for w in decimals_like_the_column([*col, *mixed, below])][-1]
    '1044'
    >>> volume = [OcrWord("Vol.", 0, 40, 8, 46, 96.0, 1, 4), OcrWord("60", 22, 40, 30, 46,
    ...           94.0, 1, 4)]
    >>> [w.text for w in decimals_like_the_column([*col, *volume])][-1]
    '60'
    >>> half = [w for n, t in enumerate(["2.7", "48", "7.8", "95", "7.3", "2.1", "12"])
    ...         for w in (OcrWord("0.4", 0, 10 * n, 8, 10 * n + 6, 90.0, 1, n),
    ...                   OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 90.0, 1, n))]
    >>> [w.text for w in decimals_like_the_column(half)][1::2]
    ['2.7', '4.8', '7.8', '9.5', '7.3', '2.1', '1.2']
    >>> label = [OcrWord("alien", -30, 30, -5, 36, 96.0, 1, 3), OcrWord("27", 10, 30, 30,
    ...          36, 90.0, 1, 3), OcrWord("4.8", 40, 30, 52, 36, 90.0, 1, 3)]
    >>> [w.text for w in decimals_like_the_column([*col, *label])][-2]  # first cell of a row
    '2.7'
    >>> counts = [w for n, t in enumerate(["466", "265", "57", "190"])
    ...           for w in (OcrWord("0.4", 0, 60 + 10 * n, 8, 66 + 10 * n, 90.0, 1, 20 + n),
    ...                     OcrWord(t, 10, 60 + 10 * n, 30, 66 + 10 * n, 90.0, 1, 20 + n))]
    >>> [w.text for w in decimals_like_the_column([*col, *counts])][4::2]
    ['466', '265', '57', '190']
    """
    cells = _among_figures(words)
    beside = _among_figures(words, one=True)

    def alone(word: OcrWord) -> str | None:
        if not re.fullmatch(r"\d+", word.text) or id(word) not in beside:
            return None
        peers = _column_peers(words, word, scan)
        decimals = {len(m.group(1)) for w in peers if (m := _DECIMAL.fullmatch(w.text))}
        counted = sum(bool(_DECIMAL.fullmatch(w.text)) for w in peers)
        whole = any(_WHOLE.fullmatch(w.text) for w in peers)
        if counted < scan.decimal_evidence or len(decimals) != 1:
            return None
        if whole or id(word) not in cells:  # the first cell after a label, or one beside
            # a dash, too: the nearest figures of the column say whether it lost its point
            figures = [w for w in peers if _WHOLE.fullmatch(w.text) or _DECIMAL.fullmatch(w.text)]
            near = sorted(figures, key=lambda w: abs(w.top - word.top))[:scan.decimal_neighbours]
            pointed = sum(bool(_DECIMAL.fullmatch(w.text)) for w in near)
            need = scan.decimal_share * len(near)  # at the share exactly, the nearest decides
            if pointed < need or (pointed == need and not _DECIMAL.fullmatch(near[0].text)):
                return None
        places = decimals.pop()
        if len(word.text) <= places:
            return None
        return f"{word.text[:-places]}.{word.text[-places:]}"

    return _repair_pairs(words, 0.0, lambda _word, _after: None, alone)


_PLAIN_FIGURE = re.compile(r"\(?\d[\d,]*(\.\d+)?\)?")


_SIGNED_FIGURE = re.compile(r"(\(?)[$S](\d[\d,]*(\.\d+)?\)?)")


def signs_like_the_column(
    words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``words`` with a leading ``5`` read as ``$`` or ``S`` (``$2.7`` for ``52.7``,
    ``(S000`` for ``(5000``) read as the digit, where the figure's column says so: at least
    ``ScanSettings.sign_evidence`` sure figures with no sign end at the same right edge and no other
    figure there has one. A column of amounts that all carry a ``$`` keeps them, and so
    does a column's first figure read surely (a statement's style signs only the first row
    and the totals: ``$1,234`` above ``567``); read unsurely, a first ``$2.7`` is the blur.

    >>> col = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 95.0, 1, n) for n, t in
    ...        enumerate(["28.7", "13.1", "17.0"])]
    >>> odd = OcrWord("$2.7", 10, 40, 30, 46, 80.0, 1, 4)
    >>> [w.text for w in signs_like_the_column([*col, odd])][-1]
    '52.7'
    >>> first = replace(odd, top=-10, bottom=-4, line=-1, conf=93.0)
    >>> [w.text for w in signs_like_the_column([first, *col])][0]
    '$2.7'
    >>> [w.text for w in signs_like_the_column([replace(first, conf=63.0), *col])][0]
    '52.7'
    >>> money = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 95.0, 1, n) for n, t in
    ...          enumerate(["$8.6", "$3.9", "$6.1", "$4.6"])]
    >>> [w.text for w in signs_like_the_column([*money, odd])][-1]
    '$2.7'
    >>> feet = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 96.0, 1, n) for n, t in
    ...         enumerate(["(7000", "(9000", "(6000", "(S000"])]
    >>> [w.text for w in signs_like_the_column(feet)][-1]
    '(5000'
    """
    def plain_column(word: OcrWord) -> bool:
        peers = _column_peers(words, word, scan)
        plain = [w for w in peers
                 if w.conf >= scan.low_confidence and _PLAIN_FIGURE.fullmatch(w.text)]  # fmt: skip
        signed = sum(bool(_SIGNED_FIGURE.fullmatch(w.text)) for w in peers)
        first = not any(w.bottom <= word.top for w in plain)
        sure_sign = first and word.conf >= scan.low_confidence
        return len(plain) >= scan.sign_evidence and signed == 0 and not sure_sign

    def alone(word: OcrWord) -> str | None:
        found = _SIGNED_FIGURE.fullmatch(word.text)
        return found.group(1) + "5" + found.group(2) if found and plain_column(word) else None

    return _repair_pairs(words, 0.0, lambda _word, _after: None, alone)


#: Letters OCR reads for a digit in a blurred figure (``TT`` for ``77``).
_DIGIT_LOOKALIKES = {**_DIGIT_OF, "T": "7", "B": "8", "Z": "2", "G": "6"}


def figures_like_the_column(
    words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``words`` with an unsure short word made only of letters that look like digits
    (``TT`` at 48% for ``77``) read as the figure, where both its column and its row say
    it is one: at least ``ScanSettings.sign_evidence`` sure plain figures end at the same right
    edge and they are ``ScanSettings.figure_column_share`` of the words there, and its line has two
    other figures, no fewer than its other words. A sure word, one in a column of words
    or one in a line of text (a rotated header read as ``a > 2 2 wn a wo oO 5``) stays.

    >>> col = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 96.0, 1, n) for n, t in
    ...        enumerate(["159", "52", "144", "43"])]
    >>> row = [OcrWord("Austria", -40, 40, -10, 46, 96.0, 1, 4),
    ...        OcrWord("TT", 20, 40, 30, 46, 48.0, 1, 4), OcrWord("1", 50, 40, 53, 46, 92.0, 1, 4),
    ...        OcrWord("78", 70, 40, 78, 46, 95.0, 1, 4)]
    >>> [w.text for w in figures_like_the_column([*col, *row])][-3]
    '77'
    >>> [w.text for w in figures_like_the_column([*col, *row[:2]])][-1]
    'TT'
    """
    def as_figure(word: OcrWord) -> str | None:
        if (word.conf >= scan.low_confidence or not 0 < len(word.text) <= scan.lookalike_length
                or any(ch not in _DIGIT_LOOKALIKES for ch in word.text)):  # fmt: skip
            return None
        peers = _column_peers(words, word, scan)
        plain = sum(w.conf >= scan.low_confidence and bool(_PLAIN_FIGURE.fullmatch(w.text))
                    for w in peers)  # fmt: skip
        figures = sum(bool(_PLAIN_FIGURE.fullmatch(w.text)) for w in peers)
        line = [w for w in words if w.line == word.line and w is not word]
        row = sum(bool(_PLAIN_FIGURE.fullmatch(w.text)) for w in line)
        if (plain < scan.sign_evidence or figures < scan.figure_column_share * len(peers)
                or row < scan.lookalike_row or row < len(line) - row):  # fmt: skip
            return None
        return "".join(_DIGIT_LOOKALIKES[ch] for ch in word.text)

    return _repair_pairs(words, 0.0, lambda _word, _after: None, as_figure)


def lone_figures(
    image: Any, scale: float, lang: str, words: Sequence[OcrWord],
    scan: ScanSettings = DEFAULT_SCAN,
) -> list[OcrWord]:
    """Figures alone in their cell that no reading of the page has: in a row of a table of
    numbers (``ScanSettings.figure_row`` figures or more), each patch of ink on the row's band that
    no word covers, letter-sized, is read on its own, enlarged, and kept when it is a figure
    read ``ScanSettings.lone_figure_confidence`` surely. Tesseract drops a lone ``0`` between two
    wider counts (``835 0 1914`` came back ``835 1914``): one narrow glyph in a wide gap
    reads to its layout analysis as a speck. Each joins the Tesseract line of its row's
    nearest word, so that it stays in the gap it was found in. A patch that is two dots one
    above the other (:func:`_colon_dots`) is a ``:``, not read: statistical tables (Eurostat's)
    print ``:`` for "not available", and Tesseract dropped every one of set 3's
    icdar2013-eu-012 (``1995 59.0 … 60.1 : : :`` came back ``1995 59.0 … 60.1``)."""
    import numpy as np
    from PIL import Image

    spots: list[tuple[Any, int, int, int, Sequence[OcrWord]]] = []  # (image, a, pad, y0, row)
    colons: list[OcrWord] = []
    for row in _rows(words, scan):
        if sum(bool(_FIGURE.fullmatch(w.text)) for w in row) < scan.figure_row:
            continue
        height = statistics.median(w.height for w in row)
        foot = statistics.median(w.bottom for w in row if _FIGURE.fullmatch(w.text))
        top, bottom = min(w.top for w in row), max(w.bottom for w in row)
        y0, y1 = int(top * scale), int(math.ceil(bottom * scale))
        band = np.asarray(image.crop((0, y0, image.width, y1)).convert("L")) < scan.binary_level
        if band.size == 0:
            continue
        band = band.copy()
        for w in words:  # what is read already, with a margin of a fifth of the height
            pad = scan.lone_cover_pad * w.height
            if w.bottom < top or w.top > bottom:
                continue
            band[:, max(0, int((w.x0 - pad) * scale)): int(math.ceil((w.x1 + pad) * scale))] = False
        inked = np.asarray(band.any(axis=0))
        join = max(1, int(scan.lone_join * height * scale))
        x, runs = 0, []
        while x < len(inked):
            if not inked[x]:
                x += 1
                continue
            start = end = x
            while x < len(inked) and x - end <= join:
                if inked[x]:
                    end = x
                x += 1
            runs.append((start, end + 1))
        for a, b in runs:
            dots = _colon_dots(band[:, a:b], height * scale, foot * scale - y0, scan)
            if dots is not None:  # a ":" ("not available"): Tesseract drops it as specks
                near = min(row, key=lambda w: abs(w.x1 - a / scale))
                colons.append(OcrWord(
                    ":", round(a / scale, 2), round((y0 + dots[0]) / scale, 2),
                    round(b / scale, 2), round((y0 + dots[1]) / scale, 2),
                    scan.sure_confidence, near.block, near.line,  # seen, not guessed
                ))  # fmt: skip
                continue
            rows_inked = band[:, a:b].any(axis=1)
            tall = int(rows_inked.sum())
            if (tall < scan.lone_min_height * height * scale
                    or (b - a) < scan.lone_min_width * height * scale):  # fmt: skip
                continue  # a speck, a rule's remnant
            if (b - a) > scan.lone_max_width * height * scale:
                continue  # a line of text, not a lone cell
            pad = int(scan.lone_crop_pad * height * scale) + 2
            crop = image.crop((max(0, a - pad), max(0, y0 - pad), b + pad, y1 + pad))
            big = crop.resize((crop.width * scan.reread_scale, crop.height * scan.reread_scale),
                              Image.Resampling.BICUBIC)  # fmt: skip
            spots.append((big, a, pad, y0, row))
    # as a line first, then as one word: a lone 7 read as a line came back "t" at 9%, as a
    # word "7" at 93% (each reading must be a sure figure to be kept); every spot of the
    # page is read in one Tesseract call per mode (ocr_images)
    readings: list[OcrWord | None] = [None] * len(spots)
    for psm in scan.lone_figure_psms:
        left = [n for n in range(len(spots)) if readings[n] is None]
        if not left:
            break
        tried = ocr_images([spots[n][0] for n in left], [scale * scan.reread_scale] * len(left),
                           lang, psm=psm, scan=scan)  # fmt: skip
        for n, read in zip(left, tried, strict=True):
            if (len(read) == 1 and read[0].conf >= scan.lone_figure_confidence
                    and _FIGURE.fullmatch(read[0].text)):  # fmt: skip
                readings[n] = read[0]
    found: list[OcrWord] = colons
    for (_big, a, pad, y0, its_row), lone in zip(spots, readings, strict=True):
        if lone is None:
            continue
        x0 = max(0, a - pad) / scale
        near = min(its_row, key=lambda w: abs(w.x1 - a / scale))  # joins the row's own line
        found.append(OcrWord(
            lone.text, round(x0 + lone.x0, 2), round(y0 / scale - pad / scale + lone.top, 2),
            round(x0 + lone.x1, 2), round(y0 / scale - pad / scale + lone.bottom, 2),
            lone.conf, near.block, near.line,
        ))  # fmt: skip
    return found


def _colon_dots(
    ink: Any, height: float, foot: float, scan: ScanSettings = DEFAULT_SCAN
) -> tuple[int, int] | None:
    """The first and last pixel rows of a ``:`` when the patch ``ink`` (a row band's
    columns; ``height`` the row's figure height and ``foot`` their foot, in pixels of the
    band) is one, else None: exactly two blobs, each at most ``ScanSettings.colon_dot`` of
    the height across, one above the other (centres within a dot's size sideways), the
    lower one's foot within ``colon_reach`` of the height of the figures' foot, the upper
    one's middle between ``colon_rise_low`` and ``colon_rise_high`` of the height above it.

    >>> import numpy as np
    >>> band = np.zeros((12, 3), bool)
    >>> band[4:6, 1:3] = band[9:11, 1:3] = True  # two dots, the lower one on the foot (10)
    >>> _colon_dots(band, 9.0, 10.0)
    (4, 10)
    >>> band[4:6, 1:3] = False
    >>> band[7:9, 0] = True  # a full stop and a speck beside it: no colon
    >>> _colon_dots(band, 9.0, 10.0) is None
    True
    """
    import numpy as np
    from scipy import ndimage

    labels, count = ndimage.label(ink, structure=np.ones((3, 3), bool))
    if count != 2:
        return None
    boxes = sorted(ndimage.find_objects(labels), key=lambda b: b[0].start)
    sizes = [max(b[0].stop - b[0].start, b[1].stop - b[1].start) for b in boxes]
    if max(sizes) > max(2.0, scan.colon_dot * height):
        return None
    (upper_rows, upper_cols), (lower_rows, lower_cols) = boxes
    centre = [(c.start + c.stop) / 2 for c in (upper_cols, lower_cols)]
    if abs(centre[0] - centre[1]) > max(sizes) or upper_rows.stop > lower_rows.start:
        return None
    if abs(lower_rows.stop - 1 - foot) > max(1.0, scan.colon_reach * height):
        return None
    rise = (foot - (upper_rows.start + upper_rows.stop - 1) / 2) / height
    if not scan.colon_rise_low <= rise <= scan.colon_rise_high:
        return None
    return upper_rows.start, lower_rows.stop - 1


def _number_like(word: OcrWord, scan: ScanSettings = DEFAULT_SCAN) -> bool:
    """A short word Tesseract was unsure of, with no small letter: what a number it could
    not read comes back as (``TT?`` for ``77``, ``LL?`` for ``117``, ``S250``).

    >>> [_number_like(OcrWord(t, 0, 0, 9, 7, c)) for t, c in (("TT?", 62.0), ("the", 40.0))]
    [True, False]
    >>> _number_like(OcrWord("TT?", 0, 0, 9, 7, 88.0))  # sure: a word of capitals
    False
    """
    text = word.text
    if word.conf >= scan.number_like_confidence or len(text) > scan.number_like_length:
        return False
    return not any(ch.islower() for ch in text) and any(ch.isalnum() for ch in text)


#: What Tesseract's English model reads for a ``≤`` or ``≥`` (it has no such character):
#: the angle alone (``<``, ``>``), the angle and bar as a ``2``, an ``s`` or a ``$``, or ``<=``;
#: a speck after the figure may be read as a mark (``210.``).
_RELATION_READ = re.compile(r"(<=|>=|[<>=2sSzZ$])(\(?\d[\d,]*(?:\.\d+)?%?\)?[.,:;°'’\"”]?)?")


def relations_from_glyphs(
    image: Any, scale: float, words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``words`` with a ``≤`` or ``≥`` put back where Tesseract read it as something else:
    its English model has no such sign, and on scanner-noised tables it read ``≤ 5`` as
    ``<5``, ``≤ 50`` as ``s50``, ``≤ 1.5`` as ``$1.5``, ``≥ 10`` as ``>10`` or ``210`` and
    ``≥ 20%`` as ``220%``. Only the image decides: a word that is a figure after one such
    character (or that character alone, before a figure on its line) gets the sign when its
    first glyph is an angle with a bar under it (:func:`_relation_glyph`) — a printed
    ``<``, a ``2`` (a round top), an ``s`` or a ``$`` is no angle over a bar, and the word
    stays as read.

    >>> from PIL import Image, ImageDraw
    >>> page = Image.new("L", (60, 30), 255)
    >>> pen = ImageDraw.Draw(page)
    >>> pen.line([(14, 5), (4, 11), (14, 17)], fill=0, width=2)  # the angle of a ≤ ...
    >>> pen.line([(4, 21), (14, 21)], fill=0, width=2)  # ... and its bar
    >>> pen.rectangle((20, 5, 28, 22), outline=0, width=2)  # a 0, squared
    >>> read = OcrWord("<0", 3, 4, 30, 23, 91.0)
    >>> [w.text for w in relations_from_glyphs(page, 1.0, [read])]
    ['≤0']
    >>> plain = Image.new("L", (60, 30), 255)
    >>> ImageDraw.Draw(plain).line([(14, 5), (4, 11), (14, 17)], fill=0, width=2)
    >>> [w.text for w in relations_from_glyphs(plain, 1.0, [read])]
    ['<0']
    """
    def candidate(n: int) -> str | None:
        found = _RELATION_READ.fullmatch(words[n].text)
        if found is None:
            return None
        if found.group(2) is not None:
            return found.group(2)
        after = words[n + 1] if n + 1 < len(words) else None
        if (after is not None and after.line == words[n].line
                and re.match(r"\(?\d", after.text)):  # fmt: skip
            return ""
        return None

    rests = {n: rest for n in range(len(words)) if (rest := candidate(n)) is not None}
    if not rests:
        return tuple(words)
    import numpy as np

    pixels = np.asarray(image.convert("L") if image.mode != "L" else image)
    out = list(words)
    for n, rest in rests.items():
        sign = _relation_glyph(pixels, scale, words[n], scan)
        if sign is not None:
            out[n] = replace(words[n], text=sign + rest)
    return tuple(out)


def _relation_glyph(
    pixels: Any, scale: float, word: OcrWord, scan: ScanSettings = DEFAULT_SCAN
) -> str | None:
    """``≤`` or ``≥`` when the first glyph of ``word`` in the page's grey ``pixels`` is one,
    else None. The glyph is the leftmost patch of ink in the word's box with whatever lies
    under or over it (a bar apart from its angle, or joined to it by the blur); it is one
    when it spans ``ScanSettings.relation_height`` of the word's height, has a row inked
    over ``relation_bar_fill`` of its width in the lowest ``relation_bar_zone`` of it, and
    above that bar an angle: its top and bottom rows' ink at least ``relation_side`` of
    the width away from one side, the rows between reaching within ``relation_point`` of
    it (the left side for ``≤``, the right one for ``≥``)."""
    import numpy as np
    from scipy import ndimage

    x0, top = max(0, int(word.x0 * scale) - 1), max(0, int(word.top * scale) - 1)
    x1 = min(pixels.shape[1], int(math.ceil(word.x1 * scale)) + 1)
    bottom = min(pixels.shape[0], int(math.ceil(word.bottom * scale)) + 1)
    ink = pixels[top:bottom, x0:x1] < scan.binary_level
    if ink.shape[0] < 5 or ink.shape[1] < 3:
        return None
    labels, count = ndimage.label(ink, structure=np.ones((3, 3), bool))
    boxes = [(b[1].start, b[1].stop, k + 1) for k, b in enumerate(ndimage.find_objects(labels))
             if int((labels[b] == k + 1).sum()) >= 3]  # fmt: skip
    if not boxes:
        return None
    first = min(boxes)
    parts = [k for a, b, k in boxes
             if min(b, first[1]) - max(a, first[0]) >= 0.5 * min(b - a, first[1] - first[0])]
    glyph = np.isin(labels, parts)
    rows, cols = np.nonzero(glyph)
    glyph = glyph[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    tall, wide = glyph.shape
    if tall < scan.relation_height * ink.shape[0] or wide < 3 or tall < 5:
        return None
    filled = glyph.sum(axis=1) >= scan.relation_bar_fill * wide
    lowest = tall - max(1, int(round(scan.relation_bar_zone * tall)))
    bar = [r for r in range(lowest, tall) if filled[r]]
    if not bar:
        return None
    above = bar[0]
    while above > 0 and (filled[above - 1] or not glyph[above - 1].any()):
        above -= 1  # the bar's other rows, and the gap between it and the angle
    angle = [r for r in range(above) if glyph[r].any()]
    if len(angle) < 3 or len(angle) < 1.5 * (tall - above):
        return None
    lefts = [int(np.argmax(glyph[r])) / wide for r in angle]
    rights = [(wide - 1 - int(np.argmax(glyph[r][::-1]))) / wide for r in angle]
    end = max(1, len(angle) // 5)  # the angle's top rows and its bottom rows ...
    ends = (range(end), range(len(angle) - end, len(angle)))
    third = len(angle) // 3  # ... and its middle third, where the point is
    middle = range(third, len(angle) - third)
    side, point = scan.relation_side, scan.relation_point
    if (all(statistics.fmean(lefts[r] for r in rows) >= side for rows in ends)
            and min(lefts[r] for r in middle) <= point):  # fmt: skip
        return "≤"
    if (all(statistics.fmean(rights[r] for r in rows) <= 1 - side - 1 / wide for rows in ends)
            and max(rights[r] for r in middle) >= 1 - point - 1 / wide):  # fmt: skip
        return "≥"
    return None


#: What Tesseract's English model reads for a dagger (``†``, "not applicable") or a double
#: dagger (``‡``) standing alone in a cell: a short word with no digit (``t``, ``T``, ``+``,
#: ``f``, ``i``, ``al``, ``uN``, ``ot`` on set 3's scans and a synthetic table).
_DAGGER_READ = re.compile(r"[^\W\d]{1,3}[.,]?|\+")  # not "|": a rule read as a word
#: A figure without a comma (a comma's tail hangs below the baseline like a dagger's foot).
_PLAIN_FIGURE = re.compile(r"[-+−(]?\d+(?:\.\d+)?%?\)?")


def daggers_from_glyphs(
    image: Any, scale: float, words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``words`` with a ``†`` or ``‡`` put back where Tesseract read it as a letter or a
    ``+``: statistical tables mark a cell "not applicable" with a dagger (NCES, census
    tables), and on set 3's scans Tesseract read every one of them as ``t``, ``T``, ``i``,
    ``al`` or ``+``. Only a short word with no digit, on a line with a figure written without
    a comma, is looked at, and only the image decides (:func:`_dagger_glyph`): its tallest
    glyph must rise to the figures' top and hang below their foot, a stem with one crossbar
    near its top (``†``) or one there and one near its foot (``‡``). A ``t``, ``f``, ``T``
    or ``+`` does not hang below the line, a ``p`` or ``y`` does not rise to the figures'
    top.

    >>> from PIL import Image, ImageDraw
    >>> page = Image.new("L", (60, 30), 255)
    >>> pen = ImageDraw.Draw(page)
    >>> pen.rectangle((4, 6, 12, 20), outline=0, width=2)  # a 0, squared, its foot at 20
    >>> pen.line([(30, 5), (30, 24)], fill=0, width=2)  # a stem hanging below the foot ...
    >>> pen.line([(26, 9), (34, 9)], fill=0, width=2)  # ... with a crossbar near its top
    >>> row = [OcrWord("0", 3, 5, 14, 21, 95.0), OcrWord("t", 25, 5, 36, 21, 80.0)]
    >>> [w.text for w in daggers_from_glyphs(page, 1.0, row)]
    ['0', '†']
    >>> tee = Image.new("L", (60, 30), 255)
    >>> pen = ImageDraw.Draw(tee)
    >>> pen.rectangle((4, 6, 12, 20), outline=0, width=2)
    >>> pen.line([(30, 5), (30, 20)], fill=0, width=2)  # a t: its foot on the line
    >>> pen.line([(26, 9), (34, 9)], fill=0, width=2)
    >>> [w.text for w in daggers_from_glyphs(tee, 1.0, row)]
    ['0', 't']
    >>> rule = Image.new("L", (60, 30), 255)
    >>> pen = ImageDraw.Draw(rule)
    >>> pen.rectangle((4, 6, 12, 20), outline=0, width=2)
    >>> pen.line([(30, 0), (30, 29)], fill=0, width=2)  # a table's rule, read as "l" ...
    >>> pen.line([(0, 3), (59, 3)], fill=0, width=2)  # ... crossing the rule above the row
    >>> [w.text for w in daggers_from_glyphs(rule, 1.0, [row[0], replace(row[1], text="l")])]
    ['0', 'l']
    """
    plain = [w for w in words if _PLAIN_FIGURE.fullmatch(w.text)]
    ordered = sorted(words, key=lambda w: w.x0)
    wanted = []
    for n, word in enumerate(words):
        if not _DAGGER_READ.fullmatch(word.text):
            continue
        middle = (word.top + word.bottom) / 2  # a lone cell may be a "line" of its own
        figures = [w for w in plain if w.top <= middle <= w.bottom]
        if not figures:
            continue
        height = statistics.median(w.height for w in figures)
        beside = [w for w in ordered if w is not word and w.top <= middle <= w.bottom
                  and min(abs(w.x1 - word.x0), abs(word.x1 - w.x0)) < scan.dagger_gap * height]
        if any(re.search(r"[^\W\d_]", w.text) and not _DAGGER_READ.fullmatch(w.text)
               for w in beside):  # fmt: skip
            continue  # a letter of a word set close to others ("to 2020"), not a cell
        wanted.append((n, figures))
    if not wanted:
        return tuple(words)
    import numpy as np

    pixels = np.asarray(image.convert("L") if image.mode != "L" else image)
    out = list(words)
    for n, figures in wanted:
        ink = [e for w in figures if (e := _ink_rows(pixels, scale, w, scan)) is not None]
        if not ink:
            continue
        top = statistics.median(a for a, _ in ink)
        foot = statistics.median(b for _, b in ink)
        sign = _dagger_glyph(pixels, scale, words[n], top, foot, scan)
        if sign is not None:
            out[n] = replace(words[n], text=sign)
    return tuple(out)


def _ink_rows(
    pixels: Any, scale: float, word: OcrWord, scan: ScanSettings = DEFAULT_SCAN
) -> tuple[int, int] | None:
    """The first and last pixel rows with ink in ``word``'s box (widened by a third of its
    height up and down), at ``ScanSettings.binary_level``."""
    import numpy as np

    pad = word.height * scale / 3
    x0, x1 = max(0, int(word.x0 * scale)), min(pixels.shape[1], int(math.ceil(word.x1 * scale)))
    y0 = max(0, int(word.top * scale - pad))
    y1 = min(pixels.shape[0], int(math.ceil(word.bottom * scale + pad)))
    rows = np.flatnonzero((pixels[y0:y1, x0:x1] < scan.binary_level).sum(axis=1) >= 2)
    if rows.size == 0:
        return None
    return y0 + int(rows[0]), y0 + int(rows[-1])


def _dagger_glyph(
    pixels: Any, scale: float, word: OcrWord, top: float, foot: float,
    scan: ScanSettings = DEFAULT_SCAN,
) -> str | None:
    """``†`` or ``‡`` when the tallest glyph in ``word``'s box (widened up and down by
    half the figures' height, sideways by a third of it; ``top`` and ``foot``: the pixel
    rows of the figures' ink) is one, else None — never ink that runs out of that box (a
    rule): its top within ``ScanSettings.dagger_rise`` of the figures' height of
    their top or above it, its foot at least ``dagger_reach`` of it below their foot, and
    along it one or two runs of rows
    ``dagger_bar`` times wider than its stem (its narrowest quarter of rows), the first
    in its upper ``dagger_bar_zone``, a second (``‡``) in its lower one."""
    import numpy as np
    from scipy import ndimage

    height = foot - top + 1
    if height < 4:
        return None
    side = max(2, int(0.3 * height))  # room on each side: a rule crossing runs through it
    x0 = max(0, int(word.x0 * scale) - side)
    x1 = min(pixels.shape[1], int(math.ceil(word.x1 * scale)) + side)
    y0 = max(0, int(top - 0.5 * height))
    y1 = min(pixels.shape[0], int(math.ceil(foot + 0.5 * height)) + 1)
    ink = pixels[y0:y1, x0:x1] < scan.binary_level
    labels, count = ndimage.label(ink, structure=np.ones((3, 3), bool))
    if not count:
        return None
    boxes = ndimage.find_objects(labels)
    inside = [i for i, (r, c) in enumerate(boxes)  # ink running out of the box is a rule
              if r.start > 0 and r.stop < ink.shape[0]  # (read as "I" or "l"), no glyph
              and not (c.start == 0 and c.stop == ink.shape[1])]  # fmt: skip
    if not inside:
        return None
    k = max(inside, key=lambda i: boxes[i][0].stop - boxes[i][0].start)
    rows_box, cols_box = boxes[k]
    glyph = labels[rows_box, cols_box] == k + 1
    g_top, g_foot = y0 + rows_box.start, y0 + rows_box.stop - 1
    if g_top > top + scan.dagger_rise * height or g_foot < foot + scan.dagger_reach * height:
        return None
    widths = []
    for row in glyph:
        inked = np.flatnonzero(row)
        widths.append(int(inked[-1] - inked[0] + 1) if inked.size else 0)
    tall = len(widths)
    stem = max(1.0, float(np.percentile(widths, 25)))
    wide = [w >= scan.dagger_bar * stem for w in widths]
    runs: list[tuple[int, int]] = []
    for r, is_wide in enumerate(wide):
        if is_wide and runs and runs[-1][1] == r - 1:
            runs[-1] = (runs[-1][0], r)
        elif is_wide:
            runs.append((r, r))
    middles = [(a + b) / 2 / tall for a, b in runs]
    zone = scan.dagger_bar_zone
    if len(middles) == 1 and middles[0] <= zone:
        return "†"
    if len(middles) == 2 and middles[0] <= zone and middles[1] >= 1 - zone:
        return "‡"
    return None
