"""Comparing rankings: what moved between no fixes and the current fixes, and why."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragdash.retrieval.compare import compare_rankings, tie_explanation, withdrawn_explanation
from ragdash.settings import Fixes


def moves(index, query, fixes, k=2):
    before = index.search(query, Fixes())
    after = index.search(query, fixes)
    found = {}
    for m in compare_rankings(before, after, k, fixes):
        found.setdefault(m.label.split()[0], m)
        found[m.label] = m
    return found


def test_recency_explains_the_new_winner_by_its_date(sample_index):
    found = moves(sample_index, "return policy days", Fixes.parse("recency"))
    new = found["returns-2026"]
    assert (new.rank_before, new.rank_after, new.change) == (2, 1, "up")
    assert "newest" in new.reason and "2026-01-05" in new.reason


def test_status_says_the_withdrawn_document_is_gone(sample_index):
    found = moves(sample_index, "return policy days", Fixes.parse("status"))
    gone = found["returns-2024"]
    assert gone.rank_after is None and gone.change == "gone" and "withdrawn" in gone.reason


def test_fuzzy_names_the_token_that_now_matches(sample_index):
    found = moves(sample_index, "warehuse sync", Fixes.parse("fuzzy"))
    assert found["inventory"].change == "up"
    assert "'warehuse' matches 'warehouse'" in found["inventory"].reason


def test_tables_fix_passages_are_traced_to_the_page_they_came_from(sample_index):
    found = moves(sample_index, "basic plan storage", Fixes.parse("tables"), k=1)
    table = found["plans p1-2 #2"]
    assert table.rank_after == 1 and "re-cut by the tables fix" in table.reason


def test_tie_explanations_say_what_decided(sample_index):
    none = tie_explanation(sample_index.search("return policy days", Fixes()), Fixes())
    assert none is not None and none.startswith("returns-2024 wins over returns-2026")
    assert "list order" in none and "older" in none
    on = Fixes.parse("recency")
    recency = tie_explanation(sample_index.search("return policy days", on), on)
    assert recency is not None and "2026-01-05 vs 2024-02-01" in recency
    no_tie = tie_explanation(sample_index.search("return policy 30 days", Fixes()), Fixes())
    assert no_tie is None


def test_status_explains_that_a_withdrawn_rival_was_left_out(sample_index):
    query, on = "return policy days", Fixes.parse("status")
    unfiltered = sample_index.search(query, Fixes())
    why = withdrawn_explanation(unfiltered, sample_index.search(query, on), on)
    assert why is not None and why.startswith("returns-2026 wins: returns-2024 would tie")
    assert "withdrawn" in why and "score 3 vs 3" in why
    # Nothing to say without the status fix, or when the withdrawn document was not ahead.
    assert withdrawn_explanation(unfiltered, unfiltered, Fixes()) is None
    sync = sample_index.search("warehouse sync", on)
    assert withdrawn_explanation(sample_index.search("warehouse sync", Fixes()), sync, on) is None


# --- the fast comparison equals the straightforward one --------------------------------------


def reference_compare(before, after, top_k, fixes):
    """The straightforward comparison (every passage against every passage, quadratic):
    the reference :func:`compare_rankings` must equal."""
    from ragdash.retrieval.compare import Movement, _key, _reason

    def counterpart(a):
        same = [b for b in before if _key(b) == _key(a)]
        if same:
            return same[0]
        p = a.passage
        overlapping = [
            b for b in before
            if b.doc_id == a.doc_id and b.passage.page_start <= p.page_end
            and p.page_start <= b.passage.page_end
        ]  # fmt: skip
        if not overlapping:
            return None
        return max(overlapping, key=lambda b: (len(b.passage.tokens & p.tokens), -b.rank))

    movements, claimed = [], set()
    for a in after:
        b = counterpart(a)
        if a.rank > top_k and (b is None or b.rank > top_k):
            continue
        if b is not None:
            claimed.add(_key(b))
        movements.append(Movement(a.passage.label, a.doc_id, b.rank if b else None, a.rank,
                                  b.score if b else None, a.score, _reason(b, a, fixes)))
    for b in before[:top_k]:
        if _key(b) not in claimed:
            movements.append(Movement(b.passage.label, b.doc_id, b.rank, None, b.score, None,
                                      _reason(b, None, fixes)))
    return movements


QUERIES = ["return policy days", "warehuse sync", "basic plan storage", "Enterpr1se SS0",
           "plan", "sync every minutes", "10 Go"]  # fmt: skip


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("spec", ["recency", "status", "tables", "all", "ocr,fuzzy"])
@pytest.mark.parametrize("k", [1, 3, 20])
def test_compare_rankings_equals_the_reference_on_the_testbed(sample_index, query, spec, k):
    fixes = Fixes.parse(spec)
    before = sample_index.search(query, Fixes())
    after = sample_index.search(query, fixes)
    assert compare_rankings(before, after, k, fixes) == reference_compare(before, after, k, fixes)


@settings(max_examples=60, deadline=None)
@given(
    docs=st.lists(
        st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "alpha beta"]),
                 min_size=1, max_size=4),
        min_size=1, max_size=5,
    ),
    k=st.integers(1, 6),
    seed=st.integers(0, 10**6),
)  # fmt: skip
def test_compare_rankings_equals_the_reference_on_random_rankings(docs, k, seed):
    """Random documents of random passages (duplicate texts, re-cut pages) ranked in two
    random orders, some passages only on one side."""
    import random

    from ragdash.ingestion.documents import Passage
    from ragdash.retrieval.ranking import RankedPassage

    rng = random.Random(seed)
    passages = [
        Passage(f"d{d}", text, page, page, pos, d, "page")
        for d, texts in enumerate(docs)
        for pos, (page, text) in enumerate((rng.randint(1, 3), t) for t in texts)
    ]

    def ranking(pool):
        pool = list(pool)
        rng.shuffle(pool)
        return [RankedPassage(i, p, float(rng.randint(0, 3))) for i, p in enumerate(pool, 1)]

    before = ranking(p for p in passages if rng.random() < 0.8)
    after = ranking(p for p in passages if rng.random() < 0.8)
    fixes = Fixes.parse("recency,tables")
    assert compare_rankings(before, after, k, fixes) == reference_compare(before, after, k, fixes)
