"""The bundled testbed (sample_docs/) does what it is there to show.

Each corrupted case fails with no fix, with the diagnosis its flaw causes; its own fix alone
repairs it; all fixes pass everything; every clean control passes with no fix and with every
fix on. Expectations come from each case's ``kind`` and the case → fix mapping below.
"""

from __future__ import annotations

import csv

import pytest
from conftest import ROOT, SAMPLE_CASES, SAMPLE_DOCS

from ragdash.case import Diagnosis
from ragdash.checks.proof import check_case
from ragdash.settings import FIX_NAMES, Fixes
from ragdash.storage.case_store import load_cases

#: corrupted case → (the fix that targets its flaw, how it fails with no fix)
CASE_FIX = {
    "stale-version": ("status", Diagnosis.RANKING),
    "ocr-noise": ("ocr", Diagnosis.RANKING),
    "typo": ("fuzzy", Diagnosis.RANKING),
    "split-table": ("tables", Diagnosis.EXTRACTION),
}

CASES = load_cases(SAMPLE_CASES)
CORRUPTED = [c for c in CASES if c.kind == "corrupted"]
CONTROLS = [c for c in CASES if c.kind == "control"]
EVERY_FIX_SET = [Fixes(), *(Fixes().with_only([n]) for n in FIX_NAMES), Fixes.all()]


def test_every_corrupted_case_has_a_fix_and_a_control():
    assert {c.name for c in CORRUPTED} == set(CASE_FIX)
    assert {c.name for c in CONTROLS} == {f"{name}-control" for name in CASE_FIX}
    assert {fix for fix, _ in CASE_FIX.values()} <= set(FIX_NAMES)


def test_the_sample_folder_loads_cleanly(sample_corpus):
    assert sample_corpus.messages == ()
    assert {c.expected_id for c in CASES} <= set(sample_corpus.doc_ids)
    # list order is metadata.csv row order (the CSV names every sample file)
    rows = list(csv.DictReader((SAMPLE_DOCS / "metadata.csv").open(encoding="utf-8")))
    assert sample_corpus.doc_ids == tuple(r["id"] or r["file"].rsplit(".", 1)[0] for r in rows)
    assert sample_corpus.document("plans").kind == "pdf"
    assert len(sample_corpus.document("plans").pages) == 2
    assert sample_corpus.document("returns-2024").status == "withdrawn"


@pytest.mark.parametrize("case", CORRUPTED, ids=lambda c: c.name)
def test_a_corrupted_case_fails_with_no_fix_for_the_reason_its_flaw_causes(sample_index, case):
    check = check_case(sample_index, case, Fixes())
    assert not check.passed
    assert check.diagnosis is CASE_FIX[case.name][1]
    if check.diagnosis is Diagnosis.EXTRACTION:
        assert check.first_id == case.expected_id
        assert check.missing_evidence
    else:
        assert check.first_id != case.expected_id


@pytest.mark.parametrize("case", CORRUPTED, ids=lambda c: c.name)
def test_its_own_fix_alone_repairs_a_corrupted_case(sample_index, case):
    fix = CASE_FIX[case.name][0]
    check = check_case(sample_index, case, Fixes().with_only([fix]))
    assert check.passed, (fix, check.first_id, check.missing_evidence)


@pytest.mark.parametrize("case", CORRUPTED, ids=lambda c: c.name)
def test_fixes_aimed_at_other_flaws_do_not_repair_a_corrupted_case(sample_index, case):
    own = CASE_FIX[case.name][0]
    others = {fix for fix, _ in CASE_FIX.values()} - {own}
    for fix in others:
        assert not check_case(sample_index, case, Fixes().with_only([fix])).passed, fix


def test_the_stale_version_is_withdrawn_so_the_status_fix_also_repairs_it(sample_index):
    [case] = [c for c in CORRUPTED if c.name == "stale-version"]
    winner = check_case(sample_index, case, Fixes()).ranked[0].passage
    assert winner.status == "withdrawn"
    assert check_case(sample_index, case, Fixes(status=True)).passed


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_all_fixes_together_pass_every_case(sample_index, case):
    assert check_case(sample_index, case, Fixes.all()).passed


@pytest.mark.parametrize("fixes", EVERY_FIX_SET, ids=lambda f: f.label)
@pytest.mark.parametrize("case", CONTROLS, ids=lambda c: c.name)
def test_every_control_passes_with_no_fix_and_with_every_fix_on(sample_index, case, fixes):
    check = check_case(sample_index, case, fixes)
    assert check.passed, (check.first_id, check.missing_evidence)


def test_the_tables_fix_gives_the_plans_table_its_header_row(sample_index):
    tables = [p for p in sample_index.passages(tables=True) if p.kind == "table"]
    assert tables and all(p.doc_id == "plans" for p in tables)
    for passage in tables:
        assert passage.text.splitlines()[0].startswith("Plan | Storage")
    assert sample_index.passages(tables=True) is sample_index.passages(tables=True)


def test_the_sample_pdf_is_regenerated_byte_for_byte(tmp_path):
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location(
        "make_sample_pdf", ROOT / "scripts/make_sample_pdf.py"
    )
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_pdf(tmp_path / "plans.pdf")
    assert (tmp_path / "plans.pdf").read_bytes() == (SAMPLE_DOCS / "plans.pdf").read_bytes()
