"""``ragdash stress``: the JSON a script reads, the table a person reads, one-line errors,
the HTML report, and neither the docs folder nor the workspace written unless asked."""

from __future__ import annotations

import json
import sqlite3

from conftest import run_module
from test_stress import PLAIN, tree_digest

from ragdash.checks.stress import FAULTS


def run_cli(*args: str):
    return run_module("ragdash", *args, timeout=300)


def test_json_holds_every_fault_with_none_targeted_and_all(tmp_path):
    out = run_cli("stress", "--docs", "samples", "--generate", "12", "--seed", "7", "--json",
                  "--retriever", "seed,bm25")  # fmt: skip
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert list(record["faults"]) == list(FAULTS)
    stale = record["faults"]["stale"]
    assert list(stale) == ["none", "recency,status,versions", "all"]
    assert stale["none"]["passed"] < stale["recency,status,versions"]["passed"]
    assert record["targeted"]["typo"] == "fuzzy"
    assert set(record["retrievers"]) == {"builtin", "bm25"}
    assert 8 <= len(record["cases"]) <= 12 and record["injected"]
    assert {"fault", "case", "reason"} <= set(record["skipped"][0])


def test_table_report_and_untouched_folders(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PLAIN.items():
        (docs / name).write_text(text, encoding="utf-8")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    before_docs, before_ws = tree_digest(docs), tree_digest(workspace)
    report = tmp_path / "out" / "stress.html"
    report.parent.mkdir()
    out = run_cli("stress", "--docs", str(docs), "--workspace", str(workspace), "--generate",
                  "10", "--seed", "3", "--report", str(report))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "targeted fix" in out.stdout and "split-table" in out.stdout
    assert "injected documents" in out.stdout and f"wrote {report}" in out.stdout
    html = report.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<script" not in html
    assert tree_digest(docs) == before_docs and tree_digest(workspace) == before_ws


def test_a_new_workspace_is_not_written_without_save_cases(tmp_path):
    """Regression (issue 40 #6): ``stress --workspace NEW`` wrote ``NEW/cache/pdf/…`` (the
    docs say nothing is written without --save-cases); parses go to the command line's
    parse cache, as every command's without a workspace."""
    workspace = tmp_path / "new-ws"
    cache = tmp_path / "cache"
    out = run_module("ragdash", "stress", "--docs", "samples", "--workspace", str(workspace),
                     "--generate", "3", "--seed", "5", "--faults", "typo", timeout=300,
                     RAGDASH_CACHE_DIR=str(cache))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert not workspace.exists(), sorted(str(p) for p in workspace.rglob("*"))
    assert list((cache / "pdf").glob("*.json.gz"))  # plans.pdf parsed once, kept there


def test_save_cases_adds_the_generated_cases_to_the_workspace_library(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    out = run_cli("stress", "--docs", "samples", "--workspace", str(workspace), "--generate",
                  "5", "--seed", "9", "--faults", "typo", "--save-cases")  # fmt: skip
    assert out.returncode == 0, out.stderr
    # five documents, five cases: one each at most, so as many as the documents that hold
    # evidence give — the output says how many were made
    made = int(out.stdout.split(" cases (generated")[0].rsplit("\n", 1)[-1])
    assert 3 <= made <= 5
    assert f"saved {made} generated case(s) to" in out.stdout and "library.sqlite" in out.stdout
    with sqlite3.connect(workspace / "library.sqlite") as db:
        names = [r[0] for r in db.execute("SELECT name FROM cases")]
    assert len(names) == made and all(n.startswith("stress-9-") for n in names)


def test_bad_input_is_one_line():
    for args, words in (
        (("--faults", "stale,bogus"), "unknown 'bogus'"),
        (("--rate", "2"), "--rate must be between 0 and 1"),
        (("--retriever", "bogus"), "cannot be stressed"),
        (("--retriever", "http"), "--retriever http:"),
        (("--cases", "samples", "--generate", "3"), "not both"),
        (("--generate", "3", "--save-cases"), "--save-cases"),
    ):
        out = run_cli("stress", "--docs", "samples", *args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (args, out.stderr)
        assert "Traceback" not in out.stderr


def test_cases_file_runs_the_bundled_cases():
    out = run_cli("stress", "--docs", "samples", "--cases", "samples", "--faults", "typo,stale",
                  "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert list(record["faults"]) == ["typo", "stale"]
    assert record["faults"]["typo"]["fuzzy"]["total"] >= 1


def test_a_python_factory_is_stressed_from_the_command_line():
    """Issue 46: a factory retriever gets query and corpus faults (rebuilt per faulted
    corpus), with its clean baseline, where it used to be refused."""
    out = run_cli("stress", "--docs", "samples", "--generate", "6", "--seed", "7", "--json",
                  "--faults", "typo,stale", "--retriever", "python", "--callable",
                  "tests.team_stack:build", "--factory", "--jobs", "1")  # fmt: skip
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    (name,) = record["baseline"]
    assert name.startswith("python") and record["baseline"][name]["clean_passed"] >= 3
    assert record["retrievers"][name]["typo"]["none"]["total"] >= 3
    assert record["retrievers"][name]["stale"]["none"]["total"] >= 3
