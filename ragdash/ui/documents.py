"""Documents: upload, edit metadata, see pages and passages (tables fix off and on),
ingestion messages, remove uploads.

The list draws first; a document's view (its pages, passages, inspection, scan view) is
computed and sent only while its row is open (a lazy expander): with every document drawn
closed but complete, the page took 5.8–13 s to open with five documents and a scan. A PDF's
inspection is cached per file content."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.case import Case
from ragdash.checks.findability import (
    EvidenceFinding,
    PassageChange,
    evidence_findability,
    passage_diff,
)
from ragdash.checks.ocr_signals import OcrSignal, add_substitutions, ocr_signals
from ragdash.checks.textdiff import change_summary, marked_chunks
from ragdash.errors import IngestError, WorkspaceError
from ragdash.frames import frame
from ragdash.ingestion.documents import STATUSES, Document
from ragdash.ingestion.inspection import (
    IngestionReport,
    document_verdict,
    inspect_pdf,
    render_page_with_tables,
    verdict_level,
)
from ragdash.ingestion.progress import ProgressClock
from ragdash.ingestion.scans import OcrSettings
from ragdash.ingestion.segmentation import document_tables, max_passages
from ragdash.ingestion.textlayer import page_spec
from ragdash.ingestion.workspace import upload_label
from ragdash.retrieval.highlight import escape_text
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.versions import VersionPair, find_version_pairs
from ragdash.settings import format_ocr_map
from ragdash.ui.context import case_library, error_text, source_path, workspace
from ragdash.ui.glossary import define, help_for, show_table
from ragdash.ui.guard import document_guard
from ragdash.ui.listing import MESSAGES_SHOWN, paginate, render_messages
from ragdash.ui.moved import render_moved
from ragdash.ui.render import html_table, text_block, tooltips, wrapped_table
from ragdash.ui.rewrites import render_rewrite_budget
from ragdash.ui.scan_view import has_ocr, render_scan_view
from ragdash.ui.state import VIEW_KEY
from ragdash.ui.text import (
    code,
    colored_grid,
    grid,
    label,
    literal,
    plain,
    upper_first,
    visible_controls,
)  # fmt: skip

__all__ = [
    "DIFF_ROWS_SHOWN",
    "INGESTING_KEY",
    "LEVEL_COLORS",
    "LEVEL_MARKS",
    "LIST_COLUMNS",
    "LIST_WIDTHS",
    "PAGES_SHOWN",
    "SIGNAL_WIDTHS",
    "UPLOAD_TYPES",
    "open_key",
    "page_window",
    "render",
    "widget_id",
]

UPLOAD_TYPES = ["pdf", "txt", "md"]
#: The documents list's columns and their widths in px: 442 px in all, inside the 468 px
#: main column of an 800 px window with the sidebar open (the grid grows them when wider).
LIST_COLUMNS = ("id", "subject", "updated", "status", "verdict", "OCR", "joined")
LIST_WIDTHS = {"id": 80, "subject": 86, "updated": 80, "status": 72, "verdict": 60, "OCR": 38,
               "joined": 48}  # fmt: skip
#: A PDF's verdict as the documents list words it, in its colour (the Inspection tab says
#: it in full). Words, not emoji: the grid draws on a canvas, and a browser without an
#: emoji font drew "▯ care".
LEVEL_MARKS = {"green": "good", "amber": "care", "red": "at risk"}
LEVEL_COLORS = {"good": "#2b8a3e", "care": "#b35c00", "at risk": "#c92a2a"}
#: Header tooltips of the inspection columns.
LIST_HELP = {
    "verdict": "A PDF's inspection verdict: good (green), retrievable with care (amber) or at "
    "risk (red) — open the document's Inspection tab for why",
    "OCR": "Pages OCR read, of the document's pages",
    "joined": "Tables cut by a page break that the tables fix joins",
}
#: The OCR signals table's column widths in px (426 in all, as the documents list's).
SIGNAL_WIDTHS = {"document": 76, "token": 64, "count": 44, "read as": 64, "seen elsewhere": 52,
                 "substitution": 76, "in the map": 50}  # fmt: skip
#: Re-cut passages shown as text side by side (all of them are in the table above).
DIFF_ROWS_SHOWN = 20


INGESTING_KEY = "upload_in_progress"
#: This run's ingestion messages, so a document's tabs do not say them again.
_MESSAGES_KEY = "documents_messages"


def _interrupted_upload() -> None:
    """If the last run stopped while reading uploads (Cancel, Stop, a page switch), say so:
    what was saved before stays, the file being read and the rest of the batch were not."""
    pending = st.session_state.pop(INGESTING_KEY, None)
    if not pending:
        return
    done: set[str] = st.session_state.setdefault("uploaded_ids", set())
    done.update(pending["ids"])  # don't start them again on this run
    outcome = list(pending["outcome"])
    skipped = ", ".join(pending["names"][len(pending["saved"]) :])
    outcome.append(("warning", f"Upload cancelled while reading: {skipped} not saved"))
    st.session_state["upload_outcome"] = outcome


def _upload(index: CorpusIndex) -> None:
    ws = workspace()
    _interrupted_upload()
    files = st.file_uploader(
        "Upload documents (.pdf, .txt, .md)",
        # No type=: Streamlit's own check of the name raises (and loses the page for the
        # session) on a NUL byte; ragdash.ingestion.workspace.safe_file_name checks the
        # suffix and cleans the name with a message instead.
        type=None,
        accept_multiple_files=True,
        key="upload",
        help="Saved in the server's workspace folder, so a restart loses nothing.",
    )
    done: set[str] = st.session_state.setdefault("uploaded_ids", set())
    fresh = [f for f in files or [] if f.file_id not in done]
    if fresh:
        outcome: list[tuple[str, str]] = []
        # Kept until the batch ends: a rerun that finds it knows this run was interrupted.
        pending: dict[str, list[Any]] = {
            "ids": [f.file_id for f in fresh],
            "names": [upload_label(f.name) for f in fresh],
            "saved": [],
            "outcome": outcome,
        }
        st.session_state[INGESTING_KEY] = pending
        room = max_passages() - len(index.passages(False))
        bar = st.progress(0.0, text="Reading uploads…")
        # A click reruns the app, which stops this run at its next progress update; the file
        # being read is only written once it has loaded, so nothing half-read is kept.
        st.button("Cancel upload", key="upload_cancel", icon=":material/cancel:")
        for i, uploaded in enumerate(fresh):
            # the name as it will be saved (no control characters), escaped: an upload name
            # is user text and progress text is Markdown
            name = upload_label(uploaded.name)
            bar.progress(i / len(fresh), text=f"Reading {label(name)} ({i + 1:d}/{len(fresh)})")
            clock = ProgressClock()  # page, time elapsed and left, for this file

            def page_progress(
                fraction: float, step: str, i: int = i, name: str = name, clock=clock
            ) -> None:
                share, words = clock.update(fraction, step)
                overall = (i + share) / len(fresh)
                bar.progress(min(overall, 1.0), text=f"Reading {label(name)}: {label(words)}")

            try:
                saved = ws.save_upload(
                    uploaded.name, uploaded.getvalue(), progress=page_progress, passage_room=room
                )
            except WorkspaceError as exc:
                outcome.append(("error", str(exc)))
            else:
                room -= saved.passages  # later files of the batch share what is left
                outcome.append(("success", f"{saved.name} added to the workspace"))
                outcome.extend(("warning", f"{saved.name}: {w}") for w in saved.warnings)
            pending["saved"].append(upload_label(uploaded.name))
            done.add(uploaded.file_id)
        bar.progress(1.0, text="Saved — indexing the corpus (pages parsed once, from the cache)…")
        st.session_state.pop(INGESTING_KEY, None)
        st.session_state["upload_outcome"] = outcome
        st.rerun()
    # A file's warnings are also corpus messages, listed under "Ingestion messages" below:
    # said once, there (each upload warning was shown twice).
    listed = {f"{m.source}: {m.message}" for m in index.corpus.messages}
    for level, message in st.session_state.get("upload_outcome", []):
        if level == "warning" and message in listed:
            continue
        getattr(st, level)(literal(message))


def widget_id(doc: Document) -> str:
    """A widget key part unique to one loaded document: its list position and id (ids are
    unique in a corpus). Never the file name alone — an upload named like a bundled file
    (``crm.md``) would give two widgets one key and break the page for every session."""
    return f"{doc.order}:{doc.doc_id}"


def _edit_form(doc: Document, index: CorpusIndex) -> None:
    with st.form(f"edit_{widget_id(doc)}"):
        # two by two: four in a row cut the values at 800 px ("Subscription plar", "curre")
        c1, c2 = st.columns(2)
        c3, c4 = st.columns(2)
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
                st.error(f"Not saved: {error_text(exc)}")
                return
            st.session_state["doc_notice"] = f"Saved metadata of {doc.source}."
            st.rerun()


@st.cache_data(show_spinner=False, max_entries=256)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    """A file's content hash, read again only when it changes on disk."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _file_key(path: Path) -> str:
    found = path.stat()
    return _digest(str(path), found.st_mtime_ns, found.st_size)


@st.cache_data(show_spinner="Inspecting the PDF…", max_entries=32)
def _inspect(digest: str, _path: str, ocr_pages: tuple[int, ...] = ()) -> IngestionReport:
    # Keyed by content (digest), not by name: a re-upload or a renamed copy is not redone.
    # ocr_pages: page numbers from this PDF's own report (never typed): garbled pages to OCR
    with open(_path, "rb") as handle:
        return inspect_pdf(
            handle.read(), cache=workspace().cache, ocr=OcrSettings(pages=ocr_pages)
        )  # parsed once, ever


def _text_layer_offer(doc: Document, report: IngestionReport, ocr_key: str) -> None:
    """Pages whose text layer is garbled, with a button that OCRs them in this view, and the
    ``metadata.csv`` entry that makes it stick."""
    asked = st.session_state.get(ocr_key, ())
    unread = [n for n in asked if n in report.garbled_pages]  # Tesseract missing or no words
    if unread:
        st.warning(
            f"OCR did not replace the text layer of page(s) {literal(page_spec(unread))} "
            "(see the warnings below)."
        )
    if asked and not unread:
        spec = page_spec(asked)
        st.success(
            f"Pages {literal(spec)} were OCR'd in this view. To index them this way, give "
            f"{literal(doc.source)} the value {code(spec)} in an {code('ocr_pages')} column "
            f"of {code('metadata.csv')} (or run {code(f'ragdash inspect --ocr-pages {spec}')})."
        )
    if asked:
        st.button("Read the text layer again", key=f"{ocr_key}:undo", on_click=_set_ocr_pages,
                  args=(ocr_key, ()))  # fmt: skip
    if report.garbled_pages and not unread:
        spec = page_spec(report.garbled_pages)
        st.warning(
            f"Garbled text layer on page(s) {literal(spec)}: retrieval sees noise there."
        )
        st.button(
            f"OCR page(s) {label(spec)} instead",
            key=f"{ocr_key}:do",
            on_click=_set_ocr_pages,
            args=(ocr_key, tuple(sorted({*asked, *report.garbled_pages}))),
            help="Reads these pages with Tesseract instead of their text layer (this view).",
        )


def _set_ocr_pages(key: str, pages: tuple[int, ...]) -> None:
    st.session_state[key] = tuple(int(n) for n in pages)


@st.cache_data(show_spinner=False, max_entries=64)
def _page_image(digest: str, _path: str, page: int):
    with open(_path, "rb") as handle:
        return render_page_with_tables(handle.read(), page, resolution=80)


#: The verdict's colour → the alert that shows it: green, amber, red.
_VERDICT_BOX = {"green": st.success, "amber": st.warning, "red": st.error}


def show_verdict(verdict: str) -> None:
    """The verdict in a box of its colour (green Good, amber with care, red at risk)."""
    box = _VERDICT_BOX.get(verdict_level(verdict), st.info)
    box(f"**Will this PDF be retrieved correctly?** {literal(verdict)}")


def _inspection(doc: Document) -> None:
    """The ingestion report of a PDF and a page view with detected tables boxed."""
    path = source_path(doc.source)
    if path is None:
        st.info("The source file is no longer on disk.")
        return
    digest = _file_key(path)
    ocr_key = f"ocr_pages:{path}"
    try:
        report = _inspect(digest, str(path), st.session_state.get(ocr_key, ()))
    except IngestError as exc:
        st.error(f"{literal(doc.source)} {error_text(exc)}")
        return
    show_verdict(report.verdict)
    _text_layer_offer(doc, report, ocr_key)
    # Two by two: four in a row cut the labels at 800 px ("Page breaks j…").
    c = [*st.columns(2), *st.columns(2)]
    for column, name, value in zip(
        c,
        ("Pages", "Tables detected", "Text joined across page breaks", "Table rows rejoined"),
        (report.pages, len(report.tables), report.fragments_joined, report.rows_joined),
        strict=True,
    ):
        column.metric(label(name), value, help=literal(define(name) or ""))
    sizes = [
        {
            "tables fix": state,
            "passages": s.count,
            "shortest": s.min,
            "median": f"{s.median:g}",
            "90% up to": s.p90,
            "longest": s.max,
        }
        for state, s in (("off", report.passages_without_fix), ("on", report.passages_with_fix))
    ]
    st.caption("Passage lengths in characters, with the Join split tables fix off and on")
    # HTML tables wrap their headers: in the 800 px window's expander the grids scrolled
    st.html(html_table(sizes, tuple(sizes[0]), "Passage lengths in characters"))
    # The file's loading messages are listed once, under Ingestion messages at the top of the
    # page: said here again, an upload's "no 'updated' date" showed up to three times.
    listed = {m.message for m in st.session_state.get(_MESSAGES_KEY, ()) if m.source == doc.source}
    for warning in report.warnings:
        if warning not in listed:
            st.warning(literal(warning))
    if report.reversed_words:
        st.markdown("**Words read backwards** (rotated labels)")
        st.html(html_table(
            [{"page": page, "as read": read, "the word": word}
             for page, read, word in report.reversed_words],
            ("page", "as read", "the word"), "Words read backwards",
        ))  # fmt: skip
    if report.tables:
        found = [
            {
                "pages": f"{t.page_start}–{t.page_end}",
                "rows": t.rows,
                "columns": t.columns,
                "tables side by side": t.bands,
                "header": t.header,
                "rows rejoined": t.joined_rows,
            }
            for t in report.tables
        ]
        st.html(html_table(found, tuple(found[0]), "Tables detected"))
    if report.decisions:
        st.markdown("**Join decisions at page breaks**")
        # Wrapped, so each decision's reason reads in full (the grid cut the "why" column).
        st.html(
            html_table(
                [
                    {
                        "pages": f"{d.page_a}→{d.page_b}",
                        "joined": "yes" if d.joined else "no",
                        "why": d.reason,
                        "last row before": d.row_before,
                        "first row after": d.row_after,
                    }
                    for d in report.decisions
                ],
                ("pages", "joined", "why", "last row before", "first row after"),
                "Join decisions at page breaks",
            )
        )
    if report.furniture:
        with st.expander(f"Page furniture found ({len(report.furniture)})"):
            st.caption("Kept in each page's passage; skipped when deciding and making a join.")
            st.text(visible_controls("\n".join(report.furniture), keep_newlines=True))
    blank = [n for n in report.no_text_pages if n not in report.ocr_empty_pages]
    if blank:
        st.warning(f"Pages with no text layer: {literal(', '.join(map(str, blank)))}")
    chars = pd.DataFrame(
        {
            "page": list(range(1, report.pages + 1)),
            "characters": [int(c) for c in report.chars_per_page],
        }
    )
    st.caption("Text characters per page (0 = no text layer)")
    # As wide as its column: a fixed width (up to 900 px, 16 px a page) reached past an
    # 800 px window for a PDF of more than ~22 pages.
    st.altair_chart(
        alt.Chart(grid(chars))
        .mark_bar()
        .encode(
            x=alt.X("page:O", title="page"),
            y=alt.Y("characters:Q", title="characters"),
            tooltip=tooltips("page", "characters"),
        )
        .properties(height=140),
        width="stretch",
        height=200,
    )
    _try_query(doc)
    page = 1
    if report.pages > 1:
        page = st.slider("Page", 1, report.pages, 1, key=f"page_{widget_id(doc)}")
    try:
        image = _page_image(digest, str(path), page)
    except IngestError as exc:
        st.error(error_text(exc))
        return
    st.image(image, caption=f"Page {page}: detected tables boxed (red ruled, blue aligned)")


def _try_query(doc: Document) -> None:
    """A box to try a query against this document alone, tables fix off and on — with the
    sidebar's retriever when it can rank one document (seed, bm25); an external one
    searches its own whole index, so the seed scorer ranks and a caption says why."""
    query = st.text_input("Try a query against this document", key=f"try_{widget_id(doc)}")
    if not query.strip():
        return
    from ragdash.ingestion.documents import Corpus
    from ragdash.retrieval.bm25 import Bm25Retriever
    from ragdash.retrieval.ranking import Fixes

    chosen = st.session_state[VIEW_KEY].retriever
    alone = CorpusIndex(Corpus((doc,)))
    if chosen.kind == "bm25":
        alone = Bm25Retriever(alone, chosen)  # type: ignore[assignment]
        st.caption(f"Ranked by {literal(chosen.label)} over this document alone.")
    elif chosen.external:
        st.caption(f"Ranked by the builtin scorer: {literal(chosen.label)} searches its own "
                   "whole index, so it cannot be asked about one document.")  # fmt: skip
    cols = st.columns(2)
    for col, fixes, state in zip(
        cols, (Fixes(), Fixes().with_only(["tables"])), ("off", "on"), strict=True
    ):
        col.markdown(f"**tables fix {literal(state)}**")
        try:
            ranked = alone.top(query, fixes, 3)
        except Exception as exc:  # a bad query: say so, keep the page
            col.error(error_text(exc))
            continue
        for hit in ranked:
            col.caption(f"#{hit.rank:d} {literal(hit.passage.label)} · score {hit.score:.2f}")
            col.text(visible_controls(hit.passage.text[:600], keep_newlines=True))


@st.cache_data(show_spinner="Looking for OCR damage in the corpus…", max_entries=8)
def _ocr_signals_of(_index: CorpusIndex, corpus_key: tuple, ocr_map: tuple) -> list[OcrSignal]:
    # corpus_key stands in for the (unhashable) index: a changed corpus is a new entry.
    return ocr_signals(_index.corpus, ocr_map)


def _ocr_signals(index: CorpusIndex, corpus_key: tuple) -> None:
    """Tokens that look OCR-damaged and the substitution that would repair them."""
    # the view's settings, never the raw widget text: a half-typed map must not crash the page
    current = st.session_state[VIEW_KEY].fixes.ocr_map
    signals = _ocr_signals_of(index, corpus_key, tuple(current))
    if not signals:
        return
    with st.expander(f"OCR signals ({len(signals)})", expanded=any(not s.covered for s in signals)):
        st.caption(
            "Tokens with a digit inside a word, and the word seen elsewhere in the corpus "
            "that a substitution would turn them into — build the OCR map from these."
        )
        # Not yet covered by the map first: those are the ones with a button to press.
        shown = sorted(signals, key=lambda sig: sig.covered)[:MESSAGES_SHOWN]
        if len(signals) > MESSAGES_SHOWN:
            st.caption(
                f"Showing {MESSAGES_SHOWN:d} of {len(signals):,} (those the map does not cover "
                "first); the table below lists them all."
            )
            show_table(
                grid(pd.DataFrame(
                    [
                        {"document": plain(sig.doc_id), "token": plain(sig.token),
                         "count": sig.count, "read as": sig.proposed, "seen elsewhere": sig.seen,
                         "substitution": format_ocr_map(sig.substitutions),
                         "in the map": sig.covered}  # fmt: skip
                        for sig in signals
                    ]
                )),
                hide_index=True,
                width="stretch",
                column_config=SIGNAL_WIDTHS,
            )
        for i, sig in enumerate(shown):
            subs = format_ocr_map(sig.substitutions)
            c1, c2 = st.columns([4, 1])
            c1.markdown(
                f"{literal(sig.doc_id)}: {code(sig.token)} ×{sig.count:d} → {code(sig.proposed)} "
                f"(seen {sig.seen:d}× elsewhere) with {literal(subs)}"
            )
            if sig.covered:
                c2.caption("already in the map")
                continue
            c2.button(
                f"Add {label(subs)}",
                key=f"ocr_add_{i}",
                on_click=_add_to_map,
                args=(sig.substitutions,),
            )


def _add_to_map(substitutions: dict[str, str]) -> None:
    try:
        current = st.session_state[VIEW_KEY].fixes.substitutions  # the view, not widget text
        st.session_state["w_ocrmap"] = format_ocr_map(add_substitutions(current, substitutions))
        st.session_state["doc_notice"] = "OCR map updated; turn on OCR normalization to use it."
    except ValueError as exc:
        st.session_state["doc_notice"] = f"Not added: {exc}"


@st.cache_data(show_spinner="Looking for stale versions…", max_entries=8)
def _version_pairs(_index: CorpusIndex, corpus_key: tuple) -> list[VersionPair]:
    # corpus_key stands in for the (unhashable) index: a changed corpus is a new entry.
    return find_version_pairs(_index.corpus)


def _versions(index: CorpusIndex, corpus_key: tuple) -> None:
    """Document pairs that look like two versions of one text, and the risk they carry."""
    pairs = _version_pairs(index, corpus_key)
    if not pairs:
        st.caption("No stale versions: no two documents look like versions of each other.")
        return
    st.subheader(f"Possible stale versions ({len(pairs)})")
    st.caption(
        "Pairs with near-same subjects (or ids equal but for a date or version number), "
        "most of their words in common, and different dates or statuses: keyword scores tie "
        "between them, so list order, Recency tie-break or Skip withdrawn decides which one the "
        "model reads."
    )
    if len(pairs) > MESSAGES_SHOWN:
        st.caption(f"The first {MESSAGES_SHOWN:d} of {len(pairs):,} pairs; all are in the table.")
        show_table(
            grid(pd.DataFrame([{"pair": plain(p.sentence), "risk": plain(p.risk)} for p in pairs])),
            hide_index=True,
            width="stretch",
            column_config={"pair": 280, "risk": 150},
        )
    for pair in pairs[:MESSAGES_SHOWN]:
        st.warning(
            f"{literal(pair.sentence)}. **{literal(upper_first(pair.risk))}.**",
            icon=":material/difference:",
        )


@st.cache_data(show_spinner=False, max_entries=256)
def _diff_of(
    _index: CorpusIndex, corpus_key: tuple, doc_id: str, cases: tuple[Case, ...]
) -> tuple[list[EvidenceFinding], pd.DataFrame]:
    # Every PDF's diff is drawn on each rerun of the page: work it out once per corpus.
    diff = frame(passage_diff(_index, doc_id), PassageChange)
    return evidence_findability(_index, doc_id, cases), diff


def _ingestion_diff(
    doc: Document, index: CorpusIndex, cases: list[Case], corpus_key: tuple
) -> None:
    """Passages before and after the tables fix side by side, and which case evidence the
    fix makes findable in one passage."""
    findings, diff = _diff_of(index, corpus_key, doc.doc_id, tuple(cases))
    if findings:
        st.markdown("**Case evidence in one passage, tables fix off → on**")
        # wrapped: as a grid its five columns scrolled sideways at 800 px
        st.html(
            html_table(
                [
                    {
                        "case": f.case_name,
                        "evidence": f.evidence_text,
                        "fix off": ", ".join(f.without_fix) or "—",
                        "fix on": ", ".join(f.with_fix) or "—",
                        "change": f.change,
                    }
                    for f in findings
                ],
                ("case", "evidence", "fix off", "fix on", "change"),
                "Case evidence in one passage, tables fix off and on",
            )
        )
    st.markdown("**Passages before → after the tables fix**")
    st.caption(
        "With the tables fix every page keeps its passage exactly as without it — prose, "
        "running headers and footers, tables within one page — except that the lines of a "
        "table cut by a page break move into that table's own passages (joined, header in "
        "each, labelled with the pages its rows come from)."
    )
    changed = diff[diff["change"] != "unchanged"]
    same = len(diff) - len(changed)
    _joined_tables_view(doc)
    if changed.empty:
        st.caption(f"The tables fix cuts all {len(diff):d} passages the same way.")
    else:
        # Where each pair differs, in words, wrapped: the grid showed the first characters
        # of each text — the same running header on every row. In an expander: shown
        # first, its «…» → «…» edits were a wall between the reader and the tables.
        edits = st.expander(f"Where each re-cut passage differs ({len(changed):d})")
        edits.html(
            html_table(
                [
                    {
                        "before": row.before_label or "—",
                        "change": row.change,
                        "after": row.after_label or "—",
                        "where they differ": change_summary(row.before_text, row.after_text),
                    }
                    for row in changed.itertuples(index=False)
                ],
                ("before", "change", "after", "where they differ"),
                "Passages the tables fix cuts differently",
            )
        )
        if same:
            st.caption(f"{same:d} other passage(s) unchanged (in the full list below).")
    with st.expander(f"Every passage, before and after ({len(diff):d})"):
        show_table(
            diff[["before_label", "before_text", "change", "after_label", "after_text"]],
            hide_index=True,
            width="stretch",
            column_config={
                # px widths that fit the 398 px of an expander's tab at 800 px (the grid
                # grows them when wider); a cell's whole text shows on a double click
                "before_label": st.column_config.TextColumn("before", width=64),
                "before_text": st.column_config.TextColumn("text before", width=92),
                "change": st.column_config.TextColumn("change", width=64),
                "after_label": st.column_config.TextColumn("after", width=64),
                "after_text": st.column_config.TextColumn("text after", width=92),
            },
        )
    shown = changed.head(DIFF_ROWS_SHOWN)
    if shown.empty:
        return
    with st.expander(f"Texts side by side, differences marked ({len(shown)} re-cut passage(s))"):
        st.caption("Red: only in the text before; green: only in the text after.")
        for row in shown.itertuples(index=False):
            left, right = st.columns(2)
            left.caption(f"before: {literal(row.before_label or '—')} ({literal(row.change)})")
            right.caption(f"after: {literal(row.after_label or '—')}")
            before, after = marked_chunks(row.before_text or "", row.after_text or "")
            left.html(_marked_html(before, "rd-diff-del"))
            right.html(_marked_html(after, "rd-diff-ins"))


#: Tables cut by a page break drawn before and after the tables fix, and rows each shows.
TABLES_SHOWN = 5
TABLE_ROWS_SHOWN = 40


def _cells_html(header: Sequence[str], rows: Sequence[Sequence[str]], name: str) -> str:
    """Rows of cells as an escaped HTML table under ``header`` (left blank where there is
    none: a fragment without its header row is shown so). The header is the document's
    own text — ``scope="col"``, no glossary hover, unlike the page's tables."""
    width = max([len(header), *(len(r) for r in rows), 1])
    head = "".join(
        f'<th scope="col">{escape_text(header[i] if i < len(header) else "")}</th>'
        for i in range(width)
    )
    body = "".join(
        "<tr>" + "".join(
            f"<td>{escape_text(row[i] if i < len(row) and row[i] else '—')}</td>"
            for i in range(width)
        ) + "</tr>"
        for row in rows[:TABLE_ROWS_SHOWN]
    )  # fmt: skip
    return (
        f'<div class="rd-table-wrap"><table class="rd-table" aria-label="{escape_text(name)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _joined_tables_view(doc: Document) -> None:
    """Each table a page break cut, as a table: on the left its fragments as the page
    passages hold them with the fix off, on the right the one table the fix makes."""
    joined, _ = document_tables(doc)
    crossing = [t for t in joined if t.page_end > t.page_start]
    if not crossing:
        return
    st.markdown(f"**Tables cut by a page break ({len(crossing):d}), fix off and on**")
    for n, t in enumerate(crossing[:TABLES_SHOWN], start=1):
        left, right = st.columns(2)
        left.caption(
            f"Table {n:d}, fix off: {len(t.regions):d} fragments, each in its page's passage"
        )
        for page, region in t.regions:
            heads = region.rows[: region.header_rows]
            left.caption(f"page {page:d}")
            left.html(_cells_html(heads[0] if heads else (), region.rows[region.header_rows:],
                                  f"Table {n}, page {page} fragment"))  # fmt: skip
        rejoined = f", {t.rows_joined:d} cut row(s) re-assembled" if t.rows_joined else ""
        right.caption(
            f"Table {n:d}, fix on: one table, pages {t.page_start:d}–{t.page_end:d}, "
            f"{len(t.rows):d} rows{rejoined}"
        )
        header = t.column_names or t.header  # the header row's cells, not its text
        right.html(_cells_html(header, [r.cells for r in t.rows], f"Table {n} joined"))
        if len(t.rows) > TABLE_ROWS_SHOWN:
            right.caption(f"The first {TABLE_ROWS_SHOWN:d} rows of {len(t.rows):,}.")
    if len(crossing) > TABLES_SHOWN:
        st.caption(f"The first {TABLES_SHOWN:d} of {len(crossing):d} tables.")


def _marked_html(chunks: list[tuple[str, bool]], mark: str) -> str:
    """A passage with the runs that differ marked: each run escaped on its own, then
    wrapped (never markup from the document)."""
    body = "".join(
        f'<mark class="{mark}">{escape_text(run)}</mark>' if differs else escape_text(run)
        for run, differs in chunks
    )
    return f'<div class="rd-passage">{body or "—"}</div>'


def _passages_table(index: CorpusIndex, doc_id: str, tables: bool) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "passage": plain(p.label),
                "kind": p.kind,
                "chars": len(p.text),
                "text": visible_controls(p.text, keep_newlines=True),
            }
            for p in index.passages_of(doc_id, tables)
        ]
    )


#: Pages of a document drawn at once on its Pages tab: a 400-page PDF drew every page (347 KB
#: of text) and the page took 16-37 s to settle after an upload.
PAGES_SHOWN = 10


def page_window(count: int, key: str) -> tuple[int, int]:
    """The first and last page to draw (1-based): all of a short document, else the
    :data:`PAGES_SHOWN` pages from the one the reader picks."""
    if count <= PAGES_SHOWN:
        return 1, count
    starts = list(range(1, count + 1, PAGES_SHOWN))
    first = st.selectbox(
        f"Pages ({count:,} in all)",
        starts,
        key=f"pages_from_{key}",
        format_func=lambda n: f"{n:,}–{min(n + PAGES_SHOWN - 1, count):,}",
    )
    return int(first), min(int(first) + PAGES_SHOWN - 1, count)


def open_key(doc: Document) -> str:
    """The session key that says whether a document's row is open (``True``: its view is
    drawn; a test opens it by setting the key)."""
    return f"doc_open_{widget_id(doc)}"


def _document(
    doc: Document, index: CorpusIndex, uploads: set[str], cases: list[Case], corpus_key: tuple
) -> None:
    date = doc.updated.isoformat() if doc.updated else "undated"
    title = f"{doc.doc_id} — {doc.subject} · {doc.source} · {date} · {doc.status}"
    # Lazy: a closed row computes nothing and sends nothing; opening it reruns the page.
    with st.expander(label(title), key=open_key(doc), on_change="rerun") as row:
        if not row.open:
            return
        _edit_form(doc, index)
        names = [f"Pages ({len(doc.pages)})", "Passages"]
        if doc.kind == "pdf":
            names.append("Inspection")
        if has_ocr(doc):
            names.append("OCR (scanned pages)")
        tabs = st.tabs(names)
        if has_ocr(doc):
            with tabs[-1]:
                render_scan_view(doc, index, widget_id(doc))
        pages_tab, passages_tab = tabs[0], tabs[1]
        if doc.kind == "pdf":
            with tabs[2]:
                _inspection(doc)
        with pages_tab:
            first, last = page_window(len(doc.pages), widget_id(doc))
            for number in range(first, last + 1):
                page = doc.pages[number - 1]
                st.caption(f"Page {number:d} · {len(page):d} characters")
                text_block(page or "(no text on this page)")
        with passages_tab:
            if doc.kind == "pdf":
                _ingestion_diff(doc, index, cases, corpus_key)
            else:
                wrapped_table(_passages_table(index, doc.doc_id, False), "Passages")
                st.caption("A text file is cut the same way with the tables fix off and on.")
        remove = f"Remove {label(doc.source)}"
        if doc.source in uploads and st.button(remove, key=f"rm_{widget_id(doc)}"):
            try:
                kept = workspace().remove_upload(doc.source)
            except WorkspaceError as exc:
                st.error(error_text(exc))
                return
            st.session_state["doc_notice"] = f"Removed {doc.source} (kept as {kept.name})."
            st.rerun()


def render(index: CorpusIndex, corpus_key: tuple) -> None:
    """The Documents page."""
    st.title("Documents")
    notice = st.session_state.pop("doc_notice", None)
    if notice:
        st.success(literal(notice))
    _upload(index)
    cases, _ = case_library()
    render_moved(index, corpus_key, cases, st.session_state[VIEW_KEY].fixes)
    render_messages(index.corpus.messages, corpus_key)
    st.session_state[_MESSAGES_KEY] = index.corpus.messages
    _ocr_signals(index, corpus_key)
    corpus = index.corpus
    listed = _documents_frame(index, corpus_key)
    # Five columns sized to fit an 800 px window beside the sidebar (eight scrolled sideways
    # and lost pages, updated and status); the file, kind and place in the list are below.
    # the verdict in its colour: a Styler, which show_table's plain frame cannot carry
    config = {name: {"width": width, "help": LIST_HELP[name]} if name in LIST_HELP else width
              for name, width in LIST_WIDTHS.items()}  # fmt: skip
    shown_list = colored_grid(listed, "verdict", LEVEL_COLORS)
    st.dataframe(
        shown_list,
        hide_index=True,
        width="stretch",
        column_order=LIST_COLUMNS,
        column_config=help_for(listed.columns, config),
    )
    with st.expander("Files, kinds and list order"):
        show_table(listed[["order", "id", "file", "kind"]], hide_index=True, width="stretch")
    st.caption(
        "Rows are in list order, which decides score ties when no fix is on: metadata.csv "
        "rows first, then the other files by name, then uploads."
    )
    _versions(index, corpus_key)
    render_rewrite_budget(index, st.session_state[VIEW_KEY].fixes)
    uploads = set(workspace().upload_names())
    # one bad document shows an error card; the rest draws
    shown = paginate(corpus.documents, "docs", lambda d: f"{d.doc_id} {d.subject} {d.source}")
    for doc in shown:
        document_guard(
            doc.source,
            widget_id(doc),
            partial(_document, doc, index, uploads, cases, corpus_key),
            removable=doc.source in uploads,
        )


@st.cache_data(show_spinner=False, max_entries=8)
def _documents_frame(_index: CorpusIndex, corpus_key: tuple) -> pd.DataFrame:
    # One row per document: built once per corpus, not on every rerun.
    return pd.DataFrame(
        [
            {
                "order": d.order + 1,
                # the grid draws text as it is: bidi controls would reorder the cell
                "id": plain(d.doc_id),
                "subject": plain(d.subject),
                "file": plain(d.source),
                "kind": d.kind,
                "pages": len(d.pages),
                "updated": d.updated.isoformat() if d.updated else "—",
                "status": d.status,
                **_inspection_columns(d),
            }
            for d in _index.corpus.documents
        ],
        columns=["order", "id", "subject", "file", "kind", "pages", "updated", "status",
                 "verdict", "OCR", "joined"],  # fmt: skip
    )


def _inspection_columns(doc: Document) -> dict[str, str]:
    """A PDF's verdict as a colour and a word, the pages OCR read and the tables joined
    across page breaks, from the document as loaded (the file is not read again)."""
    if doc.kind != "pdf":
        return {"verdict": "—", "OCR": "—", "joined": "—"}
    layouts = doc.layouts or ()
    ocr = sum(1 for x in layouts if getattr(x, "ocr", None) is not None)
    tables = document_tables(doc)  # once: the verdict and the column both need it
    verdict = document_verdict(doc, tables=tables)
    joined = sum(1 for t in tables[0] if t.page_end > t.page_start)
    return {
        "verdict": LEVEL_MARKS.get(verdict_level(verdict), "—"),
        "OCR": f"{ocr}/{len(doc.pages)}" if ocr else "—",
        "joined": str(joined) if joined else "—",
    }

