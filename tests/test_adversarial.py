"""The adversarial corpus (tests/fixtures/adversarial/): realistic text where cautious fixes
must repair what is broken and never break what works.

Thirty short documents with the traps the seed's fixes fell into — codes beside OCR damage
(T1D next to TID, RAID1 beside c0ntr0ller), a digit that reads as two words (Fa1l), real
words that fuzzy matching joined (login → logic), unrelated ties with different dates, a
rolled-back newer version, reworded versions that are both current, Japanese and French
text, evidence inside a longer number, a query that matches nothing. Each case says whether
a careful human reading the documents would call it answerable, and its expected diagnosis
under every configuration of the ablation.
"""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from ragdash.checks.ablation import BASELINE, configurations
from ragdash.checks.proof import check_case
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_NAMES, Fixes
from ragdash.storage.case_store import load_cases

FOLDER = ROOT / "tests" / "fixtures" / "adversarial"
RAW = {c["name"]: c for c in json.loads((FOLDER / "cases.json").read_text("utf-8"))["cases"]}
CASES = load_cases(FOLDER / "cases.json")
CONFIGS = configurations()


@pytest.fixture(scope="module")
def index() -> CorpusIndex:
    return CorpusIndex(load_folder(FOLDER / "docs"))


@pytest.fixture(scope="module")
def checks(index):
    return {(c.name, label): check_case(index, c, f) for c in CASES for label, f in CONFIGS.items()}


def test_the_corpus_is_big_enough_and_loads_cleanly(index):
    assert len(index.corpus.documents) >= 12 and len(CASES) >= 15
    assert index.corpus.messages == ()
    assert {c.expected_id for c in CASES} <= set(index.corpus.doc_ids)
    for raw in RAW.values():
        assert set(raw["x-expected"]) == set(CONFIGS), raw["name"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_case_gets_its_expected_diagnosis_under_every_configuration(checks, case):
    got = {label: checks[case.name, label].diagnosis.value for label in CONFIGS}
    assert got == RAW[case.name]["x-expected"]


@pytest.mark.parametrize("fix", FIX_NAMES)
def test_no_single_fix_turns_a_passing_case_into_a_failing_one(checks, fix):
    broken = [
        c.name for c in CASES if checks[c.name, BASELINE].passed and not checks[c.name, fix].passed
    ]
    assert broken == []


def test_all_fixes_together_pass_every_answerable_case(checks):
    answerable = [c for c in CASES if RAW[c.name]["x-answerable"]]
    assert len(answerable) >= 15
    assert [c.name for c in answerable if not checks[c.name, "all"].passed] == []


def test_unanswerable_cases_fail_under_every_configuration(checks):
    for name in (n for n, raw in RAW.items() if not raw["x-answerable"]):
        assert not any(checks[name, label].passed for label in CONFIGS), name


def test_every_fix_repairs_something_here(checks):
    for fix in ("recency", "ocr", "versions", "unicode"):
        passed = {c.name for c in CASES if checks[c.name, fix].passed}
        failed = {c.name for c in CASES if not checks[c.name, BASELINE].passed}
        repaired = passed & failed
        assert repaired, fix


def test_a_query_that_matches_nothing_names_no_winner(checks):
    check = checks["no-match", "all"]
    assert check.no_match and check.first_id is None
    assert "no passage matched" in check.reason


def test_evidence_inside_a_longer_number_is_missing_and_the_verdict_says_why(checks):
    check = checks["evidence-inside-a-number", "all"]
    assert check.first_id == "array-large" and check.missing_evidence == ("4 disks",)
    assert "whole words" in check.reason


def test_the_codes_stay_codes_and_the_damage_is_repaired_with_its_evidence(index):
    [first] = index.top("tid dosing schedule", Fixes.all(), 1)
    assert first.doc_id == "metformin"
    rewrites = index.inverted(False).view(True).repairs(Fixes.all()).repairs
    assert rewrites["b00t"].note == "0→o: 'b00t' → 'boot', 'boot' appears in 1 document"
    assert rewrites["c0ntr0ller"].word == "controller"
    assert not {"t1d", "raid1", "fa1l", "ss0"} & set(rewrites)
