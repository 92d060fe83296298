"""The CLI never prints a traceback, whatever it is given: crafted PDFs, bad JSON, deep
nesting, huge integers, NUL bytes in names, missing or unwritable paths, bad limits in the
environment. Each ends with exit 2 and one clear ``ragdash: error:`` line that names the
file as the user gave it — never the server's absolute path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_pdfs import huge_page_pdf, inflating_pdf, text_ops_pdf

from ragdash.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_docs"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    """A folder of hostile inputs, used from inside it (relative paths, as a user types)."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "ops.pdf").write_bytes(text_ops_pdf(2_000_000))
    (folder / "bomb.pdf").write_bytes(inflating_pdf(300))
    (folder / "huge.pdf").write_bytes(huge_page_pdf(200_000))
    (folder / "garbage.pdf").write_bytes(b"%PDF-1.4\n" + os.urandom(2000))
    (folder / "notes.txt").write_text("not a pdf at all")
    (folder / "bad.json").write_text("{ this is not json")
    (folder / "deep.json").write_text("[" * 5000 + "]" * 5000)
    case = {"name": "c", "query": "return policy", "expected_id": "returns-2026"}
    (folder / "bigint.json").write_text(json.dumps([{**case, "top_k": 7}]).replace("7", "9" * 5000))
    (folder / "nul.json").write_text(json.dumps([{**case, "name": "a\x00b"}]))
    (folder / "types.json").write_text(json.dumps([{**case, "evidence": {"x": [1, None]}}]))
    docs = folder / "docs"
    shutil.copytree(SAMPLE, docs)
    for name in ("ops.pdf", "bomb.pdf", "huge.pdf"):
        shutil.copy(folder / name, docs / name)
    (folder / "a-file").write_text("x")
    return folder


CASES = {
    "inspect ops": ["inspect", "ops.pdf"],
    "inspect bomb": ["inspect", "bomb.pdf"],
    "inspect huge page": ["inspect", "huge.pdf"],
    "inspect garbage": ["inspect", "garbage.pdf"],
    "inspect text file": ["inspect", "notes.txt"],
    "inspect missing": ["inspect", "missing.pdf"],
    "inspect a folder": ["inspect", "docs"],
    "inspect pages huge int": ["inspect", "ops.pdf", "--max-pages", "9" * 5000],
    "check bad json": ["check", "--docs", "docs", "--cases", "bad.json"],
    "check deep json": ["check", "--docs", "docs", "--cases", "deep.json"],
    "check huge top_k in file": ["check", "--docs", "docs", "--cases", "bigint.json"],
    "check wrong types": ["check", "--docs", "docs", "--cases", "types.json"],
    "check huge top-k": ["check", "--docs", "docs", "--cases", "bad.json", "--top-k", "9" * 5000],
    "check docs is a file": ["check", "--docs", "a-file", "--cases", "bad.json"],
    "check missing docs": ["check", "--docs", "nowhere", "--cases", "bad.json"],
    "query huge top-k": ["query", "--docs", "docs", "return policy", "--top-k", "9" * 5000],
    "query huge threshold": ["query", "--docs", "docs", "x", "--threshold", "9" * 5000],
    "query NaN threshold": ["query", "--docs", "docs", "x", "--threshold", "nan"],
    "export unwritable": [
        "export", "--docs", "docs", "--cases", "bad.json", "--format", "json", "-o", "no/x.py"
    ],
    "runs missing library": ["runs", "list", "--library", "missing.sqlite"],
    "runs library is json": ["runs", "list", "--library", "bad.json"],
}


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "ragdash", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def _one_clear_line(stderr: str, folder: Path) -> str:
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("ragdash: error:")]
    assert len(errors) == 1, stderr
    assert str(folder) not in stderr, stderr  # the names the user gave, not server paths
    return errors[0]


@pytest.mark.parametrize("args", list(CASES.values()), ids=list(CASES))
def test_hostile_input_gives_exit_2_and_one_line(hostile, args):
    result = _run(args, hostile)
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    line = _one_clear_line(result.stderr, hostile)
    assert len(line) < 400


@pytest.mark.parametrize(
    "name", ["query NaN threshold", "query huge threshold", "check bad json", "check deep json",
             "check huge top_k in file", "check wrong types"],
)  # fmt: skip
def test_a_bad_setting_or_case_file_is_refused_before_any_document_is_read(hostile, name):
    """The docs folder holds crafted PDFs that take seconds to refuse: a threshold or a case
    file that cannot be used is named at once, with none of the documents' warnings."""
    result = _run(CASES[name], hostile)
    assert result.returncode == 2
    assert "file skipped" not in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def test_crafted_pdfs_in_a_docs_folder_are_named_and_the_rest_is_checked(hostile):
    result = _run(["query", "--docs", "docs", "return policy days", "--top-k", "1"], hostile)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for name, limit in (
        ("ops.pdf", "text objects per page"),
        ("bomb.pdf", "inflates past the limit"),
        ("huge.pdf", "pt per side"),
    ):
        assert any(name in line and limit in line for line in result.stderr.splitlines())


def test_a_nul_byte_inside_a_case_is_data_not_a_crash(hostile):
    result = _run(["check", "--docs", "docs", "--cases", "nul.json"], hostile)
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr


def test_a_bad_limit_in_the_environment_is_one_line(hostile):
    result = _run(["inspect", "ops.pdf"], hostile, {"RAGDASH_PARSE_SECONDS": "soon"})
    assert result.returncode == 2
    assert "RAGDASH_PARSE_SECONDS" in _one_clear_line(result.stderr, hostile)


@pytest.mark.parametrize(
    "args",
    [
        ["inspect", "a\x00b.pdf"],
        ["check", "--docs", "do\x00cs", "--cases", "x.json"],
        ["check", "--docs", str(SAMPLE), "--cases", "ca\x00ses.json"],
        ["runs", "list", "--library", "li\x00b.sqlite"],
        ["export", "--cases", str(SAMPLE / "cases.json"), "--format", "json", "-o", "x\x00.py"],
    ],
    ids=["inspect", "docs", "cases", "library", "export"],
)
def test_nul_bytes_in_names_are_one_line(args, capsys, tmp_path, monkeypatch):
    """A NUL cannot reach a program through argv, but it can through the Python API."""
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("ragdash: error:") == 1 and "NUL" in err, err


def test_an_internal_error_is_one_line_not_a_traceback(monkeypatch, capsys):
    """A bug ragdash did not foresee still ends with one line (exit 3, the report asks for
    a bug report), never a traceback on the user's terminal."""
    import ragdash.cli

    def broken(args):
        raise KeyError("/srv/secret/state")

    monkeypatch.setitem(ragdash.cli.COMMANDS, "rewrites", broken)
    assert main(["rewrites", "--docs", str(SAMPLE)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "/srv/secret" not in err
    assert err.startswith("ragdash: error: internal error (KeyError at ragdash/")
