"""Where the dashboard's data comes from, and the cached index over it."""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TypeVar, cast

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ragdash.bundled import SAMPLES, SAMPLES_WORD, docs_path
from ragdash.case import Case
from ragdash.errors import IngestError, SettingsError
from ragdash.ingestion.segmentation import max_passages
from ragdash.ingestion.workspace import Workspace
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.options import ENVIRONMENT, parse_spec, spec_from_environ
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import FIX_NAMES, Fixes
from ragdash.storage.case_store import library_path, workspace_cases
from ragdash.ui.text import literal

__all__ = [
    "DEFAULT_DOCS",
    "Settings",
    "case_library",
    "current_index",
    "ensure_index",
    "error_text",
    "fingerprint_key",
    "hide_paths",
    "library_file",
    "once_per_run",
    "settings",
    "settings_from",
    "source_path",
    "workspace",
]

T = TypeVar("T")
#: (session context id, name) → (the run's marker, value): see :func:`once_per_run`.
_PER_RUN: dict[tuple[int, str], tuple[object, object]] = {}

#: The bundled samples (package data): the default docs folder and the tour's corpus.
DEFAULT_DOCS = SAMPLES


@dataclass(frozen=True)
class Settings:
    """What whoever started the dashboard chose: the folders it reads — ``--docs`` /
    ``RAGDASH_DOCS`` (default: the bundled samples, also named by the word ``samples``) and
    ``--workspace`` / ``RAGDASH_WORKSPACE`` (default ``./workspace``) — and the retriever it
    offers beside ragdash's own scorers — ``--retriever …`` or the ``RAGDASH_RETRIEVER``
    variables
    (:mod:`ragdash.retrieval.options`). ``retriever_problem`` says why a named retriever
    cannot be used (then ``retriever`` is the seed scorer)."""

    docs: Path
    workspace: Path
    retriever: RetrieverSpec = field(default_factory=RetrieverSpec)
    retriever_problem: str = ""


def settings_from(argv: list[str], environ: dict[str, str]) -> Settings:
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--docs")
    parser.add_argument("--workspace")
    args, _ = parser.parse_known_args(argv)
    docs = docs_path(args.docs or environ.get("RAGDASH_DOCS") or SAMPLES_WORD)
    workspace = args.workspace or environ.get("RAGDASH_WORKSPACE") or "workspace"
    named = tuple(environ.get(variable, "") for variable in ENVIRONMENT.values())
    retriever, problem = _operator_retriever(tuple(argv), named)
    return Settings(
        docs.expanduser().resolve(),
        Path(workspace).expanduser().resolve(),
        retriever,
        problem,
    )


@lru_cache(maxsize=16)
def _operator_retriever(argv: tuple[str, ...], named: tuple[str, ...]) -> tuple[RetrieverSpec, str]:
    """The retriever the command line (else the ``RAGDASH_*`` variables, ``named`` in
    :data:`ENVIRONMENT`'s order) names, and why it cannot be used ('' when it can); cached,
    as pages ask for the settings many times a run."""
    try:
        environ = dict(zip(ENVIRONMENT.values(), named, strict=True))
        return parse_spec(argv) or spec_from_environ(environ), ""
    except SettingsError as exc:
        return RetrieverSpec(), str(exc)


def settings() -> Settings:
    return settings_from(sys.argv[1:], dict(os.environ))


#: An absolute path of two parts or more, not inside a URL, a date or a word.
_ABSOLUTE = re.compile(r"""(?<![\w.:/~-])/(?:[^\s/'"]+/)+([^\s/'"]+)""")


def hide_paths(text: str, roots: dict[Path, str] | None = None) -> str:
    """``text`` without server paths: the docs folder and the workspace become ``docs`` and
    ``workspace`` (the names the pages use), any other absolute path its file name::

        >>> hide_paths("cannot read '/srv/ws/library.sqlite'", {Path("/srv/ws"): "workspace"})
        "cannot read 'workspace/library.sqlite'"
        >>> hide_paths("[Errno 13] Permission denied: '/etc/ragdash/notes.md'", {})
        "[Errno 13] Permission denied: 'notes.md'"
        >>> hide_paths("see http://127.0.0.1:8000/search on 2026/01/05", {})
        'see http://127.0.0.1:8000/search on 2026/01/05'
    """
    if roots is None:
        config = settings()
        roots = {config.workspace: "workspace", config.docs: "docs"}
    for root, name in sorted(roots.items(), key=lambda item: -len(str(item[0]))):
        text = text.replace(str(root), name)
    return _ABSOLUTE.sub(lambda m: m.group(1), text)


def error_text(exc: BaseException) -> str:
    """An error as every page shows it: its message without server paths
    (:func:`hide_paths`), escaped as text (:func:`ragdash.ui.text.literal`)."""
    return literal(hide_paths(str(exc)))


def workspace() -> Workspace:
    ws = Workspace(settings().workspace)
    _clean_on_start(str(ws.root))
    return ws


@st.cache_resource(show_spinner=False)
def _clean_on_start(root: str) -> tuple[str, ...]:
    """Once per server process and workspace: remove uploads left half-checked in the
    workspace's ``tmp/`` by a server that was killed (``kill -9``) while reading them."""
    return tuple(Workspace(root).clean_stale_temp())


def _fingerprint(paths: list[Path]) -> tuple:
    """Names, sizes and modification times: a cheap key that changes when any file does.

    Kept short — one digest of all entries, not a tuple of ten thousand — because every
    cached function on every page takes it as part of its key and Streamlit hashes its
    arguments on each call (a 10,000-file tuple took 0.23 s to hash, per call)."""
    digest = hashlib.blake2b(digest_size=16)
    count = 0
    for folder in paths:
        if folder.is_file():
            stat = folder.stat()
            digest.update(f"{folder}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
            count += 1
        elif folder.is_dir():
            with os.scandir(folder) as entries:
                found = sorted(e.path for e in entries if e.is_file())
            for path in found:
                try:
                    stat = os.stat(path)
                except OSError:  # removed while listing: the next run sees it gone
                    continue
                digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
                count += 1
    return (digest.hexdigest(), count)


def once_per_run(name: str, compute: Callable[[], T]) -> T:
    """``compute()`` at most once per script run (the app shell and the page both ask for
    the corpus key; listing a 10,000-file folder twice per rerun was a tenth of a second).
    Outside a Streamlit run it is simply computed."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return compute()
    marker = ctx.cursors  # a new dict at the start of every run of this session
    key = (id(ctx), name)
    hit = _PER_RUN.get(key)
    if hit is not None and hit[0] is marker:
        return cast(T, hit[1])  # stored by this function for this name: a T
    value = compute()
    _PER_RUN[key] = (marker, value)
    return value


@st.cache_resource(show_spinner="Reading documents and building the index…", max_entries=4)
def _load_index(docs: str, workspace_root: str, fingerprint: tuple, limit: int) -> CorpusIndex:
    corpus = Workspace(workspace_root).load(docs, limit=limit)
    index = CorpusIndex(corpus)
    index.passages(False)
    index.passages(True)
    # One query with every fix but the Unicode tokenizer (which needs an index of its own)
    # builds what the fixes build on first use — version families, fuzzy pools, OCR
    # groups — here, under the first load's spinner, instead of in a later rerun (about
    # 4 s at 100,000 passages).
    warm = Fixes().with_only([name for name in FIX_NAMES if name != "unicode"])
    index.top("ragdash", warm, 1)
    return index


def fingerprint_key() -> tuple:
    """Changes whenever a document, an upload or a metadata edit changes (read once per
    script run)."""

    def compute() -> tuple:
        config = settings()
        ws = Workspace(config.workspace)
        return _fingerprint([config.docs, ws.uploads, ws.edits_path])

    return once_per_run("fingerprint", compute)


def current_index(quiet: bool = False) -> CorpusIndex | None:
    """The shared index of the docs folder plus uploads; rebuilt only when a file changes.
    Returns None if the docs folder cannot be read, and says so unless ``quiet`` (the app
    shell says it once per run; the pages ask again quietly)."""
    config = settings()
    _clean_on_start(str(config.workspace))
    key = fingerprint_key()
    try:
        return _load_index(str(config.docs), str(config.workspace), key, max_passages())
    except IngestError as exc:
        if not quiet:
            st.error(
                f"Cannot load documents: {error_text(exc)}. Start the dashboard "
                "with `--docs DIR` (`streamlit run app.py -- --docs DIR`) or set RAGDASH_DOCS "
                "to a folder of .md, .txt or .pdf files. The Guided tour still runs on the "
                "bundled samples.",
                icon=":material/folder_off:",
            )
        return None


def ensure_index(index: CorpusIndex, fixes: Fixes) -> None:
    """Build the inverted index ``fixes`` rank with — the Unicode tokenizer's, or the tables
    fix's when PDFs re-cut — under a spinner: the first switch to one of them re-tokenizes
    the corpus (about 13 s at 100,000 passages) and the page would otherwise just hang.
    Once built it is kept with the cached index, and this is a dictionary look-up."""
    if not (fixes.unicode or fixes.tables):
        return
    with st.spinner(
        "Building the index for this tokenizer / passage cut (once per corpus)…", show_time=True
    ):
        index.inverted(fixes.tables, fixes.unicode)


def case_library() -> tuple[list[Case], list[str]]:
    """The cases the dashboard sees — the docs folder's ``cases.json`` and the workspace's
    case library (:func:`ragdash.storage.case_store.workspace_cases`) — with problems."""
    config = settings()
    found = workspace_cases(config.docs, config.workspace)
    return list(found.cases), [hide_paths(p) for p in found.problems]


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
