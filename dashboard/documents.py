"""Documents: upload, edit metadata, see pages and passages (tables fix off and on),
ingestion messages, remove uploads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.context import workspace
from dashboard.render import md_escape, text_block
from ragdash.documents import STATUSES, Document
from ragdash.index import CorpusIndex
from ragdash.workspace import WorkspaceError

UPLOAD_TYPES = ["pdf", "txt", "md"]


def _upload(index: CorpusIndex) -> None:
    ws = workspace()
    files = st.file_uploader(
        "Upload documents (.pdf, .txt, .md)",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key="upload",
        help=f"Saved in the workspace folder ({ws.root}), so a restart loses nothing.",
    )
    done: set[str] = st.session_state.setdefault("uploaded_ids", set())
    fresh = [f for f in files or [] if f.file_id not in done]
    if fresh:
        outcome: list[tuple[str, str]] = []
        bar = st.progress(0.0, text="Reading uploads…")
        for i, uploaded in enumerate(fresh):
            bar.progress(i / len(fresh), text=f"Reading {uploaded.name} ({i + 1}/{len(fresh)})")
            done.add(uploaded.file_id)
            try:
                name, warnings = ws.save_upload(uploaded.name, uploaded.getvalue())
            except WorkspaceError as exc:
                outcome.append(("error", str(exc)))
                continue
            outcome.append(("success", f"{name} added to the workspace"))
            outcome.extend(("warning", f"{name}: {w}") for w in warnings)
        bar.empty()
        st.session_state["upload_outcome"] = outcome
        st.rerun()
    for level, message in st.session_state.pop("upload_outcome", []):
        getattr(st, level)(md_escape(message))


def _messages(index: CorpusIndex) -> None:
    messages = index.corpus.messages
    if not messages:
        return
    with st.expander(f"Ingestion messages ({len(messages)})", expanded=True):
        for m in messages:
            show = st.error if m.level == "error" else st.warning
            show(md_escape(str(m)))


def _edit_form(doc: Document, index: CorpusIndex) -> None:
    with st.form(f"edit_{doc.source}"):
        c1, c2, c3, c4 = st.columns([2, 3, 2, 2])
        new_id = c1.text_input("ID", doc.doc_id)
        subject = c2.text_input("Subject", doc.subject)
        updated = c3.text_input(
            "Updated (YYYY-MM-DD)", doc.updated.isoformat() if doc.updated else ""
        )
        status = c4.selectbox("Status", STATUSES, index=STATUSES.index(doc.status))
        if st.form_submit_button("Save metadata"):
            try:
                workspace().save_edit(
                    index.corpus,
                    doc.source,
                    {"id": new_id, "subject": subject, "updated": updated, "status": status},
                )
            except WorkspaceError as exc:
                st.error(f"Not saved: {md_escape(str(exc))}")
                return
            st.session_state["doc_notice"] = f"Saved metadata of {doc.source}."
            st.rerun()


def _passages_table(index: CorpusIndex, doc_id: str, tables: bool) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"passage": p.label, "kind": p.kind, "chars": len(p.text), "text": p.text}
            for p in index.passages(tables)
            if p.doc_id == doc_id
        ]
    )


def _document(doc: Document, index: CorpusIndex, uploads: set[str]) -> None:
    date = doc.updated.isoformat() if doc.updated else "undated"
    label = f"{doc.doc_id} — {doc.subject} · {doc.source} · {date} · {doc.status}"
    with st.expander(md_escape(label)):
        _edit_form(doc, index)
        pages_tab, passages_tab = st.tabs([f"Pages ({len(doc.pages)})", "Passages"])
        with pages_tab:
            for number, page in enumerate(doc.pages, start=1):
                st.caption(f"Page {number} · {len(page)} characters")
                text_block(page or "(no text on this page)")
        with passages_tab:
            left, right = st.columns(2)
            for column, tables, title in (
                (left, False, "Tables fix off"),
                (right, True, "Tables fix on"),
            ):
                column.markdown(f"**{title}**")
                column.dataframe(
                    _passages_table(index, doc.doc_id, tables), hide_index=True, width="stretch"
                )
        if doc.source in uploads and st.button(f"Remove {doc.source}", key=f"rm_{doc.source}"):
            try:
                kept = workspace().remove_upload(doc.source)
            except WorkspaceError as exc:
                st.error(md_escape(str(exc)))
                return
            st.session_state["doc_notice"] = f"Removed {doc.source} (kept as {kept.name})."
            st.rerun()


def render(index: CorpusIndex) -> None:
    """The Documents page."""
    st.title("Documents")
    notice = st.session_state.pop("doc_notice", None)
    if notice:
        st.success(md_escape(notice))
    _upload(index)
    _messages(index)
    corpus = index.corpus
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "order": d.order + 1,
                    "id": d.doc_id,
                    "subject": d.subject,
                    "file": d.source,
                    "kind": d.kind,
                    "pages": len(d.pages),
                    "updated": d.updated.isoformat() if d.updated else "—",
                    "status": d.status,
                }
                for d in corpus.documents
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    st.caption(
        "List order decides score ties when no fix is on: metadata.csv rows first, "
        "then the other files by name, then uploads."
    )
    uploads = set(workspace().upload_names())
    for doc in corpus.documents:
        _document(doc, index, uploads)
