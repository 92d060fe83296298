"""Test suite: the case library, each case under the current fixes, and the ablation matrix."""

from __future__ import annotations

import json

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.checks.ablation import configurations, run_ablation
from ragdash.checks.cases import case_from_dict
from ragdash.checks.proof import Case, ProofCheck, check_case
from ragdash.checks.report import check_record
from ragdash.errors import CaseFileError, LibraryError
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes
from ragdash.storage.case_store import add_case
from ragdash.ui.context import case_library, settings
from ragdash.ui.fragility import render_fragility
from ragdash.ui.render import DIAGNOSIS_COLORS, html_table, md_escape, verdict_word
from ragdash.ui.shell import empty_corpus_notice
from ragdash.ui.state import open_case
from ragdash.ui.viewstate import ViewState, split_evidence


@st.cache_data(show_spinner="Running every case under every configuration…", max_entries=16)
def _ablation(
    _index: CorpusIndex,
    corpus_key: tuple,
    cases: tuple[Case, ...],
    threshold: float,
    ocr_map: tuple,
    fuzzy_rule: str = "ratio",
) -> pd.DataFrame:
    # corpus_key stands in for the (unhashable) index: a changed corpus is a new entry.
    fixes = Fixes(threshold=threshold, ocr_map=ocr_map, fuzzy_rule=fuzzy_rule)
    return run_ablation(_index, cases, fixes)


def heatmap(table: pd.DataFrame) -> alt.Chart:
    """Cases × configurations, colored by diagnosis."""
    order = list(dict.fromkeys(table["configuration"]))
    cases = list(dict.fromkeys(table["case"]))
    return (
        alt.Chart(table)
        .mark_rect(stroke="white", strokeWidth=1)
        .encode(
            x=alt.X(
                "configuration:N",
                sort=order,
                title=None,
                # Vertical and never dropped or cut: all 12 labels readable at 800 px.
                axis=alt.Axis(
                    labelAngle=-90, orient="top", labelOverlap=False, labelLimit=0, labelPadding=4
                ),
            ),
            y=alt.Y(
                "case:N", sort=cases, title=None, axis=alt.Axis(labelOverlap=False, labelLimit=200)
            ),
            color=alt.Color(
                "diagnosis:N",
                scale=alt.Scale(
                    domain=list(DIAGNOSIS_COLORS), range=list(DIAGNOSIS_COLORS.values())
                ),
            ),
            tooltip=["case", "configuration", "diagnosis", "first_id", "missing_evidence"],
        )
        .properties(height=max(120, 30 * len(cases)))
    )


#: The Test suite table's columns, key ones first; few and short enough to wrap into an
#: 800 px window with the sidebar open (each case's kind is in the JSON download).
SUITE_COLUMNS = ("case", "verdict", "diagnosis", "ranked first", "expected", "missing", "query")


def suite_rows(checks: list[ProofCheck]) -> list[dict[str, str]]:
    return [
        {
            "case": c.case.name,
            "verdict": verdict_word(c.passed),
            "diagnosis": c.diagnosis.value,
            "ranked first": c.first_id or "nothing",
            "expected": c.case.expected_id,
            "missing": "; ".join(c.missing_evidence),
            "query": c.case.query,
        }
        for c in checks
    ]


def _add_case_form(index: CorpusIndex, cases: list[Case]) -> None:
    with st.expander("Add a case"), st.form("add_case", clear_on_submit=False):
        c1, c2 = st.columns(2)
        name = c1.text_input("Name")
        query = c2.text_input("Query")
        expected = c1.selectbox("Expected document", index.corpus.doc_ids)
        evidence = c2.text_input("Required evidence (separate with ;)")
        top_k = c1.number_input("Top-k", 1, 20, 1)
        if not st.form_submit_button("Save case"):
            return
        try:
            case = case_from_dict(
                {
                    "name": name,
                    "query": query,
                    "expected_id": expected,
                    "evidence": list(split_evidence(evidence)),
                    "top_k": int(top_k),
                    "kind": "added",
                },
                "the new case",
            )
        except CaseFileError as exc:
            st.error(md_escape(str(exc)))
            return
        if case.name in {c.name for c in cases}:
            st.error(f"A case named “{md_escape(case.name)}” already exists.")
            return
        try:
            add_case(settings().workspace, case)
        except LibraryError as exc:
            st.error(f"Not saved: {md_escape(str(exc))} (the library was left as it is).")
            return
        st.success(f"Saved case “{md_escape(case.name)}” to the case library.")
        st.rerun()


def render(index: CorpusIndex, view: ViewState, corpus_key: tuple) -> None:
    """The Test suite page."""
    st.title("Test suite")
    if empty_corpus_notice(index):
        return
    cases, problems = case_library()
    for problem in problems:
        st.error(md_escape(problem))
    if not cases:
        st.info("No cases yet: add one below, or put a cases.json in the docs folder.")
        _add_case_form(index, cases)
        return
    checks = [check_case(index, case, view.fixes) for case in cases]
    passed = sum(c.passed for c in checks)
    st.markdown(
        f"**{passed} of {len(checks)}** cases pass with fixes **{md_escape(view.fixes.label)}**."
    )
    st.html(html_table(suite_rows(checks), SUITE_COLUMNS, "Every case under the current fixes"))

    row = st.container(horizontal=True, vertical_alignment="bottom")
    chosen = row.selectbox("Open a case in Explore", [c.name for c in cases], key="suite_pick")
    if row.button("Open in Explore", icon=":material/open_in_new:"):
        open_case(next(c for c in cases if c.name == chosen))
        st.switch_page("ragdash/ui/pages/explore.py")

    st.subheader("Ablation: which fix repairs which case")
    settings = (view.fixes.threshold, view.fixes.ocr_map, view.fixes.fuzzy_rule)
    table = _ablation(index, corpus_key, tuple(cases), *settings)
    st.altair_chart(heatmap(table), width="stretch")
    st.caption(
        "Columns: no fixes (none), each fix alone, all fixes (all), and all fixes but one "
        f"(all-but-…). {len(configurations())} configurations × {len(cases)} cases; green "
        "passes, red is a ranking failure, orange an extraction failure."
    )
    d1, d2 = st.columns(2)
    d1.download_button(
        "Download ablation (CSV)", table.to_csv(index=False), "ragdash-ablation.csv", "text/csv"
    )
    report = {
        "fixes": view.fixes.label,
        "passed": passed,
        "failed": len(checks) - passed,
        "cases": [check_record(c) for c in checks],
    }
    d2.download_button(
        "Download results (JSON)",
        json.dumps(report, indent=2),
        "ragdash-results.json",
        "application/json",
    )
    st.subheader("How close to breaking")
    render_fragility(index, corpus_key, cases, view.fixes, key="suite_fragility")
    _add_case_form(index, cases)
