"""One stored document must not break a page: each document (a Documents entry, a result
on Explore, a passage in a Triage report) is drawn inside :func:`document_guard`, so when
drawing it fails the page shows an error card instead — what is wrong in plain words, and
for an upload its *Remove* button — and goes on with the next document.

Why not let Streamlit show the exception: it replaces the rest of the page with a
traceback (server paths included) for every session that opens the page, and the Remove
button of the bad document is never drawn, so only deleting the file by hand repaired it.

Streamlit's own control flow (``st.rerun``, *Stop*, a page switch) travels as
``BaseException`` subclasses and passes through untouched; the guard catches only errors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import streamlit as st

from ragdash.errors import RagdashError, WorkspaceError
from ragdash.ui.context import current_index, hide_paths, workspace
from ragdash.ui.text import label, literal

__all__ = ["document_guard", "document_source", "plain_reason", "section_guard"]

log = logging.getLogger(__name__)


def plain_reason(exc: BaseException) -> str:
    """What went wrong, in words a user can act on and without server paths::

        >>> plain_reason(KeyError("x"))
        'an unexpected error while drawing it (KeyError)'
        >>> plain_reason(FileNotFoundError(2, "No such file or directory", "/srv/a.pdf"))
        'its file cannot be read (No such file or directory)'
    """
    if isinstance(exc, RagdashError):
        return hide_paths(str(exc), {})
    if isinstance(exc, OSError):
        return f"its file cannot be read ({exc.strerror or type(exc).__name__})"
    if isinstance(exc, MemoryError):
        return "it needs more memory to draw than the server has"
    if isinstance(exc, RecursionError):
        return "it is nested too deeply to draw"
    return f"an unexpected error while drawing it ({type(exc).__name__})"


def document_source(doc_id: str) -> str:
    """The file name a document was loaded from (what the user knows), else its id."""
    index = current_index(quiet=True)
    doc = index.corpus.document(doc_id) if index is not None else None
    return doc.source if doc is not None else doc_id


def _remove(source: str) -> None:
    try:
        kept = workspace().remove_upload(source)
    except WorkspaceError as exc:
        st.session_state["doc_notice"] = f"Not removed: {exc}"
        return
    st.session_state["doc_notice"] = f"Removed {source} (kept as {kept.name})."


def document_guard(
    source: str | Callable[[], str],
    key: str,
    draw: Callable[[], None],
    removable: bool | None = None,
) -> bool:
    """Draw one document with ``draw``; if that fails, an error card for ``source`` (the
    file name the user knows; a callable is only asked when drawing failed) instead.
    ``key`` makes the card's widget keys unique (a document's
    :func:`ragdash.ui.documents.widget_id`). The card offers *Remove* when the
    document is an upload (``removable``; worked out from the workspace when None).
    Returns True when the document was drawn."""
    slot = st.empty()
    try:
        with slot.container():
            draw()
        return True
    except Exception as exc:  # noqa: BLE001 — any failure of one document is shown, not raised
        if callable(source):
            source = source()
        log.exception("drawing %s failed", source)
        slot.empty()
        with st.container(border=True):
            st.error(
                f"**{literal(source)}** cannot be shown: {literal(plain_reason(exc))}. "
                "The rest of the page works.",
                icon=":material/broken_image:",
            )
            if removable is None:
                removable = source in set(workspace().upload_names())
            if removable:
                st.button(
                    f"Remove {label(source)}",
                    key=f"guard_rm_{key}",
                    icon=":material/delete:",
                    on_click=_remove,
                    args=(source,),
                )
            else:
                st.caption(
                    "It is in the docs folder: fix or remove the file there, then reload."
                )
        return False


def section_guard(name: str, draw: Callable[[], None]) -> bool:
    """Draw a part of a page; if it fails, say which part and why, and keep the rest."""
    try:
        with st.container():
            draw()
        return True
    except Exception as exc:  # noqa: BLE001
        log.exception("drawing %s failed", name)
        st.error(
            f"**{literal(name)}** cannot be shown: {literal(plain_reason(exc))}.",
            icon=":material/error:",
        )
        return False
