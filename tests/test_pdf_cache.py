"""Parsed PDFs are cached per content hash: a restart or re-upload never parses again."""

from __future__ import annotations

import pdfplumber
import pytest
from pdf_factory import inventory_rows, table_pdf

from ragdash.ingestion import ingest, pdf_cache
from ragdash.ingestion.ingest import read_pdf
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.ingestion.workspace import Workspace


@pytest.fixture(scope="module")
def data() -> bytes:
    return table_pdf(inventory_rows(50), ruled=True)


def _no_parsing(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("pdfplumber was asked to parse a cached PDF")

    monkeypatch.setattr(pdfplumber, "open", refuse)


def test_a_second_read_of_the_same_bytes_does_not_parse(data, tmp_path, monkeypatch):
    cache = PdfCache(tmp_path)
    first = read_pdf(data, cache=cache)
    _no_parsing(monkeypatch)
    messages = []
    second = read_pdf(data, cache=cache, progress=lambda f, m: messages.append(m))
    assert second == first and second.layouts == first.layouts
    assert "cache" in messages[-1]


def test_a_new_parser_version_parses_again(data, tmp_path, monkeypatch):
    cache = PdfCache(tmp_path)
    read_pdf(data, cache=cache)
    monkeypatch.setattr(pdf_cache, "PARSER_VERSION", "another-version")
    assert cache.get(data) is None


def test_a_damaged_cache_entry_is_parsed_again(data, tmp_path):
    cache = PdfCache(tmp_path)
    cache.path(data).parent.mkdir(parents=True, exist_ok=True)
    cache.path(data).write_bytes(b"not a pickle")
    assert read_pdf(data, cache=cache).pages


def test_a_workspace_restart_and_a_reupload_do_not_parse_again(data, tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    space = Workspace(tmp_path / "workspace")
    space.save_upload("stock.pdf", data)
    first = space.load(docs)
    calls = []
    real = ingest._parse_pdf
    monkeypatch.setattr(ingest, "_parse_pdf", lambda *a: calls.append(a) or real(*a))
    again = Workspace(tmp_path / "workspace").load(docs)  # a restart
    space.save_upload("stock.pdf", data, replace_existing=True)  # the same file again
    assert calls == []
    assert again.documents[0].pages == first.documents[0].pages
