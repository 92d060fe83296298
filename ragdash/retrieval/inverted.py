"""An inverted index over one passage set: a query touches only the postings it needs.

Results are identical to :func:`ragdash.retrieval.ranking.rank_passages` (the straightforward
scorer): the same query plan (:func:`ragdash.retrieval.matching.plan_with_lexicon`, here over the
index's cached vocabulary), the same scores and breakdowns, the same order. Scores are
accumulated as whole
units of 1/10,000 of a point — every match is worth 1 or a fuzzy similarity rounded to 4
decimals — so sums are exact and ties stay ties.

Built once per passage set (and tokenizer); the OCR repair tables (per OCR map and protected
list), document counts, version families and the fuzzy pools (per ``status`` flag, one pool
for every fuzzy rule) are worked out on first use and kept.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import OSA

from ragdash.ingestion.documents import Passage
from ragdash.retrieval.families import VersionFamilies, families_of, reorder
from ragdash.retrieval.matching import (
    FUZZY_MIN_LENGTH,
    MatchKind,
    QueryPlan,
    TokenMatch,
    extract_edits,
    extract_fuzzy,
    fuzzy_eligible,
    fuzzy_word,
    repair_key,
    repair_memo_for,
)
from ragdash.retrieval.ocr import RepairMemo, RepairTable
from ragdash.retrieval.ranking import (
    RankedPassage,
    breakdown_score,
    plan_for,
    query_tokens,
    rank_passages,
)
from ragdash.retrieval.topk import FamilyArrays, names_a_version, top_moving
from ragdash.settings import Fixes
from ragdash.text import tokenizer

__all__ = [
    "DENSE_SHARE",
    "FUZZY_CACHE_SIZE",
    "FuzzyPool",
    "InvertedIndex",
    "Postings",
    "UNITS_PER_POINT",
    "VocabularyView",
    "build_postings",
    "postings_from_ids",
    "postings_with_order",
    "stable_order",
    "changed_words",
    "letter_mask",
    "letter_masks",
    "tie_order",
]

#: Fuzzy look-ups kept per vocabulary view (query token and rule settings); cleared when full.
FUZZY_CACHE_SIZE = 4096
#: A query whose postings cover more than this share of the passages is summed in a dense
#: array (one pass over N beats sorting that many ids); fewer are summed by sorting them.
DENSE_SHARE = 0.125
#: Points are summed as integers of this many units per point (4-decimal fuzzy points).
UNITS_PER_POINT = 10_000


@dataclass(frozen=True, eq=False)
class Postings:
    """Token → ascending passage ids, as CSR arrays: ids of ``vocabulary[t]`` are
    ``passage_ids[offsets[t]:offsets[t + 1]]``."""

    vocabulary: tuple[str, ...]
    token_ids: Mapping[str, int]
    offsets: np.ndarray
    passage_ids: np.ndarray

    def ids(self, token: str) -> np.ndarray:
        """The passages holding ``token`` (empty if none)."""
        t = self.token_ids.get(token)
        if t is None:
            return self.passage_ids[:0]
        return self.passage_ids[self.offsets[t] : self.offsets[t + 1]]

    @property
    def nbytes(self) -> int:
        return int(self.offsets.nbytes + self.passage_ids.nbytes)


def build_postings(token_sets: Iterable[Iterable[str]]) -> Postings:
    """Postings of passages given as their tokens (each passage's distinct tokens count
    once), vocabulary in first-seen order. Streams: one passage's tokens at a time become
    int ids in one flat array, so no set per passage outlives its turn."""
    token_ids: dict[str, int] = {}
    add = token_ids.setdefault
    flat = array("i")
    lengths = array("q")
    for tokens in token_sets:
        before = len(flat)
        flat.extend([add(t, len(token_ids)) for t in dict.fromkeys(tokens)])
        lengths.append(len(flat) - before)
    tids = np.frombuffer(flat, dtype=np.int32) if flat else np.zeros(0, dtype=np.int32)
    lens = np.frombuffer(lengths, dtype=np.int64) if lengths else np.zeros(0, dtype=np.int64)
    return _csr(tids, lens, tuple(token_ids), token_ids)


def postings_from_ids(flat: np.ndarray, lengths: np.ndarray, words: Sequence[str]) -> Postings:
    """The postings :func:`build_postings` makes, from passages already given as token ids:
    ``flat`` holds each passage's distinct token ids (indexes into ``words``) passage after
    passage, ``lengths`` how many each has. The vocabulary is put in first-seen order, as
    ``build_postings`` puts it, so the result is the same whatever ``words`` holds — why a
    faulted corpus can reuse the clean corpus's token ids and only tokenize what changed.

        >>> p = postings_from_ids(np.array([2, 0, 0]), np.array([2, 1]), ["b", "x", "a"])
        >>> p.vocabulary, p.ids("b").tolist()
        (('a', 'b'), [0, 1])
    """
    return postings_with_order(flat, lengths, words)[0]


def postings_with_order(
    flat: np.ndarray, lengths: np.ndarray, words: Sequence[str]
) -> tuple[Postings, np.ndarray]:
    """:func:`postings_from_ids` and where each entry of ``flat`` went: ``values[order]``
    aligns values given per entry of ``flat`` (term counts) with ``passage_ids``."""
    flat = np.asarray(flat, dtype=np.int64)
    if len(flat):
        # each word's first place in ``flat`` (one pass, no sort of the entries); the words
        # present, in the order they are first seen
        first = np.full(len(words), len(flat), dtype=np.int64)
        np.minimum.at(first, flat, np.arange(len(flat), dtype=np.int64))
        present = np.flatnonzero(first < len(flat))
        seen = present[np.argsort(first[present])]  # places are distinct: any sort is stable
    else:
        seen = np.zeros(0, dtype=np.int64)
    remap = np.zeros(len(words), dtype=np.int32)
    remap[seen] = np.arange(len(seen), dtype=np.int32)
    vocabulary = tuple(words[i] for i in seen.tolist())
    token_ids = dict(zip(vocabulary, range(len(vocabulary)), strict=True))
    tids = remap[flat]
    order = stable_order(tids)
    postings = _csr(tids, np.asarray(lengths, dtype=np.int64), vocabulary, token_ids, order)
    return postings, order


def changed_words(
    before: Sequence[Passage], after: Sequence[Passage], changed: Iterable[str], unicode: bool
) -> frozenset[str]:
    """Every token of the documents ``changed`` (and of documents only ``before`` holds) in
    either passage set: the only words whose document counts can differ between the two.

        >>> a = [Passage("a", "old text", 1, 1, 0, 0, "page")]
        >>> sorted(changed_words(a, [], [], False))
        ['old', 'text']
    """
    docs = set(changed) | ({p.doc_id for p in before} - {p.doc_id for p in after})
    split = tokenizer(unicode)
    words: set[str] = set()
    for passages in (before, after):
        for p in passages:
            if p.doc_id in docs:
                words.update(split(p.text))
    return frozenset(words)


def stable_order(tids: np.ndarray) -> np.ndarray:
    """``np.argsort(tids, kind="stable")``, about three times faster: each id is made unique
    by its place (``id * n + place``), so the default (unstable, vectorised) sort gives the
    stable order — the order postings keep passage ids ascending in.

        >>> stable_order(np.array([2, 0, 2, 0])).tolist()
        [1, 3, 0, 2]
    """
    n = len(tids)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    return np.argsort(np.asarray(tids, dtype=np.int64) * n + np.arange(n, dtype=np.int64))


def _csr(
    tids: np.ndarray,
    lens: np.ndarray,
    vocabulary: tuple[str, ...],
    token_ids: Mapping[str, int],
    order: np.ndarray | None = None,
) -> Postings:
    count = len(lens)
    owners = np.repeat(np.arange(count, dtype=np.int32), lens)
    if order is None:
        order = stable_order(tids)  # stable: ids stay ascending within a token
    counts = np.bincount(tids, minlength=len(vocabulary))
    offsets = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return Postings(vocabulary, token_ids, offsets, owners[order])


@dataclass
class VocabularyView:
    """The words of the passages a query may see (all, or current only) as a
    :class:`ragdash.retrieval.matching.Lexicon` backed by the index's caches."""

    words: Mapping[str, int] | frozenset[str]
    index: InvertedIndex
    eligible: np.ndarray | None  # passages this view sees (None: all)
    _pool: FuzzyPool | None = None
    _fuzzy: dict[tuple[object, ...], list[tuple[str, float]]] = field(default_factory=dict)
    _documents: dict[str, int] = field(default_factory=dict)
    _repairs: dict[tuple[object, ...], RepairTable] = field(default_factory=dict)
    _memos: dict[tuple[object, ...], RepairMemo] = field(default_factory=dict)
    _repaired: dict[tuple[int, str], tuple[RepairTable, list[str]]] = field(default_factory=dict)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def documents(self, word: str) -> int:
        if word not in self._documents:
            ids = self.index.postings.ids(word)
            if self.eligible is not None:
                ids = ids[self.eligible[ids]]
            self._documents[word] = int(np.unique(self.index.doc_numbers[ids]).size)
        return self._documents[word]

    def repairs(self, settings: Fixes) -> RepairTable:
        key = repair_key(settings)
        if key not in self._repairs:
            self._repairs[key] = self.repair_memo(settings).table()
        return self._repairs[key]

    def repair_memo(self, settings: Fixes) -> RepairMemo:
        """The judged OCR candidates behind :meth:`repairs`; an index derived from another
        (:meth:`InvertedIndex.derive_from`) judges again only what its changed documents
        touch."""
        key = repair_key(settings)
        if key not in self._memos:
            base: RepairMemo | None = None
            dirty: frozenset[str] = frozenset()
            if self.index.derived is not None:
                origin, dirty = self.index.derived
                base = origin.view(self.eligible is not None).repair_memo(settings)
            self._memos[key] = repair_memo_for(self.words, self.documents, settings, base, dirty)
        return self._memos[key]

    def repaired_words(self, table: RepairTable, rule: str) -> list[str]:
        """Fuzzy-eligible words ``table`` repairs to that this vocabulary lacks, kept per
        table (tables are kept by the view) and rule: not re-listed for every query."""
        key = (id(table), rule)
        kept = self._repaired.get(key)
        if kept is None or kept[0] is not table:
            words = [w for w in table.by_word if w not in self.words and fuzzy_eligible(w, rule)]
            kept = self._repaired[key] = (table, words)
        return kept[1]

    def fuzzy_pool(self) -> FuzzyPool:
        """The view's letters-only words by length, with their letter masks (shared by every
        rule and cached with the view, i.e. per vocabulary)."""
        if self._pool is None:
            self._pool = FuzzyPool.build([w for w in self.words if fuzzy_word(w)])
        return self._pool

    def fuzzy_matches(
        self, token: str, threshold: float, near: int | None = None
    ) -> list[tuple[str, float]]:
        key = ("ratio", token, threshold, near)
        if key not in self._fuzzy:
            kept = self.fuzzy_pool().candidates(token, threshold, FUZZY_MIN_LENGTH, near)
            found = extract_fuzzy(token, kept, threshold)
            if near is not None and found:  # the bound, exactly (one C call per word)
                osa = OSA.distance
                found = [(w, s) for w, s in found if osa(token, w, score_cutoff=near) <= near]
            self._remember(key, found)
        return self._fuzzy[key]

    def edit_matches(
        self, token: str, edits: int, min_length: int, near: int | None = None
    ) -> list[tuple[str, float]]:
        key = ("edits", token, edits, min_length, near)
        if key not in self._fuzzy:
            bound = edits if near is None else min(edits, near)
            kept = self.fuzzy_pool().within_edits(token, bound, min_length)
            self._remember(key, extract_edits(token, kept, edits))
        return self._fuzzy[key]

    def _remember(self, key: tuple[object, ...], found: list[tuple[str, float]]) -> None:
        if len(self._fuzzy) >= FUZZY_CACHE_SIZE:
            self._fuzzy.clear()
        self._fuzzy[key] = found


@dataclass(frozen=True, eq=False)
class FuzzyPool:
    """Words (letters only) sorted by length, with a bit mask of the letters each uses:
    candidate generation reads one slice of lengths and compares one integer per word.

    Why the filters never drop a match: ``fuzz.ratio`` is ``100 * (1 - indel / (len_a +
    len_b))``, and the indel distance is at least the length difference and at least the
    number of letters one word uses and the other does not (``popcount(mask_a ^ mask_b)``).
    One OSA edit changes the length by at most 1 and flips at most 2 mask bits (a
    substitution drops a letter and adds one). Letters outside a-z share one bit: merging
    can only hide a difference, never invent one. Example: ``warehuse`` (8 letters) within
    one edit only reads the 7-9 letter slice, and of it only words whose letters differ
    from ``{a, e, h, r, s, u, w}`` in two letters at most (``warehouse``: none) are scored
    by rapidfuzz.
    """

    words: np.ndarray  # the words (objects), shortest first: a slice picks by a mask
    lengths: np.ndarray  # ascending
    masks: np.ndarray  # uint32 letter masks, bits 0-25 a-z, bit 26 any other letter
    #: starts[n]: where words of n letters or more begin (one entry past the longest):
    #: a query reads its slice of lengths from a list, not by two binary searches.
    starts: tuple[int, ...]

    @classmethod
    def build(cls, words: Sequence[str]) -> FuzzyPool:
        ordered = sorted(words, key=lambda w: (len(w), w))
        lengths = np.fromiter(map(len, ordered), dtype=np.int64, count=len(ordered))
        longest = int(lengths[-1]) if len(lengths) else 0
        starts = np.searchsorted(lengths, np.arange(longest + 2), side="left")
        return cls(np.array(ordered, dtype=object), lengths, letter_masks(ordered, lengths),
                   tuple(starts.tolist()))  # fmt: skip

    def _slice(self, shortest: float, longest: float) -> tuple[int, int]:
        """Where the words of ``shortest`` to ``longest`` letters lie (lengths are whole:
        at least ``ceil(shortest)``, at most ``floor(longest)`` letters)."""
        starts = self.starts
        top = len(starts) - 1
        lo = starts[min(max(math.ceil(shortest), 0), top)]
        hi = starts[top if longest >= top else max(math.floor(longest) + 1, 0)]
        return lo, hi

    def _pick(self, lo: int, hi: int, keep: np.ndarray) -> list[str]:
        return self.words[lo:hi][keep].tolist()

    def candidates(
        self, token: str, threshold: float, min_length: int = 0, near: int | None = None
    ) -> Sequence[str]:
        """A superset of the words of ``min_length`` letters or more that can reach
        ``threshold`` against ``token`` (and, given ``near``, lie within ``near`` OSA
        edits of it)."""
        if not len(self.words):
            return ()
        n = len(token)
        slack = 1 - threshold / 100
        # |len - n| <= slack * (len + n)
        longest = float(self.lengths[-1]) if slack >= 1 else n * (1 + slack) / (1 - slack) + 1e-6
        shortest = max(n * (1 - slack) / (1 + slack) - 1e-6, min_length)
        if near is not None:
            shortest, longest = max(shortest, n - near), min(longest, n + near)
        lo, hi = self._slice(shortest, longest)
        if lo >= hi:
            return ()
        gap = self._gap(token, lo, hi)
        # The ratio bound grows (or shrinks) linearly with length: when it allows 2 * near
        # at both ends of the slice, the edit bound alone decides (one comparison per word).
        ends = (slack * (self.lengths[lo] + n) + 1e-6, slack * (self.lengths[hi - 1] + n) + 1e-6)
        if near is not None and min(ends) >= 2 * near:
            keep = gap <= 2 * near
        else:
            keep = gap <= slack * (self.lengths[lo:hi] + n) + 1e-6
            if near is not None:
                keep &= gap <= 2 * near
        return self._pick(lo, hi, keep)

    def within_edits(self, token: str, edits: int, min_length: int = 0) -> Sequence[str]:
        """A superset of the words of ``min_length`` letters or more within ``edits`` OSA
        edits of ``token``."""
        if not len(self.words) or edits < 1:
            return ()
        lo, hi = self._slice(max(len(token) - edits, min_length), len(token) + edits)
        if lo >= hi:
            return ()
        return self._pick(lo, hi, self._gap(token, lo, hi) <= 2 * edits)

    def _gap(self, token: str, lo: int, hi: int) -> np.ndarray:
        """How many letters each word of the slice uses that ``token`` does not, or back."""
        return np.bitwise_count(self.masks[lo:hi] ^ np.uint32(letter_mask(token)))


def letter_mask(word: str) -> int:
    """One word's :func:`letter_masks` entry, in plain Python (one query token: no arrays).

        >>> bin(letter_mask("abbé"))
        '0b100000000000000000000000011'
    """
    mask = 0
    for ch in word:
        code = ord(ch) - 97
        mask |= 1 << (code if 0 <= code <= 25 else 26)
    return mask


def letter_masks(words: Sequence[str], lengths: np.ndarray) -> np.ndarray:
    """Per word, a bit per letter it uses: bits 0-25 for a-z, bit 26 for any other letter."""
    if not len(words):
        return np.zeros(0, dtype=np.uint32)
    text = "".join(words)
    if text.isascii():
        codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.int64) - 97
    else:
        codes = np.fromiter((ord(ch) - 97 for ch in text), dtype=np.int64, count=len(text))
    codes[(codes < 0) | (codes > 25)] = 26
    bits = np.left_shift(np.uint32(1), codes.astype(np.uint32))
    starts = np.zeros(len(words), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return np.bitwise_or.reduceat(bits, starts).astype(np.uint32)


def tie_order(passages: Sequence[Passage]) -> np.ndarray:
    """Passage ids in list order (then position): how ties and zero-score passages are
    ranked before the versions and recency fixes move versions of one document."""
    n = len(passages)
    keys = [np.arange(n), [p.position for p in passages], [p.order for p in passages]]
    return np.lexsort([np.asarray(k, dtype=np.int64) for k in keys])


@dataclass(eq=False)
class InvertedIndex:
    """Postings, status mask, vocabulary views and tie orders for one passage set."""

    passages: tuple[Passage, ...]
    postings: Postings
    current: np.ndarray  # bool per passage: status is not 'withdrawn'
    unicode: bool = False  # tokens as the unicode fix reads them
    _views: dict[bool, VocabularyView] = field(default_factory=dict, repr=False)
    _order: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _families: VersionFamilies | None = field(default=None, repr=False)
    _doc_numbers: np.ndarray | None = field(default=None, repr=False)
    _family_arrays: FamilyArrays | None = field(default=None, repr=False)
    #: (the index this one was derived from, every word of the documents that differ)
    derived: tuple[InvertedIndex, frozenset[str]] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, passages: Sequence[Passage], unicode: bool = False) -> InvertedIndex:
        passages = tuple(passages)
        current = np.fromiter((p.status != "withdrawn" for p in passages), bool, len(passages))
        split = tokenizer(unicode)
        # Token sets made and dropped one passage at a time: nothing per passage is kept.
        postings = build_postings(split(p.text) for p in passages)
        return cls(passages, postings, current, unicode)

    @property
    def doc_numbers(self) -> np.ndarray:
        """Per passage, a number for its document (to count documents, not passages)."""
        if self._doc_numbers is None:
            numbers: dict[str, int] = {}
            self._doc_numbers = np.fromiter(
                (numbers.setdefault(p.doc_id, len(numbers)) for p in self.passages),
                dtype=np.int64,
                count=len(self.passages),
            )
        return self._doc_numbers

    @property
    def families(self) -> VersionFamilies:
        """The version families of this passage set (worked out once, on first use)."""
        if self._families is None:
            self._families = families_of(self.passages)
        return self._families

    @property
    def family_arrays(self) -> FamilyArrays:
        """The families as per-passage numbers (for the top-k fast path), built once."""
        if self._family_arrays is None:
            self._family_arrays = FamilyArrays.build(
                self.passages, self.families, self.doc_numbers
            )
        return self._family_arrays

    def derive_from(self, base: InvertedIndex, changed: Iterable[str]) -> None:
        """Note that this index is ``base`` with the documents ``changed`` edited, added or
        removed (documents only ``base`` holds count as changed too), so its OCR repair
        tables are worked out from ``base``'s, judging again only the tokens whose readings
        those documents' words touch — equal to a fresh build (``tests/test_stress.py``).

            >>> def p(doc, text): return Passage(doc, text, 1, 1, 0, 0, "page")
            >>> a = InvertedIndex.build([p("a", "x"), p("b", "y")])
            >>> b = InvertedIndex.build([p("a", "x"), p("b", "z")])
            >>> b.derive_from(a, ["b"]); sorted(b.derived[1])
            ['y', 'z']
        """
        words = changed_words(base.passages, self.passages, changed, self.unicode)
        self.derived = (base, words)

    def view(self, status: bool) -> VocabularyView:
        """The eligible vocabulary: every word, or (``status``) words of current passages."""
        if status not in self._views:
            words: Mapping[str, int] | frozenset[str] = self.postings.token_ids
            if status:
                words = frozenset(self._current_words())
            eligible = self.current if status else None
            self._views[status] = VocabularyView(words, self, eligible)
        return self._views[status]

    def _current_words(self) -> Iterable[str]:
        post = self.postings
        if self.current.all() or not post.vocabulary:
            return post.vocabulary if self.current.all() else ()
        hits = np.add.reduceat(self.current[post.passage_ids].astype(np.int64), post.offsets[:-1])
        return (w for w, n in zip(post.vocabulary, hits, strict=True) if n)

    def order(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids in tie order, each id's rank in it)."""
        if self._order is None:
            order = tie_order(self.passages)
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            self._order = (order, rank)
        return self._order

    def rank(self, query: str, fixes: Fixes, k: int | None = None) -> list[RankedPassage]:
        """The eligible passages ranked for ``query`` (only the first ``k`` if given), exactly
        as :func:`ragdash.retrieval.ranking.rank_passages` ranks them. Raises ``QueryError``."""
        tokens = query_tokens(query, fixes.unicode)
        eligible = self.current if fixes.status else None
        if not self.passages or (eligible is not None and not eligible.any()):
            return []
        plan = plan_for(tokens, self.view(fixes.status), fixes)
        scored = self._scores(plan)
        if scored is None:  # a point not in whole units: cannot happen, but stay exact
            return rank_passages(self.passages, query, fixes, self.families)[:k]
        ids, vals = scored
        if eligible is not None:
            keep = eligible[ids]
            ids, vals = ids[keep], vals[keep]
        moving = (fixes.recency or fixes.versions) and not self.families.empty
        if k is not None and not (moving and names_a_version(tokens)):
            reasons: dict[int, str] = {}
            if moving:
                top, reasons = top_moving(
                    self._keys(ids, vals), ids, vals, k, self.family_arrays, self.passages,
                    self.families, fixes.recency, fixes.versions,
                )
            else:
                top = self._first(ids, vals, k)
            top = self._fill(top, ids, eligible, k)
            return self._materialize(plan, top, _values(ids, vals, top), reasons)
        # The whole ranking asked for (or a query naming a version): dense, then the full
        # reorder.
        units = np.zeros(len(self.passages), dtype=np.int64)
        units[ids] = vals
        ranked = self._ranked_ids(units, eligible, None if moving else k)
        reasons = {}
        if moving:
            ordered, reasons = reorder(
                ranked.tolist(), self.passages, lambda pid: int(units[pid]), self.families,
                fixes.recency, fixes.versions, tokens,
            )
            ranked = np.asarray(ordered[:k] if k is not None else ordered, dtype=np.int64)
        return self._materialize(plan, ranked, units, reasons)

    def _keys(self, ids: np.ndarray, vals: np.ndarray) -> np.ndarray:
        """Place keys: higher score first, then tie order (unique; smaller ranks higher)."""
        return -vals * len(self.passages) + self.order()[1][ids]

    def _first(self, ids: np.ndarray, vals: np.ndarray, k: int) -> np.ndarray:
        """The ``k`` best scoring passages in order (a partial selection, then a sort of k)."""
        key = self._keys(ids, vals)
        if len(ids) > k:
            part = np.argpartition(key, k)[:k] if k > 0 else np.zeros(0, dtype=np.int64)
            ids, key = ids[part], key[part]
        return ids[np.argsort(key)]

    def _fill(
        self, top: np.ndarray, ids: np.ndarray, eligible: np.ndarray | None, k: int
    ) -> np.ndarray:
        """``top`` followed by zero-score eligible passages in tie order, up to ``k`` — read
        from the front of the tie order only as far as needed."""
        need = k - len(top)
        if need <= 0:
            return top.astype(np.int64)
        order = self.order()[0]
        found: list[np.ndarray] = []
        start, step = 0, need + len(ids)
        while need > 0 and start < len(order):
            chunk = order[start : start + step]
            if len(ids):
                pos = np.minimum(np.searchsorted(ids, chunk), len(ids) - 1)
                free = ids[pos] != chunk
            else:
                free = np.ones(len(chunk), dtype=bool)
            if eligible is not None:
                free &= eligible[chunk]
            chunk = chunk[free][:need]
            found.append(chunk)
            need -= len(chunk)
            start, step = start + step, step * 2
        return np.concatenate([top.astype(np.int64), *found]).astype(np.int64)

    def _scores(self, plan: QueryPlan) -> tuple[np.ndarray, np.ndarray] | None:
        """The passages that score (ascending ids) and their scores in units: per query
        token, its best option's points. Reads only the postings the plan names: summed by
        sorting them when they are few, in a dense array when they cover much of the
        corpus."""
        parts: list[tuple[np.ndarray, int | np.ndarray]] = []
        for q in plan.tokens:
            options = sorted(plan.candidates[q].values(), key=lambda m: m.points)
            worth = [m.points * UNITS_PER_POINT for m in options]
            if any(abs(w - round(w)) > 1e-6 for w in worth):
                return None
            lists = [self.postings.ids(m.passage_token or "") for m in options]
            if len(lists) == 1:
                parts.append((lists[0], round(worth[0])))
            elif lists:  # a passage with several options counts its best one
                pids = np.concatenate(lists)
                ws = np.concatenate(
                    [np.full(len(x), round(w), dtype=np.int64) for x, w in zip(lists, worth,
                                                                               strict=True)]
                )
                order = np.lexsort((ws, pids))
                pids, ws = pids[order], ws[order]
                last = np.ones(len(pids), dtype=bool)
                last[:-1] = pids[1:] != pids[:-1]
                parts.append((pids[last], ws[last]))
        n = len(self.passages)
        total = sum(len(p) for p, _ in parts)
        if total == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if total > n * DENSE_SHARE:
            units = np.zeros(n, dtype=np.int64)
            for pids, w in parts:
                units[pids] += w
            ids = np.flatnonzero(units > 0)
            return ids, units[ids]
        pids = np.concatenate([p for p, _ in parts]).astype(np.int64)
        ws = np.concatenate(
            [w if isinstance(w, np.ndarray) else np.full(len(p), w, dtype=np.int64)
             for p, w in parts]
        )  # fmt: skip
        if len(parts) > 1:
            order = np.argsort(pids, kind="stable")
            pids, ws = pids[order], ws[order]
            starts = np.flatnonzero(np.r_[True, pids[1:] != pids[:-1]])
            pids, ws = pids[starts], np.add.reduceat(ws, starts)
        keep = ws > 0
        return pids[keep], ws[keep]

    def _ranked_ids(
        self, units: np.ndarray, eligible: np.ndarray | None, k: int | None
    ) -> np.ndarray:
        """Scoring ids by (score desc, tie order), then zero-score ids in tie order."""
        order, rank = self.order()
        scoring = units > 0
        if eligible is not None:
            scoring &= eligible
        ids = np.flatnonzero(scoring)
        key = -units[ids] * len(units) + rank[ids]
        if k is not None and len(ids) > k:
            part = np.argpartition(key, k)[:k]
            ids, key = ids[part], key[part]
        ids = ids[np.argsort(key)]
        need = len(units) if k is None else k - len(ids)
        if need > 0:
            zero = ~scoring[order] if eligible is None else (~scoring & eligible)[order]
            ids = np.concatenate([ids, order[zero][:need]])
        return ids

    def _materialize(
        self,
        plan: QueryPlan,
        ids: np.ndarray,
        units: np.ndarray | Mapping[int, int],
        reasons: Mapping[int, str],
    ) -> list[RankedPassage]:
        nothing = tuple(plan.none(q) for q in plan.tokens)
        # Each token's no-match line is made once (equal frozen values), not per passage.
        choices = [
            (_strongest_first(plan.candidates[q]), none)
            for q, none in zip(plan.tokens, nothing, strict=True)
        ]
        empty = breakdown_score(nothing)
        zero_points = any(m.points == 0 for opts, _ in choices for _, m in opts)
        ranked = []
        for rank, pid in enumerate(ids.tolist(), start=1):
            passage = self.passages[pid]
            moved = reasons.get(pid, "")
            if units[pid] or zero_points:
                tokens = passage.tokens_for(self.unicode)
                breakdown = tuple(_best(opts, none, tokens) for opts, none in choices)
                score = breakdown_score(breakdown)
                ranked.append(RankedPassage(rank, passage, score, breakdown, moved))
            else:
                ranked.append(RankedPassage(rank, passage, empty, nothing, moved))
        return ranked


def _strongest_first(options: Mapping[str, TokenMatch]) -> list[tuple[str, TokenMatch]]:
    """Options in the order :meth:`QueryPlan.best_match` prefers them."""
    return sorted(
        options.items(),
        key=lambda item: (item[1].points, -MatchKind(item[1].kind).preference, item[0]),
        reverse=True,
    )


def _best(
    options: list[tuple[str, TokenMatch]], none: TokenMatch, tokens: frozenset[str]
) -> TokenMatch:
    for word, match in options:
        if word in tokens:
            return match
    return none


def _values(ids: np.ndarray, vals: np.ndarray, wanted: np.ndarray) -> dict[int, int]:
    """The scores of ``wanted`` passages (0 for those not in ``ids``, which is ascending)."""
    if not len(ids):
        return dict.fromkeys(wanted.tolist(), 0)
    pos = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    found = np.where(ids[pos] == wanted, vals[pos], 0)
    return dict(zip(wanted.tolist(), found.tolist(), strict=True))
