"""Scoring and ranking passages, with each fix an independent switch.

``Fixes``, ``FIX_NAMES`` and ``FIX_DESCRIPTIONS`` live in :mod:`ragdash.settings` and are
re-exported here for the modules that rank.

Baseline: one point per distinct query token present in the passage; ties keep list order.
Passages that score nothing are still listed (after the others, in list order), so the
seed's baseline ranking is reproduced exactly; the proof check and the pages treat them as
"no passage matched", never as a winner (:attr:`RankedPassage.matched`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ragdash.errors import QueryError
from ragdash.ingestion.documents import Passage
from ragdash.retrieval.families import VersionFamilies, families_of, reorder
from ragdash.retrieval.matching import Lexicon, QueryPlan, TokenMatch, plan_query, plan_with_lexicon
from ragdash.settings import Fixes
from ragdash.text import tokenizer

__all__ = [
    "MAX_QUERY_CHARS",
    "RankedPassage",
    "breakdown_score",
    "document_frequencies",
    "eligible_passages",
    "plan_for",
    "query_tokens",
    "rank_passages",
    "score_passage",
    "sort_key",
]

MAX_QUERY_CHARS = 1000


@dataclass(frozen=True)
class RankedPassage:
    """A passage with its rank (1-based), score and per-token breakdown."""

    rank: int
    passage: Passage
    score: float
    breakdown: tuple[TokenMatch, ...] = field(default=())
    moved: str = ""  # why the versions or recency fix moved it, naming the other version
    #: A team's retriever returned it: it is retrieved whatever its score says (a distance
    #: shown as a similarity, a reranker's negative logit) — only ragdash's own scorers list
    #: passages that matched nothing.
    returned: bool = False

    @property
    def doc_id(self) -> str:
        return self.passage.doc_id

    @property
    def matched(self) -> bool:
        """False when no query token matched: such a passage is listed, never retrieved.
        A hit a team's retriever returned always matched: "no passage matched" means the
        service returned nothing."""
        return self.returned or self.score > 0


def query_tokens(query: str, unicode: bool = False) -> list[str]:
    """The distinct tokens of a query, in order (``unicode``: as the unicode fix reads
    them). Raises :class:`QueryError` for a query that is empty, has no letters or digits,
    or is too long."""
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(f"query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}")
    tokens = list(dict.fromkeys(tokenizer(unicode)(query)))
    if not tokens:
        raise QueryError("query is empty: type some words (letters or digits)")
    return tokens


def eligible_passages(passages: Iterable[Passage], fixes: Fixes) -> list[Passage]:
    """The passages the retriever may return: with ``status`` on, withdrawn ones are out."""
    if fixes.status:
        return [p for p in passages if p.status != "withdrawn"]
    return list(passages)


def score_passage(
    passage: Passage, plan: QueryPlan, unicode: bool = False
) -> tuple[float, tuple[TokenMatch, ...]]:
    """The passage's score under ``plan`` and the breakdown, one line per query token."""
    tokens = passage.tokens_for(unicode)
    breakdown = tuple(plan.best_match(token, tokens) for token in plan.tokens)
    return breakdown_score(breakdown), breakdown


def breakdown_score(breakdown: Sequence[TokenMatch]) -> float:
    """A passage's score: the points of its breakdown, summed in query order."""
    return round(sum(m.points for m in breakdown), 6)


def plan_for(tokens: Sequence[str], lexicon: Lexicon, fixes: Fixes) -> QueryPlan:
    """The query plan of ``tokens`` under ``fixes`` against an index's vocabulary."""
    return plan_with_lexicon(tokens, lexicon, fixes)


def sort_key(passage: Passage, score: float) -> tuple:
    """Higher score first, then list order and position within the document. (The
    ``recency`` and ``versions`` fixes then move versions of one document among the places
    they hold: :func:`ragdash.retrieval.families.reorder`.)"""
    return (-score, passage.order, passage.position)


def document_frequencies(passages: Iterable[Passage], unicode: bool = False) -> dict[str, int]:
    """Token → how many documents use it (the OCR fix's evidence)."""
    seen: dict[str, set[str]] = {}
    for p in passages:
        for token in p.tokens_for(unicode):
            seen.setdefault(token, set()).add(p.doc_id)
    return {token: len(docs) for token, docs in seen.items()}


def rank_passages(
    passages: Sequence[Passage],
    query: str,
    fixes: Fixes,
    families: VersionFamilies | None = None,
) -> list[RankedPassage]:
    """Rank every eligible passage for ``query`` (best first). Raises :class:`QueryError`.

    The reference scorer: plain and direct, what the inverted index is tested against.
    ``families`` are the version families of ``passages`` (worked out when needed)."""
    tokens = query_tokens(query, fixes.unicode)
    pool = eligible_passages(passages, fixes)
    plan = plan_query(tokens, document_frequencies(pool, fixes.unicode), fixes)
    scored = [(p, *score_passage(p, plan, fixes.unicode)) for p in pool]
    scored.sort(key=lambda item: sort_key(item[0], item[1]))
    ids = list(range(len(scored)))
    reasons: dict[int, str] = {}
    if fixes.recency or fixes.versions:
        families = families if families is not None else families_of(passages)
        ids, reasons = reorder(
            ids, [p for p, _, _ in scored], lambda i: scored[i][1], families,
            fixes.recency, fixes.versions, tokens,
        )
    return [
        RankedPassage(rank, scored[i][0], scored[i][1], scored[i][2], reasons.get(i, ""))
        for rank, i in enumerate(ids, start=1)
    ]
