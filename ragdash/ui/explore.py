"""Explore: type or corrupt a query, toggle fixes, see ranked passages, breakdowns, the
proof check and what the fixes changed."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from urllib.parse import quote_plus

import pandas as pd
import streamlit as st

from ragdash.case import EVIDENCE_RULE, Case
from ragdash.checks.faults import corrupt_query
from ragdash.checks.proof import ProofCheck, judge
from ragdash.checks.tour import TOUR
from ragdash.checks.triage import advice
from ragdash.errors import QueryError, RetrieverError
from ragdash.retrieval.compare import (
    Movement,
    compare_rankings,
    tie_explanation,
    withdrawn_explanation,
)
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import FIX_NAMES, Fixes, fixes_title
from ragdash.ui.context import case_library
from ragdash.ui.glossary import show_table
from ragdash.ui.guard import document_guard, document_source
from ragdash.ui.navigation import pages
from ragdash.ui.render import (
    VerdictSide,
    breakdown_chart,
    breakdown_frame,
    fmt_score,
    label_words,
    legend,
    passage_html,
    passage_words,
    ranked_passage,
    round_numbers,
    verdict_panel,
    wrapped_table,
)
from ragdash.ui.retriever_picker import bm25_frame, page_retriever, retriever_search
from ragdash.ui.shell import empty_corpus_notice
from ragdash.ui.sidebar import FIX_LABELS
from ragdash.ui.state import EXPECT_FOR_KEY as EXPECT_FOR
from ragdash.ui.state import (
    PAGE_PARAMS_KEY,
    VIEW_KEY,
    case_for_query,
    open_case,
    seed_widget,
    set_view,
)
from ragdash.ui.state import PENDING_KEY as PENDING
from ragdash.ui.stress_view import (
    INJECTED_BADGE,
    INJECTED_WORD,
    faulted_index,
    injected_ids,
    injected_ranks,
    stress_note,
)
from ragdash.ui.text import code, grid, label, literal, plain, upper_first
from ragdash.ui.triage.handoff import triage_button
from ragdash.ui.viewstate import FAULTS, ViewState, split_evidence

__all__ = [
    "CHART_RESULTS",
    "EXPLORE_DEPTH",
    "FAULT_LABELS",
    "INTRO",
    "boundary_decided",
    "effective_query",
    "fix_names",
    "render",
]

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


def _expectation_follows_query(view: ViewState, q: str, cases: list[Case]) -> ViewState:
    """The proof check's expectation belongs to the query it was set for. When the query is
    edited to a known case's query (bundled or library, compared casefolded with whitespace
    collapsed), that case's expectation is picked up — typing "warehuse sync" is the typo
    case, whether or not it was picked. Edited to another query, the expectation is set
    aside (never judged against another query: no stale red verdict) and the page asks
    whether to keep it; typing the old query back restores it."""
    expect_for = st.session_state.setdefault(EXPECT_FOR, view.q)
    if q == expect_for:
        return view
    known = case_for_query(cases, q, prefer=st.session_state.get("w_case"))
    if known is not None:
        st.session_state.pop(PENDING, None)
        st.session_state["w_expect"] = known.expected_id
        st.session_state["w_evidence"] = "; ".join(known.evidence)
        st.session_state[EXPECT_FOR] = q
        new = replace(
            view, q=q, expect=known.expected_id, evidence=known.evidence, k=max(known.top_k, 1)
        )
        if new.k != view.k:  # top-k is the sidebar's widget, already drawn: draw it again
            set_view(new)
            st.session_state.pop("w_k", None)
            st.rerun()
        return new
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


def _inputs(view: ViewState, doc_ids: tuple[str, ...], cases: list[Case]) -> ViewState:
    seed_widget("w_q", view.q)
    # No help= here: its "Help for Query" button would share the label "Query" with the box.
    q = st.text_input("Query", key="w_q", placeholder="e.g. warehuse sync", max_chars=1000)
    view = _expectation_follows_query(view, q, cases)
    with st.expander("Corrupt this query", expanded=view.fault != "none"):
        seed_widget("w_fault", view.fault)
        seed_widget("w_rate", float(view.rate))
        seed_widget("w_seed", int(view.seed))
        # the fault on a line of its own: three columns left the seed 76 px wide at 800 px
        fault = st.radio(
            "Fault", FAULTS, key="w_fault", horizontal=True, format_func=FAULT_LABELS.get
        )
        c2, c3 = st.columns([2, 1])
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
        "**No expectation set for this query.** Type a known case's query, pick a case "
        "above, or name the expected document under *Proof check* to get a PASS or FAIL.",
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
            partial(document_source, r.passage.doc_id),
            f"explore_{r.rank}",
            partial(_result, r, view, retriever, query),
        )


def _result(r: RankedPassage, view: ViewState, retriever=None, query: str = "") -> None:
    p = r.passage
    date = p.updated.isoformat() if p.updated else "undated"
    pages_text = (
        f"page {p.page_start:d}"
        if p.page_start == p.page_end
        else f"pages {p.page_start:d}–{p.page_end:d}"
    )
    # a stress test's stale copy or damaged document says so on its row
    badge = INJECTED_BADGE if p.doc_id in injected_ids() else ""
    heading = (
        f"**#{r.rank:d} · {literal(p.doc_id)}** · score **{fmt_score(r.score)}** · "
        f"{pages_text} · {literal(p.kind)} · updated {literal(date)} · {literal(p.status)}"
        f"{badge}"
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
        wrapped_table(frame, f"BM25 points of #{r.rank:d}")
        st.caption("BM25 points per token = idf × tf / (tf + k1 × (1 − b + b × length / avg)).")
    elif retriever.spec.external:
        st.caption(
            f"Score {r.score:g} is {literal(retriever.spec.label)}'s own: an external "
            "retriever reports no per-token breakdown."
        )
    else:
        wrapped_table(breakdown_frame(r), f"Score breakdown of #{r.rank:d}")


def fix_names(fixes: Fixes) -> str:
    """The fixes that are on, by the names the sidebar gives them (``Fuzzy matching``);
    ``all fixes`` when every one is on, ``none`` when none (:func:`fixes_title`)."""
    title = fixes_title(fixes)
    return "none" if title == "no fix" else title


def boundary_decided(check: ProofCheck) -> bool:
    """Whether whole-word matching decided this verdict: an evidence string counted missing
    is inside the text sent to the model as a part of a longer word or number ('4 disks'
    in '24 disks'). Only then is the rule worth a sentence."""
    if not check.missing_evidence:
        return False
    sent = " ".join(" ".join(r.passage.text.split()) for r in check.ranked).casefold()
    return any(" ".join(e.split()).casefold() in sent for e in check.missing_evidence)


def _side(title: str, check: ProofCheck, ranked: list[RankedPassage]) -> VerdictSide:
    """One side of the verdict panel: the check, the expected document's best passage in
    the side's whole ranking (beside #1, whatever top-k), the whole-word rule when it
    decided the verdict."""
    expect = check.case.expected_id
    expected = next((r for r in ranked if r.doc_id == expect and r.matched), None)
    note = EVIDENCE_RULE if boundary_decided(check) else ""
    return VerdictSide(title, check, expected, note)


@st.cache_data(show_spinner=False, max_entries=64)
def _repair_name(_index: CorpusIndex, key: tuple, _case: Case, _base: Fixes) -> str | None:
    """The fix :func:`ragdash.checks.triage.advice` names for the case (the one the tour and
    Triage name), by name; cached on the corpus, the case and the settings (``key``): it
    runs the case under every fix."""
    del key
    return advice(_index, _case, _base).fix


def _turn_on(name: str) -> None:
    """Add one fix to the view and show it in the sidebar's toggle."""
    view = st.session_state[VIEW_KEY]
    on = [n for n in FIX_NAMES if getattr(view.fixes, n) or n == name]
    set_view(replace(view, fixes=view.fixes.with_only(on)))
    for n in FIX_NAMES:
        st.session_state.pop(f"w_fix_{n}", None)


def _suggest_fix(index: CorpusIndex, case: Case, view: ViewState) -> None:
    """Name the fix that repairs a FAIL, with a button that turns it on."""
    key = (index.fingerprint, case, view.fixes.label, view.fixes.names)
    name = _repair_name(index, key, case, view.fixes)
    if name is None or getattr(view.fixes, name):
        st.caption("No single fix repairs this query on its own.")
        return
    st.markdown(f"**{FIX_LABELS[name]} would repair this** — turn it on.")
    st.button(
        f"Turn on {FIX_LABELS[name]}",
        key="explore_repair",
        type="primary",
        icon=":material/toggle_on:",
        on_click=_turn_on,
        args=(name,),
    )


def no_fix(view: ViewState) -> Fixes:
    """The view's settings with every fix off (the left side)."""
    return view.fixes.with_only(())


def _ranking_table(results: list[RankedPassage], view: ViewState) -> None:
    """The top-k of one side: three columns (the passage's name holds its document), so
    both sides fit side by side at 800 px; as tall as its rows. A document a stress test
    injected says so after its name."""
    injected = injected_ids()
    show_table(
        grid(pd.DataFrame(
            [
                {
                    "rank": r.rank,
                    "passage": passage_words(r.passage)
                    + (INJECTED_WORD if r.passage.doc_id in injected else ""),
                    "score": fmt_score(r.score),
                }
                for r in results[: view.k]
            ],
            columns=["rank", "passage", "score"],
        )),
        hide_index=True,
        width="stretch",
        height="content",
        column_config={
            "rank": st.column_config.NumberColumn(width=44),
            "passage": st.column_config.TextColumn(
                help="document, page(s) and which part of the document"
            ),
            "score": st.column_config.TextColumn(width=52),
        },
    )


def _baseline(
    index: CorpusIndex, query: str, view: ViewState, retriever=None
) -> list[RankedPassage]:
    no_fixes = view.fixes.with_only(())
    if retriever is None or retriever.spec.kind == "seed":
        return index.top(query, no_fixes, EXPLORE_DEPTH)
    depth = None if retriever.spec.external else EXPLORE_DEPTH
    baseline, _ = retriever_search(retriever, index, query, no_fixes, depth)
    return baseline


def _side_by_side(
    index: CorpusIndex,
    view: ViewState,
    baseline: list[RankedPassage],
    ranked: list[RankedPassage],
    seed: bool,
    verdict_slot,
) -> None:
    """The answer, first: in ``verdict_slot`` (drawn above the inputs) no fix beside the
    current fixes, a verdict on each with the wrong value marked and the expected document
    beside #1, and on a FAIL the fix that repairs it, one click away. Below: the top-k of
    each side."""
    no_fixes = view.fixes.with_only(())
    case = Case("explore", view.q, view.expect, view.evidence, view.k) if view.expect else None
    before = judge(case, baseline, no_fixes) if case else None
    after = judge(case, ranked, view.fixes) if case else None
    with verdict_slot:
        if case is None or before is None or after is None:
            _no_expectation(view)
        else:
            sides = [_side("No fix", before, baseline)]
            if view.fixes.enabled:
                sides.append(_side(f"With {fix_names(view.fixes)}", after, ranked))
            verdict_panel(sides)
            last = after if view.fixes.enabled else before
            if not last.passed and seed:
                _suggest_fix(index, case, view)
            elif not view.fixes.enabled and before.passed:
                st.caption("This query passes with no fix.")
    left, right = st.columns(2)
    with left:
        st.markdown("**No fix**")
        _ranking_table(baseline, view)
    with right:
        if view.fixes.enabled:
            st.markdown(f"**Current fixes: {literal(fix_names(view.fixes))}**")
            _ranking_table(ranked, view)
        else:
            st.markdown("**With a fix**")
            st.caption("No fix is on: turn one on in the sidebar to see it beside no fix.")


def _what_moved(view: ViewState, baseline: list[RankedPassage], ranked: list[RankedPassage]):
    if not view.fixes.enabled:
        return
    moves = compare_rankings(baseline, ranked, view.k, view.fixes)
    st.markdown("**What moved, and why**")
    if not moves:
        st.caption("Nothing moved in the top passages.")
        return
    for m in moves:
        before, after, change, reason = _movement_words(m, len(baseline), len(ranked))
        name = literal(label_words(m.label))
        st.markdown(
            f"- **{name}**: {literal(before)} → {literal(after)} ({literal(change)}) — "
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
    # a stress test's faulted case travels as its names and seed (ragdash.ui.stress_view)
    params = {**view.to_params(), "corpus": corpus, **st.session_state.get(PAGE_PARAMS_KEY, {})}
    query = "&".join(f"{k}={quote_plus(v)}" for k, v in params.items())
    with st.popover("Copy link", icon=":material/link:"):
        st.caption("This link reopens exactly this view. Copy it with the button at the right.")
        st.code(plain(f"{base}?{query}"), language=None, wrap_lines=True)


def _open_flaw(index: CorpusIndex, case: Case) -> None:
    """Open a flaw's case with the fix :func:`ragdash.checks.triage.advice` names on (the
    fix the tour and Triage name): no fix (FAIL) beside the fix (PASS)."""
    open_case(case)
    view = st.session_state[VIEW_KEY]
    fix = advice(index, case, view.fixes).fix
    set_view(replace(view, fixes=view.fixes.with_only([fix] if fix else [])))
    for n in FIX_NAMES:
        st.session_state.pop(f"w_fix_{n}", None)


def _hero(index: CorpusIndex, cases: list[Case]) -> None:
    """The four flaws, each one click from FAIL → PASS (when the cases include the bundled
    testbed's: another docs folder has other cases)."""
    steps = [(step, next((c for c in cases if c.name == step.case_name), None)) for step in TOUR]
    shown = [(step, case) for step, case in steps if case is not None]
    if not shown:
        return
    box = st.container(border=True)
    box.markdown(
        "**Four flaws, each one click from FAIL → PASS.** Each button opens a bundled case: "
        "no fix on the left, the fix that repairs it on the right."
    )
    row = box.container(horizontal=True, gap="small")
    for step, case in shown:
        row.button(
            label(step.flaw),
            key=f"hero_{step.case_name}",
            icon=":material/play_arrow:",
            help=f"{label(step.failure)} Fix: {FIX_LABELS[step.fix]}.",
            on_click=_open_flaw,
            args=(index, case),
        )


def _picker_follows_query(cases: list[Case], view: ViewState) -> None:
    """The case picker shows the case whose query is in the query box, or nothing: after
    the query was edited it kept showing the old case."""
    typed = str(st.session_state.get("w_q", view.q))
    match = case_for_query(cases, typed, prefer=st.session_state.get("w_case"))
    st.session_state["w_case"] = match.name if match else None


def render(index: CorpusIndex, view: ViewState) -> None:
    """The Explore page."""
    st.title("Explore")
    opened = bool(view.expect)  # a case is open: its verdict comes first, the intro last
    if not opened:
        st.markdown(INTRO)
    links = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    links.page_link(
        pages().tour,
        label="New here? Take the guided tour of the four flaws",
        icon=":material/tour:",
    )
    if empty_corpus_notice(index):
        return
    documents = index  # the documents as they are (the link's corpus hash is theirs)
    index, variant = faulted_index(index)  # a stress test's faulted case, when one is open
    cases, _ = case_library()
    if variant is not None:
        stress_note(variant)
    else:
        _hero(index, cases)
    verdict_slot = st.container()  # the verdict, first: filled once the query has run
    _picker_follows_query(cases, view)
    _case_picker(cases)
    view = _inputs(view, index.corpus.doc_ids, cases)
    with links:  # filled in once the inputs are read, so the link is this run's view
        _share_link(view, documents.fingerprint)
        triage_button(view)
    query = effective_query(view)
    if view.fault != "none":
        st.markdown("Corrupted query sent to the retriever:")
        st.code(plain(query), language=None)  # a U+202E in it would reverse the block
    retriever = page_retriever(index, view.retriever)
    seed = retriever.spec.kind == "seed"
    depth = None if retriever.spec.external else EXPLORE_DEPTH
    try:
        ranked, notes = retriever_search(retriever, index, query, view.fixes, depth)
        baseline = _baseline(index, query, view, retriever)
    except QueryError as exc:
        if not view.q:  # the first screen: one hint, no error
            st.info(
                "Type a query above — or click one of the four flaws to see it fail with no "
                "fix and pass with its fix.",
                icon=":material/keyboard:",
            )
        else:
            st.info(literal(upper_first(str(exc))))
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
    where = injected_ranks(baseline, ranked, fix_names(view.fixes))
    if where:  # a stress test's injected document, wherever it ranks
        st.markdown(f":orange-badge[:material/science: injected] {literal(where)}.")
    _side_by_side(index, view, baseline, ranked, seed, verdict_slot)
    # the tie explained once: on the current side, else on the no-fix side
    why = (tie_explanation(ranked, view.fixes) or tie_explanation(baseline, no_fix(view)))
    why = why if seed else None
    if why:
        # one line: an id with blank lines must not break the caption into paragraphs
        st.caption(f"Tie at the top: {label(why)}")
    if view.fixes.status and seed:
        unfiltered = index.top(query, replace(view.fixes, status=False), 1)
        left_out = withdrawn_explanation(unfiltered, ranked, view.fixes)
        if left_out:
            st.caption(f"Withdrawn version left out: {literal(left_out)}")
    _what_moved(view, baseline, ranked)
    st.subheader("Ranked passages (current fixes)")
    _results(ranked, view, retriever, query)
    _injected_below(ranked, view, retriever, query)
    if opened:
        st.markdown("**About ragdash**")
        st.markdown(INTRO)


def _injected_below(
    ranked: list[RankedPassage], view: ViewState, retriever=None, query: str = ""
) -> None:
    """A stress test's injected document ranked below the top-k is shown too, marked: the
    case is about it, wherever it ranks."""
    shown = {r.passage.doc_id for r in ranked[: view.k]}
    found = [
        next((r for r in ranked if r.passage.doc_id == doc_id), None)
        for doc_id in sorted(injected_ids() - shown)
    ]
    below = [r for r in found if r is not None]
    if not below:
        return
    st.markdown("**Injected by the stress test, ranked below the passages sent to the model**")
    for r in below:
        document_guard(
            r.passage.doc_id,
            f"explore_injected_{r.rank}",
            partial(_result, r, view, retriever, query),
            removable=False,
        )
