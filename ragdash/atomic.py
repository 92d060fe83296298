"""Atomic file writes: a temp file in the same folder, fsync, then rename over the target,
so a crash mid-write leaves the previous file intact; and an exclusive lock for
read-modify-write, so two sessions saving at once both keep their change.

Why both: an atomic write alone protects against a crash, not against a lost update — two
sessions that each read ``metadata.csv``, change one row and write it back leave only the
second change. Under :func:`file_lock` the second session reads the first one's result::

    with file_lock(path):
        edits = read(path); edits[name] = row; atomic_write(path, render(edits))
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_write", "file_lock"]


def atomic_write(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (the folder must exist)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def file_lock(path: str | Path) -> Iterator[None]:
    """Hold an exclusive lock for ``path`` (on a ``.NAME.lock`` file beside it, so the lock
    survives ``path`` being replaced by :func:`atomic_write`). Blocks until the lock is free;
    threads and processes alike wait their turn. The lock is released when the block ends,
    and by the operating system if the process dies."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.lock")
    with open(lock, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
