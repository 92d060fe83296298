"""Parsed PDFs are cached per content hash: a restart or re-upload never parses again."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import pickle
from pathlib import Path

import pdfplumber
import pytest
from conftest import SAMPLE_DOCS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pdf_factory import (
    inventory_rows,
    letter_spaced_pdf,
    report_pdf,
    table_pdf,
    text_then_scan_pdf,
    two_column_prose_pdf,
    wrapped_records_pdf,
)

from ragdash.ingestion import ingest, pdf_cache
from ragdash.ingestion.ingest import PdfText, read_pdf
from ragdash.ingestion.pdf_cache import CACHE_VERSION, PdfCache
from ragdash.ingestion.pdf_layout import Line, PageLayout, TableRegion
from ragdash.ingestion.scans import OcrPage, OcrWord
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


# --- entries are data, never code ------------------------------------------------------------


class _Planted:
    """A pickle that runs a shell command when it is loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_planted_pickle_in_the_cache_is_never_run(data, tmp_path):
    cache = PdfCache(tmp_path / "cache")
    cache.folder.mkdir()
    marker = tmp_path / "pwned"
    bomb = pickle.dumps(_Planted(marker))
    # where ragdash looks for the entry, and under the name old versions used
    cache.path(data).write_bytes(bomb)
    old_name = cache.path(data).name.removesuffix(".json.gz") + ".pickle"
    (cache.folder / old_name).write_bytes(bomb)
    parsed = read_pdf(data, cache=cache)
    assert parsed.pages and not marker.exists()
    assert (cache.folder / old_name).read_bytes() == bomb  # not ours: left alone
    assert cache.get(data) == parsed  # the planted entry was replaced by a real one
    assert not marker.exists()


def _entry(cache, data):
    raw = gzip.decompress(cache.path(data).read_bytes())
    head, _, payload = raw.partition(b"\n")
    return json.loads(head), payload


def _store(cache, data, header, payload):
    cache.path(data).write_bytes(gzip.compress(json.dumps(header).encode() + b"\n" + payload))


def test_a_damaged_foreign_or_old_format_entry_is_ignored_and_rebuilt(data, tmp_path):
    cache = PdfCache(tmp_path)
    fresh = read_pdf(data, cache=cache)
    header, payload = _entry(cache, data)
    assert header["format"] == "ragdash-pdf-cache" and header["version"] == CACHE_VERSION == 4
    assert header["sha256"] == hashlib.sha256(payload).hexdigest()

    def ignored(header, payload):
        _store(cache, data, header, payload)
        assert cache.get(data) is None
        assert read_pdf(data, cache=cache) == fresh  # parsed again ...
        assert cache.get(data) == fresh  # ... and the entry rebuilt

    ignored(header, payload.replace(b"Widget", b"Wodget"))  # changed: checksum fails
    ignored({**header, "version": 0}, payload)  # an old format
    ignored({**header, "version": 1}, payload)  # before OCR quality was kept
    ignored({**header, "source": "0" * 64}, payload)  # another PDF's entry
    # a valid checksum over data that does not fit the schema (a type, a class, a field)
    for bad in (b'{"@":"PdfText","pages":"x","warnings":[],"layouts":[]}',
                b'{"@":"os.system","pages":[],"warnings":[],"layouts":[]}',
                b'{"@":"PdfText","pages":[],"warnings":[],"layouts":[],"extra":1}',
                b"[" * 100_000 + b"]" * 100_000):  # fmt: skip
        ignored({**header, "sha256": hashlib.sha256(bad).hexdigest()}, bad)
    cache.path(data).write_bytes(cache.path(data).read_bytes()[:-20])  # cut short
    assert cache.get(data) is None


SAMPLES = {
    "plans.pdf": lambda: (SAMPLE_DOCS / "plans.pdf").read_bytes(),
    "report": lambda: report_pdf(inventory_rows(40)),
    "letter-spaced": lambda: letter_spaced_pdf("Quarterly warehouse report"),
    "two-columns": two_column_prose_pdf,
    "wrapped-records": wrapped_records_pdf,
    "text-then-scan": text_then_scan_pdf,
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_field_of_a_cached_parse_equals_the_fresh_parse(name, tmp_path):
    pdf = SAMPLES[name]()
    fresh = read_pdf(pdf)
    cache = PdfCache(tmp_path)
    cache.put(pdf, fresh)
    cached = cache.get(pdf)
    assert _entry(cache, pdf)[0]["format"] == "ragdash-pdf-cache"  # JSON on disk, no pickle
    assert cached == fresh  # frozen dataclasses: every field, every page, every line
    assert cached.layouts == fresh.layouts and cached.table_pages == fresh.table_pages
    assert [type(x) for x in _leaves(cached)] == [type(x) for x in _leaves(fresh)]


def _leaves(value):
    if isinstance(value, tuple):
        for v in value:
            yield from _leaves(v)
    elif hasattr(value, "__dataclass_fields__"):
        yield type(value)
        for name in value.__dataclass_fields__:
            yield from _leaves(getattr(value, name))
    else:
        yield value


@pytest.mark.usefixtures("tesseract")
def test_an_ocr_parse_round_trips_with_its_words(tmp_path):
    from test_scans import POLICY, scan_of

    pdf = scan_of(POLICY)
    fresh = read_pdf(pdf)
    assert fresh.layouts[0].ocr is not None and fresh.layouts[0].ocr.words
    cache = PdfCache(tmp_path)
    cache.put(pdf, fresh, "ocr")
    assert json.loads(gzip.decompress(cache.path(pdf, "ocr").read_bytes()).partition(b"\n")[2])
    assert cache.get(pdf, "ocr") == fresh


_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
_num = st.one_of(st.floats(allow_nan=False), st.integers(-10**6, 10**6))
_words = st.builds(OcrWord, _text, _num, _num, _num, _num, _num, st.integers(), st.integers())
_ocr = st.builds(OcrPage, st.integers(), _num, st.tuples(_words) | st.just(()), _num, _num, _text)
_lines = st.builds(Line, _text, _num, _num, _num, _num,
                   st.lists(st.tuples(_num, _num, _text), max_size=3).map(tuple), st.booleans())
_tables = st.builds(
    TableRegion, st.tuples(_num, _num, _num, _num), _text,
    st.lists(st.lists(_text, max_size=3).map(tuple), max_size=3).map(tuple), st.integers(),
    st.lists(_text, max_size=3).map(tuple), st.lists(st.integers(), max_size=3).map(tuple),
    st.lists(_num, max_size=3).map(tuple), _text, st.booleans(),
)  # fmt: skip
_layouts = st.builds(
    PageLayout, st.integers(), st.lists(_lines, max_size=3).map(tuple),
    st.lists(_tables, max_size=2).map(tuple), _num, _num, st.lists(_text, max_size=2).map(tuple),
    st.none() | _ocr,
)  # fmt: skip
_parses = st.builds(PdfText, st.lists(_text, max_size=3).map(tuple),
                    st.lists(_text, max_size=2).map(tuple),
                    st.lists(_layouts, max_size=2).map(tuple))  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(parsed=_parses)
def test_any_parse_round_trips_exactly(parsed, tmp_path):
    cache = PdfCache(tmp_path)
    cache.put(b"%PDF-any", parsed)
    cached = cache.get(b"%PDF-any")
    assert _entry(cache, b"%PDF-any")[0]["version"] == CACHE_VERSION
    assert cached == parsed
    assert [type(x) for x in _leaves(cached)] == [type(x) for x in _leaves(parsed)]
