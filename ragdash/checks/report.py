"""Plain-data (JSON-ready) views of results, shared by the CLI and the dashboard downloads."""

from __future__ import annotations

from typing import Any

from ragdash.checks.proof import ProofCheck
from ragdash.checks.runs import CaseRun
from ragdash.ingestion.documents import Passage
from ragdash.retrieval.matching import TokenMatch
from ragdash.retrieval.ranking import RankedPassage

__all__ = ["check_record", "match_record", "passage_record", "ranked_record", "run_record"]


def _fields(obj: object, names: str) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in names.split()}


def match_record(match: TokenMatch) -> dict[str, Any]:
    record = _fields(match, "query_token passage_token kind similarity points note")
    record["similarity"] = round(match.similarity, 2)
    return record


def passage_record(passage: Passage) -> dict[str, Any]:
    return _fields(passage, "label kind page_start page_end position text")


def ranked_record(ranked: RankedPassage) -> dict[str, Any]:
    return {
        "rank": ranked.rank,
        "doc_id": ranked.doc_id,
        "passage": passage_record(ranked.passage),
        "score": ranked.score,
        "matched": ranked.matched,
        "moved": ranked.moved,  # why recency/versions moved it (the version pair), or ""
        "breakdown": [match_record(m) for m in ranked.breakdown],
    }


def check_record(check: ProofCheck) -> dict[str, Any]:
    """The documented per-case JSON object of ``check --json``."""
    case = check.case
    return {
        "name": case.name,
        "query": case.query,
        "expected_id": case.expected_id,
        "evidence": list(case.evidence),
        "top_k": case.top_k,
        "fixes": check.fixes.label,
        "first_id": check.first_id,
        "ranked": [ranked_record(r) for r in check.ranked],
        "passed": check.passed,
        "diagnosis": check.diagnosis.value,
        "reason": check.reason,
        "missing_evidence": list(check.missing_evidence),
    }


def run_record(run: CaseRun) -> dict[str, Any]:
    """A case of ``check --json`` against any retriever: :func:`check_record`'s fields (the
    top-k passages), plus ``verdict`` (pass / fail / error), ``query_sent`` (after the
    query-side fixes), ``error``, ``notes`` and the case's ``metrics``."""
    case = run.case
    if run.check is not None:
        record = check_record(run.check)
    else:
        record = {
            "name": case.name,
            "query": case.query,
            "expected_id": case.expected_id,
            "evidence": list(case.evidence),
            "top_k": case.top_k,
            "fixes": run.fixes.label,
            "first_id": None,
            "ranked": [],
            "passed": False,
            "diagnosis": run.diagnosis,
            "missing_evidence": list(case.evidence),
        }
    metrics = run.metrics
    record.update(
        verdict=run.verdict,
        query_sent=run.query_sent or None,
        error=run.error or None,
        notes=list(run.notes),
        metrics=None
        if metrics is None
        else {
            "rank": metrics.rank,
            "hit": metrics.hit,
            "reciprocal_rank": round(metrics.reciprocal_rank, 4),
            "ndcg": round(metrics.ndcg, 4),
            "evidence_recall": metrics.evidence_recall,
        },
    )
    return record
