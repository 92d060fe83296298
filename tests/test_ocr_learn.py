"""OCR map entries learned from OCR output aligned to its clean text."""

from __future__ import annotations

import json

import pytest

from benchmarks.scanbench import character_error_rate, image_pdf, render_pages
from ragdash.checks.ocr_learn import count_confusions, learn_ocr_map, pairs_from_pages
from ragdash.cli import main
from ragdash.settings import Fixes

CLEAN = "Claims must be filed within 14 days. Late claims are declined. Call the helpdesk."
OCR = "C1aims must be fi1ed within 14 days. Late c1aims are dec1ined. Ca11 the he1pdesk."


def test_confusions_are_counted_with_the_words_they_happened_in():
    confusions, chars, edits = count_confusions(OCR, CLEAN)
    first = confusions[0]
    assert (first.truth, first.read, first.count) == ("l", "1", 7)
    assert "filed→fi1ed" in first.examples and len(first.examples) <= 3
    assert chars == len(CLEAN) and edits == 7


def test_dropped_and_added_characters_are_confusions_too():
    confusions, _, edits = count_confusions("rn0dern systen", "modern system")
    kinds = {(c.truth, c.read) for c in confusions}
    assert ("o", "0") in kinds and ("m", "n") in kinds and edits >= 3


def test_proposals_are_digit_for_letter_entries_in_the_ocr_map_form_with_counts():
    pairs = [(OCR, CLEAN), ("B00k the r0om", "Book the room")]
    learned = learn_ocr_map(pairs)
    assert [(p.entry, p.count) for p in learned.proposals] == [("1=l", 7), ("0=o", 3)]
    assert learned.ocr_map == "1=l, 0=o"
    # the proposal is a value the OCR map setting takes as it is
    assert ("1", "l") in Fixes(ocr=True, ocr_map=learned.ocr_map).ocr_map
    assert learn_ocr_map(pairs, min_count=4).ocr_map == "1=l"


def test_letters_read_for_letters_propose_no_map_entry():
    learned = learn_ocr_map([("chet with the tearn", "chat with the team")])
    assert learned.confusions and learned.proposals == () and learned.ocr_map == ""


def test_an_entry_that_would_rewrite_a_code_of_the_clean_text_is_refused_naming_it():
    clean = "Order the wi5e kit. Sign here and sign there."
    ocr = "Order the wi5e kit. 5ign here and 5ign there."
    learned = learn_ocr_map([(ocr, clean)])
    assert learned.proposals == ()
    (refused,) = learned.refused
    assert refused.entry == "5=s" and "'wi5e'" in refused.refused and "protect" in refused.refused
    # protected, the OCR fix keeps it: the entry is safe
    assert learn_ocr_map([(ocr, clean)], protected=["wi5e"]).ocr_map == "5=s"


def test_code_shaped_tokens_never_block_an_entry_the_fix_would_not_apply_to_them():
    # covid19 and x100 look like codes to the OCR fix, which never rewrites them
    clean = "The covid19 ward and the x100 scanner: call the helpdesk."
    ocr = "The covid19 ward and the x100 scanner: ca11 the he1pdesk."
    assert learn_ocr_map([(ocr, clean)]).ocr_map == "1=l"


def test_pages_align_page_by_page_or_as_one_text():
    assert pairs_from_pages(["a", "b"], ["A", "B"]) == [("a", "A"), ("b", "B")]
    assert pairs_from_pages(["a", "b"], ["A B"]) == [("a\nb", "A B")]


@pytest.mark.usefixtures("tesseract")
def test_a_real_scan_aligned_to_its_text_gives_the_error_rate_the_benchmark_reports(tmp_path):
    from ragdash.ingestion.ingest import read_pdf
    from tests.test_scans import POLICY, _font

    images, truth = render_pages(POLICY, 150, _font(), seed=11)
    pages = read_pdf(image_pdf(images, 150)).pages
    learned = learn_ocr_map(pairs_from_pages(pages, truth))
    assert learned.characters == len(" ".join(truth[0].split()))
    assert learned.error_rate == pytest.approx(character_error_rate(pages[0], truth[0]))
    # and through the CLI, on the PDF itself
    (tmp_path / "scan.pdf").write_bytes(image_pdf(images, 150))
    (tmp_path / "clean.txt").write_text(truth[0])
    assert main(["ocr-map", str(tmp_path / "clean.txt"), "--pdf", str(tmp_path / "scan.pdf")]) == 0


def test_the_cli_prints_entries_to_use_and_json(tmp_path, capsys):
    (tmp_path / "clean.txt").write_text(CLEAN)
    (tmp_path / "ocr.txt").write_text(OCR)
    args = ["ocr-map", str(tmp_path / "clean.txt"), "--ocr-text", str(tmp_path / "ocr.txt")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "1=l  x7  " in out and 'use: --ocr-map "1=l"' in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ocr_map"] == "1=l" and data["proposals"][0]["count"] == 7


def test_the_cli_names_a_missing_file_in_one_line(tmp_path, capsys):
    code = main(["ocr-map", str(tmp_path / "nope.txt"), "--ocr-text", str(tmp_path / "o.txt")])
    err = capsys.readouterr().err
    assert code == 2 and "nope.txt: cannot be read" in err and "Traceback" not in err


def test_a_clean_text_that_does_not_match_the_ocr_text_proposes_nothing(tmp_path, capsys):
    # the clean text of another page: any "confusion" its alignment finds is noise
    other = "Section 4: the 2025 plan costs 10 GB per seat; see page 12 of the 2024 guide."
    ocr = (OCR + " ") * 4
    learned = learn_ocr_map([(ocr, other)])
    assert learned.error_rate > 3 and learned.ocr_map  # noise: the old command proposed it
    assert learned.mismatch.startswith("the clean text does not match the OCR text")
    assert learn_ocr_map([(OCR, CLEAN)]).mismatch == ""
    # the clean text of only the start of a page is fine, whatever its error rate
    start = learn_ocr_map([(OCR, "Claims must be filed within 14 days.")])
    assert start.error_rate > 1 and start.mismatch == "" and start.ocr_map == "1=l"
    (tmp_path / "clean.txt").write_text(other)
    (tmp_path / "ocr.txt").write_text(ocr)
    args = ["ocr-map", str(tmp_path / "clean.txt"), "--ocr-text", str(tmp_path / "ocr.txt")]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert "use: --ocr-map" not in out
    assert f"(character error rate {learned.error_rate:.0%}; 2 of its 17 words found in the " \
        "OCR text): no entries proposed" in err
