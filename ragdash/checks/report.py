"""Plain-data (JSON-ready) views of results, shared by the CLI and the dashboard downloads."""

from __future__ import annotations

from typing import Any

from ragdash.checks.proof import ProofCheck
from ragdash.ingestion.documents import Passage
from ragdash.retrieval.matching import TokenMatch
from ragdash.retrieval.ranking import RankedPassage


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
