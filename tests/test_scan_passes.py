"""The scan repair passes as named switches (ragdash/ingestion/scan/settings.py): a pass
switched off changes what it repairs and nothing else, a bad threshold is refused in one
line, and ``python -m benchmarks.realscans --ablate`` reports each pass's gain and loss."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragdash.errors import SettingsError
from ragdash.ingestion.scan.page import Readings, finish_page
from ragdash.ingestion.scan.settings import DEFAULT_SCAN, PASSES, ScanSettings
from ragdash.ingestion.scan.words import OcrWord


def _page(words: list[OcrWord]) -> Readings:
    """A blank page image with Tesseract's reading given: the passes that read the image
    again find no ink, so only the word repairs act."""
    from PIL import Image

    image = Image.new("L", (850, 1100), 255)  # a letter page at 100 dpi
    return Readings(image, 100 / 72, 100.0, 1, "eng", 0.0, (), (tuple(words),))


def _figure_column() -> list[OcrWord]:
    """A column of figures flush right at x=300, read surely with commas, and one whose
    comma was read as a point (``53.113``); a code column beside it (``TRA7314``, ...)
    with one ``TRAS143``."""
    column = ["49,674", "12,530", "3,113", "53.113"]
    codes = ["TRA7314", "TRA9373", "TRAS143", "TRA2200"]
    words = []
    for n, (figure, code) in enumerate(zip(column, codes, strict=True)):
        top = 100 + 20 * n
        words.append(OcrWord(code, 100, top, 150, top + 9, 95.0, 1, n))
        words.append(OcrWord(figure, 300 - 6 * len(figure), top, 300, top + 9, 95.0, 1, n))
    return words


@pytest.mark.usefixtures("tesseract")
def test_a_pass_switched_off_leaves_what_it_repairs_and_only_that():
    readings = _page(_figure_column())
    on = [w.text for w in finish_page(readings).words]
    no_separators = [
        w.text for w in finish_page(readings, DEFAULT_SCAN.without("separators")).words
    ]
    no_codes = [w.text for w in finish_page(readings, DEFAULT_SCAN.without("codes")).words]
    assert "53,113" in on and "TRA5143" in on
    assert "53.113" in no_separators and "TRA5143" in no_separators  # only its own repair
    assert "TRAS143" in no_codes and "53,113" in no_codes
    none = ScanSettings(passes=())
    bare = [w.text for w in finish_page(readings, none).words]
    assert "53.113" in bare and "TRAS143" in bare


@pytest.mark.usefixtures("tesseract")
def test_a_threshold_changes_what_a_pass_needs_as_evidence():
    """Four sure codes of the page's shape are evidence at the default (2); asked for five,
    the ``S`` stays a letter."""
    readings = _page(_figure_column())
    strict = ScanSettings(code_evidence=5)
    assert "TRAS143" in [w.text for w in finish_page(readings, strict).words]


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"reread_confidence": 101}, "reread_confidence=101 is outside 0–100"),
        ({"figure_row": 2.5}, "figure_row=2.5 is not a whole number"),
        ({"psms": (3, 99)}, "psms=(3, 99) is not Tesseract page segmentation modes"),
        ({"passes": ("codes", "codes")}, "name one pass twice"),
        ({"passes": ("speed",)}, "scan pass 'speed' is not one of merge_readings"),
    ],
)
def test_a_bad_scan_setting_is_refused_in_one_line(kwargs, said):
    with pytest.raises(SettingsError) as refused:
        ScanSettings(**kwargs)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_passes_run_in_pipeline_order_whatever_order_they_are_named_in():
    assert ScanSettings(passes=("second_pass", "codes")).passes == ("codes", "second_pass")
    assert DEFAULT_SCAN.without("codes").passes == tuple(p for p in PASSES if p != "codes")


def test_the_ablation_table_names_each_pass_with_its_gain_and_loss(capsys, monkeypatch):
    """``--ablate`` prints a row per pass with ``+gain / -loss`` per development set."""
    from benchmarks import realscans

    row = realscans.AblationRow("realpdfs", 10, 9, 8, {p: 0 for p in PASSES},
                                {p: 0 for p in PASSES})  # fmt: skip
    row.gains["separators"], row.losses["codes"] = 2, 1
    called = {}

    def fake(**kwargs):
        called.update(kwargs)
        return [row]

    monkeypatch.setattr(realscans, "run_ablation", fake)
    assert realscans.main(["--ablate", "--file", "m27.pdf"]) == 0
    out = capsys.readouterr().out
    assert called["files"] == ["m27.pdf"] and called["model"] == "scanner"
    assert "| `separators` | +2 / -0 |" in out and "| `codes` | +0 / -1 |" in out
    assert "| (all passes on: scan pass / born-digital pass / cases) | 8 / 9 / 10 |" in out


def test_the_ablation_can_measure_one_pass_and_refuses_an_unknown_one(capsys, monkeypatch):
    """``--ablate --only relations`` switches off that pass alone (one repair a page, not
    one per pass) and its table has that row only; a misspelt pass is refused in one line."""
    from benchmarks import realscans

    row = realscans.AblationRow("realpdfs3", 10, 9, 4, {"relations": 1}, {"relations": 0})
    called = {}

    def fake(**kwargs):
        called.update(kwargs)
        return [row]

    monkeypatch.setattr(realscans, "run_ablation", fake)
    assert realscans.main(["--ablate", "--only", "relations"]) == 0
    out = capsys.readouterr().out
    assert called["only"] == ["relations"]
    assert "| `relations` | +1 / -0 |" in out and "`codes`" not in out
    monkeypatch.undo()
    with pytest.raises(SystemExit, match="scan pass 'speed' is not one of"):
        realscans.run_ablation(files=("m27.pdf",), only=("speed",))


def test_the_scanner_noise_varies_like_scanners_and_is_the_same_in_every_process(tmp_path):
    """Documents get different scanners (150–300 dpi, JPEG quality, blur, skew, light,
    specks), and one seed draws the same pixels in any process, whatever PYTHONHASHSEED."""
    import os
    import subprocess
    import sys

    from conftest import make_pdf

    from benchmarks.realscans import scanner_draw

    draws = [scanner_draw(seed) for seed in range(40)]
    assert {d.dpi for d in draws} == {150, 200, 250, 300}
    assert len({d.jpeg for d in draws}) > 10 and len({round(d.skew, 1) for d in draws}) > 10
    assert min(d.light for d in draws) < 0.05 < 0.25 < max(d.light for d in draws)
    pdf = make_pdf(tmp_path / "one.pdf", [["Total revenue 1,234", "Costs 567"]])
    code = (
        "import hashlib, sys; from pathlib import Path; "
        "from benchmarks.realscans import scanner_images; "
        "draw, (image,) = scanner_images(Path(sys.argv[1]), [1], seed=7); "
        "print(draw.dpi, hashlib.sha256(image.tobytes()).hexdigest())"
    )
    root = Path(__file__).resolve().parent.parent
    seen = {
        subprocess.run(
            [sys.executable, "-c", code, str(pdf)], cwd=root, capture_output=True, text=True,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}, check=True,
        ).stdout
        for seed in ("1", "2")
    }  # fmt: skip
    assert len(seen) == 1 and seen.pop().split()[0] == str(scanner_draw(7).dpi)
