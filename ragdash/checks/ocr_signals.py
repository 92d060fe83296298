"""OCR damage the corpus itself shows: tokens with a digit misread for a letter
(``enterpr1se``) and the digit→letter substitutions that turn them into words seen
elsewhere in the corpus — so the OCR map is built from observed errors, not guessed.

Codes are not damage, and proposing ``2=o`` because ``AC2`` could read ``aco`` would teach
the map to destroy them. So the miner skips code-like tokens
(:func:`ragdash.text.is_code_like`: ``t1d``, ``covid19``, ``x100``), tokens that
are a piece of a longer code (``AC2`` in ``2274-COL-AC2-26``: joined by ``-``, ``_``, ``/`` or
``.`` to a piece with digits), and tokens found as-is in several documents (a code the corpus
uses consistently, :data:`ragdash.retrieval.ocr.CONSISTENT_DOCUMENTS`).

A reading is evidence only when OCR could have made that error and the word is one the
corpus uses. So a digit is read only as a letter it looks like (:data:`LOOKALIKES`, or a letter
the user's map already gives it): ``ss0`` may be ``sso`` but never ``ssn``, ``ssa`` or ``ssc``
(OCR does not read ``n`` as ``0``), and a word followed by a number (``part1``, ``district2``:
"Part 1" set without its space) is a numbered label, not damage — ``party`` and ``districts``
are not proposed. ``enterpr1se`` → ``enterprise`` is.

    >>> plausible("1", "i", {}), plausible("1", "y", {}), plausible("0", "n", {})
    (True, False, False)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ragdash.ingestion.documents import Corpus
from ragdash.retrieval.ocr import CONSISTENT_DOCUMENTS
from ragdash.text import (
    DEFAULT_SUBSTITUTIONS,
    is_ocr_candidate,
    letters_by_digit,
    ocr_readings,
    tokenize,
)

__all__ = [
    "ANY_DIGIT",
    "LOOKALIKES",
    "OcrSignal",
    "add_substitutions",
    "code_pieces",
    "damaged_tokens",
    "numbered_label",
    "ocr_signals",
    "plausible",
    "substitutions_to",
]

# A run of letters/digits pieces joined by code punctuation: "2274-COL-AC2-26", "v1.2/b3".
_COMPOUND = re.compile(r"[A-Za-z0-9]+(?:[-_/.][A-Za-z0-9]+)+")

#: Every digit may stand for a letter when looking for damage (the map only says which do).
ANY_DIGIT: Mapping[str, str] = {str(d): "?" for d in range(10)}
_DIGIT_CHARS = frozenset("0123456789")

#: The letters each digit is mistaken for by OCR (shapes alike in common fonts). A proposal
#: reading a digit as any other letter has no evidence, whatever word it makes.
LOOKALIKES: Mapping[str, str] = {
    "0": "o", "1": "il", "2": "z", "3": "e", "4": "a", "5": "s", "6": "bg", "7": "t",
    "8": "b", "9": "gq",
}  # fmt: skip
#: A word this long or longer before a trailing number makes the token a numbered label.
LABEL_MIN_LETTERS = 3
_TRAILING_NUMBER = re.compile(r"^([a-z]+)([0-9]+)$")


def plausible(digit: str, letter: str, user_letters: Mapping[str, str]) -> bool:
    """OCR could read ``letter`` as ``digit``: a look-alike (:data:`LOOKALIKES`) or a
    reading the user's map already makes."""
    return letter in LOOKALIKES.get(digit, "") or letter in user_letters.get(digit, "")


def numbered_label(token: str, vocabulary: Mapping[str, int]) -> bool:
    """``part1``, ``district2``: a word the corpus uses followed by a number — "Part 1" set
    without its space, a label rather than a misread letter.

        >>> numbered_label("part1", {"part": 4}), numbered_label("enterpr1se", {})
        (True, False)
    """
    match = _TRAILING_NUMBER.match(token)
    if not match or len(match.group(1)) < LABEL_MIN_LETTERS:
        return False
    return vocabulary.get(match.group(1), 0) > 0


@dataclass(frozen=True)
class OcrSignal:
    """One damaged token of one document and a word it most likely was.

    ``substitutions`` (e.g. ``{"1": "i"}``) turns ``token`` into ``proposed``; ``count`` is
    how often the token occurs in the document; ``covered`` says the given OCR map already
    makes that repair; ``seen`` is how often ``proposed`` occurs in the corpus.
    """

    doc_id: str
    token: str
    proposed: str
    substitutions: dict[str, str] = field(hash=False)
    count: int
    seen: int
    covered: bool


def code_pieces(text: str) -> set[str]:
    """Tokens that are pieces of a longer code: ``ac2`` and ``col`` in ``2274-COL-AC2-26``
    (a compound joined by ``-_/.`` where some piece has a digit)."""
    pieces: set[str] = set()
    for match in _COMPOUND.finditer(text):
        parts = tokenize(match.group())
        if sum(any(ch.isdigit() for ch in p) for p in parts) >= 2:
            pieces.update(parts)
    return pieces


def damaged_tokens(text: str) -> Counter[str]:
    """Tokens that look OCR-damaged: digits inside a word, by
    :func:`ragdash.text.is_ocr_candidate` with any digit allowed — never a
    code-like token or a piece of a longer code."""
    counts = Counter(tokenize(text))
    # Each distinct token is judged once, and only if it has a digit (most have none): the
    # check per occurrence cost more than the rest of the Documents page together.
    found = [t for t in counts if _DIGIT_CHARS.intersection(t) and _looks_damaged(t)]
    if not found:
        return Counter()
    codes = code_pieces(text)
    return Counter({t: counts[t] for t in found if t not in codes})


@lru_cache(maxsize=65536)
def _looks_damaged(token: str) -> bool:
    return is_ocr_candidate(token, ANY_DIGIT)


def substitutions_to(token: str, word: str) -> dict[str, str] | None:
    """The digit→letter map that turns ``token`` into ``word``, or None if there is none
    (other characters differ, or one digit would need two different letters)."""
    if len(token) != len(word) or not word.isalpha():
        return None
    subs: dict[str, str] = {}
    for have, want in zip(token, word, strict=True):
        if have.isdigit():
            if subs.setdefault(have, want) != want:
                return None
        elif have != want:
            return None
    return subs or None


def _vocabulary(texts: Iterable[str]) -> Counter[str]:
    return Counter(t for text in texts for t in tokenize(text) if t.isalpha())


def ocr_signals(
    corpus: Corpus,
    ocr_map: Mapping[str, str] | Sequence[tuple[str, str]] = DEFAULT_SUBSTITUTIONS,
) -> list[OcrSignal]:
    """Every damaged token of every document with each word of the corpus vocabulary it
    could be read as, each digit read as a letter it looks like (:func:`plausible`); per
    document, most frequent first. A token with no such word gives no signal (the damage
    cannot be confirmed from the corpus), nor does a numbered label (:func:`numbered_label`).
    """
    vocabulary = _vocabulary(doc.text for doc in corpus.documents)
    by_length: dict[int, list[str]] = {}
    for word in sorted(vocabulary, key=lambda w: -vocabulary[w]):  # stable: most used first
        by_length.setdefault(len(word), []).append(word)
    damaged = {doc.doc_id: damaged_tokens(doc.text) for doc in corpus.documents}
    spread = Counter(token for tokens in damaged.values() for token in tokens)
    letters = letters_by_digit(ocr_map)
    masks: dict[tuple[int, ...], dict[str, list[str]]] = {}
    signals = []
    for doc in corpus.documents:
        for token, count in sorted(damaged[doc.doc_id].items(), key=lambda kv: -kv[1]):
            if spread[token] >= CONSISTENT_DOCUMENTS:
                continue  # the same token in several documents: a code, not a misreading
            if numbered_label(token, vocabulary):
                continue  # "part1": Part 1 without its space
            for word in _same_but_digits(token, by_length, masks):
                subs = substitutions_to(token, word)
                if subs is None or not all(plausible(d, c, letters) for d, c in subs.items()):
                    continue  # "ss0" → "ssn": no OCR reads n as 0
                covered = any(reading == word for reading, _ in ocr_readings(token, letters))
                signals.append(
                    OcrSignal(doc.doc_id, token, word, subs, count, vocabulary[word], covered)
                )
    return signals


def _same_but_digits(
    token: str,
    by_length: Mapping[int, list[str]],
    masks: dict[tuple[int, ...], dict[str, list[str]]],
) -> list[str]:
    """The words of ``token``'s length that equal it everywhere but at its digits, in
    ``by_length`` order — looked up, not scanned: the words of that length are grouped once
    per digit-position pattern (a corpus has few), so each token costs one dictionary read
    instead of a pass over the vocabulary (which made the Documents page quadratic).

    >>> masks = {}
    >>> _same_but_digits("f0rm", {4: ["form", "farm", "from"]}, masks)
    ['form', 'farm']
    """
    digits = tuple(i for i, ch in enumerate(token) if ch.isdigit())
    key = (len(token), *digits)
    groups = masks.get(key)
    if groups is None:
        groups = {}
        for word in by_length.get(len(token), ()):
            groups.setdefault(_blank(word, digits), []).append(word)
        masks[key] = groups
    return groups.get(_blank(token, digits), [])


def _blank(text: str, positions: tuple[int, ...]) -> str:
    chars = list(text)
    for i in positions:
        chars[i] = "\0"
    return "".join(chars)


def add_substitutions(
    ocr_map: Mapping[str, str] | Sequence[tuple[str, str]], substitutions: Mapping[str, str]
) -> dict[str, str] | tuple[tuple[str, str], ...]:
    """``ocr_map`` with ``substitutions`` added — the one-click "use this repair".

    Given canonical pairs (``(("0", "o"), ("1", "i"))``), the pairs come back with the new
    ones added: a digit may stand for several letters (``1=i`` and ``1=l``), the corpus picks
    the reading. Given a digit → letter mapping (one letter per digit), raises
    ``ValueError`` if a digit is already mapped to a different letter.
    """
    if not isinstance(ocr_map, Mapping):
        return tuple(sorted(set(ocr_map) | set(substitutions.items())))
    merged = dict(ocr_map)
    for digit, letter in substitutions.items():
        if merged.get(digit, letter) != letter:
            raise ValueError(
                f"digit {digit} already maps to {merged[digit]!r}, not {letter!r}; "
                "change the map by hand"
            )
        merged[digit] = letter
    return merged
