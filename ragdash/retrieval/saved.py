"""An index built once and saved to a folder, loaded later with its postings memory-mapped.

Loading a docs folder parses every PDF and tokenizes every passage; at a million passages
that is minutes, paid by every ``ragdash check``. ``ragdash index build --docs DIR -o
index/`` does it once: the folder holds the documents and both passage sets (tables fix off
and on) as JSON, each passage set's postings as ``.npy`` arrays (read memory-mapped, so a
loaded index shares pages with the OS cache instead of copying them), and a manifest.

The folder also holds :data:`MARKER` (``.ragdash-index``: a small JSON file naming the format
and recording the SHA-256 of every file the build wrote, each as soon as it is written). Building
over a folder (:func:`check_target`) is allowed only when it is new, empty, or provably what a
build wrote: marked, holding nothing but index files, each with the hash its marker recorded
(:func:`proven_index`). Anything else — a web app with its own ``manifest.json``, a folder with
a stray note, a forged marker whose manifest lists ``thesis.md``, an index file changed since —
is refused in one line and left untouched: ragdash never deletes what it did not write. A build
works in a temporary folder beside the target (``.NAME.PID-XXXX.tmp``, marked first of all) and
swaps it in; temporary folders left by a killed build (and an old index a killed swap left
aside, ``.NAME.old-PID``) are removed by the next build into the same parent when the same rule
proves them ragdash's — a look-alike name alone proves nothing.

The manifest records the index format and the ragdash version that wrote it, the SHA-256
and size of every file, and each docs file's size, modification time and SHA-256. Loading
refuses, with a message naming the file and what to do:

* a file missing, cut short or changed (checksum) — a corrupt index;
* another format or ragdash version — the passages and tokens may differ from this one's;
* a docs file added, removed or changed since the build — a stale index.

Example: ``CorpusIndex(load_folder("docs")).save("index", "docs")`` then
``CorpusIndex.load("index")`` ranks every query exactly as the index it saved (a test checks every
fix configuration on the testbed).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragdash.atomic import file_sha256
from ragdash.errors import IndexFileError
from ragdash.ingestion.documents import Corpus, Document, IngestMessage, Passage
from ragdash.ingestion.ingest import DOC_SUFFIXES, METADATA_FILE
from ragdash.retrieval.inverted import InvertedIndex, Postings
from ragdash.version import VERSION

__all__ = [
    "INDEX_FORMAT", "MANIFEST", "MARKER", "Parts", "check_target", "docs_listing", "proven_index",
    "read_index", "save_index",
]  # fmt: skip

#: Bumped whenever what the folder holds, or how it is read, changes.
INDEX_FORMAT = 2
MANIFEST = "manifest.json"
#: The file that marks a folder as a ragdash index (and a build's temporary folder as
#: ragdash's): ``{"format": "ragdash-index", "version": INDEX_FORMAT, "files": {name: sha256}}``.
#: A generic name such as ``manifest.json`` is no proof: web apps and browser extensions have
#: one too; nor is the marker alone — only files with the hashes it recorded are ragdash's.
MARKER = ".ragdash-index"
MARKER_FORMAT = "ragdash-index"
#: Largest marker read (a dozen names and hashes take about 1 KB).
_MARKER_BYTES = 64 * 1024
#: Every name an index folder can hold (what a build writes); a temporary folder holding
#: only these is a build's leftover even when it was killed before its marker was written.
_INDEX_FILES = re.compile(
    r"(manifest|corpus|(passages|vocabulary)-(plain|tables))\.json|(offsets|ids)-(plain|tables)"
    r"\.npy|\.ragdash-index"
)
_SETS = {False: "plain", True: "tables"}


def _version() -> str:
    return VERSION


def docs_listing(folder: str | Path) -> list[list[Any]]:
    """The docs folder's files a load reads (documents and ``metadata.csv``), each as
    ``[name, size, mtime_ns, sha256]``, by name."""
    folder = Path(folder)
    rows = []
    for path in sorted(folder.iterdir()):
        if path.is_file() and (path.suffix.lower() in DOC_SUFFIXES or path.name == METADATA_FILE):
            stat = path.stat()
            rows.append([path.name, stat.st_size, stat.st_mtime_ns, file_sha256(path)])
    return rows


# --- writing -------------------------------------------------------------------------------


def _document(doc: Document) -> list[Any]:
    return [
        doc.doc_id, doc.subject, doc.updated.isoformat() if doc.updated else None, doc.status,
        doc.source, doc.kind, list(doc.pages), doc.order,
        list(doc.table_pages) if doc.table_pages is not None else None,
    ]  # fmt: skip


def _passage(p: Passage) -> list[Any]:
    return [
        p.doc_id, p.text, p.page_start, p.page_end, p.position, p.order, p.kind, p.subject,
        p.updated.isoformat() if p.updated else None, p.status,
    ]  # fmt: skip


class _Index(Protocol):
    """What saving reads of a :class:`ragdash.retrieval.index.CorpusIndex`."""

    corpus: Corpus

    @property
    def fingerprint(self) -> str: ...

    def passages(self, tables: bool = False) -> tuple[Passage, ...]: ...

    def inverted(self, tables: bool = False, unicode: bool = False) -> InvertedIndex: ...


#: A loaded index's parts: the corpus, the passage sets and the inverted indexes by
#: (tables, unicode) — what :meth:`ragdash.retrieval.index.CorpusIndex.load` puts together.
Parts = tuple[Corpus, dict[bool, tuple[Passage, ...]], dict[tuple[bool, bool], InvertedIndex]]


def check_target(folder: str | Path) -> Path:
    """``folder`` if an index may be written there: it does not exist, is an empty folder, or
    is provably a ragdash index (:func:`proven_index`: only index files, each with the
    SHA-256 its :data:`MARKER` recorded). Anything
    else raises :class:`IndexFileError` in one line naming the folder and why — before any
    work, and again just before the swap. Nothing is ever deleted that a build did not
    write."""
    folder = Path(folder)
    if folder.is_symlink():
        raise IndexFileError(
            f"{folder}: is a symbolic link; give the real folder (ragdash writes an index only "
            "into a new, empty or ragdash index folder)"
        )
    if not folder.exists():
        return folder
    if not folder.is_dir():
        raise IndexFileError(f"{folder}: exists and is not a folder; choose a new or empty folder")
    entries = sorted(p.name for p in folder.iterdir())
    if not entries:
        return folder
    if MARKER not in entries or _marker(folder) is None:
        older = (
            " (an index built before the marker existed: delete it yourself if it is one)"
            if MANIFEST in entries else ""
        )  # fmt: skip
        raise IndexFileError(
            f"{folder}: is not empty and is not a ragdash index (no {MARKER} marker) — "
            f"ragdash will not replace it; choose a new or empty folder{older}"
        )
    problem = _unproven(folder)
    if problem:
        raise IndexFileError(f"{folder}: {problem}")
    return folder


def _marker(folder: Path) -> dict[str, Any] | None:
    """The ragdash marker of ``folder`` (any index format version), or None: a regular
    file, not a link, small, naming ragdash's format."""
    marker = folder / MARKER
    try:
        info = marker.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MARKER_BYTES:
            return None
        data = json.loads(marker.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and data.get("format") == MARKER_FORMAT else None


def _unproven(folder: Path) -> str | None:
    """Why ``folder`` is not provably what a build wrote, or None when it is: a real
    folder with a ragdash marker, holding nothing but index files (by name, regular files,
    no links), each with the SHA-256 its marker recorded (a recorded file may be missing: a
    killed build had not written it yet)."""
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return "is not a folder"
        entries = sorted(p.name for p in folder.iterdir())
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    data = _marker(folder)
    if data is None:
        return f"is not a ragdash index (no {MARKER} marker)"
    recorded = data.get("files")
    if not isinstance(recorded, dict):
        return (
            f"is an index from an older ragdash (its {MARKER} records no file hashes), so "
            "ragdash cannot prove it wrote every file there: delete it yourself or choose "
            "another folder"
        )
    foreign, changed = [], []
    for name in entries:
        if name == MARKER:
            continue
        path = folder / name
        try:
            regular = stat.S_ISREG(path.lstat().st_mode)
        except OSError:
            regular = False
        if not (regular and _INDEX_FILES.fullmatch(name) and name in recorded):
            foreign.append(name)
        elif file_sha256(path) != recorded[name]:
            changed.append(name)
    if foreign:
        return (
            f"is a ragdash index but also holds files ragdash did not write ({_names(foreign)}); "
            "move them out or choose another folder"
        )
    if changed:
        return (
            f"holds index files changed since ragdash wrote them ({_names(changed)}), so they "
            "may be yours: move them out or choose another folder"
        )
    return None


def proven_index(folder: str | Path) -> bool:
    """Whether ``folder`` is provably what an index build wrote (see :func:`_unproven`):
    the one rule for replacing an index and removing a killed build's leftovers.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / MARKER).write_text('{"format": "ragdash-index", "files": {}}')
    >>> proven_index(folder)
    True
    >>> _ = (folder / "corpus.json").write_text("a user's own corpus.json")
    >>> proven_index(folder)
    False
    """
    return _unproven(Path(folder)) is None


def _names(names: list[str]) -> str:
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return ", ".join(repr(n) for n in names[:3]) + more


def _remove_proven(folder: Path) -> bool:
    """Remove ``folder`` file by file if it is (still) provably a build's; False if not
    (then nothing is removed)."""
    if not proven_index(folder):
        return False
    for path in folder.iterdir():
        path.unlink(missing_ok=True)
    try:
        folder.rmdir()
    except OSError:  # something appeared meanwhile: it stays
        return False
    return True


@contextlib.contextmanager
def _building_in(parent: Path) -> Iterator[None]:
    """One build at a time in ``parent`` (an advisory lock on the folder itself, so no lock
    file is left behind): a build then knows every temporary folder it finds there is a
    leftover of a killed build, not the work of one running beside it."""
    fd = os.open(parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _stale_temporaries(folder: Path) -> list[Path]:
    """Temporary folders a killed build into ``folder`` left beside it: named as a build
    names them (``.NAME.PID-XXXX.tmp``; ``.NAME.XXXXXXXX.tmp`` of versions before the marker;
    the old index moved aside, ``.NAME.old-PID``) — and only those :func:`proven_index`
    proves a build's: a look-alike name proves nothing. Nothing else is touched."""
    name = re.escape(folder.name)
    current = re.compile(rf"\.{name}\.\d+-[A-Za-z0-9_]+\.tmp")
    older = re.compile(rf"\.{name}\.[A-Za-z0-9_]{{8}}\.tmp|\.{name}\.old-\d+")
    stale = []
    for path in folder.parent.iterdir():
        if (current.fullmatch(path.name) or older.fullmatch(path.name)) and proven_index(path):
            stale.append(path)
    return sorted(stale)


def save_index(index: _Index, folder: str | Path, docs: str | Path | None = None) -> Path:
    """Write ``index`` (both passage sets and their postings) to ``folder``, atomically: it
    is built in a temporary folder beside it and renamed into place, so a reader sees the
    old index or the new one, never half of one. ``docs``: the folder it was loaded from,
    whose files are recorded to tell a stale index. Refuses (:func:`check_target`) a folder
    that is neither new, empty nor a ragdash index; removes temporary folders killed builds
    left beside it."""
    folder = check_target(folder)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with _building_in(folder.parent):
            for leftover in _stale_temporaries(folder):
                _remove_proven(leftover)
            prefix = f".{folder.name}.{os.getpid()}-"
            tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=prefix, suffix=".tmp"))
            try:
                recorded: dict[str, str] = {}
                _record(tmp, recorded)  # marked first of all
                _write_files(index, tmp, docs, recorded)
                _swap_in(tmp, folder)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
    except OSError as exc:  # a read-only parent, a full disk: named, not a traceback
        raise IndexFileError(f"{folder}: cannot be written ({exc.strerror or exc})") from None
    return folder


def _record(tmp: Path, recorded: dict[str, str], path: Path | None = None) -> None:
    """Record ``path``'s SHA-256 in ``tmp``'s marker (rewritten whole; written once with no
    files when ``path`` is None): what the marker records is what proves a file ragdash's."""
    if path is not None:
        recorded[path.name] = file_sha256(path)
    marker = {"format": MARKER_FORMAT, "version": INDEX_FORMAT, "files": recorded}
    _write_json(tmp / MARKER, marker)


def _write_files(
    index: _Index, tmp: Path, docs: str | Path | None, recorded: dict[str, str]
) -> None:
    corpus = index.corpus

    def json_file(name: str, data: object) -> None:
        _write_json(tmp / name, data)
        _record(tmp, recorded, tmp / name)

    def npy_file(name: str, array: np.ndarray) -> None:
        np.save(tmp / name, array)
        _record(tmp, recorded, tmp / name)

    json_file("corpus.json", {
        "documents": [_document(d) for d in corpus.documents],
        "messages": [[m.source, m.level, m.message] for m in corpus.messages],
    })  # fmt: skip
    shared = index.passages(False) is index.passages(True)
    for tables, name in _SETS.items():
        if tables and shared:
            continue
        inverted = index.inverted(tables)
        json_file(f"passages-{name}.json", [_passage(p) for p in inverted.passages])
        json_file(f"vocabulary-{name}.json", list(inverted.postings.vocabulary))
        npy_file(f"offsets-{name}.npy", inverted.postings.offsets)
        npy_file(f"ids-{name}.npy", inverted.postings.passage_ids)
    files = {
        p.name: {"bytes": p.stat().st_size, "sha256": file_sha256(p)}
        for p in sorted(tmp.iterdir())
        if p.name != MARKER
    }
    manifest = {
        "format": INDEX_FORMAT,
        "ragdash": _version(),
        "fingerprint": index.fingerprint,
        "tables_shared": shared,
        "passages": len(index.passages(False)),
        "docs": {
            "folder": str(Path(docs).resolve()) if docs else None,
            "files": docs_listing(docs) if docs else [],
        },
        "files": files,
    }
    json_file(MANIFEST, manifest)
    for path in tmp.iterdir():
        with path.open("rb") as handle:
            os.fsync(handle.fileno())


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), "utf-8")


def _swap_in(tmp: Path, folder: Path) -> None:
    """Rename the finished ``tmp`` over ``folder``: a new or empty folder is simply replaced;
    an old index (checked again: it may have changed during the build) is moved aside first,
    then removed file by file once proven ragdash's again (anything else stays beside it)."""
    check_target(folder)
    if folder.exists() and any(folder.iterdir()):
        old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        os.replace(folder, old)
        os.replace(tmp, folder)
        _remove_proven(old)
    else:
        os.replace(tmp, folder)  # rename(2) replaces an empty folder


# --- reading -------------------------------------------------------------------------------


def read_index(folder: str | Path, docs: str | Path | None = None) -> Parts:
    """The parts of the index saved in ``folder``, postings memory-mapped. Checks every
    file against the manifest, the format and version, and (``docs``, else the folder
    recorded at build time when it still exists) that no docs file changed. Raises
    :class:`IndexFileError` naming the file and the problem."""
    folder = Path(folder)
    manifest_path = folder / MANIFEST
    if not folder.is_dir():
        raise IndexFileError(f"{folder}: no such index folder (ragdash index build -o {folder})")
    manifest = _read_json(manifest_path)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise IndexFileError(f"{manifest_path}: not a ragdash index manifest")
    if manifest.get("format") != INDEX_FORMAT or manifest.get("ragdash") != _version():
        raise IndexFileError(
            f"{manifest_path}: written by ragdash {manifest.get('ragdash')} (index format "
            f"{manifest.get('format')}); this is ragdash {_version()} (format {INDEX_FORMAT}): "
            "rebuild it with ragdash index build"
        )
    for name, info in manifest["files"].items():
        path = folder / name
        if not path.is_file():
            raise IndexFileError(f"{path}: missing from the index (corrupt: rebuild it)")
        if path.stat().st_size != info.get("bytes") or file_sha256(path) != info.get("sha256"):
            raise IndexFileError(
                f"{path}: does not match the index manifest (corrupt or changed since the "
                "build: rebuild it)"
            )
    _check_docs(manifest, folder, docs)
    try:
        return _assemble(folder, manifest)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise IndexFileError(f"{folder}: unreadable index ({exc}): rebuild it") from None


def _check_docs(manifest: Mapping[str, Any], folder: Path, docs: str | Path | None) -> None:
    recorded = manifest.get("docs") or {}
    where = Path(docs) if docs else (Path(recorded["folder"]) if recorded.get("folder") else None)
    if where is None or not where.is_dir():
        return  # nothing to compare with: the index stands on its own
    then = {row[0]: row for row in recorded.get("files", [])}
    now = {p.name for p in where.iterdir()
           if p.is_file() and (p.suffix.lower() in DOC_SUFFIXES or p.name == METADATA_FILE)}
    hint = f"rebuild it: ragdash index build --docs {where} -o {folder}"
    for name in sorted(now - set(then)):
        raise IndexFileError(f"{folder} is stale: {where / name} was added after the build; {hint}")
    for name in sorted(set(then) - now):
        raise IndexFileError(f"{folder} is stale: {where / name} was removed since; {hint}")
    for name in sorted(now):
        path = where / name
        stat = path.stat()
        _, size, mtime, sha = then[name]
        if stat.st_size != size or (stat.st_mtime_ns != mtime and file_sha256(path) != sha):
            raise IndexFileError(f"{folder} is stale: {path} changed since the build; {hint}")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise IndexFileError(f"{path}: missing (not a ragdash index, or corrupt)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexFileError(f"{path}: unreadable ({exc}): rebuild the index") from None
    except RecursionError:
        raise IndexFileError(f"{path}: unreadable (nested too deeply): rebuild the index") from None
    except ValueError:  # a number of thousands of digits
        raise IndexFileError(f"{path}: unreadable (a number too long): rebuild the index") from None


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _assemble(folder: Path, manifest: Mapping[str, Any]) -> Parts:
    data = _read_json(folder / "corpus.json")
    documents = tuple(
        Document(d[0], d[1], _day(d[2]), d[3], d[4], d[5], tuple(d[6]), d[7],
                 tuple(d[8]) if d[8] is not None else None)
        for d in data["documents"]
    )  # fmt: skip
    messages = tuple(IngestMessage(*m) for m in data["messages"])
    sets: dict[bool, tuple[Passage, ...]] = {}
    inverted: dict[tuple[bool, bool], InvertedIndex] = {}
    for tables, name in _SETS.items():
        if tables and manifest.get("tables_shared"):
            sets[True] = sets[False]
            inverted[(True, False)] = inverted[(False, False)]
            continue
        passages = tuple(
            Passage(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], _day(p[8]), p[9])
            for p in _read_json(folder / f"passages-{name}.json")
        )
        vocabulary = tuple(_read_json(folder / f"vocabulary-{name}.json"))
        offsets = np.load(folder / f"offsets-{name}.npy", mmap_mode="r", allow_pickle=False)
        ids = np.load(folder / f"ids-{name}.npy", mmap_mode="r", allow_pickle=False)
        if len(offsets) != len(vocabulary) + 1 or (len(ids) and int(ids.max()) >= len(passages)):
            raise ValueError(f"postings of {name} do not fit its passages")
        postings = Postings(vocabulary, dict(zip(vocabulary, range(len(vocabulary)),
                                                 strict=True)), offsets, ids)  # fmt: skip
        current = np.fromiter((p.status != "withdrawn" for p in passages), bool, len(passages))
        sets[tables] = passages
        inverted[(tables, False)] = InvertedIndex(passages, postings, current, False)
    return Corpus(documents, messages), sets, inverted
