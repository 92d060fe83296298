"""Fault injection: seeded, rate-controlled query noise and corpus corruptions."""

from __future__ import annotations

from datetime import date

import pytest
from conftest import make_corpus, make_document
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import OSA

from ragdash.case import Case
from ragdash.checks.faults import (
    add_stale_version,
    corrupt_query,
    ocr_noise,
    ocr_noise_document,
    split_table,
    typo_noise,
    typo_variants,
)
from ragdash.checks.proof import check_case
from ragdash.ingestion.tables import cells
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes

QUERY = "enterprise identity provider for the warehouse"
RATES = st.floats(min_value=0.01, max_value=1.0)
SEEDS = st.integers(min_value=0, max_value=2**32)


@pytest.mark.parametrize("noise", [ocr_noise, typo_noise])
def test_query_noise_is_deterministic_per_seed(noise):
    assert noise(QUERY, 0.3, seed=7) == noise(QUERY, 0.3, seed=7)
    assert len({noise(QUERY, 0.3, seed=s) for s in range(10)}) > 1


@pytest.mark.parametrize("noise", [ocr_noise, typo_noise])
def test_rate_zero_changes_nothing(noise):
    assert noise(QUERY, 0.0, seed=3) == QUERY


@given(st.sampled_from([ocr_noise, typo_noise]), RATES, SEEDS)
def test_any_positive_rate_makes_at_least_one_edit(noise, rate, seed):
    assert noise(QUERY, rate, seed) != QUERY


WITH_LONG_WORD = st.text(alphabet="abloek ", max_size=20).filter(
    lambda t: any(len(w) >= 3 for w in t.split())
)


@given(WITH_LONG_WORD, RATES, SEEDS)
def test_typo_noise_always_edits_a_text_with_a_word_of_three_letters(text, rate, seed):
    assert typo_noise(text, rate, seed) != text


@pytest.mark.parametrize("seed", range(40))
def test_typo_noise_edits_words_with_doubled_letters(seed):
    # swapping the two l's of "all" would leave the word as it was
    assert typo_noise("sync all", 0.01, seed) != "sync all"


@given(st.text(alphabet="abio .", max_size=20).filter(lambda t: "o" in t or "i" in t), RATES, SEEDS)
def test_ocr_noise_always_edits_a_text_with_an_o_or_an_i(text, rate, seed):
    assert ocr_noise(text, rate, seed) != text


@given(st.sampled_from([ocr_noise, typo_noise]), st.text(max_size=40), RATES, SEEDS)
def test_noise_is_deterministic_for_any_text(noise, text, rate, seed):
    assert noise(text, rate, seed) == noise(text, rate, seed)


def test_ocr_noise_misreads_o_and_i_as_digits_and_keeps_the_length():
    noisy = ocr_noise(QUERY, 1.0, seed=0)
    assert noisy == QUERY.replace("o", "0").replace("i", "1")
    some = ocr_noise(QUERY, 0.2, seed=1)
    assert len(some) == len(QUERY)
    assert all(
        a == b or (a, b) in {("o", "0"), ("i", "1")} for a, b in zip(QUERY, some, strict=True)
    )


def test_ocr_noise_rate_controls_how_much_changes():
    def changed(rate):
        return sum(
            sum(a != b for a, b in zip(QUERY, ocr_noise(QUERY, rate, s), strict=True))
            for s in range(20)
        )

    assert changed(0.05) < changed(0.5) < changed(1.0)


def test_typo_noise_leaves_short_words_alone():
    assert typo_noise("a to be or ok", 1.0, seed=5) == "a to be or ok"


def test_typo_noise_edits_only_letters_of_longer_words():
    noisy = typo_noise("id 42 warehouse", 0.05, seed=11)
    assert noisy.startswith("id 42 ")
    assert noisy != "id 42 warehouse"


def test_corrupt_query_dispatches_and_rejects_unknown_faults():
    assert corrupt_query(QUERY, "ocr", 0.5, 2) == ocr_noise(QUERY, 0.5, 2)
    assert corrupt_query(QUERY, "typo", 0.5, 2) == typo_noise(QUERY, 0.5, 2)
    with pytest.raises(ValueError, match="unknown query fault 'blur'"):
        corrupt_query(QUERY, "blur", 0.5)


# --- corpus faults -------------------------------------------------------------------------


def _corpus():
    return make_corpus(
        make_document(
            "crm", "Contacts sync from the CRM every five minutes.", updated="2025-11-03"
        ),
        make_document(
            "policy", "Return policy: send items back within 30 days.", updated="2026-01-05"
        ),
        make_document(
            "plans",
            "Plans\nPlan | Storage | Monthly price\nBasic | 10 Go | 5 EUR\nPro | 100 Go | 15 EUR",
            updated="2025-06-16",
        ),
    )


def test_add_stale_version_lists_an_older_edited_copy_just_before_the_original():
    corpus = _corpus()
    stale = add_stale_version(corpus, "policy", "policy-old", date(2024, 2, 1), {"30": "60"})
    assert stale.doc_ids == ("crm", "policy-old", "policy", "plans")
    assert [d.order for d in stale.documents] == [0, 1, 2, 3]
    old = stale.document("policy-old")
    assert "60 days" in old.text and "30 days" not in old.text
    assert old.updated == date(2024, 2, 1)
    assert stale.document("policy").text == corpus.document("policy").text
    assert corpus.doc_ids == ("crm", "policy", "plans")  # the input is untouched


def test_a_stale_version_breaks_baseline_ranking_and_recency_repairs_it():
    stale = add_stale_version(_corpus(), "policy", "policy-old", date(2024, 2, 1), {"30": "60"})
    case = Case("stale", "return policy days", "policy", ("30 days",))
    index = CorpusIndex(stale)
    assert check_case(index, case, Fixes()).diagnosis == "ranking"
    assert check_case(index, case, Fixes(recency=True)).passed


def test_add_stale_version_refuses_unknown_or_taken_ids():
    with pytest.raises(KeyError, match="nope"):
        add_stale_version(_corpus(), "nope", "x", date(2024, 1, 1), {})
    with pytest.raises(ValueError, match="'crm' already exists"):
        add_stale_version(_corpus(), "policy", "crm", date(2024, 1, 1), {})


def test_ocr_noise_document_damages_one_document_and_the_ocr_fix_repairs_it():
    corpus = _corpus()
    noisy = ocr_noise_document(corpus, "crm", 1.0, seed=4)
    assert "C0ntacts" in noisy.document("crm").text
    assert noisy.document("policy") == corpus.document("policy")
    case = Case("ocr", "contacts minutes policy", "crm", ())
    index = CorpusIndex(noisy)
    assert check_case(CorpusIndex(corpus), case, Fixes()).passed
    assert check_case(index, case, Fixes()).diagnosis == "ranking"
    assert check_case(index, case, Fixes(ocr=True)).passed


def test_ocr_noise_document_is_deterministic_per_seed():
    a = ocr_noise_document(_corpus(), "crm", 0.3, seed=9)
    b = ocr_noise_document(_corpus(), "crm", 0.3, seed=9)
    assert a.document("crm").pages == b.document("crm").pages


def test_split_table_cuts_a_row_across_a_page_break_and_the_tables_fix_rejoins_it():
    cut = split_table(_corpus(), "plans")
    doc = cut.document("plans")
    assert doc.kind == "pdf"
    assert len(doc.pages) == 2
    assert doc.pages[0].rstrip().endswith("Basic |")
    assert doc.pages[1].startswith("10 Go | 5 EUR")

    case = Case("split", "basic plan storage", "plans", ("Basic", "10 Go"))
    index = CorpusIndex(cut)
    check = check_case(index, case, Fixes())
    assert check.first_id == "plans"
    assert check.diagnosis == "extraction"
    assert check_case(index, case, Fixes(tables=True)).passed
    [table] = [p for p in index.passages(tables=True) if p.kind == "table"]
    assert ["Basic", "10 Go", "5 EUR"] in [cells(line) for line in table.text.splitlines()]


def test_split_table_can_cut_a_later_row():
    doc = split_table(_corpus(), "plans", row=2).document("plans")
    assert doc.pages[0].rstrip().endswith("Pro |")
    assert doc.pages[1].startswith("100 Go | 15 EUR")


def test_split_table_refuses_a_document_without_a_table():
    with pytest.raises(ValueError, match="no text table"):
        split_table(_corpus(), "crm")
    with pytest.raises(KeyError):
        split_table(_corpus(), "missing")


def test_typo_variants_are_keyboard_typos_on_words_of_three_letters_or_more():
    edits = set(typo_variants("cat"))
    assert {"at", "ct", "ca"} <= edits  # deletions
    assert {"act", "cta"} <= edits  # transpositions
    assert "xat" in edits and "vat" in edits  # c's neighbouring keys
    assert "qat" not in edits  # q is not next to c
    assert all(OSA.distance("cat", e) == 1 for e in edits)
    assert typo_variants("to be") == []


def test_typo_noise_makes_only_typos_the_fragility_search_also_tries():
    """One typo model: every single-typo corruption is one of :func:`typo_variants`."""
    for seed in range(30):
        noisy = typo_noise("warehouse sync", 0.01, seed)
        assert noisy in set(typo_variants("warehouse sync"))
