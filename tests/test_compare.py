"""Comparing rankings: what moved between no fixes and the current fixes, and why."""

from __future__ import annotations

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
