"""Reading and writing case files (``cases.json``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ragdash.checks.proof import Case
from ragdash.errors import CaseFileError
from ragdash.storage.atomic import atomic_write


def case_from_dict(data: Any, where: str = "case") -> Case:
    """Build a :class:`Case` from a JSON object, checking every field."""
    if not isinstance(data, dict):
        raise CaseFileError(f"{where} is not a JSON object")
    missing = [
        key for key in ("name", "query", "expected_id") if not str(data.get(key, "")).strip()
    ]
    if missing:
        raise CaseFileError(f"{where} has no {', '.join(missing)}")
    evidence = data.get("evidence", [])
    if isinstance(evidence, str):
        evidence = [evidence]
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise CaseFileError(f"{where}: 'evidence' must be a list of strings")
    top_k = data.get("top_k", 1)
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
        raise CaseFileError(f"{where}: 'top_k' must be a whole number of at least 1")
    return Case(
        name=str(data["name"]).strip(),
        query=str(data["query"]),
        expected_id=str(data["expected_id"]).strip(),
        evidence=tuple(e for e in evidence if e.strip()),
        top_k=top_k,
        kind=str(data.get("kind", "")),
        note=str(data.get("note", "")),
    )


def case_to_dict(case: Case) -> dict[str, Any]:
    """The JSON object of a case (inverse of :func:`case_from_dict`)."""
    data = asdict(case)
    data["evidence"] = list(case.evidence)
    return data


def parse_cases(text: str, source: str = "cases") -> list[Case]:
    """Parse a cases document: ``{"cases": [...]}`` or a bare list. Names must be unique."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaseFileError(
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    items = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise CaseFileError(f"{source} must hold a list of cases or an object with 'cases'")
    cases = [case_from_dict(item, f"{source}: case {i + 1}") for i, item in enumerate(items)]
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
