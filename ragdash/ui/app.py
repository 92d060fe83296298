"""The dashboard's main script body, shared by the top-level ``app.py`` (``streamlit run
app.py``) and ``ragdash dashboard`` (which runs :mod:`ragdash.ui.streamlit_app`).

Streamlit re-executes the main script on every interaction, but imports modules once, so
the entry scripts call :func:`run` rather than doing the work at import time."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragdash.ui.context import case_library, current_index, ensure_index
from ragdash.ui.render import inject_css
from ragdash.ui.sidebar import render_sidebar
from ragdash.ui.state import corpus_link_warning, current_view, sync_url

__all__ = ["PAGES_DIR", "run"]

PAGES_DIR = Path(__file__).resolve().parent / "pages"


def run() -> None:
    """Set up the page, the navigation and the sidebar, then render the chosen page."""
    st.set_page_config(page_title="ragdash", page_icon=":material/search:", layout="wide")
    inject_css()
    pages = [
        st.Page(
            PAGES_DIR / "explore.py",
            title="Explore",
            icon=":material/search:",
            url_path="explore",
            default=True,
        ),
        st.Page(
            PAGES_DIR / "tour.py",
            title="Guided tour",
            icon=":material/tour:",
            url_path="tour",
        ),
        st.Page(
            PAGES_DIR / "suite.py", title="Test suite", icon=":material/science:", url_path="suite"
        ),
        st.Page(
            PAGES_DIR / "documents.py",
            title="Documents",
            icon=":material/description:",
            url_path="documents",
        ),
        st.Page(
            PAGES_DIR / "triage.py",
            title="Triage",
            icon=":material/bug_report:",
            url_path="triage",
        ),
    ]
    navigation = st.navigation(pages)
    index = current_index()
    cases, _ = case_library()
    view = render_sidebar(current_view(cases), index)
    if index is not None:
        ensure_index(index, view.fixes)
        corpus_link_warning(index.fingerprint)
    navigation.run()
    sync_url(st.session_state["view"], index.fingerprint if index is not None else None)
