"""The report fixes of issue 28 on the real PDFs of ``../shared/realpdfs`` and
``../shared/realpdfs2`` (never copied here; skipped when absent, failed in CI): the
double-struck running header of ICDAR us-020 reads once and is named, no real page is called
garbled, the 400-page IRM says how many crossing tables its list leaves out and never asks
for OCR that ran, and the OCR signals propose nothing the corpus does not support."""

from __future__ import annotations

import pytest
from conftest import dev_set, require
from realpdfs import REALPDFS

from ragdash.checks.ocr_signals import ocr_signals
from ragdash.ingestion.ingest import load_folder, read_pdf
from ragdash.ingestion.inspection import inspect_pdf
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.ingestion.textlayer import is_garbled

REALPDFS2 = REALPDFS.parent / "realpdfs2"
IRM = REALPDFS / "pdf2image-memory-error-test-400p.pdf"

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True, scope="module")
def _the_development_sets():
    """Skipped without ../shared/realpdfs and realpdfs2, failed in CI."""
    dev_set("realpdfs")
    dev_set("realpdfs2")


@pytest.fixture(scope="module")
def cache(dev_set_parses) -> PdfCache:
    """The run's shared parses of the development sets (test_stress.py reads realpdfs too)."""
    return dev_set_parses


def test_a_double_struck_running_header_reads_once_and_is_named(cache):
    data = (REALPDFS / "icdar2013-us-020.pdf").read_bytes()
    pdf = read_pdf(data, cache=cache)
    assert pdf.overprinted == (1, 3, 5)
    assert pdf.pages[2].startswith("HIGHLIGHTS FROM PIRLS 2011")
    assert not any("HHIIGG" in page for page in pdf.pages)
    report = inspect_pdf(data, cache=cache)
    assert report.overprinted_pages == (1, 3, 5) and report.garbled_pages == ()
    assert "page(s) 1, 3 and 5 print every letter twice" in report.verdict


@pytest.mark.parametrize("folder", [REALPDFS, REALPDFS2], ids=["realpdfs", "realpdfs2"])
def test_no_real_page_is_called_garbled_and_no_ocr_signal_lacks_evidence(folder, cache):
    corpus = load_folder(folder, cache=cache)
    garbled = [
        (doc.doc_id, n) for doc in corpus.documents for n, page in enumerate(doc.pages, 1)
        if is_garbled(page)
    ]  # fmt: skip
    assert garbled == []
    assert [(s.token, s.proposed) for s in ocr_signals(corpus)] == []


def test_the_400_page_verdict_says_what_it_leaves_out_and_what_ocr_found(cache):
    if not IRM.is_file():
        require(f"the 400-page IRM is not in the set ({IRM})")
    report = inspect_pdf(IRM.read_bytes(), cache=cache)
    crossing = [t for t in report.tables if t.page_end > t.page_start]
    if len(crossing) > 6:
        assert f"and {len(crossing) - 6} more" in report.verdict
    assert report.ocr_empty_pages, "OCR read pages 2 and 400 and found nothing"
    assert "found no words" in report.verdict and "OCRed" not in report.verdict
