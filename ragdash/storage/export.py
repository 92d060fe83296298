"""Export a case library: as ``cases.json``, or as a standalone pytest module that runs every
case through ragdash's core (``load_folder`` → ``CorpusIndex`` → ``check_case``).

Case names, queries and evidence are untrusted text (typed into the Triage page, imported
from files). They never become code: everything that varies goes into one JSON document,
embedded in the module as a string literal that cannot end early (ASCII-only JSON without a
single quote, inside ``r'''...'''``), and parsed with :mod:`json` when the tests run.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import fields
from pathlib import Path

from ragdash.case import Case
from ragdash.checks.cases import case_to_dict, dump_cases
from ragdash.settings import FIX_NAMES, Fixes

__all__ = [
    "DOCS_ENV",
    "export_payload",
    "json_export",
    "path_from",
    "portable_location",
    "pytest_module",
    "relative_location",
]

#: The environment variable that points the exported tests at another docs folder.
DOCS_ENV = "RAGDASH_DOCS"
_PAYLOAD_MARK = "@@EXPORT_JSON@@"

_TEMPLATE = '''\
"""Proof-check cases exported by ragdash (``python -m ragdash export``).

Each case runs through ragdash's core (load_folder -> CorpusIndex -> check_case) under the
fixes recorded in EXPORT below (a case with its own repairing fix in EXPORT["case_fixes"]
runs under that fix), and fails with the diagnosis and the missing evidence. Documents
come from EXPORT["docs"] (a relative path is read from this file's own folder, wherever
pytest runs; "samples" names the samples bundled with ragdash) unless the RAGDASH_DOCS
environment variable names another folder, plus the uploads and metadata edits of
EXPORT["workspace"] (or RAGDASH_WORKSPACE) when one is recorded. ragdash must be importable.
No network, no model: the check is whether the retriever hands over the evidence.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragdash.bundled import docs_path
from ragdash.checks.cases import case_from_dict
from ragdash.retrieval.index import CorpusIndex
from ragdash.ingestion.ingest import load_folder
from ragdash.ingestion.workspace import Workspace
from ragdash.checks.proof import check_case
from ragdash.settings import Fixes

# Everything that came from the case library is data in this JSON document, never code.
EXPORT = json.loads(
    r\'\'\'
@@EXPORT_JSON@@
\'\'\'
)



def _tuples(value):
    """JSON lists back to the tuples Fixes holds (the OCR map is pairs of strings)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


SETTINGS = {name: _tuples(value) for name, value in EXPORT["settings"].items()}
FIXES = Fixes.parse(EXPORT["fixes"], **SETTINGS)
#: case name -> the fix that repairs it, when the export recorded one
CASE_FIXES = {
    name: Fixes.parse(spec, **SETTINGS) for name, spec in EXPORT.get("case_fixes", {}).items()
}
CASES = [case_from_dict(data, f"case {n}") for n, data in enumerate(EXPORT["cases"], start=1)]


#: A relative path recorded in EXPORT is read from the folder this file is in.
HERE = Path(__file__).resolve().parent


def docs_folder() -> Path:
    if os.environ.get("RAGDASH_DOCS"):
        return docs_path(os.environ["RAGDASH_DOCS"])
    named = docs_path(EXPORT["docs"])
    return named if named.is_absolute() else HERE / named


def workspace_folder():
    if os.environ.get("RAGDASH_WORKSPACE"):
        return Path(os.environ["RAGDASH_WORKSPACE"])
    value = EXPORT.get("workspace")
    return HERE / value if value else None


@pytest.fixture(scope="module")
def index() -> CorpusIndex:
    workspace = workspace_folder()
    if workspace is not None:
        corpus = Workspace(workspace).load(docs_folder())
    else:
        corpus = load_folder(docs_folder())
    assert corpus.documents, f"no loadable documents in {str(docs_folder())!r}"
    return CorpusIndex(corpus)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_case(index, case):
    fixes = CASE_FIXES.get(case.name, FIXES)
    check = check_case(index, case, fixes)
    if not check.passed:
        missing = "; ".join(check.missing_evidence) or "none"
        pytest.fail(
            f"case {case.name!r} under fixes {fixes.label!r}: diagnosis {check.diagnosis.value} "
            f"({check.diagnosis.explanation}); expected {case.expected_id!r}, "
            f"ranked first {check.first_id!r}; missing evidence: {missing}",
            pytrace=False,
        )
'''


def export_payload(
    cases: Iterable[Case],
    *,
    docs: str | Path,
    fixes: Fixes,
    workspace: str | Path | None = None,
    case_fixes: Mapping[str, Fixes] | None = None,
) -> dict:
    """The data an exported module embeds: the fixes label (``all``, ``none``, ``ocr,fuzzy``),
    every setting of :class:`~ragdash.settings.Fixes` that is not an on/off switch
    (``threshold``, ``ocr_map`` as pairs, ``fuzzy_rule``, ...), the docs folder, the cases;
    with ``workspace``, the workspace whose uploads and edits the cases need; with
    ``case_fixes``, the fix each named case runs under instead (the one that repairs it)."""
    settings = {
        f.name: _jsonable(getattr(fixes, f.name)) for f in fields(fixes) if f.name not in FIX_NAMES
    }
    payload: dict = {
        "format": "ragdash-pytest-export",
        "version": 1,
        "fixes": fixes.names,
        "settings": settings,
        "docs": str(docs),
        "cases": [case_to_dict(case) for case in cases],
    }
    if workspace is not None:
        payload["workspace"] = str(workspace)
    if case_fixes:
        payload["case_fixes"] = {name: f.names for name, f in sorted(case_fixes.items())}
    return payload


def path_from(folder: str | Path, target: str | Path) -> str:
    """``target`` as a file in ``folder`` should record it: relative to ``folder`` when the
    two share a folder below the file system's root (a repository's ``tests/`` and its
    ``docs/``), else absolute — a path from the machine that exported (``/srv/...``,
    ``/home/someone/...``) means nothing on a CI runner, a path within the repository does::

        >>> path_from("/repo/tests", "/repo/docs")
        '../docs'
        >>> path_from("/home/a/tests", "/srv/docs")
        '/srv/docs'
    """
    folder, target = os.path.abspath(folder), os.path.abspath(target)
    try:
        common = os.path.commonpath([folder, target])
    except ValueError:  # another drive (Windows)
        return target
    if common == os.path.dirname(common):  # only the root in common
        return target
    return Path(os.path.relpath(target, folder)).as_posix()


def portable_location(path: str | Path) -> str:
    """What an export made on a server records for ``path`` by default: ``samples`` for the
    bundled samples, else the folder's own name — read from the exported file's folder, so
    the file works where the folder sits beside it, and a server's absolute path
    (``/srv/ragdash/docs``, ``/home/someone/...``) never leaves the server::

        >>> portable_location("/srv/ragdash/policies")
        'policies'
    """
    from ragdash.bundled import SAMPLES, SAMPLES_WORD

    if str(path) == SAMPLES_WORD or Path(path).resolve() == SAMPLES:
        return SAMPLES_WORD
    return Path(path).name or "docs"


def relative_location(text: str, what: str) -> str:
    """``text`` as a relative folder an export may record, or ``ValueError`` naming ``what``
    and the problem: an absolute path (``/srv/docs``, ``C:\\docs``, ``~/docs``) would carry
    the exporting machine's layout into the file::

        >>> relative_location(" ../docs ", "docs folder")
        '../docs'
        >>> relative_location("/srv/docs", "docs")
        Traceback (most recent call last):
        ...
        ValueError: docs '/srv/docs' is an absolute path: give it relative to the exported file
    """
    value = text.strip()
    if not value:
        raise ValueError(f"{what} is empty: give it relative to where the exported file will sit")
    if (
        value.startswith(("/", "\\", "~"))
        or re.match(r"^[A-Za-z]:", value)
        or os.path.isabs(value)
    ):
        raise ValueError(
            f"{what} {value!r} is an absolute path: give it relative to the exported file"
        )
    return Path(value).as_posix()


def _jsonable(value):
    return [_jsonable(v) for v in value] if isinstance(value, tuple) else value


def pytest_module(
    cases: Iterable[Case],
    *,
    docs: str | Path,
    fixes: Fixes,
    workspace: str | Path | None = None,
    case_fixes: Mapping[str, Fixes] | None = None,
) -> str:
    """The source of a standalone pytest module: one parametrized test per case, run under
    ``fixes`` on the documents of ``docs`` (overridable with ``RAGDASH_DOCS`` at run time;
    a relative path is read from the module's own folder, so the tests find the documents
    wherever pytest runs: see :func:`path_from`). The module needs ragdash importable.

    Raises ``ValueError`` for a non-finite threshold (JSON has no NaN).
    """
    payload = export_payload(
        cases, docs=docs, fixes=fixes, workspace=workspace, case_fixes=case_fixes
    )
    # ensure_ascii: no character a Python source file could misread; a single quote only
    # occurs inside JSON strings, where \u0027 means the same — so the raw '''...''' literal
    # around it can only end where the template ends it.
    text = json.dumps(payload, indent=2, ensure_ascii=True, allow_nan=False)
    text = text.replace("'", "\\u0027")
    source = _TEMPLATE.replace(_PAYLOAD_MARK, text)
    _check_embedded(source, payload)
    return source


def _check_embedded(source: str, payload: dict) -> None:
    """Belt and braces: the module parses, and its EXPORT literal decodes to ``payload``."""
    tree = ast.parse(source)
    literals = [
        node.value.args[0].value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["EXPORT"]
        and isinstance(node.value, ast.Call)
        and len(node.value.args) == 1
        and isinstance(node.value.args[0], ast.Constant)
    ]
    if len(literals) != 1 or not isinstance(literals[0], str) or json.loads(literals[0]) != payload:
        raise RuntimeError("exported module does not embed the cases exactly")  # never expected


def json_export(
    cases: Iterable[Case],
    *,
    docs: str | Path | None = None,
    workspace: str | Path | None = None,
    case_fixes: Mapping[str, Fixes] | None = None,
) -> str:
    """The cases as a ``cases.json`` document (:func:`ragdash.checks.cases.dump_cases`), newline
    terminated; :func:`ragdash.checks.cases.parse_cases` reads it back. ``docs`` and
    ``workspace`` record where the documents the cases need live; ``case_fixes`` adds each
    case's repairing fix as its ``fixes`` field (readers of plain cases ignore both)."""
    if docs is None and workspace is None and not case_fixes:
        return dump_cases(cases) + "\n"
    items = []
    for case in cases:
        item = case_to_dict(case)
        if case_fixes and case.name in case_fixes:
            item["fixes"] = case_fixes[case.name].names
        items.append(item)
    data: dict = {}
    if docs is not None:
        data["docs"] = str(docs)
    if workspace is not None:
        data["workspace"] = str(workspace)
    data["cases"] = items
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
