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
    ('merge_readings', 'reread_numbers', 'codes')
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

from dataclasses import dataclass, fields, replace

from ragdash.errors import SettingsError

__all__ = ["DEFAULT_SCAN", "PASSES", "PASS_DOC", "ScanSettings"]

#: The repair passes a page image goes through after Tesseract's readings, in this order
#: (:func:`ragdash.ingestion.scan.page.read_page_image`), each with what it does.
PASS_DOC = {
    "merge_readings": "the page's other reading (block mode) fills words the chosen one lacks "
    "or read less surely",
    "reread_numbers": "unsure figures read again on their own, enlarged",
    "lone_figures": "ink in a row of figures that no reading has, read as a lone cell",
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
    #: The repair passes that run (:data:`PASSES`), always in :data:`PASSES` order.
    passes: tuple[str, ...] = PASSES

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name not in _RANGES:
                continue
            value = getattr(self, f.name)
            low, high, what = _RANGES[f.name]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise SettingsError(f"scan setting {f.name}={value!r} is not a number")
            if isinstance(low, int) and isinstance(high, int) and not isinstance(value, int):
                raise SettingsError(f"scan setting {f.name}={value!r} is not a whole number")
            if not low <= value <= high:
                raise SettingsError(
                    f"scan setting {f.name}={value!r} is outside {low:g}–{high:g} ({what})"
                )
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
