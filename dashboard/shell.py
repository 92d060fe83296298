"""What every page shares: the index, the view, and the URL kept in step with both."""

from __future__ import annotations

import streamlit as st

from dashboard.context import current_index, fingerprint_key
from dashboard.state import VIEW_KEY
from dashboard.viewstate import ViewState
from ragdash.index import CorpusIndex


def page_context() -> tuple[CorpusIndex | None, ViewState, tuple]:
    """The shared index (cached), the current view (set by the sidebar) and the corpus key."""
    return current_index(), st.session_state[VIEW_KEY], fingerprint_key()
