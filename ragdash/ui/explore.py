"""Explore: type or corrupt a query, toggle fixes, see ranked passages, breakdowns, the
proof check and what the fixes changed."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from ragdash.checks.faults import corrupt_query
from ragdash.checks.proof import Case, Diagnosis, judge
from ragdash.errors import QueryError, RetrieverError
from ragdash.retrieval.compare import compare_rankings, tie_explanation, withdrawn_explanation
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import Fixes
from ragdash.ui.render import (
    breakdown_chart,
    breakdown_frame,
    legend,
    md_code,
    md_escape,
    passage_html,
    ranked_passage,
)
from ragdash.ui.retriever_picker import bm25_frame, page_retriever, retriever_search
from ragdash.ui.state import seed_widget, set_view
from ragdash.ui.viewstate import FAULTS, ViewState, split_evidence

FAULT_LABELS = {"none": "no corruption", "ocr": "OCR noise (o→0, i→1)", "typo": "typos"}
#: How many results the score chart shows, whatever top-k is.
CHART_RESULTS = 6


def effective_query(view: ViewState) -> str:
    """The query actually run: the typed one, corrupted if a fault is chosen."""
    if view.fault == "none":
        return view.q
    return corrupt_query(view.q, view.fault, view.rate, view.seed)


def _inputs(view: ViewState, doc_ids: tuple[str, ...]) -> ViewState:
    seed_widget("w_q", view.q)
    q = st.text_input("Query", key="w_q", placeholder="e.g. return policy days", max_chars=1000)
    with st.expander("Corrupt this query", expanded=view.fault != "none"):
        seed_widget("w_fault", view.fault)
        seed_widget("w_rate", float(view.rate))
        seed_widget("w_seed", int(view.seed))
        c1, c2, c3 = st.columns([2, 2, 1])
        fault = c1.radio(
            "Fault", FAULTS, key="w_fault", horizontal=True, format_func=FAULT_LABELS.get
        )
        rate = c2.slider("Rate (per letter)", 0.0, 1.0, step=0.05, key="w_rate")
        seed = c3.number_input("Seed", 0, 10**9, key="w_seed")
    with st.expander("Proof check", expanded=bool(view.expect)):
        options = ["", *doc_ids]
        if view.expect and view.expect not in options:
            options.append(view.expect)
        seed_widget("w_expect", view.expect)
        seed_widget("w_evidence", "; ".join(view.evidence))
        c1, c2 = st.columns([1, 2])
        expect = c1.selectbox(
            "Expected document (ranked first)",
            options,
            key="w_expect",
            format_func=lambda v: v or "— none —",
        )
        evidence = c2.text_input("Required evidence (separate with ;)", key="w_evidence")
    new_view = replace(
        view,
        q=q,
        fault=fault,
        rate=float(rate),
        seed=int(seed),
        expect=expect or "",
        evidence=split_evidence(evidence),
    )
    set_view(new_view)
    return new_view


def _verdict(view: ViewState, ranked: list[RankedPassage]) -> None:
    if not view.expect:
        return
    check = judge(Case("explore", view.q, view.expect, view.evidence, view.k), ranked, view.fixes)
    first = md_code(check.first_id or "nothing")
    text = f"**{check.diagnosis.value.upper()}** — {md_escape(check.reason)}."
    if check.diagnosis is Diagnosis.PASS:
        st.success(text, icon=":material/check_circle:")
        return
    detail = f" Ranked first: {first}, expected {md_code(view.expect)}."
    if check.missing_evidence:
        missing = ", ".join(f"“{md_escape(e)}”" for e in check.missing_evidence)
        detail += f" Missing from the top {view.k}: {missing}."
    st.error(text + detail, icon=":material/error:")


def _results(
    ranked: list[RankedPassage], view: ViewState, retriever=None, query: str = ""
) -> None:
    top = ranked[: view.k]
    chart = breakdown_chart(ranked[: max(CHART_RESULTS, view.k)])
    if chart is not None:
        st.altair_chart(chart, width="stretch")
    elif retriever is not None and retriever.spec.external:
        st.caption("Scores are the retriever's own (no per-token breakdown).")
    else:
        st.warning(
            "No passage matched the query: every score is 0, so nothing is retrieved. "
            "The passages below are only listed in list order — none of them is a winner."
        )
    legend()
    for r in top:
        p = r.passage
        date = p.updated.isoformat() if p.updated else "undated"
        heading = (
            f"**#{r.rank} · {md_escape(p.doc_id)}** · score **{r.score:g}** · "
            f"pages {p.page_start}–{p.page_end} · {p.kind} · updated {date} · {p.status}"
        )
        if retriever is None or retriever.spec.kind == "seed":
            ranked_passage(r, view.evidence, heading, note=r.moved or "")
            continue
        st.markdown(heading)
        st.html(passage_html(r, view.evidence))
        with st.expander(f"Score breakdown of #{r.rank}"):
            _breakdown(r, view, retriever, query)


def _breakdown(r: RankedPassage, view: ViewState, retriever, query: str) -> None:
    """BM25's per-token tf/idf, or an external retriever's own score."""
    frame = bm25_frame(retriever, query, view.fixes, r)
    if frame is not None:
        st.dataframe(frame, hide_index=True, width="stretch")
        st.caption("BM25 points per token = idf × tf / (tf + k1 × (1 − b + b × length / avg)).")
    elif retriever.spec.external:
        st.caption(
            f"Score {r.score:g} is {md_escape(retriever.spec.label)}'s own: an external "
            "retriever reports no per-token breakdown."
        )
    else:
        st.dataframe(breakdown_frame(r), hide_index=True, width="stretch")


def _comparison(
    index: CorpusIndex, query: str, view: ViewState, ranked: list[RankedPassage], retriever=None
) -> None:
    if retriever is None or retriever.spec.kind == "seed":
        baseline = index.search(query, Fixes(threshold=view.fixes.threshold))
    else:
        no_fixes = Fixes(threshold=view.fixes.threshold)
        baseline, _ = retriever_search(retriever, index, query, no_fixes)
    left, right = st.columns(2)
    for column, title, results, fixes in (
        (left, "No fixes", baseline, Fixes()),
        (right, f"Current fixes ({view.fixes.label})", ranked, view.fixes),
    ):
        column.markdown(f"**{md_escape(title)}**")
        column.dataframe(
            pd.DataFrame(
                [
                    {
                        "rank": r.rank,
                        "document": r.doc_id,
                        "passage": r.passage.label,
                        "score": r.score,
                    }
                    for r in results[: view.k]
                ]
            ),
            hide_index=True,
            width="stretch",
        )
        why = tie_explanation(results, fixes)
        if why:
            column.caption(md_escape(why))
    moves = compare_rankings(baseline, ranked, view.k, view.fixes)
    st.markdown("**What moved, and why**")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "passage": m.label,
                    "before": m.rank_before,
                    "after": m.rank_after,
                    "change": m.change,
                    "why": m.reason,
                }
                for m in moves
            ]
        ),
        hide_index=True,
        width="stretch",
        column_config={"why": st.column_config.TextColumn(width="large")},
    )


def render(index: CorpusIndex, view: ViewState) -> None:
    """The Explore page."""
    st.title("Explore")
    view = _inputs(view, index.corpus.doc_ids)
    query = effective_query(view)
    if view.fault != "none":
        st.markdown("Corrupted query sent to the retriever:")
        st.code(query, language=None)
    retriever = page_retriever(index, view.retriever)
    seed = retriever.spec.kind == "seed"
    try:
        ranked, notes = retriever_search(retriever, index, query, view.fixes)
    except QueryError as exc:
        st.info(md_escape(str(exc)).capitalize())
        return
    except RetrieverError as exc:
        st.error(f"The retriever did not answer usably: {md_escape(str(exc))}")
        return
    if not seed:
        st.caption(f"Ranked by **{md_escape(retriever.spec.label)}**.")
    for note in notes:
        st.caption(md_escape(note))
    if not ranked:
        st.warning(
            "No passage can be retrieved: the corpus is empty, or every document "
            "is withdrawn and the status fix is on."
        )
        return
    _verdict(view, ranked)
    why = tie_explanation(ranked, view.fixes) if seed else None
    if why:
        st.caption(f"Tie at the top: {md_escape(why)}")
    if view.fixes.status and seed:
        unfiltered = index.top(query, replace(view.fixes, status=False), 1)
        left_out = withdrawn_explanation(unfiltered, ranked, view.fixes)
        if left_out:
            st.caption(f"Withdrawn version left out: {md_escape(left_out)}")
    results_tab, compare_tab = st.tabs(["Ranked passages", "No fixes vs current fixes"])
    with results_tab:
        _results(ranked, view, retriever, query)
    with compare_tab:
        _comparison(index, query, view, ranked, retriever)
