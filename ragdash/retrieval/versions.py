"""Stale-version detection at ingestion: which documents look like versions of each other?

Two documents form a :class:`VersionPair` when all three hold:

1. **same subject** — their subjects are alike (rapidfuzz ``token_set_ratio`` of the
   lowercased subjects with dates and version numbers removed, at least ``min_subject``), or
   their ids are equal once dates and version numbers are removed (``returns-2024`` and
   ``returns-2026`` both become ``returns``). Plain numbers left in the subjects must be
   equal: ``Report 001`` and ``Report 002`` name two documents, not two versions;
2. **mostly the same words** — the Jaccard overlap of their text's token sets (tokens as the
   retriever sees them, :func:`ragdash.text.tokenize`) is at least ``min_overlap``
   (default 0.5: at least half of all the words either uses are shared. The testbed's two
   return policies share 84%; its unrelated documents at most 20%);
3. **one is older** — their update dates differ (an undated document counts as the oldest,
   as the ``recency`` fix treats it), or, on the same date, one is withdrawn and the other is
   not (the withdrawn one is the older).

Documents with the same date *and* the same status are not reported: that is a duplicate or
a sibling, not a version — there is no older one to point at and neither the ``recency`` nor
the ``status`` fix can separate them, so it belongs to a duplicate check, not here.

Speed — no all-pairs text work. Documents are only compared when their subjects share a
*key* (a subject word's first four letters, with the subject's plain numbers) or their ids
share a base id, so a corpus of distinct subjects costs near-linear time (5,000 synthetic
documents: about 0.8 s on the 2-core test machine, tokenizing included). When a key is shared
by more than :data:`BLOCK_LIMIT` documents (every subject says "Policy"), the subject no
longer narrows anything, and the pairs within that block come from an exact set-similarity
join on the text (prefix filtering, :func:`_overlapping_pairs`) instead of all its pairs:
5,000 documents of real prose under one subject take about 5 s; 5,000 random bags of the
same Zipf-distributed words, which share every mid-frequency word, about 30 s (the worst
case measured). The key is a heuristic: two subjects that differ within the first four
letters of every word (``Retrun plicy``) are not compared unless their ids match.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date

from rapidfuzz import fuzz

from ragdash.ingestion.documents import Corpus, Document
from ragdash.settings import FIX_TITLES
from ragdash.text import tokenize

#: The fixes a version pair's risk names, as every page names them.
RECENCY, SKIP, VERSIONS = FIX_TITLES["recency"], FIX_TITLES["status"], FIX_TITLES["versions"]

__all__ = [
    "BLOCK_LIMIT",
    "DEFAULT_MIN_OVERLAP",
    "DEFAULT_MIN_SUBJECT",
    "VersionPair",
    "find_version_pairs",
    "name_pieces",
    "strip_versions",
]

DEFAULT_MIN_OVERLAP = 0.5
DEFAULT_MIN_SUBJECT = 80.0
#: A subject key shared by more documents than this is not expanded into all its pairs: the
#: pairs are found by the text join within the block instead (see :func:`_candidate_pairs`).
BLOCK_LIMIT = 64

# Dates and version numbers say "which version", not "which document": removed before ids
# and subjects are compared. Years 19xx/20xx with optional month and day (2024, 2024-02,
# 2024-02-01, 20240201) and v2 / v2.1 / version 3 / rev 4.
_DATE = re.compile(
    r"(?<!\d)(?:19|20)\d{2}(?:[-_./]?(?:0[1-9]|1[0-2])(?:[-_./]?(?:0[1-9]|[12]\d|3[01]))?)?(?!\d)"
)
_VERSION = re.compile(r"(?<![a-z0-9])(?:v|ver|version|rev|revision)[-_. ]?\d+(?:[._]\d+)*(?!\d)")
_PIECES = re.compile(r"[a-z]+|[0-9]+")
# Words too common to group subjects by (they still count in the similarity itself).
_KEY_STOPWORDS = frozenset({"the", "and", "for", "with", "from", "your", "our"})


def name_pieces(name: str) -> list[str]:
    """The words and numbers of ``name``, lowercased, with dates and version numbers removed:
    ``Return policy 2024`` → ``["return", "policy"]``, ``policy_v2.1`` → ``["policy"]``,
    ``report-001`` → ``["report", "001"]`` (a plain number is kept: it names a document)."""
    lowered = _VERSION.sub(" ", _DATE.sub(" ", name.lower()))
    return _PIECES.findall(lowered)


def strip_versions(name: str) -> str:
    """``name`` without dates and version numbers, its pieces joined by ``-``:
    ``returns-2024`` → ``returns``. Empty when nothing else is left."""
    return "-".join(name_pieces(name))


@dataclass(frozen=True)
class VersionPair:
    """Two documents that look like an older and a newer version of the same text."""

    older_id: str
    newer_id: str
    subject_similarity: float  # 0-100, token_set_ratio of the version-stripped subjects
    token_overlap: float  # 0-1, Jaccard of the two texts' token sets
    older_updated: date | None
    newer_updated: date | None
    older_status: str
    newer_status: str
    older_order: float  # list order: which one a keyword tie returns when no fix is on
    newer_order: float
    same_base_id: bool = False  # ids equal once dates/version numbers are stripped

    @property
    def undated(self) -> tuple[str, ...]:
        """The ids of the documents in the pair that have no update date."""
        return tuple(
            doc_id
            for doc_id, updated in (
                (self.older_id, self.older_updated),
                (self.newer_id, self.newer_updated),
            )
            if updated is None
        )

    @property
    def sentence(self) -> str:
        """The finding in words, e.g. ``returns-2024 (2024-02-01, withdrawn) looks like an
        older version of returns-2026 (2026-01-05): subjects 100% alike, 84% shared words``."""
        text = (
            f"{self.older_id} ({_when(self.older_updated, self.older_status)}) looks like an "
            f"older version of {self.newer_id} ({_when(self.newer_updated, self.newer_status)}): "
            f"subjects {self.subject_similarity:.0f}% alike"
        )
        if self.same_base_id and self.subject_similarity < 100:
            text += ", same id once dates and version numbers are removed"
        text += f", {self.token_overlap:.0%} shared words"
        if self.older_updated == self.newer_updated:
            text += "; same update date, only the status tells them apart"
        return text

    @property
    def risk(self) -> str:
        """What this pair does to retrieval and which fix or edit removes the risk."""
        parts: list[str] = []
        same_date = self.older_updated == self.newer_updated
        old_first = self.older_order < self.newer_order
        if self.older_status == "withdrawn" and self.newer_status == "withdrawn":
            parts.append(
                f"both are withdrawn: with {FIX_TITLES['status']} on, neither is retrieved"
            )
        elif self.newer_status == "withdrawn":
            parts.append(
                f"the newer one is withdrawn but the older one is current: {RECENCY} and "
                f"{VERSIONS} keep the current one first (a withdrawn version is never the "
                f"newer) — check the statuses, or turn on {SKIP} to drop the withdrawn one"
            )
        else:
            fixes = [
                name
                for name, helps in (
                    (RECENCY, not same_date),
                    (SKIP, self.older_status == "withdrawn"),
                )
                if helps
            ]
            if old_first:
                parts.append(
                    "the old version is listed first: without "
                    f"{' or '.join(fixes)} a tie returns it"
                )
            if self.older_status != "withdrawn":
                parts.append(
                    f"both are current: mark the old one withdrawn or turn on {RECENCY} "
                    f"(ties) or {VERSIONS} (the old one ranks below the new one)"
                )
            if not parts:
                parts.append(
                    "low: the new version is listed first and the old one is withdrawn, "
                    "so a tie already returns the new one"
                )
        for doc_id in self.undated:
            parts.append(
                f"{doc_id} has no update date, so {RECENCY} counts it as the oldest — add one"
            )
        return "; ".join(parts)


def _when(updated: date | None, status: str) -> str:
    day = updated.isoformat() if updated else "undated"
    return day if status == "current" else f"{day}, {status}"


def find_version_pairs(
    corpus: Corpus,
    *,
    min_overlap: float = DEFAULT_MIN_OVERLAP,
    min_subject: float = DEFAULT_MIN_SUBJECT,
) -> list[VersionPair]:
    """Every pair of documents of ``corpus`` that looks like two versions of one text (see
    the module docstring for the three conditions), sorted by the list order of the older
    document, then of the newer one.

    ``min_overlap`` is a Jaccard threshold in (0, 1]; ``min_subject`` a similarity 0-100.
    Raises ``ValueError`` for a threshold out of range.
    """
    if not 0 < min_overlap <= 1:
        raise ValueError(f"min_overlap must be in (0, 1], got {min_overlap}")
    if not 0 <= min_subject <= 100:
        raise ValueError(f"min_subject must be between 0 and 100, got {min_subject}")
    names = [_Name.of(doc) for doc in corpus.documents]
    token_sets = [frozenset(tokenize(doc.text)) for doc in corpus.documents]
    pairs: list[VersionPair] = []
    for i, j in sorted(_candidate_pairs(names, token_sets, min_overlap)):
        a, b = names[i], names[j]
        same_base_id = bool(a.base_id) and a.base_id == b.base_id
        if not same_base_id and a.numbers != b.numbers:
            continue  # "report 001" and "report 002" name two documents, not two versions
        subject = fuzz.token_set_ratio(a.subject, b.subject)
        if subject < min_subject and not same_base_id:
            continue
        overlap = _jaccard(token_sets[i], token_sets[j])
        if overlap < min_overlap:
            continue
        older, newer = _older_first(corpus.documents[i], corpus.documents[j])
        if older is None or newer is None:
            continue  # same date and same status: a duplicate, not a version
        pairs.append(
            VersionPair(
                older.doc_id,
                newer.doc_id,
                round(float(subject), 1),
                round(overlap, 4),
                older.updated,
                newer.updated,
                older.status,
                newer.status,
                older.order,
                newer.order,
                same_base_id,
            )
        )
    pairs.sort(key=lambda p: (p.older_order, p.newer_order, p.older_id, p.newer_id))
    return pairs


@dataclass(frozen=True)
class _Name:
    """A document's subject and id as the subject test compares them."""

    subject: str  # subject pieces without dates and version numbers, space-joined
    numbers: frozenset[str]  # plain numbers left in the subject: they must be equal
    base_id: str  # the id without dates and version numbers
    keys: frozenset[tuple[str, ...]]  # blocking keys: documents sharing none are not compared

    @classmethod
    def of(cls, doc: Document) -> _Name:
        pieces = name_pieces(doc.subject) or [doc.subject.lower()]
        words = [p for p in pieces if not p.isdigit()]
        numbers = frozenset(p for p in pieces if p.isdigit())
        number_key = " ".join(sorted(numbers))
        # A word's first four letters: "return"/"returns" and "policy"/"policies" meet, so
        # subjects alike enough to pass token_set_ratio nearly always share a key (a typo in
        # the first four letters of every word is the exception).
        keyed = [w for w in words if len(w) >= 3 and w not in _KEY_STOPWORDS] or words
        keys: set[tuple[str, ...]] = {("subject", number_key, w[:4]) for w in keyed}
        keys = keys or {("subject", number_key, "")}
        base_id = strip_versions(doc.doc_id)
        if base_id:
            keys.add(("id", base_id))
        return cls(" ".join(pieces), numbers, base_id, frozenset(keys))


def _candidate_pairs(
    names: list[_Name], token_sets: list[frozenset[str]], threshold: float
) -> set[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, worth testing: documents sharing a subject or id
    key. A key shared by more than :data:`BLOCK_LIMIT` documents (a word in every subject,
    subjects all alike) is not expanded into all its pairs: only the pairs the text join
    (:func:`_overlapping_pairs`) finds within it are kept — exact for the overlap test."""
    blocks: dict[tuple[str, ...], list[int]] = {}
    for i, name in enumerate(names):
        for key in name.keys:
            blocks.setdefault(key, []).append(i)
    candidates: set[tuple[int, int]] = set()
    for members in blocks.values():
        if len(members) <= BLOCK_LIMIT:
            candidates.update((a, b) for n, a in enumerate(members) for b in members[n + 1 :])
        else:
            found = _overlapping_pairs([token_sets[m] for m in members], threshold)
            candidates.update((members[a], members[b]) for a, b in found)
    return candidates


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def _older_first(a: Document, b: Document) -> tuple[Document | None, Document | None]:
    if a.updated != b.updated:
        # undated counts as the oldest, exactly as the recency fix orders them
        a_older = a.updated is None or (b.updated is not None and a.updated < b.updated)
        return (a, b) if a_older else (b, a)
    if a.status != b.status:
        return (a, b) if a.status == "withdrawn" else (b, a)
    return None, None


def _overlapping_pairs(token_sets: list[frozenset[str]], threshold: float) -> set[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, whose Jaccard may reach ``threshold``: a superset of
    the true pairs (never missing one), found by prefix filtering (PPJoin).

    Tokens are ordered rarest first. Two sets with Jaccard >= t share at least
    ``o = t/(1+t)·(|x|+|y|)`` tokens, so they share one among the first ``|x| - ceil(t|x|) + 1``
    tokens of the longer set ``x`` (probing prefix) and the first ``|y| - ceil(2t/(1+t)|y|) + 1``
    of the shorter ``y`` (indexed prefix). Sets are taken shortest first, so every earlier set
    is the shorter one; a set shorter than ``t|x|`` can never reach the threshold (length
    filter), and a pair whose prefix matches so far plus the tokens left after the current
    positions cannot reach ``o`` is dropped (positional filter).
    """
    frequency = Counter(token for tokens in token_sets for token in tokens)
    rank = {tok: r for r, tok in enumerate(sorted(frequency, key=lambda w: (frequency[w], w)))}
    share = threshold / (1 + threshold)
    eps = 1e-9  # float slack: a bound that is off by rounding must keep the pair, not drop it
    postings: dict[str, list[tuple[int, int, int]]] = {}  # token -> (set, position, size)
    candidates: set[tuple[int, int]] = set()
    for x in sorted(range(len(token_sets)), key=lambda i: (len(token_sets[i]), i)):
        size = len(token_sets[x])
        if not size:
            continue
        tokens = sorted(token_sets[x], key=rank.__getitem__)
        probe = size - math.ceil(threshold * size - eps) + 1
        indexed = size - math.ceil(2 * share * size - eps) + 1
        shortest = threshold * size - eps
        matches: dict[int, int] = {}  # earlier set -> prefix tokens shared so far (-1: dropped)
        for i, token in enumerate(tokens[:probe]):
            for y, j, y_size in postings.get(token, ()):
                if y_size < shortest:
                    continue
                found = matches.get(y, 0)
                if found < 0:
                    continue
                best = found + 1 + min(size - i - 1, y_size - j - 1)
                matches[y] = found + 1 if best >= share * (size + y_size) - eps else -1
            if i < indexed:
                postings.setdefault(token, []).append((x, i, size))
        candidates.update((y, x) if y < x else (x, y) for y, n in matches.items() if n > 0)
    return candidates
