"""Report fixes a user reads in the verdict: a cut list says how much is left out, OCR that
already ran is never asked for again, and text layers that are there but wrong (letters
printed twice, noise) are named — the doubled ones read once."""

from __future__ import annotations

import io

import pytest
from conftest import require_tesseract
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from ragdash.ingestion.inspection import SHOWN, DetectedTable, inspect_pdf, verdict
from ragdash.ingestion.textlayer import TextLayerNotes, is_garbled, page_list
from ragdash.text import more_note, shortened

PROSE = [
    "Returns are accepted within thirty days of delivery for a full refund.",
    "Warranty claims are filed on the portal with the order number attached.",
    "Customers in Lyon and Porto receive their parcels from the nearest warehouse.",
]


def _pdf(pages: list[list[str]], twice: set[int] = frozenset()) -> bytes:
    """One line per string; on the pages in ``twice`` every line is drawn two times at the
    same place (bold by double printing, as real running headers do)."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    for number, lines in enumerate(pages, start=1):
        for k, line in enumerate(lines):
            for _ in range(2 if number in twice else 1):
                canvas.drawString(72, 760 - 16 * k, line)
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def _crossing(n: int) -> list[DetectedTable]:
    return [DetectedTable(2 * i + 1, 2 * i + 2, 5, 3, "a | b | c", 0) for i in range(n)]


def test_a_cut_list_says_how_many_more():
    text = verdict(200, (), _crossing(95), (), False)
    assert "95 table(s) cross page breaks" in text
    assert f"and {95 - SHOWN} more" in text
    assert "and" not in verdict(20, (), _crossing(3), (), False).split("(")[1].split(")")[0]
    assert shortened(["a", "b", "c"], 2) == "a, b and 1 more" and more_note(4, 4) == ""


def test_pages_ocr_read_empty_are_not_sent_to_ocr_again():
    text = verdict(400, (2, 400), [], (), False, ocr_empty=(2, 400))
    assert "OCR ran on pages 2 and 400 and found no words" in text
    assert "OCRed" not in text
    # a page OCR did not run on (Tesseract missing) is still sent there
    text = verdict(400, (2, 7), [], (), False, ocr_empty=(2,))
    assert "page(s) 7 have no text layer" in text and "OCR ran on page 2 " in text


def test_overprinted_letters_are_read_once_and_named():
    pages = [PROSE, ["HIGHLIGHTS FROM THE ANNUAL REVIEW", *PROSE]]
    report = inspect_pdf(_pdf(pages, twice={2}))
    assert report.overprinted_pages == (2,) and report.garbled_pages == ()
    assert "print every letter twice" in report.verdict and "2" in report.verdict
    assert any("twice" in w for w in report.warnings)
    # the page reads once: its words can be found
    from ragdash.ingestion.ingest import read_pdf

    text = read_pdf(_pdf(pages, twice={2})).pages[1]
    assert "HIGHLIGHTS FROM THE ANNUAL REVIEW" in text and "HHII" not in text
    assert "Returns are accepted" in text and "RReettuurrnnss" not in text


def test_a_layer_doubled_letter_by_letter_or_noise_is_offered_ocr():
    doubled = ["HHIIGGHHLLIIGGHHTTSS FFRROOMM PPIIRRLLSS 22001111", *PROSE]
    noise = ["Xkqzt vbnmw plkjh qwrtz zxcvb mnbvc lkjhg fdsap qwrty"] * 4
    report = inspect_pdf(_pdf([PROSE, doubled, noise]))
    assert report.garbled_pages == (2, 3) and report.overprinted_pages == ()
    assert report.verdict.startswith("At risk")
    assert "garbled text layer" in report.verdict and "--ocr-pages 2-3" in report.verdict


def test_clean_text_of_any_kind_is_not_garbled():
    assert not is_garbled(" ".join(PROSE) * 2)
    assert not is_garbled("Ein wegzusammenhängender topologischer Raum heißt einfach " * 3)
    assert not is_garbled("學習表現 學習內容 科技領域核心素養 資訊系統的基本組成架構 " * 5)
    # a math page: symbols without characters between words are not noise
    assert not is_garbled("Beweis: (cid:13) = (cid:14) für jeden Weg der Homotopie " * 4)
    assert is_garbled("(cid:12)(cid:45)(cid:33)(cid:7) " * 20)


def test_notes_and_page_lists_read_like_sentences():
    assert page_list([400, 2]) == "2 and 400"
    assert TextLayerNotes().notes() == []
    (note,) = TextLayerNotes(garbled=tuple(range(1, 40))).notes()
    assert "and 27 more" in note and "1-39" in note


def test_ocr_pages_in_metadata_csv_is_validated_data(tmp_path):
    from ragdash.ingestion.ingest import load_folder

    (tmp_path / "review.pdf").write_bytes(_pdf([PROSE, PROSE]))
    (tmp_path / "metadata.csv").write_text(
        "file,ocr_pages\nreview.pdf,__import__('os')\n", encoding="utf-8"
    )
    corpus = load_folder(tmp_path)
    assert corpus.documents == ()
    (message,) = [m for m in corpus.messages if m.level == "error"]
    assert message.source == "review.pdf" and "is not a page or a range like 5-7" in message.message


def test_page_lists_are_parsed_strictly():

    from ragdash.errors import SettingsError
    from ragdash.ingestion.textlayer import parse_page_list

    assert parse_page_list(" 7, 3-4 ;3") == (3, 4, 7)
    for bad in ("0", "5-3", "1e3", "2,", "9-99999999"):
        with pytest.raises(SettingsError):
            parse_page_list(bad)


def test_a_long_list_of_pages_without_text_is_cut_too():
    text = verdict(400, tuple(range(1, 100, 2)), [], (), False)
    assert "page(s) 1, 3, 5" in text and "and 38 more have no text layer" in text


def test_ocr_pages_are_part_of_the_settings_and_their_cache_key():

    from ragdash.errors import SettingsError
    from ragdash.ingestion.scans import DEFAULT_OCR, OcrSettings

    assert OcrSettings(pages=(3, 5)).key == "ocr-auto-300dpi-auto-p3.5" != DEFAULT_OCR.key
    with pytest.raises(SettingsError):
        OcrSettings(pages=(0,))


@pytest.mark.slow
def test_ocr_pages_in_metadata_csv_reads_that_page_with_ocr(tmp_path):

    from ragdash.ingestion.ingest import load_folder

    require_tesseract()
    noise = ["Xkqzt vbnmw plkjh qwrtz zxcvb mnbvc lkjhg fdsap qwrty"] * 4
    (tmp_path / "review.pdf").write_bytes(_pdf([PROSE, noise]))
    (tmp_path / "metadata.csv").write_text("file,ocr_pages\nreview.pdf,2\n", encoding="utf-8")
    (doc,) = load_folder(tmp_path).documents
    assert doc.layouts[1].ocr is not None and doc.layouts[0].ocr is None


def test_loading_a_folder_names_the_garbled_pages_and_the_option(tmp_path):
    from ragdash.ingestion.ingest import load_folder

    noise = ["Xkqzt vbnmw plkjh qwrtz zxcvb mnbvc lkjhg fdsap qwrty"] * 4
    (tmp_path / "review.pdf").write_bytes(_pdf([PROSE, noise, noise]))
    said = [m.message for m in load_folder(tmp_path).messages]
    assert any(
        "page(s) 2-3 have a garbled text layer" in m and "ocr_pages '2-3'" in m for m in said
    ), said
