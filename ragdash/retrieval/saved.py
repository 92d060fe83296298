"""An index built once and saved to a folder, loaded later with its postings memory-mapped.

Loading a docs folder parses every PDF and tokenizes every passage; at a million passages
that is minutes, paid by every ``ragdash check``. ``ragdash index build --docs DIR -o
index/`` does it once: the folder holds the documents and both passage sets (tables fix off
and on) as JSON, each passage set's postings as ``.npy`` arrays (read memory-mapped, so a
loaded index shares pages with the OS cache instead of copying them), and a manifest.

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

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragdash.errors import IndexFileError
from ragdash.ingestion.documents import Corpus, Document, IngestMessage, Passage
from ragdash.ingestion.ingest import DOC_SUFFIXES, METADATA_FILE
from ragdash.retrieval.inverted import InvertedIndex, Postings
from ragdash.version import VERSION

__all__ = ["INDEX_FORMAT", "MANIFEST", "Parts", "docs_listing", "read_index", "save_index"]

#: Bumped whenever what the folder holds, or how it is read, changes.
INDEX_FORMAT = 1
MANIFEST = "manifest.json"
_SETS = {False: "plain", True: "tables"}


def _version() -> str:
    return VERSION


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def docs_listing(folder: str | Path) -> list[list[Any]]:
    """The docs folder's files a load reads (documents and ``metadata.csv``), each as
    ``[name, size, mtime_ns, sha256]``, by name."""
    folder = Path(folder)
    rows = []
    for path in sorted(folder.iterdir()):
        if path.is_file() and (path.suffix.lower() in DOC_SUFFIXES or path.name == METADATA_FILE):
            stat = path.stat()
            rows.append([path.name, stat.st_size, stat.st_mtime_ns, _sha256(path)])
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


def save_index(index: _Index, folder: str | Path, docs: str | Path | None = None) -> Path:
    """Write ``index`` (both passage sets and their postings) to ``folder``, atomically: it
    is built in a temporary folder beside it and renamed into place, so a reader sees the
    old index or the new one, never half of one. ``docs``: the folder it was loaded from,
    whose files are recorded to tell a stale index."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".tmp"))
    try:
        corpus = index.corpus
        _write_json(tmp / "corpus.json", {
            "documents": [_document(d) for d in corpus.documents],
            "messages": [[m.source, m.level, m.message] for m in corpus.messages],
        })  # fmt: skip
        shared = index.passages(False) is index.passages(True)
        for tables, name in _SETS.items():
            if tables and shared:
                continue
            inverted = index.inverted(tables)
            _write_json(tmp / f"passages-{name}.json", [_passage(p) for p in inverted.passages])
            _write_json(tmp / f"vocabulary-{name}.json", list(inverted.postings.vocabulary))
            np.save(tmp / f"offsets-{name}.npy", inverted.postings.offsets)
            np.save(tmp / f"ids-{name}.npy", inverted.postings.passage_ids)
        files = {
            p.name: {"bytes": p.stat().st_size, "sha256": _sha256(p)}
            for p in sorted(tmp.iterdir())
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
        _write_json(tmp / MANIFEST, manifest)
        for path in tmp.iterdir():
            with path.open("rb") as handle:
                os.fsync(handle.fileno())
        _swap_in(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return folder


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), "utf-8")


def _swap_in(tmp: Path, folder: Path) -> None:
    """Rename the finished ``tmp`` over ``folder`` (an old index is moved aside first, then
    removed)."""
    if folder.exists():
        if not (folder / MANIFEST).is_file() and any(folder.iterdir()):
            raise IndexFileError(
                f"{folder}: exists and is not a ragdash index (no {MANIFEST}); "
                "choose an empty or new folder"
            )
        old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        os.replace(folder, old)
        os.replace(tmp, folder)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, folder)


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
        if path.stat().st_size != info.get("bytes") or _sha256(path) != info.get("sha256"):
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
        if stat.st_size != size or (stat.st_mtime_ns != mtime and _sha256(path) != sha):
            raise IndexFileError(f"{folder} is stale: {path} changed since the build; {hint}")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise IndexFileError(f"{path}: missing (not a ragdash index, or corrupt)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexFileError(f"{path}: unreadable ({exc}): rebuild the index") from None


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
