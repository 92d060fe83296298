"""Stress tests: the seed's fault injection on a team's own documents.

For every case, derive faulted variants deterministically from ``seed`` (a stale duplicate of
the expected document, OCR damage to it, a typo or OCR noise in the query, the evidence's
table row cut by a page break of a generated PDF) and run the proof check under ``none``, the
fix that targets the fault, and ``all``. The user's folder is never written: faulted corpora
live in memory (a split table's generated PDF in a temporary folder ragdash creates and
removes).

    >>> report = run_stress(load_folder(SAMPLES), generate_cases(load_folder(SAMPLES), 5, 7))  # doctest: +SKIP
    >>> report.cell("stale", "none", "seed").passed                                             # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from threading import Event

from ragdash.case import Case
from ragdash.ingestion.documents import Corpus, Document
from ragdash.retrieval.spec import RetrieverSpec

__all__ = [
    "CONFIGURATIONS",
    "FAULTS",
    "TARGETED_FIX",
    "FaultedVariant",
    "StressCell",
    "StressReport",
    "StressResult",
    "faulted_variant",
    "run_stress",
    "wilson_interval",
]

#: The faults, in display order.
FAULTS = ("stale", "ocr-doc", "typo", "ocr-query", "split-table")
#: The fix that targets each fault (the configuration named after the fault's repair).
TARGETED_FIX = {
    "stale": "recency",
    "ocr-doc": "ocr",
    "typo": "fuzzy",
    "ocr-query": "ocr",
    "split-table": "tables",
}
#: Configurations each variant runs under: no fix, the targeted fix ("fix"), every fix.
CONFIGURATIONS = ("none", "fix", "all")


def wilson_interval(passed: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``passed / total`` (``(0, 1)`` when total is 0)."""
    if total <= 0:
        return (0.0, 1.0)
    p = passed / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * ((p * (1 - p) / total + z * z / (4 * total * total)) ** 0.5) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class FaultedVariant:
    """One case with one fault injected: the query asked, the documents that changed (by id,
    in list order, with ``injected`` naming those ragdash added or damaged) and the corpus
    the retriever ran over."""

    fault: str
    case: Case  # the case as run (the query may be corrupted)
    original_query: str
    variant: str  # e.g. "dated", "withdrawn", "reworded", "damaged", "label-value"
    injected: tuple[str, ...]  # document ids ragdash added or damaged
    corpus: Corpus = field(repr=False, compare=False)
    note: str = ""

    def documents(self) -> tuple[Document, ...]:
        return self.corpus.documents


@dataclass(frozen=True)
class StressResult:
    """One faulted variant under one configuration against one retriever."""

    case: str
    fault: str
    variant: str
    configuration: str  # "none", the fix's name, or "all"
    retriever: str
    query: str
    passed: bool
    diagnosis: str
    first_id: str
    missing_evidence: tuple[str, ...]
    injected: tuple[str, ...]


@dataclass(frozen=True)
class StressCell:
    """Passed/total for one fault × configuration × retriever, with the 95% interval."""

    fault: str
    configuration: str
    retriever: str
    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.passed, self.total)


@dataclass(frozen=True)
class StressReport:
    """Everything a stress run found."""

    cells: tuple[StressCell, ...]
    results: tuple[StressResult, ...]
    cases: tuple[Case, ...]
    skipped: tuple[tuple[str, str, str], ...]  # (fault, case, reason)
    injected: tuple[str, ...]
    seed: int
    rate: float
    faults: tuple[str, ...]
    retrievers: tuple[str, ...]
    cancelled: bool = False

    def cell(self, fault: str, configuration: str, retriever: str) -> StressCell | None:
        for c in self.cells:
            if (c.fault, c.configuration, c.retriever) == (fault, configuration, retriever):
                return c
        return None

    def to_dict(self) -> dict:
        raise NotImplementedError


def run_stress(
    corpus: Corpus,
    cases: Sequence[Case],
    *,
    faults: Sequence[str] = FAULTS,
    rate: float = 0.3,
    seed: int = 0,
    retrievers: Sequence[RetrieverSpec | str] = ("seed",),
    jobs: int = 1,
    progress: Callable[[float, str], None] | None = None,
    cancel: Event | None = None,
) -> StressReport:
    """Inject every fault into every case and run the proof check under each configuration."""
    raise NotImplementedError


def faulted_variant(
    corpus: Corpus, case: Case, fault: str, *, rate: float = 0.3, seed: int = 0
) -> FaultedVariant | None:
    """The faulted corpus and query of one case and fault (None when the fault does not apply,
    e.g. no table row holds the evidence) — what Explore shows for a matrix cell."""
    raise NotImplementedError
