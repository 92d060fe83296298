"""Tokenizer and cautious OCR normalization."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragdash.text import TOKEN_PATTERN, is_ocr_candidate, normalize_ocr, tokenize

WORDISH = st.text(alphabet="abcdeilmnosxz0123456789", min_size=1, max_size=12)


def test_tokenize_lowercases_and_splits_on_anything_but_letters_and_digits():
    assert tokenize("Return-Policy: 30 DAYS, (v1.10)!") == [
        "return",
        "policy",
        "30",
        "days",
        "v1",
        "10",
    ]


def test_tokenize_keeps_duplicates_in_order():
    assert tokenize("sync the sync") == ["sync", "the", "sync"]


def test_tokenize_of_punctuation_only_is_empty():
    assert tokenize(" ... --- !!! ") == []


def test_non_ascii_letters_are_not_part_of_tokens():
    # The baseline knows only [a-z0-9]: an accented letter ends a token.
    assert tokenize("Café") == ["caf"]


@given(st.text())
def test_tokenize_never_crashes_and_yields_only_ascii_tokens(text):
    tokens = tokenize(text)
    assert all(re.fullmatch(r"[a-z0-9]+", t) for t in tokens)


@given(st.text())
def test_tokenize_is_idempotent(text):
    tokens = tokenize(text)
    assert tokenize(" ".join(tokens)) == tokens


@pytest.mark.parametrize(
    ("token", "expected"),
    [("enterpr1se", "enterprise"), ("ss0", "sso"), ("pr0duct1on", "production")],
)
def test_normalize_ocr_repairs_digit_for_letter_misreads(token, expected):
    assert normalize_ocr(token) == expected


@pytest.mark.parametrize(
    "token",
    ["10", "2026", "1", "0", "x100", "10gb", "1st", "a1", "covid19", "t1d", "h1n1", "plain"],
)
def test_normalize_ocr_never_touches_numbers_measurements_or_codes(token):
    assert normalize_ocr(token) == token
    assert not is_ocr_candidate(token)


def test_version_number_tokens_are_left_alone():
    assert [normalize_ocr(t) for t in tokenize("version 1.10")] == ["version", "1", "10"]


def test_normalize_ocr_uses_a_custom_map():
    assert normalize_ocr("ba5e", {"5": "s"}) == "base"
    assert normalize_ocr("ba5e") == "ba5e"  # 5 is not in the default map


@given(WORDISH)
def test_normalize_ocr_is_idempotent(token):
    once = normalize_ocr(token)
    assert normalize_ocr(once) == once


@given(st.integers(min_value=0, max_value=10**12))
def test_normalize_ocr_never_changes_a_pure_number(number):
    assert normalize_ocr(str(number)) == str(number)


@given(st.sampled_from("0123456789"), WORDISH)
def test_normalize_ocr_never_changes_a_digit_before_fewer_than_three_letters(digit, rest):
    # 1st, 2fa, 4k are codes; 0ffice (a digit before a long word) may be damage.
    token = digit + rest[:2]
    assert normalize_ocr(token) == token


@given(WORDISH)
def test_normalize_ocr_keeps_the_length(token):
    assert len(normalize_ocr(token)) == len(token)


@given(WORDISH)
def test_normalized_tokens_are_still_tokens(token):
    assert TOKEN_PATTERN.fullmatch(normalize_ocr(token))


# --- the unicode tokenizer (the ``unicode`` fix) ---------------------------------------------


def test_unicode_tokens_keep_accents_and_split_cjk_into_bigrams():
    from ragdash.text import tokenize_unicode

    assert tokenize_unicode("Le Café, 3e ÉTAGE") == ["le", "café", "3e", "étage"]
    assert tokenize_unicode("東京都の営業") == ["東京", "京都", "都の", "の営", "営業"]
    assert tokenize_unicode("ＳＳＯ ﬁle Straße") == ["sso", "file", "strasse"]
    assert tokenize_unicode("raid1 and 10GB") == tokenize("raid1 and 10GB")


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_unicode_tokens_of_ascii_text_are_the_baseline_tokens(text):
    from ragdash.text import tokenize_unicode

    assert tokenize_unicode(text) == tokenize(text.replace("_", " "))


def test_text_without_cjk_takes_the_one_pass_path_with_the_same_tokens():
    """The fast check for CJK text agrees with the per-character rule at every range edge,
    so mixed text still gets its bigrams and other text its plain runs."""
    import random

    from ragdash import text as tokens

    edges = [0x3040, 0x30FF, 0x3400, 0x4DBF, 0x4E00, 0x9FFF, 0xF900, 0xFAFF, 0xAC00, 0xD7AF,
             0x20000, 0x2FA1F]  # fmt: skip
    codes = {c + d for c in edges for d in (-1, 0, 1)}
    codes |= set(random.Random(0).sample(range(0x30000), 5000)) - set(range(0xD800, 0xE000))
    for code in codes:
        ch = chr(code)
        assert (tokens._CJK.search(ch) is not None) == tokens._is_cjk(ch), hex(code)
    assert tokens.tokenize_unicode("Café ＳＳＯ plan") == ["café", "sso", "plan"]
    assert tokens.tokenize_unicode("the 東京都 plan") == ["the", "東京", "京都", "plan"]
