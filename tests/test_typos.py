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
    from ragdash.retrieval import matching

    monkeypatch.setattr(matching, "english_words", frozenset)  # corpus words alone
    for typed, word in (("login", "logic"), ("desk", "disk")):
        plan = plan_query([typed], {word: 3}, Fixes(fuzzy=True, fuzzy_rule=rule, threshold=70))
        assert plan.best_match(typed, frozenset({word})).kind == MatchKind.NONE


def test_a_word_of_the_word_list_is_not_fuzzed_and_the_breakdown_says_so():
    plan = plan_query(["login"], {"logic": 3}, Fixes(fuzzy=True, threshold=70))
    match = plan.best_match("login", frozenset({"logic"}))
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


# Real words one typo-like edit from another real word (the guard must keep them as typed),
# and the typos people make (the guard must let the fuzzy fix repair them).
REAL_WORDS = (  # fmt: skip
    "trail", "rail", "trial", "garage", "garbage", "login", "logic", "desk", "disk", "form",
    "from", "warehouse", "sync", "policy", "police", "checklist", "firmware", "throughput",
    "latency", "invoice", "router", "ledger", "payroll", "casual", "causal", "bios", "vpn",
    "refund", "coupon", "quarterly", "diary", "dairy", "angel", "angle",
)
TYPOS = (  # fmt: skip
    "warehuse", "contoller", "pasword", "polcy", "poliicy", "snyc", "teh", "thier", "recieve",
    "untill", "definately", "accomodate", "tommorow", "becuase", "seperate", "adress", "occured",
    "invocie", "passwrod", "chekclist", "stroage",
)


def test_without_an_os_word_list_real_words_are_words_and_typos_are_not(monkeypatch):
    # RAGDASH_WORDS naming no file stands for a machine without Debian's wamerican.
    from ragdash.retrieval.wordlist import english_words

    monkeypatch.setenv("RAGDASH_WORDS", "/nonexistent/words")
    words = english_words()
    assert [w for w in REAL_WORDS if w not in words] == []
    assert [t for t in TYPOS if t in words] == []


@pytest.mark.parametrize(
    ("typed", "other"), [("trail", "rail"), ("garage", "garbage"), ("login", "logic")]
)
def test_a_real_word_the_corpus_lacks_is_not_fuzzed_into_a_near_word(monkeypatch, typed, other):
    # Without Debian's word list, a pip install fuzzed these (trail → rail, garage → garbage).
    monkeypatch.setenv("RAGDASH_WORDS", "/nonexistent/words")
    plan = plan_query([typed], {other: 3}, Fixes(fuzzy=True, fuzzy_rule=ES_AUTO))
    assert plan.candidates[typed] == {}
    assert "English word: not fuzzed" in plan.notes[typed]


def test_the_word_list_comes_with_pip_and_reads_no_os_file(monkeypatch):
    import builtins
    import io

    from ragdash.retrieval import wordlist

    opened = []
    real_open = io.open

    def spy(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.delenv("RAGDASH_WORDS", raising=False)
    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    wordlist._wordfreq.cache_clear()
    wordlist._combined.cache_clear()
    try:
        words = wordlist.english_words()
    finally:
        wordlist._wordfreq.cache_clear()
        wordlist._combined.cache_clear()
    assert len(words) > 20_000 and "warehouse" in words
    assert not [p for p in opened if p.startswith("/usr/share/dict")]
    assert wordlist.word_list_label().startswith("wordfreq ")
    assert f"top {wordlist.TOP_WORDS:,}" in wordlist.word_list_label()
    assert wordlist.word_list_note() is None


def test_an_extra_word_list_adds_words_and_an_unreadable_one_is_said_in_words(
    monkeypatch, tmp_path
):
    from ragdash.retrieval.wordlist import english_words, word_list_label, word_list_note

    extra = tmp_path / "jargon.txt"
    extra.write_text("warehuse\nfoobarqux\n", encoding="utf-8")
    monkeypatch.setenv("RAGDASH_WORDS", str(extra))
    assert {"warehuse", "foobarqux", "login"} <= english_words()
    assert "+ jargon.txt (2 words)" in word_list_label() and word_list_note() is None
    monkeypatch.setenv("RAGDASH_WORDS", "/nonexistent/words")
    assert "login" in english_words() and "warehuse" not in english_words()
    assert "'/nonexistent/words', which cannot be read" in word_list_note()


def test_a_three_letter_token_may_only_undo_a_swap():
    es = Fixes(fuzzy=True, fuzzy_rule=ES_AUTO)
    assert plan_query(["teh"], {"the": 2}, es).candidates["teh"]["the"].kind == MatchKind.FUZZY
    # "dns" is one neighbouring key from "dna": an acronym, not a typo.
    assert plan_query(["dns"], {"dna": 2}, es).candidates["dns"] == {}
