"""The sidebar's retriever selector, and the retriever every page ranks with.

The selector writes a :class:`ragdash.retrieval.spec.RetrieverSpec` into the view (so the
link carries what is safe to share). Pages call :func:`page_retriever`, which answers with the
retriever that is actually *usable*:

* an ``http`` service is called only after the user pressed **Connect** for that exact URL
  in this session — a link cannot make the dashboard send queries somewhere on its own;
* a ``python`` callable that cannot be imported, or an ``http`` URL not yet connected,
  falls back to the seed scorer with the reason shown in the sidebar.

External results are cached for :data:`EXTERNAL_TTL` seconds per (retriever settings,
corpus, query, fixes, k) so typing in a widget does not re-ask the service for the same
thing; a failure is never cached (Streamlit does not cache a raised exception).
"""

from __future__ import annotations

import os
import sys
from dataclasses import astuple, replace

import pandas as pd
import streamlit as st

from ragdash.errors import RetrieverError, SettingsError
from ragdash.retrieval.bm25 import Bm25Retriever
from ragdash.retrieval.hits import Retriever
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.retrieval.retrievers import make_retriever
from ragdash.retrieval.spec import (
    RETRIEVER_DESCRIPTIONS,
    RETRIEVER_KINDS,
    SHAPES,
    RetrieverSpec,
    fix_support,
)
from ragdash.settings import Fixes
from ragdash.ui.state import seed_widget
from ragdash.ui.text import code, literal

__all__ = [
    "EXTERNAL_TTL",
    "RETRIEVER_WIDGET_KEYS",
    "bm25_frame",
    "checks_source",
    "searches_here",
    "page_retriever",
    "render_retriever_picker",
    "retriever_search",
]

EXTERNAL_TTL = 30
CONNECTED_KEY = "retriever_connected_url"
PROBLEM_KEY = "retriever_problem"
RETRIEVER_WIDGET_KEYS = ("w_retriever", "w_k1", "w_b", "w_url", "w_callable", "w_shape",
                         "w_timeout")  # fmt: skip
LABELS = {"seed": "seed (ragdash scorer)", "bm25": "bm25", "http": "HTTP service",
          "python": "Python function"}  # fmt: skip


def render_retriever_picker(view_spec: RetrieverSpec) -> RetrieverSpec:
    """Draw the selector in the sidebar; returns the spec the user chose (kept in the view
    even while it cannot be used, so the link and the widgets keep it)."""
    bar = st.sidebar
    bar.markdown("### Retriever")
    seed_widget("w_retriever", view_spec.kind)
    kind = bar.selectbox(
        "Retriever",
        RETRIEVER_KINDS,
        key="w_retriever",
        format_func=LABELS.get,
        label_visibility="collapsed",
        help="; ".join(f"**{k}**: {text}" for k, text in RETRIEVER_DESCRIPTIONS.items()),
    )
    settings: dict[str, object] = {"kind": kind}
    if kind == "bm25":
        seed_widget("w_k1", float(view_spec.k1))
        seed_widget("w_b", float(view_spec.b))
        c1, c2 = bar.columns(2)
        settings["k1"] = c1.number_input("k1", 0.0, 10.0, step=0.1, key="w_k1",
                                         help="term-frequency saturation (Lucene: 1.2)")
        settings["b"] = c2.number_input("b", 0.0, 1.0, step=0.05, key="w_b",
                                        help="length normalization (Lucene: 0.75)")
    elif kind == "http":
        seed_widget("w_url", view_spec.url)
        seed_widget("w_shape", view_spec.shape)
        seed_widget("w_timeout", float(view_spec.timeout))
        settings["url"] = bar.text_input(
            "Service URL", key="w_url", placeholder="http://127.0.0.1:8000/search",
            help="POST {query, top_k} as JSON; answers [{id, text, score, page}] (schema v1)",
        )
        c1, c2 = bar.columns(2)
        settings["shape"] = c1.selectbox("Answer shape", list(SHAPES), key="w_shape")
        settings["timeout"] = c2.number_input("Timeout (s)", 0.5, 120.0, step=0.5,
                                              key="w_timeout")
    elif kind == "python":
        seed_widget("w_callable", view_spec.callable)
        settings["callable"] = bar.text_input(
            "Function", key="w_callable", placeholder="mypkg.search:search",
            help="package.module:function(query, top_k) returning hits; never set from a link",
        )
    base = view_spec if view_spec.kind == kind else RetrieverSpec()
    try:
        spec = replace(base, **settings)  # type: ignore[arg-type]
    except SettingsError as exc:
        bar.caption(f"Using the seed scorer: {literal(str(exc))}.")
        st.session_state[PROBLEM_KEY] = str(exc)
        return RetrieverSpec()
    st.session_state.pop(PROBLEM_KEY, None)
    if spec.kind == "http":
        connected = st.session_state.get(CONNECTED_KEY) == spec.url
        if not connected:
            bar.warning(f"Not connected: ranking with the seed scorer until you connect to "
                        f"{code(spec.safe_url)}.", icon=":material/link_off:")
            if bar.button("Connect", key="w_connect", width="stretch"):
                st.session_state[CONNECTED_KEY] = spec.url
                st.rerun()
    return spec


def fix_note(spec: RetrieverSpec, name: str) -> tuple[bool, str]:
    """Whether fix ``name`` reaches the retriever, and the sentence saying how or why not."""
    return fix_support(spec.kind, name)


@st.cache_resource(max_entries=8, show_spinner=False)
def _retriever(_index: CorpusIndex, corpus: str, spec: tuple) -> Retriever:
    # spec is astuple(RetrieverSpec): hashable, and rebuilt to the same spec
    built = RetrieverSpec(*spec)
    if built.kind == "python" and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # as `ragdash check`: mypkg in the folder it started in
    return make_retriever(built, _index)


def page_retriever(index: CorpusIndex, spec: RetrieverSpec) -> Retriever:
    """The retriever pages rank with: ``spec``'s when usable, else the seed scorer (with
    the reason in the sidebar)."""
    if spec.kind == "http" and st.session_state.get(CONNECTED_KEY) != spec.url:
        spec = RetrieverSpec()
    try:
        return _retriever(index, index.fingerprint, astuple(spec))
    except RetrieverError as exc:
        st.sidebar.error(f"{literal(str(exc))} — ranking with the seed scorer.")
        return _retriever(index, index.fingerprint, astuple(RetrieverSpec()))


def checks_source(index: CorpusIndex, corpus_key: tuple, retriever: Retriever):
    """What to hand the checks written for an index (fragility, triage, robustness) and the
    cache key to go with it: the index itself for the seed scorer, else the retriever with
    its settings added to the key, so one retriever's results are never served for
    another's."""
    if retriever.spec.kind == "seed":
        return index, corpus_key
    return retriever, (*corpus_key, astuple(retriever.spec))


def searches_here(retriever: Retriever, what: str) -> bool:
    """True when the dashboard runs ``what`` (a search of thousands of queries) against
    ``retriever``: ragdash's own scorers yes; an external one is pointed to the CLI, whose
    ``--max-evaluations`` bounds the requests sent to the team's service."""
    if not retriever.spec.external:
        return True
    st.caption(
        f"The {literal(what)} asks the retriever thousands of queries, so the dashboard runs it "
        f"only for ragdash's own scorers (seed, bm25), not for {literal(retriever.spec.label)}; "
        "from the CLI, `ragdash fragility --retriever …` searches any retriever, bounded by "
        "`--max-evaluations`."
    )
    return False


@st.cache_data(ttl=EXTERNAL_TTL, max_entries=256, show_spinner="Asking the retriever…")
def _external(
    _retriever: Retriever, spec: tuple, corpus: str, query: str, fixes: tuple, k: int | None
) -> tuple[tuple[RankedPassage, ...], tuple[str, ...]]:
    found = _retriever.retrieve(query, Fixes.resolve(dict(fixes)), k)  # type: ignore[arg-type]
    return found.ranked, found.notes


def retriever_search(
    retriever: Retriever, index: CorpusIndex, query: str, fixes: Fixes, k: int | None = None
) -> tuple[list[RankedPassage], tuple[str, ...]]:
    """Ranked passages (all for seed/bm25, the retriever's depth for external ones) and
    notes. Raises ``QueryError`` / :class:`RetrieverError`."""
    if not retriever.spec.external:
        found = retriever.retrieve(query, fixes, k)  # type: ignore[arg-type]
        return list(found.ranked), found.notes
    key = tuple(sorted(fixes.to_dict().items()))
    ranked, notes = _external(retriever, astuple(retriever.spec), index.fingerprint, query,
                              key, k)  # fmt: skip
    return list(ranked), notes


def bm25_frame(retriever: Retriever, query: str, fixes: Fixes, ranked: RankedPassage):
    """Per query token: tf, idf and BM25 points in one passage (None for other retrievers)."""
    if not isinstance(retriever, Bm25Retriever):
        return None
    bm = retriever.bm25_index(fixes)
    try:
        pid = bm.passages.index(ranked.passage)
    except ValueError:
        return None
    rows = []
    for match in ranked.breakdown:
        token = match.passage_token or match.query_token
        tf, idf, points = bm.contribution(token, pid, retriever.spec.k1, retriever.spec.b)
        rows.append({
            "query token": match.query_token,
            "scored as": token,
            "tf": tf,
            "idf": round(idf, 3),
            "length / avg": f"{int(bm.lengths[pid])} / {bm.avg_length:.1f}",
            "points": round(points, 4),
        })  # fmt: skip
    return pd.DataFrame(rows)
