"""Where the dashboard's data comes from, and the cached index over it."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from ragdash.checks.proof import Case
from ragdash.errors import IngestError
from ragdash.ingestion.segmentation import max_passages
from ragdash.ingestion.workspace import Workspace
from ragdash.retrieval.index import CorpusIndex
from ragdash.storage.case_store import library_path, workspace_cases
from ragdash.ui.render import literal

#: A checkout's bundled testbed; an installed package falls back to ./sample_docs.
CHECKOUT_DOCS = Path(__file__).resolve().parents[2] / "sample_docs"
DEFAULT_DOCS = CHECKOUT_DOCS if CHECKOUT_DOCS.is_dir() else Path("sample_docs")


@dataclass(frozen=True)
class Settings:
    """Folders the dashboard reads: ``--docs`` / ``RAGDASH_DOCS`` (default ``sample_docs``)
    and ``--workspace`` / ``RAGDASH_WORKSPACE`` (default ``./workspace``)."""

    docs: Path
    workspace: Path


def settings_from(argv: list[str], environ: dict[str, str]) -> Settings:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--docs")
    parser.add_argument("--workspace")
    args, _ = parser.parse_known_args(argv)
    docs = args.docs or environ.get("RAGDASH_DOCS") or str(DEFAULT_DOCS)
    workspace = args.workspace or environ.get("RAGDASH_WORKSPACE") or "workspace"
    return Settings(Path(docs).expanduser().resolve(), Path(workspace).expanduser().resolve())


def settings() -> Settings:
    return settings_from(sys.argv[1:], dict(os.environ))


def workspace() -> Workspace:
    return Workspace(settings().workspace)


def _fingerprint(paths: list[Path]) -> tuple:
    """Names, sizes and modification times: a cheap key that changes when any file does."""
    entries = []
    for folder in paths:
        if folder.is_file():
            stat = folder.stat()
            entries.append((str(folder), stat.st_size, stat.st_mtime_ns))
        elif folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.is_file():
                    stat = path.stat()
                    entries.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(entries)


@st.cache_resource(show_spinner="Reading documents…", max_entries=4)
def _load_index(docs: str, workspace_root: str, fingerprint: tuple, limit: int) -> CorpusIndex:
    corpus = Workspace(workspace_root).load(docs, limit=limit)
    index = CorpusIndex(corpus)
    index.passages(False)
    index.passages(True)
    return index


def fingerprint_key() -> tuple:
    """Changes whenever a document, an upload or a metadata edit changes."""
    config = settings()
    ws = Workspace(config.workspace)
    return _fingerprint([config.docs, ws.uploads, ws.edits_path])


def current_index(quiet: bool = False) -> CorpusIndex | None:
    """The shared index of the docs folder plus uploads; rebuilt only when a file changes.
    Returns None if the docs folder cannot be read, and says so unless ``quiet`` (the app
    shell says it once per run; the pages ask again quietly)."""
    config = settings()
    key = fingerprint_key()
    try:
        return _load_index(str(config.docs), str(config.workspace), key, max_passages())
    except IngestError as exc:
        if not quiet:
            st.error(
                f"Cannot load documents: {literal(str(exc))}. Start the dashboard with "
                "`--docs DIR` (`streamlit run app.py -- --docs DIR`) or set RAGDASH_DOCS "
                "to a folder of .md, .txt or .pdf files. The Guided tour still runs on the "
                "bundled samples.",
                icon=":material/folder_off:",
            )
        return None


def case_library() -> tuple[list[Case], list[str]]:
    """The cases the dashboard sees — the docs folder's ``cases.json`` and the workspace's
    case library (:func:`ragdash.storage.case_store.workspace_cases`) — with problems."""
    config = settings()
    found = workspace_cases(config.docs, config.workspace)
    return list(found.cases), list(found.problems)


def library_file() -> Path:
    """The workspace's SQLite case library (see :mod:`ragdash.storage.library`)."""
    return library_path(settings().workspace)


def source_path(source: str) -> Path | None:
    """The file a document was loaded from: the docs folder first, then the uploads."""
    config = settings()
    for folder in (config.docs, Workspace(config.workspace).uploads):
        path = folder / source
        if path.is_file():
            return path
    return None
