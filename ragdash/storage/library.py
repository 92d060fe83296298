"""The case library: proof-check cases in one SQLite file (stdlib ``sqlite3``), each with a
status (open, diagnosed, fixed), notes, timestamps and the history of its runs.

Schema (``PRAGMA user_version`` = 2)::

    cases(name PK, query, expected_id, evidence JSON list, top_k, kind, note,
          status, created, updated)
    runs(id PK, case_name → cases.name, configuration, passed, diagnosis, at)
    saved_runs(id PK, name, at, retriever_label, fixes_label, corpus_fingerprint,
               passed, total, metrics JSON, data JSON)         -- since schema 2

``runs`` is each case's history; ``saved_runs`` holds whole runs (``ragdash check
--save-run``, the Test suite's *Save this run*): the summary in columns, so listing a
hundred runs reads no case (:meth:`CaseLibrary.run_summaries`), and the full
:class:`ragdash.checks.snapshot.SavedRun` (cases, documents, metrics, ablation) as its
run-file JSON. A schema-1 library is migrated on first open by adding the table — nothing
in it is rewritten or lost.

Safety rules:

* Opening checks the file before anything is written: a file that is not SQLite, or fails
  ``PRAGMA quick_check``, or is some other program's database raises :class:`LibraryError`
  and is left byte-for-byte as it was.
* Every write is one transaction (``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on error);
  the database runs in WAL mode with a busy timeout, so two processes can write at once.
* A database still locked after the timeout raises ``LibraryError`` saying it is locked.
* The limits of a cases file hold here too (:mod:`ragdash.checks.cases`): every case added
  or imported is checked field by field, and the library holds at most
  :data:`~ragdash.checks.cases.MAX_CASES` cases — an import that would pass it is refused
  whole.
* A damaged saved run (cut-short or deeply nested JSON, a number too long to read) is a
  :class:`RunError` naming it, never an exception that takes the page down; it can still be
  deleted.

A connection is opened per operation, so one :class:`CaseLibrary` can be shared by threads.
"""

from __future__ import annotations

import builtins  # CaseLibrary.list hides the builtin in the class's annotations
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ragdash.atomic import file_lock
from ragdash.case import Case
from ragdash.checks.cases import MAX_CASES, case_from_dict, case_to_dict
from ragdash.checks.proof import ProofCheck, check_case
from ragdash.checks.snapshot import SavedRun
from ragdash.errors import CaseFileError, LibraryError, RunError
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.spec import shown_kind
from ragdash.settings import Fixes

__all__ = [
    "CaseLibrary",
    "DEFAULT_TIMEOUT",
    "ImportResult",
    "LibraryCase",
    "MAX_RUN_DEPTH",
    "Run",
    "RunSummary",
    "SCHEMA",
    "SCHEMA_VERSION",
    "SQLITE_HEADER",
    "STATUSES",
    "is_sqlite_file",
    "now_iso",
    "rerun_and_record",
]

SQLITE_HEADER = b"SQLite format 3\x00"
STATUSES = ("open", "diagnosed", "fixed")
SCHEMA_VERSION = 2
DEFAULT_TIMEOUT = 5.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS cases (
    name TEXT PRIMARY KEY,
    query TEXT NOT NULL,
    expected_id TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT '[]',
    top_k INTEGER NOT NULL DEFAULT 1 CHECK (top_k >= 1),
    kind TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'diagnosed', 'fixed')),
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    case_name TEXT NOT NULL REFERENCES cases(name) ON DELETE CASCADE ON UPDATE CASCADE,
    configuration TEXT NOT NULL,
    passed INTEGER NOT NULL,
    diagnosis TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_case ON runs(case_name, id);
CREATE TABLE IF NOT EXISTS saved_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL,
    retriever_label TEXT NOT NULL,
    fixes_label TEXT NOT NULL,
    corpus_fingerprint TEXT NOT NULL,
    passed INTEGER NOT NULL,
    total INTEGER NOT NULL,
    metrics TEXT NOT NULL DEFAULT '{}',
    data TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class LibraryCase:
    """A case as the library holds it."""

    case: Case
    status: str
    created: str  # ISO 8601, UTC
    updated: str

    @property
    def name(self) -> str:
        return self.case.name


@dataclass(frozen=True)
class Run:
    """One run of a case under one configuration."""

    case_name: str
    configuration: str
    passed: bool
    diagnosis: str
    at: str


@dataclass(frozen=True)
class RunSummary:
    """A saved run as ``ragdash runs list`` and the Test suite list it."""

    id: int
    name: str
    at: str
    retriever_label: str
    fixes_label: str
    corpus_fingerprint: str
    passed: int
    total: int
    metrics: tuple[tuple[str, object], ...] = ()

    @property
    def mrr(self) -> float | None:
        value = dict(self.metrics).get("mrr")
        return value if isinstance(value, int | float) else None

    @property
    def label(self) -> str:
        """``#2 all fixes — all (…) · 8/8``: how a picker names it."""
        name = f" {self.name}" if self.name else ""
        return f"#{self.id}{name} — {self.fixes_label} · {self.passed}/{self.total}"


@dataclass(frozen=True)
class ImportResult:
    added: tuple[str, ...]
    updated: tuple[str, ...]
    skipped: tuple[str, ...]  # already present and not replaced


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def is_sqlite_file(path: str | Path) -> bool:
    """Whether ``path`` starts with the SQLite header (``SQLite format 3\\0``)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _is_locked(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class CaseLibrary:
    """The SQLite case library at ``path`` (created on first write unless ``read_only``)."""

    def __init__(
        self, path: str | Path, timeout: float = DEFAULT_TIMEOUT, read_only: bool = False
    ) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.read_only = read_only
        if read_only:
            self._check_file()
            return
        if not self.path.parent.is_dir():
            raise LibraryError(f"{self._where()}: folder {str(self.path.parent)!r} is missing")
        # Creation under a lock: a second process never sees the first one's half-made
        # (0-byte) file, which is otherwise refused as an emptied library.
        with file_lock(self.path):
            self._check_file()
            self._init_schema()

    # -- opening -------------------------------------------------------------------------

    def _where(self) -> str:
        return f"case library {str(self.path)!r}"

    def _check_file(self) -> None:
        """Refuse a file that is not a healthy ragdash library, without writing to it."""
        if not self.path.exists():
            if self.path.is_symlink():  # dangling: SQLite would create it at the target
                raise LibraryError(
                    f"{self._where()} is a symbolic link to a missing file "
                    f"({os.readlink(self.path)!r}): ragdash does not create a library at a "
                    "link's target; remove the link or point it at an existing library"
                )
            if self.read_only:
                raise LibraryError(f"{self._where()} does not exist")
            if not self.path.parent.is_dir():
                raise LibraryError(f"{self._where()}: folder {str(self.path.parent)!r} is missing")
            return
        if self.path.is_dir():
            raise LibraryError(f"{self._where()} is a folder, not a file")
        try:
            size = self.path.stat().st_size
        except OSError as exc:
            raise LibraryError(f"{self._where()} cannot be read: {exc.strerror or exc}") from None
        if size == 0:
            # SQLite would take an empty file for a new database; a library that was
            # emptied by accident must be noticed, not silently replaced
            raise LibraryError(
                f"{self._where()} is empty (0 bytes): it is not a case library; remove it "
                "to start a new one. It was left as it is"
            )
        if not is_sqlite_file(self.path):
            raise LibraryError(
                f"{self._where()} is not an SQLite database (corrupt or another kind of "
                "file); it was left as it is"
            )
        try:
            with self._connection(mode="ro") as conn:
                rows = conn.execute("PRAGMA quick_check").fetchall()
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError as exc:
            if _is_locked(exc):
                raise self._locked() from None
            raise LibraryError(
                f"{self._where()} is corrupt ({exc}); it was left as it is"
            ) from None
        problems = [r[0] for r in rows if r[0] != "ok"]
        if problems:
            raise LibraryError(
                f"{self._where()} is corrupt ({'; '.join(problems[:3])}); it was left as it is"
            )
        if tables and not {"cases", "runs"} <= tables:
            raise LibraryError(
                f"{self._where()} is an SQLite database of another program (no cases/runs "
                "tables); it was left as it is"
            )
        if self.read_only and not tables:
            raise LibraryError(f"{self._where()} holds no cases table")

    def _locked(self) -> LibraryError:
        return LibraryError(
            f"{self._where()} is locked by another process (waited {self.timeout:g} s); "
            "nothing was written — try again"
        )

    @contextmanager
    def _connection(self, mode: str = "rw") -> Iterator[sqlite3.Connection]:
        uri_mode = "ro" if mode == "ro" or self.read_only else "rwc"
        conn = sqlite3.connect(
            f"{self.path.resolve().as_uri()}?mode={uri_mode}",
            uri=True,
            timeout=self.timeout,
            isolation_level=None,  # explicit BEGIN/COMMIT below
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it is committed, or none of it."""
        if self.read_only:
            raise LibraryError(f"{self._where()} was opened read-only")
        with self._sqlite_errors(), self._connection() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _sqlite_errors(self) -> Iterator[None]:
        """SQLite's errors as a :class:`LibraryError` naming the file (a lock, plainly)."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            if _is_locked(exc):
                raise self._locked() from None
            raise LibraryError(f"{self._where()}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise LibraryError(f"{self._where()}: {exc}") from None

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        with self._sqlite_errors(), self._connection(mode="ro") as conn:
            return conn.execute(sql, params).fetchall()

    def _init_schema(self) -> None:
        # WAL lets readers and one writer work at once; set outside a transaction.
        try:
            with self._connection() as conn:
                mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
                if mode != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                    return  # already set up: opening needs no write lock
        except sqlite3.OperationalError as exc:
            if _is_locked(exc):
                raise self._locked() from None
            raise LibraryError(f"{self._where()}: {exc}") from None
        with self._write() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise LibraryError(
                    f"{self._where()} was written by a newer ragdash (schema {version})"
                )
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- cases ---------------------------------------------------------------------------

    def add(self, case: Case, status: str = "open") -> LibraryCase:
        """Add a new case; a name already in the library raises :class:`LibraryError`."""
        _check_status(status)
        case = _checked(case)
        stamp = now_iso()
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM cases WHERE name = ?", (case.name,)).fetchone():
                raise LibraryError(f"a case named {case.name!r} is already in the library")
            self._check_room(conn, 1)
            _insert(conn, case, status, stamp, stamp)
        return LibraryCase(case, status, stamp, stamp)

    def get(self, name: str) -> LibraryCase | None:
        rows = self._read(f"SELECT {_CASE_COLUMNS} FROM cases WHERE name = ?", (name,))
        return _library_case(rows[0]) if rows else None

    def list(
        self, status: str | None = None, limit: int = -1, damaged: list[str] | None = None
    ) -> list[LibraryCase]:
        """Every case, oldest first (optionally only those with ``status``; at most
        ``limit`` of them when it is not -1). A case that cannot be read raises
        :class:`LibraryError`, or with a ``damaged`` list is left out and named there."""
        if status is not None:
            _check_status(status)
            rows = self._read(
                f"SELECT {_CASE_COLUMNS} FROM cases WHERE status = ? ORDER BY created, rowid "
                "LIMIT ?",
                (status, limit),
            )
        else:
            rows = self._read(
                f"SELECT {_CASE_COLUMNS} FROM cases ORDER BY created, rowid LIMIT ?", (limit,)
            )
        if damaged is None:
            return [_library_case(row) for row in rows]
        entries = []
        for row in rows:
            try:
                entries.append(_library_case(row))
            except LibraryError as exc:
                damaged.append(f"{exc}; skipped")
        return entries

    def cases(
        self, limit: int = -1, damaged: builtins.list[str] | None = None
    ) -> builtins.list[Case]:
        return [entry.case for entry in self.list(limit=limit, damaged=damaged)]

    def update_status(self, name: str, status: str) -> None:
        _check_status(status)
        self._update(name, "status", status)

    def update_notes(self, name: str, note: str) -> None:
        self._update(name, "note", note)

    def _update(self, name: str, column: str, value: str) -> None:
        with self._write() as conn:
            cursor = conn.execute(
                f"UPDATE cases SET {column} = ?, updated = ? WHERE name = ?",
                (value, now_iso(), name),
            )
            if cursor.rowcount == 0:
                raise LibraryError(f"no case named {name!r} in the library")

    def remove(self, name: str) -> None:
        """Delete a case and its run history."""
        with self._write() as conn:
            if conn.execute("DELETE FROM cases WHERE name = ?", (name,)).rowcount == 0:
                raise LibraryError(f"no case named {name!r} in the library")

    # -- runs ----------------------------------------------------------------------------

    def record_run(self, name: str, configuration: str, passed: bool, diagnosis: str) -> Run:
        return self.record_runs(name, [(configuration, passed, diagnosis)])[0]

    def record_checks(self, labelled: Iterable[tuple[str, ProofCheck]]) -> builtins.list[Run]:
        """Record proof checks (configuration label, check) — all in one transaction."""
        stamp = now_iso()
        runs = [
            Run(check.case.name, label, check.passed, check.diagnosis.value, stamp)
            for label, check in labelled
        ]
        self._insert_runs(runs)
        return runs

    def record_runs(
        self, name: str, verdicts: Iterable[tuple[str, bool, str]]
    ) -> builtins.list[Run]:
        """Record (configuration, passed, diagnosis) runs of one case in one transaction."""
        stamp = now_iso()
        runs = [Run(name, c, bool(p), d, stamp) for c, p, d in verdicts]
        self._insert_runs(runs)
        return runs

    def _insert_runs(self, runs: Sequence[Run]) -> None:
        with self._write() as conn:
            for name in {run.case_name for run in runs}:
                if not conn.execute("SELECT 1 FROM cases WHERE name = ?", (name,)).fetchone():
                    raise LibraryError(f"no case named {name!r} in the library")
            conn.executemany(
                "INSERT INTO runs (case_name, configuration, passed, diagnosis, at) "
                "VALUES (?, ?, ?, ?, ?)",
                [(r.case_name, r.configuration, int(r.passed), r.diagnosis, r.at) for r in runs],
            )

    def history(self, name: str | None = None) -> builtins.list[Run]:
        """Runs, oldest first: of one case, or of every case."""
        sql = "SELECT case_name, configuration, passed, diagnosis, at FROM runs"
        rows = (
            self._read(f"{sql} WHERE case_name = ? ORDER BY id", (name,))
            if name is not None
            else self._read(f"{sql} ORDER BY id")
        )
        return [Run(r[0], r[1], bool(r[2]), r[3], r[4]) for r in rows]

    # -- saved runs (whole runs, schema 2) ----------------------------------------------

    def save_run(self, run: SavedRun) -> SavedRun:
        """Keep a whole run; returns it with its new id (one transaction)."""
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO saved_runs (name, at, retriever_label, fixes_label, "
                "corpus_fingerprint, passed, total, metrics, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run.name, run.at, run.retriever_label, run.fixes_label,
                 run.corpus_fingerprint, run.passed, run.total,
                 json.dumps(run.metric_values), "{}"),
            )  # fmt: skip
            saved = run.with_id(cursor.lastrowid)
            conn.execute(
                "UPDATE saved_runs SET data = ? WHERE id = ?",
                (json.dumps(saved.to_dict(), ensure_ascii=False), saved.id),
            )
        return saved

    def run_summaries(self) -> builtins.list[RunSummary]:
        """Every saved run's summary, oldest first, without reading its cases."""
        if not self._has_saved_runs():
            return []
        rows = self._read(
            "SELECT id, name, at, retriever_label, fixes_label, corpus_fingerprint, passed, "
            "total, metrics FROM saved_runs ORDER BY id"
        )
        summaries = []
        for run_id, name, at, retriever, fixes, corpus, passed, total, metrics in rows:
            try:
                values = json.loads(metrics)
            except (ValueError, RecursionError):  # damaged: the run itself says so when read
                values = {}
            if not isinstance(values, dict) or _depth(values) > 2:
                values = {}
            summaries.append(RunSummary(run_id, name, at, shown_kind(str(retriever)), fixes, corpus,
                                        passed, total, tuple(values.items())))  # fmt: skip
        return summaries

    def saved_runs(self) -> builtins.list[SavedRun]:
        """Every saved run, oldest first (an older library without the table has none)."""
        if not self._has_saved_runs():
            return []
        rows = self._read("SELECT id, data FROM saved_runs ORDER BY id")
        return [_saved_run(run_id, data) for run_id, data in rows]

    def saved_run(self, ref: int | str) -> SavedRun:
        """The run with id ``ref`` (``3`` or ``"#3"``), or ``"latest"``; :class:`RunError`
        names the run when there is no such run."""
        text = str(ref).strip().lstrip("#").lower()
        if text == "latest":
            runs = self._read("SELECT max(id) FROM saved_runs") if self._has_saved_runs() else []
            if not runs or runs[0][0] is None:
                raise RunError(f"{self._where()} holds no saved run yet")
            text = str(runs[0][0])
        if not text.isdigit():
            raise RunError(f"run {str(ref)!r} is not a run id (a number, or latest) nor a run file")
        rows = (
            self._read("SELECT id, data FROM saved_runs WHERE id = ?", (int(text),))
            if self._has_saved_runs()
            else []
        )
        if not rows:
            raise RunError(f"no run #{text} in {self._where()} (ragdash runs list shows them)")
        return _saved_run(*rows[0])

    def delete_run(self, run_id: int) -> None:
        """Delete one saved run (the cases and their history are not touched)."""
        with self._write() as conn:
            if conn.execute("DELETE FROM saved_runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise RunError(f"no run #{run_id} in {self._where()}")

    def _has_saved_runs(self) -> bool:
        rows = self._read(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'saved_runs'"
        )
        return bool(rows)

    # -- import / export -----------------------------------------------------------------

    def import_cases(self, cases: Iterable[Case], replace: bool = False) -> ImportResult:
        """Add cases (``cases.json`` objects); existing names are skipped, or with
        ``replace`` overwritten (status and history kept). One transaction."""
        added: list[str] = []
        updated: list[str] = []
        skipped: list[str] = []
        stamp = now_iso()
        checked = [_checked(case) for case in cases]
        with self._write() as conn:
            room = MAX_CASES - conn.execute("SELECT count(*) FROM cases").fetchone()[0]
            for case in checked:
                exists = conn.execute("SELECT 1 FROM cases WHERE name = ?", (case.name,)).fetchone()
                if not exists:
                    if len(added) == room:  # one over: refused whole (rolled back)
                        self._check_room(conn, 1, importing=len(checked))
                    _insert(conn, case, "open", stamp, stamp)
                    added.append(case.name)
                elif replace:
                    conn.execute(
                        "UPDATE cases SET query = ?, expected_id = ?, evidence = ?, top_k = ?, "
                        "kind = ?, note = ?, updated = ? WHERE name = ?",
                        (*_case_values(case)[1:], stamp, case.name),
                    )
                    updated.append(case.name)
                else:
                    skipped.append(case.name)
        return ImportResult(tuple(added), tuple(updated), tuple(skipped))

    def _check_room(self, conn: sqlite3.Connection, more: int, importing: int = 0) -> None:
        """Refuse (:class:`LibraryError`) a write that leaves more than
        :data:`~ragdash.checks.cases.MAX_CASES` cases once ``more`` are added."""
        total = conn.execute("SELECT count(*) FROM cases").fetchone()[0] + more
        if total > MAX_CASES:
            what = f"importing {importing:,} case(s)" if importing else "one more case"
            raise LibraryError(
                f"{self._where()}: {what} would take it past the limit of {MAX_CASES:,} "
                "cases — nothing was added (delete cases you no longer need, or import fewer)"
            )

    def count(self) -> int:
        """How many cases the library holds."""
        return int(self._read("SELECT count(*) FROM cases")[0][0])



#: How deep a saved run's JSON goes (run → cases → case → passages → passage → kinds →
#: kind is 7); anything much deeper is damage, refused before any code walks it.
MAX_RUN_DEPTH = 32


def _depth(value: object) -> int:
    """How deeply ``value`` (parsed JSON) nests lists and objects, counted without
    recursion (so a damaged value cannot exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in item)
    return deepest


def _saved_run(run_id: int, data: str) -> SavedRun:
    where = f"saved run #{run_id}"
    try:
        loaded = json.loads(data)
    except json.JSONDecodeError as exc:
        raise RunError(f"{where} cannot be read: {exc} (damaged: delete it)") from None
    except RecursionError:
        raise RunError(f"{where} cannot be read: nested too deeply (damaged: delete it)") from None
    except ValueError:  # a number of thousands of digits
        raise RunError(f"{where} cannot be read: a number too long (damaged: delete it)") from None
    if _depth(loaded) > MAX_RUN_DEPTH:
        raise RunError(f"{where} cannot be read: nested too deeply (damaged: delete it)")
    return SavedRun.from_dict(loaded, where).with_id(run_id)


def _checked(case: Case) -> Case:
    """``case`` after the checks a cases file gets (field lengths, evidence, top_k), however
    it was made; raises :class:`LibraryError` naming the case."""
    try:
        return case_from_dict(case_to_dict(case), f"case {case.name[:80]!r}")
    except CaseFileError as exc:
        raise LibraryError(f"not saved: {exc}") from None


_CASE_COLUMNS = "name, query, expected_id, evidence, top_k, kind, note, status, created, updated"


def _check_status(status: str) -> None:
    if status not in STATUSES:
        raise LibraryError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")


def _case_values(case: Case) -> tuple[object, ...]:
    data = case_to_dict(case)
    return (
        data["name"],
        data["query"],
        data["expected_id"],
        json.dumps(data["evidence"], ensure_ascii=False),
        data["top_k"],
        data["kind"],
        data["note"],
    )


def _insert(conn: sqlite3.Connection, case: Case, status: str, created: str, updated: str) -> None:
    conn.execute(
        f"INSERT INTO cases ({_CASE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (*_case_values(case), status, created, updated),
    )


def _library_case(row: tuple) -> LibraryCase:
    name, query, expected, evidence, top_k, kind, note, status, created, updated = row
    try:
        evidence_list = json.loads(evidence)
        case = case_from_dict(
            {
                "name": name,
                "query": query,
                "expected_id": expected,
                "evidence": evidence_list,
                "top_k": top_k,
                "kind": kind,
                "note": note,
            },
            f"library case {name!r}",
        )
    except (json.JSONDecodeError, CaseFileError) as exc:
        raise LibraryError(f"library case {name!r} cannot be read: {exc}") from None
    except (RecursionError, ValueError):  # deep JSON, a number of thousands of digits
        raise LibraryError(f"library case {name!r} cannot be read: damaged evidence") from None
    return LibraryCase(case, status, created, updated)


def rerun_and_record(
    index: CorpusIndex, library: CaseLibrary, case: Case, fixes: Fixes
) -> ProofCheck:
    """Run ``case`` under exactly ``fixes`` and add the result to the library's run history,
    labelled with :attr:`Fixes.label` (every setting that changed the result). Raises
    ``QueryError`` or ``LibraryError``; nothing is recorded then."""
    check = check_case(index, case, fixes)
    library.record_checks([(fixes.label, check)])
    return check
