"""Fault injection: realistic corruptions of queries and corpora, seeded and rate-controlled,
so any case can be turned into a robustness test."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from datetime import date

from ragdash.ingestion.documents import Corpus, Document
from ragdash.ingestion.tables import cells, is_table_line
from ragdash.retrieval.typos import KEY_NEIGHBOURS
from ragdash.text import DEFAULT_SUBSTITUTIONS

__all__ = [
    "KEYBOARD_NEIGHBOURS",
    "QUERY_FAULTS",
    "TYPO_EDITS",
    "add_stale_version",
    "apply_typo",
    "corrupt_query",
    "neighbour_keys",
    "ocr_noise",
    "ocr_noise_document",
    "split_table",
    "typo_noise",
    "typo_variants",
]

QUERY_FAULTS = ("ocr", "typo")
TYPO_EDITS = ("deletion", "insertion", "substitution", "transposition")

#: Letter → the keys a finger slips to: the same staggered-QWERTY neighbours that make an
#: edit typo-like when fuzzy matching chooses a candidate (one keyboard for both sides).
KEYBOARD_NEIGHBOURS = {letter: "".join(sorted(near)) for letter, near in KEY_NEIGHBOURS.items()}


def _pick_positions(candidates: list[int], rate: float, rng: random.Random) -> list[int]:
    """Each candidate position is hit with probability ``rate``; at least one when rate > 0,
    so asking for noise always changes something."""
    if rate <= 0 or not candidates:
        return []
    hits = [i for i in candidates if rng.random() < rate]
    return hits or [rng.choice(candidates)]


def ocr_noise(
    text: str, rate: float, seed: int = 0, ocr_map: Mapping[str, str] = DEFAULT_SUBSTITUTIONS
) -> str:
    """Misread letters as the digits that look like them (``o→0``, ``i→1`` for the default
    map), as OCR does. Only letters inside words are touched."""
    reverse = {letter: digit for digit, letter in ocr_map.items()}
    rng = random.Random(seed)
    chars = list(text)
    candidates = [i for i, ch in enumerate(chars) if ch.lower() in reverse]
    for i in _pick_positions(candidates, rate, rng):
        chars[i] = reverse[chars[i].lower()]
    return "".join(chars)


def neighbour_keys(letter: str) -> str:
    """The keys a finger slips to from ``letter`` (same case as ``letter``)."""
    near = KEYBOARD_NEIGHBOURS.get(letter.lower(), "e")
    return near.upper() if letter.isupper() else near


def apply_typo(chars: list[str], i: int, edit: str, key: str = "") -> bool:
    """Make one keyboard typo of kind ``edit`` (:data:`TYPO_EDITS`) at position ``i`` of
    ``chars``, in place — the one typo model of fault injection and the fragility search.

    ``deletion`` drops the letter; ``insertion`` types ``key`` before it; ``substitution``
    types ``key`` instead; ``transposition`` swaps it with the next letter. Returns False
    (and changes nothing) when the edit would change nothing: a transposition with no
    letter after it or with the same letter (``ll``), a substitution by the same letter::

        >>> chars = list("sync"); apply_typo(chars, 1, "transposition"), "".join(chars)
        (True, 'snyc')
    """
    ch = chars[i]
    if edit == "deletion":
        del chars[i]
    elif edit == "insertion":
        chars.insert(i, key)
    elif edit == "substitution":
        if key == ch:
            return False
        chars[i] = key
    elif edit == "transposition":
        if not (i + 1 < len(chars) and chars[i + 1].isalpha() and chars[i + 1] != ch):
            return False
        chars[i], chars[i + 1] = chars[i + 1], ch
    else:
        raise ValueError(f"unknown typo {edit!r}; choose from {', '.join(TYPO_EDITS)}")
    return True


def typo_variants(text: str) -> list[str]:
    """Every text one keyboard typo away (:func:`apply_typo` at every letter of words of
    three letters or more, every neighbouring key)."""
    results = []
    for i, ch in enumerate(text):
        if not (ch.isalpha() and _word_length(text, i) >= 3):
            continue
        for edit in TYPO_EDITS:
            keys = neighbour_keys(ch) if edit in ("insertion", "substitution") else ("",)
            for key in keys:
                chars = list(text)
                if apply_typo(chars, i, edit, key):
                    results.append("".join(chars))
    return results


def typo_noise(text: str, rate: float, seed: int = 0) -> str:
    """Keyboard typos (:func:`apply_typo`) at a rate per letter. Words shorter than three
    letters are left alone."""
    rng = random.Random(seed)
    chars = list(text)
    candidates = [i for i, ch in enumerate(chars) if ch.isalpha() and _word_length(text, i) >= 3]
    # Edit right to left so earlier positions stay valid.
    for i in sorted(_pick_positions(candidates, rate, rng), reverse=True):
        edit = rng.choice(TYPO_EDITS)
        key = rng.choice(neighbour_keys(chars[i])) if edit in ("insertion", "substitution") else ""
        if not apply_typo(chars, i, edit, key):
            del chars[i]  # nothing to swap with (or swapping "ll" would change nothing)
    result = "".join(chars)
    if candidates and rate > 0 and result == text:
        # Edits can cancel out (two swaps undoing each other); noise must show.
        i = rng.choice(candidates)
        result = text[:i] + text[i + 1 :]
    return result


def _word_length(text: str, index: int) -> int:
    start = index
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    end = index
    while end < len(text) and text[end].isalpha():
        end += 1
    return end - start


def corrupt_query(query: str, fault: str, rate: float, seed: int = 0) -> str:
    """Apply one query fault (``ocr`` or ``typo``) at ``rate`` with ``seed``."""
    if fault == "ocr":
        return ocr_noise(query, rate, seed)
    if fault == "typo":
        return typo_noise(query, rate, seed)
    raise ValueError(f"unknown query fault {fault!r}; choose from {', '.join(QUERY_FAULTS)}")


def _with_documents(corpus: Corpus, documents: list[Document]) -> Corpus:
    renumbered = tuple(replace(doc, order=i) for i, doc in enumerate(documents))
    return Corpus(renumbered, corpus.messages)


def _require(corpus: Corpus, doc_id: str) -> Document:
    doc = corpus.document(doc_id)
    if doc is None:
        raise KeyError(f"no document {doc_id!r} in the corpus")
    return doc


def add_stale_version(
    corpus: Corpus,
    doc_id: str,
    stale_id: str,
    updated: date,
    replacements: Mapping[str, str],
) -> Corpus:
    """Add an older copy of ``doc_id`` — with ``replacements`` applied to its text — listed
    just before it, as when ingestion adds a new page without removing the old one."""
    doc = _require(corpus, doc_id)
    if corpus.document(stale_id) is not None:
        raise ValueError(f"document id {stale_id!r} already exists")
    pages = []
    for page in doc.pages:
        for old, new in replacements.items():
            page = page.replace(old, new)
        pages.append(page)
    stale = replace(
        doc,
        doc_id=stale_id,
        updated=updated,
        pages=tuple(pages),
        source=f"{doc.source} (stale copy)",
    )
    docs = list(corpus.documents)
    docs.insert(docs.index(doc), stale)
    return _with_documents(corpus, docs)


def ocr_noise_document(corpus: Corpus, doc_id: str, rate: float, seed: int = 0) -> Corpus:
    """Run :func:`ocr_noise` over every page of one document."""
    doc = _require(corpus, doc_id)
    pages = tuple(ocr_noise(page, rate, seed + n) for n, page in enumerate(doc.pages))
    return _with_documents(
        corpus, [replace(d, pages=pages) if d is doc else d for d in corpus.documents]
    )


def split_table(corpus: Corpus, doc_id: str, row: int = 1) -> Corpus:
    """Cut a page of ``doc_id`` inside the ``row``-th data row of its first text table, right
    after the first cell — "Basic |" ends one page, "10 Go | ..." opens the next."""
    doc = _require(corpus, doc_id)
    for page_no, page in enumerate(doc.pages):
        lines = page.splitlines()
        table = [i for i, line in enumerate(lines) if is_table_line(line)]
        if len(table) <= row or len(cells(lines[table[row]])) < 2:
            continue
        i = table[row]
        first, _, rest = lines[i].partition("|")
        before = "\n".join([*lines[:i], f"{first.rstrip()} |"])
        after = "\n".join([rest.strip(), *lines[i + 1 :]])
        pages = (*doc.pages[:page_no], before, after, *doc.pages[page_no + 1 :])
        cut = replace(doc, pages=pages, kind="pdf")
        return _with_documents(corpus, [cut if d is doc else d for d in corpus.documents])
    raise ValueError(f"document {doc_id!r} has no text table with a data row {row}")
