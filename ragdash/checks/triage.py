"""Triage: turn a user's report ("the assistant said 60 days, the policy is 30") into a
diagnosis — run it under every configuration, say in plain words what is wrong and which
fix repairs it (or that none does)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ragdash.case import REPORTED, Case, Diagnosis
from ragdash.checks.ablation import ALL, BASELINE, configurations
from ragdash.checks.proof import ProofCheck, check_case
from ragdash.ingestion.documents import Document
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_DESCRIPTIONS, FIX_NAMES, FIX_TITLES, Fixes, configuration_title

__all__ = [
    "Advice",
    "Repair",
    "RepairKind",
    "Report",
    "Triage",
    "advice",
    "advice_of",
    "case_name",
    "classify_repair",
    "documents_saying",
    "repairing_fix",
    "summarize",
    "triage",
    "triage_report",
]


@dataclass(frozen=True)
class Report:
    """What the person who received the bad answer knows."""

    query: str  # as the user typed it, typos and all — or as near as the report tells
    expected_id: str  # the document that holds the right answer
    evidence: tuple[str, ...] = ()  # strings the answer needs, e.g. "30 days"
    note: str = ""
    top_k: int = 1

    def as_case(self, name: str) -> Case:
        return Case(
            name=name.strip(),
            query=self.query,
            expected_id=self.expected_id,
            evidence=self.evidence,
            top_k=max(self.top_k, 1),
            kind=REPORTED,
            note=self.note,
        )


def documents_saying(documents: Sequence[Document], phrase: str) -> tuple[str, ...]:
    """The ids of the documents whose text says ``phrase`` — case, spacing and line breaks
    set aside — so a triager finds "the document that says 30 days" without knowing its id::

        >>> from ragdash.ingestion.documents import Document
        >>> docs = [Document("a", "A", None, "current", "a.md", "text", ("Within 30   days.",), 0),
        ...         Document("b", "B", None, "current", "b.md", "text", ("60 days",), 1)]
        >>> documents_saying(docs, "30 DAYS")
        ('a',)
    """
    wanted = " ".join(phrase.casefold().split())
    if not wanted:
        return tuple(d.doc_id for d in documents)
    return tuple(d.doc_id for d in documents if wanted in " ".join(d.text.casefold().split()))


class RepairKind(StrEnum):
    """How a single fix makes a failing case pass. The first four are real repairs — they
    change what the retriever matches or which version of a document it may return (the
    ``versions`` fix demotes the older of a *detected* version pair, whatever the scores); the
    last two are a tie at the top that happened to go the right way."""

    MATCH = "new token match"
    FILTER = "filter"
    REWRITE = "rewrite"
    VERSION = "older version demoted"
    DATE_TIE = "tie won by update date"
    ORDER_TIE = "tie won by list order"

    @property
    def real(self) -> bool:
        return self in (RepairKind.MATCH, RepairKind.FILTER, RepairKind.REWRITE, RepairKind.VERSION)


#: What each fix changes when it really repairs a case.
_REAL_KIND = {
    "status": RepairKind.FILTER,
    "tables": RepairKind.REWRITE,
    "ocr": RepairKind.MATCH,
    "fuzzy": RepairKind.MATCH,
}


@dataclass(frozen=True)
class Repair:
    """A single fix under which a failing case passes, and how: ``detail`` says it in words."""

    fix: str
    kind: RepairKind
    detail: str

    @property
    def real(self) -> bool:
        return self.kind.real


def classify_repair(index: CorpusIndex, case: Case, fix: str, fixes: Fixes) -> Repair:
    """Why ``case`` passes under ``fixes`` (``fix`` alone on) when it failed with none: a
    change to the matching (a new token match, a filter, a rewrite of the passages) or only a
    tie at the top won by update date or by list order. A ranking failure repaired by a tie is
    not a repair of the matching: another date or another file order would undo it."""
    ranking = index.search(case.query, fixes)
    baseline_first = index.top(case.query, fixes.with_only(()), 1)
    # first with no fix only if it matched something: a zero-score passage listed first won
    # nothing, so a fix that makes it match and tie is still a tie won by list order
    was_first = (
        bool(baseline_first)
        and baseline_first[0].matched
        and baseline_first[0].doc_id == case.expected_id
    )
    top = ranking[0] if ranking else None
    rival = next((r for r in ranking[1:] if top and r.doc_id != top.doc_id), None)
    if top is not None and top.moved.startswith(FIX_TITLES["versions"]):
        return Repair(fix, RepairKind.VERSION, f"with {FIX_TITLES[fix]} it passes: {top.moved}")
    if top is not None and rival is not None and rival.score == top.score and not was_first:
        a, b = top.passage, rival.passage
        score = f"both score {top.score:g}"
        if fixes.recency and a.updated != b.updated:
            date_a = a.updated.isoformat() if a.updated else "undated"
            date_b = b.updated.isoformat() if b.updated else "undated"
            return Repair(
                fix,
                RepairKind.DATE_TIE,
                f"with {FIX_TITLES[fix]} it passes only by winning a tie on update date: "
                f"{a.doc_id} and {b.doc_id} {score} and {a.doc_id} is newer ({date_a} vs "
                f"{date_b}); the matching is unchanged",
            )
        return Repair(
            fix,
            RepairKind.ORDER_TIE,
            f"with {FIX_TITLES[fix]} it passes only by winning a tie on list order: {a.doc_id} and "
            f"{b.doc_id} {score} and {a.doc_id} happens to be listed first; another file "
            "order would undo it",
        )
    kind = _REAL_KIND.get(fix, RepairKind.DATE_TIE)
    words = {
        RepairKind.MATCH: "a query word now matches the expected document",
        RepairKind.FILTER: "the document ranked first before is filtered out",
        RepairKind.REWRITE: "the passages are rewritten so the evidence is in what is sent",
        RepairKind.DATE_TIE: "it reorders a tie by update date",
    }[kind]
    return Repair(fix, kind, f"{FIX_TITLES[fix]} changes the result: {words}")


@dataclass(frozen=True)
class Triage:
    """A report run under every configuration (see :func:`ablation.configurations`)."""

    case: Case
    checks: tuple[tuple[str, ProofCheck], ...]  # (configuration label, check), in order
    passing: tuple[str, ...]  # configuration labels under which the case passes
    repairs: tuple[str, ...]  # single fixes that repair a failing case (change the matching)
    summary: str  # plain words: what is wrong and what repairs it
    #: every single fix under which a failing case passes, real repairs and tie wins alike
    outcomes: tuple[Repair, ...] = ()

    @property
    def tie_wins(self) -> tuple[Repair, ...]:
        """Single fixes under which the case passes only because a tie went its way."""
        return tuple(r for r in self.outcomes if not r.real)

    @property
    def by_label(self) -> Mapping[str, ProofCheck]:
        return dict(self.checks)

    @property
    def baseline(self) -> ProofCheck:
        return self.by_label[BASELINE]

    @property
    def diagnosis(self) -> Diagnosis:
        """What is wrong with no fix on: ranking, extraction, or nothing (pass)."""
        return self.baseline.diagnosis

    @property
    def repaired(self) -> bool:
        """Some configuration makes the case pass."""
        return bool(self.passing)


def case_name(query: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """A readable, unused case name from a query: ``reported-warehuse-sync``, ``…-2``, …"""
    slug = "-".join(re.findall(r"[a-z0-9]+", query.lower())[:5])[:40].strip("-") or "case"
    base = f"reported-{slug}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def triage(index: CorpusIndex, case: Case, base: Fixes | None = None) -> Triage:
    """Run ``case`` under every configuration and explain the outcome. Raises
    ``QueryError`` for a query that cannot be run."""
    configs = configurations(base)
    checks = tuple((label, check_case(index, case, fixes)) for label, fixes in configs.items())
    by_label = dict(checks)
    passing = tuple(label for label, check in checks if check.passed)
    outcomes: tuple[Repair, ...] = ()
    if not by_label[BASELINE].passed:
        outcomes = tuple(
            classify_repair(index, case, name, configs[name])
            for name in FIX_NAMES
            if by_label[name].passed
        )
    repairs = tuple(r.fix for r in outcomes if r.real)
    summary = summarize(case, by_label, passing, repairs, set(index.corpus.doc_ids), outcomes)
    return Triage(case, checks, passing, repairs, summary, outcomes)


@dataclass(frozen=True)
class Advice:
    """The one fix to turn on for a failing case, as every page names it (the Guided tour,
    the landing buttons, Explore's suggestion, Triage's advice, the exports): the first fix
    that really repairs it (changes the matching or which versions may be returned), else
    the first that wins it a tie. ``fix`` is None when the case passes with no fix or no
    single fix makes it pass. ``others`` are the other single fixes that make it pass.

    Why one function: the stale-version case was repaired by "Recency tie-break" on the
    tour, by "Skip withdrawn" in Explore and "only by winning a tie" in Triage — three
    stories for one flaw.

    >>> Advice(None, None).sentence
    'No single fix repairs it on its own.'
    """

    fix: str | None
    repair: Repair | None
    others: tuple[Repair, ...] = ()

    @property
    def title(self) -> str:
        """The fix by its display name (``Skip withdrawn``), or '' when there is none."""
        return FIX_TITLES[self.fix] if self.fix else ""

    @property
    def sentence(self) -> str:
        """The advice in one sentence, e.g. "Skip withdrawn repairs it: the document
        ranked first before is filtered out."."""
        if self.repair is None:
            return "No single fix repairs it on its own."
        how = _ADVICE_WORDS.get(self.repair.kind, self.repair.kind.value)
        return f"{self.title} repairs it: {how}."


#: How a recommended fix works, in the words of the advice.
_ADVICE_WORDS = {
    RepairKind.MATCH: "a query word now matches the expected document",
    RepairKind.FILTER: "the withdrawn document ranked first before is left out",
    RepairKind.REWRITE: "the passages are rebuilt so the evidence is in what the model reads",
    RepairKind.VERSION: "the older of the two detected versions is ranked below the newer",
    RepairKind.DATE_TIE: "it only wins a tie on update date (the matching is unchanged)",
    RepairKind.ORDER_TIE: "it only wins a tie on list order (another file order would undo it)",
}


def advice_of(result: Triage) -> Advice:
    """The :class:`Advice` of a triaged case (see :func:`advice`)."""
    if result.baseline.passed:
        return Advice(None, None)
    real = [r for r in result.outcomes if r.real]
    chosen = (real or list(result.tie_wins))[:1]
    if not chosen:
        return Advice(None, None)
    others = tuple(r for r in result.outcomes if r is not chosen[0])
    return Advice(chosen[0].fix, chosen[0], others)


def advice(index: CorpusIndex, case: Case, base: Fixes | None = None) -> Advice:
    """Which single fix to turn on for ``case`` (settings from ``base``): the one answer
    every page gives.

    >>> from ragdash.bundled import SAMPLES, SAMPLES_CASES
    >>> from ragdash.ingestion.ingest import load_folder
    >>> from ragdash.storage.case_store import load_cases
    >>> index = CorpusIndex(load_folder(SAMPLES))
    >>> stale = next(c for c in load_cases(SAMPLES_CASES) if c.name == "stale-version")
    >>> advice(index, stale).title
    'Skip withdrawn'
    """
    return advice_of(triage(index, case, base))


def repairing_fix(index: CorpusIndex, case: Case, base: Fixes | None = None) -> Fixes | None:
    """The single fix an export should run ``case`` under: :func:`advice`'s fix; None when
    it passes with no fix or no single fix makes it pass (then the export's own fixes
    apply). Settings come from ``base``."""
    base = base or Fixes()
    chosen = advice(index, case, base).fix
    return base.with_only([chosen]) if chosen else None


def triage_report(
    index: CorpusIndex, report: Report, name: str = "report", base: Fixes | None = None
) -> Triage:
    return triage(index, report.as_case(name), base)


def _diagnosis_words(check: ProofCheck) -> str:
    case = check.case
    if check.diagnosis is Diagnosis.RANKING:
        first = check.first_id or "nothing"
        return f"a ranking or filtering problem: {first} is ranked first, not {case.expected_id}"
    if check.diagnosis is Diagnosis.EXTRACTION:
        missing = ", ".join(f"“{e}”" for e in check.missing_evidence)
        return (
            f"an extraction or segmentation problem: {case.expected_id} is ranked first, "
            f"but {missing} is not in the top {case.top_k} passage(s) sent to the model"
        )
    return (
        f"evidence present: {case.expected_id} is ranked first and every evidence string "
        f"is in the top {case.top_k} passage(s)"
    )


def summarize(
    case: Case,
    checks: Mapping[str, ProofCheck],
    passing: tuple[str, ...],
    repairs: tuple[str, ...],
    doc_ids: set[str],
    outcomes: tuple[Repair, ...] = (),
) -> str:
    """The plain-words diagnosis of a triaged case."""
    base = checks[BASELINE]
    parts = []
    if case.expected_id not in doc_ids:
        parts.append(
            f"The expected document {case.expected_id} is not in the corpus, so no "
            "configuration can pass: check the id or upload the document."
        )
    parts.append(f"With no fix this is {_diagnosis_words(base)}.")
    if base.passed:
        broken_by = [label for label in checks if label not in passing]
        parts.append(
            "The retriever hands the model the right text, so the wrong answer comes from "
            "the model's reading of it (or the evidence strings are not what the answer needs)."
        )
        if broken_by:
            parts.append(f"It fails under: {', '.join(map(configuration_title, broken_by))}.")
        return " ".join(parts)
    if repairs:
        fixes = "; ".join(f"{FIX_TITLES[name]} ({FIX_DESCRIPTIONS[name]})" for name in repairs)
        one = (
            "This fix repairs it on its own"
            if len(repairs) == 1
            else "Each of these fixes repairs it on its own"
        )
        parts.append(f"{one}: {fixes}.")
    ties = [r for r in outcomes if not r.real]
    if ties:
        parts.append(
            " ".join(f"{r.detail[0].upper()}{r.detail[1:]}." for r in ties)
            + (" No fix changes the matching." if not repairs else "")
        )
    if not (repairs or ties) and passing:
        parts.append(
            "No single fix repairs it, but these combinations do: "
            + ", ".join(map(configuration_title, passing))
            + "."
        )
    elif not (repairs or ties):
        final = checks[ALL]
        parts.append(
            "No fix repairs it: with every fix on it is still "
            f"{_diagnosis_words(final)}. This is a flaw the fixes do not cover — look at "
            "the expected document's text and the query's words."
        )
    return " ".join(parts)
