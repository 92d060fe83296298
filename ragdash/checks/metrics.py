"""Standard retrieval metrics over a case set: hit@k, recall@k, MRR and nDCG@k.

The proof check asks one strict question per case (expected document first, every evidence
string in the top-k text). A team comparing retrievers also wants the numbers papers and
tools report, over the same cases. Per case, with ``r`` the rank of the first passage of the
expected document among the top ``k`` retrieved passages (none if it is not there):

* ``hit@k``             = 1 if ``r`` exists, else 0
* ``recall@k (docs)``   = expected documents found in the top k / expected documents
  (a case names one expected document, so this equals hit@k per case)
* ``recall@k (evidence)`` = evidence strings found in the top-k text / evidence strings
  (found as the proof check finds them: case-insensitive, whitespace collapsed); cases
  without evidence are left out of its mean
* ``MRR``               = mean of ``1 / r`` (0 when not in the top k)
* ``nDCG@k``            = DCG / ideal DCG with binary relevance at document level: only the
  expected document is relevant and only its first passage counts, so the ideal DCG is 1
  and ``nDCG@k = 1 / log2(r + 1)`` (0 when not in the top k)

Each metric is the mean over cases. A case whose retriever failed (a service down, junk)
scores 0 everywhere and is counted in ``errors``. E.g. ranks 1, 3 and "missing" with k=5::

    hit@5 = 2/3 = 0.667   MRR = (1 + 1/3 + 0)/3 = 0.444   nDCG@5 = (1 + 0.5 + 0)/3 = 0.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragdash.case import Case
from ragdash.checks.proof import collapse, context_text
from ragdash.retrieval.ranking import RankedPassage

__all__ = [
    "DEFAULT_METRIC_K",
    "METRIC_NAMES",
    "CaseMetrics",
    "Metrics",
    "case_metrics",
    "summarize",
]

DEFAULT_METRIC_K = 5
#: Column names, in display order.
METRIC_NAMES = ("hit@k", "recall@k docs", "recall@k evidence", "MRR", "nDCG@k")


@dataclass(frozen=True)
class CaseMetrics:
    """One case's metrics at depth ``k``; ``rank`` is None when the expected document is
    not in the top k; ``evidence_recall`` is None for a case without evidence."""

    k: int
    rank: int | None
    evidence_recall: float | None

    @property
    def hit(self) -> float:
        return 1.0 if self.rank is not None else 0.0

    @property
    def doc_recall(self) -> float:
        return self.hit

    @property
    def reciprocal_rank(self) -> float:
        return 1.0 / self.rank if self.rank is not None else 0.0

    @property
    def ndcg(self) -> float:
        return 1.0 / math.log2(self.rank + 1) if self.rank is not None else 0.0


def case_metrics(case: Case, ranked: Sequence[RankedPassage], k: int) -> CaseMetrics:
    """The metrics of ``ranked`` (best first; only the first ``k`` are read) for ``case``."""
    top = list(ranked[:k])
    rank = next((i for i, r in enumerate(top, start=1) if r.doc_id == case.expected_id), None)
    evidence = None
    if case.evidence:
        haystack = collapse(context_text(top))
        evidence = sum(collapse(e) in haystack for e in case.evidence) / len(case.evidence)
    return CaseMetrics(k, rank, evidence)


@dataclass(frozen=True)
class Metrics:
    """The means over a case set (``cases`` of them, ``errors`` of which the retriever
    failed on, ``evidence_cases`` with evidence)."""

    k: int
    cases: int
    errors: int
    evidence_cases: int
    hit: float
    doc_recall: float
    evidence_recall: float | None
    mrr: float
    ndcg: float

    def row(self) -> dict[str, Any]:
        """The metrics as :data:`METRIC_NAMES` columns (rounded to 3 decimals)."""
        values = (self.hit, self.doc_recall, self.evidence_recall, self.mrr, self.ndcg)
        return {
            name: None if v is None else round(v, 3)
            for name, v in zip(METRIC_NAMES, values, strict=True)
        }

    def to_dict(self) -> dict[str, Any]:
        """The documented ``metrics`` object of ``check --json``."""
        return {
            "k": self.k,
            "cases": self.cases,
            "errors": self.errors,
            "evidence_cases": self.evidence_cases,
            "hit_at_k": round(self.hit, 4),
            "recall_at_k_docs": round(self.doc_recall, 4),
            "recall_at_k_evidence": (
                None if self.evidence_recall is None else round(self.evidence_recall, 4)
            ),
            "mrr": round(self.mrr, 4),
            "ndcg_at_k": round(self.ndcg, 4),
        }


def summarize(results: Sequence[tuple[Case, CaseMetrics | None]], k: int) -> Metrics:
    """Means over cases; a ``None`` stands for a case the retriever failed on: 0 everywhere,
    and its evidence (if it has any) counts as not found."""
    n = len(results)
    errors = sum(m is None for _, m in results)

    def mean(values: list[float]) -> float:
        return sum(values) / n if n else 0.0

    evidence = [
        m.evidence_recall if m is not None and m.evidence_recall is not None else 0.0
        for case, m in results
        if case.evidence
    ]
    ok = [m for _, m in results if m is not None]
    return Metrics(
        k=k,
        cases=n,
        errors=errors,
        evidence_cases=len(evidence),
        hit=mean([m.hit for m in ok]),
        doc_recall=mean([m.doc_recall for m in ok]),
        evidence_recall=sum(evidence) / len(evidence) if evidence else None,
        mrr=mean([m.reciprocal_rank for m in ok]),
        ndcg=mean([m.ndcg for m in ok]),
    )
