"""``--jobs N``: ablation and fragility of a large case library in worker processes give
exactly the rows one process gives, and a bad ``--jobs`` is refused with a clear message."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE_CASES, SAMPLE_DOCS, run_module

from ragdash.case import Case
from ragdash.checks.ablation import run_ablation
from ragdash.checks.faults import QUERY_FAULTS
from ragdash.checks.fragility import compared_configurations, fragility_table
from ragdash.checks.parallel import chunks, parallel_ablation, parallel_fragility
from ragdash.cli import main
from ragdash.settings import Fixes


def library(sample_cases: list[Case], copies: int) -> list[Case]:
    """The bundled cases repeated (each copy renamed): a library big enough to split."""
    return [
        Case(f"{c.name}-{i}", c.query, c.expected_id, c.evidence, top_k=c.top_k, kind=c.kind)
        for i in range(copies)
        for c in sample_cases
    ]


def test_parallel_ablation_gives_the_same_rows_in_the_same_order(sample_index, sample_cases):
    cases = library(sample_cases, 6)  # 48 cases, 16 configurations each
    fixes = Fixes(threshold=80)
    one = run_ablation(sample_index, cases, fixes)
    assert parallel_ablation(sample_index, cases, fixes, jobs=3) == one
    assert {r.diagnosis for r in one} >= {"pass", "ranking"}  # a real mix, not all equal


def test_parallel_fragility_gives_the_same_searches(sample_index, sample_cases):
    cases = library(sample_cases, 2)
    configs = compared_configurations(Fixes.all())
    options = {"seed": 7, "max_edits": 3, "max_evaluations": 60}
    one = fragility_table(sample_index, cases, configs, QUERY_FAULTS, **options)
    assert parallel_fragility(sample_index, cases, configs, QUERY_FAULTS, 2, **options) == one
    assert any(r.outcome == "breaks" for r in one)


def test_chunks_keep_every_case_once_in_order():
    items = list(range(23))
    for count in (1, 2, 5, 23, 40):
        parts = chunks(items, count)
        assert [x for part in parts for x in part] == items
        assert len(parts) == min(count, len(items))


def test_cli_jobs_output_is_identical_to_one_job():
    args = ["--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES), "--json"]
    for command in (["ablate"], ["fragility", "--max-edits", "2"]):
        one = run_module("ragdash", *command, *args)
        many = run_module("ragdash", *command, *args, "--jobs", "3")
        assert one.returncode == many.returncode == 0, many.stderr
        assert json.loads(many.stdout) == json.loads(one.stdout)


@pytest.mark.parametrize("value", ["0", "-2", "65", "two", "1.5"])
def test_bad_jobs_is_refused_naming_the_range(capsys, value):
    code = main(["ablate", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
                 f"--jobs={value}"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "--jobs must be a whole number from 1 to 64" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
