"""What is done to a scanned page image before Tesseract reads it, and how much of the page
it read: background flattening, rotation and skew, and :class:`OcrQuality`.

Why each step:

* **background flattening** — a table's grey-shaded rows sit on a darker background than the
  page; Tesseract binarises the page with one global threshold, and a grey row went black
  with its text in it (an uploaded licence table lost about half its rows). The background
  is estimated with a grey *closing* (a maximum filter wider than a pen stroke, then a
  minimum filter) and divided out, so every background is white and the ink stays dark;
* **rotation** — a page scanned sideways or upside down is turned upright by Tesseract's own
  orientation detection (OSD, the ``osd`` language data), read on a small copy;
* **skew** — a page fed 0.4° askew drifts by a text line across the page, and rows melt into
  each other; the angle whose horizontal projection has the sharpest peaks (text lines
  between white gaps) is taken, and the page turned back by it;
* **rules** — once the page is straight, a table's ruling lines are painted white
  (:func:`remove_rules`): Tesseract read a vertical rule beside a digit as ``]`` or ``1``,
  and a ruled census table lost three rows in four;
* **dust** — isolated specks smaller than a full stop are painted white
  (:func:`remove_specks`): a speck beside a number was read into it (``1,204.``);
* **quality** — the inked area of the page that no recognised word covers. A word Tesseract
  never saw has no confidence to be low, so confidences alone never told that a shaded row
  was lost: the ink is still on the page. Rules (long thin lines) and dust (specks) are no
  text and are not counted.

A runnable example on a made-up page (one line of "text" on a grey band)::

    >>> import numpy as np
    >>> page = np.full((120, 400), 250, np.uint8)
    >>> page[40:80, :] = 180                     # a grey-shaded row
    >>> page[55:63, 20:380:8] = 30               # its letters
    >>> flat = flatten_background(page, 2.0)
    >>> int(flat[45, 10]) > 240, int(flat[58, 20]) < 80
    (True, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings

__all__ = [
    "MISSED_SHARE",
    "OcrQuality",
    "PreparedPage",
    "Rule",
    "flatten_background",
    "find_rules",
    "measure_quality",
    "orientation",
    "prepare_image",
    "remove_rules",
    "remove_specks",
    "skew_angle",
]

#: A page where more than this share of the text-like inked area has no word is reported
#: as "OCR may have missed text".
MISSED_SHARE = DEFAULT_SCAN.missed_share
#: Skew looked for, in degrees either way (a scanner feed; beyond, it is a rotation).
MAX_SKEW = DEFAULT_SCAN.max_skew
#: Angles under this are left alone (turning costs a resample and blurs a little).
MIN_SKEW = DEFAULT_SCAN.min_skew
#: Darker than this (0-255, after flattening) is ink.
INK_LEVEL = DEFAULT_SCAN.ink_level


@dataclass(frozen=True)
class OcrQuality:
    """How much of one page OCR read: ``uncovered`` is the share (0–1) of the text-like
    inked area that no recognised word covers; ``regions`` are those uncovered areas, boxes
    in PDF points in the page's OCR frame (that of :class:`~ragdash.ingestion.scans.OcrPage`
    words); ``confidence`` the words' mean confidence (0–100); ``dictionary`` the share of
    alphabetic words found in the word list (-1 when there is no list for the language);
    ``turn`` the degrees the page image was turned counter-clockwise before reading
    (rotation plus deskew); ``inked`` the text-like inked share of the page (0–1).

    >>> OcrQuality(0.4, ((72.0, 100.0, 300.0, 130.0),), 91.0, 0.9).missed_text
    True
    """

    uncovered: float
    regions: tuple[tuple[float, float, float, float], ...]
    confidence: float
    dictionary: float
    turn: float = 0.0
    inked: float = 0.0

    @property
    def missed_text(self) -> bool:
        """True when enough inked area has no words that OCR probably lost text."""
        return self.uncovered > MISSED_SHARE and bool(self.regions)


def flatten_background(pixels: Any, px_per_pt: float, scan: ScanSettings = DEFAULT_SCAN) -> Any:
    """``pixels`` (a 2-D uint8 array, dark ink on a lighter background) with the background
    divided out: shaded cells, grey scans and uneven lighting become white, the ink stays."""
    return _flattened(pixels, px_per_pt, scan)[0]


def _flattened(
    pixels: Any, px_per_pt: float, scan: ScanSettings = DEFAULT_SCAN
) -> tuple[Any, list[Any]]:
    """:func:`flatten_background`, and the corners of the dark bars it turned light (see
    :func:`_light_on_dark`)."""
    import numpy as np
    from scipy import ndimage

    pixels, bars = _light_on_dark(pixels, px_per_pt, scan)
    step = 2 if px_per_pt >= 2 else 1
    small = pixels[::step, ::step]
    size = max(3, int(round(scan.background_window * px_per_pt / step)) | 1)  # > a pen stroke
    background = ndimage.grey_closing(small, size=(size, size))
    if float(np.percentile(background, 100 * scan.white_page_share)) > scan.white_page:
        return pixels, bars  # a white page throughout: nothing to flatten, pixels as read
    if step > 1:
        background = np.repeat(np.repeat(background, step, 0), step, 1)
        background = background[: pixels.shape[0], : pixels.shape[1]]
    flat = pixels.astype(np.float32) * 255.0 / np.maximum(background.astype(np.float32), 1.0)
    flat = np.clip(flat, 0, 255).astype(np.uint8)
    # a shaded area's edge stays behind as a faint line (the estimate lags the blur by a
    # pixel); read at 200 dpi it became "-" and "7" beside the row's cells. Grey that is
    # not ink and not beside ink (a letter's soft edge is) is paper.
    ink = flat < scan.ink_level
    beside = ndimage.binary_dilation(
        ink, iterations=max(2, int(round(scan.ink_fringe * px_per_pt)))
    )
    flat[(flat < scan.paper_level) & ~ink & ~beside] = 255
    return flat, bars


#: A dark bar fills at least this share of its bounding box (bold type is ragged) ...
BAR_FILL = DEFAULT_SCAN.bar_fill
#: ... and its light text covers less than this share of it (paper between bold figures
#: is about half).
BAR_LIGHT = DEFAULT_SCAN.bar_light
#: A bar is dark at least this thick each way (points); a rule that runs into it is not.
BAR_CORE = DEFAULT_SCAN.bar_core


def _light_on_dark(
    pixels: Any, px_per_pt: float, scan: ScanSettings = DEFAULT_SCAN
) -> tuple[Any, list[Any]]:
    """``pixels`` with light-on-dark areas (white text in a dark header bar) inverted, so
    all text is dark on light, and each inverted bar's four corners (x, y in pixels: top
    left, top right, bottom left, bottom right) — its outline is gone from the image, yet
    it is four rules of a table, as a PDF's filled rectangle is four edges to pdfplumber.

    A dark area is what stays dark once light strokes thinner than about 3 pt are opened
    away and rules (thinner than :data:`BAR_CORE`) are cut off it; it is inverted when more
    of its pixels stand well above its level (light text) than below it (dark text on grey
    stays as it is), and when it is a filled area at least 12 pt each way (a word in black
    ink, set across or upright in a rotated header, is no bar), straight or a little askew
    (see :func:`_filled`).

    Bold type set close merges into such an area too (a column of bold figures in a tax
    table, a bold title): it is told from a bar by its outline and its share of light
    pixels. A bar fills at least :data:`BAR_FILL` of its box and its light text is a
    minority of it (under :data:`BAR_LIGHT`); between bold figures the paper is about half
    the area (0.45–0.7 on a real tax table) and the blob is ragged. Inverting those
    figures had painted them into black boxes Tesseract read as ``Mae WO.``."""
    import numpy as np
    from scipy import ndimage

    step = max(1, int(round(px_per_pt)))
    small = pixels[::step, ::step]
    opened = ndimage.grey_opening(small, size=(3, 3))
    # a table's rules run into the bar above it: cut them off (they are far thinner than a
    # bar), or bar and grid are one ragged area that fills a fifth of its box
    core = max(3, int(round(scan.bar_core * px_per_pt / step)))
    solid = ndimage.binary_opening(opened < scan.dark_level, structure=np.ones((core, core), bool))
    labels, count = ndimage.label(solid)
    if not count:
        return pixels, []
    flip = np.zeros(count + 1, bool)
    objects = ndimage.find_objects(labels)
    for n, where in enumerate(objects, start=1):
        if where is None:
            continue
        part = labels[where] == n
        tall = (where[0].stop - where[0].start) * step / px_per_pt
        wide = (where[1].stop - where[1].start) * step / px_per_pt
        if min(tall, wide) < scan.bar_min or not _filled(part, px_per_pt / step, scan):
            continue  # a word, a rule, a speck, bold type: no bar that text sits in
        values = small[where][part].astype(np.int16)
        level = int(np.median(opened[where][part]))
        lighter = float(np.mean(values > level + scan.bar_contrast))
        darker = float(np.mean(values < level - scan.bar_contrast))
        flip[n] = scan.bar_light_min < lighter < scan.bar_light and lighter > darker
    if not flip.any():
        return pixels, []

    from PIL import Image, ImageDraw

    corners = [
        _corners(labels[where] == n, where, step)
        for n, where in enumerate(objects, start=1)
        if where is not None and flip[n]
    ]
    # each bar is inverted whole, as the (slightly turned) rectangle its edges draw: the
    # mask it was found by has holes where its white letters are, and inverting only the
    # mask left dark patches in the words ("Pub'ications"). Its colour becomes paper
    # white (a grey bar inverted is grey, and the background's edge lagged as a line).
    band = max(2, round(scan.bar_edge_blur * px_per_pt))  # the edge's blur, either side
    out = pixels.copy()
    for c in corners:
        # the bar's box with room for the blur band: the masks are drawn there only
        x0, y0 = (max(0, int(v) - band - 1) for v in c.min(0))
        x1 = min(pixels.shape[1], int(math.ceil(c[:, 0].max())) + band + 1)
        y1 = min(pixels.shape[0], int(math.ceil(c[:, 1].max())) + band + 1)
        shape = Image.new("1", (x1 - x0, y1 - y0), 0)
        ImageDraw.Draw(shape).polygon(
            [(float(x) - x0, float(y) - y0) for x, y in c[[0, 1, 3, 2]]], fill=1
        )
        drawn = np.asarray(shape, bool)
        inner = ndimage.binary_erosion(drawn, iterations=band)
        if not inner.any():
            continue
        box = out[y0:y1, x0:x1]
        seen = pixels[y0:y1, x0:x1][inner]
        scale = 255.0 / max(255.0 - float(np.median(seen)), 1.0)
        box[inner] = np.clip((255.0 - seen) * scale, 0, 255).astype(np.uint8)
        box[ndimage.binary_dilation(drawn, iterations=band) & ~inner] = 255
    return out, corners


def _column_edges(part: Any) -> tuple[Any, Any, Any]:
    """The columns of the mask ``part`` that hold any of it, and in each the row of its
    first pixel (top edge) and one past its last (bottom edge)."""
    import numpy as np

    cols = np.nonzero(part.any(0))[0]
    tops = part.argmax(0)[cols].astype(float)
    bottoms = (part.shape[0] - part[::-1].argmax(0)[cols]).astype(float)
    return cols, tops, bottoms


def _corners(part: Any, where: Any, step: int) -> Any:
    """The four corners (x, y; top left, top right, bottom left, bottom right) of a bar
    given as its mask ``part`` in the box ``where`` of an image shrunk ``step`` times, in
    pixels of the full image: its top and bottom edges are fitted as lines, so a bar
    scanned askew has the corners it has on the sheet."""
    import numpy as np

    cols, tops, bottoms = _column_edges(part)
    x = cols.astype(float)
    ends = np.array([cols[0], cols[-1] + 1], float)
    if len(cols) >= 2:
        top = np.polyval(np.polyfit(x, tops, 1), ends)
        bottom = np.polyval(np.polyfit(x, bottoms, 1), ends)
    else:
        top, bottom = np.full(2, tops.min()), np.full(2, bottoms.max())
    xs = (ends + where[1].start) * step
    return np.array([
        [xs[0], (top[0] + where[0].start) * step], [xs[1], (top[1] + where[0].start) * step],
        [xs[0], (bottom[0] + where[0].start) * step],
        [xs[1], (bottom[1] + where[0].start) * step],
    ])  # fmt: skip


def _bar_rules(corners: Sequence[Any], angle: float, size: tuple[int, int],
               px_per_pt: float) -> tuple[Rule, ...]:
    """The four edges, as rules in points, of each bar whose ``corners`` were found before
    the page (``size``: width, height in pixels) was turned ``angle`` degrees
    counter-clockwise about its centre, as PIL turns it."""
    import numpy as np

    theta = np.radians(angle)
    cx, cy = size[0] / 2, size[1] / 2
    rules: list[Rule] = []
    for points in corners:
        dx, dy = points[:, 0] - cx, points[:, 1] - cy
        x = cx + dx * np.cos(theta) + dy * np.sin(theta)
        y = cy - dx * np.sin(theta) + dy * np.cos(theta)
        x0, x1 = float(x.min()) / px_per_pt, float(x.max()) / px_per_pt
        top, bottom = float(y.min()) / px_per_pt, float(y.max()) / px_per_pt
        rules.extend([(x0, top, x1, top), (x0, bottom, x1, bottom),
                      (x0, top, x0, bottom), (x1, top, x1, bottom)])  # fmt: skip
    return tuple(rules)


def _filled(part: Any, px_per_pt: float, scan: ScanSettings = DEFAULT_SCAN) -> bool:
    """``part`` (a boolean mask in its bounding box) is a filled rectangle, set straight or
    a little askew: it fills :data:`BAR_FILL` of its box, or, column by column, it fills
    that share between its top and bottom edges and both edges are straight lines (within
    a point). A scanned bar 0.4° askew fills only 84% of its box — the slope of a page-wide
    bar is several points — and was left dark; bold type's outline is ragged.

    >>> import numpy as np
    >>> bar = np.zeros((40, 400), bool)
    >>> for x in range(400):
    ...     bar[x // 50 : x // 50 + 30, x] = True     # a bar 30 high, sloping 8 over 400
    >>> bool(bar.sum() < BAR_FILL * bar.size), _filled(bar, 1.0)
    (True, True)
    """
    import numpy as np

    if part.sum() >= scan.bar_fill * part.size:
        return True
    cols, tops, bottoms = _column_edges(part)
    if len(cols) < 3:
        return False
    if part[:, cols].sum() < scan.bar_fill * float((bottoms - tops).sum()):
        return False
    x = cols.astype(float)
    ragged = max(
        float(np.std(edge - np.polyval(np.polyfit(x, edge, 1), x))) for edge in (tops, bottoms)
    )
    return ragged <= scan.bar_straight * px_per_pt


#: A straight run of ink at least this long (points) and at most RULE_THICKNESS thick is a
#: table rule, not a letter (the tallest stroke of 24 pt type is about 17 pt); a box drawn
#: round a totals row is about 3 pt thick, a filled bar much thicker.
RULE_LENGTH = DEFAULT_SCAN.rule_length
RULE_THICKNESS = DEFAULT_SCAN.rule_thickness
#: An upright run at least this long that meets a rule is a cell's side, however short
#: (a grid's row is often 14 pt high); a letter's stem standing on a rule is shorter.
CELL_SIDE = DEFAULT_SCAN.cell_side


def _rule_masks(
    pixels: Any, px_per_pt: float, scan: ScanSettings = DEFAULT_SCAN
) -> tuple[Any, Any]:
    """The ruling lines of ``pixels`` as two boolean masks, across and upright (the sides
    of a grid's low cells with the upright ones): see :func:`remove_rules`."""
    import numpy as np
    from scipy import ndimage

    ink = (pixels < scan.ink_level).astype(np.uint8)
    length = max(3, int(round(scan.rule_length * px_per_pt)))
    thick = max(2, int(round(scan.rule_thickness * px_per_pt)) + 1)

    def opened(axis: int, size: int) -> Any:
        eroded = ndimage.minimum_filter1d(ink, size, axis=axis)
        return ndimage.maximum_filter1d(eroded, size, axis=axis)

    across = (opened(1, length) & (1 - opened(0, thick))).astype(bool)
    upright = (opened(0, length) & (1 - opened(1, thick))).astype(bool)
    rules = across | upright
    if not rules.any():
        return across, upright
    # the sides of a grid's cells: upright runs too short to be rules alone, that meet one
    side = max(3, int(round(scan.cell_side * px_per_pt)))
    sides = (opened(0, side) & (1 - opened(1, thick))).astype(bool) & ~rules
    if sides.any():
        labels, count = ndimage.label(sides, structure=np.ones((3, 3), bool))
        near = ndimage.binary_dilation(rules, iterations=max(1, round(px_per_pt)))
        touching = np.unique(labels[near & sides])
        upright = upright | np.isin(labels, touching[touching > 0])
    return across, upright


#: A rule's box in points of the straightened page: ``(x0, top, x1, bottom)``.
Rule = tuple[float, float, float, float]


def find_rules(
    pixels: Any, px_per_pt: float, scan: ScanSettings = DEFAULT_SCAN
) -> tuple[Rule, ...]:
    """The ruling lines of a straightened page image, each as its box in points — what a
    born-digital PDF gives pdfplumber as line objects, so a scanned grid can be cut into
    cells as a drawn one is. Pieces of one rule (it is cut where another crosses it) come
    back separately; joining them is the table finder's work.

    >>> import numpy as np
    >>> page = np.full((200, 400), 255, np.uint8)
    >>> page[100, 10:390] = 0                    # a rule across the page
    >>> page[20:180, 200] = 0                    # one down it
    >>> page[60:80, 300:304] = 0                 # a letter's stem
    >>> [tuple(round(v) for v in rule) for rule in find_rules(page, 2.0)]  # cut where they cross
    [(6, 50, 100, 50), (100, 50, 196, 50), (100, 10, 100, 50), (100, 50, 100, 90)]
    """
    return _rule_boxes(*_rule_masks(pixels, px_per_pt, scan), px_per_pt)


def _rule_boxes(across: Any, upright: Any, px_per_pt: float) -> tuple[Rule, ...]:
    from scipy import ndimage

    rules: list[Rule] = []
    for mask in (across, upright):
        labels, _count = ndimage.label(mask, structure=[[1, 1, 1]] * 3)
        for where in ndimage.find_objects(labels):
            if where is None:
                continue
            rows, cols = where
            rules.append((
                cols.start / px_per_pt, rows.start / px_per_pt,
                cols.stop / px_per_pt, rows.stop / px_per_pt,
            ))  # fmt: skip
    return tuple(rules)


def remove_rules(pixels: Any, px_per_pt: float, scan: ScanSettings = DEFAULT_SCAN) -> Any:
    """``pixels`` with the table's ruling lines painted white. Tesseract reads a vertical
    rule beside a digit as ``]``, ``|`` or ``1`` (``9237]``, ``i221]``) and a cell's
    underline as part of the letters; the rules were never text. A rule is a straight run
    of ink at least :data:`RULE_LENGTH` long and no thicker than :data:`RULE_THICKNESS`:
    a filled bar is thicker (it stays), a letter is shorter. A cell's side in a grid of
    low rows is shorter than that: an upright run of at least :data:`CELL_SIDE` that
    meets a rule is one too (a boxed totals row read as ``[rota] _o [ree]``).

    >>> import numpy as np
    >>> page = np.full((200, 400), 255, np.uint8)
    >>> page[100, 10:390] = 0                    # a rule across the page
    >>> page[60:80, 200:204] = 0                 # a letter's stem
    >>> clean = remove_rules(page, 2.0)
    >>> int(clean[100, 50]), int(clean[70, 201])
    (255, 0)
    """
    return _paint_out(pixels, px_per_pt, *_rule_masks(pixels, px_per_pt, scan), scan=scan)


def _paint_out(
    pixels: Any, px_per_pt: float, across: Any, upright: Any, scan: ScanSettings = DEFAULT_SCAN
) -> Any:
    import numpy as np
    from scipy import ndimage

    rules = across | upright
    if not rules.any():
        return pixels
    # with its blurred fringe: a faint edge left beside a digit was still read as a "7"
    rules = ndimage.binary_dilation(rules, iterations=max(1, round(scan.rule_fringe * px_per_pt)))
    out = pixels.copy()
    out[rules] = 255
    # the faint edge of the blur beyond that: paper-coloured pixels near a rule are paper
    halo = ndimage.binary_dilation(rules, iterations=max(2, round(scan.rule_halo * px_per_pt)))
    out[halo & (out > scan.halo_paper)] = 255
    # what is left where thick rules cross (a box's corners) is a blot no letter is: small
    # and touching where a rule was (it was read as "_" or ")" beside the cell's number)
    labels, count = ndimage.label(out < scan.ink_level, structure=np.ones((3, 3), bool))
    if count:
        near = ndimage.binary_dilation(rules, iterations=2)
        touching = np.zeros(count + 1, bool)
        touching[np.unique(labels[near & (labels > 0)])] = True
        touching[0] = False
        limit = (scan.rule_thickness + scan.rule_blot_margin) * px_per_pt
        for n, where in enumerate(ndimage.find_objects(labels), start=1):
            if where is None or not touching[n]:
                continue
            tall, wide = where[0].stop - where[0].start, where[1].stop - where[1].start
            touching[n] = tall <= limit and wide <= limit and max(tall, wide) > 0
        out[touching[labels]] = 255
    return out


#: An isolated blot of ink no larger than this each way (points) is dust, not a mark: the
#: full stop of 8 pt type is about 0.8 pt across.
SPECK_SIZE = DEFAULT_SCAN.speck_size


def remove_specks(pixels: Any, px_per_pt: float, scan: ScanSettings = DEFAULT_SCAN) -> Any:
    """``pixels`` with isolated specks of dust painted white. A speck beside a number was
    read as part of it (``1,204.``, ``25,790:``), and a row no longer read as printed. A
    speck is a blot of ink (eight-connected) that fits in :data:`SPECK_SIZE` points each
    way; the dot of an ``i`` or a full stop is larger.

    >>> import numpy as np
    >>> page = np.full((60, 60), 255, np.uint8)
    >>> page[10, 10] = 0                          # a speck
    >>> page[30:34, 30:34] = 0                    # a full stop at 200 dpi
    >>> clean = remove_specks(page, 200 / 72)
    >>> int(clean[10, 10]), int(clean[31, 31])
    (255, 0)
    """
    import numpy as np
    from scipy import ndimage

    limit = max(1, int(scan.speck_size * px_per_pt))
    labels, count = ndimage.label(pixels < scan.ink_level, structure=np.ones((3, 3), bool))
    if not count:
        return pixels
    small = np.zeros(count + 1, bool)
    for n, where in enumerate(ndimage.find_objects(labels), start=1):
        if where is None:
            continue
        tall, wide = where[0].stop - where[0].start, where[1].stop - where[1].start
        small[n] = tall <= limit and wide <= limit
    if not small.any():
        return pixels
    out = pixels.copy()
    out[small[labels]] = 255
    return out


def skew_angle(
    pixels: Any, max_angle: float | None = None, scan: ScanSettings = DEFAULT_SCAN
) -> float:
    """The skew of the text lines in degrees (counter-clockwise turn that straightens
    them), found by the projection profile: the angle whose row histogram of ink is the
    most peaked. 0.0 for a page with too little ink to tell."""
    import numpy as np

    max_angle = scan.max_skew if max_angle is None else max_angle
    step = max(1, pixels.shape[1] // scan.skew_width)
    ink = pixels[::step, ::step] < scan.ink_level
    ys, xs = np.nonzero(ink)
    if len(ys) < scan.skew_min_ink:
        return 0.0
    if len(ys) > scan.skew_sample:
        keep = np.random.default_rng(0).choice(len(ys), scan.skew_sample, replace=False)
        ys, xs = ys[keep], xs[keep]
    xs = xs - ink.shape[1] / 2.0

    def score(angle: float) -> float:
        shifted = ys - xs * math.tan(math.radians(angle))
        counts = np.bincount((shifted - shifted.min()).astype(np.int64))
        return float(np.dot(counts, counts))

    coarse, fine = scan.skew_step, scan.skew_fine_step
    best = max(np.arange(-max_angle, max_angle + 1e-9, coarse), key=score)
    best = max(np.arange(best - coarse, best + coarse + 1e-9, fine), key=score)
    if score(best) <= score(0.0) * scan.skew_gain:
        return 0.0  # no clear gain: a table of rules, a picture
    return float(round(best, 2))


def orientation(image: Any, scan: ScanSettings = DEFAULT_SCAN) -> int:
    """Degrees (0, 90, 180, 270) to turn ``image`` counter-clockwise so its text stands
    upright, from Tesseract's OSD on a small copy; 0 when it cannot tell (too little text,
    low confidence, no ``osd`` data)."""
    import pytesseract

    small = image
    longest = max(image.size)
    if longest > scan.osd_size:
        ratio = scan.osd_size / longest
        small = image.resize((max(1, int(image.width * ratio)), max(1, int(image.height * ratio))))
    try:
        osd = pytesseract.image_to_osd(
            small, config=f"--psm 0 -c min_characters_to_try={scan.osd_characters}",
            output_type=pytesseract.Output.DICT, timeout=60,
        )  # fmt: skip
    except (pytesseract.TesseractError, RuntimeError, ValueError):
        return 0
    rotate = int(osd.get("rotate", 0)) % 360
    if rotate == 0 or float(osd.get("orientation_conf", 0.0)) < scan.osd_confidence:
        return 0
    return (360 - rotate) % 360  # OSD says how far to turn clockwise


@dataclass(frozen=True)
class PreparedPage:
    """A page image made ready for Tesseract (:func:`prepare_image`): upright, straight,
    background flattened, rules and dust removed; the degrees it was turned
    counter-clockwise; and the ruling lines that were taken out (:func:`find_rules`), in
    points of the straightened page, so the table they drew can still be rebuilt."""

    image: Any
    turn: float
    rules: tuple[Rule, ...] = ()


def prepare_image(
    image: Any, px_per_pt: float, rotate: bool = True, scan: ScanSettings = DEFAULT_SCAN
) -> PreparedPage:
    """The page image Tesseract reads, how far it was turned and the rules taken out of it
    (a :class:`PreparedPage`)."""
    import numpy as np
    from PIL import Image

    turn = 0.0
    if rotate:
        quarter = orientation(image, scan)
        if quarter:
            image = image.rotate(quarter, expand=True, fillcolor=255)
            turn += quarter
    pixels, bars = _flattened(np.asarray(image.convert("L")), px_per_pt, scan)
    pixels = remove_specks(pixels, px_per_pt, scan)
    angle = skew_angle(pixels, scan=scan)
    flat = Image.fromarray(pixels)
    if abs(angle) >= scan.min_skew:
        flat = flat.rotate(angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=255)
        turn += angle
    else:
        angle = 0.0
    straight = np.asarray(flat)
    masks = _rule_masks(straight, px_per_pt, scan)
    return PreparedPage(
        Image.fromarray(_paint_out(straight, px_per_pt, *masks, scan=scan)), turn,
        _rule_boxes(*masks, px_per_pt) + _bar_rules(bars, angle, flat.size, px_per_pt),
    )  # fmt: skip


def measure_quality(
    image: Any,
    boxes: list[tuple[float, float, float, float]],
    scale: float,
    confidence: float,
    dictionary: float,
    turn: float,
    scan: ScanSettings = DEFAULT_SCAN,
) -> OcrQuality:
    """:class:`OcrQuality` of the prepared page ``image`` given the recognised words'
    ``boxes`` (in PDF points; ``scale`` pixels per point)."""
    import numpy as np
    from scipy import ndimage

    pixels = np.asarray(image.convert("L"))
    step = max(1, int(round(scale)))  # about one cell per point
    height, width = pixels.shape[0] // step, pixels.shape[1] // step
    if not height or not width:
        return OcrQuality(0.0, (), confidence, dictionary, turn)
    cells = pixels[: height * step, : width * step].reshape(height, step, width, step)
    ink = cells.min(axis=(1, 3)) < scan.ink_level
    per = scale / step  # cells per point
    heights = sorted(b[3] - b[1] for b in boxes)
    text_h = (max(scan.quality_min_height, heights[len(heights) // 2] * per) if heights
              else scan.quality_text_height * per)  # fmt: skip
    # table rules are ink but no text: a run of ink longer than four text heights along a
    # row or a column is taken out (a letter is never that long and that thin)
    reach = max(3, int(round(text_h * scan.quality_rule_run)))
    rules = ndimage.binary_opening(ink, structure=np.ones((1, reach), bool))
    rules |= ndimage.binary_opening(ink, structure=np.ones((reach, 1), bool))
    ink = ink & ~ndimage.binary_dilation(rules, structure=np.ones((3, 3), bool))
    # letters into word blobs: close gaps of about a letter's width along the line
    join = max(1, int(round(text_h * scan.quality_join)))
    blobs = ndimage.binary_closing(ink, structure=np.ones((1, join), bool))
    labels, count = ndimage.label(blobs)
    if not count:
        return OcrQuality(0.0, (), confidence, dictionary, turn)
    covered = np.zeros_like(ink)
    for x0, top, x1, bottom in boxes:
        pad = scan.quality_pad * (bottom - top)
        covered[
            max(0, int((top - pad) * per)): int(math.ceil((bottom + pad) * per)) + 1,
            max(0, int((x0 - pad) * per)): int(math.ceil((x1 + pad) * per)) + 1,
        ] = True
    slices = ndimage.find_objects(labels)
    textlike = np.zeros(count + 1, bool)
    for n, where in enumerate(slices, start=1):
        if where is None:
            continue
        h = where[0].stop - where[0].start
        w = where[1].stop - where[1].start
        thin = min(h, w) <= max(1.0, text_h * scan.quality_thin)
        if (thin or h > scan.quality_tall * text_h or h < scan.quality_short * text_h
                or w * h < scan.quality_area * text_h * text_h):  # fmt: skip
            continue  # a rule, a picture, a speck of dust
        textlike[n] = True
    text_ink = ink & textlike[labels]
    total = int(text_ink.sum())
    if not total:
        return OcrQuality(0.0, (), confidence, dictionary, turn)
    missed = text_ink & ~covered
    share = float(missed.sum()) / total
    grown = ndimage.binary_dilation(missed, structure=np.ones((3, 3), bool),
                                    iterations=max(1, int(text_h)))  # fmt: skip
    regions = []
    spots, _ = ndimage.label(grown)
    for where in ndimage.find_objects(spots):
        if where is None:
            continue
        part = missed[where]
        if part.sum() < scan.region_area * text_h * text_h:
            continue
        ys, xs = np.nonzero(part)
        y0, x0 = where[0].start + ys.min(), where[1].start + xs.min()
        y1, x1 = where[0].start + ys.max() + 1, where[1].start + xs.max() + 1
        x0_pt, y0_pt, x1_pt, y1_pt = (round(float(v) / per, 1) for v in (x0, y0, x1, y1))
        box = (x0_pt, y0_pt, x1_pt, y1_pt)
        regions.append((int(part.sum()), box))
    regions.sort(reverse=True)
    return OcrQuality(
        round(share, 4), tuple(box for _, box in regions[:scan.quality_regions]),
        round(confidence, 1),
        round(dictionary, 4), round(turn, 2), round(total / (height * width), 4),
    )  # fmt: skip
