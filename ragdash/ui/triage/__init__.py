"""The Triage page: one tab per job, each in its own module (report, case library,
threshold calibration, robustness)."""

from __future__ import annotations

import streamlit as st

from ragdash.retrieval.index import CorpusIndex
from ragdash.ui.context import case_library
from ragdash.ui.shell import empty_corpus_notice
from ragdash.ui.text import literal
from ragdash.ui.triage.calibration import calibration_tab
from ragdash.ui.triage.library import library_tab
from ragdash.ui.triage.report import report_tab
from ragdash.ui.triage.robustness import robustness_tab
from ragdash.ui.viewstate import ViewState

__all__ = ["render"]


def render(index: CorpusIndex, view: ViewState, corpus_key: tuple) -> None:
    """The Triage page."""
    st.title("Triage")
    if empty_corpus_notice(index):
        return
    cases, problems = case_library()
    for problem in problems:
        st.error(literal(problem))
    report, library, calibration, robustness = st.tabs(
        ["Report", "Case library", "Threshold calibration", "Robustness"]
    )
    with report:
        report_tab(index, view, cases, corpus_key)
    with library:
        library_tab(index, view)
    with calibration:
        if view.retriever.kind != "seed":
            st.caption("Calibration sweeps the builtin scorer's fuzzy matching, whatever the "
                       "sidebar's retriever: it asks thousands of queries. The threshold it "
                       "finds is the one every retriever's query repair uses (the fuzzy fix "
                       "repairs a bm25, http, python or langchain query by the same rule).")
        calibration_tab(index, view, cases, corpus_key)
    with robustness:
        robustness_tab(index, view, cases, corpus_key)
