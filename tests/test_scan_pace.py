"""OCR at Tesseract's pace (issue 44, item 5): what a page costs in Tesseract runs. A page
that reads surely and upright is not asked its orientation (and, with
``ScanSettings.other_psms_below`` set, is read in one mode only), and the crops the repair
passes read again cost two Tesseract runs a page, however many there are, each read as it
would be alone."""

from __future__ import annotations

import pytest
from conftest import require_tesseract

from benchmarks.scanbench import render_pages
from ragdash.ingestion.scan.page import Readings, finish_page, read_page_image
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, ScanSettings
from ragdash.ingestion.scan.tesseract import ocr_image, ocr_images
from ragdash.ingestion.scan.words import OcrWord
from tests.test_scans import POLICY, _font


@pytest.fixture
def tesseract_runs(monkeypatch):
    """The ``--psm`` of each Tesseract run made while the test runs (0: orientation
    detection), and whether it was handed a list of images."""
    require_tesseract()
    import pytesseract.pytesseract as runner

    runs: list[tuple[int, bool]] = []
    real = runner.run_tesseract

    def counted(input_filename, output_filename_base, extension, lang, config="", *args, **kw):
        psm = int(config.split("--psm")[1].split()[0]) if "--psm" in config else -1
        runs.append((psm, str(input_filename).endswith(".txt")))
        return real(input_filename, output_filename_base, extension, lang, config, *args, **kw)

    monkeypatch.setattr(runner, "run_tesseract", counted)
    return runs


def test_a_page_read_surely_and_upright_is_not_asked_its_orientation(tesseract_runs):
    images, _ = render_pages(POLICY, 200, _font(), seed=5)
    page = read_page_image(images[0], 200, 1, "eng")
    assert "Returns are accepted within 30 days" in " ".join(w.text for w in page.words)
    assert [psm for psm, _ in tesseract_runs if psm == 0] == []  # no orientation detection
    assert [psm for psm, listed in tesseract_runs if not listed and psm in (3, 6)] == [3, 6]
    tesseract_runs.clear()
    once = read_page_image(images[0], 200, 1, "eng", ScanSettings(other_psms_below=85.0))
    assert [w.text for w in once.words] == [w.text for w in page.words]
    assert [psm for psm, listed in tesseract_runs if not listed and psm in (0, 3, 6)] == [3]


def test_a_page_turned_a_quarter_is_still_turned_upright(tesseract_runs):
    images, _ = render_pages(POLICY, 200, _font(), seed=5)
    upright = images[0]
    page = read_page_image(upright.rotate(270, expand=True, fillcolor=255), 200, 1, "eng")
    assert round(page.quality.turn / 90) % 4 == 1  # turned back a quarter
    assert (page.width > page.height) == (upright.width > upright.height)
    assert "Returns are accepted within 30 days" in " ".join(w.text for w in page.words)
    assert 0 in [psm for psm, _ in tesseract_runs]  # its first reading stood words on end


def test_numbers_read_again_cost_two_tesseract_runs_however_many(tesseract_runs):
    """Twenty unsure figures on a page whose ink is gone: each is tried three ways and none
    reads, which one at a time was sixty Tesseract runs."""
    from PIL import Image

    words = [OcrWord(f"{n}4,5{n}7", 100, 40 + 30 * n, 160, 49 + 30 * n, 41.0, 1, n)
             for n in range(20)]  # fmt: skip
    readings = Readings(Image.new("L", (850, 1100), 255), 100 / 72, 100.0, 1, "eng", 0.0, (),
                        (tuple(words),))  # fmt: skip
    page = finish_page(readings, DEFAULT_SCAN.without("second_pass"))
    assert [w.text for w in page.words] == [w.text for w in words]  # nothing read better
    assert len(tesseract_runs) == 2 and all(listed for _, listed in tesseract_runs)


def test_images_read_together_read_as_each_alone():
    require_tesseract()
    images, _ = render_pages(POLICY, 200, _font(), seed=5)
    page = images[0]
    scale = 200 / 72
    words = ocr_image(page, scale, "eng", 3)[:6]
    crops = [page.crop((int(w.x0 * scale) - 4, int(w.top * scale) - 4, int(w.x1 * scale) + 4,
                        int(w.bottom * scale) + 4)) for w in words]  # fmt: skip
    crops = [c.resize((c.width * 3, c.height * 3)) for c in crops]
    together = ocr_images(crops, [scale * 3] * len(crops), "eng", psm=7)
    alone = [ocr_image(c, scale * 3, "eng", psm=7) for c in crops]
    assert together == alone
    same = [len(r) == 1 and r[0].text == w.text for r, w in zip(together, words, strict=True)]
    assert sum(same) >= 4  # and they read as the page did
