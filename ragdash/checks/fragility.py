"""Fragility: the smallest query corruption that breaks a passing case.

For a case that passes its proof check under some fixes, a seeded, bounded beam search looks
for the fewest character edits of one fault kind that make the check fail:

- ``ocr`` — one edit turns a letter into the digit OCR confuses it with (the reverse of the
  OCR map, by default ``o→0`` and ``i→1``; the map is taken from ``fixes.ocr_map``).
- ``typo`` — one edit is a keyboard typo: deleting a letter, inserting a neighbouring key
  before it, replacing it with a neighbouring key, or swapping it with the next letter
  (words shorter than three letters are left alone, as in :func:`ragdash.checks.faults.typo_noise`).

**Search.** Step *n* (``n = 1..max_edits``) expands every beam query by every single edit
(a seeded sample of ``sample`` children when there are more), runs the proof check on each,
and stops at the first step where one fails — the failing query with the lowest margin wins,
then the alphabetically first. Otherwise the ``beam`` passing queries closest to breaking
(lowest margin; equal margins in a seeded random order) go on to the next step. Queries seen
before are not re-run; queries corruption makes unusable (``QueryError``) count as neither
pass nor fail. Every run of the check counts against ``max_evaluations`` — the original query
included — and the search stops when it is used up (``exhausted``).

**Margin** (how close a query is to breaking; ≥ 0 while the check passes):
the smaller of

- *ranking margin*: the score of the expected document's best passage minus the best score of
  any other document's passage (0 = first only by a tie-break, < 0 = another document wins);
- *evidence margin* (only when evidence is set): the lowest score of a top-k passage the
  evidence needs (dropping it would lose a required string) minus the score of the first
  passage outside the top-k — how close the needed text is to being pushed out.

The result is an upper bound on the true minimum: exact for 1 edit (step 1 tries every edit
unless sampled), heuristic beyond because the beam prunes. Everything is deterministic for a
given seed: randomness comes only from ``random.Random(seed)`` and all else is sorted.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ragdash.case import Case, Diagnosis
from ragdash.checks.ablation import BASELINE
from ragdash.checks.faults import QUERY_FAULTS, typo_variants
from ragdash.checks.proof import ProofCheck, context_text, judge, missing_evidence
from ragdash.errors import QueryError
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import Fixes, configuration_title

__all__ = [
    "ALREADY_FAILS",
    "BROKEN",
    "DEFAULT_BEAM",
    "DEFAULT_MAX_EDITS",
    "DEFAULT_MAX_EVALUATIONS",
    "DEFAULT_SAMPLE",
    "FRAGILITY_COLUMNS",
    "Fragility",
    "FragilityRow",
    "KIND_TITLES",
    "KIND_WORDS",
    "MAX_EDITS",
    "MAX_EVALUATIONS",
    "NO_EDITS",
    "case_summary",
    "compared_configurations",
    "find_breaking_perturbation",
    "fixes_phrase",
    "fragility_table",
    "ocr_edits",
    "result_phrase",
    "reverse_ocr_map",
    "single_edits",
]

DEFAULT_MAX_EDITS = 6
DEFAULT_BEAM = 4
DEFAULT_MAX_EVALUATIONS = 3000
#: Children evaluated per step at most; 400 covers every single edit of a ~35-letter query,
#: and 1 + 6 × 400 stays within the default evaluation budget.
DEFAULT_SAMPLE = 400

# Why the search ended.
ALREADY_FAILS = "already fails"  # the query as written fails: 0 edits
BROKEN = "broken"  # a corruption made the check fail
MAX_EDITS = "max edits"  # every step up to max_edits was searched without a failure
MAX_EVALUATIONS = "max evaluations"  # the evaluation budget ran out first
NO_EDITS = "no edits left"  # no new query can be made from the beam (e.g. no o/i for OCR)

KIND_WORDS = {"ocr": "OCR", "typo": "typo"}  # "2 OCR edits", "1 typo edit"
KIND_TITLES = {"ocr": "OCR", "typo": "Typos"}


@dataclass(frozen=True)
class Fragility:
    """The outcome of one fragility search: a case, a fault kind, a set of fixes.

    ``edits`` is the number of edits that broke the check (0: it already fails), or ``None``
    when no failure was found; ``depth`` is how many edits were searched without a failure.
    ``path`` holds the queries from the original to ``corrupted_query``, one edit apart.
    """

    case_name: str
    query: str
    kind: str
    fixes_label: str
    edits: int | None
    max_edits: int
    depth: int
    corrupted_query: str | None
    diagnosis: Diagnosis | None
    first_id: str | None
    missing_evidence: tuple[str, ...]
    path: tuple[str, ...]
    evaluations: int
    max_evaluations: int
    stopped: str  # ALREADY_FAILS, BROKEN, MAX_EDITS, MAX_EVALUATIONS or NO_EDITS

    @property
    def broken(self) -> bool:
        return self.edits is not None

    @property
    def exhausted(self) -> bool:
        """True when the evaluation budget ran out before ``max_edits`` edits were searched:
        the case survived ``depth`` edits but was not searched further."""
        return self.stopped == MAX_EVALUATIONS

    @property
    def outcome(self) -> str:
        """``already fails``, ``breaks`` or ``survives``."""
        if self.edits == 0:
            return "already fails"
        return "breaks" if self.broken else "survives"

    @property
    def failure(self) -> str:
        """The failure in words, e.g. ``ranking: returns-2024 first`` ('' when none)."""
        if self.diagnosis is None:
            return ""
        if self.diagnosis is Diagnosis.RANKING:
            return f"ranking: {self.first_id or 'nothing'} first"
        missing = ", ".join(repr(e) for e in self.missing_evidence)
        return f"extraction: {missing} missing" if missing else "extraction"

    @property
    def sentence(self) -> str:
        """The outcome in plain words, e.g. "breaks after 2 OCR edits with no fixes
        ('return p0l1cy days' → ranking: returns-2024 first)"."""
        fixes = fixes_phrase(self.fixes_label)
        word = KIND_WORDS.get(self.kind, self.kind)
        if self.edits == 0:
            return f"already fails with {fixes} ({self.failure})"
        if self.edits is not None:
            return (
                f"breaks after {_edits(self.edits, word)} with {fixes} "
                f"('{self.corrupted_query}' → {self.failure})"
            )
        if self.stopped == NO_EDITS and self.depth == 0:
            return f"survives with {fixes}: no {word} edit can be made to this query"
        survived = f"survives {_edits(self.depth, word)} with {fixes}"
        if self.stopped == MAX_EVALUATIONS:
            return f"{survived} (not searched further: {self.evaluations} evaluations used)"
        if self.stopped == NO_EDITS:
            return f"{survived} (no further {word} edit possible)"
        return survived

    def to_record(self) -> dict[str, object]:
        """A JSON-ready dict with the :data:`FRAGILITY_COLUMNS` keys (configuration = fixes
        label) plus ``path``."""
        return {
            "case": self.case_name,
            "query": self.query,
            "fault": self.kind,
            "configuration": self.fixes_label,
            "fixes": self.fixes_label,
            "outcome": self.outcome,
            "edits": self.edits,
            "max_edits": self.max_edits,
            "depth": self.depth,
            "corrupted_query": self.corrupted_query,
            "diagnosis": self.diagnosis.value if self.diagnosis else None,
            "failure": self.failure,
            "first_id": self.first_id,
            "missing_evidence": list(self.missing_evidence),
            "evaluations": self.evaluations,
            "exhausted": self.exhausted,
            "stopped": self.stopped,
            "sentence": self.sentence,
            "path": list(self.path),
        }


def _edits(n: int, word: str = "") -> str:
    return f"{n} {word + ' ' if word else ''}edit{'' if n == 1 else 's'}"


def fixes_phrase(label: str) -> str:
    """``no fixes``, ``all fixes`` or the fixes by their titles, as the sidebar names them
    (``fuzzy`` → "Fuzzy matching", ``recency,ocr`` → "Recency tie-break + OCR
    normalization")."""
    return {"none": "no fixes", "all": "all fixes"}.get(label) or configuration_title(label)


# --- single edits ------------------------------------------------------------------------


def reverse_ocr_map(ocr_map: Iterable[tuple[str, str]] | Mapping[str, str]) -> dict[str, str]:
    """Letter → the digits OCR misreads it as (sorted), from a digit → letter map."""
    pairs = ocr_map.items() if isinstance(ocr_map, Mapping) else ocr_map
    reverse: dict[str, list[str]] = {}
    for digit, letter in pairs:
        reverse.setdefault(letter.lower(), []).append(digit)
    return {letter: "".join(sorted(digits)) for letter, digits in sorted(reverse.items())}


def ocr_edits(text: str, reverse: Mapping[str, str]) -> list[str]:
    """Every query one OCR misread away: one letter replaced by a digit it is confused with."""
    return [
        text[:i] + digit + text[i + 1 :]
        for i, ch in enumerate(text)
        for digit in reverse.get(ch.lower(), "")
    ]


def single_edits(text: str, kind: str, reverse: Mapping[str, str]) -> list[str]:
    """The distinct queries one ``kind`` edit away from ``text``, sorted."""
    if kind == "ocr":
        edits = ocr_edits(text, reverse)
    elif kind == "typo":
        edits = typo_variants(text)
    else:
        raise ValueError(f"unknown fault kind {kind!r}; choose from {', '.join(QUERY_FAULTS)}")
    return sorted(set(edits) - {text})


# --- evaluation ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Evaluated:
    query: str
    check: ProofCheck
    margin: float


def _evaluate(index: CorpusIndex, case: Case, query: str, fixes: Fixes) -> _Evaluated:
    """The proof check of ``query`` (exactly as :func:`ragdash.checks.proof.check_case`) and its
    margin. Raises ``QueryError``."""
    k = max(case.top_k, 1)
    probe = case if query == case.query else replace(case, query=query)
    # Rank just far enough to see the expected document, another one and the passage after
    # the top-k; scores are never negative, so past a zero score everything scores zero.
    limit = k + 1
    while True:
        ranked = index.top(query, fixes, limit)
        docs = {r.doc_id for r in ranked}
        complete = len(ranked) < limit  # every eligible passage is in `ranked`
        seen_both = case.expected_id in docs and len(docs) > 1
        if seen_both or complete or not ranked[-1].matched:
            break
        limit *= 4
    check = judge(probe, ranked, fixes)
    margin = _ranking_margin(ranked, case.expected_id, complete)
    if check.passed and case.evidence:
        margin = min(margin, _evidence_margin(ranked, case, k))
    return _Evaluated(query, check, margin)


def _ranking_margin(ranked: Sequence[RankedPassage], expected: str, complete: bool) -> float:
    """Expected document's best score minus any other's; a document not in an incomplete
    ``ranked`` scores 0 (ranking stopped at a zero score), one not in a complete one cannot
    be retrieved at all."""
    unseen = None if complete else 0.0
    mine = next((r.score for r in ranked if r.doc_id == expected), unseen)
    other = next((r.score for r in ranked if r.doc_id != expected), unseen)
    if mine is None:  # the expected document cannot be retrieved (e.g. withdrawn)
        return -math.inf
    if other is None:  # no other document can be retrieved: ranking cannot break
        return math.inf
    return mine - other


def _evidence_margin(ranked: Sequence[RankedPassage], case: Case, k: int) -> float:
    top, rest = ranked[:k], ranked[k:]
    present = [e for e in case.evidence if e not in missing_evidence([e], context_text(top))]
    needed = [
        r.score
        for i, r in enumerate(top)
        if missing_evidence(present, context_text([*top[:i], *top[i + 1 :]]))
    ]
    if not needed or not rest:  # nothing can push needed text out of the top-k
        return math.inf
    return min(needed) - rest[0].score


# --- search --------------------------------------------------------------------------------


def find_breaking_perturbation(
    index: CorpusIndex,
    case: Case,
    fixes: Fixes,
    kind: str,
    *,
    seed: int = 0,
    max_edits: int = DEFAULT_MAX_EDITS,
    beam: int = DEFAULT_BEAM,
    max_evaluations: int = DEFAULT_MAX_EVALUATIONS,
    sample: int = DEFAULT_SAMPLE,
) -> Fragility:
    """Search for the fewest ``kind`` edits (``ocr`` or ``typo``) of ``case.query`` that make
    its proof check fail under ``fixes`` (see the module docstring for the search and the
    margin). Raises ``QueryError`` if the query as written cannot be run, ``ValueError``
    for an unknown kind or a bound below 1."""
    if kind not in QUERY_FAULTS:
        raise ValueError(f"unknown fault kind {kind!r}; choose from {', '.join(QUERY_FAULTS)}")
    for name, value in (
        ("max_edits", max_edits),
        ("beam", beam),
        ("max_evaluations", max_evaluations),
        ("sample", sample),
    ):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    rng = random.Random(seed)
    reverse = reverse_ocr_map(fixes.ocr_map)

    def result(
        stopped: str, depth: int, found: _Evaluated | None, path: Sequence[str]
    ) -> Fragility:
        check = found.check if found else None
        return Fragility(
            case_name=case.name,
            query=case.query,
            kind=kind,
            fixes_label=fixes.names,
            edits=len(path) - 1 if found else None,
            max_edits=max_edits,
            depth=depth,
            corrupted_query=found.query if found else None,
            diagnosis=check.diagnosis if check else None,
            first_id=check.first_id if check else None,
            missing_evidence=check.missing_evidence if check else (),
            path=tuple(path) if found else (),
            evaluations=evaluations,
            max_evaluations=max_evaluations,
            stopped=stopped,
        )

    start = _evaluate(index, case, case.query, fixes)  # a bad query as written raises
    evaluations = 1
    if not start.check.passed:
        return result(ALREADY_FAILS, 0, start, (case.query,))

    parent: dict[str, str] = {}  # query → the beam query it was made from
    seen = {case.query}
    frontier = [start]
    for step in range(1, max_edits + 1):
        children: dict[str, str] = {}
        for member in frontier:  # beam order: closest to breaking first claims a child
            for child in single_edits(member.query, kind, reverse):
                if child not in seen and child not in children:
                    children[child] = member.query
        if not children:
            return result(NO_EDITS, step - 1, None, ())
        batch = sorted(children)
        budget = max_evaluations - evaluations
        cut = len(batch) > budget and budget < sample  # the budget, not sampling, stops us
        take = min(len(batch), sample, budget)
        if take < len(batch):  # a seeded sample, not the alphabetical first ones
            batch = rng.sample(batch, take)
        passing: list[tuple[float, float, _Evaluated]] = []
        failing: list[_Evaluated] = []
        for query in batch:
            seen.add(query)
            parent[query] = children[query]
            evaluations += 1
            try:
                evaluated = _evaluate(index, case, query, fixes)
            except QueryError:  # unusable: neither pass nor fail
                continue
            if evaluated.check.passed:
                passing.append((evaluated.margin, rng.random(), evaluated))
            else:
                failing.append(evaluated)
        if failing:
            worst = min(failing, key=lambda e: (e.margin, e.query))
            return result(BROKEN, step - 1, worst, _path(worst.query, parent))
        if cut:
            return result(MAX_EVALUATIONS, step - 1, None, ())
        if not passing:  # every child was unusable: no query with `step` edits ran
            return result(NO_EDITS, step - 1, None, ())
        passing.sort(key=lambda item: (item[0], item[1]))
        frontier = [e for _, _, e in passing[:beam]]
    return result(MAX_EDITS, max_edits, None, ())


def _path(query: str, parent: Mapping[str, str]) -> list[str]:
    path = [query]
    while path[-1] in parent:
        path.append(parent[path[-1]])
    return path[::-1]


# --- tables and summaries ------------------------------------------------------------------

#: Columns of :func:`fragility_table`, one row per case × configuration × fault kind:
#: ``case``, ``query`` (as written), ``fault`` (``ocr``/``typo``), ``configuration`` (its
#: name), ``fixes`` (the fixes label), ``outcome`` (``already fails``/``breaks``/
#: ``survives``), ``edits`` (Int64; missing when it survives), ``max_edits``, ``depth``
#: (edits searched without a failure), ``corrupted_query``, ``diagnosis`` (``ranking``/
#: ``extraction``), ``failure`` (in words, e.g. ``ranking: crm first``), ``first_id``,
#: ``missing_evidence`` ("; "-joined), ``evaluations``, ``exhausted`` (the evaluation
#: budget ran out), ``stopped`` (why the search ended), ``sentence``.
@dataclass(frozen=True)
class FragilityRow:
    """One search as a table row (see the comment above for each column)."""

    case: str
    query: str
    fault: str
    configuration: str
    fixes: str
    outcome: str
    edits: int | None
    max_edits: int
    depth: int
    corrupted_query: str | None
    diagnosis: str | None
    failure: str
    first_id: str | None
    missing_evidence: str
    evaluations: int
    exhausted: bool
    stopped: str
    sentence: str


FRAGILITY_COLUMNS = [f.name for f in fields(FragilityRow)]


def fragility_table(
    index: CorpusIndex,
    cases: Sequence[Case],
    configurations: Mapping[str, Fixes],
    kinds: Sequence[str] = QUERY_FAULTS,
    *,
    seed: int = 0,
    max_edits: int = DEFAULT_MAX_EDITS,
    beam: int = DEFAULT_BEAM,
    max_evaluations: int = DEFAULT_MAX_EVALUATIONS,
    sample: int = DEFAULT_SAMPLE,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[FragilityRow, ...]:
    """One row per case × configuration × fault kind (columns :data:`FRAGILITY_COLUMNS`).

    Every search uses the same ``seed``, so configurations are compared on equal terms.
    ``progress(fraction, label)`` is called before each search and with 1.0 at the end.
    """
    rows = []
    total = max(len(cases) * len(configurations) * len(kinds), 1)
    done = 0
    for case in cases:
        for label, fixes in configurations.items():
            for kind in kinds:
                if progress:
                    progress(done / total, f"{case.name} · {label} · {kind}")
                found = find_breaking_perturbation(
                    index,
                    case,
                    fixes,
                    kind,
                    seed=seed,
                    max_edits=max_edits,
                    beam=beam,
                    max_evaluations=max_evaluations,
                    sample=sample,
                )
                record: dict[str, Any] = found.to_record()
                record["configuration"] = label
                record["missing_evidence"] = "; ".join(found.missing_evidence)
                rows.append(FragilityRow(**{c: record[c] for c in FRAGILITY_COLUMNS}))
                done += 1
    if progress:
        progress(1.0, "done")
    return tuple(rows)


def result_phrase(outcome: str, edits: int | None, depth: int, stopped: str) -> str:
    """A search's result in a few words, without the fixes: ``already fails``, ``breaks
    after 3 edits``, ``survives 6 edits`` (``… (not searched further)`` when the evaluation
    budget ran out, ``… (no more possible)`` when no further edit could be made) or
    ``no edit possible``."""
    if outcome == "already fails":
        return outcome
    if outcome == "breaks" and edits is not None:
        return f"breaks after {_edits(int(edits))}"
    if stopped == NO_EDITS and depth == 0:
        return "no edit possible"
    more = {MAX_EVALUATIONS: " (not searched further)", NO_EDITS: " (no more possible)"}
    return f"survives {_edits(depth)}" + more.get(stopped, "")


def case_summary(rows: Sequence[FragilityRow], case: str) -> str:
    """One case across configurations of a :func:`fragility_table`, one sentence per fault
    kind, e.g. "OCR: breaks after 1 edit with no fixes, survives 2 edits with all fixes (no
    more possible)." ('' if the case is not in the table)."""
    mine = [row for row in rows if row.case == case]
    parts = []
    for kind in dict.fromkeys(row.fault for row in mine):
        phrases = [
            f"{result_phrase(row.outcome, row.edits, row.depth, row.stopped)} "
            f"with {fixes_phrase(row.configuration)}"
            for row in mine
            if row.fault == kind
        ]
        parts.append(f"{KIND_TITLES.get(kind, kind)}: {', '.join(phrases)}.")
    return " ".join(parts)


def compared_configurations(fixes: Fixes) -> dict[str, Fixes]:
    """``none`` and ``fixes`` (by its label) — what the CLI compares by default."""
    configs = {BASELINE: fixes.with_only(())}
    configs.setdefault(fixes.names, fixes)
    return configs
