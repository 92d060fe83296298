"""Language: which installed Tesseract language a page is read in, and how much of a reading
is dictionary words (what tells a reading from a guess)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Sequence

from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings
from ragdash.ingestion.scan.words import OcrWord

__all__ = [
    "AUTO_LANGUAGE",
    "LANGUAGE_NAMES",
    "choose_language",
    "dictionary_share",
    "installed_languages",
    "language_name",
]


#: The language setting that lets each page choose its own (:func:`choose_language`).
AUTO_LANGUAGE = "auto"


def _read_well(word: OcrWord, lang: str, scan: ScanSettings = DEFAULT_SCAN) -> bool:
    """True when ``word`` is a reading of its ink, not a guess at it."""
    if word.conf < scan.read_confidence:
        return False
    letters = _letters(word.text)
    if (len(letters) < scan.dictionary_letters or any(ch.isdigit() for ch in word.text)
            or word.conf >= scan.sure_confidence):  # fmt: skip
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


def choose_language(
    words: Sequence[str], languages: Collection[str], scan: ScanSettings = DEFAULT_SCAN
) -> str:
    """The Tesseract language to read a page in, from the words of its English reading:
    ``eng`` unless one of ``languages`` (installed, with a word list) holds
    ``ScanSettings.language_margin`` more of the words. Why: English models drop accents and
    ligatures (``œuvre`` read ``ceuvre``), which then miss the evidence a test names.

    >>> choose_language("Pour participer a des activites sociales le sport".split(), ["fra"])
    'fra'
    >>> choose_language("Returns are accepted within thirty days".split(), ["fra", "deu"])
    'eng'
    """
    letters = [_fold("".join(ch for ch in w if ch.isalpha())) for w in words]
    letters = [w for w in letters if len(w) >= scan.dictionary_letters]
    if not letters:
        return "eng"

    def share(lang: str) -> float:
        known = _folded_list(_WORDFREQ_LANG[lang])
        return sum(w in known for w in letters) / len(letters) if known else 0.0

    others = [lang for lang in languages if lang in _WORDFREQ_LANG and lang != "eng"]
    if not others or share("eng") + scan.language_margin > 1.0:
        return "eng"  # no language can hold the margin more: their lists are not loaded
    best = max(others, key=share, default="eng")
    wins = best != "eng" and share(best) >= share("eng") + scan.language_margin
    return best if wins else "eng"


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


def dictionary_share(
    words: Sequence[str], lang: str = "eng", scan: ScanSettings = DEFAULT_SCAN
) -> float:
    """The share of alphabetic words (``ScanSettings.dictionary_letters`` or more) that are
    in wordfreq's list of the language; -1.0 when there is no list for it or no such word.

    >>> dictionary_share(["Returns", "are", "accepted", "xqzvv"])
    0.75
    """
    known = _word_list(_WORDFREQ_LANG.get(lang.split("+")[0], ""))
    letters = [w for w in map(_letters, words) if len(w) >= scan.dictionary_letters]
    if not known or not letters:
        return -1.0
    return round(sum(w in known for w in letters) / len(letters), 4)
