"""Fuzzy threshold calibration: sweep the threshold over labeled queries and count, per
threshold, the cases fuzzy matching repairs, the cases it breaks, and its false matches.

Which queries. Real reported queries (library cases of kind ``reported``) when there are
any: a threshold tuned to the typos users actually make beats one tuned to invented typos.
Otherwise every labeled case (corrupted and clean), optionally with seeded typo variants
of the clean ones (kind ``control``/``clean``) to have enough queries.

What is counted, at threshold *t*, against the same fixes with fuzzy off:

* **repaired** — cases that fail with fuzzy off and pass with fuzzy at *t*;
* **broken** — cases that pass with fuzzy off and fail with fuzzy at *t*;
* **false fuzzy matches** — fuzzy token matches in the top-k passages of a query that
  joined the query token to a word other than the one intended. The intended word is known
  for a generated typo variant (the clean query's token at the same position); for any
  other case it is unknown, so a fuzzy match counts as false when the matched word does not
  occur in the expected document (such a match can only pull in the wrong text). Each
  distinct (case, query token, matched word) counts once.

The edit-distance presets (``es-auto``, ``typos-5-9``) have no threshold:
:func:`evaluate_presets` counts each of them the same way, one row per preset, so they can be
compared with the sweep.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ragdash.case import REPORTED, Case
from ragdash.checks.faults import typo_noise
from ragdash.checks.proof import ProofCheck, judge
from ragdash.errors import QueryError
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.matching import MatchKind
from ragdash.settings import EDIT_RULES, FUZZY_RULES, RATIO, Fixes
from ragdash.text import tokenize

__all__ = [
    "CLEAN_KINDS",
    "DEFAULT_THRESHOLDS",
    "FuzzyCounts",
    "LabeledQuery",
    "MIN_CALIBRATION_QUERIES",
    "PRESET_COLUMNS",
    "PresetRow",
    "QuerySet",
    "SWEEP_COLUMNS",
    "SweepRow",
    "VARIANT_KIND",
    "calibration_queries",
    "choose_threshold",
    "evaluate_presets",
    "false_matches",
    "recommend_threshold",
    "sweep_thresholds",
    "typo_variants",
]

CLEAN_KINDS = ("control", "clean")
VARIANT_KIND = "typo-variant"
DEFAULT_THRESHOLDS = tuple(50.0 + 2.5 * i for i in range(21))  # 50, 52.5, …, 100


@dataclass(frozen=True)
class FuzzyCounts:
    """What fuzzy matching did under one setting: cases repaired and broken against fuzzy
    off, false fuzzy matches, and which ("; "-joined)."""

    repaired: int
    broken: int
    false_fuzzy_matches: int
    repaired_cases: str
    broken_cases: str
    false_matches: str


@dataclass(frozen=True)
class SweepRow(FuzzyCounts):
    """The counts at one threshold of the ``ratio`` rule."""

    threshold: float


@dataclass(frozen=True)
class PresetRow(FuzzyCounts):
    """The counts under one fuzzy rule (an edit preset), with the rule in words."""

    rule: str
    description: str


SWEEP_COLUMNS = [f.name for f in fields(SweepRow)]
PRESET_COLUMNS = [f.name for f in fields(PresetRow)]


@dataclass(frozen=True)
class LabeledQuery:
    """A case to calibrate on, and the intended word of each query token when known."""

    case: Case
    intended: tuple[tuple[str, str], ...] = ()  # (typed token, intended token)

    @property
    def intended_map(self) -> dict[str, str]:
        return dict(self.intended)


@dataclass(frozen=True)
class QuerySet:
    queries: tuple[LabeledQuery, ...]
    source: str  # "reported" (real reports) or "labeled" (testbed cases, maybe + variants)
    variants: int  # how many generated typo variants are in ``queries``


def typo_variants(
    cases: Iterable[Case], per_case: int, rate: float = 0.1, seed: int = 0
) -> list[LabeledQuery]:
    """``per_case`` seeded typo variants of each case (distinct from the original and
    each other); tokens are aligned by position to record the intended word."""
    variants = []
    for c, case in enumerate(cases):
        seen = {case.query}
        clean_tokens = tokenize(case.query)
        for n in range(per_case * 5):  # a few extra tries for duplicates
            if len(seen) > per_case:
                break
            query = typo_noise(case.query, rate, seed + 1000 * c + n)
            if query in seen:
                continue
            seen.add(query)
            typed = tokenize(query)
            intended: tuple[tuple[str, str], ...] = ()
            if len(typed) == len(clean_tokens):
                intended = tuple((t, w) for t, w in zip(typed, clean_tokens, strict=True) if t != w)
            variant = replace(
                case,
                name=f"{case.name}~typo{len(seen) - 1}",
                query=query,
                kind=VARIANT_KIND,
                note=f"typo variant of {case.name!r} (rate {rate:g}, seeded)",
            )
            variants.append(LabeledQuery(variant, intended))
    return variants


def calibration_queries(
    cases: Sequence[Case],
    variants_per_case: int = 0,
    rate: float = 0.1,
    seed: int = 0,
    prefer_reported: bool = True,
) -> QuerySet:
    """The queries to sweep: reported cases when there are any (and ``prefer_reported``),
    else every case plus ``variants_per_case`` typo variants of each clean case."""
    reported = [c for c in cases if c.kind == REPORTED]
    if reported and prefer_reported:
        return QuerySet(tuple(LabeledQuery(c) for c in reported), "reported", 0)
    clean = [c for c in cases if c.kind in CLEAN_KINDS]
    generated = typo_variants(clean, variants_per_case, rate, seed) if variants_per_case else []
    queries = tuple([LabeledQuery(c) for c in cases] + generated)
    return QuerySet(queries, "labeled", len(generated))


def false_matches(
    index: CorpusIndex, query: LabeledQuery, check: ProofCheck
) -> set[tuple[str, str, str]]:
    """The false fuzzy matches of one check: (case, query token, matched word)."""
    intended = query.intended_map
    expected_words: set[str] | None = None
    found = set()
    for ranked in check.ranked:
        for m in ranked.breakdown:
            if m.kind != MatchKind.FUZZY or m.passage_token is None:
                continue
            if m.query_token in intended:
                wrong = m.passage_token != intended[m.query_token]
            else:
                if expected_words is None:
                    expected_words = _document_words(index, query.case.expected_id)
                wrong = m.passage_token not in expected_words
            if wrong:
                found.add((query.case.name, m.query_token, m.passage_token))
    return found


def _document_words(index: CorpusIndex, doc_id: str) -> set[str]:
    words: set[str] = set()
    for tables in (False, True):
        for passage in index.passages_of(doc_id, tables):
            words |= passage.tokens
    return words


def _check(index: CorpusIndex, case: Case, fixes: Fixes) -> ProofCheck | None:
    try:
        return judge(case, index.search(case.query, fixes), fixes)
    except QueryError:
        return None


def _references(
    index: CorpusIndex, queries: Sequence[LabeledQuery], base: Fixes
) -> dict[str, ProofCheck | None]:
    """Each query's check under ``base`` with fuzzy off: what fuzzy matching is judged against."""
    off = replace(base, fuzzy=False)
    return {q.case.name: _check(index, q.case, off) for q in queries}


def _count(
    index: CorpusIndex,
    queries: Sequence[LabeledQuery],
    references: dict[str, ProofCheck | None],
    fixes: Fixes,
) -> dict[str, Any]:
    """Repaired, broken and false fuzzy matches under ``fixes`` (fuzzy on) against
    ``references``: the counting columns of a sweep row."""
    repaired, broken, wrong = [], [], set()
    for query in queries:
        before, after = references[query.case.name], _check(index, query.case, fixes)
        if before is None or after is None:
            continue
        if after.passed and not before.passed:
            repaired.append(query.case.name)
        elif before.passed and not after.passed:
            broken.append(query.case.name)
        wrong |= false_matches(index, query, after)
    return {
        "repaired": len(repaired),
        "broken": len(broken),
        "false_fuzzy_matches": len(wrong),
        "repaired_cases": "; ".join(repaired),
        "broken_cases": "; ".join(broken),
        "false_matches": "; ".join(f"{c}: {q} → {w}" for c, q, w in sorted(wrong)),
    }


def sweep_thresholds(
    index: CorpusIndex,
    queries: Sequence[LabeledQuery],
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    base: Fixes | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[SweepRow, ...]:
    """One row per threshold (see the module docstring for what is counted). ``base``
    gives the other fixes; fuzzy is switched off for the reference and on, with the ``ratio``
    rule, for the sweep."""
    base = base or Fixes()
    references = _references(index, queries, base)
    rows = []
    for t, threshold in enumerate(thresholds):
        if progress:
            progress(t / max(len(thresholds), 1), f"threshold {threshold:g}")
        fixes = replace(base, fuzzy=True, threshold=float(threshold), fuzzy_rule=RATIO)
        rows.append(
            SweepRow(**_count(index, queries, references, fixes), threshold=float(threshold))
        )
    if progress:
        progress(1.0, "done")
    return tuple(rows)


def evaluate_presets(
    index: CorpusIndex,
    queries: Sequence[LabeledQuery],
    rules: Sequence[str] = tuple(EDIT_RULES),
    base: Fixes | None = None,
) -> tuple[PresetRow, ...]:
    """One row per fuzzy rule (by default the edit presets), counted exactly as
    :func:`sweep_thresholds` counts a threshold: columns :data:`PRESET_COLUMNS`. For
    ``ratio`` the threshold of ``base`` is used."""
    base = base or Fixes()
    references = _references(index, queries, base)
    rows = []
    for rule in rules:
        fixes = replace(base, fuzzy=True, fuzzy_rule=rule)  # validates the rule
        counts = _count(index, queries, references, fixes)
        rows.append(PresetRow(**counts, rule=rule, description=FUZZY_RULES[rule]))
    return tuple(rows)


#: Fewer labeled queries than this say too little to recommend a threshold: one reported
#: query repaired at every threshold from 50 to 90 would "choose" 70 by the middle rule alone.
MIN_CALIBRATION_QUERIES = 5


def recommend_threshold(sweep: Sequence[SweepRow], sample_size: int) -> float | None:
    """:func:`choose_threshold`, or None when the sweep ran on fewer than
    :data:`MIN_CALIBRATION_QUERIES` queries (too few to recommend anything)."""
    if sample_size < MIN_CALIBRATION_QUERIES:
        return None
    return choose_threshold(sweep)


def choose_threshold(sweep: Sequence[SweepRow]) -> float:
    """The threshold with the best net effect (repaired − broken), then the fewest false
    fuzzy matches; among equally good thresholds the middle one, so that the choice sits
    inside the good range rather than at the edge where repairs start to drop."""
    if not sweep:
        raise ValueError("the sweep is empty: no thresholds were tried")
    best_net = max(row.repaired - row.broken for row in sweep)
    best = [row for row in sweep if row.repaired - row.broken == best_net]
    fewest = min(row.false_fuzzy_matches for row in best)
    tied = sorted(row.threshold for row in best if row.false_fuzzy_matches == fewest)
    return float(tied[(len(tied) - 1) // 2])
