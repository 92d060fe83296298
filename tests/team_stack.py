"""A team's own retrieval stack for the tests: BM25 (the ``bm25s`` library) in both python forms.

``search(query, top_k)`` is the plain form: an index the team built once from the raw
passages (``ragdash passages --fixes none``) of ``$TEAM_STACK_DOCS`` (default: the bundled
samples), which no fix can re-index.
``build(passages, options)`` is the factory form: ragdash hands it the passages the
corpus-side fixes leave and it indexes those. ``BUILDS`` counts the factory's builds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import bm25s

from ragdash.text import tokenize

__all__ = ["BUILDS", "build", "search"]

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
BUILDS: list[Mapping[str, Any]] = []


def _searcher(records: Sequence[Mapping[str, Any]]) -> Callable[[str, int], list[dict]]:
    model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    model.index([tokenize(r["text"]) or ["_"] for r in records], show_progress=False)

    def run(query: str, top_k: int) -> list[dict]:
        tokens = tokenize(query)
        scores = model.get_scores(tokens) if tokens else [0.0] * len(records)
        order = sorted(range(len(records)), key=lambda i: -scores[i])[:top_k]
        return [{"id": records[i]["doc_id"], "text": records[i]["text"],
                 "score": float(scores[i])} for i in order if scores[i] > 0]

    return run


@cache
def _raw(folder: str) -> Callable[[str, int], list[dict]]:
    from ragdash.ingestion.ingest import load_folder
    from ragdash.retrieval.index import CorpusIndex
    from ragdash.settings import Fixes
    from ragdash.storage.passages_export import passage_records

    return _searcher(list(passage_records(CorpusIndex(load_folder(folder)), Fixes())))


def search(query: str, top_k: int) -> list[dict]:
    return _raw(os.environ.get("TEAM_STACK_DOCS") or str(SAMPLES))(query, top_k)


def build(passages: Sequence[Mapping[str, Any]], options: Mapping[str, Any]):
    BUILDS.append({"options": dict(options), "texts": [p["text"] for p in passages]})
    return _searcher(passages)


def make_index(docs: Sequence[Mapping[str, Any]], settings: Mapping[str, Any]):
    """A factory whose first parameter is not named ``passages``: ``--factory`` says so."""
    return build(docs, settings)
