"""What the Triage tabs share: the workspace's case library, opened with its problems shown."""

from __future__ import annotations

import streamlit as st

from ragdash.errors import LibraryError
from ragdash.storage import case_store
from ragdash.storage.library import CaseLibrary
from ragdash.ui.context import error_text, settings

__all__ = ["open_library"]


def open_library(create: bool = False) -> CaseLibrary | None:
    """The workspace's case library (:func:`ragdash.storage.case_store.open_library`); None
    if there is none yet (and ``create`` is off) or it cannot be used — then the page says
    why (the file is never overwritten)."""
    try:
        return case_store.open_library(settings().workspace, create=create)
    except (LibraryError, OSError) as exc:
        reason = error_text(exc)
        st.error(f"Case library unavailable: {reason}", icon=":material/error:")
        return None
