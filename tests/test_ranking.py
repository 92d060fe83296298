"""Scoring and ranking, with every fix an independent switch."""

from __future__ import annotations

import pytest
from conftest import make_document, make_index
from hypothesis import given, settings
from hypothesis import strategies as st

from ragdash.retrieval.ranking import MAX_QUERY_CHARS, QueryError, query_tokens, rank_passages
from ragdash.settings import Fixes


def _ids(ranked):
    return [r.doc_id for r in ranked]


def _index():
    def policy(doc_id, text, **meta):
        return make_document(doc_id, text, subject="Return policy", **meta)

    return make_index(
        policy("old", "return policy 60 days", updated="2024-02-01", status="withdrawn"),
        policy("new", "return policy 30 days", updated="2026-01-05"),
        policy("undated", "return policy for gifts", updated=None),
        make_document("crm", "contacts sync every five minutes", updated="2025-11-03"),
    )


def test_baseline_scores_one_point_per_distinct_query_token_present():
    ranked = _index().search("return return policy days sync", Fixes())
    scores = {r.doc_id: r.score for r in ranked}
    assert scores == {"old": 3, "new": 3, "undated": 2, "crm": 1}


def test_breakdown_has_one_line_per_distinct_query_token_in_query_order():
    first = _index().search("Days return days unknownword", Fixes())[0]
    assert [m.query_token for m in first.breakdown] == ["days", "return", "unknownword"]
    assert [m.kind for m in first.breakdown] == ["exact", "exact", "none"]
    assert [m.points for m in first.breakdown] == [1.0, 1.0, 0.0]
    assert first.score == sum(m.points for m in first.breakdown)


def test_ties_keep_list_order_at_baseline():
    ranked = _index().search("return policy", Fixes())
    assert _ids(ranked)[:3] == ["old", "new", "undated"]
    assert [r.rank for r in ranked] == [1, 2, 3, 4]


def test_every_passage_is_ranked_even_with_no_match():
    ranked = _index().search("nothing matches", Fixes())
    assert _ids(ranked) == ["old", "new", "undated", "crm"]
    assert {r.score for r in ranked} == {0}


def test_recency_breaks_ties_between_versions_newest_first_and_withdrawn_last():
    # "old" is withdrawn: a current version, even undated, is newer than it.
    ranked = _index().search("return policy", Fixes(recency=True))
    assert _ids(ranked)[:3] == ["new", "undated", "old"]


def test_recency_never_reorders_unrelated_documents_that_tie():
    index = make_index(
        make_document("backup-guide", "restore a backup", updated="2023-05-01"),
        make_document("release-notes", "backup restore changes", updated="2026-02-01"),
    )
    for fixes in (Fixes(), Fixes(recency=True)):
        assert _ids(index.search("backup restore", fixes)) == ["backup-guide", "release-notes"]


def test_a_query_that_matches_nothing_keeps_list_order_whatever_the_dates():
    ranked = _index().search("nothing matches", Fixes(recency=True, versions=True))
    assert _ids(ranked) == ["old", "new", "undated", "crm"]
    assert not any(r.matched for r in ranked)


def test_recency_says_which_version_it_put_first():
    first = _index().search("return policy", Fixes(recency=True))[0]
    assert first.doc_id == "new"
    assert "new (2026-01-05) ranks above old (2024-02-01)" in first.moved
    assert first.moved.startswith("Recency tie-break")


def test_recency_never_outweighs_score():
    ranked = _index().search("policy for gifts", Fixes(recency=True))
    assert _ids(ranked)[0] == "undated"


def test_status_never_retrieves_withdrawn_documents():
    assert "old" in _ids(_index().search("60 days", Fixes()))
    ranked = _index().search("60 days", Fixes(status=True))
    assert "old" not in _ids(ranked)
    assert _ids(ranked)[0] == "new"


def test_fuzzy_lets_a_typo_find_its_document_but_exact_matches_still_win():
    index = make_index(
        make_document("crm", "contacts sync from the crm"),
        make_document("inventory", "stock sync from the warehouse"),
        make_document("depot", "the warehouse depot sync list"),
    )
    assert _ids(index.search("warehuse sync", Fixes()))[0] == "crm"
    ranked = index.search("warehuse sync", Fixes(fuzzy=True))
    assert _ids(ranked)[:2] == ["inventory", "depot"]
    fuzzy = ranked[0].breakdown[0]
    assert (fuzzy.kind, fuzzy.passage_token) == ("fuzzy", "warehouse")
    assert 1 < ranked[0].score < 2  # a fuzzy point is worth less than an exact one
    assert index.search("warehouse depot", Fixes(fuzzy=True))[0].doc_id == "depot"


def test_ocr_fix_matches_damaged_passages():
    index = make_index(
        make_document("crm", "sso login for the crm"),
        make_document("plans", ["The Enterpr1se plan adds SS0"]),
    )
    assert _ids(index.search("enterprise sso", Fixes()))[0] == "crm"
    ranked = index.search("enterprise sso", Fixes(ocr=True))
    assert _ids(ranked)[0] == "plans"
    assert ranked[0].score == 1.98  # two repaired tokens: 0.99 each, a hair below exact
    assert {m.kind for m in ranked[0].breakdown} == {"ocr"}


@pytest.mark.parametrize("query", ["", "   ", "?!.,;"])
def test_a_query_without_letters_or_digits_is_refused(query):
    with pytest.raises(QueryError, match="empty"):
        _index().search(query, Fixes())


def test_an_overlong_query_is_refused_with_the_limit():
    with pytest.raises(QueryError, match=str(MAX_QUERY_CHARS)):
        query_tokens("a " * MAX_QUERY_CHARS)


def test_query_tokens_are_distinct_and_in_order():
    assert query_tokens("Sync, sync; SYNC the warehouse") == ["sync", "the", "warehouse"]


def test_ranking_an_empty_pool_returns_nothing():
    index = make_index(make_document("old", "return policy", status="withdrawn"))
    assert index.search("return", Fixes(status=True)) == []
    assert rank_passages([], "return", Fixes.all()) == []


# --- Fixes ---------------------------------------------------------------------------------


# --- properties ----------------------------------------------------------------------------

WORDS = [
    "return", "returns", "policy", "policies", "days", "sync", "synch", "warehouse",
    "warehouses", "plan", "plans", "storage", "basic", "pro", "enterpr1se", "enterprise",
    "ss0", "sso", "30", "60", "10", "minutes",
]  # fmt: skip

DOCS = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=8),
        st.sampled_from(["current", "withdrawn"]),
        st.one_of(st.none(), st.dates().map(str)),
        st.booleans(),  # PDF (list of pages) or text
    ),
    min_size=1,
    max_size=6,
)
FIX_SETS = st.builds(
    Fixes,
    recency=st.booleans(),
    status=st.booleans(),
    ocr=st.booleans(),
    fuzzy=st.booleans(),
    tables=st.booleans(),
)
QUERY = st.lists(st.sampled_from([*WORDS, "warehuse", "polcy", "xyz"]), min_size=1, max_size=5)


def _build(docs):
    built = []
    for i, (words, status, updated, is_pdf) in enumerate(docs):
        text = " ".join(words)
        body = [text[: len(text) // 2], text[len(text) // 2 :]] if is_pdf else text
        built.append(make_document(f"d{i}", body, updated=updated, status=status))
    return make_index(*built)


def _outcome(ranked):
    return [(r.doc_id, r.passage.position, r.score, r.breakdown) for r in ranked]


@settings(max_examples=60, deadline=None)
@given(DOCS, QUERY, FIX_SETS)
def test_ranking_is_deterministic(docs, query, fixes):
    text = " ".join(query)
    assert _outcome(_build(docs).search(text, fixes)) == _outcome(_build(docs).search(text, fixes))


@settings(max_examples=60, deadline=None)
@given(DOCS, QUERY, FIX_SETS)
def test_status_never_returns_a_withdrawn_document(docs, query, fixes):
    fixes = fixes.with_only([*fixes.enabled, "status"])
    index = _build(docs)
    ranked = index.search(" ".join(query), fixes)
    assert all(r.passage.status != "withdrawn" for r in ranked)
    current = [p for p in index.passages(fixes.tables) if p.status != "withdrawn"]
    assert len(ranked) == len(current)


@settings(max_examples=60, deadline=None)
@given(DOCS, st.data(), FIX_SETS)
def test_fuzzy_never_changes_the_ranking_of_a_query_whose_tokens_all_occur(docs, data, fixes):
    index = _build(docs)
    pool = [p for p in index.passages(fixes.tables) if not fixes.status or p.status == "current"]
    vocabulary = sorted(set().union(*(p.tokens for p in pool)))
    if not vocabulary:
        return
    query = " ".join(data.draw(st.lists(st.sampled_from(vocabulary), min_size=1, max_size=5)))
    without = fixes.with_only([n for n in fixes.enabled if n != "fuzzy"])
    with_fuzzy = without.with_only([*without.enabled, "fuzzy"])
    assert _outcome(index.search(query, with_fuzzy)) == _outcome(index.search(query, without))


def test_versions_puts_the_new_version_in_the_old_one_s_place_and_names_the_pair():
    index = make_index(
        make_document(
            "policy-2023", "staff work from home two days a week, ask your manager",
            updated="2023-03-01", subject="Remote work policy",
        ),
        make_document("faq", "work questions answered", updated="2025-01-01"),
        make_document(
            "policy-2025", "staff work remotely three days a week, ask your manager",
            updated="2025-09-01", subject="Remote work policy",
        ),
    )
    query = "work from home days"
    assert _ids(index.search(query, Fixes()))[:3] == ["policy-2023", "policy-2025", "faq"]
    ranked = index.search(query, Fixes(versions=True))
    assert _ids(ranked)[:3] == ["policy-2025", "policy-2023", "faq"]
    assert "ranks above its older version policy-2023" in ranked[0].moved
    assert "looks like an older version of policy-2025" in ranked[0].moved
    # A query that names the old version asks for it.
    named = index.search("2023 work from home days", Fixes(versions=True, recency=True))
    assert _ids(named)[0] == "policy-2023"
