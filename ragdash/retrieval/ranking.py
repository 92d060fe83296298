"""Scoring and ranking passages, with each fix an independent switch.

``Fixes``, ``FIX_NAMES`` and ``FIX_DESCRIPTIONS`` live in :mod:`ragdash.settings` and are
re-exported here for the modules that rank.

Baseline: one point per distinct query token present in the passage; ties keep list order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from ragdash.errors import QueryError
from ragdash.ingestion.documents import Passage
from ragdash.retrieval.matching import Lexicon, QueryPlan, TokenMatch, plan_query, plan_with_lexicon
from ragdash.retrieval.tokens import tokenize
from ragdash.settings import Fixes

MAX_QUERY_CHARS = 1000


@dataclass(frozen=True)
class RankedPassage:
    """A passage with its rank (1-based), score and per-token breakdown."""

    rank: int
    passage: Passage
    score: float
    breakdown: tuple[TokenMatch, ...] = field(default=())

    @property
    def doc_id(self) -> str:
        return self.passage.doc_id


def query_tokens(query: str) -> list[str]:
    """The distinct tokens of a query, in order. Raises :class:`QueryError` for a query
    that is empty, has no letters or digits, or is too long."""
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(f"query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}")
    tokens = list(dict.fromkeys(tokenize(query)))
    if not tokens:
        raise QueryError("query is empty: type some words (letters or digits)")
    return tokens


def eligible_passages(passages: Iterable[Passage], fixes: Fixes) -> list[Passage]:
    """The passages the retriever may return: with ``status`` on, withdrawn ones are out."""
    if fixes.status:
        return [p for p in passages if p.status != "withdrawn"]
    return list(passages)


def score_passage(passage: Passage, plan: QueryPlan) -> tuple[float, tuple[TokenMatch, ...]]:
    """The passage's score under ``plan`` and the breakdown, one line per query token."""
    breakdown = tuple(plan.best_match(token, passage.tokens) for token in plan.tokens)
    return breakdown_score(breakdown), breakdown


def breakdown_score(breakdown: Sequence[TokenMatch]) -> float:
    """A passage's score: the points of its breakdown, summed in query order."""
    return round(sum(m.points for m in breakdown), 6)


def plan_for(tokens: Sequence[str], lexicon: Lexicon, fixes: Fixes) -> QueryPlan:
    """The query plan of ``tokens`` under ``fixes`` against an index's vocabulary."""
    return plan_with_lexicon(tokens, lexicon, fixes)


def sort_key(passage: Passage, score: float, recency: bool) -> tuple:
    """Higher score first; with ``recency`` newer documents win ties (undated = oldest);
    then list order and position within the document."""
    age = 0
    if recency:
        age = -(passage.updated or date.min).toordinal()
    return (-score, age, passage.order, passage.position)


def rank_passages(passages: Sequence[Passage], query: str, fixes: Fixes) -> list[RankedPassage]:
    """Rank every eligible passage for ``query`` (best first). Raises :class:`QueryError`."""
    tokens = query_tokens(query)
    pool = eligible_passages(passages, fixes)
    vocabulary = set().union(*(p.tokens for p in pool)) if pool else set()
    plan = plan_query(tokens, vocabulary, fixes)
    scored = [(p, *score_passage(p, plan)) for p in pool]
    scored.sort(key=lambda item: sort_key(item[0], item[1], fixes.recency))
    return [RankedPassage(i, p, s, b) for i, (p, s, b) in enumerate(scored, start=1)]
