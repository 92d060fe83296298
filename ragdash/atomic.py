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
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_write", "file_lock", "file_sha256"]


def _umask() -> int:
    """The process umask, read without changing it (``os.umask`` can only be read by setting
    it, and a thread creating a file in between would get the wrong mode)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    """The mode ``open(path, "w")`` would leave: an existing file's own, else a new file's
    (``0o666`` less the umask, so 0644 under the usual 022)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def atomic_write(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (the folder must exist), with the mode a
    plain write would give it — not the temp file's 0600: a report written by ``stress
    --report`` and one by ``check --report`` are alike readable::

        >>> import tempfile; folder = Path(tempfile.mkdtemp())
        >>> atomic_write(folder / "a.txt", b"a"); (folder / "a.txt").read_bytes()
        b'a'
        >>> oct((folder / "a.txt").stat().st_mode & 0o777) == oct(0o666 & ~_umask())
        True
    """
    path = Path(path)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
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


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks: what proves a file is the one ragdash
    wrote (a staging folder's upload, an index's files) before it removes anything::

        >>> import tempfile; f = Path(tempfile.mkdtemp()) / "a"; _ = f.write_bytes(b"abc")
        >>> file_sha256(f)[:12]
        'ba7816bf8f01'
    """
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
