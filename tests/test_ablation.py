"""Ablation: every case under no fix, each fix alone, all fixes, and all but each."""

from __future__ import annotations

import pytest

from ragdash.checks.ablation import (
    ABLATION_COLUMNS,
    ALL,
    BASELINE,
    AblationRow,
    configurations,
    run_ablation,
)
from ragdash.checks.proof import check_case
from ragdash.frames import ablation_matrix, frame
from ragdash.settings import FIX_NAMES, Fixes


@pytest.fixture(scope="module")
def table(sample_index, sample_cases):
    return frame(run_ablation(sample_index, sample_cases), AblationRow)


def test_configurations_are_none_each_fix_all_and_all_but_each_in_order():
    configs = configurations()
    expected = [BASELINE, *FIX_NAMES, ALL, *(f"all-but-{n}" for n in FIX_NAMES)]
    assert list(configs) == expected
    assert configs[BASELINE].enabled == ()
    assert configs[ALL].enabled == FIX_NAMES
    for name in FIX_NAMES:
        assert configs[name].enabled == (name,)
        assert set(configs[f"all-but-{name}"].enabled) == set(FIX_NAMES) - {name}


def test_configurations_keep_the_base_settings_but_not_its_switches():
    configs = configurations(Fixes(fuzzy=True, threshold=65.0))
    assert configs[BASELINE].enabled == ()
    assert {f.threshold for f in configs.values()} == {65.0}


def test_the_table_has_one_row_per_case_and_configuration(table, sample_cases):
    assert list(table.columns) == ABLATION_COLUMNS
    assert len(table) == len(sample_cases) * len(configurations())
    assert table.groupby("case").size().eq(len(configurations())).all()
    assert list(table["case"].drop_duplicates()) == [c.name for c in sample_cases]


def test_passed_agrees_with_the_diagnosis(table):
    assert (table["passed"] == (table["diagnosis"] == "pass")).all()
    assert set(table["diagnosis"]) <= {"pass", "ranking", "extraction"}


def test_each_row_matches_a_direct_proof_check(table, sample_index, sample_cases):
    configs = configurations()
    by_name = {c.name: c for c in sample_cases}
    for row in table.itertuples(index=False):
        check = check_case(sample_index, by_name[row.case], configs[row.configuration])
        assert (row.passed, row.diagnosis, row.first_id) == (
            check.passed,
            check.diagnosis.value,
            check.first_id,
        )
        assert row.missing_evidence == "; ".join(check.missing_evidence)


def test_every_case_passes_with_all_fixes_and_controls_pass_everywhere(table):
    assert table[table["configuration"] == ALL]["passed"].all()
    assert table[table["kind"] == "control"]["passed"].all()
    corrupted = table[(table["kind"] == "corrupted") & (table["configuration"] == BASELINE)]
    assert not corrupted["passed"].any()


def test_the_matrix_is_cases_by_configurations_in_order(table, sample_cases):
    matrix = ablation_matrix(table)
    assert list(matrix.index) == [c.name for c in sample_cases]
    assert list(matrix.columns) == list(configurations())
    row = table.iloc[0]
    assert matrix.loc[row["case"], row["configuration"]] == row["diagnosis"]


def test_progress_runs_from_zero_to_below_one(sample_index, sample_cases):
    calls = []
    run_ablation(sample_index, sample_cases[:1], progress=lambda f, label: calls.append((f, label)))
    assert len(calls) == len(configurations())
    assert calls[0][0] == 0
    assert all(0 <= f < 1 for f, _ in calls)
    assert calls[0][1] == f"{sample_cases[0].name} · none"


def test_an_ablation_of_no_cases_is_an_empty_table(sample_index):
    assert run_ablation(sample_index, []) == ()
    empty = frame((), AblationRow)
    assert empty.empty
    assert list(empty.columns) == ABLATION_COLUMNS


def test_ablate_runs_tables_against_a_python_factory_instead_of_copying_the_none_row():
    """Issue 46: a factory indexes the passages the tables fix joins, so `tables` reaches it:
    ablate must run it (split-table passes) rather than copy `none` into `tables` and `all`
    into `all-but-tables`, which gave other figures than `check`."""
    from conftest import SAMPLE_CASES, run_module

    out = run_module("ragdash", "ablate", "--docs", "samples", "--cases", str(SAMPLE_CASES),
                     "--retriever", "python", "--callable", "tests.team_stack:build",
                     "--factory", timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "tables: identical" not in out.stdout and "all-but-tables: identical" not in out.stdout
    lines = out.stdout.splitlines()
    header = next(line for line in lines if line.startswith("configuration "))
    row = next(line for line in lines if line.startswith("split-table "))
    cells = dict(zip(header.split()[1:], row.split()[1:], strict=True))
    assert cells["none"] == "extraction" and cells["tables"] == "pass"
    assert cells["all-but-tables"] == "extraction" and cells["all"] == "pass"
