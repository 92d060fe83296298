"""The Documents page and ``ragdash inspect`` on text layers that are there but wrong, and the
OCR signals they offer as one-click map entries (issue 28, report fixes)."""

from __future__ import annotations

import pytest
from conftest import open_documents, require_tesseract
from test_app import DOCUMENTS, no_exception
from test_cli import run_main
from test_textlayer import PROSE, _pdf

from ragdash.text import tokenize

NOISE = ["Xkqzt vbnmw plkjh qwrtz zxcvb mnbvc lkjhg fdsap qwrty"] * 4
HEADER = "HIGHLIGHTS FROM THE ANNUAL REVIEW"


def _report_pdf() -> bytes:
    """p1 clean, p2 with every glyph drawn twice, p3 a layer of noise."""
    return _pdf([PROSE, [HEADER, *PROSE], NOISE], twice={2})


@pytest.fixture
def docs(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "review.pdf").write_bytes(_report_pdf())
    (folder / "plans.md").write_text(
        "---\nupdated: 2026-01-05\n---\nThe enterprise plan: sign the contract. The party "
        "pays for the parts; part of it by SSN or SSA number, see the SSC.\n",
        encoding="utf-8",
    )
    (folder / "scan.md").write_text(
        "---\nupdated: 2026-01-04\n---\nThe Enterpr1se plan, a signed c0ntr4ct, SS0 and "
        "part1 of the deal.\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("RAGDASH_DOCS", str(folder))
    return folder


def _texts(at) -> list[str]:
    """What the page says: alerts, Markdown and the HTML boxes (the verdict box is one)."""
    kinds = ("info", "warning", "success", "error", "markdown")  # the verdict: its colour
    shown = [e.value for kind in kinds for e in at.get(kind)]
    return shown + [h.proto.body for h in at.get("html")]


def test_documents_page_names_doubled_and_garbled_pages_and_offers_ocr(app, docs):
    at = app()
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run())
    no_exception(at)
    texts = " ".join(_texts(at))
    assert "print every letter twice" in texts
    assert "Garbled text layer on page(s) 3" in texts
    assert any(b.label == "OCR page(s) 3 instead" for b in at.button)
    # the doubled page reads once in the Pages tab
    passages = " ".join(h.proto.body for h in at.get("html") if "rd-passage" in h.proto.body)
    assert HEADER in passages and "HHII" not in passages


@pytest.mark.slow
def test_the_ocr_button_reads_the_garbled_page_with_tesseract(app, docs):
    require_tesseract()
    at = app()
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run())
    next(b for b in at.button if b.label == "OCR page(s) 3 instead").click().run()
    no_exception(at)
    texts = " ".join(_texts(at))
    assert "were OCR'd in this view" in texts and "ocr_pages" in texts
    assert "Garbled text layer" not in texts


def test_one_click_ocr_map_entries_only_with_corpus_evidence(app, docs):
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    no_exception(at)
    lines = [m.value for m in at.markdown if "→" in m.value and "seen" in m.value]
    said = " ".join(lines)
    assert "enterprise" in said and "contract" in said
    for wrong in ("ssn", "ssa", "ssc", "party", "parts"):
        assert wrong not in tokenize(said), wrong
    assert any(b.label.startswith("Add ") and "4=a" in b.label.replace("\\", "") for b in at.button)


def test_inspect_names_the_pages_and_the_ocr_option(capsys, tmp_path):
    pdf = tmp_path / "review.pdf"
    pdf.write_bytes(_report_pdf())
    code, out, _ = run_main(capsys, "inspect", str(pdf))
    assert code == 0
    assert "letters drawn twice, read once on: 2" in out
    assert "garbled text layer on: 3 — OCR them: inspect --ocr-pages 3" in out
    code, _, err = run_main(capsys, "inspect", str(pdf), "--ocr-pages", "3;x")
    assert code != 0 and "--ocr-pages" in err and "'x' is not a page" in err
    assert "Traceback" not in err
