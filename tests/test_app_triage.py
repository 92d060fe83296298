"""The Triage page run with Streamlit's AppTest: a report is diagnosed in plain words with
its repairing fixes, saved to the SQLite library in the workspace, edited and exported; the
calibration and robustness sweeps draw; hostile text reaches the page escaped."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLE_CASES
from shown import unescaped
from streamlit.testing.v1 import AppTest

from ragdash.case import REPORTED, Diagnosis
from ragdash.checks.calibration import (
    MIN_CALIBRATION_QUERIES,
    calibration_queries,
    evaluate_presets,
)
from ragdash.checks.proof import check_case
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_TITLES, Fixes, configuration_title
from ragdash.storage.case_store import load_cases
from ragdash.storage.library import CaseLibrary

ROOT = Path(__file__).resolve().parent.parent
TRIAGE = "ragdash/ui/pages/triage.py"
CASES = {c.name: c for c in load_cases(SAMPLE_CASES)}
#: corrupted case of the testbed → the fixes that repair it alone (see test_triage.py)
REPAIRS = {
    "stale-version": ("status", "versions"),
    "ocr-noise": ("ocr",),
    "typo": ("fuzzy",),
    "split-table": ("tables",),
}
TITLES = {
    Diagnosis.RANKING: "Ranking or filtering problem",
    Diagnosis.EXTRACTION: "Extraction or segmentation problem",
    Diagnosis.PASS: "Evidence present",
}


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "workspace"
    monkeypatch.setenv("RAGDASH_WORKSPACE", str(root))
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    return root


@pytest.fixture
def page(workspace) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(TRIAGE).run()
    no_exception(at)
    return at


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]



def submit_report(
    at: AppTest, query: str, expected: str, evidence: str = "", note: str = ""
) -> AppTest:
    at.text_input(key="tr_query").input(query)
    at.selectbox(key="tr_expect").select(expected)
    at.text_input(key="tr_evidence").input(evidence)
    at.text_area(key="tr_note").input(note)
    next(b for b in at.button if b.label == "Diagnose").click()
    at.run()
    no_exception(at)
    return at


def alerts(at: AppTest) -> list[str]:
    return [unescaped(a.value) for a in (*at.success, *at.warning, *at.error, *at.info)]


def test_the_triage_page_is_in_the_navigation_and_renders(page):
    assert page.title[0].value == "Triage"
    assert [t.label for t in page.tabs] == [
        "Report",
        "Case library",
        "Threshold calibration",
        "Robustness",
    ]


@pytest.mark.parametrize("name", REPAIRS)
def test_a_report_of_each_testbed_flaw_is_diagnosed_with_its_fix(page, name):
    case = CASES[name]
    submit_report(page, case.query, case.expected_id, "; ".join(case.evidence))
    expected = check_case_with_no_fix(case).diagnosis
    text = " ".join(alerts(page))
    assert TITLES[expected] in text
    repaired_by = next(m.value for m in page.markdown if m.value.startswith("**Repaired by:**"))
    for fix in REPAIRS[name]:
        assert FIX_TITLES[fix] in unescaped(repaired_by)
    # The configuration table names every configuration with its verdict, by its title.
    table = page.dataframe[0].value
    passing = set(table.loc[table["verdict"] == "pass", "configuration"])
    assert passing >= {FIX_TITLES[fix] for fix in REPAIRS[name]}
    assert table.loc[table["configuration"] == "No fix", "verdict"].item() == "FAIL"


def check_case_with_no_fix(case):
    return check_case(CorpusIndex(load_folder(ROOT / "sample_docs")), case, Fixes())


def test_a_report_says_how_close_it_is_to_breaking_with_and_without_its_repair(page):
    from ragdash.case import Case
    from ragdash.checks.fragility import find_breaking_perturbation, result_phrase

    case = CASES["typo"]  # fails with no fixes, repaired by fuzzy
    at = submit_report(page, case.query, case.expected_id, "; ".join(case.evidence))
    at.button(key="tr_fragility_run").click().run(timeout=120)
    no_exception(at)
    [sentence] = [unescaped(md.value) for md in at.markdown if md.value.startswith("**report** — ")]
    index = CorpusIndex(load_folder(ROOT / "sample_docs"))
    reported = Case("report", case.query, case.expected_id, case.evidence, case.top_k)
    found = find_breaking_perturbation(index, reported, Fixes.parse("fuzzy"), "typo")
    phrase = result_phrase(found.outcome, found.edits, found.depth, found.stopped)
    assert "Typos: already fails with no fixes" in sentence
    assert f"{phrase} with Fuzzy matching" in sentence, sentence


def test_a_clean_report_says_the_evidence_is_present(page):
    case = CASES["typo-control"]
    submit_report(page, case.query, case.expected_id, "; ".join(case.evidence))
    assert any(TITLES[Diagnosis.PASS] in a and "model" in a for a in alerts(page))


def test_saving_a_report_creates_a_diagnosed_case_in_the_workspace_library(page, workspace):
    submit_report(page, "return policy days", "returns-2026", "30 days", "assistant said 60 days")
    page.button(key="tr_save").click().run()
    no_exception(page)
    name = page.text_input(key="tr_name").value
    assert any(f"Saved case “{name}”" in a for a in alerts(page))
    library = CaseLibrary(workspace / "library.sqlite")
    entry = library.get(name)
    assert entry is not None and entry.status == "diagnosed"
    assert entry.case.kind == REPORTED
    assert entry.case.query == "return policy days"
    assert entry.case.evidence == ("30 days",)
    assert entry.case.note == "assistant said 60 days"
    history = library.history(name)
    table = page.dataframe[0].value
    # the library keeps the code labels; the table shows them by title
    shown = table["configuration"].tolist()
    assert [configuration_title(r.configuration) for r in history] == shown
    assert [("pass" if r.passed else "FAIL") for r in history] == table["verdict"].tolist()
    # The library tab lists it, and the Test suite now runs it too.
    assert any("case" in df.value and name in df.value["case"].tolist() for df in page.dataframe)
    page.switch_page("ragdash/ui/pages/suite.py").run()
    no_exception(page)
    from test_app import html_tables

    assert name in html_tables(page)[0]["case"].tolist()


def test_saving_twice_under_one_name_is_refused(page, workspace):
    submit_report(page, "warehuse sync", "inventory", "15 minutes")
    page.button(key="tr_save").click().run()
    page.button(key="tr_save").click().run()
    no_exception(page)
    assert any("already exists" in e for e in (unescaped(x.value) for x in page.error))
    assert len(CaseLibrary(workspace / "library.sqlite").list()) == 1


def test_status_and_notes_are_edited_in_the_library_tab(page, workspace):
    submit_report(page, "warehuse sync", "inventory", "15 minutes")
    page.button(key="tr_save").click().run()
    name = page.text_input(key="tr_name").value
    status = next(s for s in page.selectbox if s.label == "Status")
    status.select("fixed")
    next(t for t in page.text_area if t.label == "Notes").input("fuzzy fix on in production")
    next(b for b in page.button if b.label == "Save changes").click()
    page.run()
    no_exception(page)
    entry = CaseLibrary(workspace / "library.sqlite").get(name)
    assert entry.status == "fixed" and entry.case.note == "fuzzy fix on in production"


def test_a_corrupt_library_is_reported_and_left_untouched(workspace):
    workspace.mkdir(parents=True)
    path = workspace / "library.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 3000)
    before = path.read_bytes()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(TRIAGE).run()
    no_exception(at)
    submit_report(at, "warehuse sync", "inventory", "15 minutes")
    at.button(key="tr_save").click().run()
    no_exception(at)
    assert any("left as it is" in unescaped(e.value) for e in at.error)
    assert path.read_bytes() == before


def test_calibration_plots_the_sweep_and_names_the_chosen_threshold(page):
    page.button(key="cal_run").click().run()
    no_exception(page)
    chosen = next(m.value for m in page.markdown if m.value.startswith("**Chosen threshold:"))
    assert "repairs" in chosen and "false fuzzy matches" in chosen
    sample = len(calibration_queries(list(CASES.values()), 3, 0.1, 0).queries)
    assert f"(from {sample} queries)" in chosen and sample >= MIN_CALIBRATION_QUERIES
    assert any("generated typo variants" in m.value for m in page.markdown)
    # "Use threshold" moves the sidebar slider to the chosen value.
    value = float(chosen.split("**Chosen threshold: ")[1].split("**")[0])
    page.button(key="cal_use").click().run()
    no_exception(page)
    assert page.slider(key="w_threshold").value == value


def test_calibration_counts_the_edit_presets_on_the_same_queries(page):
    page.selectbox(key="w_fuzzyrule").select("es-auto").run()
    page.button(key="cal_run").click().run()
    no_exception(page)
    table = next(df.value for df in page.dataframe if "rule" in df.value.columns)
    # The same queries the page used (default: 3 typo variants per clean case, seed 0).
    queries = calibration_queries(list(CASES.values()), 3, 0.1, 0).queries
    index = CorpusIndex(load_folder(ROOT / "sample_docs"))
    expected = evaluate_presets(index, queries, base=Fixes(fuzzy=True))
    assert table["rule"].tolist() == [r.rule for r in expected] == ["es-auto", "typos-5-9"]
    assert table["repaired"].tolist() == [r.repaired for r in expected]
    assert table["false fuzzy matches"].tolist() == [r.false_fuzzy_matches for r in expected]
    assert all(table["repaired"] >= 1)  # "warehuse" is one edit away: the typo case
    chosen = next(m.value for m in page.markdown if m.value.startswith("**Chosen threshold:"))
    assert "current: the es-auto preset" in unescaped(chosen)
    # Using the calibrated threshold goes back to the ratio rule it was calibrated for.
    page.button(key="cal_use").click().run()
    no_exception(page)
    assert page.selectbox(key="w_fuzzyrule").value == "ratio"
    assert not page.slider(key="w_threshold").disabled


def test_calibration_prefers_the_real_reported_queries(page):
    submit_report(page, "warehuse sync", "inventory", "15 minutes")
    page.button(key="tr_save").click().run()
    page.button(key="cal_run").click().run()
    no_exception(page)
    assert any("Sample: **1** real reported queries" in m.value for m in page.markdown)
    # One query says too little: the page refuses to recommend a threshold, and says why.
    assert not any(m.value.startswith("**Chosen threshold:") for m in page.markdown)
    [refusal] = [w.value for w in page.warning if "No threshold recommended" in w.value]
    assert "1 query" in refusal and f"{MIN_CALIBRATION_QUERIES} needed" in refusal
    assert not [b for b in page.button if b.key == "cal_use"]


def test_robustness_sweep_draws_pass_rate_vs_noise(page):
    page.button(key="rob_run").click().run()
    no_exception(page)
    summary = next(m.value for m in page.markdown if m.value.startswith("At rate"))
    assert "ocr: no fix" in summary and "typo: no fix" in summary



def test_hostile_report_text_is_escaped(page):
    hostile = "<img src=x onerror=alert(1)> **bold** [link](http://x)"
    submit_report(page, "warehuse sync " + hostile, "inventory", hostile, hostile)
    no_exception(page)
    shown = [e.value for e in (*page.markdown, *page.warning, *page.error, *page.success)]
    hits = [v for v in shown if "img src=x" in unescaped(v)]
    assert hits  # the text is shown, but inert: markup characters are backslash-escaped
    for value in hits:
        assert value.count("<img") == value.count("\\<img")
        assert "[link]" not in value and "**bold**" not in value


def test_run_again_records_the_real_check_under_fixes_outside_the_named_configurations(
    workspace,
):
    """Regression: with ``recency,status`` (not one of the 12 named configurations) *Run
    again* used to record the no-fix result — FAIL — although the real check passes."""
    case = CASES["stale-version"]
    workspace.mkdir(parents=True)
    CaseLibrary(workspace / "library.sqlite").add(case)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["fixes"] = "recency,status"
    at.run()
    at.switch_page(TRIAGE).run()
    no_exception(at)
    next(b for b in at.button if b.key == "lib_rerun").click().run()
    no_exception(at)
    runs = CaseLibrary(workspace / "library.sqlite").history(case.name)
    assert [(r.configuration, r.passed) for r in runs] == [("recency,status", True)]


def test_a_legacy_workspace_cases_file_is_imported_once_into_the_library(workspace):
    workspace.mkdir(parents=True)
    legacy = workspace / "cases.json"
    legacy.write_text(
        '{"cases": [{"name": "old-suite-case", "query": "warehuse sync", '
        '"expected_id": "inventory"}]}'
    )
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(TRIAGE).run()
    no_exception(at)
    library = CaseLibrary(workspace / "library.sqlite")
    assert [e.name for e in library.list()] == ["old-suite-case"]
    assert not legacy.exists() and (workspace / "cases.json.imported").is_file()
    at.run()  # a second run imports nothing again and loses nothing
    assert [e.name for e in library.list()] == ["old-suite-case"]


def test_triage_on_a_case_repaired_only_by_a_date_tie_says_so_in_words(tmp_path, monkeypatch):
    from conftest import write_date_tie_docs

    docs = write_date_tie_docs(tmp_path / "docs")
    monkeypatch.setenv("RAGDASH_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(TRIAGE).run()
    submit_report(at, "gift cards valid", "gifts-2025", "two years")
    text = " ".join(unescaped(m.value) for m in at.markdown) + " ".join(alerts(at))
    assert "Repaired by:** no single fix changes the matching" in text
    # the tie is explained once: the headline said it, then "Passes only by a tie-break" again
    assert text.count("passes only by winning a tie on update date") == 1, text
    assert "gifts-2025 is newer (2025-06-01 vs 2023-01-01)" in text
    # "Compare with" does not default to the lucky fix when something else passes.
    compare = at.selectbox(key="tr_compare").value
    assert compare != "recency"


def test_the_headline_says_the_diagnosis_once_and_dates_read_as_dates(page):
    """Issue 29 #7: "Ranking or filtering problem. With no fix this is a ranking or filtering
    problem…"; raw timestamps (2026-12-03T17:49:13+00:00) in the library."""
    submit_report(page, "warehuse sync", "inventory", "15 minutes")
    shown = [a.replace("**", "") for a in alerts(page)]
    headline = next(a for a in shown if a.startswith("Ranking or filtering problem."))
    assert headline.lower().count("ranking or filtering problem") == 1, headline
    assert "With no fix, crm is ranked first, not inventory." in headline
    page.button(key="tr_save").click().run()
    no_exception(page)
    import re

    stamp = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")
    for df in page.dataframe:
        for column in ("updated", "when"):
            if column in df.value.columns:
                values = df.value[column].astype(str).tolist()
                assert values and not any(stamp.search(v) for v in values), values
                assert all(re.match(r"\d{1,2} \w{3} \d{4}, \d\d:\d\d", v) for v in values)


def test_the_pytest_export_says_the_fixes_its_file_runs_under(page):
    """Issue 29 #7: "Export as a pytest file (fixes: none)" wrote a file that ran the typo
    case under fuzzy."""
    submit_report(page, "warehuse sync", "inventory", "15 minutes")
    page.button(key="tr_save").click().run()
    no_exception(page)
    labels = [b.label for b in page.get("download_button") if "pytest" in b.label]
    # offered on the Report tab once saved, and on the Case library tab
    assert labels == ["Export as a pytest file (fixes: per case)"] * 2
    assert any("repairing fix (Fuzzy matching)" in c.value for c in page.caption)
    body = next(b for b in page.get("download_button") if "pytest" in b.label)
    assert body is not None
