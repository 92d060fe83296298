"""Triage of a user's report: run under every configuration, a plain-words diagnosis, and
the fixes that repair it — checked against the bundled testbed's known flaws."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_CASES, doc_text, write_docs

from ragdash.checks.ablation import BASELINE, configurations
from ragdash.checks.proof import Diagnosis, check_case
from ragdash.checks.triage import Report, case_name, triage, triage_report
from ragdash.errors import QueryError
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_DESCRIPTIONS
from ragdash.storage.case_store import load_cases
from ragdash.storage.library import REPORTED

#: corrupted case of the testbed → the single fixes that repair it (its flaw's fix; the
#: stale 2024 policy is also withdrawn, so skipping withdrawn documents repairs it too)
REPAIRS = {
    "stale-version": ("recency", "status", "versions"),
    "ocr-noise": ("ocr",),
    "typo": ("fuzzy",),
    "split-table": ("tables",),
}
CASES = {c.name: c for c in load_cases(SAMPLE_CASES)}


@pytest.mark.parametrize("name", REPAIRS)
def test_a_corrupted_case_is_diagnosed_and_its_repairing_fixes_named(sample_index, name):
    case = CASES[name]
    result = triage(sample_index, case)
    assert result.repairs == REPAIRS[name]
    assert result.diagnosis is check_case(sample_index, case, configurations()[BASELINE]).diagnosis
    words = (
        "ranking or filtering problem"
        if result.diagnosis is Diagnosis.RANKING
        else "extraction or segmentation problem"
    )
    assert words in result.summary
    for fix in REPAIRS[name]:
        assert f"{fix} ({FIX_DESCRIPTIONS[fix]})" in result.summary
    # every configuration was run, and "passing" agrees with each check
    assert [label for label, _ in result.checks] == list(configurations())
    assert result.passing == tuple(label for label, c in result.checks if c.passed)


@pytest.mark.parametrize("name", [n for n in CASES if CASES[n].kind == "control"])
def test_a_clean_report_says_the_evidence_is_present(sample_index, name):
    result = triage(sample_index, CASES[name])
    assert result.diagnosis is Diagnosis.PASS
    assert result.repairs == ()
    assert "evidence present" in result.summary
    assert "model" in result.summary


def test_the_motivating_report_60_days_vs_30(sample_index):
    report = Report("return policy days", "returns-2026", ("30 days",), "assistant said 60 days")
    result = triage_report(sample_index, report, "sixty-days")
    assert result.case.kind == REPORTED and result.case.note == "assistant said 60 days"
    assert "returns-2024 is ranked first, not returns-2026" in result.summary
    assert set(result.repairs) == set(REPAIRS["stale-version"])


def test_when_no_fix_repairs_it_the_summary_says_so(tmp_path):
    docs = write_docs(
        tmp_path / "docs",
        {
            "a.md": doc_text("Refunds take ten days.", id="a"),
            "b.md": doc_text("Shipping is free.", id="b"),
        },
    )
    index = CorpusIndex(load_folder(docs))
    result = triage_report(index, Report("shipping", "a", ("ten days",)))
    assert not result.passing and not result.repairs
    assert "No fix repairs it" in result.summary


def test_an_unknown_expected_document_is_named(sample_index):
    result = triage_report(sample_index, Report("warehouse sync", "no-such-doc"))
    assert "no-such-doc is not in the corpus" in result.summary


def test_an_empty_query_raises_query_error(sample_index):
    with pytest.raises(QueryError):
        triage_report(sample_index, Report("?!", "plans"))


def test_case_names_are_readable_and_unused():
    assert case_name("Warehuse sync?") == "reported-warehuse-sync"
    taken = {"reported-warehuse-sync", "reported-warehuse-sync-2"}
    assert case_name("warehuse sync", taken) == "reported-warehuse-sync-3"
    assert case_name("!!!") == "reported-case"
