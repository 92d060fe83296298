"""The scan benchmark: generated image-only PDFs, and the docs' table (docs/pdfs-and-scans.md)
checked against a small regeneration (one font, 200 dpi — about ten seconds of Tesseract)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pdfplumber
import pytest
from conftest import SHARED, dev_set, require_tesseract

from benchmarks.scanbench import (
    BENCH_CASES,
    BENCH_DOCS,
    CONFIGS,
    DPIS,
    find_fonts,
    image_pdf,
    render_pages,
    run_scanbench,
    table_markdown,
)
from benchmarks.scanbench import (
    main as scanbench_main,
)

README = Path(__file__).resolve().parent.parent / "docs" / "pdfs-and-scans.md"
START, END = "<!-- scanbench:start -->", "<!-- scanbench:end -->"


def readme_rows() -> dict[int, dict[str, str]]:
    text = README.read_text()
    table = text[text.index(START) + len(START) : text.index(END)].strip().splitlines()
    header = [c.strip() for c in table[0].strip("|").split("|")]
    rows = {}
    for line in table[2:]:
        if not line.startswith("|"):
            continue
        cells = dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True))
        rows[int(cells["scan dpi"])] = cells
    return rows


def _rate(cell: str) -> float:
    passed, total = map(int, cell.split("/"))
    return passed / total


def test_the_generator_makes_image_only_pdfs_and_a_table_across_a_page_break():
    fonts = find_fonts()
    assert len(fonts) >= 2, "several fonts are found on this machine (fc-match)"
    plans = next(d for d in BENCH_DOCS if d.doc_id == "plans")
    images, texts = render_pages(plans, 150, fonts[0][1], seed=1)
    assert len(images) == 2 and "Plan Seats Price Support" in texts[0] and "Global" in texts[1]
    with pdfplumber.open(io.BytesIO(image_pdf(images, 150))) as pdf:
        assert len(pdf.pages) == 2
        assert all(not page.chars and page.images for page in pdf.pages)  # no text layer
        assert round(float(pdf.pages[0].width)) == 432  # 6 inches at 72 pt


def test_the_readme_table_has_the_commands_columns_and_every_dpi():
    rows = readme_rows()
    assert sorted(rows) == sorted(DPIS)
    header = table_markdown([]).splitlines()[0]
    text = README.read_text()
    assert header in text and "python -m benchmarks.scanbench" in text
    for cells in rows.values():
        assert re.fullmatch(r"\d+\.\d%", cells["character error rate"])
        # no fix ever loses a case here; the tables fix wins the table's cases
        assert _rate(cells["pass, OCR fix"]) >= _rate(cells["pass, no fixes"])
        assert _rate(cells["pass, OCR + tables fixes"]) > _rate(cells["pass, no fixes"])


@pytest.mark.usefixtures("tesseract")
def test_a_small_regeneration_is_within_the_readme_claims():
    claim = readme_rows()[200]
    (result,) = run_scanbench((200,), find_fonts()[:1])
    assert result.pages == 6 and result.cases == len(BENCH_CASES)
    claimed_cer = float(claim["character error rate"].rstrip("%")) / 100
    assert result.cer <= claimed_cer + 0.02
    for config, column in zip(
        CONFIGS, ("pass, no fixes", "pass, OCR fix", "pass, OCR + tables fixes"), strict=True
    ):
        assert result.passed[config] / result.cases >= _rate(claim[column]) - 0.15, column
    assert result.passed["ocr,tables"] > result.passed["none"]
    # the parse worker (kept alive between PDFs) and its Tesseract children are counted:
    # reading a 200 dpi page takes a measurable fraction of a second, never 0.00
    assert result.ocr_seconds >= 0.05


def test_a_resolution_outside_the_ocr_range_is_refused_in_one_line(capsys):
    assert scanbench_main(["--dpi", "5000"]) == 2
    err = capsys.readouterr().err
    assert "5000 dpi is outside 50–600" in err and "Traceback" not in err


#: The real-scan headline of docs/pdfs-and-scans.md: at 200 dpi the scans pass at least 90% of
#: the cases the born-digital files pass (75, 76 and 75 of 83 over three noise draws, all 15
#: Latin-script files, 93 pages — too slow for the suite). The test holds a subset to that
#: floor: three of those files, 9 pages, 11 cases, the documented draw (``--noise 0``).
#: Measured 2026-12-06 with ``run_realscans((200,), files=HEADLINE_FILES)`` under the photocopy
#: noise of that round (now ``model="photocopy"``; the default is the scanner model): 10 of 11.
HEADLINE_FLOOR = 0.90
HEADLINE_FILES = ("eu-017.pdf", "m27.pdf", "icdar2013-us-025.pdf")


def test_the_real_scan_benchmark_holds_its_headline_floor_on_three_real_pdfs(
    capsys, monkeypatch
):
    """Real PDFs drawn as photocopies at 200 dpi and read back through OCR keep at least the
    documented 90% of the born-digital pass rate — a run where no scan passes fails here."""
    from benchmarks.realscans import run_realscans

    dev_set("realpdfs")
    require_tesseract()
    # What OCR reads is tested here, not its pace: at load 9 (a fresh-venv run) a page took
    # 85 s, past the default 60 s a page, and a file was refused for time.
    monkeypatch.setenv("RAGDASH_OCR_PAGE_SECONDS", "900")
    monkeypatch.setenv("RAGDASH_OCR_SECONDS", "3600")
    (result,) = run_realscans((200,), shared=SHARED, files=HEADLINE_FILES, model="photocopy")
    assert result.pages == 9 and not result.refused, result.refused
    assert result.cases == 11 and result.born == 11  # the born-digital files pass every case
    assert result.ratio >= HEADLINE_FLOOR, (result.scanned_readable, result.per_file)
    assert result.per_file["eu-017.pdf"] == (2, 2, 2) and result.per_file["m27.pdf"] == (3, 3, 3)
    with pytest.raises(SystemExit) as done:  # --real hands over to benchmarks/realscans.py
        scanbench_main(["--real", "--help"])
    assert done.value.code == 0 and "python -m benchmarks.realscans" in capsys.readouterr().out
