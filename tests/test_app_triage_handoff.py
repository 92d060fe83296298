"""Issue 43, Triage: Explore hands its query to Triage in one click, the form takes an
approximate query and finds the document that says a phrase, "Save as case" follows the
verdict, and exports record relative paths — never the server's docs and workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shown import unescaped
from streamlit.testing.v1 import AppTest

from ragdash.bundled import SAMPLES
from ragdash.settings import Fixes
from ragdash.storage.case_store import load_cases
from ragdash.storage.export import (
    json_export,
    portable_location,
    pytest_module,
    relative_location,
)

ROOT = Path(__file__).resolve().parent.parent
TRIAGE = "ragdash/ui/pages/triage.py"


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "workspace"
    monkeypatch.setenv("RAGDASH_WORKSPACE", str(root))
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    return root


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_triage_this_query_opens_triage_filled_in_and_diagnosed_in_one_click(workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params.update(q="return policy days", fixes="recency", expect="returns-2026",
                           evidence="30 days")  # fmt: skip
    ok(at.run())
    ok(at.button(key="explore_triage").click().run())
    assert at.text_input(key="tr_query").value == "return policy days"
    assert at.selectbox(key="tr_expect").value == "returns-2026"
    assert at.text_input(key="tr_evidence").value == "30 days"
    boxes = (*at.info, *at.success, *at.warning, *at.error, *at.caption)
    shown = " ".join(unescaped(a.value) for a in boxes)
    assert "Opened from Explore" in shown
    # diagnosed already, under the sidebar's fixes: the verdict and Save as case are there
    assert at.button(key="tr_save") is not None
    assert any(t in shown for t in ("Evidence present", "Ranking or filtering problem"))


def test_save_as_case_comes_right_after_the_verdict(workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    ok(at.run())
    ok(at.switch_page(TRIAGE).run())
    at.text_input(key="tr_query").input("warehuse sync")
    at.selectbox(key="tr_expect").select("inventory")
    at.text_input(key="tr_evidence").input("15 minutes")
    ok(next(b for b in at.button if b.label == "Diagnose").click().run())
    tab = at.tabs[0]
    order = [n.label if hasattr(n, "label") else getattr(n, "value", "") for n in tab]
    flat = [str(x) for x in order]
    save = next(i for i, x in enumerate(flat) if x == "Save as case")
    closeness = next(i for i, x in enumerate(flat) if "How close to breaking" in x)
    assert save < closeness


def test_the_picker_names_subject_date_and_status_and_finds_the_document_by_a_phrase(
    workspace,
):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    ok(at.run())
    ok(at.switch_page(TRIAGE).run())
    assert "approximate" in (at.text_input(key="tr_query").help or "").lower()
    picker = at.selectbox(key="tr_expect")
    assert "returns-2024 — Return policy · 2024-02-01 · withdrawn" in [
        unescaped(o) for o in picker.options
    ]
    ok(at.text_input(key="tr_find").input("within 30 days").run())
    picker = at.selectbox(key="tr_expect")
    assert picker.value == "returns-2026" and len(picker.options) == 1
    assert at.text_input(key="tr_evidence").value == "within 30 days"


def test_exports_carry_relative_paths_never_the_servers(workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    ok(at.run())
    ok(at.switch_page(TRIAGE).run())
    at.text_input(key="tr_query").input("warehuse sync")
    at.selectbox(key="tr_expect").select("inventory")
    ok(next(b for b in at.button if b.label == "Diagnose").click().run())
    ok(at.button(key="tr_save").click().run())
    docs = at.text_input(key="lib_export_docs").value
    ws = at.text_input(key="lib_export_ws").value
    assert (docs, ws) == ("samples", "workspace")
    assert {b.label for b in at.get("download_button")} >= {"Export as cases.json"}
    # an absolute path typed in is refused with a one-line reason, nothing exported
    ok(at.text_input(key="lib_export_docs").input("/srv/ragdash/docs").run())
    assert any("is an absolute path" in unescaped(e.value) for e in at.error)


def test_exported_files_hold_no_absolute_server_path(tmp_path):
    cases = load_cases(SAMPLES / "cases.json")
    server_docs, server_ws = tmp_path / "srv" / "policies", tmp_path / "srv" / "workspace"
    docs = relative_location(portable_location(server_docs), "docs")
    ws = relative_location(portable_location(server_ws), "workspace")
    data = json.loads(json_export(cases, docs=docs, workspace=ws))
    assert (data["docs"], data["workspace"]) == ("policies", "workspace")
    module = pytest_module(cases, docs=docs, fixes=Fixes(), workspace=ws)
    for text in (json.dumps(data), module):
        assert str(tmp_path) not in text
    assert portable_location(SAMPLES) == "samples"
    with pytest.raises(ValueError, match="absolute path"):
        relative_location(str(server_docs), "docs")
