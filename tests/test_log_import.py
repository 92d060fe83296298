"""Cases from real logs: CSV and JSONL with a per-row report, into the case library."""

from __future__ import annotations

from conftest import SAMPLE_DOCS, run_module

from ragdash.storage.case_store import open_library
from ragdash.storage.log_import import parse_log_cases

CSV = """Question,Expected,Evidence,top_k
how long do I have to return an item,returns-2026,30 days; full refund,
warehouse sync interval,inventory,15 minutes,2
,plans,,
enterprise sso,nowhere,,
plan storage,plans,,many
"""


def test_csv_rows_become_cases_and_bad_rows_are_reported_by_row_number():
    found = parse_log_cases(CSV, "support-log.csv", known_ids={"returns-2026", "inventory",
                                                                "plans"})  # fmt: skip
    assert [(c.name, c.expected_id, c.evidence, c.top_k) for c in found.cases] == [
        ("support-log-2", "returns-2026", ("30 days", "full refund"), 1),
        ("support-log-3", "inventory", ("15 minutes",), 2),
    ]
    assert all(c.kind == "log" for c in found.cases)
    assert [str(e) for e in found.errors] == [
        "row 4: no query",
        "row 5: expected document 'nowhere' is not in the corpus",
        "row 6: top_k 'many' is not a whole number",
    ]


def test_jsonl_rows_with_lists_names_and_junk_lines():
    text = "\n".join([
        '{"name": "refund", "query": "refund days", "expected_id": "returns-2026", '
        '"evidence": ["30 days"]}',
        "not json",
        "[1, 2]",
        '{"query": "sync", "doc_id": "inventory", "evidence": "15 minutes"}',
        '{"name": "refund", "query": "again", "expected_id": "plans"}',
    ])  # fmt: skip
    found = parse_log_cases(text, "eval.jsonl")
    assert [(c.name, c.evidence) for c in found.cases] == [
        ("refund", ("30 days",)), ("eval-4", ("15 minutes",))
    ]
    assert [str(e) for e in found.errors] == [
        "row 2: not valid JSON (Expecting value, column 1)",
        "row 3: a JSON list, not an object",
        "row 5: a case named 'refund' already exists",
    ]


def test_ragdash_import_cases_fills_the_library_and_prints_the_row_report(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text(CSV)
    result = run_module("ragdash", "import-cases", str(log), "--workspace",
                        str(tmp_path / "ws"), "--docs", str(SAMPLE_DOCS))  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"imported 2 case(s) into {tmp_path / 'ws'}; 3 row(s) with errors"
    )
    assert "  row 4: no query" in result.stdout
    library = open_library(tmp_path / "ws")
    assert [c.name for c in library.cases()] == ["log-2", "log-3"]
    again = run_module("ragdash", "import-cases", str(log), "--workspace", str(tmp_path / "ws"),
                       "--docs", str(SAMPLE_DOCS))  # fmt: skip
    assert "row 2: a case named 'log-2' already exists" in again.stdout
    checked = run_module("ragdash", "check", "--docs", str(SAMPLE_DOCS), "--workspace",
                         str(tmp_path / "ws"), "--retriever", "bm25")  # fmt: skip
    assert "log-2" in checked.stdout and "log-3" in checked.stdout
