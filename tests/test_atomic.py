"""Atomic writes and the read-modify-write lock."""

from __future__ import annotations

import multiprocessing

import pytest

from ragdash.atomic import atomic_write, file_lock


def _increment(path: str, times: int) -> None:
    for _ in range(times):
        with file_lock(path):
            with open(path, "rb") as handle:
                value = int(handle.read() or b"0")
            atomic_write(path, str(value + 1).encode())


def test_a_counter_incremented_by_four_processes_loses_no_update(tmp_path):
    counter = tmp_path / "counter.txt"
    atomic_write(counter, b"0")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_increment, args=(str(counter), 50)) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    assert counter.read_text() == "200"


def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_temp_file(tmp_path):
    target = tmp_path / "data.txt"
    atomic_write(target, b"old")

    with pytest.raises(TypeError):
        atomic_write(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["data.txt"]


def test_a_written_file_gets_a_new_files_mode_and_a_replaced_one_keeps_its_own(tmp_path):
    """Not the temp file's 0600: what ragdash writes for a user reads like any file they
    make (0644 under the usual umask 022); a file made private stays private."""
    import os

    previous = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new.html", b"report")
        private = tmp_path / "private.json"
        private.write_bytes(b"{}")
        private.chmod(0o600)
        atomic_write(private, b"{}\n")
    finally:
        os.umask(previous)
    assert (tmp_path / "new.html").stat().st_mode & 0o777 == 0o644
    assert private.stat().st_mode & 0o777 == 0o600
