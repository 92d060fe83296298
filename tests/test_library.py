"""The SQLite case library: cases with status, notes and run history; import/export as
cases.json; two processes writing at once; corrupt and locked files refused clearly."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import replace

import pytest
from conftest import ROOT, SAMPLE_DOCS

from ragdash.case import Case
from ragdash.checks.ablation import configurations
from ragdash.checks.cases import parse_cases, save_cases
from ragdash.checks.proof import check_case
from ragdash.cli import main
from ragdash.errors import CaseFileError, LibraryError
from ragdash.storage.case_store import load_cases
from ragdash.storage.library import STATUSES, CaseLibrary, is_sqlite_file


@pytest.fixture
def library(tmp_path) -> CaseLibrary:
    return CaseLibrary(tmp_path / "library.sqlite")


def test_a_new_library_is_an_sqlite_file_with_no_cases(library):
    assert library.list() == []
    assert is_sqlite_file(library.path)


def test_added_cases_come_back_with_status_timestamps_and_every_field(library, sample_cases):
    for case in sample_cases:
        library.add(case)
    entries = library.list()
    assert [e.case for e in entries] == sample_cases
    assert {e.status for e in entries} == {"open"}
    assert all(e.created and e.created == e.updated for e in entries)
    # A second object on the same file sees the same library.
    assert CaseLibrary(library.path).cases() == sample_cases


def test_a_duplicate_name_is_refused_and_the_first_case_kept(library, sample_cases):
    library.add(sample_cases[0])
    with pytest.raises(LibraryError, match="already in the library"):
        library.add(replace(sample_cases[0], query="something else"))
    assert library.cases() == [sample_cases[0]]


def test_status_and_notes_are_updated(library, sample_cases):
    case = sample_cases[0]
    library.add(case)
    for status in STATUSES:
        library.update_status(case.name, status)
        assert library.get(case.name).status == status
    library.update_notes(case.name, "user saw 60 days; policy says 30")
    assert library.get(case.name).case.note == "user saw 60 days; policy says 30"
    assert [e.name for e in library.list(status="fixed")] == [case.name]
    with pytest.raises(LibraryError, match="status must be one of"):
        library.update_status(case.name, "closed")
    with pytest.raises(LibraryError, match="no case named"):
        library.update_notes("nobody", "x")


def test_run_history_records_every_configuration_with_its_verdict(
    library, sample_index, sample_cases
):
    case = sample_cases[0]
    library.add(case)
    checks = [(label, check_case(sample_index, case, f)) for label, f in configurations().items()]
    library.record_checks(checks)
    history = library.history(case.name)
    assert [r.configuration for r in history] == list(configurations())
    assert [r.passed for r in history] == [c.passed for _, c in checks]
    assert [r.diagnosis for r in history] == [c.diagnosis.value for _, c in checks]
    assert all(r.at for r in history)
    with pytest.raises(LibraryError, match="no case named"):
        library.record_run("nobody", "none", False, "ranking")
    assert len(library.history()) == len(checks)


def test_import_then_export_round_trips_the_cases_json_format(library, sample_cases, tmp_path):
    result = library.import_cases(sample_cases)
    assert result.added == tuple(c.name for c in sample_cases)
    again = library.import_cases(sample_cases)
    assert again.skipped == result.added and not again.added
    changed = replace(sample_cases[0], note="edited")
    assert library.import_cases([changed], replace=True).updated == (changed.name,)
    out = tmp_path / "exported.json"
    save_cases(out, library.cases())
    assert load_cases(out) == [changed, *sample_cases[1:]]


def test_a_failed_import_writes_nothing(library, sample_cases):
    bad = Case("bad", "q", "x", top_k=0)  # violates the schema's CHECK constraint
    with pytest.raises(LibraryError):
        library.import_cases([sample_cases[0], bad])
    assert library.list() == []


def test_load_cases_reads_a_library_file_by_its_header(library, sample_cases, tmp_path):
    library.import_cases(sample_cases)
    renamed = tmp_path / "cases.json"  # the name does not matter, the header does
    renamed.write_bytes(library.path.read_bytes())
    assert load_cases(library.path) == sample_cases


def test_check_runs_the_saved_library_in_ci(library, sample_cases, capsys):
    library.import_cases(sample_cases)
    docs = ["--docs", str(SAMPLE_DOCS), "--cases", str(library.path)]
    assert main(["check", *docs, "--fixes", "all"]) == 0
    assert f"{len(sample_cases)} of {len(sample_cases)} cases passed" in capsys.readouterr().out
    assert main(["check", *docs]) == 1


# --- concurrency -------------------------------------------------------------------------

WRITER = """
import sys
from ragdash.storage.library import CaseLibrary
from ragdash.case import Case
path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
library = CaseLibrary(path, timeout=30)
for i in range(count):
    name = f"{tag}-{i}"
    library.add(Case(name, f"query {i}", "doc"))
    library.record_run(name, "none", i % 2 == 0, "pass" if i % 2 == 0 else "ranking")
    library.update_status(name, "diagnosed")
"""


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    path = tmp_path / "library.sqlite"
    count = 40
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), tag, str(count)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    library = CaseLibrary(path)
    names = {e.name for e in library.list()}
    assert names == {f"{tag}-{i}" for tag in "ab" for i in range(count)}
    assert {e.status for e in library.list()} == {"diagnosed"}
    assert len(library.history()) == 2 * count


# --- damaged and busy files --------------------------------------------------------------


def _damaged_library(tmp_path, sample_cases):
    path = tmp_path / "library.sqlite"
    library = CaseLibrary(path)
    library.import_cases(
        sample_cases + [replace(c, name=f"{c.name}-{i}") for i in range(40) for c in sample_cases]
    )
    data = bytearray(path.read_bytes())
    page = 4096
    data[page : page * 3] = b"\xde\xad\xbe\xef" * (page // 2)  # garble pages 2-3
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(
    "content",
    [b"this is not a database at all\n" * 10, b"SQLite format 3\x00" + b"\x00garbage" * 100],
    ids=["not-sqlite", "sqlite-header-then-garbage"],
)
def test_a_corrupt_file_is_refused_and_left_byte_for_byte(tmp_path, content):
    path = tmp_path / "library.sqlite"
    path.write_bytes(content)
    with pytest.raises(LibraryError, match="left as it is"):
        CaseLibrary(path)
    assert path.read_bytes() == content
    with pytest.raises(CaseFileError, match="not valid JSON|left as it is"):
        load_cases(path)
    assert path.read_bytes() == content


def test_an_emptied_library_file_is_reported_not_silently_replaced(tmp_path):
    path = tmp_path / "library.sqlite"
    path.write_bytes(b"")
    with pytest.raises(LibraryError, match=r"empty \(0 bytes\)"):
        CaseLibrary(path)
    assert path.read_bytes() == b""


def test_a_library_with_damaged_pages_is_refused_and_untouched(tmp_path, sample_cases):
    path = _damaged_library(tmp_path, sample_cases)
    before = path.read_bytes()
    with pytest.raises(LibraryError, match="corrupt"):
        CaseLibrary(path)
    assert path.read_bytes() == before


def test_the_cli_names_a_corrupt_library_in_one_line(tmp_path, capsys):
    path = tmp_path / "library.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)
    code = main(["check", "--docs", str(SAMPLE_DOCS), "--cases", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "library.sqlite" in err


def test_a_dangling_library_link_is_refused_and_nothing_is_created_at_its_target(
    tmp_path, capsys
):
    """Regression (issue 40 #6): a dangling ``library.sqlite`` link made ``import-cases``
    create the database at the link's target, outside the workspace."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    target = tmp_path / "elsewhere" / "planted.sqlite"
    target.parent.mkdir()
    (workspace / "library.sqlite").symlink_to(target)
    cases = SAMPLE_DOCS / "cases.json"
    code = main(["import-cases", str(cases), "--workspace", str(workspace)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "symbolic link" in err
    assert "Traceback" not in err
    assert not target.exists() and list(target.parent.iterdir()) == []
    with pytest.raises(LibraryError, match="symbolic link to a missing file"):
        CaseLibrary(workspace / "library.sqlite")
    assert not target.exists()


def test_another_programs_database_is_not_taken_over(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE songs (title TEXT)")
    before = path.read_bytes()
    with pytest.raises(LibraryError, match="another program"):
        CaseLibrary(path)
    assert path.read_bytes() == before


def test_a_locked_library_says_it_is_locked_and_writes_nothing(library, sample_cases):
    library.add(sample_cases[0])
    holder = sqlite3.connect(library.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    try:
        busy = CaseLibrary(library.path, timeout=0.2)
        with pytest.raises(LibraryError, match="locked"):
            busy.add(sample_cases[1])
        with pytest.raises(LibraryError, match="locked"):
            CaseLibrary(library.path, timeout=0.2).update_status(sample_cases[0].name, "fixed")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert library.cases() == [sample_cases[0]]
    assert library.get(sample_cases[0].name).status == "open"


def test_parse_cases_still_reads_json(sample_cases):
    text = (SAMPLE_DOCS / "cases.json").read_text(encoding="utf-8")
    assert parse_cases(text) == sample_cases


def test_an_empty_library_file_is_named_as_a_library_not_as_bad_json(tmp_path, capsys):
    from ragdash.storage.case_store import workspace_cases

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "library.sqlite").write_bytes(b"")
    found = workspace_cases(SAMPLE_DOCS, workspace)
    assert len(found.problems) == 1
    assert "library.sqlite" in found.problems[0] and "empty (0 bytes)" in found.problems[0]
    assert "JSON" not in found.problems[0]
    with pytest.raises(CaseFileError, match=r"case library .*empty \(0 bytes\)"):
        load_cases(workspace / "library.sqlite")
    main(["check", "--docs", str(SAMPLE_DOCS), "--workspace", str(workspace)])
    err = capsys.readouterr().err
    assert "empty (0 bytes)" in err and "JSON" not in err
    assert (workspace / "library.sqlite").read_bytes() == b""  # left as it was


def test_a_library_over_the_case_limit_gives_its_oldest_cases_and_says_so(
    library, sample_cases, monkeypatch
):
    from ragdash.storage import case_store

    library.import_cases(sample_cases)
    monkeypatch.setattr(case_store, "MAX_CASES", 3)  # an older ragdash imported any number
    problems: list[str] = []
    cases = load_cases(library.path, problems)
    assert [c.name for c in cases] == [c.name for c in sample_cases[:3]]
    assert problems == [
        f"case library {str(library.path)!r} holds {len(sample_cases)} cases; the limit is 3: "
        "only the oldest 3 are used"
    ]
    with pytest.raises(CaseFileError, match="the limit is 3"):
        load_cases(library.path)


def test_a_damaged_saved_run_is_named_in_one_line(tmp_path, capsys):
    path = tmp_path / "lib.sqlite"
    lib = CaseLibrary(path)
    assert main(["check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_DOCS / "cases.json"),
                 "--fixes", "all", "--library", str(path), "--save-run"]) == 0  # fmt: skip
    capsys.readouterr()
    for damage in ("[" * 100_000, '{"format": ' + "[" * 200 + "]" * 200 + "}",
                   '{"x": ' + "9" * 5000 + "}"):  # fmt: skip
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE saved_runs SET data = ?, metrics = ?", (damage, damage))
        with pytest.raises(Exception, match="saved run #1 cannot be read"):
            lib.saved_run(1)
        assert [r.id for r in lib.run_summaries()] == [1]  # still listed, to delete it
        assert main(["runs", "show", "latest", "--library", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "saved run #1 cannot be read" in err
    assert main(["runs", "delete", "1", "--library", str(path)]) == 0


def test_a_case_with_damaged_evidence_is_named_not_a_crash(library, sample_cases):
    library.import_cases(sample_cases[:2])
    with sqlite3.connect(library.path) as conn:
        conn.execute("UPDATE cases SET evidence = ? WHERE name = ?",
                     ("[" * 100_000, sample_cases[0].name))  # fmt: skip
    with pytest.raises(LibraryError, match=f"{sample_cases[0].name}.*cannot be read"):
        library.cases()
    with pytest.raises(CaseFileError, match="cannot be read"):
        load_cases(library.path)
    problems: list[str] = []  # what the dashboard and check --workspace read: the rest
    assert [c.name for c in load_cases(library.path, problems)] == [sample_cases[1].name]
    assert len(problems) == 1 and "cannot be read: damaged evidence; skipped" in problems[0]
