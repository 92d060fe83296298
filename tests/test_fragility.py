"""Fragility: the fewest OCR/typo edits that break a case, found by a seeded, bounded search.

Expected numbers come from running the search on the bundled testbed (sample_docs/)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import make_document, make_index
from rapidfuzz.distance import OSA

from ragdash.case import Case, Diagnosis
from ragdash.checks.faults import typo_variants
from ragdash.checks.fragility import (
    FRAGILITY_COLUMNS,
    MAX_EDITS,
    MAX_EVALUATIONS,
    NO_EDITS,
    FragilityRow,
    case_summary,
    compared_configurations,
    find_breaking_perturbation,
    fragility_table,
    single_edits,
)
from ragdash.checks.proof import check_case
from ragdash.errors import QueryError
from ragdash.frames import frame
from ragdash.settings import SEED_OCR_MAP, Fixes

# The seed's OCR map (o→0, i→1): the numbers below count edits of those letters only.
NONE, ALL = Fixes.none(ocr_map=SEED_OCR_MAP), Fixes.all(ocr_map=SEED_OCR_MAP)
FUZZY, OCR = Fixes.parse("fuzzy"), Fixes.parse("ocr", ocr_map=SEED_OCR_MAP)


@pytest.fixture(scope="module")
def case(sample_cases):
    by_name = {c.name: c for c in sample_cases}
    return by_name.__getitem__


def assert_really_breaks(index, case, fixes, found):
    """The reported query fails the proof check as reported; every query on the way passed,
    and each is one edit from the previous."""
    assert found.broken and found.edits >= 1
    check = check_case(index, replace(case, query=found.corrupted_query), fixes)
    assert not check.passed
    assert (check.diagnosis, check.first_id) == (found.diagnosis, found.first_id)
    assert check.missing_evidence == found.missing_evidence
    assert 1 <= OSA.distance(case.query, found.corrupted_query) <= found.edits
    assert found.path[0] == case.query and found.path[-1] == found.corrupted_query
    assert len(found.path) == found.edits + 1
    for before, after in zip(found.path, found.path[1:], strict=False):
        assert OSA.distance(before, after) == 1
    for query in found.path[:-1]:
        assert check_case(index, replace(case, query=query), fixes).passed


# --- a passing case breaks, and the corruption is real -------------------------------------


@pytest.mark.parametrize(
    ("name", "kind", "edits", "corrupted", "first"),
    [
        # One OCR misread in "warehouse" and the CRM document, listed first, wins the tie.
        ("typo-control", "ocr", 1, "wareh0use sync", "crm"),
        ("typo-control", "typo", 1, None, "crm"),
        # Each of the three words must lose its match before plans stops being first; then
        # nothing matches at all, so nothing is retrieved.
        ("ocr-noise-control", "typo", 3, None, None),
    ],
)
def test_a_passing_control_breaks_with_no_fixes_and_the_query_really_fails(
    sample_index, case, name, kind, edits, corrupted, first
):
    control = case(name)
    assert check_case(sample_index, control, NONE).passed
    found = find_breaking_perturbation(sample_index, control, NONE, kind)
    assert found.edits == edits
    assert found.first_id == first
    assert found.diagnosis is Diagnosis.RANKING
    if corrupted:
        assert found.corrupted_query == corrupted
    assert_really_breaks(sample_index, control, NONE, found)


def test_an_extraction_failure_is_reported_as_one(sample_index, case):
    # "pr0" loses the Pro table row: plans stays first, but "Pro | 100 Go" is no longer sent.
    control = case("split-table-control")
    found = find_breaking_perturbation(sample_index, control, NONE, "ocr")
    assert (found.edits, found.corrupted_query) == (1, "pr0 plan storage")
    assert found.diagnosis is Diagnosis.EXTRACTION
    assert found.missing_evidence == ("Pro | 100 Go",)
    assert_really_breaks(sample_index, control, NONE, found)


def test_the_sentence_names_the_edits_the_query_and_the_failure(sample_index, case):
    found = find_breaking_perturbation(sample_index, case("typo-control"), NONE, "ocr")
    assert found.sentence == (
        "breaks after 1 OCR edit with no fixes ('wareh0use sync' → ranking: crm first)"
    )
    assert found.outcome == "breaks"


def test_a_case_that_already_fails_has_fragility_zero(sample_index, sample_cases):
    failing = [c for c in sample_cases if not check_case(sample_index, c, NONE).passed]
    assert len(failing) == 4
    for c in failing:
        check = check_case(sample_index, c, NONE)
        found = find_breaking_perturbation(sample_index, c, NONE, "typo")
        assert found.edits == 0
        assert found.corrupted_query == c.query
        assert (found.diagnosis, found.first_id) == (check.diagnosis, check.first_id)
        assert found.evaluations == 1
        assert found.sentence.startswith("already fails with no fixes (")


# --- what the fixes buy ----------------------------------------------------------------------


def test_fuzzy_makes_a_case_survive_more_typos(sample_index, case):
    control = case("typo-control")
    without = find_breaking_perturbation(sample_index, control, NONE, "typo")
    with_fuzzy = find_breaking_perturbation(sample_index, control, FUZZY, "typo")
    assert (without.edits, with_fuzzy.edits) == (1, 2)
    assert_really_breaks(sample_index, control, FUZZY, with_fuzzy)
    # The query that breaks it with no fixes is repaired by fuzzy matching.
    assert check_case(sample_index, replace(control, query=without.corrupted_query), FUZZY).passed


def test_the_ocr_fix_makes_every_ocr_edit_harmless(sample_index, case):
    control = case("typo-control")
    assert find_breaking_perturbation(sample_index, control, NONE, "ocr").edits == 1
    found = find_breaking_perturbation(sample_index, control, OCR, "ocr")
    assert found.edits is None and found.stopped == NO_EDITS
    assert found.sentence == (
        "survives 1 OCR edit with OCR normalization (no further OCR edit possible)"
    )


def test_a_query_naming_the_number_survives_every_typo(sample_index, case):
    # Typos never touch "30", which only the current policy holds.
    control = case("stale-version-control")
    found = find_breaking_perturbation(sample_index, control, NONE, "typo", max_edits=2)
    assert (found.edits, found.depth, found.stopped) == (None, 2, MAX_EDITS)
    assert not found.exhausted
    assert found.corrupted_query is None and found.diagnosis is None
    assert found.sentence == "survives 2 typo edits with no fixes"


def test_a_query_with_nothing_to_misread_cannot_be_ocr_corrupted(sample_index, case):
    found = find_breaking_perturbation(sample_index, case("typo"), ALL, "ocr")  # "warehuse sync"
    assert (found.edits, found.depth, found.evaluations) == (None, 0, 1)
    assert found.sentence == "survives with all fixes: no OCR edit can be made to this query"


# --- bounds and determinism ------------------------------------------------------------------


def test_the_same_seed_gives_the_same_result_and_seeds_vary_the_corruption(sample_index, case):
    control = case("ocr-noise-control")
    runs = [
        find_breaking_perturbation(sample_index, control, NONE, "typo", seed=s)
        for s in (0, 0, 1, 2)
    ]
    assert runs[0] == runs[1]
    assert {r.edits for r in runs} == {3}
    assert len({r.corrupted_query for r in runs}) > 1


@pytest.mark.parametrize("budget", [1, 7, 60, 250])
def test_the_search_never_runs_more_proof_checks_than_max_evaluations(
    sample_index, case, monkeypatch, budget
):
    queries: set[str] = set()
    top = sample_index.top

    def counting_top(query, fixes, k):
        queries.add(query)
        return top(query, fixes, k)

    monkeypatch.setattr(sample_index, "top", counting_top)
    control = case("stale-version-control")
    found = find_breaking_perturbation(sample_index, control, NONE, "typo", max_evaluations=budget)
    assert len(queries) == found.evaluations <= budget
    assert found.exhausted and found.stopped == MAX_EVALUATIONS
    assert found.edits is None and found.depth < found.max_edits
    assert found.sentence.endswith(f"(not searched further: {found.evaluations} evaluations used)")


def test_ocr_edits_only_put_the_map_digits_where_their_letters_were(sample_index, sample_cases):
    for c in sample_cases:
        for fixes in (NONE, ALL):
            found = find_breaking_perturbation(sample_index, c, fixes, "ocr")
            for query in found.path:
                assert len(query) == len(c.query)
                for old, new in zip(c.query, query, strict=True):
                    assert new == old or (old.lower(), new) in {("o", "0"), ("i", "1")}


def test_ocr_edits_follow_the_fixes_ocr_map(sample_index, case):
    fives = Fixes(ocr_map=(("5", "s"),))
    control = case("typo-control")
    found = find_breaking_perturbation(sample_index, control, fives, "ocr")
    assert found.edits == 1
    changed = {(o, n) for o, n in zip(control.query, found.corrupted_query, strict=True) if o != n}
    assert changed == {("s", "5")}
    assert_really_breaks(sample_index, control, fives, found)


# --- single edits ----------------------------------------------------------------------------


def test_bad_arguments_are_refused(sample_index, case):
    with pytest.raises(ValueError, match="unknown fault kind"):
        find_breaking_perturbation(sample_index, case("typo"), NONE, "smudge")
    with pytest.raises(ValueError, match="max_edits must be at least 1"):
        find_breaking_perturbation(sample_index, case("typo"), NONE, "typo", max_edits=0)
    with pytest.raises(QueryError):
        find_breaking_perturbation(sample_index, Case("empty", "?!", "plans"), NONE, "typo")


def test_corruptions_that_make_the_query_unusable_are_skipped():
    # At the 1,000-character limit every insertion makes the query too long to run.
    index = make_index(
        make_document("crm", "Contacts sync every five minutes."),
        make_document("inventory", "Warehouse stock sync every 15 minutes.", order=1),
    )
    long = Case("long", "warehouse" + " " * 991, "inventory")
    found = find_breaking_perturbation(index, long, NONE, "typo", max_evaluations=80)
    assert found.edits == 1 and len(found.corrupted_query) <= 1000
    assert not check_case(index, replace(long, query=found.corrupted_query), NONE).passed


# --- the table -------------------------------------------------------------------------------


def test_the_table_has_a_row_per_case_configuration_and_kind(sample_index, case):
    cases = [case("typo-control"), case("stale-version")]
    configs = {"none": NONE, "ocr": OCR}
    calls = []
    rows = fragility_table(
        sample_index,
        cases,
        configs,
        ("ocr", "typo"),
        max_edits=2,
        max_evaluations=150,
        progress=lambda f, label: calls.append((f, label)),
    )
    table = frame(rows, FragilityRow)
    assert list(table.columns) == FRAGILITY_COLUMNS
    assert len(table) == 2 * 2 * 2
    assert set(table["configuration"]) == {"none", "ocr"}
    assert (table["evaluations"] <= 150).all()
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(calls) == 9
    row = table[(table["case"] == "typo-control") & (table["fault"] == "ocr")].iloc[0]
    assert (row["outcome"], row["edits"], row["corrupted_query"]) == (
        "breaks",
        1,
        "wareh0use sync",
    )
    assert row["failure"] == "ranking: crm first"
    assert case_summary(rows, "typo-control").startswith(
        "OCR: breaks after 1 edit with no fixes, survives 1 edit (no more possible) with OCR "
        "normalization."
    )
    assert case_summary(rows, "stale-version").startswith(
        "OCR: already fails with no fixes, already fails with OCR normalization."
    )
    assert case_summary(rows, "ghost") == ""


def test_compared_configurations_are_no_fixes_and_the_given_ones():
    assert list(compared_configurations(ALL)) == ["none", "all"]
    assert list(compared_configurations(FUZZY)) == ["none", "fuzzy"]
    assert list(compared_configurations(NONE)) == ["none"]


def test_single_edits_are_distinct_and_sorted_per_fault_kind():
    assert single_edits("to be", "ocr", {"o": "0"}) == ["t0 be"]
    assert typo_variants("to be") == []
    with pytest.raises(ValueError, match="unknown fault kind"):
        single_edits("cat", "smudge", {})
