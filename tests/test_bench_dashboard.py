"""``python -m benchmarks.bench --dashboard`` drives the real app on a generated corpus and
prints a step table and the worst rerun per page (no timing is checked: this only shows the
benchmark runs and says what it measured)."""

from __future__ import annotations

import re

from conftest import run_module

from benchmarks.dashboard import PASSAGES_PER_FILE, paragraphs_of, write_corpus
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex


def test_dashboard_bench_prints_each_step_and_the_worst_rerun_per_page():
    done = run_module("benchmarks.bench", "--dashboard", "--sizes", "300", "--pages", "Explore",
                      "Triage", timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "### Dashboard reruns" in out and "### Worst rerun per page" in out
    for step in ("first load", "change the query", "toggle fuzzy on", "open page"):
        assert re.search(rf"\| (Explore|Triage) \| {step} \| \d+\.\d\d / \d+\.\d\d \(core ", out)
    worst = out.split("### Worst rerun per page")[1]
    assert re.search(r"\| Explore \| \d+\.\d\d \(\d+\.\d\d\)", worst)
    # Explore draws no tabs since issue 29 (no fix and current fixes side by side)
    assert not re.search(r"\| Explore \|.*Ranked passages", worst)
    assert "Exceptions shown by the app" not in out


def test_dashboard_bench_refuses_a_size_that_is_not_a_number():
    done = run_module("benchmarks.bench", "--dashboard", "--sizes", "lots")
    assert done.returncode == 2
    assert "--sizes: 'lots' is not a positive number of passages" in done.stderr
    assert "Traceback" not in done.stderr


def test_generated_docs_folder_gives_one_passage_per_paragraph(tmp_path):
    texts = [f"Sentence {i} about the warehouse sync schedule. " * 6 for i in range(40)]
    paragraphs = paragraphs_of(texts, 40)
    files, cases = write_corpus(paragraphs, tmp_path)
    assert files == 40 // PASSAGES_PER_FILE and cases > 0
    index = CorpusIndex(load_folder(tmp_path))
    assert len(index.passages()) == len(paragraphs) == 40
