"""What every page shares: the index, the view, and the URL kept in step with both."""

from __future__ import annotations

import streamlit as st

from ragdash.retrieval.index import CorpusIndex
from ragdash.ui.context import current_index, fingerprint_key, settings
from ragdash.ui.navigation import pages
from ragdash.ui.state import VIEW_KEY
from ragdash.ui.text import code
from ragdash.ui.viewstate import ViewState

__all__ = ["empty_corpus_notice", "page_context"]


def page_context() -> tuple[CorpusIndex | None, ViewState, tuple]:
    """The shared index (cached), the current view (set by the sidebar) and the corpus key:
    the files' digest and the loaded corpus's own hash (the same files give another corpus
    under another passage limit), short so that keying a cache on it costs nothing."""
    index = current_index(quiet=True)
    key = (*fingerprint_key(), index.fingerprint if index is not None else "")
    return index, st.session_state[VIEW_KEY], key


def empty_corpus_notice(index: CorpusIndex) -> bool:
    """Say what to do when no document is loaded; True if the page should stop there."""
    if index.corpus.documents:
        return False
    errors = [m for m in index.corpus.messages if m.level == "error"]
    where = code(str(settings().docs))
    if errors:
        st.warning(
            f"No document could be loaded from {where}: {len(errors)} "
            f"{'file was' if len(errors) == 1 else 'files were'} refused. The Documents page "
            "says why for each; add readable .md, .txt or .pdf files, or upload one there.",
            icon=":material/folder_off:",
        )
    else:
        st.info(
            f"No documents yet: {where} holds no .md, .txt or .pdf file. Add some there, or "
            "upload one on the Documents page. The Guided tour runs on the bundled samples.",
            icon=":material/folder_open:",
        )
    st.page_link(pages().documents, label="Go to Documents", icon=":material/upload_file:")
    return True
