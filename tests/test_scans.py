"""OCR of scanned PDFs at ingestion: real Tesseract on small generated scans (one or two
pages at 200 dpi, so the module adds seconds, not minutes)."""

from __future__ import annotations

import os

import pytest

from benchmarks.scanbench import BENCH_DOCS, ScanDoc, find_fonts, image_pdf, render_pages
from ragdash.case import Case
from ragdash.checks.proof import check_case
from ragdash.errors import IngestError, OcrUnavailable, RagdashError
from ragdash.ingestion import scans
from ragdash.ingestion.ingest import load_folder, read_pdf
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.ingestion.scans import OcrSettings, OcrWord, tesseract_missing, words_to_lines
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes
from tests.conftest import doc_text, make_pdf

needs_tesseract = pytest.mark.skipif(
    tesseract_missing() is not None, reason="no Tesseract here (scripts/test.sh installs it)"
)

POLICY = ScanDoc(
    "returns",
    "Returns Policy",
    ("Returns are accepted within 30 days of delivery. Refunds are paid to the original "
     "card within 5 working days.",),
)


def _font() -> str | None:
    fonts = find_fonts()
    return fonts[0][1] if fonts else None


def scan_of(doc: ScanDoc, dpi: int = 200) -> bytes:
    images, _ = render_pages(doc, dpi, _font(), seed=7)
    return image_pdf(images, dpi)


@pytest.fixture(scope="module")
def policy_scan() -> bytes:
    return scan_of(POLICY)


@pytest.fixture(scope="module")
def policy_read(policy_scan):
    if tesseract_missing():
        pytest.skip("Tesseract is not installed")
    return read_pdf(policy_scan)


@needs_tesseract
def test_an_image_only_pdf_is_read_by_ocr_with_word_boxes_and_confidences(policy_read):
    (text,) = policy_read.pages
    assert "Returns are accepted within 30 days of delivery" in " ".join(text.split())
    ocr = policy_read.layouts[0].ocr
    assert ocr is not None and ocr.dpi >= 150
    words = {w.text: w for w in ocr.words}
    assert 0 <= words["Returns"].conf <= 100
    # boxes in PDF points, inside the page, top-down like pdfplumber's
    assert all(0 <= w.x0 < w.x1 <= ocr.width and 0 <= w.top < w.bottom <= ocr.height
               for w in ocr.words)
    title = words["Policy"]
    assert title.top < words["delivery."].top  # the title is above the paragraph
    assert any("read by OCR" in w for w in policy_read.warnings)


@needs_tesseract
def test_an_ocr_page_is_searchable_and_its_evidence_found(tmp_path, policy_scan):
    (tmp_path / "returns.pdf").write_bytes(policy_scan)
    (tmp_path / "other.md").write_text(doc_text("Shipping takes 3 days.", id="other"))
    index = CorpusIndex(load_folder(tmp_path))
    case = Case("refund", "when are refunds paid", "returns", ("5 working days",))
    assert check_case(index, case, Fixes()).passed


@needs_tesseract
def test_a_table_crossing_a_scanned_page_break_is_joined_by_the_tables_fix(tmp_path):
    plans = next(d for d in BENCH_DOCS if d.doc_id == "plans")
    (tmp_path / "plans.pdf").write_bytes(scan_of(plans))
    corpus = load_folder(tmp_path)
    (doc,) = corpus.documents
    assert len(doc.pages) == 2 and all(layout.ocr for layout in doc.layouts)
    first = [t for t in doc.layouts[0].tables if not t.weak]
    assert first and first[0].header_rows == 1 and first[0].columns == 4
    index = CorpusIndex(corpus)
    case = Case("enterprise", "Enterprise plan price seats", "plans", ("Price", "5800"))
    assert not check_case(index, case, Fixes()).passed  # page 2 lacks the header
    assert check_case(index, case, Fixes().with_only(["tables"])).passed


@needs_tesseract
def test_a_second_read_comes_from_the_cache_and_other_settings_read_again(
    tmp_path, policy_scan, policy_read, monkeypatch
):
    cache = PdfCache(tmp_path)
    cache.put(policy_scan, policy_read, scans.ocr_variant())
    # the parse (OCR included) runs in a child process: watch the pages it says it OCRs
    def ocr_reported(**options):
        labels = []
        pdf = read_pdf(policy_scan, progress=lambda _f, label: labels.append(label),
                       cache=cache, **options)  # fmt: skip
        return pdf, any(label.startswith("OCR of page") for label in labels)

    again, ocr_ran = ocr_reported()
    assert again.pages == policy_read.pages and not ocr_ran
    other, ocr_ran = ocr_reported(ocr=OcrSettings(dpi=150))
    assert ocr_ran and other.layouts[0].ocr.dpi == 150
    assert not ocr_reported(ocr=OcrSettings(dpi=150))[1]  # cached under its own settings

@needs_tesseract
def test_ocr_on_request_reads_pages_that_have_a_text_layer(tmp_path):
    pdf = make_pdf(tmp_path / "t.pdf", [["Quarterly revenue grew by twelve percent"]])
    data = pdf.read_bytes()
    assert read_pdf(data).layouts[0].ocr is None  # a text layer: no OCR unless asked
    forced = read_pdf(data, ocr=OcrSettings(mode="all", dpi=200))
    assert forced.layouts[0].ocr is not None
    assert "revenue grew by twelve" in forced.pages[0]
    assert any("every page, as asked" in w for w in forced.warnings)


def test_without_tesseract_a_scan_gets_the_message_and_how_to_install(tmp_path, monkeypatch):
    scan = scan_of(POLICY, dpi=150)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no tesseract on the PATH
    assert "apt-get install tesseract-ocr" in (tesseract_missing() or "")
    with pytest.raises(IngestError, match="no text layer.*OCR is not possible.*apt-get install"):
        read_pdf(scan)
    # nothing else breaks: text files and text PDFs in the same folder still load
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "scan.pdf").write_bytes(scan)
    (docs / "notes.md").write_text(doc_text("Shipping takes 3 days.", id="notes"))
    make_pdf(docs / "plain.pdf", [["Refunds within 5 working days"]])
    corpus = load_folder(docs)
    assert set(corpus.doc_ids) == {"plain", "notes"}
    (error,) = [m for m in corpus.messages if m.level == "error"]
    assert error.source == "scan.pdf" and "brew install tesseract" in error.message
    with pytest.raises(OcrUnavailable):
        scans.require_tesseract()


def test_a_scan_read_without_tesseract_is_read_again_once_it_is_installed(tmp_path, monkeypatch):
    mixed = make_pdf(tmp_path / "m.pdf", [["A page with text"], ["x"]], image_only=False)
    data = mixed.read_bytes()
    real_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    without = scans.ocr_variant()
    monkeypatch.setenv("PATH", real_path)
    if tesseract_missing():
        pytest.skip("Tesseract is not installed")
    assert without != scans.ocr_variant()  # a different cache entry
    assert PdfCache(tmp_path).path(data, without) != PdfCache(tmp_path).path(data)


def test_ocr_words_become_rows_with_column_segments():
    # Tesseract reads each table column as its own block; rows are rebuilt from the boxes
    words = [
        OcrWord("Plan", 50, 100, 70, 108, 95, line=1),
        OcrWord("Price", 200, 101, 225, 109, 95, line=2),
        OcrWord("Basic", 50, 115, 74, 123, 90, line=3),
        OcrWord("|", 150, 114, 151, 124, 40, line=3),  # a vertical rule read as a bar
        OcrWord("95", 200, 116, 211, 124, 88, line=4),
    ]
    lines = words_to_lines(words)
    assert [line.text for line in lines] == ["Plan Price", "Basic 95"]
    assert [len(line.segments) for line in lines] == [2, 2]


def test_ocr_settings_refuse_nonsense():
    with pytest.raises(ValueError, match="OCR mode 'some'"):
        OcrSettings(mode="some")
    with pytest.raises(ValueError, match="outside 50–600"):
        OcrSettings(dpi=5000)
    assert issubclass(OcrUnavailable, RagdashError)


@needs_tesseract
def test_metadata_csv_asks_for_ocr_of_every_page_of_one_pdf(tmp_path):
    make_pdf(tmp_path / "garbled.pdf", [["Quarterly revenue grew by twelve percent"]])
    make_pdf(tmp_path / "plain.pdf", [["Quarterly costs fell by three percent"]])
    (tmp_path / "metadata.csv").write_text("file,ocr\ngarbled.pdf,all\nplain.pdf,\n")
    corpus = load_folder(tmp_path)
    assert corpus.document("garbled").layouts[0].ocr is not None
    assert corpus.document("plain").layouts[0].ocr is None
    (tmp_path / "metadata.csv").write_text("file,ocr\ngarbled.pdf,sometimes\n")
    errors = [m.message for m in load_folder(tmp_path).messages if m.level == "error"]
    (error,) = errors
    assert error == "metadata.csv: OCR mode 'sometimes' is not one of auto, all, off; file skipped"


@needs_tesseract
def test_missing_language_data_says_which_package_to_install():
    from PIL import Image

    with pytest.raises(OcrUnavailable, match="no 'xyz' language data.*tesseract-ocr-xyz"):
        scans.ocr_image(Image.new("L", (200, 100), 255), lang="xyz")
