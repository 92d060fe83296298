"""The guided tour: each of its four steps is a bundled case that fails with no fix and
passes with the step's fix alone, one step per flaw and per case of the testbed."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_CASES
from test_testbed import CASE_FIX

from ragdash.checks.tour import TOUR, run_step
from ragdash.storage.case_store import load_cases

CASES = load_cases(SAMPLE_CASES)


def test_the_tour_has_one_step_per_corrupted_case_with_its_fix():
    assert {s.case_name: s.fix for s in TOUR} == {n: fix for n, (fix, _) in CASE_FIX.items()}


@pytest.mark.parametrize("step", TOUR, ids=lambda s: s.case_name)
def test_each_step_shows_its_flaw_on_the_bundled_corpus(sample_index, step):
    outcome = run_step(sample_index, CASES, step)
    assert outcome is not None and outcome.shows_the_flaw
    assert outcome.before.diagnosis is CASE_FIX[step.case_name][1]


def test_a_step_whose_case_is_missing_is_skipped(sample_index):
    assert run_step(sample_index, [], TOUR[0]) is None
