"""The case model: a proof-check case, its outcome and the diagnosis — the vocabulary every
stage above ingestion shares (checks judge cases, storage keeps them, the CLI and the pages
show them), so it lives in the base layer and imports nothing but settings.

Why a module of its own: storage and the pages read and write cases without running a check,
and a module that defines a case should not pull in the ranking code that judges one::

    >>> case = Case("stale", "return policy days", "returns-2026", evidence=("30 days",))
    >>> case.top_k, Diagnosis.PASS.explanation.split(":")[0]
    (1, 'evidence present')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from ragdash.settings import Fixes

if TYPE_CHECKING:  # only a type: the case model does not depend on the ranking code
    from ragdash.retrieval.ranking import RankedPassage

__all__ = [
    "DIAGNOSIS_TEXT",
    "REPORTED",
    "EVIDENCE_RULE",
    "NO_MATCH",
    "Case",
    "Diagnosis",
    "ProofCheck",
]


#: The kind given to cases saved from a user's report (the Triage page).
REPORTED = "reported"


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
#: Said with every verdict that names evidence: how it was looked for.
EVIDENCE_RULE = (
    "evidence is matched as whole words (case and line breaks ignored): "
    "'4 disks' is not found inside '24 disks'"
)
NO_MATCH = "no passage matched the query: every score is 0, so nothing was retrieved"


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

    @property
    def no_match(self) -> bool:
        """True when no passage scored anything: nothing was retrieved."""
        return not self.ranked

    @property
    def reason(self) -> str:
        """The verdict in one sentence, with how evidence was looked for."""
        if self.no_match:
            return f"{NO_MATCH}; {EVIDENCE_RULE}"
        return f"{self.diagnosis.explanation}; {EVIDENCE_RULE}"
