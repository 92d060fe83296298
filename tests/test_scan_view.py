"""The OCR tab of the Documents page, on the real app (AppTest) with a real scan upload."""

from __future__ import annotations

import pytest
from conftest import open_documents
from shown import unescaped

from tests.test_scans import POLICY, scan_of

pytestmark = pytest.mark.usefixtures("tesseract")  # skipped without it, failed in CI

DOCUMENTS = "ragdash/ui/pages/documents.py"


def test_an_uploaded_scan_shows_its_ocr_tab_with_image_text_and_learned_entries(app, tmp_path):
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    at.file_uploader(key="upload").upload("returns-scan.pdf", scan_of(POLICY), "application/pdf")
    open_documents(at.run(), "returns-scan")
    assert not at.exception
    assert (tmp_path / "workspace" / "uploads" / "returns-scan.pdf").is_file()
    warnings = [w.value for w in at.warning]
    assert any("read by OCR" in w for w in warnings)
    assert "returns-scan" in list(at.dataframe[0].value["id"])
    tab = next(t for t in at.tabs if t.label == "OCR (scanned pages)")
    metrics = {m.label: m.value for m in tab.metric}
    assert int(metrics["Words read"]) > 15
    assert metrics["Confidence"].endswith("%")
    assert tab.get("image"), "the page image is shown"
    shown = " ".join(str(h.proto.body) for h in tab.get("html"))
    assert "Returns are accepted within 30 days" in " ".join(shown.split())
    labels = [m.value for m in tab.markdown]
    assert "**Words the OCR fix would rewrite on this page**" in labels
    assert "**OCR signals mined from this document**" in labels
    # the clean text says "3o" where OCR read "30": a digit read for a letter → 0=o
    area = next(a for a in tab.text_area if a.key.startswith("scan_clean_"))
    area.set_value("Returns Policy\nReturns are accepted within 3o days of delivery.").run()
    assert not at.exception
    tab = next(t for t in at.tabs if t.label == "OCR (scanned pages)")
    assert any("Proposed OCR map entries: 0=o" in unescaped(s.value) for s in tab.success)


def test_without_tesseract_an_uploaded_scan_is_refused_saying_how_to_install(
    app, tmp_path, monkeypatch
):
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    at.file_uploader(key="upload").upload("returns-scan.pdf", scan_of(POLICY), "application/pdf")
    at.run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "returns\\-scan\\.pdf" in errors and "OCR is not possible" in errors
    assert "apt\\-get install tesseract\\-ocr" in errors
    assert not (tmp_path / "workspace" / "uploads" / "returns-scan.pdf").exists()
    assert "returns-2026" in list(at.dataframe[0].value["id"])  # the rest is still there
    open_documents(at)
    assert not any(t.label == "OCR (scanned pages)" for t in at.tabs)


def test_the_ocr_tab_shows_where_ocr_found_no_words(app):
    from tests.test_scans import half_unreadable_scan

    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    at.file_uploader(key="upload").upload("half.pdf", half_unreadable_scan(), "application/pdf")
    open_documents(at.run(), "half")
    assert not at.exception
    verdicts = " ".join(  # in a box of its colour: green, amber or red
        unescaped(i.value) for i in (*at.info, *at.success, *at.warning, *at.error)
        if "retrieved correctly" in i.value
    )
    assert "OCR may have missed text on page 1" in verdicts and "Good" not in verdicts
    tab = next(t for t in at.tabs if t.label == "OCR (scanned pages)")
    metrics = {m.label: m.value for m in tab.metric}
    assert 30 <= int(metrics["Ink without words"].rstrip("%")) <= 70
    assert any("OCR may have missed text on page 1" in unescaped(w.value) for w in tab.warning)
    labels = [m.value for m in tab.markdown]
    assert "**Inked areas where OCR found no word** (orange boxes)" in labels
    # where on the page in words (issue 43: raw point coordinates said nothing)
    regions = next(d.value for d in tab.dataframe if "where" in d.value.columns)
    assert "top" not in regions.columns and "left" not in regions.columns
    assert len(regions) >= 1 and regions["where"].iloc[0].startswith(("middle", "bottom"))
    assert tab.get("image"), "the page image with the boxes is shown"
