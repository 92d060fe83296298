"""Fuzzy threshold calibration over the testbed: what fuzzy matching repairs and breaks
per threshold, its false matches, seeded typo variants, and real reports preferred."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragdash.case import REPORTED
from ragdash.checks.calibration import (
    DEFAULT_THRESHOLDS,
    PRESET_COLUMNS,
    SWEEP_COLUMNS,
    VARIANT_KIND,
    FuzzyCounts,
    LabeledQuery,
    PresetRow,
    SweepRow,
    calibration_queries,
    choose_threshold,
    evaluate_presets,
    false_matches,
    sweep_thresholds,
    typo_variants,
)
from ragdash.checks.proof import check_case
from ragdash.frames import columns_of, frame
from ragdash.settings import EDIT_RULES, FUZZY_RULES, Fixes
from ragdash.text import tokenize


@pytest.fixture(scope="module")
def sweep(sample_index, sample_cases):
    queries = calibration_queries(sample_cases, variants_per_case=3, seed=0)
    return frame(sweep_thresholds(sample_index, queries.queries), SweepRow)


def test_one_row_per_threshold_with_the_documented_columns(sweep):
    assert list(sweep.columns) == SWEEP_COLUMNS
    assert sweep["threshold"].tolist() == list(DEFAULT_THRESHOLDS)


def test_the_typo_case_is_repaired_at_the_default_threshold_and_not_at_100(
    sample_index, sample_cases
):
    # Derived from the testbed: the "typo" case is the one fuzzy matching exists for.
    queries = calibration_queries(sample_cases).queries
    table = frame(sweep_thresholds(sample_index, queries, [Fixes().threshold, 100.0]), SweepRow)
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
    row = sweep.loc[sweep["threshold"] == choose_threshold(rows_of(sweep))].iloc[0]
    for name in filter(None, row["repaired_cases"].split("; ")):
        case = queries[name]
        assert not check_case(sample_index, case, Fixes()).passed
        assert check_case(sample_index, case, Fixes(fuzzy=True, threshold=row["threshold"])).passed


def test_the_chosen_threshold_has_the_best_net_repairs(sweep):
    chosen = choose_threshold(rows_of(sweep))
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


@pytest.fixture(scope="module")
def presets(sample_index, sample_cases):
    queries = calibration_queries(sample_cases, variants_per_case=3, seed=0)
    return frame(evaluate_presets(sample_index, queries.queries), PresetRow)


def test_one_row_per_edit_preset_with_its_description(presets):
    assert list(presets.columns) == PRESET_COLUMNS
    assert presets["rule"].tolist() == list(EDIT_RULES)
    assert presets["description"].tolist() == [FUZZY_RULES[r] for r in EDIT_RULES]


@pytest.mark.parametrize("threshold", [60.0, 80.0, 100.0])
def test_presets_are_counted_exactly_like_a_sweep_row(sample_index, sample_cases, threshold):
    # The ratio rule at a threshold, evaluated as a "preset", gives the sweep's row.
    queries = calibration_queries(sample_cases, variants_per_case=3, seed=0).queries
    base = Fixes(threshold=threshold)
    as_preset = frame(evaluate_presets(sample_index, queries, ["ratio"], base), PresetRow).iloc[0]
    as_sweep = frame(sweep_thresholds(sample_index, queries, [threshold]), SweepRow).iloc[0]
    for column in columns_of(FuzzyCounts):
        assert as_preset[column] == as_sweep[column]


def test_the_sweep_uses_the_ratio_rule_even_when_a_preset_is_chosen(sample_index, sample_cases):
    queries = calibration_queries(sample_cases).queries
    plain = sweep_thresholds(sample_index, queries, [100.0])
    chosen = sweep_thresholds(sample_index, queries, [100.0], Fixes(fuzzy_rule="es-auto"))
    assert chosen == plain and plain[0].repaired == 0


def test_each_preset_repairs_the_typo_case_and_its_counts_are_real(
    sample_index, sample_cases, presets
):
    # "warehuse" is one edit from "warehouse": both presets allow one edit at 8 letters.
    queries = {q.case.name: q for q in calibration_queries(sample_cases, 3).queries}
    for row in presets.itertuples(index=False):
        fixes = Fixes(fuzzy=True, fuzzy_rule=row.rule)
        repaired = [c for c in row.repaired_cases.split("; ") if c]
        broken = [c for c in row.broken_cases.split("; ") if c]
        assert "typo" in repaired
        assert (row.repaired, row.broken) == (len(repaired), len(broken))
        for name in repaired:
            assert not check_case(sample_index, queries[name].case, Fixes()).passed
            assert check_case(sample_index, queries[name].case, fixes).passed
        for name in broken:
            assert check_case(sample_index, queries[name].case, Fixes()).passed
            assert not check_case(sample_index, queries[name].case, fixes).passed
        listed = {m for m in row.false_matches.split("; ") if m}
        assert row.false_fuzzy_matches == len(listed)
        for entry in listed:  # each one really is a fuzzy match in the top-k under the rule
            name, pair = entry.split(": ", 1)
            typed, word = pair.split(" → ")
            check = check_case(sample_index, queries[name].case, fixes)
            assert (name, typed, word) in false_matches(sample_index, queries[name], check)


def test_an_unknown_rule_is_refused(sample_index):
    with pytest.raises(ValueError, match="unknown fuzzy rule"):
        evaluate_presets(sample_index, [], ["lenient"])


def rows_of(sweep) -> list[SweepRow]:
    """A sweep table back to its rows (the tests read tables; choose_threshold reads rows)."""
    return [SweepRow(**{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()})
            for r in sweep.to_dict("records")]  # fmt: skip
def test_no_threshold_is_recommended_from_too_few_queries():
    from ragdash.checks.calibration import MIN_CALIBRATION_QUERIES, recommend_threshold

    sweep = [SweepRow(1, 0, 0, "c", "", "", threshold=t) for t in (60.0, 70.0, 80.0)]
    assert recommend_threshold(sweep, 1) is None
    assert recommend_threshold(sweep, MIN_CALIBRATION_QUERIES - 1) is None
    assert recommend_threshold(sweep, MIN_CALIBRATION_QUERIES) == 70.0
