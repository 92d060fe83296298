"""`ragdash passages`: the repaired passages a team re-indexes."""

from __future__ import annotations

import csv
import io
import json

from conftest import SAMPLE_DOCS, run_module

from ragdash.settings import Fixes
from ragdash.storage.passages_export import export_passages, repair_ocr_text


def test_ocr_repair_rewrites_what_the_ocr_fix_repairs_keeping_case():
    repairs = {"enterpr1se": "enterprise", "ss0": "sso"}
    assert repair_ocr_text("The ENTERPR1SE plan: SS0, 10 Go, x100, 1 To", repairs) == (
        "The ENTERPRISE plan: SSO, 10 Go, x100, 1 To"
    )


def test_the_fixes_change_the_exported_passages_as_documented(sample_index):
    plain = [json.loads(line) for line in export_passages(sample_index, Fixes()).splitlines()]
    text = export_passages(sample_index, Fixes.parse("tables,ocr,status"))
    fixed = [json.loads(line) for line in text.splitlines()]
    assert {r["doc_id"] for r in plain} - {r["doc_id"] for r in fixed} == {"returns-2024"}
    table = next(r for r in fixed if r["kind"] == "table")
    assert "Basic | 10 Go" in table["text"] and (table["page_start"], table["page_end"]) == (1, 2)
    assert not any("Basic | 10 Go" in r["text"] for r in plain)
    assert any("Enterpr1se" in r["text"] for r in plain)
    assert not any("Enterpr1se" in r["text"] for r in fixed)
    assert set(fixed[0]) == {"id", "doc_id", "text", "page_start", "page_end", "kind", "metadata"}
    assert fixed[0]["metadata"]["status"] == "current"


def test_ragdash_passages_writes_jsonl_or_csv():
    jsonl = run_module("ragdash", "passages", "--docs", str(SAMPLE_DOCS), "--fixes",
                       "tables,ocr", "--format", "jsonl")  # fmt: skip
    assert jsonl.returncode == 0, jsonl.stderr
    records = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert records[0]["id"].endswith("#1") and len({r["id"] for r in records}) == len(records)
    table = run_module("ragdash", "passages", "--docs", str(SAMPLE_DOCS), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert rows[0].keys() >= {"id", "doc_id", "text", "updated", "status"}


def test_the_written_count_is_the_passages_written_even_when_a_text_spans_lines(
    tmp_path, capsys
):
    from ragdash.cli import main

    docs = tmp_path / "docs"
    docs.mkdir()
    # a table passage keeps its rows on separate lines: one CSV record, several lines
    (docs / "stock.md").write_text(
        "---\nupdated: 2026-01-05\n---\n| item | qty |\n|---|---|\n| bolts | 4 |\n| nuts | 9 |\n"
        "\nSecond paragraph about the warehouse.\nIt runs over two lines.\n",
        encoding="utf-8",
    )
    counts = {}
    for fmt in ("csv", "jsonl"):
        out = tmp_path / f"p.{fmt}"
        assert main(["passages", "--docs", str(docs), "--format", fmt, "-o", str(out)]) == 0
        text = out.read_text(encoding="utf-8")
        written = (
            len(list(csv.DictReader(io.StringIO(text, newline="")))) if fmt == "csv"
            else len(text.splitlines())
        )  # fmt: skip
        assert f"wrote {written} passage(s)" in capsys.readouterr().err
        counts[fmt] = written
    assert counts["csv"] == counts["jsonl"]
    assert counts["csv"] < len((tmp_path / "p.csv").read_text(encoding="utf-8").splitlines()) - 1
