"""The one case store: where the cases a workspace sees come from and where new ones go.

Cases come from two places: the docs folder's ``cases.json`` (bundled with the documents,
read-only) and the workspace's SQLite case library (``workspace/library.sqlite``), where the
Test suite and Triage pages both save. An older workspace kept the Test suite's cases in
``workspace/cases.json``; :func:`workspace_cases` imports that file into the library once
and renames it ``cases.json.imported`` — nothing is lost and nothing is imported twice.

The CLI (``ragdash check --workspace DIR``) and the dashboard read cases through
:func:`workspace_cases`, so both see exactly the same cases::

    >>> found = workspace_cases("docs", "workspace")          # doctest: +SKIP
    >>> [c.name for c in found.cases][:2], found.problems      # doctest: +SKIP
    (['stale-version', 'ocr-noise'], ())
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from ragdash.bundled import SAMPLES, SAMPLES_WORD
from ragdash.case import Case
from ragdash.checks.cases import MAX_CASES, read_cases_file
from ragdash.errors import CaseFileError, LibraryError
from ragdash.storage.library import SQLITE_HEADER, CaseLibrary

__all__ = [
    "CASES_FILE",
    "LIBRARY_FILE",
    "CaseSet",
    "add_case",
    "check_command",
    "import_legacy_cases",
    "library_path",
    "load_cases",
    "open_library",
    "workspace_cases",
]

CASES_FILE = "cases.json"
LIBRARY_FILE = "library.sqlite"
IMPORTED_SUFFIX = ".imported"


@dataclass(frozen=True)
class CaseSet:
    """The cases a workspace sees, in order (bundled first), and what could not be read."""

    cases: tuple[Case, ...]
    problems: tuple[str, ...] = ()


#: File names read as a case library even when they do not start with SQLite's header: an
#: empty or damaged ``library.sqlite`` is named as the library it was, not as bad JSON.
LIBRARY_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def load_cases(path: str | Path, problems: list[str] | None = None) -> list[Case]:
    """Read a cases file — ``cases.json``, or a SQLite case library (recognized by its
    header or its ``.sqlite`` name). Raises :class:`CaseFileError` with a one-line reason.

    A library holding more than :data:`~ragdash.checks.cases.MAX_CASES` cases (an older
    ragdash imported any number) gives its oldest ``MAX_CASES`` and says so in ``problems``,
    and a damaged case in it is left out and named there; without a ``problems`` list
    either is refused like a bad cases file."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        reason = exc.strerror or exc
        raise CaseFileError(f"cannot read cases file {str(path)!r}: {reason}") from None
    if header == SQLITE_HEADER or path.suffix.lower() in LIBRARY_SUFFIXES:
        try:
            library = CaseLibrary(path, read_only=True)
            count = library.count()
            if count > MAX_CASES:
                over = (
                    f"case library {str(path)!r} holds {count:,} cases; the limit is "
                    f"{MAX_CASES:,}"
                )
                if problems is None:
                    raise CaseFileError(over)
                problems.append(f"{over}: only the oldest {MAX_CASES:,} are used")
                return library.cases(limit=MAX_CASES, damaged=problems)
            return library.cases(damaged=problems)  # (None: a damaged case raises)
        except LibraryError as exc:
            raise CaseFileError(str(exc)) from None
    return read_cases_file(path)


def library_path(workspace: str | Path) -> Path:
    """The workspace's SQLite case library."""
    return Path(workspace) / LIBRARY_FILE


def open_library(workspace: str | Path, create: bool = False) -> CaseLibrary | None:
    """The workspace's case library; ``None`` when there is none yet and ``create`` is off.
    Raises :class:`LibraryError` when the file cannot be used (it is never overwritten)."""
    path = library_path(workspace)
    if not create and not path.exists():
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return CaseLibrary(path)
    except OSError as exc:
        raise LibraryError(f"case library {str(path)!r}: {exc.strerror or exc}") from None


def import_legacy_cases(workspace: str | Path) -> str | None:
    """Move an older workspace's ``cases.json`` into the library, once. Returns a sentence
    saying what happened, or ``None`` when there was nothing to import. Raises
    :class:`CaseFileError` / :class:`LibraryError`; the file is then left where it is."""
    legacy = Path(workspace) / CASES_FILE
    if not legacy.is_file():
        return None
    cases = read_cases_file(legacy)
    library = open_library(workspace, create=True)
    assert library is not None
    result = library.import_cases(cases)
    legacy.replace(legacy.with_name(CASES_FILE + IMPORTED_SUFFIX))
    kept = f"; {len(result.skipped)} already there kept" if result.skipped else ""
    return (
        f"imported {len(result.added)} case(s) from {str(legacy)!r} into the case library"
        f"{kept}; the file is kept as {CASES_FILE + IMPORTED_SUFFIX}"
    )


def workspace_cases(docs: str | Path, workspace: str | Path | None) -> CaseSet:
    """The docs folder's ``cases.json`` then the workspace library's cases (after the
    one-time import of a legacy ``workspace/cases.json``). A case whose name is already
    taken is skipped with a problem; an unreadable source is a problem, not an error."""
    cases: list[Case] = []
    problems: list[str] = []
    names: set[str] = set()
    sources: list[Path] = [Path(docs) / CASES_FILE]
    if workspace is not None:
        try:
            import_legacy_cases(workspace)
        except (CaseFileError, LibraryError, OSError) as exc:
            problems.append(f"not imported: {exc}")
        sources.append(library_path(workspace))
    for path in sources:
        if not path.is_file():
            continue
        try:
            loaded = load_cases(path, problems)
        except CaseFileError as exc:
            problems.append(str(exc))
            continue
        for case in loaded:
            if case.name in names:
                problems.append(f"{path}: case {case.name!r} repeats a name; skipped")
                continue
            names.add(case.name)
            cases.append(case)
    return CaseSet(tuple(cases), tuple(problems))


def add_case(workspace: str | Path, case: Case, status: str = "open") -> None:
    """Save a new case to the workspace's library. Raises :class:`LibraryError` (a name
    already taken, a file that cannot be used); nothing is written then."""
    library = open_library(workspace, create=True)
    assert library is not None
    if library.get(case.name) is not None:
        raise LibraryError(f"a case named {case.name!r} already exists")
    library.add(case, status=status)


def check_command(docs: str | Path, workspace: str | Path) -> str:
    """The shell command that checks every case the dashboard sees, as the CLI and the pages
    print it (the bundled samples by their word, not by a path inside site-packages)::

        >>> from ragdash.bundled import SAMPLES
        >>> check_command(SAMPLES, "ws")
        'ragdash check --docs samples --workspace ws --fixes all'
    """
    shown = SAMPLES_WORD if Path(docs).resolve() == SAMPLES.resolve() else str(docs)
    return (
        f"ragdash check --docs {shlex.quote(shown)} "
        f"--workspace {shlex.quote(str(workspace))} --fixes all"
    )
