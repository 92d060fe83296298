"""Typo-likeness: the edits people make cost less than edits that change the word."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragdash.retrieval.matching import MatchKind, plan_query
from ragdash.retrieval.typos import KEY_NEIGHBOURS, max_typo_cost, typo_cost, typo_cost_within
from ragdash.settings import ES_AUTO, Fixes


@pytest.mark.parametrize(
    ("typed", "word", "cost", "edit"),
    [
        ("warehuse", "warehouse", 0.5, "dropped letter"),
        ("snyc", "sync", 0.5, "swapped letters"),
        ("sunc", "sync", 0.5, "neighbouring key"),
        ("poliicy", "policy", 0.5, "doubled letter"),
        ("login", "logic", 1.0, "replaced letter"),
    ],
)
def test_typo_like_edits_cost_half_an_edit(typed, word, cost, edit):
    assert typo_cost(typed, word) == (cost, (edit,))


@given(
    st.text("asdwezxqpoé", max_size=9),
    st.text("asdwezxqpoé", max_size=9),
    st.sampled_from([0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0]),
)
def test_the_limited_look_up_keeps_exactly_the_words_within_the_limit(typed, word, limit):
    # The fuzzy fix aligns only near the diagonal: same cost and edits, or None past it.
    full = typo_cost(typed, word)
    assert typo_cost_within(typed, word, limit) == (full if full[0] <= limit else None)


def test_keyboard_neighbours_are_symmetric_and_near():
    assert {"a", "d", "w", "e", "z", "x"} == KEY_NEIGHBOURS["s"]
    assert all(a in KEY_NEIGHBOURS[b] for a in KEY_NEIGHBOURS for b in KEY_NEIGHBOURS[a])


def test_short_words_get_one_typo_like_edit_at_most():
    assert max_typo_cost(4) == 0.5 and max_typo_cost(4, edits=1) == 0.5
    assert max_typo_cost(6) < 1.0 <= max_typo_cost(10)


def test_the_most_typo_like_candidate_wins_over_the_more_similar_one():
    # "contoller": one dropped letter from "controller"; "container" is no typo of it.
    plan = plan_query(["contoller"], {"controller": 1, "contoiler": 1}, Fixes(fuzzy=True))
    assert set(plan.candidates["contoller"]) == {"controller"}
    assert "dropped letter" in plan.candidates["contoller"]["controller"].note


def test_higher_document_frequency_breaks_a_tie_between_equally_typo_like_words():
    plan = plan_query(["polcy"], {"policy": 5, "polly": 1}, Fixes(fuzzy=True, threshold=70))
    assert set(plan.candidates["polcy"]) == {"policy"}


@pytest.mark.parametrize("rule", ["ratio", ES_AUTO])
def test_a_real_word_is_never_fuzzed_even_without_the_word_list(monkeypatch, rule):
    monkeypatch.setenv("RAGDASH_WORDS", "/nonexistent/words")
    for typed, word in (("login", "logic"), ("desk", "disk")):
        plan = plan_query([typed], {word: 3}, Fixes(fuzzy=True, fuzzy_rule=rule, threshold=70))
        assert plan.best_match(typed, frozenset({word})).kind == MatchKind.NONE


def test_a_word_of_the_word_list_is_not_fuzzed_and_the_breakdown_says_so():
    plan = plan_query(["logins"], {"logics": 3}, Fixes(fuzzy=True, threshold=70))
    match = plan.best_match("logins", frozenset({"logics"}))
    assert match.kind == MatchKind.NONE and "English word: not fuzzed" in match.note


def test_ocr_and_a_typo_in_one_token_match_with_both_fixes_only():
    vocab = {"warehouse": 2}
    assert plan_query(["wareh0sue"], vocab, Fixes(fuzzy=True)).candidates["wareh0sue"] == {}
    assert plan_query(["wareh0sue"], vocab, Fixes(ocr=True)).candidates["wareh0sue"] == {}
    match = plan_query(["wareh0sue"], vocab, Fixes(ocr=True, fuzzy=True)).candidates["wareh0sue"]
    assert match["warehouse"].kind == MatchKind.FUZZY
    assert "read as 'warehosue'" in match["warehouse"].note


def test_a_typo_finds_a_word_the_document_holds_only_as_ocr_damage():
    vocab = {"controller": 1, "c0ntr0ller": 1}
    plan = plan_query(["contoller"], vocab, Fixes(ocr=True, fuzzy=True))
    assert set(plan.candidates["contoller"]) == {"controller", "c0ntr0ller"}
    assert "'c0ntr0ller' → 'controller'" in plan.candidates["contoller"]["c0ntr0ller"].note


def test_a_missing_word_list_is_said_in_words(monkeypatch):
    from ragdash.retrieval.wordlist import english_words, word_list_note

    assert "login" in english_words() and word_list_note() is None
    monkeypatch.setenv("RAGDASH_WORDS", "/nonexistent/words")
    assert english_words() == frozenset()
    assert "No English word list at /nonexistent/words" in word_list_note()


def test_a_three_letter_token_may_only_undo_a_swap():
    es = Fixes(fuzzy=True, fuzzy_rule=ES_AUTO)
    assert plan_query(["teh"], {"the": 2}, es).candidates["teh"]["the"].kind == MatchKind.FUZZY
    # "dns" is one neighbouring key from "dna": an acronym, not a typo.
    assert plan_query(["dns"], {"dna": 2}, es).candidates["dns"] == {}
