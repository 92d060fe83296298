"""Triage → Case library: saved cases, their status, notes, run history and exports."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ragdash.case import Case
from ragdash.checks.cases import parse_cases
from ragdash.checks.triage import repairing_fix
from ragdash.errors import CaseFileError, LibraryError, QueryError
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes, configuration_title
from ragdash.storage.case_store import check_command
from ragdash.storage.export import (
    json_export,
    portable_location,
    pytest_module,
    relative_location,
)
from ragdash.storage.library import STATUSES, CaseLibrary, rerun_and_record
from ragdash.ui.context import error_text, fingerprint_key, library_file, settings
from ragdash.ui.glossary import show_table
from ragdash.ui.render import human_time
from ragdash.ui.text import code, grid, label, literal, plain
from ragdash.ui.triage.common import open_library
from ragdash.ui.viewstate import ViewState

__all__ = ["export_buttons", "library_tab"]


def library_tab(index: CorpusIndex, view: ViewState) -> None:
    library = open_library()
    st.caption(
        f"Saved in {code(str(library_file()))}. In CI: "
        f"{code(check_command(settings().docs, settings().workspace))}."
    )
    entries = []
    if library is not None:
        try:
            entries = library.list()
        except LibraryError as exc:
            st.error(error_text(exc))
            return
    _import(library)
    if not entries:
        st.info("No saved cases yet: diagnose a report and save it, or import a cases.json.")
        return
    assert library is not None  # the entries were read from it
    runs = library.history()
    last = {run.case_name: run for run in runs if run.configuration == view.fixes.label}
    show_table(
        grid(pd.DataFrame(
            [
                {
                    "case": e.name,
                    "status": e.status,
                    "kind": e.case.kind,
                    "query": e.case.query,
                    "expected": e.case.expected_id,
                    "note": e.case.note,
                    # a short name: "last run (recency,status,ocr,…)" was cut at 800 px
                    "last run": (
                        ("pass" if last[e.name].passed else "FAIL") if e.name in last else "—"
                    ),
                    "updated": human_time(e.updated),
                }
                for e in entries
            ]
        )),
        hide_index=True,
        width="stretch",
    )
    st.caption(
        "Last run: the latest run under the current fixes "
        f"({label(configuration_title(view.fixes.label))})."
    )
    export_buttons(index, view, key="lib_export", entries=entries)
    names = [e.name for e in entries]
    picked = st.selectbox("Case", names, key="lib_pick", format_func=plain)
    entry = next(e for e in entries if e.name == picked)
    with st.form("lib_edit"):
        status = st.selectbox("Status", STATUSES, index=STATUSES.index(entry.status))
        note = st.text_area("Notes", value=entry.case.note)
        if st.form_submit_button("Save changes"):
            try:
                if status != entry.status:
                    library.update_status(entry.name, status)
                if note != entry.case.note:
                    library.update_notes(entry.name, note)
            except LibraryError as exc:
                st.error(error_text(exc))
            else:
                st.rerun()
    current = label(configuration_title(view.fixes.label))
    if st.button(f"Run again with the current fixes ({current})", key="lib_rerun"):
        try:
            rerun_and_record(index, library, entry.case, view.fixes)
        except (QueryError, LibraryError) as exc:
            st.error(error_text(exc))
        else:
            st.rerun()
    history = [r for r in runs if r.case_name == entry.name]
    st.markdown(f"**Run history** ({len(history)} runs)")
    show_table(
        grid(pd.DataFrame(
            [
                {
                    "when": human_time(r.at),
                    "configuration": configuration_title(r.configuration),
                    "verdict": "pass" if r.passed else "FAIL",
                    "diagnosis": r.diagnosis,
                }
                for r in reversed(history)
            ],
            columns=["when", "configuration", "verdict", "diagnosis"],
        )),
        hide_index=True,
        width="stretch",
    )


def export_buttons(
    index: CorpusIndex, view: ViewState, key: str, entries: list | None = None
) -> None:
    """The case library's two exports, cases.json and a pytest file. They record the docs
    folder and the workspace as paths relative to the exported file (the folder names by
    default, editable): a server's absolute paths mean nothing where the file is run."""
    if entries is None:
        library = open_library()
        try:
            entries = library.list() if library is not None else []
        except LibraryError as exc:
            st.error(error_text(exc))
            return
    saved = [e.case for e in entries]
    if not saved:
        return
    config = settings()
    with st.expander("Where the exported files find the documents"):
        st.caption(
            "Relative to the folder you keep the exported file in; RAGDASH_DOCS and "
            "RAGDASH_WORKSPACE override them when the tests run."
        )
        c1, c2 = st.columns(2)
        docs_text = c1.text_input(
            "Docs folder", portable_location(config.docs), key=f"{key}_docs", max_chars=300
        )
        ws_text = c2.text_input(
            "Workspace (uploads and edits)", portable_location(config.workspace),
            key=f"{key}_ws", max_chars=300,
        )  # fmt: skip
    try:
        docs = relative_location(docs_text, "docs folder")
        ws = relative_location(ws_text, "workspace")
    except ValueError as exc:
        st.error(f"Not exported: {literal(str(exc))}")
        return
    own_fix = st.checkbox(
        "Run each case under the fix that repairs it",
        value=True,
        key=f"{key}_own_fix",
        help="A case that a single fix repairs is exported with that fix; the others run under "
        "the current fixes. Off: every case runs under the current fixes.",
    )
    case_fixes = {}
    if own_fix:
        case_fixes = _repairing_fixes(index, fingerprint_key(), tuple(saved), view.fixes)
    # A row that wraps: each button as wide as its label, the next one below when needed.
    exports = st.container(horizontal=True)
    exports.download_button(
        "Export as cases.json",
        json_export(saved, docs=docs, workspace=ws, case_fixes=case_fixes),
        "cases.json",
        "application/json",
        key=f"{key}_json",
        help="The cases, where their documents live (docs folder and workspace, relative to "
        "the file) and each case's repairing fix.",
    )
    # The button says the fixes the file runs under: "(fixes: none)" wrote a file whose typo
    # case ran under fuzzy, its repairing fix.
    own = sorted({f.names for f in case_fixes.values()})
    export = f"Export as a pytest file (fixes: {label(configuration_title(view.fixes.names))})"
    if own:  # the button stays short enough for its column at 800 px; the caption says which
        export = "Export as a pytest file (fixes: per case)"
        exports.caption(
            "The pytest file runs each case under its repairing fix "
            f"({label(', '.join(map(configuration_title, own)))}) and the rest under "
            f"{label(configuration_title(view.fixes.names))}."
        )
    exports.download_button(
        export,
        pytest_module(saved, docs=docs, fixes=view.fixes, workspace=ws, case_fixes=case_fixes),
        "test_ragdash_cases.py",
        "text/x-python",
        key=f"{key}_pytest",
        help="A standalone test file: one test per case, run through ragdash's proof check on "
        "the docs folder plus the workspace's uploads and edits (RAGDASH_DOCS and "
        "RAGDASH_WORKSPACE override them), each case under its repairing fix when it has one. "
        "No network, no LLM.",
    )


@st.cache_data(show_spinner="Finding each case's repairing fix…", max_entries=16)
def _repairing_fixes(
    _index: CorpusIndex, corpus_key: tuple, cases: tuple[Case, ...], base: Fixes
) -> dict[str, Fixes]:
    found = {}
    for case in cases:
        try:
            fix = repairing_fix(_index, case, base)
        except QueryError:
            continue
        if fix is not None:
            found[case.name] = fix
    return found


def _import(library: CaseLibrary | None) -> None:
    with st.expander("Import a cases.json"):
        upload = st.file_uploader("cases.json", type=["json"], key="lib_import")
        overwrite = st.checkbox("Replace cases with the same name", key="lib_replace")
        if upload is None or not st.button("Import", key="lib_import_go"):
            return
        try:
            cases = parse_cases(upload.getvalue().decode("utf-8-sig"), upload.name)
        except (CaseFileError, UnicodeDecodeError) as exc:
            st.error(f"Not imported: {error_text(exc)}")
            return
        library = library or open_library(create=True)
        if library is None:
            return
        try:
            result = library.import_cases(cases, replace=overwrite)
        except LibraryError as exc:
            st.error(f"Not imported: {error_text(exc)}")
            return
        st.success(
            f"Imported: {len(result.added)} added, {len(result.updated)} replaced, "
            f"{len(result.skipped)} skipped (name already present)."
        )
