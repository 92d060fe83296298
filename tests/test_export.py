"""Exporting a case library: a standalone pytest module run in a real pytest process, the
injection-proof embedding of untrusted case text, the JSON export, and the CLI."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE_CASES, SAMPLE_DOCS, run_module

from ragdash.case import Case
from ragdash.checks.cases import dump_cases, parse_cases
from ragdash.cli import main
from ragdash.settings import Fixes
from ragdash.storage.case_store import load_cases
from ragdash.storage.export import export_payload, json_export, pytest_module
from ragdash.storage.library import CaseLibrary

TEMPLATE_IMPORTS = {"__future__", "json", "os", "pathlib", "pytest", "ragdash"}


def run_pytest(path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python3 -m pytest -q FILE`` in the file's folder with ragdash on PYTHONPATH."""
    return run_module("pytest", "-q", "-p", "no:cacheprovider", path.name, cwd=path.parent, **env)


def write_module(tmp_path: Path, source: str, name: str = "test_exported.py") -> Path:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


# --- the pytest module, run for real -------------------------------------------------------


def test_testbed_module_passes_with_all_fixes(tmp_path, sample_cases):
    source = pytest_module(sample_cases, docs=SAMPLE_DOCS, fixes=Fixes.all())
    result = run_pytest(write_module(tmp_path, source))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 passed" in result.stdout


def test_testbed_module_fails_with_no_fix_naming_case_and_diagnosis(tmp_path, sample_cases):
    source = pytest_module(sample_cases, docs=SAMPLE_DOCS, fixes=Fixes.none())
    result = run_pytest(write_module(tmp_path, source))
    assert result.returncode == 1
    out = result.stdout
    assert "4 failed, 4 passed" in out
    assert "FAILED test_exported.py::test_case[stale-version]" in out
    assert (
        "case 'stale-version' under fixes 'none': diagnosis ranking (ranking or filtering "
        "problem: the wrong document is ranked first); expected 'returns-2026', ranked first "
        "'returns-2024'; missing evidence: 30 days"
    ) in out
    assert "case 'split-table' under fixes 'none': diagnosis extraction" in out
    assert "missing evidence: 10 Go" in out
    assert "test_case[stale-version-control] PASSED" not in out  # -q: passes are dots
    assert "Traceback" not in out


def test_docs_folder_from_the_environment_and_relative_to_the_file(tmp_path, sample_cases):
    source = pytest_module(sample_cases, docs="no-such-folder", fixes=Fixes.all())
    path = write_module(tmp_path, source)
    assert run_pytest(path, RAGDASH_DOCS=str(SAMPLE_DOCS)).returncode == 0
    missing = run_pytest(path)
    assert missing.returncode == 1
    assert "no-such-folder" in missing.stdout
    (tmp_path / "docs").symlink_to(SAMPLE_DOCS)
    relative = pytest_module(sample_cases, docs="docs", fixes=Fixes.all())
    assert run_pytest(write_module(tmp_path, relative)).returncode == 0


def test_module_embeds_fixes_settings_and_cases(tmp_path, sample_cases):
    fixes = Fixes.parse(
        "ocr,fuzzy,versions", threshold=85.5, ocr_map=(("0", "o"), ("5", "s")), protected="sha1"
    )
    module = load_module(write_module(tmp_path, pytest_module(sample_cases, docs="d", fixes=fixes)))
    assert fixes == module.FIXES
    assert sample_cases == module.CASES
    assert export_payload(sample_cases, docs="d", fixes=fixes) == module.EXPORT
    assert module.EXPORT["fixes"] == "ocr,fuzzy,versions"
    assert module.EXPORT["settings"]["protected"] == ["sha1"]  # saved with the export
    assert module.EXPORT["settings"]["threshold"] == 85.5
    assert module.EXPORT["settings"]["ocr_map"] == [["0", "o"], ["5", "s"]]


def test_module_is_ascii_and_compiles(sample_cases):
    source = pytest_module(sample_cases, docs=SAMPLE_DOCS, fixes=Fixes.all())
    assert source.isascii()
    compile(source, "exported.py", "exec")


def test_non_finite_threshold_is_refused(sample_cases):
    with pytest.raises(ValueError):
        pytest_module(sample_cases, docs="d", fixes=Fixes.all(threshold=float("nan")))


# --- untrusted case text never becomes code ------------------------------------------------

HOSTILE = [
    Case(
        name='x"""; import os',
        query="q'''; open('PWNED', 'w') #",
        expected_id="plans",
        evidence=(
            "'''\nopen('PWNED', 'w')\nr'''",
            '"""\nimport os\n"""',
            "\\u0027 \\ back\\slash \\",
            "😀 émoji \u2028 line sep \x00 nul",
            "@@EXPORT_JSON@@",
        ),
        kind="'''",
        note="\")\nopen('PWNED', 'w')\n#",
    ),
    Case(name="x'''); open('PWNED', 'w'); ('", query="sso", expected_id="plans"),
]


def _statement_shapes(source: str) -> list[str]:
    """The module's top-level statements, with every string constant blanked."""

    class Blank(ast.NodeTransformer):
        def visit_Constant(self, node: ast.Constant) -> ast.Constant:
            return ast.Constant("") if isinstance(node.value, str) else node

    tree = Blank().visit(ast.parse(source))
    return [ast.dump(stmt) for stmt in tree.body]


def test_hostile_case_text_cannot_inject_code(tmp_path, sample_cases):
    source = pytest_module(HOSTILE, docs=SAMPLE_DOCS, fixes=Fixes.all())
    # Same statements as a harmless export: the hostile text only ever lands in the literal.
    assert _statement_shapes(source) == _statement_shapes(
        pytest_module(sample_cases, docs="x", fixes=Fixes.none())
    )
    imported = {
        (node.module or "").split(".")[0]
        if isinstance(node, ast.ImportFrom)
        else node.names[0].name.split(".")[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
    }
    assert imported == TEMPLATE_IMPORTS
    path = write_module(tmp_path, source)
    assert load_module(path).CASES == HOSTILE  # the text survives exactly
    result = run_pytest(path)
    assert not (tmp_path / "PWNED").exists()
    assert "1 failed, 1 passed" in result.stdout, result.stdout + result.stderr


# --- JSON ----------------------------------------------------------------------------------


def test_json_export_round_trips(sample_cases):
    text = json_export(sample_cases)
    assert text == dump_cases(sample_cases) + "\n"
    assert parse_cases(text) == sample_cases
    assert parse_cases(json_export(HOSTILE)) == HOSTILE


# --- CLI -----------------------------------------------------------------------------------


def run_main(capsysbinary, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsysbinary.readouterr()
    return code, out.decode("utf-8"), err.decode("utf-8")


def test_cli_json_to_stdout(capsysbinary):
    code, out, err = run_main(
        capsysbinary, "export", "--cases", str(SAMPLE_CASES), "--format", "json"
    )
    assert code == 0, err
    assert parse_cases(out) == load_cases(SAMPLE_CASES)


def test_cli_pytest_to_a_file_runs(tmp_path, capsysbinary):
    target = tmp_path / "test_suite.py"
    target.write_text("old")
    code, out, err = run_main(
        capsysbinary,
        "export",
        "--cases",
        str(SAMPLE_CASES),
        "--format",
        "pytest",
        "--docs",
        str(SAMPLE_DOCS),
        "--fixes",
        "recency,ocr",
        "--threshold",
        "90",
        "-o",
        str(target),
    )
    assert code == 0, err
    assert out == ""
    assert err.strip() == f"ragdash: wrote 8 case(s) to {target}"
    module = load_module(target)
    assert Fixes.parse("recency,ocr", threshold=90.0) == module.FIXES
    # written relative to the file when they share a folder below the root, else absolute:
    # either way the module finds the samples from its own folder
    assert (target.parent / module.EXPORT["docs"]).resolve() == SAMPLE_DOCS.resolve()
    assert [p.name for p in tmp_path.iterdir()] == ["test_suite.py"]  # no temp file left


def test_cli_defaults_to_all_fixes_and_ragdash_docs(capsysbinary, monkeypatch):
    monkeypatch.setenv("RAGDASH_DOCS", str(SAMPLE_DOCS))
    code, out, err = run_main(
        capsysbinary, "export", "--cases", str(SAMPLE_CASES), "--format", "pytest"
    )
    assert code == 0, err
    assert '"fixes": "all"' in out
    assert json.dumps(str(SAMPLE_DOCS)) in out
    monkeypatch.delenv("RAGDASH_DOCS")
    monkeypatch.chdir(ROOT)
    code, out, err = run_main(
        capsysbinary, "export", "--cases", str(SAMPLE_CASES), "--format", "pytest"
    )
    assert code == 0, err
    assert '"docs": "samples"' in out


def test_cli_reads_a_sqlite_library(tmp_path, capsysbinary, sample_cases):
    library = tmp_path / "library.sqlite"
    CaseLibrary(library).import_cases(sample_cases)
    code, out, err = run_main(capsysbinary, "export", "--cases", str(library), "--format", "json")
    assert code == 0, err
    assert {c.name for c in parse_cases(out)} == {c.name for c in sample_cases}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--cases", "missing.json", "--format", "json"], "cannot read cases file"),
        (["--cases", str(SAMPLE_CASES), "--format", "yaml"], "invalid choice"),
        (["--cases", str(SAMPLE_CASES)], "--format"),
        (["--format", "json"], "--cases"),
        (["--cases", str(SAMPLE_CASES), "--format", "pytest", "--docs", "nope"], "docs folder"),
        (
            ["--cases", str(SAMPLE_CASES), "--format", "pytest", "--fixes", "magic"],
            "unknown fix 'magic'",
        ),
        (["--cases", str(SAMPLE_CASES), "--format", "pytest", "--threshold", "150"], "threshold"),
        (["--cases", str(SAMPLE_CASES), "--format", "json", "-o", "/no/such/dir/x.json"], "write"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(capsysbinary, monkeypatch, args, fragment):
    monkeypatch.setenv("RAGDASH_DOCS", str(SAMPLE_DOCS))
    code, out, err = run_main(capsysbinary, "export", *args)
    assert code == 2
    assert out == ""
    assert err.startswith("ragdash: error: ") and err.count("\n") == 1
    assert fragment in err


def test_cli_bad_case_file_exits_2(tmp_path, capsysbinary):
    bad = tmp_path / "cases.json"
    bad.write_text('{"cases": [{"name": "a"}]}')
    code, _, err = run_main(capsysbinary, "export", "--cases", str(bad), "--format", "json")
    assert code == 2 and "has no query" in err


def test_cli_as_a_process(tmp_path):
    ok = run_module(
        "ragdash", "export", "--cases", str(SAMPLE_CASES), "--format", "pytest",
        "--docs", str(SAMPLE_DOCS), "-o", str(tmp_path / "test_x.py"), cwd=tmp_path,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    bad = run_module(
        "ragdash", "export", "--cases", "nope.json", "--format", "json", cwd=tmp_path
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("ragdash: error: ") and "Traceback" not in bad.stderr


def test_an_export_carries_the_workspace_and_each_cases_repairing_fix(tmp_path, sample_index):
    from ragdash.checks.triage import repairing_fix
    from ragdash.ingestion.workspace import Workspace
    from ragdash.retrieval.index import CorpusIndex

    workspace = tmp_path / "ws"
    (workspace / "uploads").mkdir(parents=True)
    (workspace / "uploads" / "loyalty.md").write_text(
        "---\nid: loyalty\nupdated: 2026-03-01\n---\nLoyalty points expire after 18 months.\n",
        encoding="utf-8",
    )
    stale = next(c for c in load_cases(SAMPLE_CASES) if c.name == "stale-version")
    uploaded = Case("uploaded", "loyalty points expire", "loyalty", ("18 months",))
    index = CorpusIndex(Workspace(workspace).load(SAMPLE_DOCS))
    fixes = {c.name: f for c in (stale, uploaded) if (f := repairing_fix(index, c)) is not None}
    assert {name: f.names for name, f in fixes.items()} == {"stale-version": "status"}
    source = pytest_module(
        [stale, uploaded], docs=SAMPLE_DOCS, fixes=Fixes.none(), workspace=workspace,
        case_fixes=fixes,
    )
    # Under no fix the stale version fails; under its repairing fix it passes, and the case
    # on an uploaded document finds it in the workspace.
    result = run_pytest(write_module(tmp_path, source))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
    exported = json.loads(json_export([stale, uploaded], docs=SAMPLE_DOCS, workspace=workspace,
                                      case_fixes=fixes))
    assert exported["workspace"] == str(workspace)
    assert exported["cases"][0]["fixes"] == "status" and "fixes" not in exported["cases"][1]
    assert parse_cases(json.dumps(exported)) == [stale, uploaded]


def test_an_exported_file_finds_its_docs_wherever_pytest_runs_and_records_no_server_path(
    tmp_path, capsysbinary
):
    # a team's repository: tests/ beside docs/, exported with paths as typed from its root
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "docs").symlink_to(SAMPLE_DOCS)
    target = repo / "tests" / "test_rag.py"
    import os

    cwd = os.getcwd()
    os.chdir(repo)
    try:
        code, _, err = run_main(capsysbinary, "export", "--cases", str(SAMPLE_CASES), "--format",
                                "pytest", "--docs", "docs", "-o", "tests/test_rag.py")  # fmt: skip
    finally:
        os.chdir(cwd)
    assert code == 0, err
    module = load_module(target)
    assert module.EXPORT["docs"] == "../docs"  # relative to the file, not to where it was made
    assert str(tmp_path) not in target.read_text(encoding="utf-8")
    # pytest run from the repository's root, from tests/, and from somewhere else entirely
    for where in (repo, repo / "tests", tmp_path):
        result = run_module("pytest", "-q", "-p", "no:cacheprovider", str(target), cwd=where)
        assert result.returncode == 0, (where, result.stdout + result.stderr)
        assert "8 passed" in result.stdout
