"""How a query token finds a passage token: exactly, after an OCR repair, or fuzzily.

A :class:`QueryPlan` is worked out once per query against the vocabulary of the passages
being ranked, so fuzzy candidates are searched over distinct words (rapidfuzz
``process.extract``), never over every passage.

Fuzzy rules (:data:`FUZZY_RULES`): ``ratio`` matches words whose rapidfuzz ``fuzz.ratio``
reaches a threshold; the edit presets ``es-auto`` and ``typos-5-9`` allow a number of edits
that depends on the query token's length (:func:`max_edits`), counted as optimal string
alignment distance (insert, delete, substitute, swap two adjacent letters = one edit each).
Whatever the rule, a fuzzy match scores its ``fuzz.ratio``/100.

Cautious on real text:

* OCR repairs need corpus evidence (:mod:`ragdash.retrieval.ocr`): ``contr0ller`` becomes
  ``controller`` only when the corpus uses that word; ``sha1``, ``t1d`` stay as they are.
* A query token that is a word — of the corpus or of the English word list
  (:mod:`ragdash.retrieval.wordlist`) — is never fuzzed: ``login`` does not become ``logic``.
* Of the fuzzy candidates, only the most typo-like one is taken (:mod:`ragdash.retrieval.typos`:
  a dropped letter or a swap before an unrelated replacement), then the one more documents
  use; a token under five letters gets one typo-like edit at most.
* The fixes combine: a query token is read through the OCR map before fuzzy matching
  (``wareh0sue`` → ``warehosue`` → ``warehouse``), and the fuzzy matcher's vocabulary holds
  the repaired words, so ``contoller`` finds a passage that says ``contr0ller``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from ragdash.errors import SettingsError
from ragdash.retrieval.ocr import (
    Repair,
    RepairMemo,
    RepairTable,
    build_repairs,
    judge_token,
    judge_vocabulary,
)
from ragdash.retrieval.typos import TYPO, max_typo_cost, typo_cost_within
from ragdash.retrieval.wordlist import english_words
from ragdash.settings import (
    DEFAULT_FUZZY_RULE,
    EDIT_RULES,
    FUZZY_RULES,
    Fixes,
)
from ragdash.text import is_code_like, letters_by_digit, ocr_readings

__all__ = [
    "ACRONYM_LENGTH",
    "FUZZY_MAX_LENGTH",
    "FUZZY_MIN_LENGTH",
    "Lexicon",
    "MatchKind",
    "OCR_POINTS",
    "QueryPlan",
    "SetLexicon",
    "TokenMatch",
    "check_fuzzy_rule",
    "extract_edits",
    "extract_fuzzy",
    "fuzzy_eligible",
    "fuzzy_forms",
    "fuzzy_lookup",
    "fuzzy_min_length",
    "fuzzy_similarity",
    "fuzzy_word",
    "max_edits",
    "plan_query",
    "plan_with_lexicon",
    "repair_key",
    "repaired_words",
    "repair_memo_for",
    "repairs_for",
]


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
#: Longer tokens never take part in fuzzy matching (see :func:`fuzzy_word`).
FUZZY_MAX_LENGTH = 64
#: What an OCR-repaired match scores: a hair below an exact match, so a repaired token never
#: outweighs the same word spelled right — a tie between a clean document and a scan that
#: only matches by repair goes to the clean one (a query for "controller" keeps the FAQ that
#: spells it first, above the scan that says "c0ntr0ller"), while a scan that matches one more
#: query token still wins. Above any fuzzy match (a fuzzy ratio under 99).
OCR_POINTS = 0.99
#: Tokens this short are mostly acronyms (dns, ssh, vpn), one letter from another acronym
#: (dna): a preset that fuzzes them may only undo a swap of two letters (teh → the).
ACRONYM_LENGTH = 3


@dataclass(frozen=True)
class TokenMatch:
    """One line of a score breakdown: a query token and what it matched in a passage."""

    query_token: str
    passage_token: str | None
    kind: MatchKind
    similarity: float  # 0-100; 100 for exact and OCR matches
    points: float
    note: str = ""  # the evidence of a rewrite: "1→i: 'enterpr1se' → 'enterprise', ..."


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


def fuzzy_word(word: str) -> bool:
    """A word fuzzy matching may consider at all: letters only (numbers and codes must match
    exactly — ``10`` is not a typo of ``100``) and at most :data:`FUZZY_MAX_LENGTH` letters
    (nobody types a longer word; a hostile upload's 40,000-letter "word" would only cost time
    and overflow the letter-count filter)."""
    return len(word) <= FUZZY_MAX_LENGTH and word.isalpha()


def fuzzy_eligible(token: str, rule: str = DEFAULT_FUZZY_RULE) -> bool:
    """Fuzzy matching is for words: long enough for ``rule`` and a :func:`fuzzy_word`."""
    return len(token) >= fuzzy_min_length(rule) and fuzzy_word(token)


def fuzzy_similarity(a: str, b: str) -> float:
    """Normalized Indel similarity, 0-100 (rapidfuzz ``fuzz.ratio``)."""
    return float(fuzz.ratio(a, b))


@dataclass(frozen=True)
class QueryPlan:
    """For each distinct query token, the passage tokens that would match it and how, and
    (``notes``) why a token that matches nothing was left alone (a real word not fuzzed, a
    code not rewritten)."""

    tokens: tuple[str, ...]
    candidates: Mapping[str, Mapping[str, TokenMatch]]
    notes: Mapping[str, str] = field(default_factory=dict)

    def none(self, query_token: str) -> TokenMatch:
        """The breakdown line of a token that matches nothing in a passage."""
        return TokenMatch(
            query_token, None, MatchKind.NONE, 0.0, 0.0, self.notes.get(query_token, "")
        )

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
        return best or self.none(query_token)


def _stronger(a: TokenMatch, b: TokenMatch) -> bool:
    return (a.points, -MatchKind(a.kind).preference, a.passage_token or "") > (
        b.points,
        -MatchKind(b.kind).preference,
        b.passage_token or "",
    )


class Lexicon(Protocol):
    """The words a query may match, with the lookups fuzzy and OCR matching need."""

    def __contains__(self, word: object) -> bool: ...

    def documents(self, word: str) -> int:
        """How many documents use ``word`` as-is (0 when none does)."""
        ...

    def repairs(self, settings: Fixes) -> RepairTable:
        """The OCR fix's rewrites of this vocabulary under ``settings`` (map, protected)."""
        ...

    def fuzzy_matches(
        self, token: str, threshold: float, near: int | None = None
    ) -> list[tuple[str, float]]:
        """Fuzzy-eligible words at or above ``threshold``, with their similarity. ``near``:
        only words within that many OSA edits are wanted (others may be left out)."""
        ...

    def edit_matches(
        self, token: str, edits: int, min_length: int, near: int | None = None
    ) -> list[tuple[str, float]]:
        """Letters-only words of at least ``min_length`` letters within ``edits`` OSA edits
        of ``token``, with their ``fuzz.ratio`` similarity (``near``: as above)."""
        ...


def repair_key(settings: Fixes) -> tuple[object, ...]:
    """What a :class:`RepairTable` depends on besides the vocabulary."""
    return (settings.ocr_map, settings.protected)


def repairs_for(
    words: Iterable[str], documents: Callable[[str], int], settings: Fixes
) -> RepairTable:
    """The repair table of a vocabulary under ``settings`` (with the English word list)."""
    return build_repairs(words, settings.ocr_map, documents, settings.protected, english_words())


def repair_memo_for(
    words: Iterable[str],
    documents: Callable[[str], int],
    settings: Fixes,
    base: RepairMemo | None = None,
    dirty: Collection[str] = (),
) -> RepairMemo:
    """:func:`repairs_for` as a :class:`RepairMemo` (its ``.table()``), judged again only
    where ``dirty`` words touch ``base`` (see :func:`ragdash.retrieval.ocr.judge_vocabulary`)."""
    return judge_vocabulary(
        words, settings.ocr_map, documents, settings.protected, english_words(), base, dirty
    )


@dataclass
class SetLexicon:
    """A :class:`Lexicon` over words with their document counts (a plain set counts each
    word in one document); lookups are worked out on first use."""

    words: Mapping[str, int] | AbstractSet[str]
    #: (a lexicon this one differs from, every word whose count differs between them): the
    #: OCR repairs are judged again only where those words reach (a variant's vocabulary)
    base: tuple[SetLexicon, Collection[str]] | None = field(default=None, repr=False)
    _repairs: dict[tuple[object, ...], RepairTable] = field(default_factory=dict, repr=False)
    _memos: dict[tuple[object, ...], RepairMemo] = field(default_factory=dict, repr=False)
    _pool: list[str] | None = field(default=None, repr=False)
    _letter_words: list[str] | None = field(default=None, repr=False)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def documents(self, word: str) -> int:
        if isinstance(self.words, Mapping):
            return int(self.words.get(word, 0))
        return int(word in self.words)

    def repairs(self, settings: Fixes) -> RepairTable:
        key = repair_key(settings)
        if key not in self._repairs:
            self._repairs[key] = self.repair_memo(settings).table()
        return self._repairs[key]

    def repair_memo(self, settings: Fixes) -> RepairMemo:
        """The judged OCR candidates behind :meth:`repairs`."""
        key = repair_key(settings)
        if key not in self._memos:
            base: RepairMemo | None = None
            dirty: Collection[str] = ()
            if self.base is not None:
                base, dirty = self.base[0].repair_memo(settings), self.base[1]
            self._memos[key] = repair_memo_for(self.words, self.documents, settings, base, dirty)
        return self._memos[key]

    def fuzzy_matches(
        self, token: str, threshold: float, near: int | None = None
    ) -> list[tuple[str, float]]:
        # The plain reference: every eligible word is scored (``near`` is only a hint).
        if self._pool is None:
            self._pool = sorted(w for w in self.words if fuzzy_eligible(w))
        return extract_fuzzy(token, self._pool, threshold)

    def edit_matches(
        self, token: str, edits: int, min_length: int, near: int | None = None
    ) -> list[tuple[str, float]]:
        if self._letter_words is None:
            self._letter_words = sorted(w for w in self.words if fuzzy_word(w))
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


def plan_query(
    query_tokens: Iterable[str],
    vocabulary: Mapping[str, int] | AbstractSet[str],
    settings: Fixes,
) -> QueryPlan:
    """Work out every way each query token can match a word of ``vocabulary`` (a set, or
    word → how many documents use it).

    Exact matches score 1. With ``ocr``, a passage token the corpus evidence lets the fix
    repair (:mod:`ragdash.retrieval.ocr`) matches the query token it repairs to, and a damaged
    query token that matches nothing as typed is repaired the same way; both score
    :data:`OCR_POINTS` (0.99: a repair never outweighs the word spelled right). With
    ``fuzzy``, a query token that matches nothing exactly or by repair, and is not itself a
    real word, may match the most typo-like close word under the fuzzy rule (``ratio``: at or
    above the threshold; an edit preset: within the edits it allows), scoring
    similarity/100 — so a near-spelling never outweighs an exact match, and a correctly
    spelled query ranks exactly as it does with fuzzy off.
    """
    return plan_with_lexicon(query_tokens, SetLexicon(vocabulary), settings)


def plan_with_lexicon(query_tokens: Iterable[str], lexicon: Lexicon, settings: Fixes) -> QueryPlan:
    """:func:`plan_query` against a :class:`Lexicon` (e.g. an index's cached vocabulary)."""
    distinct = tuple(dict.fromkeys(query_tokens))
    table = lexicon.repairs(settings) if settings.ocr else None
    candidates: dict[str, dict[str, TokenMatch]] = {}
    notes: dict[str, str] = {}
    for q in distinct:
        options: dict[str, TokenMatch] = {}
        if q in lexicon:
            options[q] = TokenMatch(q, q, MatchKind.EXACT, 100.0, 1.0)
        reading: Repair | None = None
        if table is not None:
            for raw in table.raws_of(q):
                note = table.repairs[raw].note
                options.setdefault(raw, TokenMatch(q, raw, MatchKind.OCR, 100.0, OCR_POINTS, note))
            for repair in table.query_supported(q):
                if repair.raw in lexicon:
                    match = TokenMatch(q, repair.raw, MatchKind.OCR, 100.0, OCR_POINTS, repair.note)
                    options.setdefault(repair.raw, match)
            if q not in lexicon:
                verdict = judge_token(
                    q,
                    letters_by_digit(settings.ocr_map),
                    lexicon.documents,
                    settings.protected,
                    english_words(),
                )
                if isinstance(verdict, Repair):
                    reading = verdict
                    _add_reading(options, q, verdict, table, lexicon)
                elif verdict:
                    notes[q] = verdict
        if settings.fuzzy and not options:
            found, note = _fuzzy_options(q, lexicon, settings, table)
            options.update(found)
            if note and not found:
                notes[q] = note
        if reading is not None and not options:
            notes[q] = f"query {reading.note}, but no passage uses it"
        candidates[q] = options
    return QueryPlan(distinct, candidates, notes)


def _add_reading(
    options: dict[str, TokenMatch], q: str, repair: Repair, table: RepairTable, lexicon: Lexicon
) -> None:
    """Options of a repaired query token: the word itself, and passage tokens repaired to it."""
    note = f"query {repair.note}"
    if repair.word in lexicon:
        options.setdefault(
            repair.word, TokenMatch(q, repair.word, MatchKind.OCR, 100.0, OCR_POINTS, note)
        )
    for raw in table.raws_of(repair.word):
        options.setdefault(
            raw,
            TokenMatch(
                q, raw, MatchKind.OCR, 100.0, OCR_POINTS, f"{note}; {table.repairs[raw].note}"
            ),
        )


def fuzzy_forms(q: str, settings: Fixes) -> list[tuple[str, tuple[str, ...]]]:
    """The spellings of query token ``q`` the fuzzy matcher searches with: ``q`` itself when
    it is letters only; with ``ocr`` on, a token with mapped digits is read through the map
    first (each reading, with the substitutions made) unless it is protected or code-like."""
    if q.isalpha():
        return [(q, ())]
    if not settings.ocr or q in settings.protected or is_code_like(q):
        return []
    return [(w, c) for w, c in ocr_readings(q, letters_by_digit(settings.ocr_map)) if w.isalpha()]


def _fuzzy_options(
    q: str, lexicon: Lexicon, settings: Fixes, table: RepairTable | None
) -> tuple[dict[str, TokenMatch], str]:
    """The fuzzy options of ``q`` (the single most typo-like word, and the passage tokens
    repaired to it) or, when there are none, why (a note; empty when nothing came close)."""
    english = english_words()
    rule = settings.fuzzy_rule
    best: tuple[tuple[float, int, float, str], str, float, tuple[str, ...], str, tuple] | None
    best = None
    for form, changes in fuzzy_forms(q, settings):
        if form in english:
            return {}, f"'{form}' is an English word: not fuzzed"
        if not fuzzy_eligible(form, rule):
            continue
        limit = max_typo_cost(len(form), max_edits(rule, len(form)) if rule in EDIT_RULES else None)
        # Every edit of typo_cost costs at least TYPO (half an edit), so a word more than
        # limit / TYPO OSA edits away can never be kept: the lexicon may skip it.
        found = dict(fuzzy_lookup(lexicon, form, settings, near=int(limit / TYPO + 1e-9)))
        if table is not None:
            found.update(_lookup_words(form, repaired_words(lexicon, table, rule), settings))
        for word, score in found.items():
            # One alignment per candidate gives the cost and its edits (candidates are few:
            # tracing the edits costs less than aligning the kept word a second time), and
            # only near its diagonal: a word costing more than the limit, or than the best
            # word so far (the cost decides first), cannot be kept.
            within = typo_cost_within(form, word, limit if best is None else min(limit, best[0][0]))
            if within is None:
                continue
            cost, edits = within
            if len(form) <= ACRONYM_LENGTH and edits != ("swapped letters",):
                continue
            support = lexicon.documents(word) or sum(
                lexicon.documents(raw) for raw in (table.raws_of(word) if table else ())
            )
            key = (cost, -support, -score, word)
            if best is None or key < best[0]:
                best = (key, word, score, edits, form, changes)
    if best is None:
        return {}, ""
    (_, neg_support, _, _), word, score, edits, form, changes = best
    read = f"query {', '.join(changes)}: '{q}' read as '{form}'; " if changes else ""
    note = (
        f"{read}fuzzy: '{form}' → '{word}' ({', '.join(edits) or 'same letters'}; "
        f"similarity {score:.0f}; '{word}' in {-neg_support} document"
        f"{'' if -neg_support == 1 else 's'})"
    )
    points = round(score / 100, 4)
    options: dict[str, TokenMatch] = {}
    if word in lexicon:
        options[word] = TokenMatch(q, word, MatchKind.FUZZY, score, points, note)
    if table is not None:
        for raw in table.raws_of(word):
            repaired = f"{note}; {table.repairs[raw].note}"
            options[raw] = TokenMatch(q, raw, MatchKind.FUZZY, score, points, repaired)
    return options, ""


def repaired_words(lexicon: Lexicon, table: RepairTable, rule: str) -> Sequence[str]:
    """The fuzzy-eligible words the OCR fix repairs to that no passage spells as-is (a
    lexicon may keep the list: ``lexicon.repaired_words(table, rule)``)."""
    kept = getattr(lexicon, "repaired_words", None)
    if kept is not None:
        return kept(table, rule)
    return [w for w in table.by_word if w not in lexicon and fuzzy_eligible(w, rule)]


def _lookup_words(form: str, words: Sequence[str], settings: Fixes) -> list[tuple[str, float]]:
    """Fuzzy candidates of ``form`` among ``words`` (repaired words no passage spells)."""
    if not words:
        return []
    rule = settings.fuzzy_rule
    if rule in EDIT_RULES:
        min_length = fuzzy_min_length(rule)
        pool = [w for w in words if len(w) >= min_length]
        return extract_edits(form, pool, max_edits(rule, len(form)))
    return extract_fuzzy(form, [w for w in words if len(w) >= FUZZY_MIN_LENGTH], settings.threshold)


def fuzzy_lookup(
    lexicon: Lexicon, token: str, settings: Fixes, near: int | None = None
) -> list[tuple[str, float]]:
    """The fuzzy candidates of an eligible ``token`` under ``settings.fuzzy_rule``
    (``near``: words farther than that many OSA edits are not needed)."""
    rule = settings.fuzzy_rule
    if rule in EDIT_RULES:
        edits = max_edits(rule, len(token))
        return lexicon.edit_matches(token, edits, fuzzy_min_length(rule), near)
    return lexicon.fuzzy_matches(token, settings.threshold, near)
