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

import io
import os
import re
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ragdash.errors import IngestError, SettingsError
from ragdash.ingestion.ocr_prep import OcrQuality
from ragdash.ingestion.pdf_layout import (
    PageLayout,
)
from ragdash.ingestion.scan.language import (
    AUTO_LANGUAGE,
    choose_language,
    dictionary_share,
    installed_languages,
    language_name,
)
from ragdash.ingestion.scan.lines import ocr_layout, words_to_lines
from ragdash.ingestion.scan.page import read_page_image
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, PASSES, ScanSettings
from ragdash.ingestion.scan.tesseract import (
    TESSERACT_INSTALL,
    ocr_image,
    render_for_ocr,
    require_tesseract,
    scan_resolution,
    tesseract_missing,
)
from ragdash.ingestion.scan.words import LOW_CONFIDENCE, OcrPage, OcrWord

__all__ = [
    "DEFAULT_OCR",
    "DEFAULT_SCAN",
    "PASSES",
    "ScanSettings",
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


def ocr_page(page: Any, number: int, settings: OcrSettings = DEFAULT_OCR) -> OcrPage:
    """OCR one pdfplumber page (1-based ``number``)."""
    image, resolution = render_for_ocr(page, settings.dpi)
    return read_page_image(image, resolution, number, settings.lang)


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
