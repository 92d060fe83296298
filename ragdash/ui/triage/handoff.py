"""Explore → Triage in one click: the query on screen, the sidebar's fixes and the expected
document (when one is chosen) open the Triage report already diagnosed. Typing them again —
about twelve clicks and fields — was the way before."""

from __future__ import annotations

import streamlit as st

from ragdash.checks.triage import Report
from ragdash.ui.navigation import pages
from ragdash.ui.triage.report import FOLDED_KEY, REPORT_KEY, SAVED_KEY
from ragdash.ui.viewstate import ViewState

__all__ = ["HANDOFF_KEY", "triage_button"]

#: Set for one run when Explore hands a query over (the Triage page says where it came from).
HANDOFF_KEY = "triage_from_explore"


def triage_button(view: ViewState, container=None) -> None:
    """A "Triage this query" button: on a click, fills the Triage report with this view's
    query, expected document, evidence and top-k, diagnoses it when a document is expected
    (the fixes are the sidebar's, shared by every page), and opens Triage."""
    where = container if container is not None else st
    if not where.button(
        "Triage this query",
        key="explore_triage",
        icon=":material/bug_report:",
        disabled=not view.q.strip(),
        help="Opens Triage with this query, the expected document and evidence filled in, "
        "diagnosed under every configuration.",
    ):
        return
    for key in ("tr_name", SAVED_KEY, REPORT_KEY, "tr_find"):
        st.session_state.pop(key, None)
    st.session_state["tr_query"] = view.q
    st.session_state["tr_evidence"] = "; ".join(view.evidence)
    st.session_state["tr_k"] = int(view.k)
    if view.expect:
        st.session_state["tr_expect"] = view.expect
        st.session_state[REPORT_KEY] = Report(view.q, view.expect, view.evidence, "", view.k)
        st.session_state[FOLDED_KEY] = True
    else:
        st.session_state.pop("tr_expect", None)
        st.session_state.pop(FOLDED_KEY, None)
    st.session_state[HANDOFF_KEY] = True
    st.switch_page(pages().triage)
