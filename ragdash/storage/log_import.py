"""Cases from real logs: read a CSV or JSONL of queries with their expected document.

A team's best test set is the questions users really asked, with the document that should
have answered them — exported from a search log, a support tool or an existing eval set.
Each row needs a query and the expected document id; evidence and a name are optional::

    query,expected_id,evidence
    how long do I have to return an item,returns-2026,30 days
    "warehouse sync interval",inventory,15 minutes; sync

Accepted column names (case-insensitive): ``query`` / ``question`` / ``q``; ``expected_id``
/ ``expected`` / ``expected_doc`` / ``doc_id`` / ``document``; ``evidence`` (several strings
separated by ``;`` in CSV, a list or a string in JSONL); ``name`` / ``id`` (default:
``<file stem>-<row>``); ``top_k``. Other columns are ignored, except one a slip away from
a known name (``evidance``, ``top-k``): that row is refused naming the column meant. A bad
row never stops the import: it is reported by row
number (the header is row 1 of a CSV; JSONL rows are lines) and the good rows are kept — a
JSONL line nested 100,000 deep or holding a number of 5,000 digits is one bad row too. The
limits of a cases file hold here as well (:mod:`ragdash.checks.cases`): each field, the
evidence list and ``top_k`` per row, at most :data:`MAX_LOG_BYTES` of text and
:data:`~ragdash.checks.cases.MAX_CASES` rows per file (a longer file is refused whole, before
any row is imported: split it)::

    >>> result = parse_log_cases("query,expected_id\\nreturn policy,returns-2026\\n,plans\\n",
    ...                          "log.csv")
    >>> [c.name for c in result.cases], [str(e) for e in result.errors]
    (['log-2'], ['row 3: no query'])
"""

from __future__ import annotations

import csv
import difflib
import io
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragdash.case import Case
from ragdash.checks.cases import MAX_CASES, case_from_dict
from ragdash.errors import CaseFileError

__all__ = [
    "LOG_FORMATS", "LogImport", "MAX_LOG_BYTES", "RowProblem", "log_format", "parse_log_cases",
]  # fmt: skip

LOG_FORMATS = ("csv", "jsonl")
#: The largest log read (the dashboard's upload limit too): 100,000 rows of a query and a
#: few evidence strings fit many times over.
MAX_LOG_BYTES = 50 * 1024 * 1024
ALIASES = {
    "query": ("query", "question", "q"),
    "expected_id": ("expected_id", "expected", "expected_doc", "doc_id", "document"),
    "evidence": ("evidence",),
    "name": ("name", "id"),
    "top_k": ("top_k",),
}
#: The ``kind`` of an imported case.
LOG_KIND = "log"


@dataclass(frozen=True)
class RowProblem:
    row: int
    message: str

    def __str__(self) -> str:
        return f"row {self.row}: {self.message}"


@dataclass(frozen=True)
class LogImport:
    """The cases read, in file order, and the rows that could not be used."""

    cases: tuple[Case, ...]
    errors: tuple[RowProblem, ...]


def log_format(name: str, fmt: str | None = None) -> str:
    """``fmt`` if given, else from the file name (``.csv``; ``.jsonl``/``.ndjson``/
    ``.json``). Raises :class:`CaseFileError` naming the file."""
    if fmt:
        if fmt not in LOG_FORMATS:
            raise CaseFileError(f"format {fmt!r} is not one of {', '.join(LOG_FORMATS)}")
        return fmt
    suffix = Path(name).suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    raise CaseFileError(f"{name}: cannot tell the format from the name; say csv or jsonl")


def parse_log_cases(
    text: str,
    name: str,
    fmt: str | None = None,
    known_ids: Collection[str] | None = None,
    taken: Collection[str] = (),
) -> LogImport:
    """Read cases from ``text`` (a file called ``name``). With ``known_ids`` a row whose
    expected document is not in the corpus is an error; a name in ``taken`` or used twice
    in the file is an error. Raises :class:`CaseFileError` naming the file when it is larger
    than :data:`MAX_LOG_BYTES` or holds more than :data:`MAX_CASES` rows."""
    fmt = log_format(name, fmt)
    if len(text) > MAX_LOG_BYTES:
        raise CaseFileError(
            f"{name} is larger than {MAX_LOG_BYTES // 2**20} MiB; split it into smaller files"
        )
    stem = Path(name).stem or "log"
    rows = _csv_rows(text) if fmt == "csv" else _jsonl_rows(text)
    if len(rows) > MAX_CASES:
        raise CaseFileError(
            f"{name} holds more than {MAX_CASES:,} rows; the limit is {MAX_CASES:,} cases per "
            "file — split it (nothing was imported)"
        )
    cases: list[Case] = []
    errors: list[RowProblem] = []
    names = set(taken)
    for number, row in rows:
        if isinstance(row, str):
            errors.append(RowProblem(number, row))
            continue
        try:
            case = _case(row, f"{stem}-{number}", fmt)
        except CaseFileError as exc:
            errors.append(RowProblem(number, str(exc)))
            continue
        if known_ids is not None and case.expected_id not in known_ids:
            errors.append(
                RowProblem(number, f"expected document {case.expected_id!r} is not in the corpus")
            )
            continue
        if case.name in names:
            errors.append(RowProblem(number, f"a case named {case.name!r} already exists"))
            continue
        names.add(case.name)
        cases.append(case)
    return LogImport(tuple(cases), tuple(errors))


def _csv_rows(text: str) -> list[tuple[int, dict[str, Any] | str]]:
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        header = next(reader)
    except StopIteration:
        return [(1, "the file is empty")]
    except csv.Error as exc:
        return [(1, f"not readable as CSV ({exc})")]
    columns = [h.strip().lower() for h in header]
    rows: list[tuple[int, dict[str, Any] | str]] = []
    number = 1
    while True:
        try:
            values = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            number += 1
            rows.append((number, f"not readable as CSV ({exc})"))
            continue
        number = reader.line_num
        if not any(v.strip() for v in values):
            continue
        if len(rows) > MAX_CASES:
            break  # one over the limit is enough to refuse the file
        if len(values) > len(columns):
            rows.append((number, f"{len(values)} values for {len(columns)} columns"))
            continue
        rows.append((number, dict(zip(columns, values, strict=False))))
    return rows


def _jsonl_rows(text: str) -> list[tuple[int, dict[str, Any] | str]]:
    rows: list[tuple[int, dict[str, Any] | str]] = []
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        if not line.strip():
            continue
        if len(rows) > MAX_CASES:
            break  # one over the limit is enough to refuse the file
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            rows.append((number, f"not valid JSON ({exc.msg}, column {exc.colno})"))
            continue
        except RecursionError:
            rows.append((number, "JSON nested too deeply to be a case"))
            continue
        except ValueError:  # an integer of thousands of digits
            rows.append((number, "holds a number too long to read"))
            continue
        if not isinstance(value, dict):
            rows.append((number, f"a JSON {type(value).__name__}, not an object"))
            continue
        rows.append((number, {str(k).strip().lower(): v for k, v in value.items()}))
    return rows


def _pick(row: Mapping[str, Any], field: str) -> Any:
    for alias in ALIASES[field]:
        if alias in row and row[alias] not in (None, ""):
            return row[alias]
    return None


#: Every column name read (the aliases of every field).
KNOWN_COLUMNS = tuple(a for aliases in ALIASES.values() for a in aliases)


def _misspelled(row: Mapping[str, Any]) -> None:
    """A log has other columns (a timestamp, a user) and they are ignored; but a column one
    slip from a known name (``evidance``) is a mistake that would drop the evidence in
    silence, so it is refused with the name it was likely meant to be."""
    for column in row:
        if column in KNOWN_COLUMNS:
            continue
        near = difflib.get_close_matches(column, KNOWN_COLUMNS, n=1, cutoff=0.8)
        if near:
            raise CaseFileError(f"unknown column {column!r} (did you mean {near[0]!r}?)")


def _case(row: Mapping[str, Any], default_name: str, fmt: str) -> Case:
    _misspelled(row)
    for field in ("query", "expected_id", "name"):
        value = _pick(row, field)
        if isinstance(value, (dict, list)):  # JSONL: text or a number, never a structure
            raise CaseFileError(f"{field} must be text, not a JSON {type(value).__name__}")
    query = _pick(row, "query")
    expected = _pick(row, "expected_id")
    if query is None or not str(query).strip():
        raise CaseFileError("no query")
    if expected is None or not str(expected).strip():
        raise CaseFileError("no expected document (expected_id)")
    evidence = _pick(row, "evidence") or []
    if isinstance(evidence, str):
        evidence = [e.strip() for e in evidence.split(";")] if fmt == "csv" else [evidence]
    top_k: Any = _pick(row, "top_k") or 1
    if isinstance(top_k, str):
        try:
            top_k = int(top_k.strip())
        except ValueError:
            raise CaseFileError(f"top_k {top_k!r} is not a whole number") from None
    data = {
        "name": str(_pick(row, "name") or default_name),
        "query": str(query),
        "expected_id": str(expected),
        "evidence": evidence,
        "top_k": top_k,
        "kind": LOG_KIND,
    }
    try:
        return case_from_dict(data, "the row")
    except CaseFileError as exc:
        raise CaseFileError(str(exc).removeprefix("the row: ").removeprefix("the row ")) from None
