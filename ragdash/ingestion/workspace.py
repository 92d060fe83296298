"""The dashboard's workspace folder: uploaded documents and metadata edits that survive a
restart. Layout::

    workspace/uploads/      uploaded .pdf/.txt/.md files (a docs folder of its own)
    workspace/metadata.csv  edits of id/subject/updated/status, keyed by file name
    workspace/removed/      removed uploads, kept (with a timestamp) so nothing is lost
    workspace/cache/pdf/    parsed PDFs by content hash (never parsed twice; safe to delete)
    workspace/tmp/          uploads being checked, one folder per upload named by the
                            server's pid and marked with a token file; moved into uploads/
                            when they load, and a marked folder whose process is gone
                            (kill -9 mid-upload) is removed on start — nothing else there

Every write is atomic (temp file + rename). The corpus the dashboard shows is the docs
folder followed by the uploads, with the edits applied.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import logging
import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from ragdash.atomic import atomic_write, file_lock, file_sha256
from ragdash.csv_safe import escape_cell, unescape_cell
from ragdash.errors import WorkspaceError
from ragdash.ingestion.documents import STATUSES, Corpus, Document, IngestMessage
from ragdash.ingestion.ingest import (
    DOC_SUFFIXES,
    METADATA_FIELDS,
    IngestError,
    Progress,
    load_document,
    load_folder,
    parse_date,
    read_metadata_csv,
)
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.ingestion.segmentation import cap_passages, max_passages, passage_count

__all__ = [
    "EDITS_FILE",
    "MAX_NAME_CHARS",
    "MAX_UPLOAD_BYTES",
    "SavedUpload",
    "Workspace",
    "apply_edit",
    "check_document",
    "merge_corpora",
    "safe_file_name",
    "upload_label",
]

EDITS_FILE = "metadata.csv"
#: Largest upload accepted, matching ``server.maxUploadSize`` in .streamlit/config.toml.
MAX_UPLOAD_BYTES = 50 * 1024 * 1024


class SavedUpload(NamedTuple):
    """An upload stored in the workspace: its file name, the loader's warnings, and how many
    passages it adds (tables fix off, as the passage limit counts them)."""

    name: str
    warnings: list[str]
    passages: int


#: Longest stem an upload keeps (file systems refuse names over 255 bytes).
MAX_NAME_CHARS = 100


def safe_file_name(name: str) -> str:
    """The base name of an uploaded file, reduced to safe characters, suffix checked.

    Path separators, NUL and other control characters, spaces and Markdown become ``-``;
    a name longer than :data:`MAX_NAME_CHARS` is cut::

        >>> safe_file_name("../../etc/pass\\x00wd.md")
        'pass-wd.md'
        >>> safe_file_name("a" * 300 + ".txt") == "a" * 100 + ".txt"
        True
    """
    base = Path(name.replace("\\", "/").replace("\x00", "-")).name
    stem, suffix = Path(base).stem, Path(base).suffix.lower()
    if suffix not in DOC_SUFFIXES:
        shown = re.sub(r"[^A-Za-z0-9._-]+", "-", base)[:MAX_NAME_CHARS]
        raise WorkspaceError(f"{shown!r}: only {', '.join(DOC_SUFFIXES)} files can be uploaded")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip(".-")[:MAX_NAME_CHARS].strip(".-")
    return f"{stem or 'document'}{suffix}"


def upload_label(name: str) -> str:
    """How to name an upload in progress and messages: its safe name, or for a file type
    that will be refused, its cleaned name (never raises)::

        >>> upload_label("notes.md\\x00.exe")
        'notes.md-.exe'
    """
    try:
        return safe_file_name(name)
    except WorkspaceError:
        base = Path(name.replace("\\", "/").replace("\x00", "-")).name
        return re.sub(r"[^A-Za-z0-9._-]+", "-", base)[:MAX_NAME_CHARS] or "document"


def check_document(
    file_name: str,
    data: bytes,
    progress: Progress | None = None,
    cache: PdfCache | None = None,
    staged: Path | None = None,
) -> tuple[Document, list[str]]:
    """Load ``data`` as the file ``file_name`` would be loaded; returns the document and its
    warnings, or raises :class:`WorkspaceError` with the loader's message. ``progress`` sees
    each PDF page; it may raise :class:`ragdash.ingestion.ingest.IngestCancelled` to stop.
    ``staged`` is the file already holding ``data`` (a workspace stages uploads in its own
    ``tmp/``); without it a private temporary folder is used."""
    if staged is None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / file_name
            path.write_bytes(data)
            return check_document(file_name, data, progress, cache, path)
    try:
        return load_document(staged, {}, 0, progress=progress, cache=cache)
    except IngestError as exc:
        raise WorkspaceError(f"{file_name!r} {exc}; nothing was saved") from None


#: Staging folders are named ``<pid>-<random>``; the pid says whether their owner lives.
_STAGE_NAME = re.compile(r"(\d+)-([0-9a-f]{16})")
#: The token file in each staging folder: ``{"format": STAGE_FORMAT, "token": <the random
#: part of the folder's name>, "files": {name: sha256}}``, written before the upload itself.
#: Only a folder that holds it, and nothing but the files it records with their recorded
#: hashes, is ragdash's to remove.
STAGE_MARKER = ".ragdash-staging"
STAGE_FORMAT = "ragdash-staging"
#: Largest token file read (it names one upload).
_MARKER_BYTES = 4096

_log = logging.getLogger("ragdash")


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _regular(path: Path) -> bool:
    """A regular file, not a link (``lstat``: a link is never followed)."""
    try:
        return path.lstat().st_mode & 0o170000 == 0o100000
    except OSError:
        return False


def _real_folder(path: Path) -> bool:
    try:
        return path.lstat().st_mode & 0o170000 == 0o040000
    except OSError:
        return False


def _proven_staging(folder: Path, token: str) -> list[Path] | None:
    """The files of ``folder`` when it is provably a staging folder ragdash wrote — a real
    folder holding its token file (with ``token``) and only the files that file records,
    each with its recorded SHA-256 — else None (then nothing in it is touched)."""
    marker = folder / STAGE_MARKER
    if not _real_folder(folder) or not _regular(marker):
        return None
    try:
        if marker.lstat().st_size > _MARKER_BYTES:
            return None
        data = json.loads(marker.read_text("utf-8"))
        entries = list(folder.iterdir())
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not (
        isinstance(data, dict) and data.get("format") == STAGE_FORMAT
        and data.get("token") == token and isinstance(data.get("files"), dict)
    ):  # fmt: skip
        return None
    files: dict[str, object] = data["files"]
    for entry in entries:
        if entry.name == STAGE_MARKER:
            continue
        if entry.name not in files or not _regular(entry):
            return None
        try:
            if file_sha256(entry) != files[entry.name]:
                return None
        except OSError:
            return None
    return [e for e in entries if e.name != STAGE_MARKER] + [marker]


class Workspace:
    """Uploads and edits under ``root``; see the module docstring for the layout."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.uploads = self.root / "uploads"
        self.edits_path = self.root / EDITS_FILE
        self.removed = self.root / "removed"
        self.cache = PdfCache(self.root / "cache" / "pdf")
        self.tmp = self.root / "tmp"

    def clean_stale_temp(self) -> list[str]:
        """Remove staging folders of uploads whose process is gone (a server killed with
        ``kill -9`` while it read a PDF leaves one); returns their names.

        Only what ragdash provably wrote goes: a folder named as :meth:`save_upload` names
        it, holding its token file (:data:`STAGE_MARKER`) and nothing but the upload it
        records, byte for byte (SHA-256). Folders of live processes — another server on the
        same workspace mid-upload — are kept, and so is every other entry (a user's own
        ``tmp/my-notes/``, a file). When ``tmp`` is a symbolic link nothing is touched and
        a warning is logged: ragdash never deletes through a link.

        >>> import tempfile; ws = Workspace(tempfile.mkdtemp())
        >>> (ws.tmp / "my-notes").mkdir(parents=True); ws.clean_stale_temp()
        []
        >>> (ws.tmp / "my-notes").is_dir()
        True
        """
        removed: list[str] = []
        if self.tmp.is_symlink():
            _log.warning(
                "%s is a symbolic link: ragdash removes nothing through it (left as it is)",
                self.tmp,
            )
            return removed
        if not _real_folder(self.tmp):
            return removed
        for entry in sorted(self.tmp.iterdir()):
            match = _STAGE_NAME.fullmatch(entry.name)
            if not match or _process_alive(int(match.group(1))):
                continue
            files = _proven_staging(entry, match.group(2))
            if files is None:
                continue
            for path in files:
                path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                entry.rmdir()  # only when empty: something added meanwhile stays
                removed.append(entry.name)
        return removed

    def _stage(self, file_name: str, data: bytes) -> Path:
        """Write ``data`` to a new staging folder of this process, its token file first
        (recording the upload's SHA-256), so a later start can prove the folder is
        ragdash's."""
        if self.tmp.is_symlink():
            raise WorkspaceError(
                f"{self.tmp} is a symbolic link: ragdash checks uploads only in a real "
                "folder of the workspace (remove the link); nothing was saved"
            )
        token = secrets.token_hex(8)
        folder = self.tmp / f"{os.getpid()}-{token}"
        folder.mkdir(parents=True)
        marker = {
            "format": STAGE_FORMAT,
            "token": token,
            "files": {file_name: hashlib.sha256(data).hexdigest()},
        }
        (folder / STAGE_MARKER).write_text(json.dumps(marker), "utf-8")
        path = folder / file_name
        with open(path, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return path

    def _unstage(self, staged: Path) -> None:
        """Remove what :meth:`_stage` wrote (the upload, if still there, and the token
        file) and its folder when that is then empty."""
        for path in (staged, staged.parent / STAGE_MARKER):
            with contextlib.suppress(OSError):
                path.unlink()
        with contextlib.suppress(OSError):
            staged.parent.rmdir()

    def _ensure(self) -> None:
        self.uploads.mkdir(parents=True, exist_ok=True)

    def upload_names(self) -> list[str]:
        if not self.uploads.is_dir():
            return []
        return sorted(p.name for p in self.uploads.iterdir() if p.suffix.lower() in DOC_SUFFIXES)

    def save_upload(
        self,
        name: str,
        data: bytes,
        replace_existing: bool = False,
        progress: Progress | None = None,
        passage_room: int | None = None,
    ) -> SavedUpload:
        """Check that an uploaded file loads, then store it atomically.

        Returns the stored file name, the loader's warnings and the passage count. Raises
        :class:`WorkspaceError` naming the problem (nothing is saved) for an unsupported
        type, an empty or oversized file, one that cannot be loaded (corrupt, encrypted,
        image-only PDF, …), one with more passages than ``passage_room`` (what the corpus
        limit leaves), or when ``progress`` cancels the check.
        """
        file_name = safe_file_name(name)
        if not data:
            raise WorkspaceError(f"{file_name!r} is empty (0 bytes); nothing was saved")
        if len(data) > MAX_UPLOAD_BYTES:
            mib = MAX_UPLOAD_BYTES // (1024 * 1024)
            raise WorkspaceError(f"{file_name!r} is larger than {mib} MiB; nothing was saved")
        # Staged in the workspace's tmp/ and checked there: stopping mid-way leaves uploads/
        # as it was, and a kill -9 leaves only a staging folder that the next start removes.
        staged = self._stage(file_name, data)
        try:
            document, warnings = check_document(
                file_name, data, progress, self.cache, staged=staged
            )
            count = passage_count(document)
            if passage_room is not None and count > passage_room:
                raise WorkspaceError(
                    f"{file_name!r} has {count:,} passages, more than the "
                    f"{max(passage_room, 0):,} the corpus limit leaves room for; nothing was saved"
                )
            self._ensure()
            target = self.uploads / file_name
            if replace_existing:
                os.replace(staged, target)  # atomic: the old file or the new one, never half
            else:
                try:
                    os.link(staged, target)  # atomic and never over an existing upload
                except FileExistsError:
                    raise WorkspaceError(
                        f"{file_name!r} is already uploaded; remove it first to replace it"
                    ) from None
                except OSError:  # a file system without hard links
                    if target.exists():
                        raise WorkspaceError(
                            f"{file_name!r} is already uploaded; remove it first to replace it"
                        ) from None
                    os.replace(staged, target)
        finally:
            self._unstage(staged)
            with contextlib.suppress(OSError):
                self.tmp.rmdir()  # only when no other upload is being checked
        return SavedUpload(file_name, warnings, count)

    def remove_upload(self, name: str) -> Path:
        """Move an uploaded file to ``removed/`` (kept, never deleted); returns its new path."""
        source = self.uploads / Path(name).name
        if not source.is_file():
            raise WorkspaceError(f"{name!r} is not an uploaded document")
        self.removed.mkdir(parents=True, exist_ok=True)
        target = self.removed / f"{time.strftime('%Y%m%d-%H%M%S')}-{source.name}"
        shutil.move(str(source), target)
        with file_lock(self.edits_path):
            edits, _ = self.read_edits()
            if source.name in edits:
                del edits[source.name]
                self._write_edits(edits)
        return target

    def read_edits(self) -> tuple[dict[str, dict[str, str]], list[IngestMessage]]:
        """The saved metadata edits, and any problem reading them (the file is kept)."""
        if not self.edits_path.is_file():
            return {}, []
        rows, messages = read_metadata_csv(self.edits_path)
        rows = [  # written with escape_cell (safe in a spreadsheet): read back exactly
            (unescape_cell(name), {k: unescape_cell(v) for k, v in fields.items()})
            for name, fields in rows
        ]
        return dict(rows), [
            IngestMessage(f"workspace/{m.source}", m.level, m.message) for m in messages
        ]

    def _write_edits(self, edits: Mapping[str, Mapping[str, str]]) -> None:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["file", *METADATA_FIELDS])
        for name in sorted(edits):
            row = [name, *(edits[name].get(f, "") for f in METADATA_FIELDS)]
            writer.writerow([escape_cell(v) for v in row])  # no formula once opened in Excel
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write(self.edits_path, buffer.getvalue().encode("utf-8"))

    def save_edit(self, corpus: Corpus, source: str, fields: Mapping[str, str]) -> None:
        """Validate and save new metadata for the document loaded from ``source``.

        Raises :class:`WorkspaceError` (nothing saved) for an empty or duplicate id, a bad
        date or an unknown status.
        """
        clean = {k: (fields.get(k) or "").strip() for k in METADATA_FIELDS}
        if not clean["id"]:
            raise WorkspaceError("the document id cannot be empty")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", clean["id"]):
            raise WorkspaceError(
                f"id {clean['id']!r}: use letters, digits, '.', '_' or '-' (no spaces)"
            )
        if clean["updated"]:
            try:
                parse_date(clean["updated"])
            except IngestError as exc:
                raise WorkspaceError(str(exc)) from None
        clean["status"] = clean["status"].lower() or "current"
        if clean["status"] not in STATUSES:
            raise WorkspaceError(f"status must be one of {', '.join(STATUSES)}")
        # Read, check and write under one lock (threads and processes alike): with the id
        # check outside it, two saves giving two documents one new id were both accepted and
        # one document then dropped out of the corpus ("duplicate id … skipped").
        with file_lock(self.edits_path):
            edits, messages = self.read_edits()
            if any(m.level == "error" for m in messages):
                raise WorkspaceError(
                    f"{self.edits_path.name} cannot be read, so it was not overwritten: "
                    + "; ".join(m.message for m in messages)
                )
            owner = _id_owner(corpus, edits, source, clean["id"])
            if owner is not None:
                raise WorkspaceError(
                    f"id {clean['id']!r} is already used by {owner}; nothing was saved"
                )
            edits[source] = clean
            self._write_edits(edits)

    def load(
        self, docs: str | Path, progress: Progress | None = None, limit: int | None = None
    ) -> Corpus:
        """The docs folder, then the uploads, with saved edits applied; duplicate ids
        across the two keep the first and report the second. Documents past the passage
        ``limit`` (default :func:`ragdash.ingestion.segmentation.max_passages`) are left out with a
        message."""
        base = load_folder(docs, progress=progress, cache=self.cache)
        parts = [base]
        if self.upload_names():
            parts.append(load_folder(self.uploads, progress=progress, cache=self.cache))
        edits, messages = self.read_edits()
        merged = merge_corpora(parts, edits, messages)
        return cap_passages(merged, max_passages() if limit is None else limit)


def _id_owner(
    corpus: Corpus, edits: Mapping[str, Mapping[str, str]], source: str, doc_id: str
) -> str | None:
    """The source of another document that holds ``doc_id`` now: the corpus the page
    shows, with the edits just read from disk laid over it (a save that another session
    made since the page loaded counts), or None when the id is free."""
    for doc in corpus.documents:
        if doc.source == source:
            continue
        if (edits.get(doc.source, {}).get("id") or doc.doc_id) == doc_id:
            return doc.source
    return None


def apply_edit(doc: Document, edit: Mapping[str, str]) -> tuple[Document, list[str]]:
    """A document with saved edits applied, and warnings for edits that do not parse."""
    warnings = []
    changes: dict[str, Any] = {}
    if edit.get("id"):
        changes["doc_id"] = edit["id"]
    if edit.get("subject"):
        changes["subject"] = edit["subject"]
    if edit.get("updated"):
        try:
            changes["updated"] = parse_date(edit["updated"])
        except IngestError as exc:
            warnings.append(f"saved edit ignored: {exc}")
    if edit.get("status"):
        if edit["status"] in STATUSES:
            changes["status"] = edit["status"]
        else:
            warnings.append(f"saved edit ignored: status {edit['status']!r}")
    return (replace(doc, **changes) if changes else doc), warnings


def merge_corpora(
    parts: list[Corpus],
    edits: Mapping[str, Mapping[str, str]] | None = None,
    messages: list[IngestMessage] | None = None,
) -> Corpus:
    """Concatenate corpora in order (renumbering list order), apply edits keyed by file
    name, and refuse duplicate ids with a message."""
    documents: list[Document] = []
    notes: list[IngestMessage] = list(messages or [])
    owner: dict[str, str] = {}
    for part in parts:
        notes.extend(part.messages)
        for doc in part.documents:
            doc, warnings = apply_edit(doc, (edits or {}).get(doc.source, {}))
            notes.extend(IngestMessage(doc.source, "warning", w) for w in warnings)
            if doc.doc_id in owner:
                notes.append(
                    IngestMessage(
                        doc.source,
                        "error",
                        f"duplicate id {doc.doc_id!r} (already used by {owner[doc.doc_id]}); "
                        "document skipped — give it another id",
                    )
                )
                continue
            owner[doc.doc_id] = doc.source
            documents.append(replace(doc, order=len(documents)))
    return Corpus(tuple(documents), tuple(notes))
