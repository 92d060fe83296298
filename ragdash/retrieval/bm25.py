"""Okapi BM25 over ragdash's own passages and tokens: the ``bm25`` retriever.

Why it is here: most teams run BM25 (Elasticsearch, OpenSearch, Lucene) or a hybrid with it,
not a 1-point-per-token scorer. Running the four seed flaws against BM25 shows which of them
a real lexical ranker already survives and which it shares.

Scoring is Lucene's (so Elasticsearch's, and the ``bm25s`` library's default ``lucene``
method), per distinct query token ``t`` found in passage ``p``::

    idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(p, t) = idf(t) * tf / (tf + k1 * (1 - b + b * len(p) / avg_len))

with ``tf`` the count of ``t`` in ``p``, ``len`` the passage's token count, ``N`` the
passages in the index and ``df`` how many hold ``t``. E.g. a token in 1 of 3 passages, twice
in a passage of average length, k1=1.2, b=0.75: ``0.981 * 2 / (2 + 1.2) = 0.613``.

Tokens are the seed's (``[a-z0-9]+``, lowercase). Postings come from
:func:`ragdash.retrieval.inverted.build_postings` with term frequencies alongside, so a query
touches only its tokens' postings. Fixes apply as :data:`ragdash.retrieval.spec.FIX_SUPPORT`
says: ``tables`` picks the passage set, ``status`` leaves withdrawn passages out of the index
(as re-indexing the exported passages would), ``ocr`` normalizes passage and query tokens,
``fuzzy`` repairs the query's misspelled words, ``recency`` breaks score ties by date.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain

import numpy as np

from ragdash.ingestion.documents import Corpus, Passage
from ragdash.retrieval.families import VersionFamilies, families_of, reorder
from ragdash.retrieval.hits import Retrieval
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.inverted import (
    Postings,
    build_postings,
    postings_from_ids,
    postings_with_order,
    stable_order,
    tie_order,
)
from ragdash.retrieval.matching import (
    MatchKind,
    SetLexicon,
    TokenMatch,
    repair_memo_for,
    repairs_for,
)
from ragdash.retrieval.ocr import RepairMemo, RepairTable
from ragdash.retrieval.query_repair import repair_query
from ragdash.retrieval.ranking import RankedPassage, eligible_passages, query_tokens
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import Fixes
from ragdash.text import normalize_ocr, tokenizer

__all__ = ["Bm25Index", "Bm25Retriever", "bm25_idf"]

#: Scores are rounded to this many decimals so float noise never breaks a tie.
SCORE_DECIMALS = 6


def bm25_idf(n: int, df: int) -> float:
    """Lucene's always-positive BM25 idf: ``ln(1 + (N - df + 0.5) / (df + 0.5))``."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


@dataclass(frozen=True, eq=False)
class Bm25Index:
    """Term-frequency postings of one passage set (CSR: ``tf`` is aligned with
    ``postings.passage_ids``), each passage's token count and their average."""

    passages: tuple[Passage, ...]
    postings: Postings
    tf: np.ndarray
    lengths: np.ndarray
    avg_length: float
    #: The OCR fix's rewrites (``ocr`` on), as the seed scorer makes them; ``None`` otherwise.
    repairs: RepairTable | None = None
    #: The judged OCR candidates behind ``repairs`` (:meth:`from_counts`), for a variant's
    #: index to start from.
    repair_memo: RepairMemo | None = field(default=None, repr=False)

    @classmethod
    def build(cls, passages: Sequence[Passage], fixes: Fixes | None = None) -> Bm25Index:
        """Index ``passages`` with the tokenizer ``fixes.unicode`` picks; with ``fixes.ocr``
        each token the OCR fix would repair (with corpus evidence, see
        :mod:`ragdash.retrieval.ocr`) is indexed as its repaired word."""
        fixes = fixes or Fixes()
        split = tokenizer(fixes.unicode)
        token_lists = [split(p.text) for p in passages]
        repairs = None
        if fixes.ocr:
            docs_of: dict[str, set[str]] = {}
            for p, tokens in zip(passages, token_lists, strict=True):
                for token in set(tokens):
                    docs_of.setdefault(token, set()).add(p.doc_id)
            repairs = repairs_for(docs_of, lambda w: len(docs_of.get(w, ())), fixes)
            fixed = repairs.repairs
            token_lists = [[fixed[t].word if t in fixed else t for t in ts] for ts in token_lists]
        counters = [Counter(tokens) for tokens in token_lists]
        keys = [tuple(c) for c in counters]
        postings = build_postings(keys)  # type: ignore[arg-type]  # any sized token sequences
        flat = list(chain.from_iterable(keys))
        counts = np.fromiter(chain.from_iterable(c.values() for c in counters), np.int64, len(flat))
        tids = np.fromiter(map(postings.token_ids.__getitem__, flat), np.int32, len(flat))
        tf = counts[stable_order(tids)]  # the order build_postings sorts ids in
        lengths = np.array([sum(c.values()) for c in counters], dtype=np.float64)
        avg = float(lengths.mean()) if len(lengths) and lengths.sum() else 1.0
        return cls(tuple(passages), postings, tf, lengths, avg, repairs)

    @classmethod
    def from_counts(
        cls,
        passages: Sequence[Passage],
        flat: np.ndarray,
        counts: np.ndarray,
        lengths: np.ndarray,
        words: Sequence[str],
        fixes: Fixes | None = None,
        repair_base: tuple[RepairMemo, Collection[str]] | None = None,
    ) -> Bm25Index:
        """The index :meth:`build` makes, from passages already tokenized: passage ``i``'s
        distinct tokens in first-seen order are the next ``lengths[i]`` entries of ``flat``
        (ids into ``words``), ``counts`` how often each occurs. Why: a faulted corpus shares
        all but a few passages with the clean one, whose token counts are kept, so only the
        changed passages are tokenized again (``tests/test_stress.py`` proves the two equal).
        ``repair_base`` (another passage set's ``repair_memo`` and every word of the documents
        that differ) lets the OCR fix judge again only the tokens those words touch.

            >>> bm = Bm25Index.from_counts([], np.zeros(0), np.zeros(0), np.zeros(0), [])
            >>> len(bm.passages), bm.avg_length
            (0, 1.0)
        """
        fixes = fixes or Fixes()
        flat = np.asarray(flat, dtype=np.int64)
        counts = np.asarray(counts, dtype=np.int64)
        lengths = np.asarray(lengths, dtype=np.int64)
        repairs, memo = None, None
        if fixes.ocr:
            owners = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
            raw = postings_from_ids(flat, lengths, words)
            per_word = _documents_per_token(raw, passages)
            docs_of = dict(zip(raw.vocabulary, per_word.tolist(), strict=True))
            base, dirty = repair_base or (None, ())
            memo = repair_memo_for(docs_of, lambda w: docs_of.get(w, 0), fixes, base, dirty)
            repairs = memo.table()
            words, ids = list(words), {w: i for i, w in enumerate(words)}
            target = list(range(len(words)))
            for bad, repair in repairs.repairs.items():
                if bad in ids:
                    if repair.word not in ids:
                        ids[repair.word] = len(words)
                        words.append(repair.word)
                        target.append(len(target))
                    target[ids[bad]] = ids[repair.word]
            mapped = np.asarray(target, dtype=np.int64)[flat]
            # a passage's repaired tokens merge with their word: first place kept, counts
            # summed — only in passages where a token was rewritten (the rest are unchanged)
            rewritten = np.zeros(len(lengths), dtype=bool)
            rewritten[owners[mapped != flat]] = True
            touched = rewritten[owners]
            key = owners[touched] * max(len(words), 1) + mapped[touched]
            _, first, where = np.unique(key, return_index=True, return_inverse=True)
            summed = np.bincount(where.ravel(), weights=counts[touched]).astype(np.int64)
            at = np.flatnonzero(touched)
            keep = np.ones(len(flat), dtype=bool)
            keep[at] = False
            keep[at[first]] = True
            counts = counts.copy()
            counts[at[first]] = summed
            flat, counts, owners = mapped[keep], counts[keep], owners[keep]
            lengths = np.bincount(owners, minlength=len(lengths)).astype(np.int64)
        postings, order = postings_with_order(flat, lengths, words)
        sizes = np.bincount(
            np.repeat(np.arange(len(lengths)), lengths), weights=counts, minlength=len(lengths)
        ).astype(np.float64)
        avg = float(sizes.mean()) if len(sizes) and sizes.sum() else 1.0
        return cls(tuple(passages), postings, counts[order], sizes, avg, repairs, memo)

    @cached_property
    def lexicon(self) -> SetLexicon:
        """The indexed words, for query repair (its fuzzy pools are built once)."""
        return SetLexicon(frozenset(self.postings.vocabulary))

    @cached_property
    def tie_rank(self) -> np.ndarray:
        """Each passage's place in the tie order (list order, then position)."""
        order = tie_order(self.passages)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    @cached_property
    def families(self) -> VersionFamilies:
        """Version families of these passages, for the ``recency`` and ``versions`` fixes."""
        return families_of(self.passages)

    def idf(self, token: str) -> float:
        return bm25_idf(len(self.passages), len(self.term_frequencies(token)[0]))

    def term_frequencies(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        """(passage ids holding ``token``, its count in each). With the OCR fix, damaged
        tokens no document spells correctly (``ss0``) count as the query word that reads
        them (``sso``): the query is their evidence, as for the seed scorer."""
        terms = [token]
        if self.repairs is not None:
            terms += [raw for raw, _ in self.repairs.unsupported.get(token, ())]
        parts = [self._postings(t) for t in terms]
        parts = [(ids, tf) for ids, tf in parts if len(ids)]
        if not parts:
            return self.postings.passage_ids[:0], self.tf[:0]
        if len(parts) == 1:
            return parts[0]
        ids = np.concatenate([i for i, _ in parts])
        tfs = np.concatenate([t for _, t in parts])
        unique, where = np.unique(ids, return_inverse=True)
        return unique, np.bincount(where, weights=tfs).astype(np.int64)

    def _postings(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        t = self.postings.token_ids.get(token)
        if t is None:
            return self.postings.passage_ids[:0], self.tf[:0]
        lo, hi = self.postings.offsets[t], self.postings.offsets[t + 1]
        return self.postings.passage_ids[lo:hi], self.tf[lo:hi]

    def scores(self, tokens: Sequence[str], k1: float, b: float) -> np.ndarray:
        """Every passage's BM25 score for the distinct ``tokens``."""
        scores = np.zeros(len(self.passages), dtype=np.float64)
        for token in dict.fromkeys(tokens):
            ids, tf = self.term_frequencies(token)
            if not len(ids):
                continue
            norm = k1 * (1 - b + b * self.lengths[ids] / self.avg_length)
            scores[ids] += self.idf(token) * tf / (tf + norm)
        return np.round(scores, SCORE_DECIMALS)

    def contribution(self, token: str, pid: int, k1: float, b: float) -> tuple[int, float, float]:
        """(tf, idf, points) of ``token`` in passage ``pid`` — one line of a breakdown."""
        ids, tf = self.term_frequencies(token)
        hit = np.flatnonzero(ids == pid)
        if not len(hit):
            return 0, self.idf(token), 0.0
        count = int(tf[hit[0]])
        norm = k1 * (1 - b + b * self.lengths[pid] / self.avg_length)
        idf = self.idf(token)
        return count, idf, float(idf * count / (count + norm))


class Bm25Retriever:
    """BM25 over a :class:`CorpusIndex`'s passages; one :class:`Bm25Index` per passage set
    (tables fix off/on × status filter × OCR map), built on first use and kept."""

    def __init__(self, index: CorpusIndex, spec: RetrieverSpec | None = None) -> None:
        self.index = index
        self.spec = spec or RetrieverSpec("bm25")
        self._built: dict[tuple, Bm25Index] = {}

    def bm25_index(self, fixes: Fixes) -> Bm25Index:
        ocr = (fixes.ocr_map, fixes.protected) if fixes.ocr else None
        key = (fixes.tables, fixes.status, fixes.unicode, ocr)
        if key not in self._built:
            pool = eligible_passages(self.index.passages(fixes.tables), fixes)
            self._built[key] = Bm25Index.build(pool, fixes)
        return self._built[key]

    def retrieve(self, query: str, fixes: Fixes, k: int | None = None) -> Retrieval:
        """The passages ranked by BM25 (only the first ``k`` if given); ties by
        :func:`ragdash.retrieval.ranking.sort_key` (recency with that fix, then list order).
        Raises ``QueryError`` for a query that cannot be run."""
        bm = self.bm25_index(fixes)
        repaired = repair_query(query, fixes, bm.lexicon)
        original = query_tokens(query, fixes.unicode)
        tokens = query_tokens(repaired.text, fixes.unicode)
        scores = bm.scores(tokens, self.spec.k1, self.spec.b)
        # best score first, ties in list order; then versions/recency move versions of one
        # document among the places they hold, as for the seed scorer
        order = np.lexsort((bm.tie_rank, -scores)).tolist()
        reasons: dict[int, str] = {}
        if (fixes.recency or fixes.versions) and not bm.families.empty:
            order, reasons = reorder(
                order, bm.passages, lambda pid: float(scores[pid]), bm.families,
                fixes.recency, fixes.versions, tokens,
            )  # fmt: skip
        if k is not None:
            order = order[: max(k, 0)]
        pairs = _token_pairs(original, tokens, repaired.changes, fixes.substitutions)
        ranked = tuple(
            RankedPassage(
                rank,
                bm.passages[i],
                float(scores[i]),
                self.breakdown(bm, pairs, i),
                reasons.get(i, ""),
            )
            for rank, i in enumerate(order, start=1)
        )
        notes: tuple[str, ...] = ()
        if repaired.changes:
            notes = (f"query repaired: {', '.join(repaired.changes)}",)
        notes += repaired.notes
        return Retrieval(ranked, repaired.text, notes)

    def breakdown(
        self, bm: Bm25Index, pairs: Sequence[tuple[str, str, str, MatchKind]], pid: int
    ) -> tuple[TokenMatch, ...]:
        """Per query token: its BM25 points in passage ``pid``, with tf and idf in the note."""
        lines = []
        length = int(bm.lengths[pid])
        for original, token, change, kind in pairs:
            tf, idf, points = bm.contribution(token, pid, self.spec.k1, self.spec.b)
            note = f"tf {tf} · idf {idf:.3f} · length {length}/{bm.avg_length:.1f}"
            if change:
                note = f"{change}; {note}"
            if not tf:
                lines.append(TokenMatch(original, None, MatchKind.NONE, 0.0, 0.0, note))
                continue
            lines.append(TokenMatch(original, token, kind, 100.0, round(float(points), 4), note))
        return tuple(lines)

    @property
    def corpus(self) -> Corpus:
        return self.index.corpus

    def top(self, query: str, fixes: Fixes, k: int) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes, k).ranked)

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes).ranked)


def _documents_per_token(postings: Postings, passages: Sequence[Passage]) -> np.ndarray:
    """How many documents hold each token of ``postings``. When each document's passages
    are contiguous (as ingestion lists them) a token's documents are counted where its
    ascending passage ids change document; otherwise by sorting (token, document) pairs."""
    numbers: dict[str, int] = {}
    docs = np.fromiter((numbers.setdefault(p.doc_id, len(numbers)) for p in passages),
                       dtype=np.int64, count=len(passages))  # fmt: skip
    vocabulary = len(postings.vocabulary)
    if not vocabulary:
        return np.zeros(0, dtype=np.int64)
    owners = docs[postings.passage_ids]
    if np.all(docs[1:] >= docs[:-1]):  # numbered in order, so contiguous documents
        first = np.ones(len(owners), dtype=np.int64)
        first[1:] = owners[1:] != owners[:-1]
        first[postings.offsets[:-1]] = 1  # each token's first passage opens a document
        return np.add.reduceat(first, postings.offsets[:-1])
    tids = np.repeat(np.arange(vocabulary, dtype=np.int64), np.diff(postings.offsets))
    pairs = np.unique(tids * max(len(numbers), 1) + owners)
    return np.bincount(pairs // max(len(numbers), 1), minlength=vocabulary)


def _token_pairs(
    original: Sequence[str],
    repaired: Sequence[str],
    changes: Sequence[str],
    subs: Mapping[str, str],
) -> list[tuple[str, str, str, MatchKind]]:
    """(query token as typed, token scored, change, how it matched) per distinct scored
    token: the repair maps each typed token to one word, so they line up."""
    mapping = dict(c.split(" → ", 1) for c in changes)
    pairs, seen = [], set()
    for token in original:
        new = mapping.get(token, token)
        if new in seen:
            continue
        seen.add(new)
        if new == token:
            pairs.append((token, new, "", MatchKind.EXACT))
        else:
            kind = MatchKind.OCR if normalize_ocr(token, subs) == new else MatchKind.FUZZY
            pairs.append((token, new, f"{token} → {new}", kind))
    return pairs or [(t, t, "", MatchKind.EXACT) for t in repaired]
