"""How a query token finds a passage token: exactly, after OCR normalization, or fuzzily.

A :class:`QueryPlan` is worked out once per query against the vocabulary of the passages
being ranked, so fuzzy candidates are searched over distinct words (rapidfuzz
``process.extract``), never over every passage.

Fuzzy rules (:data:`FUZZY_RULES`): ``ratio`` matches words whose rapidfuzz ``fuzz.ratio``
reaches a threshold; the edit presets ``es-auto`` and ``typos-5-9`` allow a number of edits
that depends on the query token's length (:func:`max_edits`), counted as optimal string
alignment distance (insert, delete, substitute, swap two adjacent letters = one edit each).
Whatever the rule, a fuzzy match scores its ``fuzz.ratio``/100.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from ragdash.errors import SettingsError
from ragdash.retrieval.tokens import normalize_ocr
from ragdash.settings import (
    DEFAULT_FUZZY_RULE,
    EDIT_RULES,
    FUZZY_RULES,
    Fixes,
)


class MatchKind(StrEnum):
    """How a query token matched a passage token — the one preference order, strongest
    first, used by matching, the index, highlighting, comparison and the colors. A fuzzy
    match scores its similarity (below 1 point), so between equal points the stronger kind
    wins: ``sorted(kinds, key=lambda k: k.preference)`` puts exact before OCR before fuzzy.
    Members are strings (``MatchKind.EXACT == "exact"``), so JSON and tables show the word.
    """

    EXACT = "exact"
    OCR = "ocr"
    FUZZY = "fuzzy"
    NONE = "none"

    @property
    def preference(self) -> int:
        """0 for the strongest kind (exact); :attr:`NONE` last."""
        return _PREFERENCE[self]

    @classmethod
    def matched(cls) -> tuple[MatchKind, ...]:
        """The kinds that are a match (all but :attr:`NONE`), strongest first."""
        return tuple(k for k in cls if k is not cls.NONE)


_PREFERENCE = {kind: i for i, kind in enumerate(MatchKind)}
#: Fuzzy matching ignores shorter tokens: at 3 letters almost everything is "one typo away".
FUZZY_MIN_LENGTH = 4


@dataclass(frozen=True)
class TokenMatch:
    """One line of a score breakdown: a query token and what it matched in a passage."""

    query_token: str
    passage_token: str | None
    kind: MatchKind
    similarity: float  # 0-100; 100 for exact and OCR matches
    points: float
    note: str = ""  # e.g. "enterpr1se → enterprise" for an OCR-normalized match


def check_fuzzy_rule(rule: str) -> None:
    """Raise :class:`SettingsError` naming the choices unless ``rule`` is a fuzzy rule."""
    if rule not in FUZZY_RULES:
        raise SettingsError(f"unknown fuzzy rule {rule!r}; choose from {', '.join(FUZZY_RULES)}")


def max_edits(rule: str, length: int) -> int:
    """How many edits an edit preset allows a query token of ``length`` letters (0: the
    token must match exactly). Raises ``ValueError`` for ``ratio`` or an unknown rule."""
    if rule not in EDIT_RULES:
        check_fuzzy_rule(rule)
        raise ValueError(f"fuzzy rule {rule!r} is not an edit-distance rule")
    one, two = EDIT_RULES[rule]
    return 0 if length < one else 1 if length < two else 2


def fuzzy_min_length(rule: str = DEFAULT_FUZZY_RULE) -> int:
    """The shortest token (and word) ``rule`` may match fuzzily."""
    check_fuzzy_rule(rule)
    return EDIT_RULES[rule][0] if rule in EDIT_RULES else FUZZY_MIN_LENGTH


def fuzzy_eligible(token: str, rule: str = DEFAULT_FUZZY_RULE) -> bool:
    """Fuzzy matching is for words: long enough for ``rule`` and free of digits (numbers and
    codes must match exactly — ``10`` is not a typo of ``100``)."""
    return len(token) >= fuzzy_min_length(rule) and token.isalpha()


def fuzzy_similarity(a: str, b: str) -> float:
    """Normalized Indel similarity, 0-100 (rapidfuzz ``fuzz.ratio``)."""
    return float(fuzz.ratio(a, b))


@dataclass(frozen=True)
class QueryPlan:
    """For each distinct query token, the passage tokens that would match it and how."""

    tokens: tuple[str, ...]
    candidates: Mapping[str, Mapping[str, TokenMatch]]

    def best_match(self, query_token: str, passage_tokens: frozenset[str]) -> TokenMatch:
        """The strongest match of ``query_token`` among a passage's tokens."""
        options = self.candidates.get(query_token, {})
        best: TokenMatch | None = None
        if len(options) <= len(passage_tokens):
            found = (m for tok, m in options.items() if tok in passage_tokens)
        else:
            found = (options[tok] for tok in passage_tokens if tok in options)
        for match in found:
            if best is None or _stronger(match, best):
                best = match
        return best or TokenMatch(query_token, None, MatchKind.NONE, 0.0, 0.0)


def _stronger(a: TokenMatch, b: TokenMatch) -> bool:
    return (a.points, -MatchKind(a.kind).preference, a.passage_token or "") > (
        b.points,
        -MatchKind(b.kind).preference,
        b.passage_token or "",
    )


class Lexicon(Protocol):
    """The words a query may match, with the lookups fuzzy and OCR matching need."""

    def __contains__(self, word: object) -> bool: ...

    def ocr_variants(self, normal: str, subs: Mapping[str, str]) -> Iterable[str]:
        """Words whose OCR normalization is ``normal`` (and differs from the word)."""
        ...

    def fuzzy_matches(self, token: str, threshold: float) -> list[tuple[str, float]]:
        """Fuzzy-eligible words at or above ``threshold``, with their similarity."""
        ...

    def edit_matches(self, token: str, edits: int, min_length: int) -> list[tuple[str, float]]:
        """Letters-only words of at least ``min_length`` letters within ``edits`` OSA edits
        of ``token``, with their ``fuzz.ratio`` similarity."""
        ...


@dataclass
class SetLexicon:
    """A :class:`Lexicon` over a plain set of words; lookups are worked out on first use."""

    words: AbstractSet[str]
    _by_normal: dict[tuple[tuple[str, str], ...], dict[str, set[str]]] = field(
        default_factory=dict, repr=False
    )
    _pool: list[str] | None = field(default=None, repr=False)
    _letter_words: list[str] | None = field(default=None, repr=False)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def ocr_variants(self, normal: str, subs: Mapping[str, str]) -> Iterable[str]:
        key = tuple(sorted(subs.items()))
        if key not in self._by_normal:
            self._by_normal[key] = ocr_groups(self.words, subs)
        return self._by_normal[key].get(normal, ())

    def fuzzy_matches(self, token: str, threshold: float) -> list[tuple[str, float]]:
        if self._pool is None:
            self._pool = sorted(w for w in self.words if fuzzy_eligible(w))
        return extract_fuzzy(token, self._pool, threshold)

    def edit_matches(self, token: str, edits: int, min_length: int) -> list[tuple[str, float]]:
        if self._letter_words is None:
            self._letter_words = sorted(w for w in self.words if w.isalpha())
        words = [w for w in self._letter_words if len(w) >= min_length]
        return extract_edits(token, words, edits)


def extract_fuzzy(token: str, words: Sequence[str], threshold: float) -> list[tuple[str, float]]:
    """Every word of ``words`` whose ``fuzz.ratio`` with ``token`` reaches ``threshold``."""
    found = process.extract(token, words, scorer=fuzz.ratio, score_cutoff=threshold, limit=None)
    return [(word, float(score)) for word, score, _ in found]


def extract_edits(token: str, words: Sequence[str], edits: int) -> list[tuple[str, float]]:
    """Every word of ``words`` within ``edits`` OSA edits of ``token`` (a swap of adjacent
    letters is one edit), with its ``fuzz.ratio`` similarity."""
    if edits < 1:
        return []
    found = process.extract(token, words, scorer=OSA.distance, score_cutoff=edits, limit=None)
    return [(word, fuzzy_similarity(token, word)) for word, _, _ in found]


def ocr_groups(words: Iterable[str], subs: Mapping[str, str]) -> dict[str, set[str]]:
    """Normalized form → the words that normalize to it (only words the map changes)."""
    groups: dict[str, set[str]] = defaultdict(set)
    for word in words:
        normal = normalize_ocr(word, subs)
        if normal != word:
            groups[normal].add(word)
    return dict(groups)


def plan_query(
    query_tokens: Iterable[str], vocabulary: Iterable[str], settings: Fixes
) -> QueryPlan:
    """Work out every way each query token can match a word of ``vocabulary``.

    Exact matches score 1. With ``ocr``, tokens whose cautious normalizations are equal
    score 1 too. With ``fuzzy``, a query token that matches no word of the vocabulary
    exactly (or after OCR normalization) may match words close enough under the fuzzy
    rule (``ratio``: at or above the threshold; an edit preset: within the edits it allows
    for the token's length), scoring similarity/100 — so a near-spelling never outweighs
    an exact match, and a correctly spelled query ranks exactly as it does with fuzzy off.
    """
    return plan_with_lexicon(query_tokens, SetLexicon(set(vocabulary)), settings)


def plan_with_lexicon(query_tokens: Iterable[str], lexicon: Lexicon, settings: Fixes) -> QueryPlan:
    """:func:`plan_query` against a :class:`Lexicon` (e.g. an index's cached vocabulary)."""
    distinct = tuple(dict.fromkeys(query_tokens))
    subs = settings.substitutions
    candidates: dict[str, dict[str, TokenMatch]] = {}
    for q in distinct:
        options: dict[str, TokenMatch] = {}
        if q in lexicon:
            options[q] = TokenMatch(q, q, MatchKind.EXACT, 100.0, 1.0)
        if settings.ocr:
            normal = normalize_ocr(q, subs)
            words = {w for w in lexicon.ocr_variants(normal, subs) if w in lexicon}
            if normal in lexicon:
                words.add(normal)
            for word in words:
                if word not in options:
                    note = _ocr_note(q, word, subs)
                    options[word] = TokenMatch(q, word, MatchKind.OCR, 100.0, 1.0, note)
        if settings.fuzzy and not options and fuzzy_eligible(q, settings.fuzzy_rule):
            for word, score in fuzzy_lookup(lexicon, q, settings):
                options[word] = TokenMatch(q, word, MatchKind.FUZZY, score, round(score / 100, 4))
        candidates[q] = options
    return QueryPlan(distinct, candidates)


def fuzzy_lookup(lexicon: Lexicon, token: str, settings: Fixes) -> list[tuple[str, float]]:
    """The fuzzy candidates of an eligible ``token`` under ``settings.fuzzy_rule``."""
    rule = settings.fuzzy_rule
    if rule in EDIT_RULES:
        return lexicon.edit_matches(token, max_edits(rule, len(token)), fuzzy_min_length(rule))
    return lexicon.fuzzy_matches(token, settings.threshold)


def _ocr_note(query_token: str, word: str, subs: Mapping[str, str]) -> str:
    changes = []
    for token in (query_token, word):
        normal = normalize_ocr(token, subs)
        if normal != token:
            changes.append(f"{token} → {normal}")
    return "; ".join(changes)
