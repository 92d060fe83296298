"""Robustness sweep: pass rate vs noise rate for the baseline and each fix."""

from __future__ import annotations

import pytest

from ragdash.checks.ablation import ALL, BASELINE
from ragdash.checks.proof import check_case
from ragdash.checks.robustness import (
    ROBUSTNESS_COLUMNS,
    RobustnessRow,
    noisy_queries,
    robustness_sweep,
    sweep_configurations,
)
from ragdash.frames import frame
from ragdash.settings import FIX_NAMES, Fixes

RATES = (0.0, 0.1, 0.3)


@pytest.fixture(scope="module")
def table(sample_index, sample_cases):
    return frame(robustness_sweep(sample_index, sample_cases, rates=RATES, seeds=2), RobustnessRow)


def _rate(table, fault, rate, config):
    row = table[(table.fault == fault) & (table.rate == rate) & (table.configuration == config)]
    return float(row["pass_rate"].iloc[0])


def test_one_row_per_fault_rate_and_configuration(table):
    assert list(table.columns) == ROBUSTNESS_COLUMNS
    assert list(sweep_configurations()) == [BASELINE, *FIX_NAMES, ALL]
    assert len(table) == 2 * len(RATES) * len(sweep_configurations())
    assert table["pass_rate"].between(0, 1).all()


def test_rate_zero_is_the_library_as_written(table, sample_index, sample_cases):
    for label, fixes in sweep_configurations().items():
        expected = sum(check_case(sample_index, c, fixes).passed for c in sample_cases)
        for fault in ("ocr", "typo"):
            assert _rate(table, fault, 0.0, label) == expected / len(sample_cases)


def test_ocr_normalization_holds_up_better_than_baseline_under_ocr_noise(table):
    for rate in RATES[1:]:
        assert _rate(table, "ocr", rate, "ocr") > _rate(table, "ocr", rate, BASELINE)


def test_fuzzy_matching_holds_up_better_than_baseline_under_typos(table):
    for rate in RATES[1:]:
        assert _rate(table, "typo", rate, "fuzzy") > _rate(table, "typo", rate, BASELINE)


def test_noise_never_helps_the_baseline(table):
    clean = _rate(table, "typo", 0.0, BASELINE)
    assert all(_rate(table, "typo", r, BASELINE) <= clean for r in RATES)


def test_noisy_queries_are_seeded_and_rate_zero_is_unchanged():
    assert noisy_queries("warehouse sync", "typo", 0.0, 3) == ("warehouse sync",)
    first = noisy_queries("warehouse sync", "typo", 0.2, 3, seed=1)
    assert first == noisy_queries("warehouse sync", "typo", 0.2, 3, seed=1)
    assert len(first) == 3 and all(q != "warehouse sync" for q in first)


def test_progress_is_reported_to_the_end(sample_index, sample_cases):
    seen = []
    robustness_sweep(
        sample_index,
        sample_cases[:2],
        rates=(0.0, 0.2),
        configs={"none": Fixes()},
        progress=lambda f, label: seen.append(f),
    )
    assert seen[-1] == 1.0 and seen == sorted(seen)
