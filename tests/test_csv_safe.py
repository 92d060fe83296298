"""Every CSV ragdash writes is safe to open in a spreadsheet: a document, a file name or a case
name such as ``=HYPERLINK("http://evil.example/c","case")`` arrives as text, never as a
formula (OWASP's CSV-injection rule: a ``'`` before a cell starting with = + - @, a tab or a
carriage return). Checked on each CSV: ``ragdash passages --format csv``, the Test suite's
ablation download and the Documents page's ingestion-messages download."""

from __future__ import annotations

import csv
import io
import json
import shutil

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLE_DOCS

from ragdash.cli import main
from ragdash.csv_safe import FORMULA_START, csv_text, frame_csv, safe_cell
from ragdash.ingestion.documents import IngestMessage
from ragdash.ui.listing import messages_csv

FORMULA = '=HYPERLINK("http://evil.example/c","case")'
#: One payload per character a spreadsheet starts a formula with.
PAYLOADS = [FORMULA, "+SUM(1,2)", "-2+3+cmd|' /C calc'!A0", "@SUM(1,2)", "\t=1+1", "\r=2+2"]
SUITE = "ragdash/ui/pages/suite.py"
DOCUMENTS = "ragdash/ui/pages/documents.py"


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def live_formulas(text: str) -> list[str]:
    """Cells a spreadsheet would evaluate: starting with a formula character and not a
    plain number (``-0.5`` is a number in every spreadsheet)."""

    def number(cell: str) -> bool:
        try:
            float(cell)
        except ValueError:
            return False
        return True

    return [
        cell for row in cells(text) for cell in row
        if cell.startswith(FORMULA_START) and not number(cell)
    ]  # fmt: skip


def test_a_formula_becomes_text_and_numbers_stay_numbers():
    for payload in PAYLOADS:
        assert safe_cell(payload) == "'" + payload
    assert safe_cell("-0.5") == "'-0.5"  # text that looks like a number is still text
    assert [safe_cell(v) for v in (-0.5, -3, np.float64(-0.25), np.int64(-2), True, None)] == [
        -0.5, -3, -0.25, -2, True, None
    ]  # fmt: skip
    assert safe_cell("plans") == "plans" and safe_cell("a=b") == "a=b"
    text = csv_text([[FORMULA, -0.5, "x"]], ["=name", "score", "note"])
    assert cells(text) == [["'=name", "score", "note"], ["'" + FORMULA, "-0.5", "x"]]
    table = pd.DataFrame({"case": [FORMULA, "ok"], "score": [-0.5, 1.0], "rank": [-1, 2]})
    assert cells(frame_csv(table)) == [
        ["case", "score", "rank"], ["'" + FORMULA, "-0.5", "-1"], ["ok", "1.0", "2"]
    ]  # fmt: skip


@pytest.fixture
def formula_docs(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, payload in enumerate(PAYLOADS):  # each passage and subject starts with one
        subject = payload.strip()  # front matter values are stripped
        (docs / f"formula-{i}.md").write_text(
            f"---\nid: formula-{i}\nsubject: {subject}\nupdated: 2025-01-01\n---\n"
            f"{payload} zephyrine note number {i}.\n"
        )
    (docs / "plain.md").write_text("-0.5 degrees and a plain line about zephyrine.\n")
    return docs


def test_passages_csv_holds_no_formula(formula_docs, tmp_path, capsys):
    assert main(["passages", "--docs", str(formula_docs), "--format", "csv"]) == 0
    text = capsys.readouterr().out
    rows = cells(text)
    assert live_formulas(text) == []
    assert len(rows) == 1 + len(PAYLOADS) + 1
    assert any(r[2].startswith("'" + FORMULA) for r in rows)  # kept, as text
    assert any(r[2].startswith("'@SUM") for r in rows) and any(r[6] == "'+SUM(1,2)" for r in rows)
    assert any(r[6] == "'" + FORMULA for r in rows[1:])  # the subject too
    assert any(r[2].startswith("'-0.5") for r in rows)  # text that looks like a number
    # the JSON lines (what a retriever indexes) keep every passage exactly
    assert main(["passages", "--docs", str(formula_docs)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert any(r["text"].startswith(FORMULA) for r in records)
    out = tmp_path / "passages.csv"
    assert main(["passages", "--docs", str(formula_docs), "--format", "csv", "-o", str(out)]) == 0
    assert live_formulas(out.read_text()) == []
    assert f"wrote {len(rows) - 1} passage(s)" in capsys.readouterr().err


def test_the_ingestion_messages_csv_holds_no_formula():
    messages = [IngestMessage(f"{p}.md", "warning", f"{p} is odd") for p in PAYLOADS]
    text = messages_csv(messages)
    assert live_formulas(text) == []
    assert cells(text)[1] == ["'" + FORMULA + ".md", "warning", "'" + FORMULA + " is odd"]


def _capture_downloads(monkeypatch) -> dict[str, object]:
    """What every download button of the page offers, by label (``st.download_button`` is
    bound when Streamlit is imported; a column's is looked up on the class)."""
    import streamlit
    from streamlit.delta_generator import DeltaGenerator

    captured: dict[str, object] = {}
    real_method, real_function = DeltaGenerator.download_button, streamlit.download_button

    def method(self, label, data, *args, **kwargs):
        captured[label] = data
        return real_method(self, label, data, *args, **kwargs)

    def function(label, data, *args, **kwargs):
        captured[label] = data
        return real_function(label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", method)
    monkeypatch.setattr(streamlit, "download_button", function)
    return captured


def test_the_test_suite_ablation_csv_holds_no_formula(app, tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    cases = json.loads((docs / "cases.json").read_text())
    for case, payload in zip(cases["cases"], PAYLOADS, strict=False):
        case["name"] = payload
    (docs / "cases.json").write_text(json.dumps(cases))
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    downloads = _capture_downloads(monkeypatch)
    at = app(fixes="none")
    at.run()
    at.switch_page(SUITE).run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    text = downloads["Download ablation (CSV)"]
    assert live_formulas(text) == []
    names = {row[0] for row in cells(text)[1:]}
    assert "'" + FORMULA in names and "'@SUM(1,2)" in names


def test_the_documents_page_messages_download_holds_no_formula(app, tmp_path, monkeypatch):
    from ragdash.ui.listing import MESSAGES_SHOWN

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "present.md").write_text("A note about apples.\n")
    names = ['=HYPERLINK("evil.example","x")', "+SUM(1,2)", "-2+3", "@SUM(1,2)"]
    for i in range(3 * MESSAGES_SHOWN):  # files that fail to load: a message each, by name
        (docs / f"{names[i % 4]}-{i}.md").write_text("---\nid: never closed\n")
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    downloads = _capture_downloads(monkeypatch)
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    assert not at.exception, [e.value for e in at.exception]
    label = next(k for k in downloads if "messages" in k)
    text = downloads[label].decode("utf-8")
    assert live_formulas(text) == []
    sources = {row[0] for row in cells(text)[1:]}
    assert "'" + names[0] + "-0.md" in sources and "'@SUM(1,2)-3.md" in sources


def test_the_workspace_metadata_csv_holds_no_formula_and_reads_back_exactly(tmp_path):
    from ragdash.ingestion.workspace import Workspace

    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    ws = Workspace(tmp_path / "ws")
    corpus = ws.load(docs)
    subjects = {"plans.pdf": FORMULA, "crm.md": "'=quoted", "inventory.md": "'tis the season"}
    for source, subject in subjects.items():
        doc = next(d for d in corpus.documents if d.source == source)
        ws.save_edit(corpus, source, {"id": doc.doc_id, "subject": subject})
    written = ws.edits_path.read_text()
    assert live_formulas(written) == []
    again = Workspace(tmp_path / "ws").load(docs)
    assert {d.source: d.subject for d in again.documents if d.source in subjects} == subjects
