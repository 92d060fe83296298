"""The guided tour: the four flaws, one step each — the query, the failure in one sentence,
the toggle that repairs it, and the proof check going FAIL → PASS — always on the bundled
sample documents, so a demo tells the same story whatever ``--docs`` points at."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ragdash.checks.proof import ProofCheck
from ragdash.checks.tour import TOUR, TourOutcome, run_step
from ragdash.errors import CaseFileError, IngestError
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.storage.case_store import load_cases
from ragdash.ui.context import DEFAULT_DOCS, error_text, settings
from ragdash.ui.navigation import pages
from ragdash.ui.render import fmt_score, passage_html
from ragdash.ui.sidebar import FIX_LABELS
from ragdash.ui.state import PAGE_PARAMS_KEY, VIEW_KEY, open_case, set_view
from ragdash.ui.text import code, literal
from ragdash.ui.viewstate import ViewState

__all__ = ["STEP_KEY", "render"]

STEP_KEY = "tour_step"


@st.cache_resource(show_spinner="Reading the sample documents…")
def _bundled() -> tuple[CorpusIndex, tuple]:
    index = CorpusIndex(load_folder(DEFAULT_DOCS))
    return index, tuple(load_cases(DEFAULT_DOCS / "cases.json"))


def _side(check: ProofCheck, title: str) -> None:
    word = "PASS" if check.passed else "FAIL"
    first = check.first_id or "nothing"
    text = f"**{literal(title)}: {word}** — {code(first)} ranked first"
    if check.missing_evidence:
        missing = ", ".join(f"“{literal(e)}”" for e in check.missing_evidence)
        text += f", {missing} missing from what the model reads"
    text += "."
    if check.passed:
        st.success(text, icon=":material/check_circle:")
    else:
        st.error(text, icon=":material/cancel:")
    if check.ranked:
        r = check.ranked[0]
        st.caption(f"#1 · {literal(r.passage.label)} · score {fmt_score(r.score)}")
        st.html(passage_html(r, check.case.evidence))


def _step(outcome: TourOutcome, number: int) -> None:
    step, case = outcome.step, outcome.case
    st.subheader(f"Step {number:d} of {len(TOUR)}: {literal(step.flaw)}")
    st.markdown(f"**Query:** {code(case.query)} · expected {code(case.expected_id)}")
    if case.evidence:
        st.markdown(
            "**Evidence the answer needs:** "
            + ", ".join(f"“{literal(e)}”" for e in case.evidence)
        )
    st.markdown(f"**What goes wrong:** {literal(step.failure)}")
    st.markdown(
        f"**The toggle that repairs it:** {literal(FIX_LABELS[step.fix])} "
        f"({code(step.fix)}) — {literal(step.repair)}"
    )
    left, right = st.columns(2)
    with left:
        _side(outcome.before, "No fix")
    with right:
        _side(outcome.after, f"With {FIX_LABELS[step.fix]}")
    verdicts = f"{'PASS' if outcome.before.passed else 'FAIL'} → "
    verdicts += "PASS" if outcome.after.passed else "FAIL"
    st.markdown(f"**Proof check: {verdicts}**")


def _step_param(value: str | None) -> int:
    try:
        return min(max(int(value or 1), 1), len(TOUR))
    except ValueError:
        return 1


def _go(step: int) -> None:
    st.session_state[STEP_KEY] = step


def _try_in_explore(outcome: TourOutcome) -> None:
    """Open the step's case in Explore with every fix off, so the toggle is the user's."""
    open_case(outcome.case)
    view = st.session_state[VIEW_KEY]
    set_view(replace(view, fixes=view.fixes.with_only(())), reseed_widgets=True)


def render(view: ViewState) -> None:
    """The Guided tour page."""
    st.title("Guided tour")
    st.markdown(
        "Four realistic flaws break a simple keyword retriever; each has a toggle that "
        "repairs it. Each step runs one bundled case with no fix and with its fix: the proof "
        "check passes only when the expected document is first and the evidence is in the "
        "text sent to the model."
    )
    try:
        index, cases = _bundled()
    except (IngestError, CaseFileError) as exc:
        st.error(
            f"The guided tour runs on the bundled sample documents, which cannot be read "
            f"({error_text(exc)}): this installation of ragdash is incomplete; reinstall it.",
            icon=":material/error:",
        )
        return
    if STEP_KEY not in st.session_state:  # a link may name the step: /tour?step=3
        st.session_state[STEP_KEY] = _step_param(st.query_params.get("step"))
    number = min(max(int(st.session_state[STEP_KEY]), 1), len(TOUR))
    st.session_state[PAGE_PARAMS_KEY] = {"step": str(number)}
    st.progress(number / len(TOUR), f"Step {number:d} of {len(TOUR)}")
    outcome = run_step(index, cases, TOUR[number - 1], view.fixes)
    if outcome is None:
        st.error(
            f"The bundled case {code(TOUR[number - 1].case_name)} is missing from "
            f"the bundled {code('samples/cases.json')}: the tour cannot run.",
            icon=":material/error:",
        )
        return
    _step(outcome, number)
    nav = st.container(horizontal=True, gap="small")
    back = explore = forward = nav
    back.button(
        "Previous step",
        icon=":material/arrow_back:",
        disabled=number == 1,
        on_click=_go,
        args=(number - 1,),
        key="tour_back",
    )
    if settings().docs == DEFAULT_DOCS.resolve() and explore.button(
        "Try it in Explore", icon=":material/search:", key="tour_explore"
    ):
        _try_in_explore(outcome)
        st.switch_page(pages().explore)
    if number < len(TOUR):
        forward.button(
            "Next step",
            icon=":material/arrow_forward:",
            type="primary",
            on_click=_go,
            args=(number + 1,),
            key="tour_next",
        )
    else:
        forward.button(
            "Start again",
            icon=":material/restart_alt:",
            on_click=_go,
            args=(1,),
            key="tour_restart",
        )
