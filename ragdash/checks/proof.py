"""Proof checks: is the expected document first, and is the evidence in what the model reads?"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import Fixes


class Diagnosis(StrEnum):
    """What a proof check's outcome points at."""

    PASS = "pass"
    RANKING = "ranking"
    EXTRACTION = "extraction"

    @property
    def explanation(self) -> str:
        return DIAGNOSIS_TEXT[self]


DIAGNOSIS_TEXT = {
    Diagnosis.PASS: "evidence present: the expected document is first and every required "
    "string is in the text sent to the model",
    Diagnosis.RANKING: "ranking or filtering problem: the wrong document is ranked first",
    Diagnosis.EXTRACTION: "extraction or segmentation problem: the right document is first, "
    "but required evidence is missing from the text sent to the model",
}


@dataclass(frozen=True)
class Case:
    """A proof-check case: a query, the document that must come first, the evidence the
    model must be given, and how many passages it is given (``top_k``)."""

    name: str
    query: str
    expected_id: str
    evidence: tuple[str, ...] = ()
    top_k: int = 1
    kind: str = ""  # free label, e.g. "corrupted" or "control"
    note: str = ""


@dataclass(frozen=True)
class ProofCheck:
    """The outcome of running one case under one set of fixes."""

    case: Case
    fixes: Fixes
    ranked: tuple[RankedPassage, ...]  # the top-k passages sent to the model
    diagnosis: Diagnosis
    missing_evidence: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return self.diagnosis is Diagnosis.PASS

    @property
    def first_id(self) -> str | None:
        return self.ranked[0].doc_id if self.ranked else None


def collapse(text: str) -> str:
    """Lowercase with runs of whitespace folded to one space — how evidence is compared."""
    return re.sub(r"\s+", " ", text).strip().lower()


def missing_evidence(evidence: Sequence[str], context: str) -> tuple[str, ...]:
    """The evidence strings not found (case-insensitive, whitespace-collapsed) in ``context``."""
    haystack = collapse(context)
    return tuple(e for e in evidence if collapse(e) not in haystack)


def context_text(ranked: Sequence[RankedPassage]) -> str:
    """The combined raw text of the passages sent to the model."""
    return "\n\n".join(r.passage.text for r in ranked)


def judge(case: Case, ranked: Sequence[RankedPassage], fixes: Fixes) -> ProofCheck:
    """Judge an already-ranked list against a case (only its top-k is read)."""
    top = tuple(ranked[: max(case.top_k, 1)])
    missing = missing_evidence(case.evidence, context_text(top))
    if not top or top[0].doc_id != case.expected_id:
        diagnosis = Diagnosis.RANKING
    elif missing:
        diagnosis = Diagnosis.EXTRACTION
    else:
        diagnosis = Diagnosis.PASS
    return ProofCheck(case, fixes, top, diagnosis, missing)


def check_case(index: CorpusIndex, case: Case, fixes: Fixes) -> ProofCheck:
    """Run a case's query under ``fixes`` and judge it. Raises ``QueryError`` on a bad query."""
    return judge(case, index.top(case.query, fixes, max(case.top_k, 1)), fixes)
