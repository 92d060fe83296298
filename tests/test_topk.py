"""The top-k fast path with the versions and recency fixes returns exactly the first k of
the full reorder — on corpora where whole families tie, so the moves reach deep."""

from __future__ import annotations

import random

import pytest
from conftest import make_document, make_index

from ragdash.retrieval import inverted
from ragdash.retrieval.ranking import rank_passages
from ragdash.retrieval.topk import names_a_version
from ragdash.settings import Fixes

VOCAB = ["refund", "policy", "days", "return", "sync", "plan", "warehouse", "basic", "form"]


def family_corpus(rng: random.Random):
    """Many versions of few documents (ids and subjects alike once years go), few words:
    scores tie across whole families, and detected pairs share most of their text."""
    docs = []
    base = {name: " ".join(rng.choices(VOCAB, k=10)) for name in ("policy", "guide", "faq")}
    for i in range(rng.randint(8, 30)):
        name = rng.choice(list(base))
        text = base[name] if rng.random() < 0.5 else " ".join(rng.choices(VOCAB, k=8))
        pages = [text, " ".join(rng.choices(VOCAB, k=5))] if rng.random() < 0.3 else text
        year = rng.choice(["2021", "2022", "2023", "2024", "2025"])
        doc_id = f"{name}-{year}-{i}"
        docs.append(
            make_document(
                doc_id, pages, order=i,
                updated=rng.choice([None, f"{year}-03-01", f"{year}-09-01"]),
                status=rng.choice(["current", "current", "current", "withdrawn"]),
                subject=rng.choice([f"{name.title()} {year}", ""]),
            )
        )  # fmt: skip
    return make_index(*docs)


def outcome(ranked):
    return [(r.rank, r.passage, r.score, r.breakdown, r.moved) for r in ranked]


@pytest.mark.parametrize("share", [0.0, 1e9], ids=["dense", "sparse"])
@pytest.mark.parametrize(
    "spec", ["recency", "versions", "recency,versions", "recency,versions,status", "all"]
)
def test_top_k_with_moving_fixes_equals_the_full_reorder(spec, share, monkeypatch):
    monkeypatch.setattr(inverted, "DENSE_SHARE", share)
    rng = random.Random(spec)
    moved = 0
    for _ in range(25):
        index = family_corpus(rng)
        fixes = Fixes.parse(spec)
        for _ in range(4):
            query = " ".join(rng.sample(VOCAB, rng.randint(1, 3)))
            full = outcome(rank_passages(index.passages(fixes.tables), query, fixes))
            moved += sum(1 for row in full if row[4])
            for k in (1, 2, 3, 5, 8, 40):
                assert outcome(index.top(query, fixes, k)) == full[:k], (query, k)
    assert moved  # the corpora do make the fixes move passages


def test_a_query_naming_a_version_takes_the_full_reorder():
    assert names_a_version(["policy", "2023"]) and names_a_version(["guide", "v2"])
    assert not names_a_version(["policy", "c0ntract", "refund"])
    index = make_index(
        make_document("policy-2023", "refund within 30 days", updated="2023-01-01"),
        make_document("policy-2025", "refund within 14 days", updated="2025-01-01"),
    )
    fixes = Fixes.parse("recency,versions")
    for query in ("refund policy 2023", "refund days"):
        expected = outcome(rank_passages(index.passages(), query, fixes))
        assert outcome(index.top(query, fixes, 1)) == expected[:1]


def test_small_k_on_more_corpora_gives_the_same_passages_and_reasons_as_the_full_reorder():
    """Small k is where a moved passage comes from beyond the first k places and its reason
    must name an older version found past them: more seeded corpora, k from 1 to 5."""
    rng = random.Random(5)
    for spec in ("recency", "recency,versions", "all"):
        fixes = Fixes.parse(spec)
        for _ in range(60):
            index = family_corpus(rng)
            for _ in range(4):
                query = " ".join(rng.sample(VOCAB, rng.randint(1, 3)))
                full = outcome(rank_passages(index.passages(fixes.tables), query, fixes))
                for k in (1, 2, 3, 5):
                    assert outcome(index.top(query, fixes, k)) == full[:k], (query, k)
