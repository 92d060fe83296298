"""Plain words on every page (issue 29 #8): every term a page shows as a table column, a
metric or an HTML table header has a glossary entry, shown as that header's hover help;
the Documents page shows each join decision's reason in full and where re-cut passages
differ, escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import open_documents
from streamlit.testing.v1 import AppTest
from test_app import html_tables

from ragdash.checks.findability import passage_diff
from ragdash.checks.textdiff import change_summary
from ragdash.ingestion.ingest import load_folder
from ragdash.ingestion.inspection import inspect_pdf
from ragdash.retrieval.index import CorpusIndex
from ragdash.ui.glossary import GLOSSARY, define, glossary_markdown, help_for

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_docs"
SUITE = "ragdash/ui/pages/suite.py"
DOCUMENTS = "ragdash/ui/pages/documents.py"
TRIAGE = "ragdash/ui/pages/triage.py"
STRESS = "ragdash/ui/pages/stress.py"


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RAGDASH_WORKSPACE", str(tmp_path / "workspace"))
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    return tmp_path / "workspace"


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def headers(at: AppTest) -> list[tuple[str, str | None]]:
    """(header as shown, its hover help) of every table column and metric on the page."""
    found: list[tuple[str, str | None]] = []
    for element in at.dataframe:
        config = json.loads(element.proto.columns or "{}")
        order = list(element.proto.column_order) or list(element.value.columns)
        for column in order:
            entry = config.get(str(column), {})
            found.append((entry.get("label", str(column)), entry.get("help")))
    for metric in at.metric:
        found.append((metric.label, metric.proto.help or None))
    for element in at.get("html"):
        body = element.proto.body
        if "rd-table" in body:
            for title, name in re.findall(r"<th(?: title=\"([^\"]*)\")?>([^<]*)</th>", body):
                found.append((name, title or None))
    return found


def visit_every_page(at: AppTest) -> dict[str, list[tuple[str, str | None]]]:
    """Each page in the states that draw its tables: a case on Explore, the fragility search
    on the Test suite, a PDF's inspection on Documents, a diagnosed report, the calibration
    and the robustness sweep on Triage, and two saved runs compared."""
    seen: dict[str, list[tuple[str, str | None]]] = {}
    at.query_params.update(q="warehuse sync", fixes="fuzzy", expect="inventory",
                           evidence="15 minutes")  # fmt: skip
    at.run()
    seen["explore"] = headers(at)
    at.switch_page(SUITE).run()
    next(b for b in at.button if b.label.startswith("Search for the smallest")).click().run()
    for _ in range(2):  # two saved runs: the list and the comparison draw their tables
        next(b for b in at.button if b.label == "Save this run").click().run()
    no_exception(at)
    seen["suite"] = headers(at)
    open_documents(at.switch_page(DOCUMENTS).run())
    no_exception(at)
    seen["documents"] = headers(at)
    at.switch_page(TRIAGE).run()
    at.text_input(key="tr_query").input("warehuse sync")
    at.selectbox(key="tr_expect").select("inventory")
    at.text_input(key="tr_evidence").input("15 minutes")
    next(b for b in at.button if b.label == "Diagnose").click().run()
    at.button(key="cal_run").click().run()
    at.button(key="rob_run").click().run(timeout=180)
    no_exception(at)
    seen["triage"] = headers(at)
    at.switch_page(STRESS).run()
    next(b for b in at.button if b.label == "Run the stress test").click().run(timeout=300)
    no_exception(at)
    seen["stress"] = headers(at)
    return seen


def test_every_header_a_page_shows_has_a_glossary_entry_as_its_hover_help(workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    seen = visit_every_page(at)
    missing = sorted({f"{page}: {name!r}" for page, found in seen.items()
                      for name, _ in found if define(name) is None})  # fmt: skip
    assert missing == [], "add these to ragdash/ui/glossary.py:\n" + "\n".join(missing)
    silent = sorted({f"{page}: {name!r}" for page, found in seen.items()
                     for name, tip in found if not tip})  # fmt: skip
    assert silent == [], "headers shown without their hover help:\n" + "\n".join(silent)
    # the pages were really visited: the terms the issue named are among them
    shown = {name for found in seen.values() for name, _ in found}
    for term in ("MRR", "evidence@k", "90% up to", "tables side by side", "Table rows rejoined",
                 "where they differ", "why", "false fuzzy matches", "pass rate"):
        assert term in shown, term


def test_the_glossary_is_in_the_dashboard_guide():
    guide = (ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")
    section = guide.split("## Glossary", 1)[1]
    assert glossary_markdown() in section, "regenerate docs/dashboard.md's Glossary section"
    assert all(define(term) == text for term, text in GLOSSARY.items())


def test_snake_case_columns_are_shown_as_words_with_their_help():
    config = help_for(["pass_rate", "nothing_known", "MRR"], {"MRR": "mean rank"})
    assert config["pass_rate"] == {"label": "pass rate", "help": define("pass rate")}
    assert config["nothing_known"] == {"label": "nothing known"}
    assert config["MRR"]["label"] == "mean rank"
    assert define("all-but-ocr").startswith("Every fix but OCR normalization")


def test_every_join_decision_shows_its_reason_in_full(workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run(), "plans")
    no_exception(at)
    report = inspect_pdf((SAMPLE / "plans.pdf").read_bytes())
    decisions = next(t for t in html_tables(at) if {"why", "pages"} <= set(t.columns))
    assert decisions["why"].tolist() == [d.reason for d in report.decisions]
    assert decisions["pages"].tolist() == [f"{d.page_a}→{d.page_b}" for d in report.decisions]


def test_passages_before_and_after_show_where_they_differ(workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run(), "plans")
    no_exception(at)
    index = CorpusIndex(load_folder(SAMPLE))
    changed = [c for c in passage_diff(index, "plans") if c.change != "unchanged"]
    table = next(t for t in html_tables(at) if "where they differ" in t.columns)
    assert table["where they differ"].tolist() == [
        change_summary(c.before_text, c.after_text) for c in changed
    ]
    # no longer the same first characters on every row
    assert len(set(table["where they differ"])) == len(table)
    marked = [h.proto.body for h in at.get("html") if "rd-diff-" in h.proto.body]
    assert any('<mark class="rd-diff-del">' in m for m in marked)
    assert any('<mark class="rd-diff-ins">' in m for m in marked)


def test_marked_differences_are_escaped_run_by_run():
    from ragdash.ui.documents import _marked_html

    body = _marked_html([("<img src=x onerror=alert(1)>", True), ("\u202eok", False)], "m")
    assert "<img" not in body and "&lt;img" in body
    assert "⟨U+202E⟩ok" in body and body.count("<mark") == 1


def test_the_sidebar_holds_the_glossary_and_heatmap_cells_explain_themselves(workspace):
    """The words met in sentences (proof check, ranking, extraction, evidence) are in the
    sidebar's glossary on every page; a heatmap cell's tooltip says what its diagnosis and
    its configuration mean."""
    import pandas as pd

    from ragdash.ui.suite import heatmap

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    no_exception(at)
    [box] = [e for e in at.sidebar.expander if e.label == "Glossary"]
    text = " ".join(h.proto.body for h in box.get("html"))
    for term in ("proof check", "ranking", "extraction", "evidence", "MRR", "All but …"):
        assert f"<dt><b>{term}</b></dt>" in text, term
    table = pd.DataFrame({"case": ["typo"], "configuration": ["all-but-fuzzy"],
                          "diagnosis": ["ranking"], "first_id": ["crm"],
                          "missing_evidence": [""]})  # fmt: skip
    spec = heatmap(table).to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert rows[0]["meaning"] == define("ranking")
    assert rows[0]["fixes"].startswith("Every fix but Fuzzy matching")
