"""The one settings type: which fixes are on and how they behave.

:class:`Fixes` is what the CLI, every page, the URL, the case library's run history and the
exports pass around. It validates itself when created and turns every accepted form of a
setting into one canonical form, the way pdfplumber's ``TableSettings.resolve`` does, so two
equal settings are equal objects (and hash alike: ``st.cache_data`` keys on them)::

    >>> Fixes(ocr=True, ocr_map={"1": "I", "0": "o"}).ocr_map
    (('0', 'o'), ('1', 'i'))
    >>> Fixes.resolve("recency,fuzzy").label
    'recency,fuzzy (fuzzy ratio>=80)'
    >>> Fixes(threshold=500)
    Traceback (most recent call last):
    ...
    ragdash.errors.SettingsError: threshold 500 is outside 0-100

Why one type: the same idea used to be spelled as ``Fixes``, ``MatchSettings``, an ablation
label, the sidebar's widget text and URL text; a case re-run from the library then recorded
the no-fix result whenever the current fixes were not one of the named configurations.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ragdash.errors import SettingsError

__all__ = [
    "check_ranges",
    "DEFAULT_FUZZY_RULE",
    "DEFAULT_OCR_MAP",
    "DEFAULT_THRESHOLD",
    "EDIT_RULES",
    "ES_AUTO",
    "FIX_DESCRIPTIONS",
    "FIX_NAMES",
    "FIX_TITLES",
    "FUZZY_RULES",
    "RATIO",
    "SEED_OCR_MAP",
    "TYPOS_5_9",
    "Fixes",
    "configuration_title",
    "fixes_title",
    "OcrMap",
    "OcrRisk",
    "DEFAULT_OCR_RISK",
    "format_ocr_map",
    "format_protected",
    "parse_ocr_map",
    "parse_protected",
]

# New fixes go at the end: a URL or saved spec such as ``recency,ocr`` keeps its meaning.
FIX_NAMES = ("recency", "status", "ocr", "fuzzy", "tables", "versions", "unicode")
FIX_DESCRIPTIONS = {
    "recency": "break score ties between versions of one document by update date, newest first",
    "status": "never retrieve documents whose status is 'withdrawn'",
    "ocr": "repair OCR digit-for-letter damage (c0ntr0ller) when the corpus uses the repaired "
    "word; codes such as sha1 or t1d are left alone",
    "fuzzy": "let a misspelled word match a close spelling (rapidfuzz); real words are not fuzzed",
    "tables": "at ingestion, join table fragments cut by a PDF page break",
    "versions": "rank the newer of two detected versions of a document above the older one",
    "unicode": "tokenize any script: NFKC, casefold, accents kept (café), CJK as bigrams",
}

#: The one display name of each fix: the sidebar's toggles, every chart's rows and columns,
#: the tour, Explore's and Triage's advice all say these words (a heatmap said ``status``
#: where the sidebar said "Skip withdrawn"). Configuration labels (``all-but-ocr``) are
#: named from them by :func:`configuration_title`.
FIX_TITLES = {
    "recency": "Recency tie-break",
    "status": "Skip withdrawn",
    "ocr": "OCR normalization",
    "fuzzy": "Fuzzy matching",
    "tables": "Join split tables",
    "versions": "Demote older versions",
    "unicode": "Unicode tokenizer",
}



def check_ranges(settings: Any, ranges: Mapping[str, tuple[float, float, str]], kind: str) -> None:
    """Refuse a settings dataclass whose field in ``ranges`` (name → low, high, what it is)
    is not a number, not whole where both bounds are, or outside its bounds — one message
    naming the field and the value, checked in field order. Shared by the scan and layout
    settings, so both refuse a bad value in the same words::

        >>> @dataclass(frozen=True)
        ... class Page:
        ...     level: int = 128
        >>> check_ranges(Page(300), {"level": (1, 254, "a grey level")}, "scan")
        Traceback (most recent call last):
        ...
        ragdash.errors.SettingsError: scan setting level=300 is outside 1–254 (a grey level)
    """
    for f in fields(settings):
        if f.name not in ranges:
            continue
        value = getattr(settings, f.name)
        low, high, what = ranges[f.name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SettingsError(f"{kind} setting {f.name}={value!r} is not a number")
        if isinstance(low, int) and isinstance(high, int) and not isinstance(value, int):
            raise SettingsError(f"{kind} setting {f.name}={value!r} is not a whole number")
        if not low <= value <= high:
            raise SettingsError(
                f"{kind} setting {f.name}={value!r} is outside {low:g}–{high:g} ({what})"
            )

def fixes_title(fixes: Fixes) -> str:
    """The fixes that are on, by title: "Skip withdrawn, Fuzzy matching"; "all fixes" when
    every one is on (seven names made a heading of three lines); "no fix" when none.

    >>> fixes_title(Fixes(status=True, fuzzy=True)), fixes_title(Fixes())
    ('Skip withdrawn, Fuzzy matching', 'no fix')
    """
    on = [FIX_TITLES[n] for n in FIX_NAMES if getattr(fixes, n)]
    return "all fixes" if len(on) == len(FIX_NAMES) else ", ".join(on) or "no fix"


def configuration_title(label: str) -> str:
    """A configuration label as the pages show it: a fix by its title, ``none`` as "No fix",
    ``all`` as "All fixes", ``all-but-X`` as "All but <title of X>"; anything else as it is.

    >>> configuration_title("status"), configuration_title("all-but-ocr")
    ('Skip withdrawn', 'All but OCR normalization')
    >>> configuration_title("none"), configuration_title("recency,ocr")
    ('No fix', 'Recency tie-break + OCR normalization')

    A :attr:`Fixes.label` keeps its settings: ``fuzzy (fuzzy ratio>=80)`` → "Fuzzy matching
    (fuzzy ratio>=80)" (a run's facts in the HTML report).
    """
    head, sep, details = label.partition(" (")
    if sep and details.endswith(")") and head != label:
        titled = configuration_title(head)
        return f"{titled} ({details}" if titled != head else label
    if label == "none":
        return "No fix"
    if label == "all":
        return "All fixes"
    if label.startswith("all-but-") and label.removeprefix("all-but-") in FIX_TITLES:
        return f"All but {FIX_TITLES[label.removeprefix('all-but-')]}"
    names = label.split(",")
    if all(n in FIX_TITLES for n in names):
        return " + ".join(FIX_TITLES[n] for n in names)
    return label


DEFAULT_THRESHOLD = 80.0
RATIO, ES_AUTO, TYPOS_5_9 = "ratio", "es-auto", "typos-5-9"
DEFAULT_FUZZY_RULE = RATIO
#: Fuzzy rule name → what it does, in words.
FUZZY_RULES: Mapping[str, str] = {
    RATIO: "rapidfuzz ratio at or above the threshold, words of 4+ letters",
    ES_AUTO: "Elasticsearch fuzziness AUTO: 1-2 letters exact, 3-5 one edit, 6+ two edits",
    TYPOS_5_9: "one typo from 5 letters, two from 9 (Meilisearch default): shorter words exact",
}
#: Edit presets: the query-token length from which one edit, and from which two edits, are
#: allowed (shorter tokens match exactly only).
EDIT_RULES: Mapping[str, tuple[int, int]] = {ES_AUTO: (3, 6), TYPOS_5_9: (5, 9)}

#: The canonical OCR map: sorted (digit, letter) pairs. A digit may map to several letters.
OcrMap = tuple[tuple[str, str], ...]
#: Digits OCR reads where a letter was printed. A digit may stand for several letters
#: (``1`` for ``i`` or ``l``): each repair is chosen by corpus evidence, not by the map alone.
DEFAULT_OCR_MAP: OcrMap = (("0", "o"), ("1", "i"), ("1", "l"), ("5", "s"), ("8", "b"))
#: The seed's map (``0→o``, ``1→i``): the damage the query corruptor injects by default.
SEED_OCR_MAP: OcrMap = (("0", "o"), ("1", "i"))


def parse_ocr_map(text: str) -> OcrMap:
    """Parse ``"0=o, 1=i"`` (or ``0→o``, ``0:o``, ``0->o``) into the canonical map.

    Keys must be single digits and values single letters, because tokens only hold
    ``[a-z0-9]``; anything else raises :class:`SettingsError` naming the bad entry::

        >>> parse_ocr_map("1=I; 0→o")
        (('0', 'o'), ('1', 'i'))
    """
    pairs: list[tuple[str, str]] = []
    for raw in re.split(r"[,;\s]+", text.strip()):
        if not raw:
            continue
        parts = re.split(r"=|→|->|:", raw)
        if len(parts) != 2:
            raise SettingsError(f"OCR map entry {raw!r} is not of the form digit=letter")
        pairs.append(_ocr_pair(parts[0], parts[1], raw))
    return tuple(sorted(set(pairs)))


def format_ocr_map(ocr_map: OcrMap | Mapping[str, str]) -> str:
    """Inverse of :func:`parse_ocr_map`: ``"0=o, 1=i"``."""
    pairs = ocr_map.items() if isinstance(ocr_map, Mapping) else ocr_map
    return ", ".join(f"{k}={v}" for k, v in sorted(pairs))


def parse_protected(text: str) -> tuple[str, ...]:
    """Parse ``"SHA1, t1d; raid1"`` into the canonical protected list: lowercased tokens,
    sorted, each once. Each entry must be one token (letters and digits only)::

        >>> parse_protected("T1D, sha1 sha1")
        ('sha1', 't1d')
    """
    return _resolve_protected(text)


def format_protected(protected: Iterable[str]) -> str:
    """Inverse of :func:`parse_protected`: ``"sha1, t1d"``."""
    return ", ".join(protected)


def _resolve_protected(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        items: Iterable[object] = re.split(r"[,;\s]+", value.strip())
    elif isinstance(value, Iterable):
        items = value
    else:
        raise SettingsError(f"protected tokens {value!r} are not text or a list of tokens")
    tokens = set()
    for item in items:
        if not isinstance(item, str):
            raise SettingsError(f"protected token {item!r} is not text")
        token = item.strip().casefold()
        if not token:
            continue
        if not all(ch.isalnum() for ch in token):
            raise SettingsError(
                f"protected token {item!r} must be one word or code: letters and digits only"
            )
        tokens.add(token)
    return tuple(sorted(tokens))


def _ocr_pair(key: object, value: object, raw: object) -> tuple[str, str]:
    if not isinstance(key, str) or not isinstance(value, str):
        raise SettingsError(f"OCR map entry {raw!r} must pair a digit with a letter")
    key, value = key.strip(), value.strip().lower()
    if not (len(key) == 1 and key.isdigit() and key.isascii()):
        raise SettingsError(f"OCR map entry {raw!r}: the left side must be one digit")
    if not (len(value) == 1 and "a" <= value <= "z"):
        raise SettingsError(f"OCR map entry {raw!r}: the right side must be one letter a-z")
    return key, value


def _resolve_ocr_map(value: object) -> OcrMap:
    """Every accepted form of an OCR map — ``"0=o,1=i"``, ``{"0": "o"}``, pairs — as the
    canonical sorted tuple of pairs."""
    if isinstance(value, str):
        return parse_ocr_map(value)
    if isinstance(value, Mapping):
        return tuple(sorted({_ocr_pair(k, v, f"{k}={v}") for k, v in value.items()}))
    if isinstance(value, Iterable):
        pairs = set()
        for item in value:
            if not isinstance(item, tuple | list) or len(item) != 2:
                raise SettingsError(f"OCR map entry {item!r} is not a (digit, letter) pair")
            pairs.add(_ocr_pair(item[0], item[1], item))
        return tuple(sorted(pairs))
    raise SettingsError(f"OCR map {value!r} is not text, a mapping or a list of pairs")


def _switched_on(names: Iterable[str]) -> dict[str, Any]:
    """``{name: True}`` for each fix name, as keyword arguments of :class:`Fixes`."""
    return dict.fromkeys(names, True)


@dataclass(frozen=True)
class Fixes:
    """Which fixes are on, and their settings; validated and canonical once created.

    ``threshold`` (0-100, finite) counts only for the ``ratio`` fuzzy rule; ``fuzzy_rule``
    is one of :data:`FUZZY_RULES`; ``ocr_map`` accepts text, a mapping or pairs and is kept
    as sorted ``(digit, letter)`` pairs; ``protected`` (text or a list) is kept as sorted
    lowercase tokens the OCR fix never rewrites (``sha1``, ``t1d``), whatever the corpus
    says. A bad value raises :class:`SettingsError` (a ``ValueError``) naming it.
    """

    recency: bool = False
    status: bool = False
    ocr: bool = False
    fuzzy: bool = False
    tables: bool = False
    versions: bool = False
    unicode: bool = False
    threshold: float = DEFAULT_THRESHOLD
    ocr_map: OcrMap = DEFAULT_OCR_MAP
    fuzzy_rule: str = DEFAULT_FUZZY_RULE
    protected: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in FIX_NAMES:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise SettingsError(f"fix {name!r} must be true or false, not {value!r}")
        threshold = self.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise SettingsError(f"threshold {threshold!r} is not a number")
        if not math.isfinite(threshold) or not 0 <= threshold <= 100:
            raise SettingsError(f"threshold {threshold:g} is outside 0-100")
        object.__setattr__(self, "threshold", float(threshold))
        if self.fuzzy_rule not in FUZZY_RULES:
            raise SettingsError(
                f"unknown fuzzy rule {self.fuzzy_rule!r}; choose from {', '.join(FUZZY_RULES)}"
            )
        object.__setattr__(self, "ocr_map", _resolve_ocr_map(self.ocr_map))
        object.__setattr__(self, "protected", _resolve_protected(self.protected))

    # -- construction -----------------------------------------------------------------

    @classmethod
    def none(cls, **settings: Any) -> Fixes:
        return cls(**settings)

    @classmethod
    def all(cls, **settings: Any) -> Fixes:
        return cls(**_switched_on(FIX_NAMES), **settings)

    @classmethod
    def parse(cls, spec: str, **settings: Any) -> Fixes:
        """Parse ``all``, ``none`` or a comma list such as ``recency,ocr`` (the inverse of
        :attr:`names`). An unknown name raises :class:`SettingsError` naming it."""
        names, unknown = split_fix_names(spec)
        if unknown:
            raise SettingsError(
                f"unknown fix {', '.join(map(repr, unknown))}; "
                f"choose from {', '.join(FIX_NAMES)}, or all / none"
            )
        return cls(**_switched_on(names), **settings)

    @classmethod
    def resolve(
        cls, value: Fixes | str | Mapping[str, Any] | None = None, **settings: Any
    ) -> Fixes:
        """Every accepted form of settings as one :class:`Fixes`: a ``Fixes`` (returned as
        is, or with ``settings`` replaced), a spec string (``"all"``, ``"recency,ocr"``), a
        mapping of field names (a saved run, a JSON export) or ``None`` (no fixes)::

            >>> Fixes.resolve({"fixes": "ocr", "ocr_map": "0=o"}).label
            'ocr (ocr map 0=o)'
        """
        if value is None:
            return cls(**settings)
        if isinstance(value, Fixes):
            return replace(value, **settings) if settings else value
        if isinstance(value, str):
            return cls.parse(value, **settings)
        if isinstance(value, Mapping):
            data = dict(value)
            spec = data.pop("fixes", None)
            known = {f.name for f in fields(cls)}
            unknown = sorted(set(data) - known)
            if unknown:
                raise SettingsError(f"unknown setting {', '.join(map(repr, unknown))}")
            data.update(settings)
            return cls.parse(spec, **data) if spec is not None else cls(**data)
        raise SettingsError(f"settings {value!r} are not a spec string, a mapping or Fixes")

    def with_only(self, names: Iterable[str]) -> Fixes:
        """The same settings with exactly ``names`` switched on."""
        chosen = set(names)
        switches: dict[str, Any] = {name: name in chosen for name in FIX_NAMES}
        return replace(self, **switches)

    # -- reading ------------------------------------------------------------------------

    @property
    def enabled(self) -> tuple[str, ...]:
        return tuple(name for name in FIX_NAMES if getattr(self, name))

    @property
    def names(self) -> str:
        """``none``, ``all`` or the comma list of fixes that are on — what :meth:`parse`
        reads and the URL's ``fixes`` parameter carries."""
        on = self.enabled
        if not on:
            return "none"
        return "all" if len(on) == len(FIX_NAMES) else ",".join(on)

    @property
    def label(self) -> str:
        """The fixes that are on and every setting that changes their results, e.g.
        ``ocr,fuzzy (ocr map 0=o,1=i; fuzzy ratio>=80)``. Settings of fixes that are off are
        left out: they change nothing. Two settings with the same label rank alike."""
        details = []
        if self.ocr:
            details.append(f"ocr map {format_ocr_map(self.ocr_map).replace(' ', '')}")
            if self.protected:
                details.append(f"protected {','.join(self.protected)}")
        if self.fuzzy:
            rule = self.fuzzy_rule
            details.append(f"fuzzy ratio>={self.threshold:g}" if rule == RATIO else f"fuzzy {rule}")
        return f"{self.names} ({'; '.join(details)})" if details else self.names

    @property
    def substitutions(self) -> dict[str, str]:
        """The OCR map as digit → letter (the first letter where a digit has several)."""
        result: dict[str, str] = {}
        for digit, letter in self.ocr_map:
            result.setdefault(digit, letter)
        return result

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form that :meth:`resolve` reads back to an equal object."""
        return {
            "fixes": self.names,
            "threshold": self.threshold,
            "fuzzy_rule": self.fuzzy_rule,
            "ocr_map": format_ocr_map(self.ocr_map),
            "protected": format_protected(self.protected),
        }


def split_fix_names(spec: str) -> tuple[list[str], list[str]]:
    """The known fix names of a spec (``all``/``none``/comma list) and the unknown ones, so
    a caller can keep the good names and warn about the rest (``fuzzy,bogus`` → fuzzy on,
    ``bogus`` reported)."""
    spec = spec.strip().lower()
    if spec == "all":
        return list(FIX_NAMES), []
    if spec in ("none", ""):
        return [], []
    names = [name.strip() for name in spec.split(",") if name.strip()]
    return [n for n in names if n in FIX_NAMES], [n for n in names if n not in FIX_NAMES]


@dataclass(frozen=True)
class OcrRisk:
    """When the inspection verdict (``ragdash inspect``, the Documents page) names the risk of
    a page OCR read. A misread word cannot be found by a query that spells it right, and
    ink OCR left without words cannot be found at all, so a scan is never called "Good"
    while either is above its share on any page: "with care" (amber) above the ``care``
    shares, "At risk" (red) above the ``risk`` shares.

    ``unsure_below`` is the confidence (0–100) under which a word counts as unsure (80, the
    OCR tab's red boxes); ``unsure_care``/``unsure_risk`` are shares (0–1) of a page's words
    that are unsure — the default 0 for care means any unsure word; ``uncovered_care``/
    ``uncovered_risk`` shares of the page's text-like inked area that no word covers.

    >>> OcrRisk().level(unsure=0.12, uncovered=0.0)
    'red'
    >>> OcrRisk().level(unsure=0.0, uncovered=0.10)
    'amber'
    >>> OcrRisk(uncovered_care=0.5)
    Traceback (most recent call last):
    ...
    ragdash.errors.SettingsError: OCR risk: uncovered_care 0.5 must be at most uncovered_risk 0.15
    """

    unsure_below: float = 80.0
    unsure_care: float = 0.0
    unsure_risk: float = 0.10
    uncovered_care: float = 0.05
    uncovered_risk: float = 0.15

    def __post_init__(self) -> None:
        if not 0 <= self.unsure_below <= 100:
            raise SettingsError(f"OCR risk: unsure_below {self.unsure_below:g} is outside 0-100")
        for name in ("unsure_care", "unsure_risk", "uncovered_care", "uncovered_risk"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 <= value <= 1):
                raise SettingsError(f"OCR risk: {name} {value!r} is not a share from 0 to 1")
        for kind in ("unsure", "uncovered"):
            care, risk = getattr(self, f"{kind}_care"), getattr(self, f"{kind}_risk")
            if care > risk:
                raise SettingsError(
                    f"OCR risk: {kind}_care {care:g} must be at most {kind}_risk {risk:g}"
                )

    def level(self, unsure: float, uncovered: float) -> str:
        """``green``, ``amber`` or ``red`` for a page with these shares of unsure words and
        of inked area without words."""
        if unsure > self.unsure_risk or uncovered > self.uncovered_risk:
            return "red"
        if unsure > self.unsure_care or uncovered > self.uncovered_care:
            return "amber"
        return "green"


DEFAULT_OCR_RISK = OcrRisk()


@dataclass(frozen=True)
class StressStatistics:
    """How ``ragdash stress`` spreads generated cases and judges its figures.

    ``case_share``: no document gives more than this share of the generated cases (rounded
    up), or an even share of them when the folder has fewer documents than ``1 /
    case_share`` — one document's quirks must not stand for the folder. ``bootstrap_rounds``:
    resamples of the documents behind a cell for its clustered interval. ``min_cases``: a
    fault with fewer faulted cases than this for a retriever gets a note that it is too few
    to judge.

    >>> StressStatistics().case_share
    0.1
    """

    case_share: float = 0.1
    bootstrap_rounds: int = 2000
    min_cases: int = 10


STRESS_STATISTICS = StressStatistics()
