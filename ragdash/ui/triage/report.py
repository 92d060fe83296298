"""Triage → Report: a reported wrong answer run under every configuration, explained."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial

import pandas as pd
import streamlit as st

from ragdash.case import Case, Diagnosis
from ragdash.checks.ablation import ALL
from ragdash.checks.proof import ProofCheck
from ragdash.checks.triage import Report, Triage, advice_of, case_name, documents_saying, triage
from ragdash.errors import LibraryError, QueryError, RetrieverError
from ragdash.ingestion.documents import Document
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_TITLES, configuration_title
from ragdash.storage.case_store import check_command
from ragdash.ui.context import settings
from ragdash.ui.fragility import render_fragility
from ragdash.ui.glossary import show_table
from ragdash.ui.guard import document_guard, document_source
from ragdash.ui.render import (
    breakdown_chart,
    fmt_score,
    legend,
    ranked_passage,
)
from ragdash.ui.retriever_picker import checks_source, page_retriever, searches_here
from ragdash.ui.text import code, grid, label, literal, plain, upper_first
from ragdash.ui.triage.common import open_library
from ragdash.ui.triage.library import export_buttons
from ragdash.ui.viewstate import ViewState, split_evidence

__all__ = [
    "DIAGNOSIS_TITLES",
    "FOLDED_KEY",
    "REPORT_KEY",
    "SAVED_KEY",
    "document_choice",
    "headline_detail",
    "report_tab",
]

REPORT_KEY = "triage_report"
SAVED_KEY = "triage_saved"
#: Set when Explore handed a diagnosed report over: the form starts folded.
FOLDED_KEY = "triage_form_folded"
DIAGNOSIS_TITLES = {
    Diagnosis.PASS: "Evidence present",
    Diagnosis.RANKING: "Ranking or filtering problem",
    Diagnosis.EXTRACTION: "Extraction or segmentation problem",
}


def document_choice(doc: Document) -> str:
    """How the document picker names a document: id, subject, date and status — a bare id
    said nothing of which of two return policies is the withdrawn one."""
    date = doc.updated.isoformat() if doc.updated else "undated"
    return plain(f"{doc.doc_id} — {doc.subject} · {date} · {doc.status}")


def _report_form(index: CorpusIndex, view: ViewState) -> None:
    if "tr_expect" not in st.session_state and view.expect in index.corpus.doc_ids:
        st.session_state["tr_expect"] = view.expect  # start from the document being explored
    documents = {d.doc_id: d for d in index.corpus.documents}
    phrase = st.text_input(
        "Find the document that says…",
        key="tr_find",
        placeholder="30 days",
        max_chars=200,
        help="Words the right answer holds: the document picker below then lists only the "
        "documents whose text says them (case and line breaks set aside).",
    )
    options = list(documents_saying(index.corpus.documents, phrase)) if phrase.strip() else []
    if phrase.strip() and not options:
        st.caption(f"No document says “{literal(phrase.strip())}”; all are listed.")
    if phrase.strip() and options:
        st.caption(
            f"{len(options):d} document(s) say “{literal(phrase.strip())}”."
            + (" Picked below, with it as the evidence." if len(options) == 1 else "")
        )
        if st.session_state.get("tr_expect") not in options:
            st.session_state["tr_expect"] = options[0]
        if len(options) == 1 and not st.session_state.get("tr_evidence"):
            st.session_state["tr_evidence"] = phrase.strip()
    options = options or list(index.corpus.doc_ids)
    if st.session_state.get("tr_expect") not in options:
        st.session_state.pop("tr_expect", None)
    with st.form("triage_form"):
        query = st.text_input(
            "Query, as near as the report gives it",
            key="tr_query",
            placeholder="e.g. return policy days",
            max_chars=1000,
            help="Approximate is fine: a report rarely quotes the user's words exactly. The "
            "diagnosis runs on what you type — if it passes, try the words the user more "
            "likely used (a typo, a shorter question).",
        )
        c1, c2 = st.columns([3, 2])
        expected = c1.selectbox(
            "Document with the right answer",
            options,
            key="tr_expect",
            format_func=lambda doc_id: plain(document_choice(documents[doc_id])),
        )
        evidence = c2.text_input(
            "Evidence the answer needs (separate with ;)", key="tr_evidence", placeholder="30 days"
        )
        note = st.text_area(
            "Note", key="tr_note", placeholder="the assistant said 60 days, the policy is 30"
        )
        top_k = st.number_input("Passages sent to the model (top-k)", 1, 20, 1, key="tr_k")
        if st.form_submit_button("Diagnose", type="primary"):
            st.session_state[REPORT_KEY] = Report(
                query, expected or "", split_evidence(evidence), note.strip(), int(top_k)
            )
            st.session_state.pop(SAVED_KEY, None)
            st.session_state.pop("tr_name", None)
            st.session_state.pop(FOLDED_KEY, None)


_DIAGNOSIS_LEAD = re.compile(r"With no fix this is (?:an? )?[^:.]+: ")


def headline_detail(summary: str) -> str:
    """The summary under its title without saying the diagnosis twice: "Ranking or filtering
    problem. With no fix this is a ranking or filtering problem: crm …" → "… With no fix,
    crm …".

    >>> headline_detail("With no fix this is a ranking or filtering problem: crm is first.")
    'With no fix, crm is first.'
    """
    return _DIAGNOSIS_LEAD.sub("With no fix, ", summary, count=1)


def _headline(result: Triage) -> None:
    title = DIAGNOSIS_TITLES[result.diagnosis]
    text = f"**{title}.** {literal(headline_detail(result.summary))}"
    if result.diagnosis is Diagnosis.PASS:
        st.success(text, icon=":material/check_circle:")
    elif result.repaired:
        st.warning(text, icon=":material/build:")
    else:
        st.error(text, icon=":material/error:")
    real = [r for r in result.outcomes if r.real]
    if real:
        st.markdown(
            "**Repaired by:** "
            + ", ".join(f"{literal(FIX_TITLES[r.fix])} ({literal(r.kind.value)})" for r in real)
        )
    elif result.diagnosis is not Diagnosis.PASS:
        st.markdown("**Repaired by:** no single fix changes the matching")
    for tie in result.tie_wins:
        if tie.detail.casefold() not in result.summary.casefold():  # said once, not twice
            st.markdown(f"**Passes only by a tie-break:** {literal(tie.detail)}.")
    _advice(result)


def _advice(result: Triage) -> None:
    """The one fix to turn on — the fix the Guided tour and Explore name for the same case
    (:func:`ragdash.checks.triage.advice_of`)."""
    told = advice_of(result)
    if told.fix:
        st.markdown(f"**Turn on:** {literal(told.title)} — {literal(told.sentence)}")


def _configuration_table(result: Triage) -> None:
    """Every configuration's verdict, each named as the sidebar names its fixes ("Skip
    withdrawn", "All but OCR normalization"; the table said ``status``, ``all-but-ocr``)."""
    how = {r.fix: r.kind.value for r in result.outcomes}
    show_table(
        grid(pd.DataFrame(
            [
                {
                    "configuration": configuration_title(label),
                    "verdict": "pass" if c.passed else "FAIL",
                    "how it passes": how.get(label, ""),
                    "diagnosis": c.diagnosis.value,
                    "ranked first": c.first_id or "—",
                    "missing evidence": "; ".join(c.missing_evidence),
                }
                for label, c in result.checks
            ]
        )),
        hide_index=True,
        width="stretch",
        height="content",
        column_config={"configuration": st.column_config.TextColumn(pinned=True)},
    )


def _passages(check: ProofCheck, title: str) -> None:
    st.markdown(f"**{literal(title)}** — {literal(check.diagnosis.value)}")
    chart = breakdown_chart(check.ranked)
    if chart is not None:
        st.altair_chart(chart, width="stretch")
    for r in check.ranked:  # one bad document shows an error card; the others still draw
        heading = f"#{r.rank} · {literal(r.passage.label)} · score {fmt_score(r.score)}"
        document_guard(
            partial(document_source, r.passage.doc_id),
            f"triage_{title}_{r.rank}",
            partial(ranked_passage, r, check.case.evidence, heading),
        )


def _explain(result: Triage) -> None:
    by_label = result.by_label
    options = list(by_label)
    # A real repair first; a fix that only wins a tie is shown only when nothing else passes.
    lucky = {r.fix for r in result.tie_wins}
    passing = [label for label in result.passing if label not in lucky]
    default = (list(result.repairs) or passing or list(result.passing) or [ALL])[0]
    left, right = st.columns(2)
    with left:
        _passages(result.baseline, "No fixes")
    with right:
        label = st.selectbox(
            "Compare with",
            options,
            index=options.index(default),
            key="tr_compare",
            format_func=lambda option: plain(configuration_title(option)),
        )
        _passages(by_label[label], f"Fixes: {configuration_title(label)}")


def _save(
    result: Triage, report: Report, taken: set[str], index: CorpusIndex, view: ViewState
) -> None:
    if "tr_name" not in st.session_state:
        st.session_state["tr_name"] = case_name(report.query, taken)
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    name = c1.text_input("Save as a regression case, named", key="tr_name")
    if c2.button("Save as case", key="tr_save", type="primary", width="stretch"):
        if not name.strip():
            st.error("Give the case a name.")
            return
        if name.strip() in taken:
            st.error(f"A case named “{literal(name.strip())}” already exists.")
            return
        library = open_library(create=True)
        if library is None:
            return
        case = report.as_case(name)
        try:
            library.add(case, status="diagnosed")
            library.record_checks((label, replace(c, case=case)) for label, c in result.checks)
        except LibraryError as exc:
            st.error(f"Not saved: {literal(str(exc))}")
            return
        st.session_state[SAVED_KEY] = case.name
    saved = st.session_state.get(SAVED_KEY)
    if saved:
        st.success(
            f"Saved case “{literal(saved)}” to the case library (status diagnosed, "
            f"{len(result.checks)} runs recorded). Run every case from a shell with "
            f"{code(check_command(settings().docs, settings().workspace))}, or export them:"
        )
        export_buttons(index, view, key="tr_export")


def report_tab(index: CorpusIndex, view: ViewState, cases: list[Case], corpus_key: tuple) -> None:
    report: Report | None = st.session_state.get(REPORT_KEY)
    if st.session_state.pop("triage_from_explore", False):
        # one line: the verdict below must stay in the first screenful at 800 px
        st.caption(
            "Opened from Explore with its query, expected document, evidence and the "
            "sidebar's fixes — edit them under *The report*."
        )
    else:
        st.caption(
            "Enter what the user asked and where the right answer is. The report is run under "
            "every configuration; the diagnosis says what is wrong and which fix repairs it."
        )
    # Handed over from Explore and diagnosed: the verdict first, the form folded above it
    # (open, it pushed the verdict below the fold).
    if report is not None and st.session_state.get(FOLDED_KEY):
        with st.expander(f"The report: {label(report.query)} → {label(report.expected_id)}"):
            _report_form(index, view)
    else:
        _report_form(index, view)
    report = st.session_state.get(REPORT_KEY)
    if report is None:
        return
    retriever = page_retriever(index, view.retriever)
    source, key = checks_source(index, corpus_key, retriever)
    if source is not index:
        st.caption(f"Diagnosed against **{literal(retriever.spec.label)}**.")
    try:
        result = triage(source, report.as_case("report"), view.fixes)  # type: ignore[arg-type]
    except QueryError as exc:
        st.info(literal(upper_first(str(exc))))
        return
    except RetrieverError as exc:
        st.error(f"The retriever did not answer usably: {literal(str(exc))}")
        return
    _headline(result)
    # Saved right after the verdict: at the foot of the page, under "How close to
    # breaking", the button was out of sight.
    _save(result, report, {c.name for c in cases}, index, view)
    _configuration_table(result)
    legend()
    _explain(result)
    st.markdown("**How close to breaking**")
    repairs = {label: result.by_label[label].fixes for label in result.repairs}
    if searches_here(retriever, "fragility search"):
        render_fragility(
            source, key, [report.as_case("report")], view.fixes, key="tr_fragility", also=repairs
        )
