"""Corpus fingerprints: stable across reloads, changed by anything the retriever reads."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from datetime import date

import pytest
from conftest import SAMPLE_DOCS, make_corpus, make_document

from ragdash.ingestion.documents import Corpus
from ragdash.ingestion.fingerprint import corpus_fingerprint
from ragdash.ingestion.ingest import load_folder


def _corpus() -> Corpus:
    return make_corpus(
        make_document("returns-2024", "Send items back within 60 days.", updated="2024-02-01"),
        make_document("returns-2026", "Send items back within 30 days.", updated="2026-01-05"),
        make_document("plans", ["Plan | Storage\nBasic |", "10 Go | 5 EUR"]),
    )


def _edit(corpus: Corpus, index: int, **changes) -> Corpus:
    docs = list(corpus.documents)
    docs[index] = replace(docs[index], **changes)
    return Corpus(tuple(docs), corpus.messages)


def test_ten_lowercase_hex_characters(sample_corpus):
    assert re.fullmatch(r"[0-9a-f]{10}", corpus_fingerprint(sample_corpus))
    assert re.fullmatch(r"[0-9a-f]{10}", corpus_fingerprint(Corpus(())))


def test_stable_across_reloads_of_the_same_folder(sample_corpus, tmp_path):
    assert corpus_fingerprint(load_folder(SAMPLE_DOCS)) == corpus_fingerprint(sample_corpus)
    copy = shutil.copytree(SAMPLE_DOCS, tmp_path / "elsewhere")
    assert corpus_fingerprint(load_folder(copy)) == corpus_fingerprint(sample_corpus)


@pytest.mark.parametrize(
    "changes",
    [
        {"pages": ("Send items back within 61 days.",)},
        {"doc_id": "returns-old"},
        {"updated": date(2024, 2, 2)},
        {"updated": None},
        {"status": "withdrawn"},
    ],
    ids=["text", "id", "date", "undated", "status"],
)
def test_changes_with_text_id_date_or_status(changes):
    corpus = _corpus()
    assert corpus_fingerprint(_edit(corpus, 0, **changes)) != corpus_fingerprint(corpus)


def test_changes_with_table_pages():
    corpus = _corpus()
    joined = _edit(corpus, 2, table_pages=("Plan | Storage", "Basic | 10 Go | 5 EUR"))
    assert corpus_fingerprint(joined) != corpus_fingerprint(corpus)


def test_changes_with_list_order():
    corpus = _corpus()
    a, b, c = corpus.documents
    assert corpus_fingerprint(make_corpus(b, a, c)) != corpus_fingerprint(corpus)


def test_page_boundaries_count():
    one = make_corpus(make_document("d", ["ab", "c"]))
    other = make_corpus(make_document("d", ["a", "bc"]))
    assert corpus_fingerprint(one) != corpus_fingerprint(other)


def test_subject_and_ingestion_messages_do_not_count():
    # No ranking reads them: a link stays valid when a subject is renamed.
    corpus = _corpus()
    renamed = _edit(corpus, 0, subject="Returns (old)", source="renamed.md")
    assert corpus_fingerprint(renamed) == corpus_fingerprint(corpus)
    assert corpus_fingerprint(Corpus(corpus.documents, ())) == corpus_fingerprint(corpus)


def test_a_lone_surrogate_in_damaged_text_is_hashed():
    corpus = make_corpus(make_document("d", "broken \ud800 text"))
    assert re.fullmatch(r"[0-9a-f]{10}", corpus_fingerprint(corpus))
