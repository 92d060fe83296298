"""The one view state shared by all pages: read from the URL once per session, kept in
``st.session_state`` across page switches, and written back to the URL on every run."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ragdash.case import Case
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.ui.context import settings
from ragdash.ui.text import code, literal
from ragdash.ui.viewstate import ViewState, from_params

__all__ = [
    "EXPECT_FOR_KEY",
    "LINK_CORPUS_KEY",
    "PAGE_PARAMS_KEY",
    "PENDING_KEY",
    "VIEW_KEY",
    "WIDGET_KEYS",
    "case_for_query",
    "corpus_link_warning",
    "current_view",
    "default_view",
    "normalised_query",
    "open_case",
    "seed_widget",
    "set_view",
    "sync_url",
]

VIEW_KEY = "view"
#: URL parameters of the page itself (the tour's ``step``), set by the page on each run and
#: written beside the view's.
PAGE_PARAMS_KEY = "page_params"
#: The query the proof check's expectation (expected document, evidence) was set for.
EXPECT_FOR_KEY = "expect_for"
#: An expectation set aside when the query changed: (its query, expected id, evidence).
PENDING_KEY = "expect_pending"
#: The ``corpus`` hash of the link the session was opened with ('' if none).
LINK_CORPUS_KEY = "link_corpus"
#: Widget keys whose values come from the view; cleared to re-seed widgets from a new view.
WIDGET_KEYS = (
    "w_q",
    "w_fault",
    "w_rate",
    "w_seed",
    "w_expect",
    "w_evidence",
    "w_k",
    "w_fuzzyrule",
    "w_threshold",
    "w_ocrmap",
    "w_fix_recency",
    "w_fix_status",
    "w_fix_ocr",
    "w_fix_fuzzy",
    "w_fix_tables",
    "w_fix_versions",
    "w_fix_unicode",
    "w_protect",
)


def default_view(cases: list[Case], retriever: RetrieverSpec | None = None) -> ViewState:
    """With no URL parameters, open on an empty query ranked by ``retriever`` (the one the
    dashboard was started with; seed by default). It used to open on the first case of the
    library, with no fix: a demo's first screen was a red FAIL box nobody had asked for. The
    cases are one click away on Explore's four-flaw hero and its case picker instead."""
    del cases  # kept in the signature: callers pass the library
    return ViewState(retriever=retriever or RetrieverSpec())


def normalised_query(query: str) -> str:
    """A query as two people typing it would agree it is the same: casefolded, runs of
    whitespace collapsed, ends trimmed.

    >>> normalised_query("  Warehuse   SYNC ")
    'warehuse sync'
    """
    return " ".join(query.casefold().split())


def case_for_query(cases: list[Case], query: str, prefer: str | None = None) -> Case | None:
    """The known case whose query ``query`` is (compared by :func:`normalised_query`), so
    typing a bundled or library case's query picks up its expectation; ``prefer`` (the case
    already picked) wins when several cases share the query. None for an unknown query."""
    wanted = normalised_query(query)
    if not wanted:
        return None
    found = [c for c in cases if normalised_query(c.query) == wanted]
    return next((c for c in found if c.name == prefer), found[0] if found else None)


def current_view(cases: list[Case]) -> ViewState:
    """The session's view; on the first run it comes from the URL (bad values → warning).
    A link naming a query is a whole view (left-out parameters are at their defaults, as
    :meth:`ViewState.to_params` writes them); without one, the first case fills the rest."""
    if VIEW_KEY not in st.session_state:
        params = dict(st.query_params.to_dict())
        operator = settings().retriever
        base = ViewState() if "q" in params else default_view(cases, operator)
        view, problems = from_params(params, base, operator)
        st.session_state[VIEW_KEY] = view
        st.session_state[LINK_CORPUS_KEY] = params.get("corpus", "")
        st.session_state["url_problems"] = problems
    for problem in st.session_state.get("url_problems", []):
        st.warning(f"Link parameter ignored: {literal(problem)}")
    return st.session_state[VIEW_KEY]


def set_view(view: ViewState, reseed_widgets: bool = False) -> None:
    st.session_state[VIEW_KEY] = view
    if reseed_widgets:
        for key in WIDGET_KEYS:
            st.session_state.pop(key, None)


def open_case(case: Case) -> None:
    """Put a case into the view (query, expected id, evidence, top-k)."""
    view = st.session_state.get(VIEW_KEY) or ViewState()
    set_view(
        replace(
            view,
            q=case.query,
            fault="none",
            expect=case.expected_id,
            evidence=case.evidence,
            k=max(case.top_k, 1),
        ),
        reseed_widgets=True,
    )
    st.session_state[EXPECT_FOR_KEY] = case.query  # the expectation is this query's
    st.session_state.pop(PENDING_KEY, None)


def corpus_link_warning(fingerprint: str) -> None:
    """Warn when the link this session opened was made on another corpus (its ``corpus``
    hash differs): the same view would silently give other results."""
    linked = st.session_state.get(LINK_CORPUS_KEY, "")
    if linked and linked != fingerprint:
        st.warning(
            f"This link was made on a different corpus ({code(linked[:16])}; the one "
            f"loaded here is {code(fingerprint)}): documents, dates or statuses differ, so the "
            "results below may not be the ones that were shared.",
            icon=":material/link_off:",
        )


def sync_url(view: ViewState, corpus: str | None = None) -> None:
    """Write the view — and the ``corpus`` hash it was seen on — into the URL, so the
    address bar is always a shareable link."""
    params = view.to_params()
    if corpus:
        params["corpus"] = corpus
    params.update(st.session_state.pop(PAGE_PARAMS_KEY, None) or {})
    if dict(st.query_params.to_dict()) != params:
        st.query_params.from_dict(params)


def seed_widget(key: str, value: object) -> None:
    """Give a widget its value from the view unless the user has already set it."""
    if key not in st.session_state:
        st.session_state[key] = value
