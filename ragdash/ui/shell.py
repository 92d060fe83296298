"""What every page shares: the index, the view, and the URL kept in step with both."""

from __future__ import annotations

import streamlit as st

from ragdash.retrieval.index import CorpusIndex
from ragdash.ui.context import current_index, fingerprint_key
from ragdash.ui.state import VIEW_KEY
from ragdash.ui.viewstate import ViewState


def page_context() -> tuple[CorpusIndex | None, ViewState, tuple]:
    """The shared index (cached), the current view (set by the sidebar) and the corpus key."""
    return current_index(quiet=True), st.session_state[VIEW_KEY], fingerprint_key()
