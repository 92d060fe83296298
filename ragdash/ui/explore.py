"""Explore: type or corrupt a query, toggle fixes, see ranked passages, breakdowns, the
proof check and what the fixes changed."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import quote_plus

import pandas as pd
import streamlit as st

from ragdash.case import Case, Diagnosis
from ragdash.checks.faults import corrupt_query
from ragdash.checks.proof import judge
from ragdash.errors import QueryError, RetrieverError
from ragdash.retrieval.compare import (
    Movement,
    compare_rankings,
    tie_explanation,
    withdrawn_explanation,
)
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import Fixes
from ragdash.ui.context import case_library
from ragdash.ui.guard import document_guard, document_source
from ragdash.ui.navigation import pages
from ragdash.ui.render import (
    breakdown_chart,
    breakdown_frame,
    fmt_score,
    legend,
    passage_html,
    ranked_passage,
    round_numbers,
    verdict_word,
)
from ragdash.ui.retriever_picker import bm25_frame, page_retriever, retriever_search
from ragdash.ui.shell import empty_corpus_notice
from ragdash.ui.state import EXPECT_FOR_KEY as EXPECT_FOR
from ragdash.ui.state import PENDING_KEY as PENDING
from ragdash.ui.state import open_case, seed_widget, set_view
from ragdash.ui.text import code, grid, label, literal, plain
from ragdash.ui.viewstate import FAULTS, ViewState, split_evidence

FAULT_LABELS = {"none": "no corruption", "ocr": "OCR noise (o→0, i→1)", "typo": "typos"}
#: How deep Explore ranks each side (its top-k, the comparison's ranks): ranking all of a
#: 100,000-passage corpus made a list of 100,000 results on every rerun (1.5 s each, twice)
#: where the page shows ten; a passage that drops past it shows as "below #200".
EXPLORE_DEPTH = 200
#: How many results the score chart shows, whatever top-k is.
CHART_RESULTS = 6
INTRO = (
    "ragdash shows how realistic flaws in documents — stale versions, OCR noise, typos, "
    "tables cut by a page break — make a simple retriever hand a language model the wrong "
    "text, and how one targeted fix for each repairs it. A **proof check** passes only when "
    "the expected document is ranked first and every evidence string is in the passages "
    "sent to the model."
)


def effective_query(view: ViewState) -> str:
    """The query actually run: the typed one, corrupted if a fault is chosen."""
    if view.fault == "none":
        return view.q
    return corrupt_query(view.q, view.fault, view.rate, view.seed)


def _pick_case(cases: list[Case]) -> None:
    """Put the picked case (query, expected document, evidence, top-k) into the view."""
    name = st.session_state.get("w_case")
    case = next((c for c in cases if c.name == name), None)
    if case is None:
        return
    open_case(case)


def _case_picker(cases: list[Case]) -> None:
    if not cases:
        return
    names = [c.name for c in cases]
    labels = {c.name: plain(f"{c.name} — {c.query}") for c in cases}
    if st.session_state.get("w_case") not in (None, *names):
        st.session_state.pop("w_case")
    st.selectbox(
        "Start from a case (bundled cases and the case library)",
        names,
        index=None,
        key="w_case",
        placeholder="Pick a case to fill in its query, expected document and evidence",
        format_func=lambda name: labels.get(name) or plain(name),
        on_change=_pick_case,
        args=(cases,),
    )


def _keep_expectation(q: str) -> None:
    pending = st.session_state.pop(PENDING, None)
    if pending is None:
        return
    _, expect, evidence = pending
    st.session_state["w_expect"] = expect
    st.session_state["w_evidence"] = "; ".join(evidence)
    st.session_state[EXPECT_FOR] = q


def _expectation_follows_query(view: ViewState, q: str) -> ViewState:
    """The proof check's expectation belongs to the query it was set for. When the query is
    edited, it is set aside (never judged against another query: no stale red verdict) and
    the page asks whether to keep it; typing the old query back restores it."""
    expect_for = st.session_state.setdefault(EXPECT_FOR, view.q)
    if q == expect_for:
        return view
    pending = st.session_state.get(PENDING)
    if pending and pending[0] == q:  # back to the query the expectation was made for
        st.session_state.pop(PENDING)
        st.session_state["w_expect"], st.session_state["w_evidence"] = (
            pending[1],
            "; ".join(pending[2]),
        )
        st.session_state[EXPECT_FOR] = q
        return replace(view, expect=pending[1], evidence=pending[2])
    if view.expect or view.evidence:
        st.session_state[PENDING] = (expect_for, view.expect, view.evidence)
        st.session_state["w_expect"], st.session_state["w_evidence"] = "", ""
    st.session_state[EXPECT_FOR] = q
    return replace(view, expect="", evidence=())


def _inputs(view: ViewState, doc_ids: tuple[str, ...]) -> ViewState:
    seed_widget("w_q", view.q)
    q = st.text_input("Query", key="w_q", placeholder="e.g. return policy days", max_chars=1000)
    view = _expectation_follows_query(view, q)
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
            format_func=lambda v: plain(v) if v else "— none —",
        )
        evidence = c2.text_input("Required evidence (separate with ;)", key="w_evidence")
    if (expect or "", split_evidence(evidence)) != (view.expect, view.evidence):
        st.session_state[EXPECT_FOR] = q  # set by hand: it is this query's expectation
        st.session_state.pop(PENDING, None)
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
        _no_expectation(view)
        return
    check = judge(Case("explore", view.q, view.expect, view.evidence, view.k), ranked, view.fixes)
    first = code(check.first_id or "nothing")
    text = f"**{literal(check.diagnosis.value.upper())}** — {literal(check.reason)}."
    if check.diagnosis is Diagnosis.PASS:
        st.success(text, icon=":material/check_circle:")
        return
    detail = f" Ranked first: {first}, expected {code(view.expect)}."
    if check.missing_evidence:
        missing = ", ".join(f"“{literal(e)}”" for e in check.missing_evidence)
        detail += f" Missing from the top {view.k:d}: {missing}."
    st.error(text + detail, icon=":material/error:")


def _no_expectation(view: ViewState) -> None:
    """The neutral state: nothing to judge this query against — and, when the query was
    edited after picking a case, an offer to keep that case's expectation."""
    pending = st.session_state.get(PENDING)
    if pending:
        old_q, expect, evidence = pending
        what = code(expect) + (
            " with " + ", ".join(f"“{literal(e)}”" for e in evidence) if evidence else ""
        )
        st.info(
            f"**No expectation set for this query.** The proof check expected {what} for "
            f"the query {code(old_q)}; it is not applied to the new query unless you keep it.",
            icon=":material/help:",
        )
        st.button(
            f"Keep expecting {literal(expect)} for this query",
            key="keep_expect",
            icon=":material/rule:",
            on_click=_keep_expectation,
            args=(view.q,),
        )
        return
    st.info(
        "**No expectation set.** Pick a case above, or name the expected document under "
        "*Proof check*, to see whether this query hands the model the evidence.",
        icon=":material/help:",
    )


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
    for r in top:  # one bad document shows an error card; the other results still draw
        document_guard(
            lambda r=r: document_source(r.passage.doc_id),
            f"explore_{r.rank}",
            lambda r=r: _result(r, view, retriever, query),
        )


def _result(r: RankedPassage, view: ViewState, retriever=None, query: str = "") -> None:
    p = r.passage
    date = p.updated.isoformat() if p.updated else "undated"
    heading = (
        f"**#{r.rank:d} · {literal(p.doc_id)}** · score **{fmt_score(r.score)}** · "
        f"pages {p.page_start:d}–{p.page_end:d} · {literal(p.kind)} · updated {literal(date)}"
        f" · {literal(p.status)}"
    )
    if retriever is None or retriever.spec.kind == "seed":
        ranked_passage(r, view.evidence, heading, note=r.moved or "")
        return
    st.markdown(heading)
    st.html(passage_html(r, view.evidence))
    with st.expander(f"Score breakdown of #{r.rank:d}"):
        _breakdown(r, view, retriever, query)


def _breakdown(r: RankedPassage, view: ViewState, retriever, query: str) -> None:
    """BM25's per-token tf/idf, or an external retriever's own score."""
    frame = bm25_frame(retriever, query, view.fixes, r)
    if frame is not None:
        st.dataframe(grid(frame), hide_index=True, width="stretch")
        st.caption("BM25 points per token = idf × tf / (tf + k1 × (1 − b + b × length / avg)).")
    elif retriever.spec.external:
        st.caption(
            f"Score {r.score:g} is {literal(retriever.spec.label)}'s own: an external "
            "retriever reports no per-token breakdown."
        )
    else:
        st.dataframe(grid(breakdown_frame(r)), hide_index=True, width="stretch")


def _side_verdict(column, view: ViewState, results: list[RankedPassage], fixes: Fixes) -> None:
    """The proof check of one side of the comparison, in one line (nothing to say without an
    expectation)."""
    if not view.expect:
        return
    check = judge(Case("explore", view.q, view.expect, view.evidence, view.k), results, fixes)
    text = f"**{verdict_word(check.passed)}** — {literal(check.diagnosis.value)}"
    if check.passed:
        column.success(text, icon=":material/check_circle:")
    else:
        column.error(text, icon=":material/cancel:")


def _comparison(
    index: CorpusIndex, query: str, view: ViewState, ranked: list[RankedPassage], retriever=None
) -> None:
    no_fixes = view.fixes.with_only(())
    if retriever is None or retriever.spec.kind == "seed":
        baseline = index.top(query, no_fixes, EXPLORE_DEPTH)
    else:
        depth = None if retriever.spec.external else EXPLORE_DEPTH
        baseline, _ = retriever_search(retriever, index, query, no_fixes, depth)
    if view.expect:
        case = Case("x", view.q, view.expect, view.evidence, view.k)
        before = judge(case, baseline, no_fixes)
        after = judge(case, ranked, view.fixes)
        st.markdown(
            f"**Proof check: {verdict_word(before.passed)} → {verdict_word(after.passed)}** "
            "(no fixes → current fixes)"
        )
    left, right = st.columns(2)
    current = f"Current fixes ({view.fixes.label if view.fixes.enabled else 'none'})"
    for column, title, results, fixes in (
        (left, "No fixes", baseline, view.fixes.with_only(())),
        (right, current, ranked, view.fixes),
    ):
        column.markdown(f"**{literal(title)}**")
        _side_verdict(column, view, results, fixes)
        column.dataframe(
            grid(pd.DataFrame(
                [
                    {
                        "rank": r.rank,
                        "document": r.doc_id,
                        "score": fmt_score(r.score),
                        "passage": r.passage.label,
                    }
                    for r in results[: view.k]
                ],
                columns=["rank", "document", "score", "passage"],
            )),
            hide_index=True,
            width="stretch",
            column_config={
                "rank": st.column_config.NumberColumn(width="small", pinned=True),
                "document": st.column_config.TextColumn(pinned=True),
            },
        )
        why = tie_explanation(results, fixes)
        if why:
            column.caption(literal(why))
    if not view.fixes.enabled:
        st.caption(
            "No fix is on, so both sides are the same ranking: turn a fix on in the sidebar."
        )
        return
    moves = compare_rankings(baseline, ranked, view.k, view.fixes)
    st.markdown("**What moved, and why**")
    if not moves:
        st.caption("Nothing moved in the top passages.")
        return
    for m in moves:
        before, after, change, reason = _movement_words(m, len(baseline), len(ranked))
        st.markdown(
            f"- **{literal(m.label)}**: {literal(before)} → {literal(after)} ({literal(change)}) — "
            f"{literal(round_numbers(reason))}"
        )


def _movement_words(m: Movement, before_len: int, after_len: int) -> tuple[str, str, str, str]:
    """Ranks, change and reason of one movement as shown. Each side is ranked only to
    :data:`EXPLORE_DEPTH`, so a passage missing from a full-depth side is further down, not
    gone (or new).

    >>> m = Movement("p1", "d", 3, None, 2.0, None, "no longer retrieved")
    >>> _movement_words(m, 200, 200)
    ('#3', 'below #200', 'down', 'still retrieved, further down')
    >>> _movement_words(m, 200, 12)
    ('#3', 'not ranked', 'gone', 'no longer retrieved')
    """
    before = f"#{m.rank_before}" if m.rank_before else "not ranked"
    after = f"#{m.rank_after}" if m.rank_after else "not ranked"
    change, reason = m.change, m.reason
    below = f"below #{EXPLORE_DEPTH:,}"
    if after_len >= EXPLORE_DEPTH and m.rank_after is None and reason == "no longer retrieved":
        after, change, reason = below, "down", "still retrieved, further down"
    if before_len >= EXPLORE_DEPTH and m.rank_before is None and reason == "new passage":
        before, change, reason = below, "up", "was retrieved further down"
    return before, after, change, reason


def _share_link(view: ViewState, corpus: str) -> None:
    """The view's link — what the address bar will hold after this run — with the copy button
    Streamlit puts on every code block (no script of ours)."""
    base = (st.context.url or "").split("?")[0]
    params = {**view.to_params(), "corpus": corpus}
    query = "&".join(f"{k}={quote_plus(v)}" for k, v in params.items())
    with st.popover("Copy link", icon=":material/link:"):
        st.caption("This link reopens exactly this view. Copy it with the button at the right.")
        st.code(plain(f"{base}?{query}"), language=None, wrap_lines=True)


def render(index: CorpusIndex, view: ViewState) -> None:
    """The Explore page."""
    st.title("Explore")
    st.markdown(INTRO)
    links = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    links.page_link(
        pages().tour,
        label="New here? Take the guided tour of the four flaws",
        icon=":material/tour:",
    )
    if empty_corpus_notice(index):
        return
    cases, _ = case_library()
    _case_picker(cases)
    view = _inputs(view, index.corpus.doc_ids)
    with links:  # filled in once the inputs are read, so the link is this run's view
        _share_link(view, index.fingerprint)
    query = effective_query(view)
    if view.fault != "none":
        st.markdown("Corrupted query sent to the retriever:")
        st.code(plain(query), language=None)  # a U+202E in it would reverse the block
    retriever = page_retriever(index, view.retriever)
    seed = retriever.spec.kind == "seed"
    depth = None if retriever.spec.external else EXPLORE_DEPTH
    try:
        ranked, notes = retriever_search(retriever, index, query, view.fixes, depth)
    except QueryError as exc:
        st.info(literal(str(exc)).capitalize())
        return
    except RetrieverError as exc:
        st.error(f"The retriever did not answer usably: {literal(str(exc))}")
        return
    if not seed:
        st.caption(f"Ranked by **{literal(retriever.spec.label)}**.")
    for note in notes:
        st.caption(literal(note))
    if not ranked:
        st.warning(
            "No passage can be retrieved: the corpus is empty, or every document "
            "is withdrawn and the status fix is on."
        )
        return
    _verdict(view, ranked)
    why = tie_explanation(ranked, view.fixes) if seed else None
    if why:
        # one line: an id with blank lines must not break the caption into paragraphs
        st.caption(f"Tie at the top: {label(why)}")
    if view.fixes.status and seed:
        unfiltered = index.top(query, replace(view.fixes, status=False), 1)
        left_out = withdrawn_explanation(unfiltered, ranked, view.fixes)
        if left_out:
            st.caption(f"Withdrawn version left out: {literal(left_out)}")
    results_tab, compare_tab = st.tabs(["Ranked passages", "No fixes vs current fixes"])
    with results_tab:
        _results(ranked, view, retriever, query)
    with compare_tab:
        _comparison(index, query, view, ranked, retriever)
