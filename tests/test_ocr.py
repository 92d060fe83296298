"""OCR repairs need corpus evidence: codes stay codes, damage is repaired, every rewrite
names its evidence."""

from __future__ import annotations

import pytest

from ragdash.retrieval.matching import MatchKind, plan_query
from ragdash.retrieval.ocr import Repair, build_repairs, judge_token
from ragdash.settings import DEFAULT_OCR_MAP, Fixes
from ragdash.text import is_code_like, letters_by_digit, ocr_readings

LETTERS = letters_by_digit(DEFAULT_OCR_MAP)


def judge(raw, documents, english=frozenset(), protected=()):
    return judge_token(raw, LETTERS, lambda w: documents.get(w, 0), protected, english)


@pytest.mark.parametrize("token", ["t1d", "h1n1", "a1c", "k8s", "covid19", "x100", "g012", "1st"])
def test_identifier_shaped_tokens_are_code_like(token):
    assert is_code_like(token)


@pytest.mark.parametrize("token", ["enterpr1se", "c0ntr0ller", "b00t", "ss0", "fa1l", "sha1"])
def test_damage_shaped_tokens_are_left_to_the_corpus(token):
    assert not is_code_like(token)


def test_a_digit_may_be_read_as_each_letter_the_map_allows():
    assert ocr_readings("fa1l", LETTERS) == [("fail", ("1→i",)), ("fall", ("1→l",))]
    assert ocr_readings("c0ntr0ller", LETTERS) == [("controller", ("0→o",))]


def test_multi_digit_damage_is_repaired_with_the_evidence_in_words():
    repair = judge("c0ntr0ller", {"controller": 4, "c0ntr0ller": 1})
    assert isinstance(repair, Repair)
    assert repair.note == "0→o: 'c0ntr0ller' → 'controller', 'controller' appears in 4 documents"
    assert judge("b00t", {"boot": 1}).word == "boot"


@pytest.mark.parametrize(
    ("raw", "documents", "reason"),
    [
        ("t1d", {"tid": 3}, "looks like a code"),
        ("raid1", {"raid1": 3, "raidl": 1}, "appears as-is in 3 documents"),
        ("fa1l", {"fail": 1, "fall": 1}, "ambiguous"),
        ("sha1", {"sha1": 1}, "no reading"),
    ],
)
def test_codes_consistent_tokens_and_ambiguous_readings_are_kept(raw, documents, reason):
    verdict = judge(raw, documents)
    assert isinstance(verdict, str) and reason in verdict


def test_an_english_reading_makes_a_short_repair_ambiguous():
    # Only "fail" is in the corpus, but "fall" is a word too: the scan may have said either.
    assert "ambiguous" in judge("fa1l", {"fail": 3}, english={"fail", "fall"})
    # A much better supported reading that is the only word wins.
    assert judge("too1", {"tool": 2}, english={"tool"}).word == "tool"


def test_the_word_list_alone_supports_only_long_words():
    english = {"controller", "boot"}
    assert judge("c0ntr0ller", {}, english).source == "word list"
    assert "no reading" in judge("b00t", {}, english)


def test_the_protected_list_wins_over_any_evidence():
    assert "protected" in judge("b00t", {"boot": 5}, protected=("b00t",))
    plan = plan_query(["boot"], {"b00t": 1, "boot": 5}, Fixes(ocr=True, protected="b00t"))
    assert set(plan.candidates["boot"]) == {"boot"}


def test_a_query_word_supports_a_repair_no_document_spells():
    table = build_repairs({"ss0": 1}, DEFAULT_OCR_MAP, lambda w: {"ss0": 1}.get(w, 0))
    assert table.repairs == {}
    [repair] = table.query_supported("sso")
    assert repair.note == "0→o: 'ss0' → 'sso', the query asks for 'sso' (no document spells it so)"
    match = plan_query(["sso"], {"ss0": 1}, Fixes(ocr=True)).best_match("sso", frozenset({"ss0"}))
    assert (match.kind, match.passage_token) == (MatchKind.OCR, "ss0")


def test_a_query_never_revives_an_ambiguous_or_code_token():
    vocab = {"fa1l": 1, "fail": 1, "fall": 1, "t1d": 1}
    for query, raw in (("fail", "fa1l"), ("tid", "t1d")):
        plan = plan_query([query], vocab, Fixes(ocr=True))
        assert raw not in plan.candidates[query]


def test_a_damaged_query_token_is_repaired_only_when_it_matches_nothing_as_typed():
    plan = plan_query(["b00t"], {"boot": 2, "b00t": 1}, Fixes(ocr=True))
    assert set(plan.candidates["b00t"]) == {"b00t"}  # typed as the corpus spells it
    plan = plan_query(["b00t"], {"boot": 2}, Fixes(ocr=True))
    assert plan.candidates["b00t"]["boot"].note.startswith("query 0→o: 'b00t' → 'boot'")


def test_the_breakdown_says_why_a_code_was_not_rewritten():
    plan = plan_query(["t1d"], {"tid": 2}, Fixes(ocr=True))
    assert plan.candidates["t1d"] == {}
    assert "looks like a code" in plan.none("t1d").note


def test_a_narrow_map_cannot_force_a_reading_the_glyph_makes_ambiguous():
    # The map says only 1=i, but "fa1l" may well be "fall": kept.
    documents = {"fail": 3, "enterprise": 2, "client": 1}
    verdict = judge_token("fa1l", {"1": "i"}, lambda w: documents.get(w, 0), (), {"fail", "fall"})
    assert isinstance(verdict, str) and "ambiguous" in verdict
    # No rival word: the map's reading is taken.
    repair = judge_token("enterpr1se", {"1": "i"}, lambda w: documents.get(w, 0))
    assert repair.word == "enterprise"
    # The only word needs a substitution the map does not allow: kept, and said so.
    kept = judge_token("c1ient", {"1": "i"}, lambda w: documents.get(w, 0))
    assert kept == "'c1ient' could read 'client', which the OCR map does not allow: kept"


def test_a_vocabulary_judged_from_another_gives_the_table_a_fresh_judgement_gives():
    """A stress variant's OCR repairs start from the clean corpus's judged candidates and
    judge again only those whose readings reach a word whose count changed: over random
    edits (words added, removed, counts changed) the table equals a fresh one."""
    import random

    from ragdash.retrieval.ocr import judge_vocabulary

    stems = ["controller", "fail", "fall", "sso", "policy", "raid", "coil", "cell", "lo0p"]
    damaged = {"0": "o", "1": "il", "5": "s"}
    for seed in range(30):
        rng = random.Random(seed)
        words = set(stems)
        for w in stems:
            for digit, letters in damaged.items():
                for letter in letters:
                    if letter in w:
                        words.add(w.replace(letter, digit, 1))
        before = {w: rng.choice([0, 1, 1, 2, 3, 5]) for w in sorted(words)}
        before = {w: n for w, n in before.items() if n}
        after = dict(before)
        for w in rng.sample(sorted(words), 5):
            after[w] = rng.choice([0, 1, 4])
        after = {w: n for w, n in after.items() if n}
        dirty = {w for w in words if before.get(w, 0) != after.get(w, 0)}
        base = judge_vocabulary(before, damaged, lambda w, d=before: d.get(w, 0))
        fresh = judge_vocabulary(after, damaged, lambda w, d=after: d.get(w, 0)).table()
        got = judge_vocabulary(after, damaged, lambda w, d=after: d.get(w, 0), base=base,
                               dirty=dirty).table()  # fmt: skip
        assert (got.repairs, got.refused, got.unsupported) == (
            fresh.repairs, fresh.refused, fresh.unsupported), seed  # fmt: skip
