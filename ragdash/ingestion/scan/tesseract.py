"""Tesseract's calls: a page drawn for OCR, its words read with their boxes and confidences,
and the specks and rule stubs that are no words dropped as they are read."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import importlib.util
import os
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ragdash.errors import OcrUnavailable
from ragdash.ingestion.scan.codes import _brackets
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings
from ragdash.ingestion.scan.words import OcrWord

__all__ = [
    "MIN_SCAN_DPI",
    "SCAN_COVER",
    "TESSERACT_INSTALL",
    "ocr_image",
    "ocr_images",
    "same_pixels_read_once",
    "render_for_ocr",
    "require_tesseract",
    "scan_resolution",
    "tesseract_missing",
]


#: How to get Tesseract, said wherever OCR was needed and could not run.
TESSERACT_INSTALL = (
    "install Tesseract to read scans: `sudo apt-get install tesseract-ocr tesseract-ocr-eng` "
    "(Debian/Ubuntu) or `brew install tesseract` (macOS), and `pip install pytesseract`"
)


def tesseract_missing() -> str | None:
    """Why OCR cannot run here (a sentence that says how to install it), or None.

    Looked up on every call (``shutil.which``), so installing Tesseract needs no restart.
    pytesseract is looked for, not imported: every PDF loaded asks (the parse cache's key
    says whether OCR could run), and importing pytesseract imports pandas, about 0.4
    CPU-seconds for a command that may never OCR a page."""
    loaded = sys.modules.get("pytesseract")
    if loaded is None and importlib.util.find_spec("pytesseract") is None:
        return f"the pytesseract package is not installed; {TESSERACT_INSTALL}"
    # The program pytesseract runs: its default unless a caller who imported it set another
    # (a module another thread is still importing has no runner yet: the default then).
    runner = getattr(loaded, "pytesseract", None)
    command = getattr(runner, "tesseract_cmd", "tesseract")
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
    image: Any, scale: float = 1.0, lang: str = "eng", psm: int | None = None,
    scan: ScanSettings = DEFAULT_SCAN,
) -> tuple[OcrWord, ...]:
    """Tesseract's words on a PIL image, boxes divided by ``scale`` (pixels per PDF point).

    Raises :class:`~ragdash.errors.OcrUnavailable` when Tesseract cannot run. Inside
    :func:`same_pixels_read_once` a reading of the same pixels is looked up, not run again."""
    return ocr_images([image], [scale], lang, psm, scan)[0]


def ocr_images(
    images: Sequence[Any], scales: Sequence[float], lang: str = "eng", psm: int | None = None,
    scan: ScanSettings = DEFAULT_SCAN,
) -> list[tuple[OcrWord, ...]]:
    """:func:`ocr_image` of each of ``images`` (each with its own scale), read by ONE
    Tesseract process: the images are handed to it as a list of files, each read as a page
    of its own in the same mode. Why: most of a small crop's reading is Tesseract starting
    and loading its model (about 0.2 s of CPU a call against a few milliseconds of
    recognition), and the repair passes read dozens of crops a page — 147 calls for the 5
    pages of a table scan, twice the time of reading the pages. A page of the list is read
    as the same image alone is, word for word (Tesseract's LSTM engine keeps nothing from
    one page to the next).

    >>> from PIL import Image
    >>> ocr_images([], [], "eng")
    []
    """
    if len(images) != len(scales):
        raise ValueError(f"{len(images)} images but {len(scales)} scales")
    mode = psm or scan.psms[0]
    memo = _MEMO.get()
    keys: list[tuple] = [()] * len(images)  # each image's key in the memo, when kept
    out: list[tuple[OcrWord, ...] | None] = [None] * len(images)
    if memo is not None:
        for n, (image, scale) in enumerate(zip(images, scales, strict=True)):
            keys[n] = (hashlib.sha256(image.tobytes()).hexdigest(), image.size, image.mode,
                       scale, lang, mode, scan.speck_confidence)  # fmt: skip
            if keys[n] in memo:
                out[n] = memo[keys[n]]
    todo = [n for n in range(len(images)) if out[n] is None]
    if todo:
        read = _ocr_images([images[n] for n in todo], [scales[n] for n in todo], lang, mode,
                           scan)  # fmt: skip
        for n, words in zip(todo, read, strict=True):
            out[n] = words
            if memo is not None:
                memo[keys[n]] = words
    return [words for words in out if words is not None]


#: The readings :func:`same_pixels_read_once` keeps (None outside it: nothing is kept).
_MEMO: contextvars.ContextVar[dict[tuple, tuple[OcrWord, ...]] | None] = contextvars.ContextVar(
    "ocr_memo", default=None
)


@contextlib.contextmanager
def same_pixels_read_once() -> Iterator[None]:
    """Within it, :func:`ocr_image` reads each image once: the same pixels, language and
    mode give the same words (Tesseract is deterministic), so a second reading is looked up.
    Why: ``python -m benchmarks.realscans --ablate`` reads every page once per switched-off
    pass, and most of the crops a pass reads again are the same in every variant. Outside
    it nothing is kept (a parse holds no page images).

    >>> from PIL import Image
    >>> with same_pixels_read_once():
    ...     _MEMO.get() == {}
    True
    >>> _MEMO.get() is None
    True
    """
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def _ocr_images(
    images: Sequence[Any], scales: Sequence[float], lang: str, psm: int, scan: ScanSettings
) -> list[tuple[OcrWord, ...]]:
    """Tesseract's words on each of ``images``, all read by one process (a list of files
    when there are several, as :func:`ocr_images` says why)."""
    require_tesseract()
    import pytesseract

    config = f"--psm {psm}"
    try:
        with tempfile.TemporaryDirectory(prefix="ragdash-ocr-") as folder:
            names = []
            for n, image in enumerate(images):
                if "A" in image.getbands():  # as pytesseract does: transparent is white
                    image = _on_white(image)
                name = os.path.join(folder, f"{n:05d}.png")
                # PNG, as pytesseract hands an image over, but barely compressed: the file
                # lives for one Tesseract call, and PIL's default compression took a sixth
                # of a scan's Python time (Tesseract reads the same pixels either way)
                image.save(name, format="PNG", compress_level=1)
                names.append(name)
            listed = os.path.join(folder, "images.txt")
            if len(names) > 1:
                with open(listed, "w", encoding="utf-8") as handle:
                    handle.write("\n".join(names) + "\n")
            data = pytesseract.image_to_data(names[0] if len(names) == 1 else listed,
                                             lang=lang, config=config,
                                             output_type=pytesseract.Output.DICT)  # fmt: skip
    except pytesseract.TesseractNotFoundError:
        raise OcrUnavailable(f"Tesseract is not installed; {TESSERACT_INSTALL}") from None
    except pytesseract.TesseractError as exc:
        if "loading language" in str(exc.message):
            raise OcrUnavailable(
                f"Tesseract has no '{lang}' language data; install it: "
                f"`sudo apt-get install tesseract-ocr-{lang}`"
            ) from None
        raise OcrUnavailable(f"Tesseract failed ({str(exc.message).strip()[:200]})") from None
    rows: list[list[int]] = [[] for _ in images]
    for i, page in enumerate(data["page_num"]):
        if 1 <= int(page) <= len(images):
            rows[int(page) - 1].append(i)
    return [_words(data, rows[n], scales[n], scan) for n in range(len(images))]


def _on_white(image: Any) -> Any:
    """An image with an alpha channel drawn on white (RGB)."""
    from PIL import Image

    background = Image.new("RGB", image.size, (255, 255, 255))
    background.paste(image, (0, 0), image.getchannel("A"))
    return background


def _words(
    data: dict[str, list[Any]], rows: Iterable[int], scale: float, scan: ScanSettings
) -> tuple[OcrWord, ...]:
    """The words of Tesseract's ``data`` (``image_to_data``'s table) in ``rows``, boxes
    divided by ``scale``: specks dropped, dashes made one, rule stubs dropped."""
    words = []
    for i in rows:
        text = data["text"][i]
        conf = float(data["conf"][i])
        if int(data["level"][i]) != 5 or not text.strip() or conf < 0:
            continue
        left, top = data["left"][i] / scale, data["top"][i] / scale
        wide, tall = data["width"][i] / scale, data["height"][i] / scale
        speck = conf < scan.speck_confidence and not any(ch.isalnum() for ch in text)
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
    return _without_stubs(words, scan)


def _without_stubs(
    words: Sequence[OcrWord], scan: ScanSettings = DEFAULT_SCAN
) -> tuple[OcrWord, ...]:
    """``words`` without an unsure dash that sits above the letters of its line: the stub
    of a table rule left by its removal (a cell's corner), read as ``—`` at 0% between a
    row's label and its figure. A cell's dash sits between the letters' top and baseline,
    a form's blank on the baseline; both stay.

    >>> row = [OcrWord("Services", 175, 226.4, 224, 235.8, 96.0, 1, 9),
    ...        OcrWord("—", 456, 224.3, 462, 224.6, 0.0, 1, 9),
    ...        OcrWord("$8.6M", 470, 226.1, 501, 236.9, 91.0, 1, 9)]
    >>> [w.text for w in _without_stubs(row)]
    ['Services', '$8.6M']
    >>> from dataclasses import replace
    >>> cell = replace(row[1], top=230.8, bottom=231.4)
    >>> [w.text for w in _without_stubs([row[0], cell, row[2]])]
    ['Services', '—', '$8.6M']
    """
    tops: dict[int, list[float]] = {}
    for w in words:
        if any(ch.isalnum() for ch in w.text):
            tops.setdefault(w.line, []).append(w.top)

    def stub(w: OcrWord) -> bool:
        if (w.conf >= scan.speck_confidence or not _DASH_WORD.fullmatch(w.text)
                or w.line not in tops):  # fmt: skip
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


@functools.cache
def _engine() -> str:
    import pytesseract

    return f"tesseract {pytesseract.get_tesseract_version()}"
