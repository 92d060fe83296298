"""OCR signals from a real corpus: a scanned-looking PDF with damaged words next to clean
documents, and the substitutions that the corpus vocabulary confirms."""

from __future__ import annotations

import pytest
from pdf_factory import text_pages_pdf

from ragdash.checks.ocr_signals import (
    add_substitutions,
    damaged_tokens,
    ocr_signals,
    substitutions_to,
)
from ragdash.ingestion.ingest import load_folder
from ragdash.text import DEFAULT_SUBSTITUTIONS, normalize_ocr


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs")
    (folder / "scan.pdf").write_bytes(
        text_pages_pdf(
            [
                ["The Enterpr1se plan adds SS0 and a signed c0ntr4ct.", "Enterpr1se support"],
                ["Storage is 10GB, the 2026 rate, code X100, covid19 rules, z3bra."],
            ]
        )
    )
    (folder / "plans.md").write_text(
        "---\nupdated: 2026-01-05\n---\nThe enterprise plan: sign the contract, get sso.\n",
        encoding="utf-8",
    )
    return load_folder(folder)


def signals_by_token(corpus):
    return {s.token: s for s in ocr_signals(corpus)}


def test_damaged_tokens_are_found_in_the_pdf_text_layer(corpus):
    scan = corpus.document("scan")
    assert damaged_tokens(scan.text) == {"enterpr1se": 2, "ss0": 1, "c0ntr4ct": 1, "z3bra": 1}


def test_each_damaged_token_gets_the_word_the_corpus_confirms(corpus):
    found = signals_by_token(corpus)
    assert set(found) == {"enterpr1se", "ss0", "c0ntr4ct"}  # no "zebra" anywhere: no proof
    enterprise = found["enterpr1se"]
    assert (enterprise.doc_id, enterprise.proposed, enterprise.count) == ("scan", "enterprise", 2)
    assert enterprise.substitutions == {"1": "i"} and enterprise.covered
    assert found["ss0"].proposed == "sso" and found["ss0"].substitutions == {"0": "o"}


def test_new_substitution_is_proposed_and_applies_in_one_step(corpus):
    contract = signals_by_token(corpus)["c0ntr4ct"]
    assert contract.proposed == "contract"
    assert contract.substitutions == {"0": "o", "4": "a"}
    assert not contract.covered  # the default map has no 4=a yet
    assert normalize_ocr("c0ntr4ct", DEFAULT_SUBSTITUTIONS) != "contract"
    extended = add_substitutions(DEFAULT_SUBSTITUTIONS, contract.substitutions)
    assert normalize_ocr("c0ntr4ct", extended) == "contract"
    assert extended == {"0": "o", "1": "i", "4": "a"}


def test_numbers_measurements_and_codes_are_never_signals(corpus):
    tokens = {s.token for s in ocr_signals(corpus)}
    assert not tokens & {"10gb", "2026", "x100", "covid19", "10"}


def test_one_digit_cannot_stand_for_two_letters():
    assert substitutions_to("n00n", "noon") == {"0": "o"}
    assert substitutions_to("b00k", "back") is None
    assert substitutions_to("c0de", "cake") is None


def test_conflicting_substitution_is_refused():
    with pytest.raises(ValueError, match="already maps to 'i'"):
        add_substitutions({"1": "i"}, {"1": "l"})


def test_codes_and_pieces_of_compound_codes_are_never_damage():
    text = "Kit 2274-COL-AC2-26 for T1D and H1N1; the ac2 unit. Enterpr1se plan."
    assert damaged_tokens(text) == {"enterpr1se": 1}


def test_a_token_several_documents_use_as_it_is_gives_no_signal(tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.md").write_text(
            "---\nupdated: 2025-01-01\n---\nThe io1 volume and the enterpr1se plan.\n",
            encoding="utf-8",
        )
    (tmp_path / "c.md").write_text(
        "---\nupdated: 2025-01-01\n---\nThe ioi enterprise plan.\n", encoding="utf-8"
    )
    tokens = {s.token for s in ocr_signals(load_folder(tmp_path))}
    assert tokens == set()  # io1 and enterpr1se are in two documents each: used as they are


def test_adding_a_repair_to_canonical_pairs_keeps_every_letter_of_a_digit():
    pairs = (("0", "o"), ("1", "i"))
    assert add_substitutions(pairs, {"1": "l"}) == (("0", "o"), ("1", "i"), ("1", "l"))


def test_a_reading_needs_a_lookalike_letter_and_a_word_the_corpus_uses(tmp_path):
    """Issue 28: `ss0 → ssn/ssa/ssc` and `part1 → party` were offered as one-click map
    entries; OCR does not read n, a or c as 0, and "part1" is Part 1 set without its space."""
    (tmp_path / "terms.md").write_text(
        "---\nupdated: 2026-01-05\n---\nEach party gives its SSN; the SSA and the SSC check "
        "the parts of the enterprise plan, part of the districts.\n",
        encoding="utf-8",
    )
    (tmp_path / "scan.md").write_text(
        "---\nupdated: 2026-01-04\n---\nSS0 number, part1 and district2 of the Enterpr1se "
        "plan.\n",
        encoding="utf-8",
    )
    found = {(s.token, s.proposed) for s in ocr_signals(load_folder(tmp_path))}
    assert found == {("enterpr1se", "enterprise")}
