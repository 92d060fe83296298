"""Triage: turn a user's report ("the assistant said 60 days, the policy is 30") into a
diagnosis — run it under every configuration, say in plain words what is wrong and which
fix repairs it (or that none does)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ragdash.checks.ablation import ALL, BASELINE, configurations
from ragdash.checks.proof import Case, Diagnosis, ProofCheck, check_case
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_DESCRIPTIONS, FIX_NAMES, Fixes
from ragdash.storage.library import REPORTED, CaseLibrary


@dataclass(frozen=True)
class Report:
    """What the person who received the bad answer knows."""

    query: str  # as the user typed it, typos and all
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


@dataclass(frozen=True)
class Triage:
    """A report run under every configuration (see :func:`ablation.configurations`)."""

    case: Case
    checks: tuple[tuple[str, ProofCheck], ...]  # (configuration label, check), in order
    passing: tuple[str, ...]  # configuration labels under which the case passes
    repairs: tuple[str, ...]  # single fixes that make a failing case pass
    summary: str  # plain words: what is wrong and what repairs it

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
    repairs = ()
    if not by_label[BASELINE].passed:
        repairs = tuple(name for name in FIX_NAMES if by_label[name].passed)
    summary = summarize(case, by_label, passing, repairs, set(index.corpus.doc_ids))
    return Triage(case, checks, passing, repairs, summary)


def rerun_and_record(
    index: CorpusIndex, library: CaseLibrary, case: Case, fixes: Fixes
) -> ProofCheck:
    """Run ``case`` under exactly ``fixes`` and add the result to the library's run history,
    labelled with :attr:`Fixes.label` (every setting that changed the result). Raises
    ``QueryError`` or ``LibraryError``; nothing is recorded then."""
    check = check_case(index, case, fixes)
    library.record_checks([(fixes.label, check)])
    return check


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
            parts.append(f"It fails under: {', '.join(broken_by)}.")
        return " ".join(parts)
    if repairs:
        fixes = "; ".join(f"{name} ({FIX_DESCRIPTIONS[name]})" for name in repairs)
        one = (
            "This fix repairs it on its own"
            if len(repairs) == 1
            else "Each of these fixes repairs it on its own"
        )
        parts.append(f"{one}: {fixes}.")
    elif passing:
        parts.append(
            "No single fix repairs it, but these combinations do: " + ", ".join(passing) + "."
        )
    else:
        final = checks[ALL]
        parts.append(
            "No fix repairs it: with every fix on it is still "
            f"{_diagnosis_words(final)}. This is a flaw the fixes do not cover — look at "
            "the expected document's text and the query's words."
        )
    return " ".join(parts)
