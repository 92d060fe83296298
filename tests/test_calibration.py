"""Fuzzy threshold calibration over the testbed: what fuzzy matching repairs and breaks
per threshold, its false matches, seeded typo variants, and real reports preferred."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragdash.calibration import (
    DEFAULT_THRESHOLDS,
    SWEEP_COLUMNS,
    VARIANT_KIND,
    LabeledQuery,
    calibration_queries,
    choose_threshold,
    false_matches,
    sweep_thresholds,
    typo_variants,
)
from ragdash.library import REPORTED
from ragdash.proof import check_case
from ragdash.ranking import Fixes
from ragdash.tokens import tokenize


@pytest.fixture(scope="module")
def sweep(sample_index, sample_cases):
    queries = calibration_queries(sample_cases, variants_per_case=3, seed=0)
    return sweep_thresholds(sample_index, queries.queries)


def test_one_row_per_threshold_with_the_documented_columns(sweep):
    assert list(sweep.columns) == SWEEP_COLUMNS
    assert sweep["threshold"].tolist() == list(DEFAULT_THRESHOLDS)


def test_the_typo_case_is_repaired_at_the_default_threshold_and_not_at_100(
    sample_index, sample_cases
):
    # Derived from the testbed: the "typo" case is the one fuzzy matching exists for.
    queries = calibration_queries(sample_cases).queries
    table = sweep_thresholds(sample_index, queries, thresholds=[Fixes().threshold, 100.0])
    at_default, at_100 = table.iloc[0], table.iloc[1]
    assert "typo" in at_default["repaired_cases"].split("; ")
    assert at_100["repaired"] == 0  # 100 means exact only: fuzzy repairs nothing
    # Counts agree with the case lists.
    for _, row in table.iterrows():
        assert row["repaired"] == len([c for c in row["repaired_cases"].split("; ") if c])
        assert row["broken"] == len([c for c in row["broken_cases"].split("; ") if c])


def test_repaired_and_false_matches_fall_as_the_threshold_rises(sweep):
    assert sweep["repaired"].is_monotonic_decreasing
    assert sweep["false_fuzzy_matches"].is_monotonic_decreasing
    assert sweep["false_fuzzy_matches"].iloc[0] >= sweep["false_fuzzy_matches"].iloc[-1]


def test_repaired_cases_really_pass_with_fuzzy_and_fail_without(sample_index, sample_cases, sweep):
    queries = {q.case.name: q.case for q in calibration_queries(sample_cases, 3).queries}
    row = sweep.loc[sweep["threshold"] == choose_threshold(sweep)].iloc[0]
    for name in filter(None, row["repaired_cases"].split("; ")):
        case = queries[name]
        assert not check_case(sample_index, case, Fixes()).passed
        assert check_case(sample_index, case, Fixes(fuzzy=True, threshold=row["threshold"])).passed


def test_the_chosen_threshold_has_the_best_net_repairs(sweep):
    chosen = choose_threshold(sweep)
    net = sweep["repaired"] - sweep["broken"]
    row = sweep.loc[sweep["threshold"] == chosen].iloc[0]
    assert row["repaired"] - row["broken"] == net.max()
    best = sweep.loc[net == net.max(), "false_fuzzy_matches"].min()
    assert row["false_fuzzy_matches"] == best
    # Not at the edge of the good range, where one more typo would stop being repaired.
    tied = sweep.loc[(net == net.max()) & (sweep["false_fuzzy_matches"] == best), "threshold"]
    if len(tied) >= 3:
        assert tied.min() < chosen < tied.max()


def test_typo_variants_are_seeded_distinct_and_record_the_intended_words(sample_cases):
    clean = [c for c in sample_cases if c.kind == "control"]
    first = typo_variants(clean, 3, seed=7)
    assert first == typo_variants(clean, 3, seed=7)
    assert first != typo_variants(clean, 3, seed=8)
    for variant in first:
        original = next(c for c in clean if variant.case.name.startswith(c.name + "~"))
        assert variant.case.query != original.query
        assert variant.case.kind == VARIANT_KIND
        assert variant.case.expected_id == original.expected_id
        for typed, intended in variant.intended:
            assert typed in tokenize(variant.case.query) and intended in tokenize(original.query)


def test_a_fuzzy_match_to_another_word_than_intended_is_false(sample_index, sample_cases):
    control = next(c for c in sample_cases if c.name == "typo-control")
    typed = replace(control, query="warehuse sync")
    fixes = Fixes(fuzzy=True, threshold=50)
    check = check_case(sample_index, typed, fixes)
    right = LabeledQuery(typed, (("warehuse", "warehouse"),))
    wrong = LabeledQuery(typed, (("warehuse", "something-else"),))
    assert false_matches(sample_index, right, check) == set()
    assert ("typo-control", "warehuse", "warehouse") in false_matches(sample_index, wrong, check)


def test_real_reported_queries_are_preferred_over_invented_typos(sample_cases):
    reported = replace(sample_cases[4], name="user-report", kind=REPORTED)
    chosen = calibration_queries([*sample_cases, reported], variants_per_case=3)
    assert chosen.source == "reported" and chosen.variants == 0
    assert [q.case.name for q in chosen.queries] == ["user-report"]
    synthetic = calibration_queries([*sample_cases, reported], 3, prefer_reported=False)
    assert synthetic.source == "labeled" and synthetic.variants > 0


def test_choose_threshold_refuses_an_empty_sweep(sample_index):
    with pytest.raises(ValueError, match="empty"):
        choose_threshold(sweep_thresholds(sample_index, [], thresholds=[]))
