"""Cases from real logs: CSV and JSONL with a per-row report, into the case library."""

from __future__ import annotations

import pytest
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


# --- the limits of a cases file hold on every path that creates cases --------------------------


def test_a_300000_row_log_is_refused_whole_in_one_line(tmp_path):
    log = tmp_path / "huge.csv"
    rows = "".join(f"sync question {i},inventory\n" for i in range(300_000))
    log.write_text("query,expected_id\n" + rows)
    result = run_module("ragdash", "import-cases", str(log), "--workspace", str(tmp_path / "ws"))
    assert result.returncode == 2, result.stdout
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0
    assert "huge.csv holds more than 100,000 rows" in result.stderr
    library = open_library(tmp_path / "ws")
    assert library is None or library.cases() == []  # nothing imported
    exactly = "".join(f"q {i},inventory\n" for i in range(100_000))
    found = parse_log_cases("query,expected_id\n" + exactly, "full.csv")
    assert len(found.cases) == 100_000 and not found.errors  # the limit itself is fine


def test_a_100000_deep_jsonl_line_fails_only_that_line(tmp_path):
    text = "\n".join([
        '{"query": "refund days", "expected_id": "returns-2026"}',
        '{"query": ' + "[" * 100_000 + "]" * 100_000 + ', "expected_id": "plans"}',
        "[" * 100_000,
        '{"query": "big", "expected_id": "plans", "top_k": ' + "9" * 5000 + "}",
        '{"query": ' + "[" * 500 + "]" * 500 + ', "expected_id": "plans"}',
        '{"query": "sync", "expected_id": "inventory"}',
    ])  # fmt: skip
    found = parse_log_cases(text, "log.jsonl")
    assert [c.query for c in found.cases] == ["refund days", "sync"]
    assert [e.row for e in found.errors] == [2, 3, 4, 5]
    assert "nested too deeply" in str(found.errors[0]) and "row 3" in str(found.errors[1])
    log = tmp_path / "log.jsonl"
    log.write_text(text)
    result = run_module("ragdash", "import-cases", str(log), "--workspace", str(tmp_path / "ws"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "imported 2 case(s)" in result.stdout
    assert "row 2: JSON nested too deeply" in result.stdout


def test_a_deep_jsonl_line_uploaded_on_the_test_suite_page_fails_only_that_line(app):
    text = ('{"query": "refund days", "expected_id": "returns-2026"}\n'
            + "[" * 100_000 + "\n")  # fmt: skip
    at = app()
    at.run()
    at.switch_page("ragdash/ui/pages/suite.py").run()
    at.file_uploader(key="log_upload").upload("log.jsonl", text.encode(), "application/json")
    at.run()
    at.button(key="log_import").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Imported 1 case(s)" in s.value for s in at.success)
    problems = next(d.value for d in at.dataframe if "problem" in d.value.columns)
    assert list(problems["row"]) == [2] and "nested too deeply" in problems["problem"][0]


def test_the_library_applies_the_field_and_count_limits_to_every_case(tmp_path, monkeypatch):
    from ragdash.case import Case
    from ragdash.errors import LibraryError
    from ragdash.storage import library as library_module
    from ragdash.storage.case_store import add_case

    library = open_library(tmp_path, create=True)
    long_query = Case(name="long", query="q" * 10_001, expected_id="plans")
    with pytest.raises(LibraryError, match="'query' is longer than 10,000"):
        add_case(tmp_path, long_query)
    with pytest.raises(LibraryError, match="'query' is longer than 10,000"):
        library.import_cases([Case("ok", "fine", "plans"), long_query])
    too_many = Case("many", "q", "plans", evidence=tuple(f"e{i}" for i in range(101)))
    with pytest.raises(LibraryError, match="more than 100 evidence"):
        library.add(too_many)
    assert library.cases() == []  # nothing half-imported
    monkeypatch.setattr(library_module, "MAX_CASES", 3)
    library.import_cases([Case(f"c{i}", "q", "plans") for i in range(2)])
    with pytest.raises(LibraryError, match="past the limit of 3 cases"):
        library.import_cases([Case(f"d{i}", "q", "plans") for i in range(2)])
    assert [c.name for c in library.cases()] == ["c0", "c1"]  # the import rolled back whole
    library.add(Case("d0", "q", "plans"))
    with pytest.raises(LibraryError, match="past the limit"):
        library.add(Case("d1", "q", "plans"))
