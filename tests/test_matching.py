"""How a query token matches a passage token: exact, OCR-normalized or fuzzy."""

from __future__ import annotations

import pytest

from ragdash.retrieval.matching import (
    MatchKind,
    fuzzy_eligible,
    fuzzy_similarity,
    max_edits,
    plan_query,
)
from ragdash.settings import ES_AUTO, FUZZY_RULES, RATIO, TYPOS_5_9, Fixes

VOCAB = {"warehouse", "sync", "enterpr1se", "sso", "plan", "100", "storage"}


def _best(query_token, passage_tokens, settings, vocab=VOCAB):
    plan = plan_query([query_token], vocab, settings)
    return plan.best_match(query_token, frozenset(passage_tokens))


def test_an_exact_match_scores_one_point():
    match = _best("sync", {"sync", "plan"}, Fixes())
    assert (match.kind, match.passage_token, match.points, match.similarity) == (
        MatchKind.EXACT,
        "sync",
        1.0,
        100.0,
    )


def test_a_token_absent_from_the_passage_scores_nothing():
    match = _best("sync", {"plan"}, Fixes(ocr=True, fuzzy=True))
    assert (match.kind, match.passage_token, match.points) == (MatchKind.NONE, None, 0.0)


def test_ocr_damage_in_the_passage_matches_only_with_the_ocr_fix():
    assert _best("enterprise", {"enterpr1se"}, Fixes()).kind == MatchKind.NONE
    match = _best("enterprise", {"enterpr1se"}, Fixes(ocr=True))
    assert (match.kind, match.passage_token, match.points) == (MatchKind.OCR, "enterpr1se", 0.99)
    assert "1→i: 'enterpr1se' → 'enterprise'" in match.note


def test_ocr_damage_in_the_query_matches_the_clean_word():
    match = _best("ss0", {"sso"}, Fixes(ocr=True), vocab={"sso"})
    assert (match.kind, match.passage_token, match.points) == (MatchKind.OCR, "sso", 0.99)
    assert match.note == "query 0→o: 'ss0' → 'sso', 'sso' appears in 1 document"


def test_ocr_never_turns_a_number_into_a_word():
    vocab = {"io", "10"}
    plan = plan_query(["10"], vocab, Fixes(ocr=True))
    assert set(plan.candidates["10"]) == {"10"}


def test_a_custom_ocr_map_is_used():
    vocab = {"ba5e": 1, "base": 2}
    match = _best("base", {"ba5e"}, Fixes(ocr=True, ocr_map={"5": "s"}), vocab)
    assert match.kind == MatchKind.OCR
    assert (
        _best("base", {"ba5e"}, Fixes(ocr=True, ocr_map={"0": "o"}), vocab).kind == MatchKind.NONE
    )


def test_a_misspelling_matches_fuzzily_for_less_than_a_point():
    assert _best("warehuse", {"warehouse"}, Fixes()).kind == MatchKind.NONE
    match = _best("warehuse", {"warehouse"}, Fixes(fuzzy=True))
    assert match.kind == MatchKind.FUZZY
    assert match.passage_token == "warehouse"
    assert 80 <= match.similarity < 100
    assert match.points == pytest.approx(match.similarity / 100, abs=1e-4)
    assert match.points < 1


def test_fuzzy_is_not_used_when_the_token_exists_in_the_vocabulary():
    # "storage" is in the vocabulary: a passage holding only "storages" must not match it.
    vocab = VOCAB | {"storages"}
    plan = plan_query(["storage"], vocab, Fixes(fuzzy=True))
    assert set(plan.candidates["storage"]) == {"storage"}
    assert plan.best_match("storage", frozenset({"storages"})).kind == MatchKind.NONE


def test_fuzzy_is_not_used_when_an_ocr_match_exists():
    plan = plan_query(["enterprise"], VOCAB | {"enterprize"}, Fixes(ocr=True, fuzzy=True))
    assert {m.kind for m in plan.candidates["enterprise"].values()} == {MatchKind.OCR}


def test_the_threshold_limits_fuzzy_matches():
    strict = _best("warehuse", {"warehouse"}, Fixes(fuzzy=True, threshold=99))
    assert strict.kind == MatchKind.NONE
    loose = _best("wrehouse", {"warehouse"}, Fixes(fuzzy=True, threshold=50))
    assert loose.kind == MatchKind.FUZZY


def test_a_low_threshold_still_never_joins_words_that_are_no_typo_of_each_other():
    # "wrhs" is within ratio 50 of "warehouse", but five dropped letters are no typo.
    assert _best("wrhs", {"warehouse"}, Fixes(fuzzy=True, threshold=50)).kind == MatchKind.NONE


@pytest.mark.parametrize("token", ["100", "x10", "sso", "abc"])
def test_numbers_codes_and_short_words_never_match_fuzzily(token):
    assert not fuzzy_eligible(token)
    plan = plan_query([token], {"1000", "x100", "ssoo", "abcd"}, Fixes(fuzzy=True))
    assert plan.candidates[token] == {}


def test_the_best_match_is_the_closest_spelling():
    match = _best("warehuse", {"warehouse", "warehouses"}, Fixes(fuzzy=True))
    assert match.passage_token == "warehouse"


def test_fuzzy_similarity_is_a_0_to_100_ratio():
    assert fuzzy_similarity("sync", "sync") == 100.0
    assert fuzzy_similarity("abcd", "wxyz") == 0.0
    assert 0 < fuzzy_similarity("warehuse", "warehouse") < 100


def test_plan_keeps_each_distinct_query_token_once_in_order():
    plan = plan_query(["sync", "plan", "sync"], VOCAB, Fixes())
    assert plan.tokens == ("sync", "plan")


# --- edit-distance presets --------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "edits"),
    [(0, 0), (1, 0), (2, 0), (3, 1), (5, 1), (6, 2), (12, 2)],
)
def test_es_auto_allows_no_edit_up_to_2_letters_one_to_5_two_beyond(length, edits):
    assert max_edits(ES_AUTO, length) == edits


@pytest.mark.parametrize(
    ("length", "edits"),
    [(0, 0), (4, 0), (5, 1), (8, 1), (9, 2), (15, 2)],
)
def test_typos_5_9_allows_one_typo_from_5_letters_and_two_from_9(length, edits):
    assert max_edits(TYPOS_5_9, length) == edits


def test_ratio_is_not_an_edit_rule_and_unknown_rules_are_refused():
    assert set(FUZZY_RULES) == {RATIO, ES_AUTO, TYPOS_5_9}
    with pytest.raises(ValueError, match="not an edit-distance rule"):
        max_edits(RATIO, 8)
    with pytest.raises(ValueError, match="es-auto"):
        max_edits("lenient", 8)
    with pytest.raises(ValueError, match="unknown fuzzy rule"):
        Fixes(fuzzy=True, fuzzy_rule="lenient")
    with pytest.raises(ValueError, match="unknown fuzzy rule"):
        Fixes(fuzzy=True, fuzzy_rule="lenient")


def test_es_auto_repairs_warehuse_whatever_the_threshold():
    # One edit in an 8-letter word; the (ratio) threshold plays no part in a preset.
    for threshold in (0.0, 80.0, 100.0):
        settings = Fixes(fuzzy=True, threshold=threshold, fuzzy_rule=ES_AUTO)
        match = _best("warehuse", {"warehouse"}, settings)
        assert (match.kind, match.passage_token) == (MatchKind.FUZZY, "warehouse")
        # Scored like any fuzzy match: its ratio/100, below one point.
        assert match.similarity == fuzzy_similarity("warehuse", "warehouse")
        assert match.points == round(match.similarity / 100, 4) < 1


def test_a_swap_of_two_letters_is_one_edit():
    vocab = {"the", "sync", "policy"}
    for typo, word in (("teh", "the"), ("snyc", "sync"), ("plociy", "policy")):
        match = _best(typo, {word}, Fixes(fuzzy=True, fuzzy_rule=ES_AUTO), vocab)
        assert (match.kind, match.passage_token) == (MatchKind.FUZZY, word)


@pytest.mark.parametrize("token", ["ot", "sx", "a"])
def test_es_auto_never_matches_a_token_of_one_or_two_letters_fuzzily(token):
    vocab = {"to", "so", "at", "as", "an", "sync"}
    assert not fuzzy_eligible(token, ES_AUTO)
    plan = plan_query([token], vocab, Fixes(fuzzy=True, fuzzy_rule=ES_AUTO))
    assert plan.candidates[token] == {}


def test_the_presets_differ_by_token_length_as_documented():
    es = Fixes(fuzzy=True, fuzzy_rule=ES_AUTO)
    typos = Fixes(fuzzy=True, fuzzy_rule=TYPOS_5_9)
    # 4 letters, one swap: es-auto allows one edit, typos-5-9 wants 5 letters for a typo.
    assert _best("snyc", {"sync"}, es).kind == MatchKind.FUZZY
    assert _best("snyc", {"sync"}, typos).kind == MatchKind.NONE
    # 7 letters, two edits from "warehouse": es-auto allows two, typos-5-9 one (two from 9).
    assert _best("wrehuse", {"warehouse"}, es).passage_token == "warehouse"
    assert _best("wrehuse", {"warehouse"}, typos).kind == MatchKind.NONE
    # 9 letters, two edits: both presets allow it.
    assert _best("warehuoes", {"warehouses"}, typos, {"warehouses"}).kind == MatchKind.FUZZY
    # Three edits are too many for either.
    for settings in (es, typos):
        assert _best("wrhuse", {"warehouse"}, settings).kind == MatchKind.NONE


@pytest.mark.parametrize("rule", [ES_AUTO, TYPOS_5_9])
@pytest.mark.parametrize("token", ["100", "x10", "10gb", "covid19"])
def test_tokens_with_digits_never_match_fuzzily_under_a_preset(rule, token):
    vocab = {"1000", "x100", "10gbs", "covid", "covid20", "covidl9"}
    assert not fuzzy_eligible(token, rule)
    plan = plan_query([token], vocab, Fixes(fuzzy=True, fuzzy_rule=rule))
    assert plan.candidates[token] == {}


@pytest.mark.parametrize("rule", [ES_AUTO, TYPOS_5_9])
def test_a_preset_never_matches_a_word_with_digits_or_a_correctly_spelled_token(rule):
    settings = Fixes(fuzzy=True, fuzzy_rule=rule)
    plan = plan_query(["enterprise"], {"enterpr1se", "enterprises", "enterprise"}, settings)
    assert set(plan.candidates["enterprise"]) == {"enterprise"}  # exact only, no fuzzy
    plan = plan_query(["enterprize"], {"enterpr1se"}, settings)
    assert plan.candidates["enterprize"] == {}  # words with digits are not in the pool


def test_a_repaired_token_never_outweighs_the_word_spelled_right():
    from conftest import make_document, make_index

    index = make_index(
        make_document("scan", "RAID c0ntr0ller firmware"),
        make_document("faq", "which controller ships with the server"),
    )
    fixes = Fixes(ocr=True)
    assert [r.doc_id for r in index.search("controller", fixes)][:2] == ["faq", "scan"]
    # One more matching word and the scan wins, repair and all.
    assert index.search("controller firmware", fixes)[0].doc_id == "scan"
