"""What the Triage tabs share: the workspace's case library and the report's state keys."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragdash.errors import LibraryError
from ragdash.storage.library import CaseLibrary
from ragdash.ui.context import library_file
from ragdash.ui.render import (
    md_escape,
)


def library_path() -> Path:
    return library_file()


def open_library(create: bool = False) -> CaseLibrary | None:
    """The workspace's case library; None if there is none yet (and ``create`` is off) or
    it cannot be used — then the page says why (the file is never overwritten)."""
    path = library_path()
    if not create and not path.exists():
        return None
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        return CaseLibrary(path)
    except (LibraryError, OSError) as exc:
        st.error(f"Case library unavailable: {md_escape(str(exc))}", icon=":material/error:")
        return None
