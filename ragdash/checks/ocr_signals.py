"""OCR damage the corpus itself shows: tokens with a digit misread for a letter
(``enterpr1se``) and the digit→letter substitutions that turn them into words seen
elsewhere in the corpus — so the OCR map is built from observed errors, not guessed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ragdash.ingestion.documents import Corpus
from ragdash.retrieval.tokens import (
    DEFAULT_SUBSTITUTIONS,
    is_ocr_candidate,
    normalize_ocr,
    tokenize,
)

#: Every digit may stand for a letter when looking for damage (the map only says which do).
ANY_DIGIT: Mapping[str, str] = {str(d): "?" for d in range(10)}


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


def damaged_tokens(text: str) -> Counter[str]:
    """Tokens that look OCR-damaged: a letter-led word with single digits inside it, by
    :func:`ragdash.retrieval.tokens.is_ocr_candidate` with any digit allowed."""
    return Counter(t for t in tokenize(text) if is_ocr_candidate(t, ANY_DIGIT))


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
    corpus: Corpus, ocr_map: Mapping[str, str] = DEFAULT_SUBSTITUTIONS
) -> list[OcrSignal]:
    """Every damaged token of every document with each word of the corpus vocabulary it
    could be read as; per document, most frequent first. A token with no such word gives
    no signal (the damage cannot be confirmed from the corpus)."""
    vocabulary = _vocabulary(doc.text for doc in corpus.documents)
    by_length: dict[int, list[str]] = {}
    for word in vocabulary:
        by_length.setdefault(len(word), []).append(word)
    signals = []
    for doc in corpus.documents:
        for token, count in sorted(damaged_tokens(doc.text).items(), key=lambda kv: -kv[1]):
            for word in sorted(by_length.get(len(token), []), key=lambda w: -vocabulary[w]):
                subs = substitutions_to(token, word)
                if subs is None:
                    continue
                covered = normalize_ocr(token, ocr_map) == word
                signals.append(
                    OcrSignal(doc.doc_id, token, word, subs, count, vocabulary[word], covered)
                )
    return signals


def add_substitutions(ocr_map: Mapping[str, str], substitutions: Mapping[str, str]) -> dict:
    """``ocr_map`` with ``substitutions`` added — the one-click "use this repair".

    Raises ``ValueError`` if a digit is already mapped to a different letter.
    """
    merged = dict(ocr_map)
    for digit, letter in substitutions.items():
        if merged.get(digit, letter) != letter:
            raise ValueError(
                f"digit {digit} already maps to {merged[digit]!r}, not {letter!r}; "
                "change the map by hand"
            )
        merged[digit] = letter
    return merged
