"""The case model: a proof-check case and the diagnosis — the vocabulary every stage above
ingestion shares (checks judge cases, storage keeps them, the CLI and the pages show them),
so it lives in the base layer and imports nothing of ragdash. The outcome of a check
(:class:`ragdash.checks.proof.ProofCheck`) holds ranked passages, so it lives with the check.

Why a module of its own: storage and the pages read and write cases without running a check,
and a module that defines a case should not pull in the ranking code that judges one::

    >>> case = Case("stale", "return policy days", "returns-2026", evidence=("30 days",))
    >>> case.top_k, Diagnosis.PASS.explanation.split(":")[0]
    (1, 'evidence present')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "DIAGNOSIS_TEXT",
    "REPORTED",
    "EVIDENCE_RULE",
    "NO_MATCH",
    "Case",
    "Diagnosis",
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
