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
from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path

from ragdash.checks.cases import case_to_dict, dump_cases
from ragdash.checks.proof import Case
from ragdash.settings import FIX_NAMES, Fixes

#: The environment variable that points the exported tests at another docs folder.
DOCS_ENV = "RAGDASH_DOCS"
_PAYLOAD_MARK = "@@EXPORT_JSON@@"

_TEMPLATE = '''\
"""Proof-check cases exported by ragdash (``python -m ragdash export``).

Each case runs through ragdash's core (load_folder -> CorpusIndex -> check_case) under the
fixes recorded in EXPORT below, and fails with the diagnosis and the missing evidence.
Documents come from EXPORT["docs"] (relative to the directory pytest runs in) unless the
RAGDASH_DOCS environment variable names another folder. ragdash must be importable.
No network, no model: the check is whether the retriever hands over the evidence.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragdash.checks.cases import case_from_dict
from ragdash.retrieval.index import CorpusIndex
from ragdash.ingestion.ingest import load_folder
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


FIXES = Fixes.parse(
    EXPORT["fixes"], **{name: _tuples(value) for name, value in EXPORT["settings"].items()}
)
CASES = [case_from_dict(data, f"case {n}") for n, data in enumerate(EXPORT["cases"], start=1)]


def docs_folder() -> Path:
    return Path(os.environ.get("RAGDASH_DOCS") or EXPORT["docs"])


@pytest.fixture(scope="module")
def index() -> CorpusIndex:
    corpus = load_folder(docs_folder())
    assert corpus.documents, f"no loadable documents in {str(docs_folder())!r}"
    return CorpusIndex(corpus)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_case(index, case):
    check = check_case(index, case, FIXES)
    if not check.passed:
        missing = "; ".join(check.missing_evidence) or "none"
        pytest.fail(
            f"case {case.name!r} under fixes {FIXES.label!r}: diagnosis {check.diagnosis.value} "
            f"({check.diagnosis.explanation}); expected {case.expected_id!r}, "
            f"ranked first {check.first_id!r}; missing evidence: {missing}",
            pytrace=False,
        )
'''


def export_payload(cases: Iterable[Case], *, docs: str | Path, fixes: Fixes) -> dict:
    """The data an exported module embeds: the fixes label (``all``, ``none``, ``ocr,fuzzy``),
    every setting of :class:`~ragdash.settings.Fixes` that is not an on/off switch
    (``threshold``, ``ocr_map`` as pairs, ``fuzzy_rule``, ...), the docs folder, the cases."""
    settings = {
        f.name: _jsonable(getattr(fixes, f.name)) for f in fields(fixes) if f.name not in FIX_NAMES
    }
    return {
        "format": "ragdash-pytest-export",
        "version": 1,
        "fixes": fixes.names,
        "settings": settings,
        "docs": str(docs),
        "cases": [case_to_dict(case) for case in cases],
    }


def _jsonable(value):
    return [_jsonable(v) for v in value] if isinstance(value, tuple) else value


def pytest_module(cases: Iterable[Case], *, docs: str | Path, fixes: Fixes) -> str:
    """The source of a standalone pytest module: one parametrized test per case, run under
    ``fixes`` on the documents of ``docs`` (overridable with ``RAGDASH_DOCS`` at run time;
    a relative path is read from where pytest runs). The module needs ragdash importable.

    Raises ``ValueError`` for a non-finite threshold (JSON has no NaN).
    """
    payload = export_payload(cases, docs=docs, fixes=fixes)
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
    if len(literals) != 1 or json.loads(literals[0]) != payload:
        raise RuntimeError("exported module does not embed the cases exactly")  # never expected


def json_export(cases: Iterable[Case]) -> str:
    """The cases as a ``cases.json`` document (:func:`ragdash.checks.cases.dump_cases`), newline
    terminated; :func:`ragdash.checks.cases.parse_cases` reads it back."""
    return dump_cases(cases) + "\n"
