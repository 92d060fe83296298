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


# --- the command line's default parse cache --------------------------------------------------


def _count_parses(monkeypatch) -> list[str]:
    """Every PDF parse (each runs in a bounded child process) is recorded."""
    parses: list[str] = []
    real = ingest.run_in_child

    def counted(task, payload, progress=None):
        parses.append(task)
        return real(task, payload, progress)

    monkeypatch.setattr(ingest, "run_in_child", counted)
    return parses


@pytest.fixture
def pdf_docs(data, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "inventory.pdf").write_bytes(data)
    (docs / "note.md").write_text("---\nupdated: 2026-01-05\n---\nThe warehouse opens at 9.\n")
    cases = tmp_path / "cases.json"
    cases.write_text(
        '[{"name": "hours", "query": "warehouse opens", "expected_id": "note", '
        '"evidence": ["9"]}]',
        encoding="utf-8",
    )
    return docs, cases


def test_a_second_inspect_and_check_parse_nothing_and_no_cache_parses_again(
    pdf_docs, tmp_path, monkeypatch, capsys
):
    from ragdash.cli import main

    docs, cases = pdf_docs
    pdf = str(docs / "inventory.pdf")
    monkeypatch.setenv("RAGDASH_CACHE_DIR", str(tmp_path / "cache"))
    parses = _count_parses(monkeypatch)
    assert main(["inspect", pdf]) == 0
    assert parses == ["parse"]
    assert len(list((tmp_path / "cache" / "pdf").iterdir())) == 1  # kept in RAGDASH_CACHE_DIR
    assert main(["inspect", pdf]) == 0
    check = ["check", "--docs", str(docs), "--cases", str(cases)]
    assert main(check) == 0
    assert main(check) == 0
    assert parses == ["parse"]  # the same bytes: inspect and check read the cache
    assert main(["inspect", pdf, "--no-cache"]) == 0
    assert main([*check, "--no-cache"]) == 0
    assert parses == ["parse"] * 3
    # --cache-dir moves it: an empty folder parses once more, then keeps it
    assert main([*check, "--cache-dir", str(tmp_path / "other")]) == 0
    assert main([*check, "--cache-dir", str(tmp_path / "other")]) == 0
    assert parses == ["parse"] * 4
    assert "inventory" in capsys.readouterr().out


def test_progress_shows_on_a_terminal_and_nothing_when_piped(pdf_docs, tmp_path):
    import os
    import pty
    import subprocess
    import sys

    from conftest import ROOT

    docs, _ = pdf_docs
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGDASH_CACHE_DIR": str(tmp_path / "c")}
    command = [sys.executable, "-m", "ragdash", "inspect", str(docs / "inventory.pdf")]

    def on_a_terminal() -> str:
        leader, follower = pty.openpty()
        try:
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=follower, env=env,
                           timeout=120, check=True)  # fmt: skip
        finally:
            os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is closed and read out
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        return b"".join(chunks).decode("utf-8", "replace")

    piped = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""  # parsed, silently
    (tmp_path / "c").rename(tmp_path / "c-was")  # an empty cache: parse again, on a terminal
    first = on_a_terminal()
    assert "inventory.pdf: page 1 of" in first
    assert "parsed 1 PDF(s), 0 read from the parse cache" in first
    second = on_a_terminal()
    assert "page 1 of" not in second and "parsed" not in second  # read from the cache
