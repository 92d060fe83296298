"""The scan passes' thresholds and switches, in one frozen dataclass that checks them.

Why one place: the repairs of a scanned page each rest on a threshold (how sure a word must
be, how many figures of a column are evidence), and a threshold fitted to one document is
found only when all of them can be read, changed and measured together. As pdfplumber's
``TableSettings`` does for table finding, :class:`ScanSettings` holds every threshold of
the scan passes with its default, refuses a value outside its range with a message that
names it, and says which repair passes run (:data:`PASSES`, in the order they run), so that
``python -m benchmarks.realscans --ablate`` can switch each off and measure what it does::

    >>> ScanSettings().passes == PASSES
    True
    >>> ScanSettings().without("lone_figures").passes[:3]
    ('merge_readings', 'reread_numbers', 'relations')
    >>> ScanSettings(reread_confidence=120)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ragdash.errors.SettingsError: scan setting reread_confidence=120 is outside 0–100 (...)
    >>> ScanSettings(passes=("speed",))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ragdash.errors.SettingsError: scan pass 'speed' is not one of merge_readings, ...

Nothing here imports the rest of the scan code: every scan module reads its thresholds from
the :class:`ScanSettings` it is given (:data:`DEFAULT_SCAN` when none).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ragdash.errors import SettingsError
from ragdash.settings import check_ranges

__all__ = ["DEFAULT_SCAN", "PASSES", "PASS_DOC", "ScanSettings"]

#: The repair passes a page image goes through after Tesseract's readings, in this order
#: (:func:`ragdash.ingestion.scan.page.read_page_image`), each with what it does.
PASS_DOC = {
    "merge_readings": "the page's other reading (block mode) fills words the chosen one lacks "
    "or read less surely",
    "reread_numbers": "unsure figures read again on their own, enlarged",
    "lone_figures": "ink in a row of figures that no reading has, read as a lone cell "
    "(two dots one above the other: a ':', 'not available')",
    "relations": "a ≤ or ≥ read as <, >, 2, s or $ where its glyph shows a bar under its angle "
    "(<5 → ≤5, 210 → ≥10)",
    "daggers": "a † or ‡ in a row of figures read as t, T, i or + where its glyph hangs below "
    "the figures' foot with a crossbar near its top (t → †)",
    "codes": "a code read in the shape of the page's other codes (TRAS 143 → TRA5143)",
    "separators": "a thousands separator read as its column writes them (53.113 → 53,113)",
    "decimals": "a decimal point its column says was lost (1044 → 104.4)",
    "signs": "a leading 5 read as $ or S where the column has no signs ($2.7 → 52.7)",
    "lookalikes": "letters that look like digits in a column of figures (TT → 77)",
    "bullets": "list bullets found in the image",
    "pictograms": "pictograms read as text dropped",
    "second_pass": "inked areas left without words read again as blocks",
}
PASSES = tuple(PASS_DOC)

#: (lowest, highest, what it is) of each numeric setting: checked in ``__post_init__``.
_CONFIDENCE = (0.0, 100.0, "a Tesseract confidence")
_SHARE = (0.0, 1.0, "a share")
_COUNT = (1, 1000, "a count")
_HEIGHTS = (0.0, 10.0, "text heights")
_RANGES: dict[str, tuple[float, float, str]] = {
    "low_confidence": _CONFIDENCE,
    "speck_confidence": _CONFIDENCE,
    "missed_confidence": _CONFIDENCE,
    "other_psms_below": _CONFIDENCE,
    "upright_words": _COUNT,
    "upright_share": _SHARE,
    "upright_confidence": _CONFIDENCE,
    "merge_margin": _CONFIDENCE,
    "reread_confidence": _CONFIDENCE,
    "reread_limit": (0, 10_000, "words a page"),
    "reread_scale": (1, 8, "times larger"),
    "cell_gap": _HEIGHTS,
    "code_evidence": _COUNT,
    "separator_evidence": _COUNT,
    "decimal_evidence": _COUNT,
    "decimal_share": _SHARE,
    "decimal_neighbours": _COUNT,
    "sign_evidence": _COUNT,
    "figure_column_share": _SHARE,
    "figure_row": _COUNT,
    "lone_figure_confidence": _CONFIDENCE,
    "number_like_confidence": _CONFIDENCE,
    "second_pass_regions": (0, 1000, "areas a page"),
    "read_confidence": _CONFIDENCE,
    "sure_confidence": _CONFIDENCE,
    "language_margin": _SHARE,
    "line_pad": _SHARE,
    "missed_share": _SHARE,
    "max_skew": (0.0, 45.0, "degrees"),
    "min_skew": (0.0, 45.0, "degrees"),
    "ink_level": (1, 254, "a grey level"),
    "bar_fill": _SHARE,
    "bar_light": _SHARE,
    "bar_core": (0.0, 100.0, "points"),
    "rule_length": (0.0, 1000.0, "points"),
    "rule_thickness": (0.0, 100.0, "points"),
    "cell_side": (0.0, 1000.0, "points"),
    "speck_size": (0.0, 20.0, "points"),
    "snap": (0.0, 50.0, "points"),
    "mend_share": _SHARE,
    "pictogram_height": _HEIGHTS,
    "pictogram_line_height": _HEIGHTS,
    "mark_unsure": _CONFIDENCE,
    # -- the inline thresholds of the scan modules, moved here (issue 44) --
    "same_box_parts": (1, 100, "parts of a text height"),
    "column_edge": _HEIGHTS,
    "row_baseline": _HEIGHTS,
    "row_lookback": _COUNT,
    "segment_gap": (0.0, 10.0, "times pdf_layout.COLUMN_GAP"),
    "code_reach": _HEIGHTS,
    "separator_reach": _HEIGHTS,
    "separator_points": (0, 1000, "figures"),
    "relation_height": _SHARE,
    "relation_bar_fill": _SHARE,
    "relation_bar_zone": _SHARE,
    "relation_side": _SHARE,
    "relation_point": _SHARE,
    "dagger_gap": _HEIGHTS,
    "dagger_rise": _SHARE,
    "dagger_reach": _SHARE,
    "dagger_bar": (1.0, 20.0, "times the stem's width"),
    "dagger_bar_zone": _SHARE,
    "binary_level": (1, 254, "a grey level"),
    "reread_pad": _HEIGHTS,
    "reread_psm": (0, 13, "a Tesseract page segmentation mode"),
    "lookalike_length": (1, 100, "characters"),
    "lookalike_row": (0, 1000, "figures"),
    "lone_cover_pad": _HEIGHTS,
    "lone_join": _HEIGHTS,
    "lone_min_height": _HEIGHTS,
    "lone_min_width": _HEIGHTS,
    "colon_dot": _SHARE,
    "colon_reach": _SHARE,
    "colon_rise_low": _SHARE,
    "colon_rise_high": _SHARE,
    "lone_max_width": (0.0, 100.0, "text heights"),
    "lone_crop_pad": _HEIGHTS,
    "number_like_length": (1, 100, "characters"),
    "dictionary_letters": (1, 100, "letters"),
    "background_window": (0.0, 100.0, "points"),
    "white_page": (0, 255, "a grey level"),
    "white_page_share": _SHARE,
    "ink_fringe": (0.0, 20.0, "points"),
    "paper_level": (0, 255, "a grey level"),
    "dark_level": (0, 255, "a grey level"),
    "bar_min": (0.0, 1000.0, "points"),
    "bar_contrast": (0, 255, "grey levels"),
    "bar_light_min": _SHARE,
    "bar_edge_blur": (0.0, 20.0, "points"),
    "bar_straight": (0.0, 20.0, "points"),
    "rule_fringe": (0.0, 20.0, "points"),
    "rule_halo": (0.0, 20.0, "points"),
    "halo_paper": (0, 255, "a grey level"),
    "rule_blot_margin": (0.0, 20.0, "points"),
    "skew_width": (1, 100_000, "pixels"),
    "skew_min_ink": (0, 10_000_000, "pixels"),
    "skew_sample": (1, 100_000_000, "pixels"),
    "skew_step": (0.001, 45.0, "degrees"),
    "skew_fine_step": (0.001, 45.0, "degrees"),
    "skew_gain": (1.0, 10.0, "times"),
    "osd_size": (1, 100_000, "pixels"),
    "osd_characters": (0, 10_000, "characters"),
    "osd_confidence": (0.0, 100.0, "Tesseract's OSD confidence"),
    "quality_text_height": (0.0, 1000.0, "points"),
    "quality_min_height": (0.0, 1000.0, "cells"),
    "quality_rule_run": (0.0, 100.0, "text heights"),
    "quality_join": _HEIGHTS,
    "quality_pad": _HEIGHTS,
    "quality_thin": _HEIGHTS,
    "quality_tall": (0.0, 100.0, "text heights"),
    "quality_short": _HEIGHTS,
    "quality_area": (0.0, 100.0, "square text heights"),
    "region_area": (0.0, 100.0, "square text heights"),
    "quality_regions": (0, 1000, "areas"),
    "cell_line": _HEIGHTS,
    "blot_min": (0.0, 1000.0, "points"),
    "blot_max": (0.0, 1000.0, "points"),
    "blot_aspect_min": (0.0, 10.0, "width over height"),
    "blot_aspect_max": (0.0, 10.0, "width over height"),
    "blot_fill_min": _SHARE,
    "blot_fill_max": _SHARE,
    "blot_hole": (1.0, 10.0, "times its area"),
    "bullet_slack": (0.0, 100.0, "points"),
    "bullet_reach": (0.0, 100.0, "text heights"),
    "bullet_middle": _HEIGHTS,
    "bullet_size_min": _HEIGHTS,
    "bullet_size_max": _HEIGHTS,
    "mark_length": (0, 100, "characters"),
    "mark_width": (0.0, 100.0, "times the blot"),
    "pictogram_aspect_min": (0.0, 10.0, "width over height"),
    "pictogram_aspect_max": (0.0, 10.0, "width over height"),
}
_PSMS = frozenset(range(14))  # Tesseract's page segmentation modes


@dataclass(frozen=True)
class ScanSettings:
    """Every threshold of the scan passes, and which passes run. The defaults are what
    ragdash reads scans with; the figures each rests on are in the field comments and in
    docs/pdfs-and-scans.md.

    >>> ScanSettings(code_evidence=3).code_evidence
    3
    """

    #: Words Tesseract is less sure of than this (0–100) are boxed on the page image, and
    #: count as unsure in the repairs (a sure figure is evidence, an unsure one is not).
    low_confidence: float = 80.0
    #: Punctuation-only "words" below this confidence are specks of dust and are dropped.
    speck_confidence: float = 60.0
    #: Tesseract's page segmentation modes a page is read in: 3 (automatic layout) and 6
    #: (one uniform block); the reading with more confident characters is kept.
    psms: tuple[int, ...] = (3, 6)
    #: The modes after the first are read only when the first reading's mean word
    #: confidence is under this (100: always, the default), or when it left more than
    #: ``missed_share`` of the text ink unread. Each is one more reading of the whole page.
    #: At 85 a page read surely is read once, a third less Tesseract time, but a bill
    #: table read at 90 or more lost the lone ``9`` left of its row that only block mode
    #: reads, and with it a join (docs/pdfs-and-scans.md, "OCR pace").
    other_psms_below: float = 100.0
    #: Orientation detection is skipped when the first reading has at least
    #: ``upright_words`` words of three characters or more, ``upright_share`` of them wider
    #: than tall, at a mean confidence of ``upright_confidence`` or more: the page already
    #: reads upright (upside down a table page read at 40, upright at 94).
    upright_words: int = 10
    upright_share: float = 0.75
    upright_confidence: float = 60.0
    #: A word only the other reading found is added when at least this sure.
    missed_confidence: float = 85.0
    #: The other reading's text replaces a word when surer by at least this.
    merge_margin: float = 15.0
    #: Words with a digit read less surely than this are read again, enlarged ...
    reread_confidence: float = 92.0
    #: ... at most this many per page, least sure first (each is one more Tesseract run) ...
    reread_limit: int = 60
    #: ... this many times larger.
    reread_scale: int = 3
    #: A blank strip at least this many text heights wide inside one OCR word is a gap
    #: between table cells (letters are a tenth of a height apart, words a third).
    cell_gap: float = 0.8
    #: Codes of one shape a page must have, read surely, before another word is read as one.
    code_evidence: int = 2
    #: Figures with a thousands comma a column must have before a figure in it gets one.
    separator_evidence: int = 3
    #: Figures with a decimal point a column must have before a whole number gets one.
    decimal_evidence: int = 3
    #: Where the column has whole numbers too, a whole number gets the point only when at
    #: least this share of the column's ``decimal_neighbours`` figures nearest it have one.
    #: Set on set 3's validation scans (icdar2013-us-019 at 150 dpi, JPEG q40: ``27 48 78``
    #: for ``2.7 4.8 7.8``, three to five of its six nearest figures pointed), so set 3 is
    #: no validation of it; a synthetic table in tests/test_scan_decimals.py checks it.
    decimal_share: float = 0.5
    decimal_neighbours: int = 6
    #: Sure plain figures a column must have before its ``$2.7`` is read ``52.7``.
    sign_evidence: int = 3
    #: The share of a column's words that must be figures before look-alike letters there
    #: are read as digits.
    figure_column_share: float = 0.8
    #: A row with at least this many figures is a row of a table of numbers ...
    figure_row: int = 3
    #: ... whose lone unread figures are kept when read at least this surely.
    lone_figure_confidence: float = 70.0
    #: How a lone cell is read: as one line of text, then as one word.
    lone_figure_psms: tuple[int, ...] = (7, 8)
    #: A word of capitals and marks read less surely than this may be a number.
    number_like_confidence: float = 75.0
    #: Areas of ink without words read again on their own (largest first), at most this many.
    second_pass_regions: int = 12
    #: A word at least this sure covers its ink in the page's quality measure ...
    read_confidence: float = 40.0
    #: ... and one of three letters or more must be a dictionary word or this sure.
    sure_confidence: float = 90.0
    #: A page is read in another installed language when its dictionary holds at least
    #: this much more of the words of the English reading than the English one does.
    language_margin: float = 0.2
    #: Each OCR'd line is made this share of its height taller at the top and the bottom,
    #: so the gaps between rows compare as on a born-digital page.
    line_pad: float = 0.09
    # -- the page image before Tesseract reads it (ragdash/ingestion/ocr_prep.py) --
    #: A page where more than this share of the text-like inked area has no word is
    #: reported as "OCR may have missed text".
    missed_share: float = 0.15
    #: Skew looked for, in degrees either way (a scanner feed; beyond, it is a rotation).
    max_skew: float = 3.0
    #: Angles under this are left alone (turning costs a resample and blurs a little).
    min_skew: float = 0.1
    #: Darker than this (0-255, after flattening) is ink.
    ink_level: int = 140
    #: A dark bar fills at least this share of its bounding box (bold type is ragged) ...
    bar_fill: float = 0.85
    #: ... and its light text covers less than this share of it.
    bar_light: float = 0.45
    #: A bar is dark at least this thick each way (points); a rule that runs into it is not.
    bar_core: float = 6.0
    #: A straight run of ink at least this long (points) and at most ``rule_thickness``
    #: thick is a table rule, not a letter.
    rule_length: float = 30.0
    rule_thickness: float = 3.5
    #: An upright run at least this long (points) that meets a rule is a cell's side.
    cell_side: float = 10.0
    #: An isolated blot of ink no larger than this each way (points) is dust, not a mark.
    speck_size: float = 0.55
    # -- ruled grids of a scan (ragdash/ingestion/scan_grid.py) --
    #: A rule's pieces, cut where another rule crosses, are joined back within this (points).
    snap: float = 3.0
    #: A cell's side between two rules is drawn whole again when the scan kept this share.
    mend_share: float = 0.5
    # -- bullets and pictograms (ragdash/ingestion/scan_marks.py) --
    #: A mark at least this many times as tall as the page's text may be a pictogram ...
    pictogram_height: float = 1.5
    #: ... and this many times as tall as the other words on its own line.
    pictogram_line_height: float = 1.3
    #: A word Tesseract read less surely than this may be a misread mark.
    mark_unsure: float = 60.0
    # -- the inline thresholds of the scan modules, moved here unchanged (issue 44). Each
    # comment says what the value decides; where it came from: unless the comment names a
    # source, the value was set by eye when its rule was written, on the development sets'
    # pages under the photocopy noise, and no measurement of it alone is recorded. --
    # words.py
    #: Two readings' words are one word when each edge is within 1/this of the text height
    #: (set by eye: a word and a part of it differ by more).
    same_box_parts: int = 3
    #: Words ending within this many text heights of one right edge are one figure column
    #: (set by eye: half a digit's width).
    column_edge: float = 0.5
    # lines.py
    #: A line joins a row whose baseline is within this share of the text height (set by
    #: eye on straightened pages; docstring of ``lines._rows``).
    row_baseline: float = 0.45
    #: ... looked for among this many rows above it (a page's table is shorter).
    row_lookback: int = 12
    #: OCR words further apart than this times ``COLUMN_GAP`` text heights start a new
    #: column segment (wider than a born-digital page's: OCR boxes are ragged).
    segment_gap: float = 1.25
    # codes.py and figures.py
    #: Two pieces of a cut code are joined when at most this many heights apart.
    code_reach: float = 0.5
    #: ... and two pieces of a figure cut at its thousands separator (``12 530``).
    separator_reach: float = 0.6
    #: A column with more figures than this written ``53.113`` keeps its points.
    separator_points: int = 1
    #: ``≤`` and ``≥`` (``figures.relations_from_glyphs``): the first glyph of a figure read
    #: with a leading ``<``, ``>``, ``2``, ``s`` or ``$`` is one when it is at least this share
    #: of the word's height ...
    relation_height: float = 0.5
    #: ... has a row inked over at least this share of its width (the bar) ...
    relation_bar_fill: float = 0.7
    #: ... within this share of its height from its foot, and above the bar an angle:
    #: its top and bottom ends at least ``relation_side`` of the width away from the side
    #: its point reaches, the point within ``relation_point`` of the width of that side.
    #: Set by eye on the synthetic limits table of tests/test_scan_relations.py (Liberation Sans and
    #: Serif, 10 pt, scanner draws at 150–300 dpi), where a ``2`` (a round top) and an ``s``
    #: or ``$`` (a curve reaching both sides) fail the angle test.
    relation_bar_zone: float = 0.3
    relation_side: float = 0.45
    relation_point: float = 0.3
    #: Daggers (``figures.daggers_from_glyphs``): a short word with no digit, on a line of
    #: figures and no nearer than this many figure heights to a word with letters (a cell,
    #: not a letter of a label) ...
    dagger_gap: float = 1.0
    #: ... is a ``†`` when its tallest glyph's top is within this share of the figures'
    #: height of their top (or above: a ``p`` or ``y`` starts lower) ...
    dagger_rise: float = 0.15
    #: ... its foot at least this share below theirs (daggers hang below the line, 0.06–0.2
    #: of a digit's height in the renderings tried; a ``t``, ``f``, ``T``, ``+`` not at
    #: all) ...
    dagger_reach: float = 0.04
    #: ... with a run of rows this many times wider than its stem ...
    dagger_bar: float = 2.5
    #: ... in this upper share of it (a second one in the lower share: ``‡``). Set on a
    #: synthetic table (tests/test_scan_daggers.py, Helvetica 8 pt, scanner draws 0–2) and
    #: on set 3's icdar2013-us-019 (Times daggers at 150 and 250 dpi): set 3 is then no
    #: validation of this pass.
    dagger_bar_zone: float = 0.45
    #: Darker than this (0–255) is ink when a word is cut or read again (PIL's midpoint).
    binary_level: int = 128
    #: A word read again is cut out with this many text heights of margin.
    reread_pad: float = 0.3
    #: ... and read as one line of text (Tesseract's ``--psm 7``).
    reread_psm: int = 7
    #: A word of look-alike letters at most this long may be a figure (``TT`` for ``77``).
    lookalike_length: int = 4
    #: ... when its line has at least this many other figures.
    lookalike_row: int = 2
    #: A lone figure's ink is looked for this many text heights clear of read words ...
    lone_cover_pad: float = 0.2
    #: ... ink closer than this many text heights is one patch ...
    lone_join: float = 0.3
    #: ... a patch at least this tall and this wide (text heights) is a glyph, not a speck ...
    lone_min_height: float = 0.6
    lone_min_width: float = 0.25
    #: ... and one wider than this is a line of text, not a lone cell ...
    lone_max_width: float = 6.0
    #: ... cut out with this many text heights of margin (and 2 pixels) to be read.
    lone_crop_pad: float = 0.3
    #: A patch of ink in a row of figures that is a ``:`` (``figures._colon_dots``, read
    #: from the image, not by Tesseract, which drops it): two dots each at most this share
    #: of the figures' height across ...
    colon_dot: float = 0.3
    #: ... the lower one's foot within this share of the height of the figures' foot ...
    colon_reach: float = 0.2
    #: ... the upper one's middle this high above the foot, in figure heights (a colon's
    #: upper dot sits at about half the x-height up to the x-height: 0.35–0.7 of a digit's
    #: height in Times and Helvetica). Set on set 3's icdar2013-eu-012 (Times, 200 dpi),
    #: so set 3 is no validation of it; tests/test_scan_daggers.py's colon table checks it.
    colon_rise_low: float = 0.3
    colon_rise_high: float = 0.85
    #: A word longer than this is no number Tesseract failed to read.
    number_like_length: int = 6
    # language.py
    #: Words shorter than this (letters) are not asked of the dictionary (``a``, ``of``).
    dictionary_letters: int = 3
    # ocr_prep.py: the page image before Tesseract reads it
    #: The background is estimated over a window this wide (points; wider than a pen stroke).
    background_window: float = 5.0
    #: A page whose background is lighter than this except on at most ``white_page_share``
    #: of it is left as read (no shaded area to flatten) ...
    white_page: int = 225
    #: ... a share of the page (its percentile). It was 2%, and the two shaded rows of a
    #: small summary table on an A4 page (total and first row, under 1%) were not
    #: flattened: their figures read as garbage or not at all under the benchmark's scanner
    #: noise (the shaded summary table of tests/test_scan_relations.py, Liberation Serif
    #: and Sans, ruled and not, scanner draws 1, 2 and 4: 8 of 12 read whole at 2%, 12 of
    #: 12 at 0.05%). At 0.05% a shaded patch of about one inch by a 7 pt row on an A4 page
    #: at 200 dpi is flattened; dust is not (the background closing removes it).
    white_page_share: float = 0.0005
    #: Grey within this many points of ink is a letter's soft edge, not the shade's edge.
    ink_fringe: float = 0.7
    #: ... grey lighter than this (and not beside ink) is paper.
    paper_level: int = 250
    #: Darker than this (after opening light strokes) may be a dark bar.
    dark_level: int = 150
    #: A dark bar is at least this many points each way (a word in black ink is smaller).
    bar_min: float = 12.0
    #: Pixels this many grey levels lighter (darker) than a bar's level are its text.
    bar_contrast: int = 60
    #: A bar has at least this share of light text (a solid black box has none).
    bar_light_min: float = 0.02
    #: An inverted bar's edge blur, either side (points).
    bar_edge_blur: float = 1.0
    #: A bar's edges are straight within this many points (bold type is ragged).
    bar_straight: float = 1.0
    #: A removed rule takes this many points of its blurred fringe with it ...
    rule_fringe: float = 0.7
    #: ... and paper-coloured pixels within this many points of it ...
    rule_halo: float = 1.5
    #: ... lighter than this grey level.
    halo_paper: int = 160
    #: A blot touching a removed rule within its thickness plus this (points) is its corner.
    rule_blot_margin: float = 1.0
    #: The skew is measured on a copy about this many pixels wide ...
    skew_width: int = 900
    #: ... with at least this many ink pixels (else no skew is measured) ...
    skew_min_ink: int = 200
    #: ... on at most this many of them (a seeded sample, for speed) ...
    skew_sample: int = 400_000
    #: ... trying angles this many degrees apart, then this many around the best ...
    skew_step: float = 0.2
    skew_fine_step: float = 0.05
    #: ... and kept when its profile is this many times sharper than unturned.
    skew_gain: float = 1.02
    #: Orientation is detected on a copy at most this many pixels long ...
    osd_size: int = 1700
    #: ... from at least this many characters (Tesseract's ``min_characters_to_try``) ...
    osd_characters: int = 20
    #: ... and trusted from this orientation confidence.
    osd_confidence: float = 2.0
    #: The quality measure's text height when no word was read (points) ...
    quality_text_height: float = 9.0
    #: ... and its least text height (cells of about a point).
    quality_min_height: float = 4.0
    #: A run of ink longer than this many text heights is a rule, not text ...
    quality_rule_run: float = 4.0
    #: ... letters closer than this many text heights are one word blob ...
    quality_join: float = 0.6
    #: ... a word covers its ink with this many text heights of margin ...
    quality_pad: float = 0.3
    #: ... a blob at most this thin (text heights) is a rule ...
    quality_thin: float = 0.15
    #: ... taller than this or shorter than this a picture or a speck ...
    quality_tall: float = 3.5
    quality_short: float = 0.35
    #: ... and smaller than this (square text heights) a speck.
    quality_area: float = 0.6
    #: An unread area smaller than this (square text heights) is not reported ...
    region_area: float = 1.5
    #: ... and at most this many are, largest first.
    quality_regions: int = 20
    # scan_grid.py
    #: Words in a cell whose middles are within this share of a height share a line.
    cell_line: float = 0.5
    # scan_marks.py: bullets (round blots) and pictograms
    #: A bullet's blot is this many points across at least, and at most ...
    blot_min: float = 1.5
    blot_max: float = 12.0
    #: ... square within these ratios (width over height) ...
    blot_aspect_min: float = 0.75
    blot_aspect_max: float = 1.33
    #: ... filling this share of its box (a disk fills 79%) ...
    blot_fill_min: float = 0.68
    blot_fill_max: float = 0.92
    #: ... with no hole (filled, it grows by less than this factor: a ring is an ``o``).
    blot_hole: float = 1.05
    #: A bullet stands before a word starting this many points left of its edge at most ...
    bullet_slack: float = 0.5
    #: ... within this many of the word's heights ...
    bullet_reach: float = 3.0
    #: ... centred within this share of its height ...
    bullet_middle: float = 0.3
    #: ... and sized between these shares of its height.
    bullet_size_min: float = 0.25
    bullet_size_max: float = 0.7
    #: A bullet misread is at most this many characters ...
    mark_length: int = 2
    #: ... hardly wider than the blot (this many times its size).
    mark_width: float = 2.5
    #: A pictogram is about square: width over height within these.
    pictogram_aspect_min: float = 0.6
    pictogram_aspect_max: float = 1.6
    #: The repair passes that run (:data:`PASSES`), always in :data:`PASSES` order.
    passes: tuple[str, ...] = PASSES

    def __post_init__(self) -> None:
        check_ranges(self, _RANGES, "scan")
        for name in ("psms", "lone_figure_psms"):
            modes = getattr(self, name)
            if not modes or any(type(m) is not int or m not in _PSMS for m in modes):
                raise SettingsError(
                    f"scan setting {name}={modes!r} is not Tesseract page segmentation modes "
                    "(0–13)"
                )
        for name in self.passes:
            if name not in PASS_DOC:
                raise SettingsError(
                    f"scan pass {name!r} is not one of {', '.join(PASSES)}"
                )
        if len(set(self.passes)) != len(self.passes):
            raise SettingsError(f"scan passes {self.passes!r} name one pass twice")
        # the order is the pipeline's, whatever order they were named in
        object.__setattr__(self, "passes", tuple(p for p in PASSES if p in self.passes))

    def runs(self, name: str) -> bool:
        """True when the repair pass ``name`` is switched on."""
        return name in self.passes

    def without(self, *names: str) -> ScanSettings:
        """These settings with the passes ``names`` switched off (an unknown name is refused).

        >>> ScanSettings().without("codes").runs("codes")
        False
        """
        unknown = [n for n in names if n not in PASS_DOC]
        if unknown:
            raise SettingsError(f"scan pass {unknown[0]!r} is not one of {', '.join(PASSES)}")
        return replace(self, passes=tuple(p for p in self.passes if p not in names))


#: The settings ragdash reads scans with.
DEFAULT_SCAN = ScanSettings()
