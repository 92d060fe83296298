"""How a query token matches a passage token: exact, OCR-normalized or fuzzy."""

from __future__ import annotations

import pytest

from ragdash.matching import (
    EXACT,
    FUZZY,
    NONE,
    OCR,
    MatchSettings,
    fuzzy_eligible,
    fuzzy_similarity,
    plan_query,
)

VOCAB = {"warehouse", "sync", "enterpr1se", "sso", "plan", "100", "storage"}


def _best(query_token, passage_tokens, settings, vocab=VOCAB):
    plan = plan_query([query_token], vocab, settings)
    return plan.best_match(query_token, frozenset(passage_tokens))


def test_an_exact_match_scores_one_point():
    match = _best("sync", {"sync", "plan"}, MatchSettings())
    assert (match.kind, match.passage_token, match.points, match.similarity) == (
        EXACT,
        "sync",
        1.0,
        100.0,
    )


def test_a_token_absent_from_the_passage_scores_nothing():
    match = _best("sync", {"plan"}, MatchSettings(ocr=True, fuzzy=True))
    assert (match.kind, match.passage_token, match.points) == (NONE, None, 0.0)


def test_ocr_damage_in_the_passage_matches_only_with_the_ocr_fix():
    assert _best("enterprise", {"enterpr1se"}, MatchSettings()).kind == NONE
    match = _best("enterprise", {"enterpr1se"}, MatchSettings(ocr=True))
    assert (match.kind, match.passage_token, match.points) == (OCR, "enterpr1se", 1.0)
    assert "enterpr1se → enterprise" in match.note


def test_ocr_damage_in_the_query_matches_the_clean_word():
    match = _best("ss0", {"sso"}, MatchSettings(ocr=True), vocab={"sso"})
    assert (match.kind, match.passage_token, match.points) == (OCR, "sso", 1.0)
    assert "ss0 → sso" in match.note


def test_ocr_never_turns_a_number_into_a_word():
    vocab = {"io", "10"}
    plan = plan_query(["10"], vocab, MatchSettings(ocr=True))
    assert set(plan.candidates["10"]) == {"10"}


def test_a_custom_ocr_map_is_used():
    match = _best("base", {"ba5e"}, MatchSettings(ocr=True, ocr_map={"5": "s"}), {"ba5e"})
    assert match.kind == OCR
    assert _best("base", {"ba5e"}, MatchSettings(ocr=True), {"ba5e"}).kind == NONE


def test_a_misspelling_matches_fuzzily_for_less_than_a_point():
    assert _best("warehuse", {"warehouse"}, MatchSettings()).kind == NONE
    match = _best("warehuse", {"warehouse"}, MatchSettings(fuzzy=True))
    assert match.kind == FUZZY
    assert match.passage_token == "warehouse"
    assert 80 <= match.similarity < 100
    assert match.points == pytest.approx(match.similarity / 100, abs=1e-4)
    assert match.points < 1


def test_fuzzy_is_not_used_when_the_token_exists_in_the_vocabulary():
    # "storage" is in the vocabulary: a passage holding only "storages" must not match it.
    vocab = VOCAB | {"storages"}
    plan = plan_query(["storage"], vocab, MatchSettings(fuzzy=True))
    assert set(plan.candidates["storage"]) == {"storage"}
    assert plan.best_match("storage", frozenset({"storages"})).kind == NONE


def test_fuzzy_is_not_used_when_an_ocr_match_exists():
    plan = plan_query(["enterprise"], VOCAB | {"enterprize"}, MatchSettings(ocr=True, fuzzy=True))
    assert {m.kind for m in plan.candidates["enterprise"].values()} == {OCR}


def test_the_threshold_limits_fuzzy_matches():
    strict = _best("warehuse", {"warehouse"}, MatchSettings(fuzzy=True, threshold=99))
    assert strict.kind == NONE
    loose = _best("wrhs", {"warehouse"}, MatchSettings(fuzzy=True, threshold=50))
    assert loose.kind == FUZZY


@pytest.mark.parametrize("token", ["100", "x10", "sso", "abc"])
def test_numbers_codes_and_short_words_never_match_fuzzily(token):
    assert not fuzzy_eligible(token)
    plan = plan_query([token], {"1000", "x100", "ssoo", "abcd"}, MatchSettings(fuzzy=True))
    assert plan.candidates[token] == {}


def test_the_best_match_is_the_closest_spelling():
    match = _best("warehuse", {"warehouse", "warehouses"}, MatchSettings(fuzzy=True))
    assert match.passage_token == "warehouse"


def test_fuzzy_similarity_is_a_0_to_100_ratio():
    assert fuzzy_similarity("sync", "sync") == 100.0
    assert fuzzy_similarity("abcd", "wxyz") == 0.0
    assert 0 < fuzzy_similarity("warehuse", "warehouse") < 100


def test_plan_keeps_each_distinct_query_token_once_in_order():
    plan = plan_query(["sync", "plan", "sync"], VOCAB, MatchSettings())
    assert plan.tokens == ("sync", "plan")
