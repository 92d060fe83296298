"""Every run-derived figure README and docs/ state comes from a command (issue 41): the fast
blocks of ``python -m benchmarks.docs_numbers`` are rerun and compared with the pages' text,
and a slow block names its command and the date it was run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import require_module

from benchmarks.docs_numbers import BLOCKS, _undated, block_text, page_block

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("block", [b for b in BLOCKS if not b.slow], ids=lambda b: b.name)
def test_a_figure_in_the_docs_is_what_its_command_prints_today(block, monkeypatch):
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    text = (ROOT / block.page).read_text(encoding="utf-8")
    shown = page_block(text, block.name)
    assert shown is not None, f"{block.page} lost its {block.name} block"
    assert shown == block_text(block), (
        f"{block.page}: the {block.name} figures are stale; run "
        "python -m benchmarks.docs_numbers --write"
    )


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.slow], ids=lambda b: b.name)
def test_a_slow_figure_names_its_command_and_the_date_it_was_run(block):
    shown = page_block((ROOT / block.page).read_text(encoding="utf-8"), block.name)
    assert shown is not None, f"{block.page} lost its {block.name} block"
    assert "`ragdash stress " in shown and "benchmarks.docs_numbers --slow" in shown
    assert re.search(r"run \d{4}-\d{2}-\d{2}", shown), "no date beside the slow figures"


def test_the_readme_quotes_no_stress_figure_outside_its_block():
    """The stale sentence ("seed and bm25 alike", 6/17, 18/19) is gone: every a/b → c/d
    figure in the README is inside a generated block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    outside = re.sub(r"<!-- docs-numbers:.*?<!-- /docs-numbers -->", "", text, flags=re.S)
    assert not re.findall(r"\d+/\d+ → \d+/\d+", outside)
    assert "alike" not in outside


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


@pytest.mark.parametrize("heading", ["Measured", "Speed"])
def test_every_measured_paragraph_of_the_stress_page_names_its_command_and_date(heading):
    """A figure outside a generated block (real PDFs, timings) is only checkable by rerunning
    what it names: each such paragraph names the command and the date it was run."""
    text = (ROOT / "docs" / "stress.md").read_text(encoding="utf-8")
    section = re.sub(r"<!-- docs-numbers:.*?<!-- /docs-numbers -->", "", _section(text, heading),
                     flags=re.S)  # fmt: skip
    figures = re.compile(r"\d+/\d+|\b\d+(\.\d+)? s\b|\d+×")
    for paragraph in section.split("\n\n"):
        if not figures.search(paragraph):
            continue
        assert re.search(r"`[^`]*(ragdash |python -m benchmarks\.)[^`]*`", paragraph), paragraph
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", paragraph), paragraph


@pytest.mark.slow
@pytest.mark.dense
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.slow], ids=lambda b: b.name)
def test_a_slow_figure_is_what_its_command_prints_today(block, monkeypatch):
    """CI reruns the slow blocks too (the dense model's stress matrix, minutes): a figure
    with a date beside it is still checked, only its date is not a figure."""
    require_module("sentence_transformers")
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    shown = page_block((ROOT / block.page).read_text(encoding="utf-8"), block.name)
    assert shown is not None, f"{block.page} lost its {block.name} block"
    assert _undated(shown) == _undated(block_text(block)), (
        f"{block.page}: the {block.name} figures are stale; run "
        "python -m benchmarks.docs_numbers --slow --write"
    )
