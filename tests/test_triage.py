"""Triage of a user's report: run under every configuration, a plain-words diagnosis, and
the fixes that repair it — checked against the bundled testbed's known flaws."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_CASES, doc_text, write_date_tie_docs, write_docs

from ragdash.case import REPORTED, Diagnosis
from ragdash.checks.ablation import BASELINE, configurations
from ragdash.checks.proof import check_case
from ragdash.checks.triage import RepairKind, Report, case_name, triage, triage_report
from ragdash.errors import QueryError
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_DESCRIPTIONS, FIX_TITLES
from ragdash.storage.case_store import load_cases

#: corrupted case of the testbed → the single fixes that repair it, i.e. change the matching
#: (the stale 2024 policy is withdrawn, so skipping withdrawn documents filters it out;
#: recency only wins the tie by date, which is named as such, not counted as a repair)
REPAIRS = {
    "stale-version": ("status", "versions"),
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
        assert f"{FIX_TITLES[fix]} ({FIX_DESCRIPTIONS[fix]})" in result.summary
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


def test_the_stale_version_names_recency_as_a_date_tie_not_a_repair(sample_index):
    result = triage(sample_index, CASES["stale-version"])
    kinds = {r.fix: r.kind for r in result.outcomes}
    assert kinds == {
        "recency": RepairKind.DATE_TIE,
        "status": RepairKind.FILTER,
        "versions": RepairKind.VERSION,
    }
    assert [r.fix for r in result.tie_wins] == ["recency"]
    assert "With Recency tie-break it passes only by winning a tie on update date" in result.summary


def date_tie_index(tmp_path):
    """Two current documents tie on every query word; the expected one is newer but listed
    second, so only recency puts it first — by date, not by matching."""
    docs = write_date_tie_docs(tmp_path / "docs")
    return CorpusIndex(load_folder(docs))


def test_a_case_repaired_only_by_a_date_tie_says_so_in_words(tmp_path):
    index = date_tie_index(tmp_path)
    result = triage_report(index, Report("gift cards valid", "gifts-2025", ("two years",)))
    assert result.passing and "recency" in result.passing
    assert result.repairs == ()
    [tie] = result.tie_wins
    assert tie.fix == "recency" and tie.kind is RepairKind.DATE_TIE
    assert "passes only by winning a tie on update date" in result.summary
    assert "gifts-2025 and gifts-2023 both score 3" in result.summary
    assert "No fix changes the matching" in result.summary


def test_a_tie_won_by_list_order_is_named_as_such(tmp_path):
    docs = write_docs(
        tmp_path / "docs",
        {
            "a.md": doc_text("The Enterpr1se tier adds audit logs.", id="tiers"),
            "b.md": doc_text("Enterpri5e customers get invoices.", id="billing"),
        },
    )
    index = CorpusIndex(load_folder(docs))
    # With ocr, both scans gain the same repaired match and tie; tiers is listed first.
    result = triage_report(index, Report("enterprise", "tiers"))
    assert result.repairs == ()
    assert [(r.fix, r.kind) for r in result.outcomes] == [("ocr", RepairKind.ORDER_TIE)]
    assert "passes only by winning a tie on list order" in result.summary
