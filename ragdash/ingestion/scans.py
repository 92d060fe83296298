"""OCR of scanned PDF pages with Tesseract: word boxes and confidences in the page model.

A scanned PDF has pages that are pictures: pdfplumber finds no characters, and without OCR
the page is empty to the retriever. Here such a page is drawn (pdfplumber/pypdfium2) at
:attr:`OcrSettings.dpi` — lowered, like every page image, to stay within
:data:`ragdash.ingestion.page_image.MAX_RENDER_PIXELS` — and read by Tesseract
(``pytesseract.image_to_data``). Every word keeps its box (in PDF points, like pdfplumber's
words) and Tesseract's confidence, so that:

* the words are grouped into the same :class:`~ragdash.ingestion.pdf_layout.Line` objects a
  text layer gives (one per row, cut into column *segments* where the gap is wide), and the
  same table detection runs on them — a table that crosses a page break in a scan is joined
  by the ``tables`` fix exactly as in a born-digital PDF;
* the Documents page can box the words Tesseract was unsure of (:data:`LOW_CONFIDENCE`).

Why rows from baselines and not Tesseract's own lines: Tesseract reads each column of a table
as its own block, so its "lines" are single cells; rows are rebuilt by baseline (on a page
straightened first, see :mod:`ragdash.ingestion.ocr_prep`), as pdfplumber does for a text
layer, so a table row stays one line. A worked example, two cells of one row 90 pt apart::

    >>> words = [OcrWord("Plan", 72, 100, 96, 110, 96.0),
    ...          OcrWord("Price", 200, 100, 228, 110, 91.5)]
    >>> [(line.text, len(line.segments)) for line in words_to_lines(words)]
    [('Plan Price', 2)]

When Tesseract is not installed, pages without a text layer stay empty and the message says
how to install it (:data:`TESSERACT_INSTALL`); nothing else changes.
"""

from __future__ import annotations

import functools
import io
import math
import os
import re
import shutil
import statistics
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ragdash.errors import IngestError, OcrUnavailable, SettingsError
from ragdash.ingestion.ocr_prep import OcrQuality, Rule, measure_quality, prepare_image
from ragdash.ingestion.pdf_layout import (
    COLUMN_GAP,
    Line,
    PageLayout,
    aligned_tables,
)
from ragdash.ingestion.scan_grid import grid_tables
from ragdash.ingestion.scan_marks import bullets, pictograms

__all__ = [
    "DEFAULT_OCR",
    "LOW_CONFIDENCE",
    "OCR_MODES",
    "TESSERACT_INSTALL",
    "OcrOutcome",
    "OcrPage",
    "OcrQuality",
    "OcrSettings",
    "OcrWord",
    "ocr_image",
    "ocr_layout",
    "ocr_page",
    "ocr_pages_of",
    "ocr_variant",
    "ocr_workers",
    "choose_language",
    "installed_languages",
    "language_name",
    "dictionary_share",
    "read_page_image",
    "render_ocr_page",
    "render_for_ocr",
    "scan_resolution",
    "require_tesseract",
    "tesseract_missing",
    "words_to_lines",
]

#: How to get Tesseract, said wherever OCR was needed and could not run.
TESSERACT_INSTALL = (
    "install Tesseract to read scans: `sudo apt-get install tesseract-ocr tesseract-ocr-eng` "
    "(Debian/Ubuntu) or `brew install tesseract` (macOS), and `pip install pytesseract`"
)
#: Words Tesseract is less sure of than this (0–100) are boxed on the page image.
LOW_CONFIDENCE = 80.0
#: Punctuation-only "words" below this confidence are specks of dust and are dropped.
SPECK_CONFIDENCE = 60.0
#: Tesseract's page segmentation modes a page is read in: 3 (automatic layout: blocks and
#: columns) and 6 (one uniform block: a table's rows run across the page). Each page is read
#: in both and the reading with more confident characters is kept (:func:`_sureness`): on
#: the real-scan benchmark neither mode wins every page (3 keeps a ruled election table,
#: 6 an income table whose columns 3 cut into blocks), and the page-by-page choice came
#: within 1% of the better mode per page (docs/pdfs-and-scans.md). The rows are rebuilt
#: from baselines below whichever is kept.
PSM = 3
PSMS = (3, 6)
#: The language setting that lets each page choose its own (:func:`choose_language`).
AUTO_LANGUAGE = "auto"
_LANG_CODES = re.compile(r"auto|[a-z][a-z_]{1,15}(\+[a-z][a-z_]{1,15}){0,4}")
#: Pages OCR'd at once within one parse (each a Tesseract process of one thread):
#: ``RAGDASH_OCR_WORKERS``, default the cores this process may use, at most 2.
OCR_WORKERS_ENV = "RAGDASH_OCR_WORKERS"
#: "auto": OCR the pages that have no text layer; "all": OCR every page (for a PDF whose
#: text layer is garbage — a bad OCR layer from a scanner, a broken font encoding);
#: "off": never.
OCR_MODES = ("auto", "all", "off")


@dataclass(frozen=True)
class OcrSettings:
    """How pages are OCR'd. Part of the parse cache key (:attr:`key`): a PDF read with other
    settings is read again, one read with the same settings never is.

    >>> OcrSettings().key
    'ocr-auto-300dpi-auto'
    >>> OcrSettings(mode="all", dpi=200, lang="fra").key
    'ocr-all-200dpi-fra'
    """

    dpi: int = 300  # asked for; lowered to stay within the page-image pixel budget
    #: Tesseract's language codes (``eng``, ``fra+eng``), or ``auto``: each page's language
    #: is chosen from the installed ones by which dictionary its words are in
    #: (:func:`choose_language`).
    lang: str = AUTO_LANGUAGE
    mode: str = "auto"
    #: Pages (1-based) OCR'd even though they have a text layer — one that is garbled
    #: (``ocr_pages`` in metadata.csv, ``inspect --ocr-pages``). Whole numbers only: data.
    pages: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in OCR_MODES:
            raise SettingsError(f"OCR mode {self.mode!r} is not one of {', '.join(OCR_MODES)}")
        if not 50 <= int(self.dpi) <= 600:
            raise SettingsError(f"OCR resolution {self.dpi} dpi is outside 50–600")
        if not _LANG_CODES.fullmatch(self.lang):
            raise SettingsError(
                f"OCR language {self.lang!r} is not Tesseract language codes (eng, fra+eng) "
                f"or {AUTO_LANGUAGE!r}"
            )
        if any(type(n) is not int or n < 1 for n in self.pages):
            raise SettingsError(f"OCR pages {self.pages!r} are not page numbers (1, 2, ...)")

    @property
    def key(self) -> str:
        pages = f"-p{'.'.join(map(str, sorted(set(self.pages))))}" if self.pages else ""
        return f"ocr-{self.mode}-{int(self.dpi)}dpi-{self.lang}{pages}"


DEFAULT_OCR = OcrSettings()


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


def tesseract_missing() -> str | None:
    """Why OCR cannot run here (a sentence that says how to install it), or None.

    Looked up on every call (``shutil.which``), so installing Tesseract needs no restart."""
    try:
        import pytesseract
    except ImportError:
        return f"the pytesseract package is not installed; {TESSERACT_INSTALL}"
    command = pytesseract.pytesseract.tesseract_cmd
    if shutil.which(command) is None:
        return f"Tesseract is not installed (no {command!r} program found); {TESSERACT_INSTALL}"
    return None


def require_tesseract() -> None:
    """Raise :class:`~ragdash.errors.OcrUnavailable` (saying how to install it) when
    Tesseract cannot run."""
    missing = tesseract_missing()
    if missing:
        raise OcrUnavailable(missing)


def render_for_ocr(page: Any, dpi: int) -> tuple[Any, float]:
    """A greyscale PIL image of a pdfplumber page at ``dpi`` (lowered to the page-image
    pixel budget), and the resolution actually used. A page that is one scanned image is
    drawn at no more than the scan's own resolution (:func:`scan_resolution`): drawing a
    200 dpi scan at 300 dpi only enlarges its pixels, and Tesseract read an enlarged blur
    worse (a plain ``117`` at 41% where it read it at 96% as scanned)."""
    from ragdash.ingestion.page_image import render_resolution

    native = scan_resolution(page)
    if native is not None:
        dpi = min(dpi, native)
    resolution = render_resolution(float(page.width), float(page.height), dpi)
    image = page.to_image(resolution=resolution).original.convert("L")
    return image, float(resolution)


#: A scan's own resolution is used from this many dpi up (below it, drawing larger helps
#: Tesseract, which wants letters some 20 pixels high).
MIN_SCAN_DPI = 150
#: The image must cover this share of the page to be the page's scan.
SCAN_COVER = 0.8


def scan_resolution(page: Any) -> int | None:
    """The resolution (dpi) a page's scan was made at, when the page is one image covering
    at least :data:`SCAN_COVER` of it drawn at :data:`MIN_SCAN_DPI` or more; else None.
    Read from the image's pixel size over the size it is drawn at (turned a quarter when
    the page is), the smaller of its two directions; an image stretched unevenly has none.

    >>> class Page:
    ...     width, height = 612, 792
    ...     images = [{"srcsize": (1700, 2200), "x0": 0, "x1": 612, "top": 0, "bottom": 792}]
    >>> scan_resolution(Page())
    200
    >>> Page.images[0]["srcsize"] = (2200, 1700)  # a landscape scan turned upright
    >>> scan_resolution(Page())
    200
    """
    area = float(page.width) * float(page.height)
    best = None
    for image in getattr(page, "images", ()):
        try:
            wide, tall = (float(v) for v in image["srcsize"])
            w_pt = float(image["x1"]) - float(image["x0"])
            h_pt = float(image["bottom"]) - float(image["top"])
        except (KeyError, TypeError, ValueError):
            continue
        if w_pt <= 0 or h_pt <= 0 or w_pt * h_pt < SCAN_COVER * area:
            continue
        across, down = wide / (w_pt / 72), tall / (h_pt / 72)
        if abs(across - down) > 0.1 * max(across, down):  # drawn turned a quarter
            across, down = tall / (w_pt / 72), wide / (h_pt / 72)
            if abs(across - down) > 0.1 * max(across, down):
                continue  # stretched: no one resolution to keep
        dpi = min(across, down)
        best = dpi if best is None else max(best, dpi)
    if best is None or best < MIN_SCAN_DPI:
        return None
    return int(round(best))


def ocr_image(
    image: Any, scale: float = 1.0, lang: str = "eng", psm: int | None = None
) -> tuple[OcrWord, ...]:
    """Tesseract's words on a PIL image, boxes divided by ``scale`` (pixels per PDF point).

    Raises :class:`~ragdash.errors.OcrUnavailable` when Tesseract cannot run."""
    require_tesseract()
    import pytesseract

    try:
        data = pytesseract.image_to_data(
            image, lang=lang, config=f"--psm {psm or PSM}", output_type=pytesseract.Output.DICT
        )
    except pytesseract.TesseractNotFoundError:
        raise OcrUnavailable(f"Tesseract is not installed; {TESSERACT_INSTALL}") from None
    except pytesseract.TesseractError as exc:
        if "loading language" in str(exc.message):
            raise OcrUnavailable(
                f"Tesseract has no '{lang}' language data; install it: "
                f"`sudo apt-get install tesseract-ocr-{lang}`"
            ) from None
        raise OcrUnavailable(f"Tesseract failed ({str(exc.message).strip()[:200]})") from None
    words = []
    for i, text in enumerate(data["text"]):
        conf = float(data["conf"][i])
        if int(data["level"][i]) != 5 or not text.strip() or conf < 0:
            continue
        left, top = data["left"][i] / scale, data["top"][i] / scale
        wide, tall = data["width"][i] / scale, data["height"][i] / scale
        speck = conf < SPECK_CONFIDENCE and not any(ch.isalnum() for ch in text)
        if speck and not _dash_shaped(text, wide, tall):
            continue  # a speck of dust read as "-" or "==": it would split table columns
        text = _brackets(text.strip())
        if text in ("=", "==") and _dash_shaped(text, wide, tall) and wide >= 4 * tall:
            text = "\u2014"  # one thin stroke read as "=": an em dash (an "=" is taller)
        if _DASH_WORD.fullmatch(text) and ("\u2014" in text or set(text) == {"_"}):
            # an em dash read with a stroke of its blur beside it ("_—"), or as a low line:
            # a table's empty cell holds a dash; a form's blank is a longer run of them
            text = "\u2014"
        right = (data["left"][i] + data["width"][i]) / scale
        bottom = (data["top"][i] + data["height"][i]) / scale
        line = (int(data["block_num"][i]) * 1000 + int(data["par_num"][i])) * 1000 + int(
            data["line_num"][i]
        )
        words.append(
            OcrWord(text.strip(), round(left, 2), round(top, 2), round(right, 2),
                    round(bottom, 2), round(conf, 1), int(data["block_num"][i]), line)
        )
    return _without_stubs(words)


def _without_stubs(words: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
    """``words`` without an unsure dash that sits above the letters of its line: the stub
    of a table rule left by its removal (a cell's corner), read as ``—`` at 0% between a
    row's label and its figure. A cell's dash sits between the letters' top and baseline,
    a form's blank on the baseline; both stay.

    >>> row = [OcrWord("Services", 175, 226.4, 224, 235.8, 96.0, 1, 9),
    ...        OcrWord("—", 456, 224.3, 462, 224.6, 0.0, 1, 9),
    ...        OcrWord("$8.6M", 470, 226.1, 501, 236.9, 91.0, 1, 9)]
    >>> [w.text for w in _without_stubs(row)]
    ['Services', '$8.6M']
    >>> cell = replace(row[1], top=230.8, bottom=231.4)
    >>> [w.text for w in _without_stubs([row[0], cell, row[2]])]
    ['Services', '—', '$8.6M']
    """
    tops: dict[int, list[float]] = {}
    for w in words:
        if any(ch.isalnum() for ch in w.text):
            tops.setdefault(w.line, []).append(w.top)

    def stub(w: OcrWord) -> bool:
        if w.conf >= SPECK_CONFIDENCE or not _DASH_WORD.fullmatch(w.text) or w.line not in tops:
            return False
        return (w.top + w.bottom) / 2 < statistics.median(tops[w.line])

    return tuple(w for w in words if not stub(w))


#: What a table's empty cell holds: a dash (hyphen, en or em dash, minus), or a row of them.
_DASH_WORD = re.compile(r"[-\u2010-\u2015\u2212_~=]{1,3}")


def _dash_shaped(text: str, width: float, height: float) -> bool:
    """True when a punctuation "word" Tesseract is unsure of is the dash of an empty table
    cell (``1,731 527 —``), not dust: a dash character on a box at least 2.5 pt wide and
    2.5 times as wide as it is high. Dust is a dot, no wider than high; dropping the dash
    lost the row's last cell, and the row no longer read as the page prints it.

    >>> _dash_shaped("—", 9.0, 1.2), _dash_shaped("-", 1.0, 1.0), _dash_shaped(".", 9.0, 1.0)
    (True, False, False)
    """
    return bool(_DASH_WORD.fullmatch(text.strip())) and width >= 2.5 and width >= 2.5 * height


_SECTION_FIVE = re.compile(r"§[\d,.]*\d[\d,.]*")
#: A bar inside a word, with a letter or an apostrophe beside it.
_BAR_IN_WORD = re.compile(r"(?<=[^\W\d_'’])\||\|(?=[^\W\d_'’]|['’])")


#: A letter Tesseract reads for a digit, between two digits (``TRA6S13`` is ``TRA6513``).
_LETTER_IN_DIGITS = re.compile(r"(?<=\d)[SOolI](?=\d)")
_DIGIT_OF = {"S": "5", "O": "0", "o": "0", "l": "1", "I": "1"}
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


def ocr_page(page: Any, number: int, settings: OcrSettings = DEFAULT_OCR) -> OcrPage:
    """OCR one pdfplumber page (1-based ``number``)."""
    image, resolution = render_for_ocr(page, settings.dpi)
    return read_page_image(image, resolution, number, settings.lang)


def read_page_image(
    image: Any, resolution: float, number: int, lang: str = AUTO_LANGUAGE
) -> OcrPage:
    """OCR a page image drawn at ``resolution`` dpi: turned upright, straightened and its
    background flattened first (:func:`~ragdash.ingestion.ocr_prep.prepare_image`), the
    words' boxes in PDF points of the straightened page, and its :class:`OcrQuality`.
    With ``lang="auto"`` the page is read in English first and again in the installed
    language whose dictionary holds its words (:func:`choose_language`).
    Safe to run in a thread (pdfplumber is not touched)."""
    scale = resolution / 72.0
    page = prepare_image(image, scale)
    prepared, turn = page.image, page.turn
    if lang == AUTO_LANGUAGE:
        first = ocr_image(prepared, scale, "eng", PSMS[0])
        lang = choose_language([w.text for w in first], installed_languages())
        if lang != "eng":
            first = ocr_image(prepared, scale, lang, PSMS[0])
        readings = [first, *(ocr_image(prepared, scale, lang, psm) for psm in PSMS[1:])]
    else:
        readings = [ocr_image(prepared, scale, lang, psm) for psm in PSMS]
    words = max(readings, key=_sureness)
    for other in readings:
        if other is not words:
            words = _merge_readings(words, other)
    words = _reread_numbers(prepared, scale, lang, words)
    words = (*words, *_lone_figures(prepared, scale, lang, words))
    words = _codes_like_the_page(words)
    words = _separators_like_the_column(words)
    words = _decimals_like_the_column(words)
    words = _signs_like_the_column(words)
    words = _figures_like_the_column(words)
    words = tuple(bullets(prepared, scale, words))
    drawn: list[OcrWord] = []  # pictograms read as text: ink that is no word

    def without_pictograms(words: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
        kept = pictograms(words, lambda text: _known(text, lang))
        drawn.extend(w for w in words if w not in kept)
        return tuple(kept)

    def measured(words: Sequence[OcrWord]) -> OcrQuality:
        return measure_quality(
            prepared,
            [(w.x0, w.top, w.x1, w.bottom) for w in words if _read_well(w, lang)]
            + [(w.x0, w.top, w.x1, w.bottom) for w in drawn],
            scale,
            statistics.fmean(w.conf for w in words) if words else 0.0,
            dictionary_share([w.text for w in words], lang),
            turn,
        )

    words = without_pictograms(words)
    quality = measured(words)
    if quality.regions:
        more = _second_pass(prepared, scale, lang, quality.regions, words)
        if more:
            words = without_pictograms((*words, *more))
            quality = measured(words)
    return OcrPage(
        number, resolution, words, prepared.width / scale, prepared.height / scale,
        _engine(), quality, lang, page.rules,
    )  # fmt: skip


def _sureness(words: Sequence[OcrWord]) -> float:
    """How much a reading of a page says with confidence: its characters, each weighted by
    its word's confidence (0–100). Ties keep the first reading (``max`` keeps the first).

    >>> sure = OcrWord("3,532", 0, 0, 20, 8, 96.0, 1, 1)
    >>> _sureness([sure]) > _sureness([OcrWord("3,632", 0, 0, 20, 8, 41.0, 1, 1)])
    True
    """
    return sum(w.conf * len(w.text) for w in words)


#: A word only the other reading of a page found is added when at least this sure (0–100).
MISSED_CONFIDENCE = 85.0


def _merge_readings(chosen: Sequence[OcrWord], other: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
    """``chosen`` (the surer reading of a page) with what ``other`` (its reading in another
    layout mode) read better: where both read one word on the same box, the surer text
    (by :data:`MERGE_MARGIN` points of confidence: block mode read ``+The`` at 59% where
    page mode read ``The`` at 96%); where ``chosen`` has no word at all, ``other``'s sure
    words with a letter or digit (page layout analysis, ``--psm 3``, dropped a lone row
    number far left of its row, ``9`` before ``The Public Services…``, that block mode,
    ``--psm 6``, read at 96%). The chosen reading keeps its lines and rows.

    >>> kept = [OcrWord("+The", 94, 124, 108, 133, 59.0, 1, 1)]
    >>> lone, same = OcrWord("9", 63, 124, 68, 133, 96.0), OcrWord("The", 94, 124, 108, 133, 96.0)
    >>> [(w.text, w.line) for w in _merge_readings(kept, [lone, same])]
    [('The', 1), ('9', 5000000000000)]
    """
    out = list(chosen)
    for n, word in enumerate(chosen):
        twins = [w for w in other if _same_box(word, w)]
        if len(twins) == 1 and twins[0].conf >= word.conf + MERGE_MARGIN:
            out[n] = replace(word, text=twins[0].text, conf=twins[0].conf)
    for word in other:
        if word.conf < MISSED_CONFIDENCE or not any(ch.isalnum() for ch in word.text):
            continue
        if any(_overlap(word, old) for old in chosen):
            continue
        out.append(replace(word, block=800 + word.block, line=5 * 10**12 + word.line))
    return tuple(out)


#: The other reading's text replaces a word when surer by at least this (0–100).
MERGE_MARGIN = 15.0


def _same_box(a: OcrWord, b: OcrWord) -> bool:
    """True when two readings' words cover nearly the same box (each edge within a third of
    the text height): the same word read twice, not a word and part of it."""
    slack = min(a.height, b.height) / 3
    return (abs(a.x0 - b.x0) <= slack and abs(a.x1 - b.x1) <= slack
            and abs(a.top - b.top) <= slack and abs(a.bottom - b.bottom) <= slack)  # fmt: skip


#: Words with a digit read less surely than this (0–100) are read again, enlarged ...
REREAD_CONFIDENCE = 92.0
#: ... at most this many per page, least sure first (each is one more Tesseract run) ...
REREAD_LIMIT = 60
#: ... this many times larger.
REREAD_SCALE = 3


def _reread_numbers(
    image: Any, scale: float, lang: str, words: Sequence[OcrWord]
) -> tuple[OcrWord, ...]:
    """``words`` with the numbers Tesseract was unsure of read again on their own, enlarged
    :data:`REREAD_SCALE` times (``--psm 7``, one line), the new reading kept when it is one
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
         if w.conf < REREAD_CONFIDENCE and (any(ch.isdigit() for ch in w.text)
                                            or _number_like(w))),
        key=lambda n: words[n].conf,
    )[:REREAD_LIMIT]  # fmt: skip
    out: list[OcrWord | tuple[OcrWord, ...]] = list(words)
    for n in unsure:
        word = words[n]
        pieces = _pieces(image, scale, word)
        if len(pieces) > 1:  # one "word" over a column gap: each cell read on its own
            read = [_read_again(image, scale, lang, piece) for piece in pieces]
            if all(r is not None for r in read):
                out[n] = tuple(r for r in read if r is not None)
            continue
        again = _read_again(image, scale, lang, word)
        if again is not None:
            out[n] = again
    return tuple(w for item in out for w in (item if isinstance(item, tuple) else (item,)))


def _read_again(image: Any, scale: float, lang: str, word: OcrWord) -> OcrWord | None:
    """``word`` read again on its own (:func:`_reread_numbers`), or None when no reading
    is one surer word with a digit."""
    from PIL import Image, ImageOps

    pad = 0.3 * word.height
    crop = image.crop((
        max(0, int((word.x0 - pad) * scale)), max(0, int((word.top - pad) * scale)),
        int(math.ceil((word.x1 + pad) * scale)), int(math.ceil((word.bottom + pad) * scale)),
    ))  # fmt: skip
    if crop.width < 2 or crop.height < 2:
        return None
    size = (crop.width * REREAD_SCALE, crop.height * REREAD_SCALE)
    big = crop.resize(size, Image.Resampling.BICUBIC)
    # enlarged smoothly first (it read blurred small digits as printed); when that has
    # no surer number, at its own size with a white margin, then enlarged in black and
    # white (an enlarged blur made Tesseract read a plain 117 as "LL?" that it read at
    # 96% unenlarged); the first surer reading with a digit is kept
    tries = (
        (big, REREAD_SCALE),
        (ImageOps.expand(crop, border=max(4, crop.height // 2), fill=255), 1),
        (big.point(lambda v: 0 if v < 128 else 255), REREAD_SCALE),
    )
    for image_again, times in tries:
        again = ocr_image(image_again, scale * times, lang, psm=7)
        if len(again) == 1 and again[0].conf > word.conf and any(
            ch.isdigit() for ch in again[0].text
        ):
            return replace(word, text=again[0].text, conf=again[0].conf)
    return None


#: A blank strip at least this many text heights wide inside one OCR word is a gap between
#: table cells (letters are a tenth of a height apart, words a third).
CELL_GAP = 0.8


def _pieces(image: Any, scale: float, word: OcrWord) -> list[OcrWord]:
    """``word`` cut at the blank strips of :data:`CELL_GAP` or wider inside its box: Tesseract
    read two census cells ``373`` and ``317``, a column apart, as one word ``373-317``.
    The pieces have the word's text (read again by the caller)."""
    import numpy as np

    box = (int(word.x0 * scale), int(word.top * scale),
           int(math.ceil(word.x1 * scale)), int(math.ceil(word.bottom * scale)))  # fmt: skip
    ink = np.asarray(image.crop(box).convert("L")) < 128
    if ink.size == 0:
        return [word]
    inked = np.asarray(ink.any(axis=0))
    wide = CELL_GAP * word.height * scale
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


_CODE = re.compile(r"[A-Z]{2,}[0-9]{2,}")


def _shape(text: str) -> str:
    return re.sub(r"[0-9]", "9", re.sub(r"[A-Z]", "A", text))


#: Codes of one shape (letters then digits) a page must have, read surely, before another
#: word is read as one of that shape.
CODE_EVIDENCE = 2


def _codes_like_the_page(words: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
    """``words`` with a code the page has others of read in their shape: where capitals
    meet digits, a ``5`` read as ``S`` (``TRAS 143`` for ``TRA5143``, often cut in two at
    the misread letter) becomes the digit, and the two pieces one word, only when the
    result has the shape (``AAA9999``) of :data:`CODE_EVIDENCE` codes the page read
    surely (``TRA7314``, ``TRA9373``), more of them than of the shape as read. Without
    such evidence nothing changes: ``SS0`` stays for the ``ocr`` fix, ``TRAS`` may be a
    word.

    >>> page = [OcrWord(t, 0, 10 * n, 30, 10 * n + 6, 91.0, 1, n) for n, t in
    ...         enumerate(["TRA7314", "TRA9373"])]
    >>> cut = [OcrWord("TRAS", 0, 30, 19, 36, 78.0, 1, 9),
    ...        OcrWord("143", 21, 30, 30, 36, 96.0, 1, 9)]
    >>> [w.text for w in _codes_like_the_page(page + cut)]
    ['TRA7314', 'TRA9373', 'TRA5143']
    >>> [w.text for w in _codes_like_the_page(cut)]
    ['TRAS', '143']
    >>> twice = [OcrWord(t, 0, 50 + 10 * n, 30, 56 + 10 * n, 91.0, 1, 20 + n) for n, t in
    ...          enumerate(["TLES702", "DORS356"])]
    >>> [w.text for w in _codes_like_the_page(page + [page[0]] + twice + cut)][-3:]
    ['TLE5702', 'DOR5356', 'TRA5143']
    """
    shapes: dict[str, int] = {}
    for w in words:
        if w.conf >= LOW_CONFIDENCE and _CODE.fullmatch(w.text):
            shapes[_shape(w.text)] = shapes.get(_shape(w.text), 0) + 1

    def as_code(text: str) -> str | None:
        m = re.fullmatch(r"([A-Z]+?)([SOIl]{1,2})([0-9]*)", text)
        if not m:
            return None
        code = m.group(1) + "".join(_DIGIT_OF[ch] for ch in m.group(2)) + m.group(3)
        evidence = shapes.get(_shape(code), 0)
        # the misread shape may recur (the same S for 5 elsewhere): the code's must outnumber it
        known = evidence >= CODE_EVIDENCE and evidence > shapes.get(_shape(text), 0)
        return code if known and _CODE.fullmatch(code) else None

    if not shapes:
        return tuple(words)
    return _repair_pairs(
        words, 0.5,
        lambda word, after: as_code(word.text + after.text) if after.text.isdigit() else None,
        lambda word: as_code(word.text) if any(ch.isdigit() for ch in word.text) else None,
    )  # fmt: skip


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


def _flush_right(words: Sequence[OcrWord], right: float, height: float) -> list[OcrWord]:
    """The words ending at ``right``, within half a text ``height``: a figure's column."""
    return [w for w in words if abs(w.x1 - right) <= 0.5 * height]


def _column_peers(words: Sequence[OcrWord], word: OcrWord) -> list[OcrWord]:
    """The other words of ``word``'s column (:func:`_flush_right`)."""
    return [w for w in _flush_right(words, word.x1, word.height) if w is not word]


def _among_figures(words: Sequence[OcrWord]) -> set[int]:
    """The ``id`` of each word whose neighbours on its line are figures (a digit, no
    letter), with at least one neighbour: a table cell, not the ``2011`` of a running
    line's ``January 14, 2011 /`` or the ``60`` of ``Vol. 60``."""
    def figure(word: OcrWord | None) -> bool:
        return word is not None and bool(re.search(r"\d", word.text)) and not re.search(
            r"[^\W\d_]", word.text)

    among = set()
    for n, word in enumerate(words):
        before = words[n - 1] if n and words[n - 1].line == word.line else None
        after = words[n + 1] if n + 1 < len(words) and words[n + 1].line == word.line else None
        near = [w for w in (before, after) if w is not None]
        if near and all(figure(w) for w in near):
            among.add(id(word))
    return among


_THOUSANDS = re.compile(r"\d{1,3}(,\d{3})+(\.\d+)?")
_POINT_THOUSANDS = re.compile(r"\d{1,3}\.\d{3}")
_BARE_THOUSANDS = re.compile(r"[1-9]\d{3,}")
#: Figures with a comma between thousands, set flush right in one column, that a column
#: must have before a figure in it is read with one.
SEPARATOR_EVIDENCE = 3


def _separators_like_the_column(words: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
    """``words`` with a thousands separator read as in its column: at 200 dpi a comma
    reads as a point (``53.113``) or as nothing (``12 530``, two words). When at least
    :data:`SEPARATOR_EVIDENCE` sure figures ending at the same right edge are written
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
    >>> [w.text for w in _separators_like_the_column(col + more + odd)][-2:]
    ['53,113', '12,530']
    >>> [w.text for w in _separators_like_the_column(odd)]
    ['53.113', '12', '530']
    >>> rate = OcrWord("71.8", 0, 40, 8, 46, 90.0, 1, 4)
    >>> lost, short = (OcrWord("77430", 12, 40, 30, 46, 83.0, 1, 4),
    ...                OcrWord("4243", 15, 40, 30, 46, 90.0, 1, 4))
    >>> [w.text for w in _separators_like_the_column([*col, rate, lost])][-1]
    '77,430'
    >>> [w.text for w in _separators_like_the_column([*col, rate, short])][-1]
    '4243'
    >>> [w.text for w in _separators_like_the_column([*col, rate, lost, rate, lost])][-1]
    '77430'
    >>> year = OcrWord("2011", 15, 40, 30, 46, 96.0, 1, 4)
    >>> [w.text for w in _separators_like_the_column([*col, rate, year])][-1]
    '2011'
    >>> [w.text for w in _separators_like_the_column([
    ...     *col, replace(rate, text="January"), replace(year, text="77430")])][-1]
    '77430'
    """
    cells = _among_figures(words)

    def column_uses_commas(right: float, height: float, digits: int = 0) -> bool:
        peers = _flush_right(words, right, height)
        commas = [w for w in peers
                  if w.conf >= LOW_CONFIDENCE and _THOUSANDS.fullmatch(w.text)]  # fmt: skip
        points = sum(bool(_POINT_THOUSANDS.fullmatch(w.text)) for w in peers)
        short = any(len(re.sub(r"\D", "", w.text.split(".")[0])) <= digits for w in commas)
        return len(commas) >= SEPARATOR_EVIDENCE and points <= 1 and (digits != 4 or short)

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
                and sum(bool(_BARE_THOUSANDS.fullmatch(w.text))
                        for w in _flush_right(words, word.x1, word.height)) == 1):  # fmt: skip
            return f"{int(word.text):,}"
        return None

    return _repair_pairs(words, 0.6, pair, point)


_DECIMAL = re.compile(r"\d[\d,]*\.(\d+)")
_WHOLE = re.compile(r"\d[\d,]*")
#: Figures with a decimal point, set flush right in one column, that a column must have
#: before a whole number in it is read with the point it lost.
DECIMAL_EVIDENCE = 3


def _decimals_like_the_column(words: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
    """``words`` with a decimal point put back where its column says one was lost: at
    200 dpi a small point can vanish (``1044`` for ``104.4``). When at least
    :data:`DECIMAL_EVIDENCE` figures ending at the same right edge have a point and the
    same number of decimals, and no other figure there is a whole number, a whole number
    longer than the decimals gets the point. The points are the evidence, so unsure
    digits count; a column that mixes whole numbers and decimals changes nothing.

    >>> col = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 55.0, 1, n) for n, t in
    ...        enumerate(["16.2", "348.2", "950.4"])]
    >>> count = OcrWord("49,736", 0, 40, 8, 46, 83.0, 1, 4)
    >>> lost = OcrWord("1044", 10, 40, 30, 46, 89.0, 1, 4)
    >>> [w.text for w in _decimals_like_the_column([*col, count, lost])][-1]
    '104.4'
    >>> mixed = OcrWord("12", 20, 50, 30, 56, 96.0, 1, 5)
    >>> [w.text for w in _decimals_like_the_column([*col, mixed, count, lost])][-1]
    '1044'
    >>> volume = [OcrWord("Vol.", 0, 40, 8, 46, 96.0, 1, 4), OcrWord("60", 22, 40, 30, 46,
    ...           94.0, 1, 4)]
    >>> [w.text for w in _decimals_like_the_column([*col, *volume])][-1]
    '60'
    """
    cells = _among_figures(words)

    def alone(word: OcrWord) -> str | None:
        if not re.fullmatch(r"\d+", word.text) or id(word) not in cells:
            return None
        peers = _column_peers(words, word)
        decimals = {len(m.group(1)) for w in peers if (m := _DECIMAL.fullmatch(w.text))}
        counted = sum(bool(_DECIMAL.fullmatch(w.text)) for w in peers)
        whole = any(_WHOLE.fullmatch(w.text) for w in peers)
        if counted < DECIMAL_EVIDENCE or whole or len(decimals) != 1:
            return None
        places = decimals.pop()
        if len(word.text) <= places:
            return None
        return f"{word.text[:-places]}.{word.text[-places:]}"

    return _repair_pairs(words, 0.0, lambda _word, _after: None, alone)


_PLAIN_FIGURE = re.compile(r"\(?\d[\d,]*(\.\d+)?\)?")
_SIGNED_FIGURE = re.compile(r"(\(?)[$S](\d[\d,]*(\.\d+)?\)?)")
#: Sure plain figures (no currency sign) ending at a figure's right edge before its ``$``
#: is read as the ``5`` it stands for.
SIGN_EVIDENCE = 3


def _signs_like_the_column(words: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
    """``words`` with a leading ``5`` read as ``$`` or ``S`` (``$2.7`` for ``52.7``,
    ``(S000`` for ``(5000``) read as the digit, where the figure's column says so: at least
    :data:`SIGN_EVIDENCE` sure figures with no sign end at the same right edge and no other
    figure there has one. A column of amounts that all carry a ``$`` keeps them, and so
    does a column's first figure read surely (a statement's style signs only the first row
    and the totals: ``$1,234`` above ``567``); read unsurely, a first ``$2.7`` is the blur.

    >>> col = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 95.0, 1, n) for n, t in
    ...        enumerate(["28.7", "13.1", "17.0"])]
    >>> odd = OcrWord("$2.7", 10, 40, 30, 46, 80.0, 1, 4)
    >>> [w.text for w in _signs_like_the_column([*col, odd])][-1]
    '52.7'
    >>> first = replace(odd, top=-10, bottom=-4, line=-1, conf=93.0)
    >>> [w.text for w in _signs_like_the_column([first, *col])][0]
    '$2.7'
    >>> [w.text for w in _signs_like_the_column([replace(first, conf=63.0), *col])][0]
    '52.7'
    >>> money = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 95.0, 1, n) for n, t in
    ...          enumerate(["$8.6", "$3.9", "$6.1", "$4.6"])]
    >>> [w.text for w in _signs_like_the_column([*money, odd])][-1]
    '$2.7'
    >>> feet = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 96.0, 1, n) for n, t in
    ...         enumerate(["(7000", "(9000", "(6000", "(S000"])]
    >>> [w.text for w in _signs_like_the_column(feet)][-1]
    '(5000'
    """
    def plain_column(word: OcrWord) -> bool:
        peers = _column_peers(words, word)
        plain = [w for w in peers
                 if w.conf >= LOW_CONFIDENCE and _PLAIN_FIGURE.fullmatch(w.text)]  # fmt: skip
        signed = sum(bool(_SIGNED_FIGURE.fullmatch(w.text)) for w in peers)
        first = not any(w.bottom <= word.top for w in plain)
        sure_sign = first and word.conf >= LOW_CONFIDENCE
        return len(plain) >= SIGN_EVIDENCE and signed == 0 and not sure_sign

    def alone(word: OcrWord) -> str | None:
        found = _SIGNED_FIGURE.fullmatch(word.text)
        return found.group(1) + "5" + found.group(2) if found and plain_column(word) else None

    return _repair_pairs(words, 0.0, lambda _word, _after: None, alone)


#: Letters OCR reads for a digit in a blurred figure (``TT`` for ``77``).
_DIGIT_LOOKALIKES = {**_DIGIT_OF, "T": "7", "B": "8", "Z": "2", "G": "6"}
#: The share of the words ending at a figure's right edge that must be figures before an
#: unsure word of look-alike letters there is read as one.
FIGURE_COLUMN_SHARE = 0.8


def _figures_like_the_column(words: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
    """``words`` with an unsure short word made only of letters that look like digits
    (``TT`` at 48% for ``77``) read as the figure, where both its column and its row say
    it is one: at least :data:`SIGN_EVIDENCE` sure plain figures end at the same right
    edge and they are :data:`FIGURE_COLUMN_SHARE` of the words there, and its line has two
    other figures, no fewer than its other words. A sure word, one in a column of words
    or one in a line of text (a rotated header read as ``a > 2 2 wn a wo oO 5``) stays.

    >>> col = [OcrWord(t, 10, 10 * n, 30, 10 * n + 6, 96.0, 1, n) for n, t in
    ...        enumerate(["159", "52", "144", "43"])]
    >>> row = [OcrWord("Austria", -40, 40, -10, 46, 96.0, 1, 4),
    ...        OcrWord("TT", 20, 40, 30, 46, 48.0, 1, 4), OcrWord("1", 50, 40, 53, 46, 92.0, 1, 4),
    ...        OcrWord("78", 70, 40, 78, 46, 95.0, 1, 4)]
    >>> [w.text for w in _figures_like_the_column([*col, *row])][-3]
    '77'
    >>> [w.text for w in _figures_like_the_column([*col, *row[:2]])][-1]
    'TT'
    """
    def as_figure(word: OcrWord) -> str | None:
        if (word.conf >= LOW_CONFIDENCE or not 0 < len(word.text) <= 4
                or any(ch not in _DIGIT_LOOKALIKES for ch in word.text)):  # fmt: skip
            return None
        peers = _column_peers(words, word)
        plain = sum(w.conf >= LOW_CONFIDENCE and bool(_PLAIN_FIGURE.fullmatch(w.text))
                    for w in peers)  # fmt: skip
        figures = sum(bool(_PLAIN_FIGURE.fullmatch(w.text)) for w in peers)
        line = [w for w in words if w.line == word.line and w is not word]
        row = sum(bool(_PLAIN_FIGURE.fullmatch(w.text)) for w in line)
        if (plain < SIGN_EVIDENCE or figures < FIGURE_COLUMN_SHARE * len(peers)
                or row < 2 or row < len(line) - row):  # fmt: skip
            return None
        return "".join(_DIGIT_LOOKALIKES[ch] for ch in word.text)

    return _repair_pairs(words, 0.0, lambda _word, _after: None, as_figure)


#: A row with at least this many figures is a row of a table of numbers ...
FIGURE_ROW = 3
#: ... whose lone unread figures are kept when read at least this surely (0–100).
LONE_FIGURE_CONFIDENCE = 70.0
#: How a lone cell is read: as one line of text, then as one word.
LONE_FIGURE_PSMS = (7, 8)


def _lone_figures(
    image: Any, scale: float, lang: str, words: Sequence[OcrWord]
) -> list[OcrWord]:
    """Figures alone in their cell that no reading of the page has: in a row of a table of
    numbers (:data:`FIGURE_ROW` figures or more), each patch of ink on the row's band that
    no word covers, letter-sized, is read on its own, enlarged, and kept when it is a figure
    read :data:`LONE_FIGURE_CONFIDENCE` surely. Tesseract drops a lone ``0`` between two
    wider counts (``835 0 1914`` came back ``835 1914``): one narrow glyph in a wide gap
    reads to its layout analysis as a speck. Each joins the Tesseract line of its row's
    nearest word, so that it stays in the gap it was found in."""
    import numpy as np
    from PIL import Image

    found: list[OcrWord] = []
    for row in _rows(words):
        if sum(bool(_FIGURE.fullmatch(w.text)) for w in row) < FIGURE_ROW:
            continue
        height = statistics.median(w.height for w in row)
        top, bottom = min(w.top for w in row), max(w.bottom for w in row)
        y0, y1 = int(top * scale), int(math.ceil(bottom * scale))
        band = np.asarray(image.crop((0, y0, image.width, y1)).convert("L")) < 128
        if band.size == 0:
            continue
        band = band.copy()
        for w in words:  # what is read already, with a margin of a fifth of the height
            pad = 0.2 * w.height
            if w.bottom < top or w.top > bottom:
                continue
            band[:, max(0, int((w.x0 - pad) * scale)): int(math.ceil((w.x1 + pad) * scale))] = False
        inked = np.asarray(band.any(axis=0))
        join = max(1, int(0.3 * height * scale))
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
            rows_inked = band[:, a:b].any(axis=1)
            tall = int(rows_inked.sum())
            if tall < 0.6 * height * scale or (b - a) < 0.25 * height * scale:
                continue  # a speck, a rule's remnant
            if (b - a) > 6 * height * scale:
                continue  # a line of text, not a lone cell
            pad = int(0.3 * height * scale) + 2
            crop = image.crop((max(0, a - pad), max(0, y0 - pad), b + pad, y1 + pad))
            big = crop.resize((crop.width * REREAD_SCALE, crop.height * REREAD_SCALE),
                              Image.Resampling.BICUBIC)  # fmt: skip
            # as a line first, then as one word: a lone 7 read as a line came back "t" at
            # 9%, as a word "7" at 93% (each reading must be a sure figure to be kept)
            for psm in LONE_FIGURE_PSMS:
                read = ocr_image(big, scale * REREAD_SCALE, lang, psm=psm)
                if (len(read) == 1 and read[0].conf >= LONE_FIGURE_CONFIDENCE
                        and _FIGURE.fullmatch(read[0].text)):  # fmt: skip
                    break
            else:
                continue
            x0 = max(0, a - pad) / scale
            near = min(row, key=lambda w: abs(w.x1 - a / scale))  # joins the row's own line
            found.append(OcrWord(
                read[0].text, round(x0 + read[0].x0, 2), round(y0 / scale - pad / scale
                                                               + read[0].top, 2),
                round(x0 + read[0].x1, 2), round(y0 / scale - pad / scale + read[0].bottom, 2),
                read[0].conf, near.block, near.line,
            ))  # fmt: skip
    return found


def _number_like(word: OcrWord) -> bool:
    """A short word Tesseract was unsure of, with no small letter: what a number it could
    not read comes back as (``TT?`` for ``77``, ``LL?`` for ``117``, ``S250``).

    >>> [_number_like(OcrWord(t, 0, 0, 9, 7, c)) for t, c in (("TT?", 62.0), ("the", 40.0))]
    [True, False]
    >>> _number_like(OcrWord("TT?", 0, 0, 9, 7, 88.0))  # sure: a word of capitals
    False
    """
    text = word.text
    if word.conf >= NUMBER_LIKE_CONFIDENCE or len(text) > 6:
        return False
    return not any(ch.islower() for ch in text) and any(ch.isalnum() for ch in text)


#: A word of capitals and marks read less surely than this (0–100) may be a number.
NUMBER_LIKE_CONFIDENCE = 75.0


#: Areas of ink without words read again on their own (largest first), at most this many.
SECOND_PASS_REGIONS = 12


def _second_pass(
    image: Any,
    scale: float,
    lang: str,
    regions: Sequence[tuple[float, float, float, float]],
    words: Sequence[OcrWord],
) -> list[OcrWord]:
    """Words in the inked areas the page's first reading left without words, each area cut
    out (with a margin) and read as one uniform block (``--psm 6``): Tesseract's page
    layout analysis drops table cells boxed by rules — the last row of a ruled table,
    ``Germany 667``, came back empty — that a block read on its own keeps. Only words
    whose centre is in the area and that overlap no word already read are added."""
    added: list[OcrWord] = []
    for k, (x0, top, x1, bottom) in enumerate(regions[:SECOND_PASS_REGIONS]):
        pad = 6.0
        left, upper = max(0.0, x0 - pad), max(0.0, top - pad)
        crop = image.crop((int(left * scale), int(upper * scale),
                           int(math.ceil((x1 + pad) * scale)),
                           int(math.ceil((bottom + pad) * scale))))  # fmt: skip
        if crop.width < 8 or crop.height < 8:
            continue
        for w in ocr_image(crop, scale, lang, psm=6):
            moved = OcrWord(
                w.text, round(w.x0 + left, 2), round(w.top + upper, 2), round(w.x1 + left, 2),
                round(w.bottom + upper, 2), w.conf, 900 + k, (k + 1) * 10**10 + w.line,
            )  # fmt: skip
            cx, cy = (moved.x0 + moved.x1) / 2, (moved.top + moved.bottom) / 2
            if not (x0 <= cx <= x1 and top <= cy <= bottom):
                continue
            if any(_overlap(moved, old) for old in (*words, *added)):
                continue
            added.append(moved)
    return added


def _overlap(a: OcrWord, b: OcrWord) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.top < b.bottom and b.top < a.bottom


#: A word at least this sure (0–100) covers its ink in :class:`OcrQuality` ...
READ_CONFIDENCE = 40.0
#: ... and one of three letters or more must be a dictionary word or this sure: mirrored,
#: smudged or foreign-script ink comes back as confident nonsense ("OLUCE" at 81%).
SURE_CONFIDENCE = 90.0


def _read_well(word: OcrWord, lang: str) -> bool:
    """True when ``word`` is a reading of its ink, not a guess at it."""
    if word.conf < READ_CONFIDENCE:
        return False
    letters = _letters(word.text)
    if len(letters) < 3 or any(ch.isdigit() for ch in word.text) or word.conf >= SURE_CONFIDENCE:
        return True
    known = _word_list(_WORDFREQ_LANG.get(lang.split("+")[0], ""))
    return not known or letters in known


_APOSTROPHES = re.compile("['\u2019\u02bc]")


def _letters(text: str) -> str:
    """The letters of ``text`` a dictionary is asked about, casefolded: of an elided or
    possessive word, its longest part (``l'école`` → ``école``, ``company's`` →
    ``company``), which the dictionary has where the glued letters (``lécole``) are not.

    >>> _letters("l’école,"), _letters("Basic")
    ('école', 'basic')
    """
    parts = ("".join(ch for ch in part if ch.isalpha()) for part in _APOSTROPHES.split(text))
    return max(parts, key=len).casefold()


def _known(text: str, lang: str) -> bool:
    """``text`` (its letters, see :func:`_letters`) is a word of ``lang``'s dictionary."""
    return _letters(text) in _word_list(_WORDFREQ_LANG.get(lang.split("+")[0], ""))


#: Tesseract language codes → wordfreq's, for the dictionary share of a page.
_WORDFREQ_LANG = {"eng": "en", "deu": "de", "fra": "fr", "spa": "es", "ita": "it",
                  "nld": "nl", "por": "pt"}  # fmt: skip


#: A page is read in another installed language when that language's dictionary holds at
#: least this much more of the words of its English reading (accents set aside: English
#: reads ``activités`` as ``activites``) than the English one does. On the dev scans French
#: pages had 0.91–0.93 of their words in the French list against 0.41–0.44 in the English
#: one, German 0.64 against 0.35; English pages 0.74–0.98 against at most 0.76 elsewhere,
#: and a bilingual English/French register 0.78 against 0.74 (it stays English).
LANGUAGE_MARGIN = 0.2


def choose_language(words: Sequence[str], languages: Collection[str]) -> str:
    """The Tesseract language to read a page in, from the words of its English reading:
    ``eng`` unless one of ``languages`` (installed, with a word list) holds
    :data:`LANGUAGE_MARGIN` more of the words. Why: English models drop accents and
    ligatures (``œuvre`` read ``ceuvre``), which then miss the evidence a test names.

    >>> choose_language("Pour participer a des activites sociales le sport".split(), ["fra"])
    'fra'
    >>> choose_language("Returns are accepted within thirty days".split(), ["fra", "deu"])
    'eng'
    """
    letters = [_fold("".join(ch for ch in w if ch.isalpha())) for w in words]
    letters = [w for w in letters if len(w) >= 3]
    if not letters:
        return "eng"

    def share(lang: str) -> float:
        known = _folded_list(_WORDFREQ_LANG[lang])
        return sum(w in known for w in letters) / len(letters) if known else 0.0

    others = [lang for lang in languages if lang in _WORDFREQ_LANG and lang != "eng"]
    best = max(others, key=share, default="eng")
    return best if best != "eng" and share(best) >= share("eng") + LANGUAGE_MARGIN else "eng"


#: Names of Tesseract's language codes, for people (others are shown as their code).
LANGUAGE_NAMES = {"eng": "English", "fra": "French", "deu": "German", "spa": "Spanish",
                  "ita": "Italian", "nld": "Dutch", "por": "Portuguese"}  # fmt: skip


def language_name(lang: str) -> str:
    """``fra+eng`` → ``French and English``.

    >>> language_name("fra+eng")
    'French and English'
    """
    return " and ".join(LANGUAGE_NAMES.get(code, code) for code in lang.split("+"))


def installed_languages() -> tuple[str, ...]:
    """Tesseract's installed languages (``tesseract --list-langs``); none when it cannot
    say. Looked up on each call: installing a language needs no restart."""
    import pytesseract

    try:
        return tuple(pytesseract.get_languages(config=""))
    except Exception:  # Tesseract missing or failing: OCR itself says so
        return ()


def _fold(word: str) -> str:
    """``word`` casefolded without accents (``Élaborer`` → ``elaborer``)."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@functools.cache
def _folded_list(lang: str) -> frozenset[str]:
    return frozenset(_fold(w) for w in _word_list(lang))


@functools.cache
def _word_list(lang: str) -> frozenset[str]:
    try:
        import wordfreq

        return frozenset(w.casefold() for w in wordfreq.top_n_list(lang, 50_000) if w.isalpha())
    except Exception:  # not installed or no data: no dictionary share
        return frozenset()


def dictionary_share(words: Sequence[str], lang: str = "eng") -> float:
    """The share of alphabetic words (three letters or more) that are in wordfreq's list of
    the language; -1.0 when there is no list for it or no such word.

    >>> dictionary_share(["Returns", "are", "accepted", "xqzvv"])
    0.75
    """
    known = _word_list(_WORDFREQ_LANG.get(lang.split("+")[0], ""))
    letters = [w for w in map(_letters, words) if len(w) >= 3]
    if not known or not letters:
        return -1.0
    return round(sum(w in known for w in letters) / len(letters), 4)


@functools.cache
def _engine() -> str:
    import pytesseract

    return f"tesseract {pytesseract.get_tesseract_version()}"


def _rows(words: Sequence[OcrWord]) -> list[list[OcrWord]]:
    """Words in rows by baseline: Tesseract's lines (a table's cells, when it read each
    column as a block), each put in the row whose baseline is within 45% of the text
    height of its own and whose words it does not overlap side by side; rows top to
    bottom, words left to right. The page was straightened first, so a row's cells share
    a baseline across the whole page."""
    by_line: dict[int, list[OcrWord]] = {}
    for word in words:
        by_line.setdefault(word.line, []).append(word)
    pieces = []
    for piece in by_line.values():
        base = statistics.median(w.bottom for w in piece)
        height = statistics.median(w.height for w in piece)
        pieces.append((base, height, sorted(piece, key=lambda w: w.x0)))
    pieces.sort(key=lambda p: (p[0], p[2][0].x0))
    rows: list[list[Any]] = []  # [baseline, height, words, spans]
    for base, height, piece in pieces:
        span = (piece[0].x0, piece[-1].x1)
        best = None
        for row in rows[-12:]:
            gap = abs(row[0] - base)
            if gap > 0.45 * min(row[1], height):
                continue
            if any(a < span[1] and span[0] < b for a, b in row[3]):
                continue  # side by side overlap: another line of the same column
            if best is None or gap < best[0]:
                best = (gap, row)
        if best is None:
            rows.append([base, height, list(piece), [span]])
            continue
        row = best[1]
        count = len(row[2])
        row[0] = (row[0] * count + base * len(piece)) / (count + len(piece))
        row[1] = max(row[1], height)
        row[2].extend(piece)
        row[3].append(span)
    rows.sort(key=lambda r: min(w.top for w in r[2]))
    return [sorted(r[2], key=lambda w: w.x0) for r in rows]


def words_to_lines(words: Sequence[OcrWord]) -> list[Line]:
    """OCR words as page :class:`~ragdash.ingestion.pdf_layout.Line` objects, top to bottom,
    each cut into column segments where the gap between two words is wider than
    :data:`~ragdash.ingestion.pdf_layout.COLUMN_GAP` times the row's text height. A lone
    ``|`` is a table's vertical rule read as a character: it is left out (the gap it sits
    in already separates the columns)."""
    lines = []
    kept = [w for w in words if w.text.strip("|¦[]") or len(w.text) > 2]
    for row in _rows(kept):
        row = _zeros_in_figures(row)
        height = statistics.median(w.height for w in row)
        segments: list[list[Any]] = []
        for word in row:
            if segments and word.x0 - segments[-1][1] <= COLUMN_GAP * height * 1.25:
                segments[-1][1] = max(segments[-1][1], word.x1)
                segments[-1][2] += " " + word.text
            else:
                segments.append([word.x0, word.x1, word.text])
        top, bottom = min(w.top for w in row), max(w.bottom for w in row)
        pad = LINE_PAD * (bottom - top)
        lines.append(
            Line(
                " ".join(w.text for w in row),
                min(w.x0 for w in row),
                round(max(0.0, top - pad), 2),
                max(w.x1 for w in row),
                round(bottom + pad, 2),
                tuple((a, b, t) for a, b, t in segments),
            )
        )
    return lines


_FIGURE = re.compile(r"[-+(]?[$€£]?\d[\d,.]*%?\)?")


def _zeros_in_figures(row: list[OcrWord]) -> list[OcrWord]:
    """``row`` with a lone ``O`` or ``o`` between two figures (or after the last one) read
    as the ``0`` it is: a census row's empty counts came back ``1963 O 1889``.

    >>> row = [OcrWord(t, 30 * n, 0, 30 * n + 20, 8, 90.0) for n, t in
    ...        enumerate(["Totals", "1963", "O", "1889", "0", "o"])]
    >>> " ".join(w.text for w in _zeros_in_figures(row))
    'Totals 1963 0 1889 0 0'
    >>> " ".join(w.text for w in _zeros_in_figures(row[:3] + [replace(row[3], text="Road")]))
    'Totals 1963 O Road'
    """
    out = list(row)
    for n, word in enumerate(row):
        if word.text not in ("O", "o") or n == 0:
            continue
        before = _FIGURE.fullmatch(out[n - 1].text)
        after = n + 1 == len(row) or _FIGURE.fullmatch(row[n + 1].text)
        if before and after:
            out[n] = replace(word, text="0")
    return out


#: Tesseract's boxes hug the ink; a text layer's line is as tall as its type. Each OCR'd
#: line is made this share of its height taller at the top and the bottom, so the gaps
#: between rows compare as on a born-digital page: a row's wrapped lines, 29 pt of ink
#: apart from the next row, had read as a table's end.
LINE_PAD = 0.09


def ocr_layout(ocr: OcrPage) -> PageLayout:
    """The page model of an OCR'd page: its rows as lines, the ruled tables its grid lines
    draw (:func:`~ragdash.ingestion.scan_grid.grid_tables`) and the column-aligned tables
    found in the other lines, with the OCR words kept in :attr:`PageLayout.ocr`. A ``|``
    in OCR text is a rule or a speck, not a cell separator, so no table is read from
    pipes."""
    lines = words_to_lines(ocr.words)
    ruled = grid_tables(ocr.words, ocr.rules, lines)
    taken = {i for table in ruled for i in table.lines}
    aligned = aligned_tables(lines, taken, ocr.height)
    tables = sorted([*ruled, *aligned], key=lambda t: (t.bbox[1], t.bbox[0]))
    return PageLayout(ocr.page, tuple(lines), tuple(tables), ocr.width, ocr.height, (), ocr)


def ocr_variant(settings: OcrSettings = DEFAULT_OCR) -> str:
    """The parse-cache variant for ``settings``: a PDF read without Tesseract (its scanned
    pages empty) is read again once Tesseract is installed.

    Empty for the default settings, so the cache keys of text PDFs stay as they were."""
    if settings.mode == "off":
        return "ocr-off"
    base = "" if settings == DEFAULT_OCR else settings.key
    if tesseract_missing():
        return f"{base}-no-tesseract" if base else "no-tesseract"
    return base


@dataclass(frozen=True)
class OcrOutcome:
    """What OCR did for one PDF: notes for the ingestion messages, and why pages that are
    still empty are empty (said after "has no text layer")."""

    notes: tuple[str, ...] = ()
    missing: str = ""  # Tesseract cannot run: how to install it
    ran: bool = False

    @property
    def why_empty(self) -> str:
        """Ends "has no text layer (image-only or scanned)" for a PDF with no text at all."""
        if self.missing:
            return f"; {self.missing}"
        if self.ran:
            return ", and OCR found no words on its pages (pictures or blank pages?)"
        return "; run OCR on it first"

    @property
    def why_pages_empty(self) -> str:
        """Ends "page(s) 2, 3 have no text layer"."""
        if self.missing:
            return f" (image-only?); {self.missing}"
        if self.ran:
            return " and OCR found no words on them (a picture or a blank page?)"
        return " (image-only?); OCR needed"


def ocr_pages_of(
    pdf: Any,
    texts: list[str],
    layouts: list[PageLayout],
    settings: OcrSettings = DEFAULT_OCR,
    progress: Callable[[float, str], None] | None = None,
    ocr_budget: Callable[[int], tuple[float, str] | None] | None = None,
) -> OcrOutcome:
    """OCR the pages of an open pdfplumber ``pdf`` that need it — those with no text
    (``auto``), or every page (``all``) — replacing their entries of ``texts`` and
    ``layouts`` in place.

    ``progress(fraction, "OCR of page N …")`` is called before each page; it may raise
    :class:`~ragdash.errors.IngestCancelled` to stop (nothing is kept).
    ``ocr_budget(pages)`` is told how many pages will be OCR'd before the first is read
    (the bounded parse extends its time limit by a per-page allowance, capped by a total);
    it returns the seconds OCR may take and that limit's name, and once they are spent no
    further page is started: :class:`~ragdash.errors.IngestError` naming the limit.

    Pages are read :func:`ocr_workers` at a time: drawn one by one here (pdfplumber is not
    thread-safe), then straightened and read by Tesseract in worker threads (each a
    one-thread Tesseract process), at most one page waiting per worker — memory stays a
    few page images."""
    if settings.mode == "off":
        return OcrOutcome()
    wanted = [
        n
        for n, text in enumerate(texts, start=1)
        if settings.mode == "all" or not text.strip() or n in settings.pages
    ]
    if not wanted:
        return OcrOutcome()
    missing = tesseract_missing()
    if missing:
        return OcrOutcome(missing=f"OCR is not possible: {missing}")
    low = 0
    read: list[int] = []
    budget = ocr_budget(len(wanted)) if ocr_budget is not None else None
    for number, ocr in _read_pages(pdf, wanted, settings, progress, budget):
        layout = ocr_layout(ocr)
        if not layout.ocr.words and texts[number - 1].strip():
            continue  # OCR found nothing where the text layer has text: keep the layer
        texts[number - 1] = layout.plain
        layouts[number - 1] = layout
        if layout.ocr.words:
            read.append(number)
            low += len(layout.ocr.low_confidence())
    if not read:
        return OcrOutcome(ran=True)
    why = (
        "every page, as asked" if settings.mode == "all"
        else "no text layer, or as asked" if settings.pages else "no text layer"
    )  # fmt: skip
    note = (
        f"page(s) {', '.join(map(str, read))} read by OCR ({why}); {low} word(s) below "
        f"{LOW_CONFIDENCE:.0f}% confidence"
    )
    return OcrOutcome((note,), ran=True)


def ocr_workers() -> int:
    """Pages OCR'd at once: ``RAGDASH_OCR_WORKERS`` or the cores this process may use,
    at most 2 (a bad value counts as 1)."""
    raw = os.environ.get(OCR_WORKERS_ENV, "").strip()
    if raw:
        return max(1, min(int(raw), 8)) if raw.isdigit() else 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, 2))


def _read_pages(
    pdf: Any,
    wanted: Sequence[int],
    settings: OcrSettings,
    progress: Callable[[float, str], None] | None,
    budget: tuple[float, str] | None = None,
) -> Iterator[tuple[int, OcrPage]]:
    """(page number, its OCR) for each of ``wanted``, in order, read in parallel. Once
    ``budget`` (seconds, the limit's name) is spent — checked before each page and while
    waiting for one — :class:`~ragdash.errors.IngestError` names the limit at once, without
    waiting for the pages being read (the bounded parse then kills their Tesseract)."""
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures import TimeoutError as WaitedTooLong

    ends = time.monotonic() + budget[0] if budget is not None else None
    read = 0

    def over() -> IngestError:
        named = budget[1] if budget is not None else "the OCR limit"
        return IngestError(
            f"needs more OCR time than {named}: stopped after {read:,} of {len(wanted):,} pages"
        )

    def result(future: Any) -> OcrPage:
        nonlocal read
        if ends is None:
            page = future.result()
        else:
            try:
                page = future.result(timeout=max(0.0, ends - time.monotonic()))
            except WaitedTooLong:
                raise over() from None
        read += 1
        return page

    workers = ocr_workers()
    if workers > 1:
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # one core per Tesseract process
    pending: deque[tuple[int, Any]] = deque()
    pool = ThreadPoolExecutor(max_workers=workers)
    stopped = False
    try:
        for k, number in enumerate(wanted):
            if ends is not None and time.monotonic() > ends:
                raise over()
            if progress:
                label = f"OCR of page {number} ({k + 1} of {len(wanted)} to read)"
                progress(k / len(wanted), label)
            page = pdf.pages[number - 1]
            image, resolution = render_for_ocr(page, settings.dpi)
            page.close()
            pending.append((number, pool.submit(
                read_page_image, image, resolution, number, settings.lang
            )))  # fmt: skip
            del image
            while len(pending) > workers:
                done, future = pending.popleft()
                yield done, result(future)
        while pending:
            done, future = pending.popleft()
            yield done, result(future)
    except IngestError:
        stopped = True  # over the budget: answer now, not after the pages being read
        raise
    finally:
        for _, future in pending:
            future.cancel()
        pool.shutdown(wait=not stopped, cancel_futures=True)


#: Box colours on the page image: words under :data:`LOW_CONFIDENCE`, words the OCR fix
#: would rewrite, and inked areas where OCR found no word.
LOW_CONFIDENCE_COLOR = (220, 38, 38)
REWRITE_COLOR = (37, 99, 235)
MISSED_COLOR = (234, 88, 12)


def render_ocr_page(
    data: bytes,
    ocr: OcrPage,
    resolution: int = 100,
    threshold: float = LOW_CONFIDENCE,
    rewritten: Collection[str] = (),
) -> Any:
    """A PIL image of the scanned page ``ocr.page`` of the PDF ``data`` — turned as it was
    for OCR, so the boxes sit on the words — with the words Tesseract was less than
    ``threshold`` sure of boxed in red, the words whose tokens are in ``rewritten`` (what
    the OCR fix would rewrite) in blue, and the inked areas where OCR found no word
    (:attr:`OcrQuality.regions`) in orange; within the page-image pixel budget, drawn with
    PIL (no script in the page).

    Raises :class:`~ragdash.errors.IngestError` if the PDF cannot be opened or has no such
    page."""
    import pdfplumber
    from PIL import Image, ImageDraw

    from ragdash.ingestion.page_image import render_resolution, shown
    from ragdash.text import tokenize

    def draw(page: Any) -> Any:
        dpi = render_resolution(page.width, page.height, resolution)
        image = page.to_image(resolution=dpi).original.convert("RGB")
        turn = ocr.quality.turn if ocr.quality else 0.0
        quarter = round(turn / 90) * 90 % 360
        if quarter:  # as prepare_image turned it: the quarter turn first, then the skew
            image = image.rotate(quarter, expand=True, fillcolor=(255, 255, 255))
        if abs(turn - round(turn / 90) * 90) > 1e-6:
            image = image.rotate(turn - round(turn / 90) * 90, resample=Image.Resampling.BICUBIC,
                                 fillcolor=(255, 255, 255))  # fmt: skip
        scale = dpi / 72.0
        layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
        pen = ImageDraw.Draw(layer)

        def box(x0: float, top: float, x1: float, bottom: float, color: tuple) -> None:
            pen.rectangle(
                (x0 * scale - 2, top * scale - 2, x1 * scale + 2, bottom * scale + 2),
                fill=(*color, 45), outline=(*color, 255), width=2,
            )  # fmt: skip

        for word in ocr.words:
            if rewritten and set(tokenize(word.text)) & set(rewritten):
                box(word.x0, word.top, word.x1, word.bottom, REWRITE_COLOR)
            elif word.conf < threshold:
                box(word.x0, word.top, word.x1, word.bottom, LOW_CONFIDENCE_COLOR)
        for region in ocr.quality.regions if ocr.quality else ():
            box(*region, MISSED_COLOR)
        return Image.alpha_composite(image.convert("RGBA"), layer).convert("RGB")

    try:
        pdf = pdfplumber.open(io.BytesIO(data))
    except Exception as exc:  # pdfminer raises many unrelated types for damaged files
        raise IngestError(f"could not be opened as a PDF ({type(exc).__name__})") from None
    with pdf:
        if not 1 <= ocr.page <= len(pdf.pages):
            raise IngestError(f"has no page {ocr.page} (it has {len(pdf.pages)} pages)")
        return shown(draw(pdf.pages[ocr.page - 1]))  # a thin page stays visible
