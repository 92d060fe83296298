"""Scoring and ranking passages, with each fix an independent switch.

Baseline: one point per distinct query token present in the passage; ties keep list order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from ragdash.errors import QueryError
from ragdash.ingestion.documents import Passage
from ragdash.retrieval.matching import (
    DEFAULT_FUZZY_RULE,
    DEFAULT_THRESHOLD,
    Lexicon,
    MatchSettings,
    QueryPlan,
    TokenMatch,
    check_fuzzy_rule,
    plan_query,
    plan_with_lexicon,
)
from ragdash.retrieval.tokens import DEFAULT_OCR_MAP, tokenize

FIX_NAMES = ("recency", "status", "ocr", "fuzzy", "tables")
FIX_DESCRIPTIONS = {
    "recency": "break score ties by update date, newest first",
    "status": "never retrieve documents whose status is 'withdrawn'",
    "ocr": "normalize OCR digit-for-letter errors (0→o, 1→i) in query and passages",
    "fuzzy": "let a misspelled word match a close spelling (rapidfuzz)",
    "tables": "at ingestion, join table fragments cut by a PDF page break",
}
MAX_QUERY_CHARS = 1000


@dataclass(frozen=True)
class Fixes:
    """Which fixes are on, and their settings."""

    recency: bool = False
    status: bool = False
    ocr: bool = False
    fuzzy: bool = False
    tables: bool = False
    threshold: float = DEFAULT_THRESHOLD
    ocr_map: tuple[tuple[str, str], ...] = tuple(sorted(DEFAULT_OCR_MAP.items()))
    #: one of ``ragdash.retrieval.matching.FUZZY_RULES``; the threshold only counts for ``ratio``
    fuzzy_rule: str = DEFAULT_FUZZY_RULE

    def __post_init__(self) -> None:
        check_fuzzy_rule(self.fuzzy_rule)

    @classmethod
    def none(cls, **settings: object) -> Fixes:
        return cls(**settings)  # type: ignore[arg-type]

    @classmethod
    def all(cls, **settings: object) -> Fixes:
        return cls(**dict.fromkeys(FIX_NAMES, True), **settings)  # type: ignore[arg-type]

    @classmethod
    def parse(cls, spec: str, **settings: object) -> Fixes:
        """Parse ``all``, ``none`` or a comma list such as ``recency,ocr``."""
        spec = spec.strip().lower()
        if spec in ("all", "none", ""):
            return cls.all(**settings) if spec == "all" else cls.none(**settings)
        names = [name.strip() for name in spec.split(",") if name.strip()]
        unknown = [name for name in names if name not in FIX_NAMES]
        if unknown:
            raise ValueError(
                f"unknown fix {', '.join(map(repr, unknown))}; "
                f"choose from {', '.join(FIX_NAMES)}, or all / none"
            )
        return cls(**dict.fromkeys(names, True), **settings)  # type: ignore[arg-type]

    @property
    def enabled(self) -> tuple[str, ...]:
        return tuple(name for name in FIX_NAMES if getattr(self, name))

    @property
    def label(self) -> str:
        """``none``, ``all`` or the comma list — the inverse of :meth:`parse`."""
        on = self.enabled
        if not on:
            return "none"
        return "all" if len(on) == len(FIX_NAMES) else ",".join(on)

    def with_only(self, names: Iterable[str]) -> Fixes:
        """The same settings with exactly ``names`` switched on."""
        chosen = set(names)
        return replace(self, **{name: name in chosen for name in FIX_NAMES})

    @property
    def match_settings(self) -> MatchSettings:
        return MatchSettings(
            self.ocr, self.fuzzy, self.threshold, dict(self.ocr_map), self.fuzzy_rule
        )


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
    return plan_with_lexicon(tokens, lexicon, fixes.match_settings)


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
    plan = plan_query(tokens, vocabulary, fixes.match_settings)
    scored = [(p, *score_passage(p, plan)) for p in pool]
    scored.sort(key=lambda item: sort_key(item[0], item[1], fixes.recency))
    return [RankedPassage(i, p, s, b) for i, (p, s, b) in enumerate(scored, start=1)]
