"""Reading and writing case files (``cases.json``).

A case file comes from anyone — a colleague, a log export, an attacker — so reading it is
bounded: at most :data:`MAX_CASES_BYTES` of text and :data:`MAX_CASES` cases, each field at
most :data:`MAX_FIELD_CHARS` characters, at most :data:`MAX_EVIDENCE` evidence strings, and
``top_k`` at most :data:`MAX_CASE_TOP_K`. JSON nested too deeply for the parser, or a number
too long to convert, is reported like any other malformed file, never a traceback.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ragdash.atomic import atomic_write
from ragdash.case import Case
from ragdash.errors import CaseFileError

__all__ = [
    "MAX_CASES",
    "MAX_CASES_BYTES",
    "MAX_CASE_TOP_K",
    "MAX_EVIDENCE",
    "MAX_FIELD_CHARS",
    "CASE_KEYS",
    "case_from_dict",
    "nearest_key",
    "case_to_dict",
    "dump_cases",
    "parse_cases",
    "read_cases_file",
    "save_cases",
]

MAX_CASES_BYTES = 20 * 1024 * 1024
MAX_CASES = 100_000
MAX_FIELD_CHARS = 10_000
MAX_EVIDENCE = 100
MAX_CASE_TOP_K = 1000


#: The keys a case may have: required, then optional. ``fixes`` is the repairing fix an
#: export records beside a case (read back, not used). A key starting with ``x-`` is the
#: user's own note (``"x-reviewed": "2026-03"``): kept out of the case, never checked.
REQUIRED_KEYS = ("name", "query", "expected_id")
OPTIONAL_KEYS = ("evidence", "top_k", "kind", "note", "fixes")
CASE_KEYS = REQUIRED_KEYS + OPTIONAL_KEYS
USER_KEY_PREFIX = "x-"
_TEXT_KEYS = ("name", "query", "expected_id", "kind", "note")


def nearest_key(key: str, known: Iterable[str] = CASE_KEYS) -> str | None:
    """The known key ``key`` was most likely meant to be, or ``None``::

    >>> nearest_key("evidance"), nearest_key("topk"), nearest_key("colour")
    ('evidence', 'top_k', None)
    """
    found = difflib.get_close_matches(key.lower(), list(known), n=1, cutoff=0.6)
    return found[0] if found else None


def _unknown_key(key: str, where: str, known: Iterable[str] = CASE_KEYS) -> CaseFileError:
    near = nearest_key(key, known)
    hint = f"did you mean {near!r}?" if near else f"the keys are {', '.join(CASE_KEYS)}"
    return CaseFileError(f"{where}: unknown key {key!r} ({hint}); nothing was loaded")


def case_from_dict(data: Any, where: str = "case") -> Case:
    """Build a :class:`Case` from a JSON object, checking every field. Strict, because a
    misspelled key would otherwise be dropped in silence (``"evidance": ["999 EUR"]`` would
    check no evidence and pass): an unknown key, a missing required key or a value of the
    wrong type is refused naming the case, the key and the key it was likely meant to be::

        >>> try:
        ...     case_from_dict({"name": "a", "query": "q", "expected_id": "d", "topk": 3})
        ... except CaseFileError as exc:
        ...     print(exc)
        case: unknown key 'topk' (did you mean 'top_k'?); nothing was loaded
    """
    if not isinstance(data, dict):
        raise CaseFileError(f"{where} is not a JSON object")
    for key in data:
        if key not in CASE_KEYS and not str(key).startswith(USER_KEY_PREFIX):
            raise _unknown_key(str(key), where)
    for key in _TEXT_KEYS:
        if key in data and not isinstance(data[key], str):
            raise CaseFileError(f"{where}: {key!r} must be text, not {_json_type(data[key])}")
    missing = [key for key in REQUIRED_KEYS if not str(data.get(key, "")).strip()]
    if missing:
        raise CaseFileError(
            f"{where} has no {', '.join(missing)} (required: {', '.join(REQUIRED_KEYS)})"
        )
    evidence = data.get("evidence", [])
    if isinstance(evidence, str):
        evidence = [evidence]
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise CaseFileError(f"{where}: 'evidence' must be a list of strings")
    fixes = data.get("fixes", "")
    if not isinstance(fixes, str):
        raise CaseFileError(f"{where}: 'fixes' must be text, not {_json_type(fixes)}")
    if len(evidence) > MAX_EVIDENCE:
        raise CaseFileError(f"{where}: more than {MAX_EVIDENCE} evidence strings")
    for key in ("name", "query", "expected_id", "kind", "note"):
        if len(str(data.get(key, ""))) > MAX_FIELD_CHARS:
            raise CaseFileError(f"{where}: '{key}' is longer than {MAX_FIELD_CHARS:,} characters")
    if any(len(e) > MAX_FIELD_CHARS for e in evidence):
        raise CaseFileError(f"{where}: an evidence string is longer than {MAX_FIELD_CHARS:,}")
    top_k = data.get("top_k", 1)
    if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= MAX_CASE_TOP_K:
        raise CaseFileError(f"{where}: 'top_k' must be a whole number from 1 to {MAX_CASE_TOP_K}")
    return Case(
        name=str(data["name"]).strip(),
        query=str(data["query"]),
        expected_id=str(data["expected_id"]).strip(),
        evidence=tuple(e for e in evidence if e.strip()),
        top_k=top_k,
        kind=str(data.get("kind", "")),
        note=str(data.get("note", "")),
    )


def _json_type(value: Any) -> str:
    """The JSON name of a value's type, as a user wrote it (``a number``, ``a list``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _where(source: str, number: int, item: Any) -> str:
    """``cases.json: case 3 ('refund')``: the case by position and, when it has one, name."""
    name = item.get("name") if isinstance(item, dict) else None
    named = f" ({name[:80]!r})" if isinstance(name, str) and name.strip() else ""
    return f"{source}: case {number}{named}"


def case_to_dict(case: Case) -> dict[str, Any]:
    """The JSON object of a case (inverse of :func:`case_from_dict`)."""
    data = asdict(case)
    data["evidence"] = list(case.evidence)
    return data


def parse_cases(text: str, source: str = "cases") -> list[Case]:
    """Parse a cases document: ``{"cases": [...]}`` or a bare list. Names must be unique."""
    if len(text) > MAX_CASES_BYTES:
        raise CaseFileError(f"{source} is larger than {MAX_CASES_BYTES // 2**20} MiB")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaseFileError(
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise CaseFileError(f"{source} is nested too deeply to be a cases file") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise CaseFileError(f"{source} is not a usable cases file ({exc})") from None
    items = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise CaseFileError(f"{source} must hold a list of cases or an object with 'cases'")
    if len(items) > MAX_CASES:
        raise CaseFileError(f"{source} holds {len(items):,} cases; the limit is {MAX_CASES:,}")
    cases = [case_from_dict(item, _where(source, i + 1, item)) for i, item in enumerate(items)]
    seen: set[str] = set()
    for case in cases:
        if case.name in seen:
            raise CaseFileError(f"{source}: case name {case.name!r} is used twice")
        seen.add(case.name)
    return cases


def read_cases_file(path: str | Path) -> list[Case]:
    """Read a ``cases.json`` file. Raises :class:`CaseFileError` with a one-line reason.
    (:func:`ragdash.storage.case_store.load_cases` also reads a SQLite case library.)"""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_CASES_BYTES:
            raise CaseFileError(
                f"cases file {str(path)!r} is larger than {MAX_CASES_BYTES // 2**20} MiB"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise CaseFileError(
            f"cannot read cases file {str(path)!r}: {exc.strerror or exc}"
        ) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaseFileError(f"cases file {str(path)!r} is not UTF-8 text") from None
    return parse_cases(text, path.name)


def dump_cases(cases: Iterable[Case]) -> str:
    """Serialize cases as a ``cases.json`` document."""
    return json.dumps({"cases": [case_to_dict(c) for c in cases]}, indent=2, ensure_ascii=False)


def save_cases(path: str | Path, cases: Iterable[Case]) -> None:
    """Write a cases file atomically (temp file + rename), so a crash keeps the old one."""
    atomic_write(path, (dump_cases(cases) + "\n").encode("utf-8"))
