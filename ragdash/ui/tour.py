"""The guided tour: the four flaws, one step each — the query, the failure in one sentence,
the toggle that repairs it, and the proof check going FAIL → PASS — always on the bundled
sample documents, so a demo tells the same story whatever ``--docs`` points at."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ragdash.checks.proof import ProofCheck
from ragdash.checks.tour import STALE_TOGGLES, TOUR, TourOutcome, run_step
from ragdash.errors import CaseFileError, IngestError
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.storage.case_store import load_cases
from ragdash.ui.context import DEFAULT_DOCS, error_text, settings
from ragdash.ui.navigation import pages
from ragdash.ui.render import (
    VerdictSide,
    fmt_score,
    passage_html,
    passage_words,
    verdict_panel,
)
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


#: How deep a side is ranked to find the expected document when it is not #1.
EXPECTED_DEPTH = 200


def _expected(index: CorpusIndex, check: ProofCheck) -> RankedPassage | None:
    """The expected document's best passage in the whole ranking (beside #1, whatever k)."""
    case = check.case
    ranked = index.top(case.query, check.fixes, EXPECTED_DEPTH)
    return next((r for r in ranked if r.doc_id == case.expected_id and r.matched), None)


def _passage(check: ProofCheck, title: str) -> None:
    """The #1 passage of one side, as the model reads it."""
    if not check.ranked:
        return
    r = check.ranked[0]
    st.caption(f"{literal(title)}: #1 · {literal(passage_words(r.passage))} · "
               f"score {fmt_score(r.score)}")  # fmt: skip
    st.html(passage_html(r, check.case.evidence))


def _step(index: CorpusIndex, outcome: TourOutcome, number: int) -> None:
    """Verdict first (FAIL beside PASS, the wrong value marked, the expected document beside
    #1), then the query, the story and the passages."""
    step, case = outcome.step, outcome.case
    fix = FIX_LABELS[outcome.fix]
    st.subheader(f"Step {number:d} of {len(TOUR)}: {literal(step.flaw)}")
    st.markdown(f"**Query:** {code(case.query)} · expected {code(case.expected_id)}")
    verdict_panel(
        [
            VerdictSide("No fix", outcome.before, _expected(index, outcome.before)),
            VerdictSide(f"With {fix}", outcome.after, _expected(index, outcome.after)),
        ]
    )
    st.markdown(f"**What goes wrong:** {literal(step.failure)}")
    st.markdown(f"**The toggle that repairs it:** {literal(fix)} — {literal(step.repair)}")
    if outcome.fix == "status":
        st.caption(literal(STALE_TOGGLES))
    with st.expander("What the model reads (#1 on each side)"):
        _passage(outcome.before, "No fix")
        _passage(outcome.after, f"With {fix}")


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
        "Four realistic flaws break a simple keyword retriever; one toggle repairs each. A "
        "step runs one bundled case with no fix and with its fix: PASS only when the "
        "expected document is first and the evidence is in the text sent to the model."
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
    st.progress(number / len(TOUR))  # the step's heading says "Step n of 4"
    outcome = run_step(index, cases, TOUR[number - 1], view.fixes)
    if outcome is None:
        st.error(
            f"The bundled case {code(TOUR[number - 1].case_name)} is missing from "
            f"the bundled {code('samples/cases.json')}: the tour cannot run.",
            icon=":material/error:",
        )
        return
    _step(index, outcome, number)
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
