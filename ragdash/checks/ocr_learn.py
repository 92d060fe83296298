"""An OCR map learned from observed errors: OCR output aligned to the clean text.

:mod:`ragdash.checks.ocr_signals` guesses damage from the corpus alone. When the clean text
of a scanned page is known — the user has the original, or the page was generated (see
:mod:`benchmarks.scanbench`) — the OCR errors can be *counted*: the two texts are aligned
character by character (``rapidfuzz.distance.Levenshtein.editops``) and every substitution is
a confusion ``truth → read``. A digit read where the clean text has a letter is exactly what
the OCR fix's map undoes, so each such confusion is a proposed map entry with its count::

    >>> learned = learn_ocr_map([("Claims are fi1ed on the portal; c1aims", "Claims are "
    ...                           "filed on the portal; claims")])
    >>> [(p.entry, p.count) for p in learned.proposals]
    [('1=l', 2)]

An entry is never proposed when the OCR fix, given it, could rewrite a token the clean
text really spells with that digit — a code or a name (``wi5e`` in a text whose ``s`` OCR
reads as ``5`` elsewhere). Each such token is judged with the OCR fix's own test
(:func:`ragdash.text.is_ocr_candidate`: code-shaped tokens such as ``x1b9`` are
never rewritten) and the user's protected list; a refused entry says which token it would
damage, and protecting that token lets it through::

    >>> pair = ("The wi5e kit: 5ign here", "The wi5e kit: sign here")
    >>> print(learn_ocr_map([pair]).refused[0].refused)
    the OCR fix could rewrite 'wi5e', which the clean text spells with 5: protect 'wi5e' ...
    >>> learn_ocr_map([pair], protected=["wi5e"]).ocr_map
    '5=s'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from ragdash.text import is_ocr_candidate, tokenize

__all__ = [
    "Confusion",
    "MIN_WORDS_FOUND",
    "LearnedMap",
    "MapProposal",
    "count_confusions",
    "learn_ocr_map",
    "pairs_from_pages",
]

#: Examples kept per confusion.
EXAMPLES = 3
#: Below this share of the clean text's words found in the OCR text (exactly or nearly), the
#: two are not the same text read twice (another page, another document): the "confusions"
#: of their alignment are noise, and the command line and the dashboard propose nothing.
#: The character error rate cannot tell: a clean text of only part of a page has a high one
#: (everything else OCR read counts as added characters) and is fine to learn from.
MIN_WORDS_FOUND = 0.5
#: How close (rapidfuzz ``fuzz.ratio``) an OCR word must be to a clean word to count as it.
WORD_FOUND_RATIO = 75


@dataclass(frozen=True)
class Confusion:
    """The clean text's ``truth`` character read as ``read`` (``""`` for a character OCR
    dropped or added), ``count`` times; ``examples`` are words where it happened
    (``claims→c1aims``)."""

    truth: str
    read: str
    count: int
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class MapProposal:
    """A digit→letter entry for the OCR fix's map, how often OCR made that error, and (for
    an entry that must not be used) why."""

    digit: str
    letter: str
    count: int
    examples: tuple[str, ...] = ()
    refused: str = ""

    @property
    def entry(self) -> str:
        """The entry as the OCR map field takes it: ``1=l``."""
        return f"{self.digit}={self.letter}"


@dataclass(frozen=True)
class LearnedMap:
    """What aligning OCR output to its clean text found."""

    confusions: tuple[Confusion, ...]
    proposals: tuple[MapProposal, ...]
    refused: tuple[MapProposal, ...]
    characters: int  # characters of clean text aligned
    errors: int  # edit operations

    @property
    def error_rate(self) -> float:
        return self.errors / max(self.characters, 1)

    clean_words: int = 0  # words of the clean text
    words_found: int = 0  # of them, found in the OCR text (see MIN_WORDS_FOUND)

    @property
    def mismatch(self) -> str:
        """Why the texts cannot be learned from, as the user is told ("" when they can)."""
        if not self.clean_words or self.words_found / self.clean_words >= MIN_WORDS_FOUND:
            return ""
        return (
            f"the clean text does not match the OCR text (character error rate "
            f"{self.error_rate:.0%}; {self.words_found} of its {self.clean_words} words found in "
            "the OCR text): no entries proposed — is it the clean text of the same pages?"
        )

    @property
    def ocr_map(self) -> str:
        """The proposed entries as an OCR map value (``"0=o, 1=l"``), most frequent first."""
        return ", ".join(p.entry for p in self.proposals)


def _fold(text: str) -> str:
    return " ".join(text.split())


def _word_at(text: str, i: int) -> tuple[int, int]:
    start = i
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = i
    while end < len(text) and not text[end].isspace():
        end += 1
    return start, end


def count_confusions(ocr_text: str, clean_text: str) -> tuple[list[Confusion], int, int]:
    """Character confusions of ``ocr_text`` against ``clean_text`` (whitespace folded), most
    frequent first, with the clean text's length and the number of edits::

        >>> confusions, chars, edits = count_confusions("B0ok the r00m", "Book the room")
        >>> [(c.truth, c.read, c.count) for c in confusions], edits
        ([('o', '0', 3)], 3)
    """
    from rapidfuzz.distance import Levenshtein

    truth, read = _fold(clean_text), _fold(ocr_text)
    counts: Counter[tuple[str, str]] = Counter()
    examples: dict[tuple[str, str], list[str]] = {}
    ops = Levenshtein.editops(truth, read)
    for op in ops:
        if op.tag == "replace":
            key = (truth[op.src_pos], read[op.dest_pos])
        elif op.tag == "delete":
            key = (truth[op.src_pos], "")
        else:
            key = ("", read[op.dest_pos])
        counts[key] += 1
        if op.tag == "replace":
            a, b = _word_at(truth, op.src_pos)
            c, d = _word_at(read, op.dest_pos)
            example = f"{truth[a:b]}→{read[c:d]}"
            seen = examples.setdefault(key, [])
            if example not in seen and len(seen) < EXAMPLES:
                seen.append(example)
    confusions = [
        Confusion(t, r, n, tuple(examples.get((t, r), ())))
        for (t, r), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return confusions, len(truth), len(ops)


def _would_damage(
    digit: str, letter: str, clean_tokens: Counter[str], protected: Collection[str]
) -> str:
    """The first token of the clean text the OCR fix could rewrite with ``digit=letter`` in
    its map, or ``""``. The fix rewrites a token only with corpus support, but the corpus it
    will run on is not known here, so any token the fix would consider is enough to refuse:
    one not on the protected list and not code-shaped
    (:func:`ragdash.text.is_ocr_candidate`, the fix's own test)."""
    for token in sorted(t for t in clean_tokens if digit in t and any(c.isalpha() for c in t)):
        if token not in protected and is_ocr_candidate(token, {digit: letter}):
            return token
    return ""


def learn_ocr_map(
    pairs: Iterable[tuple[str, str]],
    protected: Collection[str] = (),
    min_count: int = 1,
) -> LearnedMap:
    """Align each (OCR text, clean text) pair, count the confusions over all of them, and
    propose the digit→letter entries OCR's errors call for (seen ``min_count`` times or
    more), refusing those that would make the OCR fix rewrite a token the clean text really
    has (see the module docstring)."""
    total: Counter[tuple[str, str]] = Counter()
    examples: dict[tuple[str, str], list[str]] = {}
    clean_tokens: Counter[str] = Counter()
    characters = errors = clean_words = words_found = 0
    for ocr_text, clean_text in pairs:
        words, found_words = _words_found(ocr_text, clean_text)
        clean_words += words
        words_found += found_words
        found, chars, edits = count_confusions(ocr_text, clean_text)
        characters += chars
        errors += edits
        clean_tokens.update(tokenize(clean_text))
        for c in found:
            total[(c.truth, c.read)] += c.count
            kept = examples.setdefault((c.truth, c.read), [])
            kept.extend(e for e in c.examples if e not in kept)
    confusions = tuple(
        Confusion(t, r, n, tuple(examples.get((t, r), ())[:EXAMPLES]))
        for (t, r), n in sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    by_entry: Counter[tuple[str, str]] = Counter()
    entry_examples: dict[tuple[str, str], list[str]] = {}
    for c in confusions:
        if c.read.isdigit() and len(c.truth) == 1 and c.truth.isalpha():
            key = (c.read, c.truth.lower())
            by_entry[key] += c.count
            entry_examples.setdefault(key, []).extend(c.examples)
    proposals: list[MapProposal] = []
    refused: list[MapProposal] = []
    protected_set = {p.lower() for p in protected}
    for (digit, letter), count in sorted(by_entry.items(), key=lambda kv: (-kv[1], kv[0])):
        if count < min_count:
            continue
        shown = tuple(entry_examples[(digit, letter)][:EXAMPLES])
        damaged = _would_damage(digit, letter, clean_tokens, protected_set)
        if damaged:
            refused.append(
                MapProposal(
                    digit, letter, count, shown,
                    f"the OCR fix could rewrite '{damaged}', which the clean text spells "
                    f"with {digit}: protect '{damaged}' to use {digit}={letter}",
                )
            )
        else:
            proposals.append(MapProposal(digit, letter, count, shown))
    return LearnedMap(confusions, tuple(proposals), tuple(refused), characters, errors,
                      clean_words, words_found)  # fmt: skip


def _words_found(ocr_text: str, clean_text: str) -> tuple[int, int]:
    """How many words the clean text has, and how many of them the OCR text has exactly or
    within :data:`WORD_FOUND_RATIO` (``c1aims`` is ``claims`` read with one error)."""
    from rapidfuzz import fuzz, process

    read = set(tokenize(ocr_text))
    words = tokenize(clean_text)
    found = sum(
        1 for w in words
        if w in read or process.extractOne(w, read, scorer=fuzz.ratio,
                                           score_cutoff=WORD_FOUND_RATIO)
    )  # fmt: skip
    return len(words), found


def pairs_from_pages(ocr_pages: Sequence[str], clean_pages: Sequence[str]) -> list[tuple[str, str]]:
    """(OCR, clean) pairs page by page when the counts agree, else the whole texts as one
    pair (a clean text without page breaks)."""
    if len(ocr_pages) == len(clean_pages):
        return list(zip(ocr_pages, clean_pages, strict=True))
    return [("\n".join(ocr_pages), "\n".join(clean_pages))]

