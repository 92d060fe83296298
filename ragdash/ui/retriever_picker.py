"""The sidebar's retriever selector, and the retriever every page ranks with.

A page visitor chooses among ragdash's own scorers (``seed``, ``bm25`` with its k1 and b)
and, when the dashboard was started with one, *the operator's* retriever — a team's Python
function or search service named by ``ragdash dashboard --retriever python --callable …`` /
``--retriever http --url …`` or the ``RAGDASH_RETRIEVER`` variables
(:mod:`ragdash.retrieval.options`). It is shown read-only: nothing typed in the page, set in
a link or left in the session is ever imported or sent a query, because :func:`page_retriever`
builds an external retriever only when it is exactly the operator's.

The selector writes a :class:`ragdash.retrieval.spec.RetrieverSpec` into the view (the link
carries only its kind, see :mod:`ragdash.ui.viewstate`). A python callable that cannot be
imported falls back to the seed scorer with the reason shown in the sidebar.

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
from ragdash.retrieval.spec import RETRIEVER_DESCRIPTIONS, RetrieverSpec, fix_support
from ragdash.settings import Fixes
from ragdash.ui.context import settings
from ragdash.ui.state import seed_widget
from ragdash.ui.text import code, literal, plain

__all__ = [
    "EXTERNAL_TTL",
    "RETRIEVER_WIDGET_KEYS",
    "bm25_frame",
    "checks_source",
    "offered_kinds",
    "operator_details",
    "operator_retriever",
    "searches_here",
    "page_retriever",
    "render_retriever_picker",
    "retriever_search",
]

EXTERNAL_TTL = 30
RETRIEVER_WIDGET_KEYS = ("w_retriever", "w_k1", "w_b")
LABELS = {"seed": "builtin (ragdash scorer)", "bm25": "bm25", "http": "HTTP service",
          "python": "Python function", "langchain": "LangChain retriever"}  # fmt: skip
BUILTIN_KINDS = ("seed", "bm25")


def operator_retriever() -> RetrieverSpec:
    """The retriever the dashboard was started with (seed when none was named)."""
    return settings().retriever


def offered_kinds(operator: RetrieverSpec) -> tuple[str, ...]:
    """ragdash's scorers, then the retriever the operator started the dashboard with (a
    team's service or code, or a dense/hybrid model) if there is one."""
    return BUILTIN_KINDS + ((operator.kind,) if operator.operator_only else ())


def render_retriever_picker(view_spec: RetrieverSpec) -> RetrieverSpec:
    """Draw the selector in the sidebar; returns the spec the user chose."""
    bar = st.sidebar
    bar.markdown("### Retriever")
    operator = operator_retriever()
    problem = settings().retriever_problem
    if problem:
        bar.error(f"The retriever the dashboard was started with cannot be used: "
                  f"{literal(problem)} — only builtin and bm25 are offered.")  # fmt: skip
    kinds = offered_kinds(operator)
    if st.session_state.get("w_retriever") not in (None, *kinds):
        del st.session_state["w_retriever"]  # not on offer here: never trusted from a session
    seed_widget("w_retriever", view_spec.kind if view_spec.kind in kinds else "seed")
    kind = bar.selectbox(
        "Retriever",
        kinds,
        key="w_retriever",
        format_func=lambda kind: plain(LABELS.get(kind, kind)),
        label_visibility="collapsed",
        help="; ".join(f"**{literal(k)}**: {literal(RETRIEVER_DESCRIPTIONS[k])}" for k in kinds)
        + "; a team's function or service is named where the dashboard is started "
        "(`ragdash dashboard --retriever python --callable …`), never in the page",
    )
    if kind in BUILTIN_KINDS and operator.operator_only:
        bar.caption(f"Also offered: {literal(operator.label)}, set where the dashboard "
                    "was started.")  # fmt: skip
    if kind == "seed":
        return RetrieverSpec()
    if kind == "bm25":
        base = view_spec if view_spec.kind == "bm25" else RetrieverSpec("bm25")
        seed_widget("w_k1", float(base.k1))
        seed_widget("w_b", float(base.b))
        c1, c2 = bar.columns(2)
        k1 = c1.number_input("k1", 0.0, 10.0, step=0.1, key="w_k1",
                             help="term-frequency saturation (Lucene: 1.2)")
        b = c2.number_input("b", 0.0, 1.0, step=0.05, key="w_b",
                            help="length normalization (Lucene: 0.75)")
        try:
            return replace(base, k1=k1, b=b)
        except SettingsError as exc:
            bar.caption(f"Using the builtin scorer: {literal(str(exc))}.")
            return RetrieverSpec()
    target = operator.safe_url if kind == "http" else operator.callable
    bar.caption(f"{LABELS[kind]} {code(target)} — set where the dashboard was started "
                "(read-only here).")  # fmt: skip
    bar.caption(operator_details(operator))
    return operator


def operator_details(spec: RetrieverSpec) -> str:
    """What the operator's retriever is read with, for the sidebar: the shape and the field
    paths (where the document id and text come from — the first thing to check when every
    case fails), how scores count, and for ``http`` the auth variable's *name* (never its
    value), the body template file, the deadline and retries."""
    if spec.kind == "langchain":
        from ragdash.retrieval.langchain_retriever import document_shape

        shape = document_shape(spec)
        parts = ["`.invoke(query)` Documents, list order as the rank"]
    else:
        shape = spec.response_shape
        parts = [f"shape {code(spec.shape)}"]
        if shape.results:
            parts.append(f"hits at {code(shape.results)}")
    parts += [f"id {code(shape.id)}", f"text {code(shape.text)}"]
    score = f"score {code(shape.score)}" + (
        " (a distance: lower is better, shown as the similarity 1/(1+d))"
        if shape.lower_is_better else "")  # fmt: skip
    if spec.kind != "langchain":
        parts.append(score + ", by position when missing")
    if spec.kind == "http":
        if spec.body_template:
            parts.append(f"request body from {code(spec.body_template)}")
        elif spec.shape == "chroma":
            parts.append(f"query embedded with {code(spec.embedder_label)} "
                         "(query_embeddings)")  # fmt: skip
        if spec.auth_env:
            parts.append(f"Authorization from the variable {code(spec.auth_env)}")
        else:
            parts.append("no Authorization header")
        retries = f"{spec.retries} retr{'y' if spec.retries == 1 else 'ies'}"
        parts.append(f"each request may take {spec.timeout:g} s in all, {retries}")
    return "; ".join(parts) + "."


def fix_note(spec: RetrieverSpec, name: str) -> tuple[bool, str]:
    """Whether fix ``name`` reaches the retriever, and the sentence saying how or why not."""
    return fix_support(spec.kind, name)


@st.cache_resource(max_entries=8, show_spinner=False)
def _retriever(_index: CorpusIndex, corpus: str, spec: tuple) -> Retriever:
    # spec is astuple(RetrieverSpec): hashable, and rebuilt to the same spec
    built = RetrieverSpec(*spec)
    if built.operator_only and built != operator_retriever():  # page_retriever checks it too
        raise RetrieverError("only the retriever set where the dashboard was started is called")
    if built.kind in ("python", "langchain") and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # as `ragdash check`: mypkg in the folder it started in
    return make_retriever(built, _index)


def page_retriever(index: CorpusIndex, spec: RetrieverSpec) -> Retriever:
    """The retriever pages rank with: ``spec``'s when usable, else the seed scorer (with
    the reason in the sidebar). An external spec is used only when it is the operator's:
    whatever a session holds, the page never imports or calls anything else."""
    if spec.operator_only and spec != operator_retriever():
        st.sidebar.warning("Only the retriever set where the dashboard was started is called "
                           "— ranking with the builtin scorer.")  # fmt: skip
        spec = RetrieverSpec()
    try:
        return _retriever(index, index.fingerprint, astuple(spec))
    except RetrieverError as exc:
        st.sidebar.error(f"{literal(str(exc))} — ranking with the builtin scorer.")
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
    if not retriever.spec.operator_only:
        return True
    st.caption(
        f"The {literal(what)} asks the retriever thousands of queries, so the dashboard runs it "
        f"only for ragdash's own scorers (builtin, bm25), not for {literal(retriever.spec.label)}; "
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
