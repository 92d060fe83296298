"""Tokenizing, and the shapes of tokens the OCR fix must tell apart.

Baseline tokens are lowercase runs of ``[a-z0-9]`` — the seed retriever's whole notion of a
word, kept as the baseline. The ``unicode`` fix tokenizes any script instead
(:func:`tokenize_unicode`): ``Café`` stays ``café`` rather than becoming ``caf``, and Chinese
or Japanese text (no spaces between words) is split into overlapping character bigrams, the
way Lucene's CJK analyzer does, so ``東京都`` is found by a query for ``東京``.

Why shapes matter: ``c0ntr0ller`` is OCR damage, ``sha1``, ``t1d`` and ``h1n1`` are codes.
:func:`is_code_like` says which tokens look like identifiers (never rewritten);
:func:`ocr_readings` lists what a damaged-looking token could have been.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import product

from ragdash.settings import SEED_OCR_MAP

__all__ = [
    "DEFAULT_SUBSTITUTIONS",
    "MAX_OCR_READINGS",
    "TOKEN_PATTERN",
    "digit_runs",
    "is_code_like",
    "is_ocr_candidate",
    "is_word",
    "letters_by_digit",
    "more_note",
    "normalize_ocr",
    "ocr_readings",
    "shortened",
    "tokenize",
    "tokenize_unicode",
    "tokenizer",
]

TOKEN_PATTERN = re.compile(r"[a-z0-9]+")

#: The seed's observed OCR confusions as digit → letter (one letter per digit): what the
#: query corruptor injects by default and what :func:`normalize_ocr` applies.
DEFAULT_SUBSTITUTIONS: Mapping[str, str] = dict(SEED_OCR_MAP)
#: A token with more readings than this (many mapped digits) is not repaired: with that
#: much damage, a match would be a guess.
MAX_OCR_READINGS = 64

_DIGITS = "0123456789"
_DIGIT_RUN = re.compile(r"[0-9]+")
_RUNS = re.compile(r"[0-9]+|[^0-9]+")
# A word character that is not a digit or underscore: a letter of any script (or a mark).
_UNICODE_WORD = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """Split text into lowercase ``[a-z0-9]+`` tokens, in order (duplicates kept)."""
    return TOKEN_PATTERN.findall(text.lower())


def _is_cjk(ch: str) -> bool:
    """Han, Hiragana, Katakana, Hangul: scripts written without spaces between words."""
    code = ord(ch)
    return (
        0x3040 <= code <= 0x30FF  # Hiragana, Katakana
        or 0x3400 <= code <= 0x4DBF  # CJK extension A
        or 0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0x20000 <= code <= 0x2FA1F  # extensions B-F
    )


#: The characters :func:`_is_cjk` accepts, as one character class (searched in C).
_CJK = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
    "\U00020000-\U0002fa1f]"
)


def tokenize_unicode(text: str) -> list[str]:
    """Tokens of any script: NFKC-normalized, casefolded runs of letters and digits; runs of
    CJK characters become overlapping bigrams (a lone character stays one token).

        >>> tokenize_unicode("Café ＳＳＯ 東京都")
        ['café', 'sso', '東京', '京都']

    NFKC first, so full-width ``ＳＳＯ`` and the ligature ``ﬁ`` read as ``sso`` and ``fi``;
    ASCII text gives the same tokens as :func:`tokenize` (``[a-z0-9]`` runs are kept whole).
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    if not _CJK.search(folded):  # most text: the runs are the tokens (one regex pass)
        return _UNICODE_WORD.findall(folded)
    tokens: list[str] = []
    for match in _UNICODE_WORD.finditer(folded):
        tokens.extend(_split_cjk(match.group()))
    return tokens


def _split_cjk(run: str) -> Iterator[str]:
    """A run with CJK characters: the non-CJK parts as tokens, each CJK stretch as bigrams."""
    if not _CJK.search(run):
        yield run
        return
    start = 0
    while start < len(run):
        cjk = _is_cjk(run[start])
        end = start
        while end < len(run) and _is_cjk(run[end]) == cjk:
            end += 1
        part = run[start:end]
        if not cjk or len(part) == 1:
            yield part
        else:
            yield from (part[i : i + 2] for i in range(len(part) - 1))
        start = end


def tokenizer(unicode: bool):
    """The tokenizer a setting uses: :func:`tokenize_unicode` or the baseline."""
    return tokenize_unicode if unicode else tokenize


def is_word(token: str) -> bool:
    """A word: letters only (of any script), no digits."""
    return token.isalpha()


def digit_runs(token: str) -> list[str]:
    """The token cut into alternating runs of ASCII digits and of other characters:
    ``c0ntr0ller`` → ``['c', '0', 'ntr', '0', 'ller']``."""
    return _RUNS.findall(token)


def is_code_like(token: str) -> bool:
    """True if ``token`` mixes letters and digits the way identifiers do, so the OCR fix must
    never rewrite it, whatever the corpus says:

    * a run of two or more digits at either end: ``covid19``, ``x100``, ``g012``, ``10gb``;
    * letters and digits alternating one by one: ``t1d``, ``h1n1``, ``a1c``, ``k8s``;
    * fewer than two letters: ``a1``, ``5g``;
    * a digit that starts the token and is followed by fewer than three letters: ``1st``,
      ``2fa`` (a damaged word such as ``0ffice`` still qualifies for repair).

    Everything else with digits — a digit inside or at the end of a longer letter run
    (``enterpr1se``, ``c0ntr0ller``, ``b00t``, ``ss0``, ``sha1``) — is *not* code-shaped: the
    corpus decides (a repair needs a word the corpus uses; ``sha1`` → ``shai`` finds none).
    A token without digits, or without letters, is not code-like.
    """
    runs = digit_runs(token)
    digits = [r for r in runs if r[0] in _DIGITS]
    letters = [r for r in runs if r[0] not in _DIGITS]
    if not digits or not letters:
        return False
    if sum(len(r) for r in letters) < 2:
        return True
    if (runs[0] in digits and len(runs[0]) >= 2) or (runs[-1] in digits and len(runs[-1]) >= 2):
        return True
    if all(len(r) == 1 for r in runs):
        return True
    return runs[0] in digits and len(runs[1]) < 3


def letters_by_digit(ocr_map: Iterable[tuple[str, str]] | Mapping[str, str]) -> dict[str, str]:
    """The letters each digit may stand for, as digit → letters in map order:
    ``(("1", "i"), ("1", "l"))`` → ``{"1": "il"}``."""
    pairs = ocr_map.items() if isinstance(ocr_map, Mapping) else ocr_map
    letters: dict[str, str] = {}
    for digit, letter in pairs:
        if letter not in letters.get(digit, ""):
            letters[digit] = letters.get(digit, "") + letter
    return letters


def ocr_readings(token: str, letters: Mapping[str, str]) -> list[tuple[str, tuple[str, ...]]]:
    """Every reading of a damaged-looking ``token`` with each digit replaced by a letter the
    map allows, with the substitutions made (``"0→o"``, once each, in token order).

        >>> ocr_readings("fa1l", {"1": "il"})
        [('fail', ('1→i',)), ('fall', ('1→l',))]

    Empty when the token is no candidate: no digit, a digit the map does not cover, no
    letters, code-shaped (:func:`is_code_like`), or more than :data:`MAX_OCR_READINGS`
    readings.
    """
    if not any(ch in _DIGITS for ch in token) or is_code_like(token):
        return []
    if not any(ch.isalpha() for ch in token):
        return []
    choices: list[str] = []
    count = 1
    for ch in token:
        if ch in _DIGITS:
            options = letters.get(ch, "")
            if not options:
                return []
            count *= len(options)
            choices.append(options)
        elif ch.isdigit():
            return []  # a digit of another script: no OCR confusion we know of
        else:
            choices.append(ch)
    if count > MAX_OCR_READINGS:
        return []
    readings = []
    for combo in product(*choices):
        word = "".join(combo)
        changes = tuple(
            dict.fromkeys(f"{a}→{b}" for a, b in zip(token, word, strict=True) if a != b)
        )
        readings.append((word, changes))
    return readings


def is_ocr_candidate(token: str, ocr_map: Mapping[str, str] = DEFAULT_SUBSTITUTIONS) -> bool:
    """True if ``token`` looks like a word with digits misread for letters the map covers
    (not code-shaped: see :func:`is_code_like`). ``enterpr1se``, ``ss0``, ``b00t`` qualify;
    numbers (``10``, ``2026``), measurements (``10gb``, ``1st``) and codes (``x100``, ``a1``,
    ``covid19``, ``t1d``) never do."""
    return bool(ocr_readings(token, letters_by_digit(ocr_map)))


def normalize_ocr(token: str, ocr_map: Mapping[str, str] = DEFAULT_SUBSTITUTIONS) -> str:
    """``token`` with mapped digits replaced by letters (first letter per digit), if it is an
    OCR candidate — the blind rewrite, without corpus evidence (used to reverse the query
    corruptor and to read a query token before fuzzy matching)."""
    if not is_ocr_candidate(token, ocr_map):
        return token
    return "".join(ocr_map.get(ch, ch) for ch in token)


def more_note(shown: int, total: int) -> str:
    """What a reader must be told when only ``shown`` of ``total`` items are listed: a list
    that is cut without saying so reads as complete ("95 tables cross page breaks" followed by
    six ranges looks like six).

        >>> more_note(6, 95)
        ' and 89 more'
        >>> more_note(6, 6)
        ''
    """
    return f" and {total - shown} more" if total > shown else ""


def shortened(items: Sequence[str], limit: int, sep: str = ", ") -> str:
    """The first ``limit`` of ``items`` joined by ``sep``, saying how many were left out —
    every report, verdict and page that lists "the first few" of something uses this.

        >>> shortened(["p1-2", "p3-4", "p5-6"], 2)
        'p1-2, p3-4 and 1 more'
        >>> shortened(["p1-2"], 6)
        'p1-2'
    """
    items = list(items)
    return sep.join(items[:limit]) + more_note(min(limit, len(items)), len(items))
