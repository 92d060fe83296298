"""Reading one page image: the readings merged, then the repair passes in order, then what
is left unread read again."""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ragdash.ingestion.ocr_prep import (
    OcrQuality,
    Rule,
    measure_quality,
    orientation,
    prepare_image,
)
from ragdash.ingestion.scan.codes import codes_like_the_page
from ragdash.ingestion.scan.figures import (
    daggers_from_glyphs,
    decimals_like_the_column,
    figures_like_the_column,
    lone_figures,
    relations_from_glyphs,
    reread_numbers,
    separators_like_the_column,
    signs_like_the_column,
)
from ragdash.ingestion.scan.language import (
    AUTO_LANGUAGE,
    _known,
    _read_well,
    choose_language,
    dictionary_share,
    installed_languages,
)
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings
from ragdash.ingestion.scan.tesseract import _engine, ocr_image, ocr_images
from ragdash.ingestion.scan.words import OcrPage, OcrWord, _overlap, _same_box
from ragdash.ingestion.scan_marks import bullets, pictograms

__all__ = ["Readings", "finish_page", "first_readings", "read_page_image"]


@dataclass(frozen=True)
class Readings:
    """Tesseract's readings of one prepared page image, before any repair pass: what
    :func:`first_readings` gives and :func:`finish_page` repairs. Kept apart so that the
    same readings can be repaired with each pass switched off in turn
    (``python -m benchmarks.realscans --ablate``) without reading the page again."""

    prepared: Any  # the page image turned upright, straightened, its background flattened
    scale: float  # pixels per PDF point
    resolution: float
    number: int
    lang: str  # the language the page was read in (chosen when "auto")
    turn: float
    rules: tuple[Rule, ...]
    readings: tuple[tuple[OcrWord, ...], ...]  # one per page segmentation mode


def first_readings(
    image: Any, resolution: float, number: int, lang: str = AUTO_LANGUAGE,
    scan: ScanSettings = DEFAULT_SCAN,
) -> Readings:
    """A page image drawn at ``resolution`` dpi turned upright, straightened and its
    background flattened (:func:`~ragdash.ingestion.ocr_prep.prepare_image`), then read by
    Tesseract in the first page segmentation mode of ``scan.psms``, and in the others only
    when that reading is unsure (:func:`_needs_other_modes`). With ``lang="auto"`` the page
    is read in English first and again in the installed language whose dictionary holds
    its words (:func:`choose_language`).

    Orientation detection (Tesseract's OSD) is asked only when the first reading does not
    already say the page stands upright (:func:`_upright`): an upright page read surely in
    lines of wide words needs no turn, and OSD cost a third of a page reading on every
    page. A page OSD then turns is prepared and read again from its turned image."""
    scale = resolution / 72.0
    page = prepare_image(image, scale, rotate=False, scan=scan)
    read_in = "eng" if lang == AUTO_LANGUAGE else lang
    first = ocr_image(page.image, scale, read_in, scan.psms[0], scan)
    if not _upright(first, scan):
        quarter = orientation(image)
        if quarter:
            page = prepare_image(image.rotate(quarter, expand=True, fillcolor=255), scale,
                                 rotate=False, scan=scan)  # fmt: skip
            page = replace(page, turn=page.turn + quarter)
            first = ocr_image(page.image, scale, read_in, scan.psms[0], scan)
    prepared = page.image
    if lang == AUTO_LANGUAGE:
        lang = choose_language([w.text for w in first], installed_languages(), scan)
        if lang != "eng":
            first = ocr_image(prepared, scale, lang, scan.psms[0], scan)
    readings = [first]
    if _needs_other_modes(first, scan) or _left_unread(prepared, scale, lang, first, scan):
        readings.extend(ocr_image(prepared, scale, lang, psm, scan) for psm in scan.psms[1:])
    return Readings(prepared, scale, resolution, number, lang, page.turn, page.rules,
                    tuple(readings))  # fmt: skip


def _upright(words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN) -> bool:
    """True when a page's first reading says it stands upright, so that orientation
    detection is not needed: at least ``ScanSettings.upright_words`` words of three
    characters or more, ``ScanSettings.upright_share`` of them wider than tall, read at a
    mean confidence of ``ScanSettings.upright_confidence`` or more. A page upside down
    reads as junk (mean confidence 40 against 94 upright on the same table page);
    one turned a quarter can read as surely (Tesseract reads vertical lines) but its words
    stand taller than wide.

    >>> line = [OcrWord("Population", 10 * n, 0, 10 * n + 8, 2, 94.0) for n in range(12)]
    >>> _upright(line)
    True
    >>> _upright([OcrWord(w.text, w.top, w.x0, w.bottom, w.x1, w.conf) for w in line])
    False
    >>> _upright(line[:3])
    False
    """
    longer = [w for w in words if len(w.text) >= 3]
    if len(longer) < scan.upright_words:
        return False
    wide = sum(w.x1 - w.x0 > w.bottom - w.top for w in longer)
    return (wide >= scan.upright_share * len(longer)
            and statistics.fmean(w.conf for w in words) >= scan.upright_confidence)  # fmt: skip


def _needs_other_modes(words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN) -> bool:
    """True when a page's reading in its first segmentation mode is unsure enough that the
    other modes of ``ScanSettings.psms`` are read too: its words' mean confidence is under
    ``ScanSettings.other_psms_below`` (or it has no words); by default always. On 18 pages
    of development scans (sets 1 and 3), automatic layout (mode 3) read a ruled table's page
    at 83 with half the words block mode (6) found, and reading mode 6 there kept a case;
    every other page read at 88 or more, and mode 6 changed no verdict on them — but on a
    bill table read at 90 or more it kept the lone ``9`` of a row, and a join with it.

    >>> sure = ScanSettings(other_psms_below=85.0)

    >>> _needs_other_modes([OcrWord("Total", 0, 0, 9, 3, 95.0)], sure)
    False
    >>> _needs_other_modes([OcrWord("Tota1", 0, 0, 9, 3, 61.0)], sure)
    True
    >>> _needs_other_modes([OcrWord("Total", 0, 0, 9, 3, 95.0)])
    True
    """
    if len(scan.psms) < 2:
        return False
    if not words:
        return True
    return statistics.fmean(w.conf for w in words) < scan.other_psms_below


def _left_unread(
    prepared: Any, scale: float, lang: str, words: Sequence[OcrWord],
    scan: ScanSettings = DEFAULT_SCAN,
) -> bool:
    """True when a sure first reading still left text unread: more than
    ``ScanSettings.missed_share`` of the page's text-like ink under no word read well (what
    the page reports as "OCR may have missed text"). Layout analysis dropped a third of a
    table's words (371 of 552) at a mean confidence of 92, leaving 16% of the ink unread."""
    if len(scan.psms) < 2:
        return False
    boxes = [(w.x0, w.top, w.x1, w.bottom) for w in words if _read_well(w, lang, scan)]
    quality = measure_quality(prepared, boxes, scale, 0.0, 0.0, 0.0, scan=scan)
    return quality.uncovered > scan.missed_share and bool(quality.regions)


def finish_page(first: Readings, scan: ScanSettings = DEFAULT_SCAN) -> OcrPage:
    """The page of ``first``'s readings: the surer reading, then each repair pass that
    ``scan`` switches on (:data:`~ragdash.ingestion.scan.settings.PASSES`, in that order),
    the words' boxes in PDF points of the straightened page, and its :class:`OcrQuality`."""
    prepared, scale, lang = first.prepared, first.scale, first.lang
    words = max(first.readings, key=_sureness)
    if scan.runs("merge_readings"):
        for other in first.readings:
            if other is not words:
                words = _merge_readings(words, other, scan)
    if scan.runs("reread_numbers"):
        words = reread_numbers(prepared, scale, lang, words, scan)
    if scan.runs("lone_figures"):
        words = (*words, *lone_figures(prepared, scale, lang, words, scan))
    if scan.runs("relations"):
        words = relations_from_glyphs(prepared, scale, words, scan)
    if scan.runs("daggers"):
        words = daggers_from_glyphs(prepared, scale, words, scan)
    if scan.runs("codes"):
        words = codes_like_the_page(words, scan)
    if scan.runs("separators"):
        words = separators_like_the_column(words, scan)
    if scan.runs("decimals"):
        words = decimals_like_the_column(words, scan)
    if scan.runs("signs"):
        words = signs_like_the_column(words, scan)
    if scan.runs("lookalikes"):
        words = figures_like_the_column(words, scan)
    if scan.runs("bullets"):
        words = tuple(bullets(prepared, scale, words, scan))
    words = tuple(words)
    drawn: list[OcrWord] = []  # pictograms read as text: ink that is no word

    def without_pictograms(words: Sequence[OcrWord]) -> tuple[OcrWord, ...]:
        if not scan.runs("pictograms"):
            return tuple(words)
        kept = pictograms(words, lambda text: _known(text, lang), scan)
        drawn.extend(w for w in words if w not in kept)
        return tuple(kept)

    def measured(words: Sequence[OcrWord]) -> OcrQuality:
        return measure_quality(
            prepared,
            [(w.x0, w.top, w.x1, w.bottom) for w in words if _read_well(w, lang, scan)]
            + [(w.x0, w.top, w.x1, w.bottom) for w in drawn],
            scale,
            statistics.fmean(w.conf for w in words) if words else 0.0,
            dictionary_share([w.text for w in words], lang),
            first.turn,
            scan=scan,
        )

    words = without_pictograms(words)
    quality = measured(words)
    if quality.regions and scan.runs("second_pass"):
        more = _second_pass(prepared, scale, lang, quality.regions, words, scan)
        if more:
            words = without_pictograms((*words, *more))
            quality = measured(words)
    return OcrPage(
        first.number, first.resolution, words, prepared.width / scale,
        prepared.height / scale, _engine(), quality, lang, first.rules,
    )  # fmt: skip


def read_page_image(
    image: Any, resolution: float, number: int, lang: str = AUTO_LANGUAGE,
    scan: ScanSettings = DEFAULT_SCAN,
) -> OcrPage:
    """OCR a page image drawn at ``resolution`` dpi: Tesseract's readings
    (:func:`first_readings`) repaired by the passes ``scan`` switches on
    (:func:`finish_page`). Safe to run in a thread (pdfplumber is not touched)."""
    return finish_page(first_readings(image, resolution, number, lang, scan), scan)


def _sureness(words: Sequence[OcrWord]) -> float:
    """How much a reading of a page says with confidence: its characters, each weighted by
    its word's confidence (0–100). Ties keep the first reading (``max`` keeps the first).

    >>> sure = OcrWord("3,532", 0, 0, 20, 8, 96.0, 1, 1)
    >>> _sureness([sure]) > _sureness([OcrWord("3,632", 0, 0, 20, 8, 41.0, 1, 1)])
    True
    """
    return sum(w.conf * len(w.text) for w in words)


def _merge_readings(
    chosen: Sequence[OcrWord], other: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``chosen`` (the surer reading of a page) with what ``other`` (its reading in another
    layout mode) read better: where both read one word on the same box, the surer text
    (by ``ScanSettings.merge_margin`` points of confidence: block mode read ``+The`` at 59% where
    page mode read ``The`` at 96%); where ``chosen`` has no word at all, ``other``'s sure
    words with a letter or digit (page layout analysis, ``--psm 3``, dropped a lone row
    number far left of its row, ``9`` before ``The Public Services…``, that block mode,
    ``--psm 6``, read at 96%). The chosen reading keeps its lines and rows.

    >>> kept = [OcrWord("+The", 94, 124, 108, 133, 59.0, 1, 1)]
    >>> lone, same = OcrWord("9", 63, 124, 68, 133, 96.0), OcrWord("The", 94, 124, 108, 133, 96.0)
    >>> [(w.text, w.line) for w in _merge_readings(kept, [lone, same])]
    [('The', 1), ('9', 5000000000000)]
    """
    # Each word is compared only with the words whose tops could pass the test (a page
    # holds hundreds of words: comparing every pair took a quarter of a scan's Python time).
    others = _ByTop(other)
    out = list(chosen)
    for n, word in enumerate(chosen):
        # _same_box needs the tops within a third of the smaller height: of this word's too
        reach = word.height / DEFAULT_SCAN.same_box_parts
        twins = [w for w in others.near(word.top - reach, word.top + reach)
                 if _same_box(word, w)]  # fmt: skip
        if len(twins) == 1 and twins[0].conf >= word.conf + scan.merge_margin:
            out[n] = replace(word, text=twins[0].text, conf=twins[0].conf)
    kept = _ByTop(chosen)
    tallest = max((w.bottom - w.top for w in chosen), default=0.0)
    for word in other:
        if word.conf < scan.missed_confidence or not any(ch.isalnum() for ch in word.text):
            continue
        # an overlapping word starts above this one's bottom, at most the tallest word above
        if any(_overlap(word, old) for old in kept.near(word.top - tallest, word.bottom)):
            continue
        out.append(replace(word, block=800 + word.block, line=5 * 10**12 + word.line))
    return tuple(out)


class _ByTop:
    """Words sorted by their top edge, for the words whose top is in a range: a superset
    (the range is widened by a hair against rounding) that the caller's exact test sorts."""

    def __init__(self, words: Sequence[OcrWord]) -> None:
        self.words = sorted(words, key=lambda w: w.top)
        self.tops = [w.top for w in self.words]

    def near(self, low: float, high: float) -> list[OcrWord]:
        hair = 1e-6 * (1.0 + abs(low) + abs(high))
        start = bisect.bisect_left(self.tops, low - hair)
        return self.words[start : bisect.bisect_right(self.tops, high + hair)]


def _second_pass(
    image: Any,
    scale: float,
    lang: str,
    regions: Sequence[tuple[float, float, float, float]],
    words: Sequence[OcrWord],
    scan: ScanSettings = DEFAULT_SCAN,
) -> list[OcrWord]:
    """Words in the inked areas the page's first reading left without words, each area cut
    out (with a margin) and read as one uniform block (``--psm 6``): Tesseract's page
    layout analysis drops table cells boxed by rules — the last row of a ruled table,
    ``Germany 667``, came back empty — that a block read on its own keeps. Only words
    whose centre is in the area and that overlap no word already read are added."""
    cut: list[tuple[int, Any, float, float]] = []  # (region, its crop, left, upper)
    for k, (x0, top, x1, bottom) in enumerate(regions[:scan.second_pass_regions]):
        pad = 6.0
        left, upper = max(0.0, x0 - pad), max(0.0, top - pad)
        crop = image.crop((int(left * scale), int(upper * scale),
                           int(math.ceil((x1 + pad) * scale)),
                           int(math.ceil((bottom + pad) * scale))))  # fmt: skip
        if crop.width < 8 or crop.height < 8:
            continue
        cut.append((k, crop, left, upper))
    # every area in one Tesseract call (ocr_images), the words then taken area by area
    readings = ocr_images([c[1] for c in cut], [scale] * len(cut), lang, psm=6, scan=scan)
    added: list[OcrWord] = []
    for (k, _crop, left, upper), read in zip(cut, readings, strict=True):
        x0, top, x1, bottom = regions[k]
        for w in read:
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
