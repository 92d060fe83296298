"""Stress shares the clean corpus's work across variants: what a 10,000-passage run would
otherwise pay again per worker or per setting (issue 45)."""

from __future__ import annotations

import pytest

from ragdash.bundled import SAMPLES
from ragdash.checks.generate import generate_cases
from ragdash.checks.stress import run_stress
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval import bm25, families


@pytest.fixture(scope="module")
def samples():
    corpus = load_folder(SAMPLES)
    return corpus, generate_cases(corpus, 6, seed=7)


def test_bm25_stress_tokenizes_the_clean_corpus_once_and_finds_its_families_once(
    samples, monkeypatch
):
    """The clean BM25 retriever's indexes come from the token rows every variant uses (no
    Bm25Index.build, which tokenized the whole corpus again per setting), and the clean
    version families are worked out once per passage set, not again per retriever setting;
    the report is the one a fresh build gives (tests/test_stress.py)."""
    corpus, cases = samples
    builds, found = [], []
    real_build, real_families = bm25.Bm25Index.build.__func__, families.families_of

    def counting_build(cls, passages, fixes=None):
        builds.append(len(passages))
        return real_build(cls, passages, fixes)

    def counting_families(passages):
        found.append(len(passages))
        return real_families(passages)

    monkeypatch.setattr(bm25.Bm25Index, "build", classmethod(counting_build))
    monkeypatch.setattr(bm25, "families_of", counting_families)
    monkeypatch.setattr(families, "families_of", counting_families)
    import ragdash.retrieval.inverted as inverted

    monkeypatch.setattr(inverted, "families_of", counting_families)
    report = run_stress(corpus, cases, seed=7, retrievers=("bm25",))
    assert report.results
    # the clean corpus's families: per passage set (tables fix off and on, the samples hold
    # PDFs), once for all its passages and once for the current ones — no more
    assert len(found) <= 4, found
    assert builds == []
