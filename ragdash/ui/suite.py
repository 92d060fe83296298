"""Test suite: the case library, each case under the current fixes against the chosen
retriever, the ablation matrix with the retrieval metrics beside it, and case import."""

from __future__ import annotations

import json
from dataclasses import replace

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.case import Case
from ragdash.checks.ablation import AblationRow, configurations, run_ablation
from ragdash.checks.cases import case_from_dict
from ragdash.checks.metrics import DEFAULT_METRIC_K
from ragdash.checks.report import run_record
from ragdash.checks.runs import CaseRun
from ragdash.csv_safe import frame_csv
from ragdash.errors import CaseFileError, LibraryError
from ragdash.frames import frame
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_NAMES, Fixes, configuration_title, fixes_title
from ragdash.storage.case_store import add_case
from ragdash.ui.context import case_library, error_text, settings
from ragdash.ui.fragility import render_fragility
from ragdash.ui.glossary import define, show_table
from ragdash.ui.guard import section_guard
from ragdash.ui.navigation import pages
from ragdash.ui.render import DIAGNOSIS_COLORS, html_table, tooltips
from ragdash.ui.retriever_picker import checks_source, page_retriever, searches_here
from ragdash.ui.runs import render_saved_runs
from ragdash.ui.shell import empty_corpus_notice
from ragdash.ui.state import VIEW_KEY, open_case, set_view
from ragdash.ui.suite_metrics import (
    METRICS_HELP,
    METRICS_WIDTHS,
    configuration_runs,
    metrics_columns,
    metrics_frame,
    render_log_import,
    suite_runs,
)
from ragdash.ui.text import grid, literal, plain
from ragdash.ui.viewstate import ViewState, split_evidence

__all__ = [
    "CELL_WORDS",
    "HEATMAP_SELECTION",
    "LABEL_PX",
    "SUITE_COLUMNS",
    "TOOLTIP",
    "clicked_cell",
    "failures_only",
    "open_in_configuration",
    "heatmap",
    "render",
    "suite_rows",
]


@st.cache_data(show_spinner="Running every case under every configuration…", max_entries=16)
def _ablation(
    _index: CorpusIndex,
    corpus_key: tuple,
    cases: tuple[Case, ...],
    threshold: float,
    ocr_map: tuple,
    fuzzy_rule: str = "ratio",
    protected: tuple[str, ...] = (),
) -> pd.DataFrame:
    # corpus_key stands in for the (unhashable) index: a changed corpus is a new entry.
    fixes = Fixes(
        threshold=threshold, ocr_map=ocr_map, fuzzy_rule=fuzzy_rule, protected=protected
    )
    return frame(run_ablation(_index, cases, fixes), AblationRow)


#: The words in a heatmap cell: the verdict, short enough for eight columns at 800 px; the
#: diagnosis is the cell's color (legend below) and its tooltip.
CELL_WORDS = {"pass": "PASS", "ranking": "FAIL", "extraction": "FAIL", "error": "ERROR"}
#: Axis labels and cell text at a size people read (the vertical labels were ~9 px).
LABEL_PX = 11
HEATMAP_SELECTION = "cell"
#: A cell's tooltip: what it is, and in plain words what its diagnosis and fixes mean.
TOOLTIP = tooltips(
    "case",
    alt.Tooltip("configuration:N", title="fixes on"),
    alt.Tooltip("fixes:N", title="which fixes"),
    "diagnosis",
    alt.Tooltip("meaning:N", title="what it means"),
    alt.Tooltip("first_id:N", title="ranked first"),
    alt.Tooltip("missing_evidence:N", title="missing evidence"),
)


def failures_only(table: pd.DataFrame) -> pd.DataFrame:
    """The cases that fail under some configuration, and the configurations under which
    some case fails: what is left to look at once the all-green rows and columns go."""
    failing = table["diagnosis"] != "pass"
    cases = set(table.loc[failing, "case"])
    configurations = set(table.loc[failing, "configuration"])
    return table[table["case"].isin(cases) & table["configuration"].isin(configurations)]


def heatmap(table: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Configurations × cases, each cell saying PASS or FAIL on its diagnosis's color.

    Configurations are the rows (16 labels read across, never rotated) and cases the
    columns, so at 800 px each cell is wide enough for its word; a click on a cell selects
    its case (:data:`HEATMAP_SELECTION`), which the page opens in Explore."""
    shown = grid(table)  # case names drawn as axis labels: a raw U+202E reverses one
    # one name per fix, the sidebar's: rows read "Skip withdrawn", never "status"; the code
    # label (``config``) travels with a click, to open the cell's own configuration
    shown = shown.assign(
        config=shown["configuration"],
        configuration=shown["configuration"].map(configuration_title),
    )
    order = list(dict.fromkeys(shown["configuration"]))
    cases = list(dict.fromkeys(shown["case"]))
    colors = dict(DIAGNOSIS_COLORS)
    if (shown["diagnosis"] == "error").any():  # the retriever failed on a case
        colors["error"] = "#868e96"
    data = shown.assign(
        verdict=shown["diagnosis"].map(CELL_WORDS).fillna("FAIL"),
        # plain words on hover: what the diagnosis and the configuration mean
        meaning=shown["diagnosis"].map(lambda d: define(d) or ""),
        fixes=shown["configuration"].map(lambda c: define(c) or ""),
    )
    pick = alt.selection_point(
        name=HEATMAP_SELECTION, fields=["case", "config"], on="click"
    )
    base = alt.Chart(grid(data)).encode(
        x=alt.X(
            "case:N",
            sort=cases,
            title=None,
            axis=alt.Axis(
                orient="top",
                labelAngle=-90,
                labelOverlap=False,
                labelLimit=0,
                labelPadding=4,
                labelFontSize=LABEL_PX,
            ),
        ),
        y=alt.Y(
            "configuration:N",
            sort=order,
            title=None,
            axis=alt.Axis(labelOverlap=False, labelLimit=0, labelFontSize=LABEL_PX),
        ),
    )
    cells = (
        base.mark_rect(stroke="white", strokeWidth=1, cursor="pointer")
        .encode(
            color=alt.Color(
                "diagnosis:N",
                scale=alt.Scale(domain=list(colors), range=list(colors.values())),
                legend=alt.Legend(orient="bottom", title="diagnosis", labelFontSize=LABEL_PX),
            ),
            tooltip=TOOLTIP,
        )
        .add_params(pick)
    )
    words = base.mark_text(fontSize=LABEL_PX, fontWeight="bold", color="white").encode(
        text=alt.Text("verdict:N"),
        tooltip=TOOLTIP,
    )
    # Streamlit fits the whole chart — the case names standing on top and the legend below
    # included — into this height: room for both, so each row keeps its 26 px.
    longest = max((len(c) for c in cases), default=0)
    return alt.layer(cells, words).properties(height=26 * len(order) + 7 * longest + 90)


#: The Test suite table's columns, key ones first; few and short enough to wrap into an
#: 800 px window with the sidebar open (each case's kind is in the JSON download).
SUITE_COLUMNS = ("case", "verdict", "diagnosis", "ranked first", "expected", "missing", "query")


def suite_rows(runs: list[CaseRun]) -> list[dict[str, str]]:
    """One row per case run: the verdict (PASS, FAIL, or ERROR when the retriever failed),
    and for an external retriever the message it left (an error, a repaired query)."""
    return [
        {
            "case": r.case.name,
            "verdict": {"pass": "PASS", "fail": "FAIL"}.get(r.verdict, "ERROR"),
            "diagnosis": r.diagnosis,
            "ranked first": (r.check.first_id if r.check else None) or "nothing",
            "expected": r.case.expected_id,
            "missing": "; ".join(r.check.missing_evidence) if r.check else "",
            "query": r.case.query,
            "message": r.message,
        }
        for r in runs
    ]


def _add_case_form(index: CorpusIndex, cases: list[Case]) -> None:
    with st.expander("Add a case"), st.form("add_case", clear_on_submit=False):
        c1, c2 = st.columns(2)
        name = c1.text_input("Name")
        query = c2.text_input("Query")
        expected = c1.selectbox("Expected document", index.corpus.doc_ids, format_func=plain)
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
            st.error(error_text(exc))
            return
        if case.name in {c.name for c in cases}:
            st.error(f"A case named “{literal(case.name)}” already exists.")
            return
        try:
            add_case(settings().workspace, case)
        except LibraryError as exc:
            reason = error_text(exc)
            st.error(f"Not saved: {reason} (the library was left as it is).")
            return
        st.success(f"Saved case “{literal(case.name)}” to the case library.")
        st.rerun()


def clicked_cell(event: object) -> tuple[str, str] | None:
    """The (case, configuration label) of the heatmap cell clicked, from the chart's event."""
    selection = getattr(event, "selection", None) or {}
    points = selection.get(HEATMAP_SELECTION) or []
    point = next((p for p in points if isinstance(p, dict) and "case" in p), None)
    return (str(point["case"]), str(point.get("config", ""))) if point else None


def open_in_configuration(case: Case, label: str, base: Fixes) -> None:
    """Put ``case`` into the view under the configuration ``label`` names (``status``,
    ``all-but-ocr``; settings from ``base``), so Explore shows what the cell showed: a
    PASS cell opened with no fix landed on a FAIL."""
    open_case(case)
    fixes = configurations(base).get(label)
    if fixes is None:
        return
    view = st.session_state[VIEW_KEY]
    set_view(replace(view, fixes=fixes), reseed_widgets=True)
    for name in FIX_NAMES:
        st.session_state.pop(f"w_fix_{name}", None)


def _open_clicked_case(event: object, cases: list[Case], base: Fixes) -> None:
    """Open a clicked cell's case in Explore under the cell's configuration — once per
    click: the chart keeps its selection when the page is opened again, which must not send
    the visitor straight back."""
    cell = clicked_cell(event)
    if cell == st.session_state.get("suite_heatmap_opened"):
        return
    st.session_state["suite_heatmap_opened"] = cell
    case = next((c for c in cases if cell and c.name == cell[0]), None)
    if case is None or cell is None:
        return
    open_in_configuration(case, cell[1], base)
    st.switch_page(pages().explore)


def _workspace():
    return settings().workspace


def render(index: CorpusIndex, view: ViewState, corpus_key: tuple) -> None:
    """The Test suite page; a part that fails to draw (a stored document or case it cannot
    use) shows an error card and leaves the sidebar and the other pages working."""
    section_guard("The test suite", lambda: _render(index, view, corpus_key))


def _render(index: CorpusIndex, view: ViewState, corpus_key: tuple) -> None:
    st.title("Test suite")
    if empty_corpus_notice(index):
        return
    cases, problems = case_library()
    for problem in problems:
        st.error(literal(problem))
    if not cases:
        st.info("No cases yet: add one below, or put a cases.json in the docs folder.")
        _add_case_form(index, cases)
        return
    retriever = page_retriever(index, view.retriever)
    seed = retriever.spec.kind == "seed"
    metric_k = int(st.session_state.get("suite_metric_k", DEFAULT_METRIC_K))
    runs = suite_runs(retriever, corpus_key, cases, view.fixes, metric_k)
    passed = sum(r.passed for r in runs)
    errors = sum(r.check is None for r in runs)
    against = "" if seed else f" against **{literal(retriever.spec.label)}**"
    st.markdown(
        f"**{passed:d} of {len(runs)}** cases pass with **{literal(fixes_title(view.fixes))}**"
        f"{against}." + (f" The retriever failed on **{errors:d}**." if errors else "")
    )
    columns = SUITE_COLUMNS if seed else (*SUITE_COLUMNS, "message")
    # whole words: "extraction" broke as "extractio-n" at 800 px; the table scrolls instead
    table_html = html_table(suite_rows(runs), columns, "Every case under the current fixes")
    st.html(f'<div class="rd-words">{table_html}</div>')

    row = st.container(horizontal=True, vertical_alignment="bottom")
    chosen = row.selectbox(
        "Open a case in Explore", [c.name for c in cases], key="suite_pick", format_func=plain
    )
    if row.button("Open in Explore", icon=":material/open_in_new:"):
        open_case(next(c for c in cases if c.name == chosen))
        st.switch_page(pages().explore)

    if errors == len(runs):  # e.g. the service is down: 12 more rounds would only fail
        st.warning(
            "The retriever failed on every case (see the message column), so the ablation, "
            "the metrics and the fragility search wait until it answers."
        )
        _add_case_form(index, cases)
        render_log_import(index, _workspace(), cases)
        return
    st.subheader("Ablation: which fix repairs which case")
    f = view.fixes
    settings = (f.threshold, f.ocr_map, f.fuzzy_rule, f.protected)
    ablation_table, metrics = configuration_runs(retriever, corpus_key, cases, view.fixes, metric_k)
    table = _ablation(index, corpus_key, tuple(cases), *settings) if seed else ablation_table
    only = st.toggle(
        "Failures only",
        key="suite_failures_only",
        help="Hide the cases that pass under every configuration and the configurations "
        "under which every case passes.",
    )
    shown = failures_only(table) if only else table
    if shown.empty:
        st.success("Every case passes under every configuration.")
    else:
        event = st.altair_chart(
            heatmap(shown), width="stretch", on_select="rerun", key="suite_heatmap"
        )
        _open_clicked_case(event, cases, view.fixes)
    st.caption(
        "Rows: no fix, each fix alone, all fixes, and all fixes but one. "
        f"{len(configurations())} configurations × {len(cases)} cases; green passes, red is "
        "a ranking failure, orange an extraction failure. Click a cell to open its case in "
        "Explore with that row's fixes on."
    )
    with st.expander("Engineering metrics (hit@k, evidence@k, MRR, nDCG)"):
        st.markdown(f"**Retrieval metrics per configuration** ({literal(retriever.spec.label)})")
        shown_metrics = metrics_frame(metrics, len(cases))
        shown_metrics["configuration"] = shown_metrics["configuration"].map(configuration_title)
        show_table(
            shown_metrics,
            hide_index=True,
            width="stretch",
            height="content",
            column_order=[c for c in METRICS_WIDTHS if c in shown_metrics.columns],
            column_config=metrics_columns(),
        )
        st.number_input("Metrics depth k", 1, 50, DEFAULT_METRIC_K, key="suite_metric_k",
                        help=METRICS_HELP)  # fmt: skip
    d1, d2 = st.columns(2)
    d1.download_button(
        "Download ablation (CSV)", frame_csv(table), "ragdash-ablation.csv", "text/csv"
    )
    report = {
        "retriever": retriever.spec.label,
        "fixes": view.fixes.label,
        "passed": passed,
        "failed": len(runs) - passed,
        "errors": errors,
        "metrics": metrics.to_dict(orient="records"),
        "cases": [run_record(r) for r in runs],
    }
    d2.download_button(
        "Download results (JSON)",
        json.dumps(report, indent=2),
        "ragdash-results.json",
        "application/json",
    )
    st.subheader("How close to breaking")
    if searches_here(retriever, "fragility search"):
        source, key = checks_source(index, corpus_key, retriever)
        render_fragility(source, key, cases, view.fixes, key="suite_fragility")
    _add_case_form(index, cases)
    render_log_import(index, _workspace(), cases)
    render_saved_runs(index, retriever, runs, view.fixes, metric_k, table)
