"""Issue 43, Inspect: a scan whose OCR was unsure of words is never called "Good" — by
``ragdash inspect`` or the Documents page — and the verdict names the OCR risk in its
colour; words read backwards are flagged; the upload's progress says page, time elapsed
and time left; a file's loading messages are said once."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from conftest import open_documents
from pdf_factory import text_pages_pdf
from shown import unescaped

from benchmarks.scanbench import ScanDoc, find_fonts, image_pdf, render_pages
from ragdash.cli import main
from ragdash.ingestion.ingest import read_pdf
from ragdash.ingestion.inspection import inspect_pdf
from ragdash.ingestion.progress import ProgressClock
from ragdash.ingestion.scans import ocr_variant
from ragdash.ingestion.user_cache import parse_cache
from ragdash.ingestion.workspace import Workspace
from ragdash.settings import OcrRisk

DOCUMENTS = "ragdash/ui/pages/documents.py"
POLICY = ScanDoc("returns", "Returns Policy", (
    "Returns are accepted within 30 days of delivery. Refunds are paid to the original card "
    "within 5 working days. Exchanges of opened software are refused unless the licence key "
    "was never activated.",
))  # fmt: skip


@functools.cache
def unsure_scan() -> bytes:
    """A real scan drawn coarse (110 dpi), blurred and noisy: OCR reads every line but is
    unsure of a few words, and leaves under 15% of the ink without words — the page the
    old verdict called "Good"."""
    fonts = find_fonts()
    images, _ = render_pages(POLICY, 110, fonts[0][1] if fonts else None, blur=1.1, noise=22,
                             seed=3)  # fmt: skip
    return image_pdf(images, 110)


@pytest.fixture(scope="module")
def unsure_cache(tmp_path_factory, tesseract) -> Path:
    """A user cache folder (``RAGDASH_CACHE_DIR``) whose parse cache holds the unsure scan,
    OCR'd once for this file: the inspection, ``ragdash inspect`` and the upload below read
    that parse as a second visit would (each OCR of the page takes seconds to half a
    minute); what they judge is the same page read the same way."""
    folder = tmp_path_factory.mktemp("unsure-cache")
    read_pdf(unsure_scan(), cache=parse_cache(folder))
    return folder


def test_a_scan_with_unsure_words_is_never_good_and_the_verdict_names_the_ocr_risk(
    unsure_cache,
):
    report = inspect_pdf(unsure_scan(), cache=parse_cache(unsure_cache))
    ((read),) = report.ocr_read
    assert read.unsure >= 1 and read.uncovered < 0.15  # what the old verdict passed as Good
    assert not report.verdict.startswith("Good")
    assert "OCR was unsure of words on page 1" in report.verdict
    assert report.level in ("amber", "red")


def test_cli_inspect_says_the_ocr_risk_and_its_colour(tmp_path, capsys, unsure_cache, monkeypatch):
    monkeypatch.setenv("RAGDASH_CACHE_DIR", str(unsure_cache))
    path = tmp_path / "scan.pdf"
    path.write_bytes(unsure_scan())
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    verdict = next(line for line in out.splitlines() if line.startswith("verdict"))
    assert verdict.startswith(("verdict (amber): ", "verdict (red): "))
    assert "Good" not in verdict and "OCR was unsure of words on page 1" in verdict
    assert "OCR page 1: " in out and "under 80% confidence" in out


def test_a_clean_born_digital_pdf_still_reads_good_in_green(capsys, tmp_path):
    report = inspect_pdf(text_pages_pdf([["Returns are accepted within 30 days."]]))
    assert report.verdict.startswith("Good") and report.level == "green"
    assert report.ocr_read == ()


def test_thresholds_are_settings_and_a_stricter_share_changes_the_verdict():
    from ragdash.ingestion.inspection import OcrPageRead, verdict

    page = (OcrPageRead(1, 200, 1, 0.02),)
    assert verdict(1, (), (), (), False, ocr_read=page).startswith("Retrievable with care")
    lax = OcrRisk(unsure_care=0.01, uncovered_care=0.05)
    assert verdict(1, (), (), (), False, ocr_read=page, risk=lax).startswith("Good")
    assert verdict(1, (), (), (), False,
                   ocr_read=(OcrPageRead(1, 200, 40, 0.02),)).startswith("At risk")  # fmt: skip


def test_words_read_backwards_are_flagged():
    data = text_pages_pdf([["Species ssenhciR hgiH per site", "Low Richness sites: 12"]])
    report = inspect_pdf(data)
    assert (1, "ssenhciR", "Richness") in report.reversed_words
    assert "read backwards" in report.verdict and not report.verdict.startswith("Good")


def test_progress_says_page_elapsed_and_time_left():
    ticks = iter([0.0, 0.0, 30.0, 41.0])
    clock = ProgressClock(now=lambda: next(ticks))
    clock.update(0.0, "page 1 of 12")
    _, first = clock.update(0.0, "OCR of page 1 (1 of 12 to read)")
    assert first == "OCR: page 1 of 12 · 0 s elapsed"
    clock.update(0.0, "OCR of page 2 (2 of 12 to read)")
    share, words = clock.update(0.17, "OCR of page 3 (3 of 12 to read)")
    assert words == "OCR: page 3 of 12 · 41 s elapsed · about 3 min left"
    assert share == pytest.approx(2 / 12)


def test_the_documents_page_shows_the_scan_s_verdict_in_its_colour_and_list_column(
    app, tmp_path, unsure_cache
):
    # the app's workspace (tmp_path/workspace, the app fixture) starts with the scan's parse
    Workspace(tmp_path / "workspace").cache.put(
        unsure_scan(), parse_cache(unsure_cache).get(unsure_scan(), ocr_variant()),
        ocr_variant(),
    )  # fmt: skip
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    at.file_uploader(key="upload").upload("unsure-scan.pdf", unsure_scan(), "application/pdf")
    open_documents(at.run())  # rows are lazy: the verdict is drawn in an opened row
    assert not at.exception, [e.value for e in at.exception]
    verdicts = [
        unescaped(box.value) for box in (*at.success, *at.warning, *at.error, *at.info)
        if "Will this PDF be retrieved correctly?" in box.value
    ]
    scan = next(v for v in verdicts if "OCR was unsure" in v)
    assert "Good" not in scan
    assert not any("OCR was unsure" in unescaped(s.value) for s in at.success)  # not green
    listed = at.dataframe[0].value.set_index("id")
    assert listed.loc["unsure-scan", "verdict"] in ("care", "at risk")
    assert listed.loc["unsure-scan", "OCR"] == "1/1"
    assert listed.loc["plans", "joined"] == "1"
    shown = [unescaped(w.value) for w in (*at.warning, *at.info, *at.error)]
    assert sum("no 'updated' date" in w for w in shown) == 1, shown
    assert not any("see the page image in the Documents page" in w for w in shown)
