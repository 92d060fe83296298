"""Running a case set against any retriever: proof check, metrics and a message per case.

:func:`ragdash.checks.proof.check_case` asks ragdash's own scorer. A team's retriever can
fail in ways the scorer cannot — a service that is down, slow, answering junk or ids the
corpus does not have — and a run of fifty cases must still finish and say, per case, what
happened. :func:`run_cases` asks the retriever once per case for
``max(case.top_k, metrics k)`` passages, judges the first ``top_k`` (the proof check) and
scores the first ``k`` (the metrics)::

    >>> runs = run_cases(make_retriever("bm25", index), cases, Fixes())     # doctest: +SKIP
    >>> [(r.case.name, r.verdict, r.error or r.notes) for r in runs][:1]    # doctest: +SKIP
    [('stale-version', 'fail', ())]

A :class:`ragdash.errors.RetrieverError` becomes the case's ``error`` (verdict ``error``);
a bad query (``QueryError``) is bad input and is raised, as with the seed scorer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from ragdash.case import Case
from ragdash.checks.ablation import AblationRow, ablation_row
from ragdash.checks.metrics import (
    DEFAULT_METRIC_K,
    CaseMetrics,
    Metrics,
    case_metrics,
    summarize,
)
from ragdash.checks.proof import ProofCheck, judge
from ragdash.errors import RetrieverError
from ragdash.retrieval.hits import Retriever
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import Fixes

__all__ = [
    "ERROR",
    "CaseRun",
    "MetricsRow",
    "RunRow",
    "metrics_of",
    "run_cases",
    "run_configurations",
]

#: The verdict and diagnosis of a case the retriever failed on.
ERROR = "error"


@dataclass(frozen=True)
class CaseRun:
    """One case against one retriever under one set of fixes."""

    case: Case
    fixes: Fixes
    check: ProofCheck | None  # None when the retriever failed
    retrieved: tuple[RankedPassage, ...] = ()  # the top max(top_k, k) passages
    metrics: CaseMetrics | None = None
    query_sent: str = ""
    notes: tuple[str, ...] = field(default=())
    error: str = ""

    @property
    def passed(self) -> bool:
        return self.check is not None and self.check.passed

    @property
    def verdict(self) -> str:
        """``pass``, ``fail`` or ``error``."""
        if self.check is None:
            return ERROR
        return "pass" if self.check.passed else "fail"

    @property
    def diagnosis(self) -> str:
        """The proof check's diagnosis, or ``error``."""
        return self.check.diagnosis.value if self.check is not None else ERROR

    @property
    def message(self) -> str:
        """What a user should read about this case besides the verdict: the error, or the
        notes (a repaired query, ids not in the corpus)."""
        return self.error or "; ".join(self.notes)


def run_case(retriever: Retriever, case: Case, fixes: Fixes, k: int) -> CaseRun:
    """Ask once, judge the top ``case.top_k``, score the top ``k``."""
    depth = max(case.top_k, 1, k)
    try:
        retrieval = retriever.retrieve(case.query, fixes, depth)
    except RetrieverError as exc:
        return CaseRun(case, fixes, None, error=str(exc))
    ranked = retrieval.ranked
    return CaseRun(
        case,
        fixes,
        judge(case, ranked, fixes),
        ranked,
        case_metrics(case, ranked, k),
        retrieval.query_sent,
        retrieval.notes,
    )


def run_cases(
    retriever: Retriever,
    cases: Sequence[Case],
    fixes: Fixes,
    k: int = DEFAULT_METRIC_K,
    progress: Callable[[float, str], None] | None = None,
) -> list[CaseRun]:
    """Every case, in order; the run always finishes (a failing retriever gives ``error``
    runs). Raises ``QueryError`` for a case whose query cannot be run at all."""
    runs = []
    for n, case in enumerate(cases):
        if progress:
            progress(n / max(len(cases), 1), case.name)
        runs.append(run_case(retriever, case, fixes, k))
    return runs


def metrics_of(runs: Sequence[CaseRun], k: int = DEFAULT_METRIC_K) -> Metrics:
    """The metrics of a run (see :mod:`ragdash.checks.metrics`)."""
    return summarize([(r.case, r.metrics) for r in runs], k)


@dataclass(frozen=True)
class RunRow(AblationRow):
    """One case under one named configuration against a retriever: an ablation row plus
    what the user should read about it (the retriever's error, or its notes)."""

    message: str = ""


@dataclass(frozen=True)
class MetricsRow:
    """The metrics of one configuration's run (columns of the metrics table; the pages and
    the CLI show them under :data:`ragdash.checks.metrics.METRIC_NAMES`)."""

    configuration: str
    passed: int
    errors: int
    hit_at_k: float
    recall_at_k_docs: float
    recall_at_k_evidence: float | None
    mrr: float
    ndcg_at_k: float


def run_configurations(
    retriever: Retriever,
    cases: Sequence[Case],
    configurations: Mapping[str, Fixes],
    k: int = DEFAULT_METRIC_K,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[tuple[RunRow, ...], tuple[MetricsRow, ...]]:
    """Every case under every configuration: (one :class:`RunRow` per case and
    configuration — the ablation table with the ``error`` diagnosis for a case the retriever
    failed on — and one :class:`MetricsRow` per configuration)."""
    rows: list[RunRow] = []
    metric_rows: list[MetricsRow] = []
    total = max(len(configurations), 1)
    for n, (label, fixes) in enumerate(configurations.items()):
        if progress:
            progress(n / total, label)
        runs = run_cases(retriever, cases, fixes, k)
        for run in runs:
            if run.check is not None:
                base = asdict(ablation_row(label, run.check))
            else:
                base = {"case": run.case.name, "kind": run.case.kind, "configuration": label,
                        "passed": False, "diagnosis": ERROR, "first_id": "",
                        "missing_evidence": ""}  # fmt: skip
            rows.append(RunRow(**base, message=run.message))
        summary = metrics_of(runs, k)
        metric_rows.append(
            MetricsRow(
                configuration=label,
                passed=sum(r.passed for r in runs),
                errors=summary.errors,
                hit_at_k=round(summary.hit, 3),
                recall_at_k_docs=round(summary.doc_recall, 3),
                recall_at_k_evidence=(
                    None if summary.evidence_recall is None else round(summary.evidence_recall, 3)
                ),
                mrr=round(summary.mrr, 3),
                ndcg_at_k=round(summary.ndcg, 3),
            )
        )
    return tuple(rows), tuple(metric_rows)
