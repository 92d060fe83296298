"""Triage: turn a user's report into a diagnosis and a saved regression case; the case
library (SQLite in the workspace); fuzzy threshold calibration; the robustness sweep."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.checks.ablation import ALL, BASELINE
from ragdash.checks.calibration import (
    DEFAULT_THRESHOLDS,
    LabeledQuery,
    calibration_queries,
    choose_threshold,
    evaluate_presets,
    sweep_thresholds,
)
from ragdash.checks.cases import parse_cases
from ragdash.checks.faults import QUERY_FAULTS
from ragdash.checks.proof import Case, Diagnosis, ProofCheck
from ragdash.checks.robustness import robustness_sweep, sweep_configurations
from ragdash.checks.triage import Report, Triage, case_name, rerun_and_record, triage
from ragdash.errors import CaseFileError, LibraryError, QueryError
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import RATIO, Fixes
from ragdash.storage.export import json_export, pytest_module
from ragdash.storage.library import REPORTED, STATUSES, CaseLibrary
from ragdash.ui.context import case_library, library_file, settings
from ragdash.ui.fragility import render_fragility
from ragdash.ui.render import (
    breakdown_chart,
    breakdown_frame,
    legend,
    md_code,
    md_escape,
    passage_html,
)
from ragdash.ui.viewstate import ViewState, split_evidence

REPORT_KEY = "triage_report"
SAVED_KEY = "triage_saved"
DIAGNOSIS_TITLES = {
    Diagnosis.PASS: "Evidence present",
    Diagnosis.RANKING: "Ranking or filtering problem",
    Diagnosis.EXTRACTION: "Extraction or segmentation problem",
}
ROBUSTNESS_RATES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4)
METRIC_COLORS = {
    "repaired": "#2f9e44",
    "broken": "#e03131",
    "false fuzzy matches": "#f08c00",
}


def library_path() -> Path:
    return library_file()


def open_library(create: bool = False) -> CaseLibrary | None:
    """The workspace's case library; None if there is none yet (and ``create`` is off) or
    it cannot be used — then the page says why (the file is never overwritten)."""
    path = library_path()
    if not create and not path.exists():
        return None
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        return CaseLibrary(path)
    except (LibraryError, OSError) as exc:
        st.error(f"Case library unavailable: {md_escape(str(exc))}", icon=":material/error:")
        return None


# -- report ---------------------------------------------------------------------------------


def _report_form(index: CorpusIndex, view: ViewState) -> None:
    if "tr_expect" not in st.session_state and view.expect in index.corpus.doc_ids:
        st.session_state["tr_expect"] = view.expect  # start from the document being explored
    with st.form("triage_form"):
        query = st.text_input(
            "Query, exactly as the user typed it",
            key="tr_query",
            placeholder="e.g. return policy days",
            max_chars=1000,
        )
        c1, c2 = st.columns([1, 2])
        expected = c1.selectbox(
            "Document with the right answer", index.corpus.doc_ids, key="tr_expect"
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


def _headline(result: Triage) -> None:
    title = DIAGNOSIS_TITLES[result.diagnosis]
    text = f"**{title}.** {md_escape(result.summary)}"
    if result.diagnosis is Diagnosis.PASS:
        st.success(text, icon=":material/check_circle:")
    elif result.repaired:
        st.warning(text, icon=":material/build:")
    else:
        st.error(text, icon=":material/error:")
    if result.repairs:
        st.markdown("**Repaired by:** " + ", ".join(md_code(r) for r in result.repairs))
    elif result.diagnosis is not Diagnosis.PASS:
        st.markdown("**Repaired by:** no single fix")


def _configuration_table(result: Triage) -> None:
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "configuration": label,
                    "verdict": "pass" if c.passed else "FAIL",
                    "diagnosis": c.diagnosis.value,
                    "ranked first": c.first_id or "—",
                    "missing evidence": "; ".join(c.missing_evidence),
                }
                for label, c in result.checks
            ]
        ),
        hide_index=True,
        width="stretch",
    )


def _passages(check: ProofCheck, title: str) -> None:
    st.markdown(f"**{md_escape(title)}** — {check.diagnosis.value}")
    chart = breakdown_chart(check.ranked)
    if chart is not None:
        st.altair_chart(chart, width="stretch")
    for r in check.ranked:
        st.markdown(f"#{r.rank} · {md_escape(r.passage.label)} · score {r.score:g}")
        st.html(passage_html(r, check.case.evidence))
        with st.expander(f"Score breakdown of #{r.rank}"):
            st.dataframe(breakdown_frame(r), hide_index=True, width="stretch")


def _explain(result: Triage) -> None:
    by_label = result.by_label
    options = list(by_label)
    default = result.repairs[0] if result.repairs else (result.passing or (ALL,))[0]
    left, right = st.columns(2)
    with left:
        _passages(result.baseline, "No fixes")
    with right:
        label = st.selectbox(
            "Compare with", options, index=options.index(default), key="tr_compare"
        )
        _passages(by_label[label], f"Fixes: {label}")


def _save(result: Triage, report: Report, taken: set[str]) -> None:
    st.markdown("**Save as a regression case**")
    if "tr_name" not in st.session_state:
        st.session_state["tr_name"] = case_name(report.query, taken)
    c1, c2 = st.columns([3, 1])
    name = c1.text_input("Case name", key="tr_name")
    if c2.button("Save as case", key="tr_save", type="primary", width="stretch"):
        if not name.strip():
            st.error("Give the case a name.")
            return
        if name.strip() in taken:
            st.error(f"A case named “{md_escape(name.strip())}” already exists.")
            return
        library = open_library(create=True)
        if library is None:
            return
        case = report.as_case(name)
        try:
            library.add(case, status="diagnosed")
            library.record_checks((label, replace(c, case=case)) for label, c in result.checks)
        except LibraryError as exc:
            st.error(f"Not saved: {md_escape(str(exc))}")
            return
        st.session_state[SAVED_KEY] = case.name
    saved = st.session_state.get(SAVED_KEY)
    if saved:
        st.success(
            f"Saved case “{md_escape(saved)}” to the case library (status diagnosed, "
            f"{len(result.checks)} runs recorded). `python -m ragdash check` runs it with "
            f"{md_code('--cases ' + str(library_path()))}."
        )


def _report_tab(
    index: CorpusIndex, view: ViewState, cases: list[Case], corpus_key: tuple
) -> None:
    st.caption(
        "Enter what the user asked and where the right answer is. The report is run under "
        "every configuration; the diagnosis says what is wrong and which fix repairs it."
    )
    _report_form(index, view)
    report: Report | None = st.session_state.get(REPORT_KEY)
    if report is None:
        return
    try:
        result = triage(index, report.as_case("report"), view.fixes)
    except QueryError as exc:
        st.info(md_escape(str(exc)).capitalize())
        return
    _headline(result)
    _configuration_table(result)
    legend()
    _explain(result)
    st.markdown("**How close to breaking**")
    repairs = {label: result.by_label[label].fixes for label in result.repairs}
    render_fragility(
        index, corpus_key, [report.as_case("report")], view.fixes, key="tr_fragility", also=repairs
    )
    _save(result, report, {c.name for c in cases})


# -- library --------------------------------------------------------------------------------


def _library_tab(index: CorpusIndex, view: ViewState) -> None:
    library = open_library()
    st.caption(
        f"Saved in {md_code(str(library_path()))}. In CI: "
        f"{md_code('python -m ragdash check --docs DIR --cases ' + str(library_path()))}."
    )
    entries = []
    if library is not None:
        try:
            entries = library.list()
        except LibraryError as exc:
            st.error(md_escape(str(exc)))
            return
    _import(library)
    if not entries:
        st.info("No saved cases yet: diagnose a report and save it, or import a cases.json.")
        return
    runs = library.history() if library else []
    last = {run.case_name: run for run in runs if run.configuration == view.fixes.label}
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "case": e.name,
                    "status": e.status,
                    "kind": e.case.kind,
                    "query": e.case.query,
                    "expected": e.case.expected_id,
                    "note": e.case.note,
                    f"last run ({view.fixes.label})": (
                        ("pass" if last[e.name].passed else "FAIL") if e.name in last else "—"
                    ),
                    "updated": e.updated,
                }
                for e in entries
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    saved = [e.case for e in entries]
    d1, d2 = st.columns(2)
    d1.download_button("Export as cases.json", json_export(saved), "cases.json", "application/json")
    d2.download_button(
        f"Export as a pytest file (fixes: {view.fixes.label})",
        pytest_module(saved, docs=settings().docs, fixes=view.fixes),
        "test_ragdash_cases.py",
        "text/x-python",
        help="A standalone test file: one test per case, run through ragdash's proof check on "
        "the docs folder (RAGDASH_DOCS overrides it). No network, no LLM.",
    )
    names = [e.name for e in entries]
    picked = st.selectbox("Case", names, key="lib_pick")
    entry = next(e for e in entries if e.name == picked)
    with st.form("lib_edit"):
        status = st.selectbox("Status", STATUSES, index=STATUSES.index(entry.status))
        note = st.text_area("Notes", value=entry.case.note)
        if st.form_submit_button("Save changes"):
            try:
                if status != entry.status:
                    library.update_status(entry.name, status)
                if note != entry.case.note:
                    library.update_notes(entry.name, note)
            except LibraryError as exc:
                st.error(md_escape(str(exc)))
            else:
                st.rerun()
    if st.button(f"Run again with the current fixes ({view.fixes.label})", key="lib_rerun"):
        try:
            rerun_and_record(index, library, entry.case, view.fixes)
        except (QueryError, LibraryError) as exc:
            st.error(md_escape(str(exc)))
        else:
            st.rerun()
    history = [r for r in runs if r.case_name == entry.name]
    st.markdown(f"**Run history** ({len(history)} runs)")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "when": r.at,
                    "configuration": r.configuration,
                    "verdict": "pass" if r.passed else "FAIL",
                    "diagnosis": r.diagnosis,
                }
                for r in reversed(history)
            ],
            columns=["when", "configuration", "verdict", "diagnosis"],
        ),
        hide_index=True,
        width="stretch",
    )


def _import(library: CaseLibrary | None) -> None:
    with st.expander("Import a cases.json"):
        upload = st.file_uploader("cases.json", type=["json"], key="lib_import")
        overwrite = st.checkbox("Replace cases with the same name", key="lib_replace")
        if upload is None or not st.button("Import", key="lib_import_go"):
            return
        try:
            cases = parse_cases(upload.getvalue().decode("utf-8-sig"), upload.name)
        except (CaseFileError, UnicodeDecodeError) as exc:
            st.error(f"Not imported: {md_escape(str(exc))}")
            return
        library = library or open_library(create=True)
        if library is None:
            return
        try:
            result = library.import_cases(cases, replace=overwrite)
        except LibraryError as exc:
            st.error(f"Not imported: {md_escape(str(exc))}")
            return
        st.success(
            f"Imported: {len(result.added)} added, {len(result.updated)} replaced, "
            f"{len(result.skipped)} skipped (name already present)."
        )


# -- calibration ----------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=256)
def _sweep_one(
    _index: CorpusIndex,
    corpus_key: tuple,
    queries: tuple[LabeledQuery, ...],
    threshold: float,
    base: Fixes,
) -> pd.DataFrame:
    return sweep_thresholds(_index, queries, [threshold], base)


@st.cache_data(show_spinner=False, max_entries=64)
def _presets(
    _index: CorpusIndex, corpus_key: tuple, queries: tuple[LabeledQuery, ...], base: Fixes
) -> pd.DataFrame:
    return evaluate_presets(_index, queries, base=base)


def _measures(table: pd.DataFrame, id_vars: list[str]) -> pd.DataFrame:
    """One row per (id, measure): the long form the charts draw."""
    return table.rename(columns={"false_fuzzy_matches": "false fuzzy matches"}).melt(
        id_vars=id_vars, value_vars=list(METRIC_COLORS), var_name="measure", value_name="count"
    )


def calibration_chart(
    sweep: pd.DataFrame, chosen: float, presets: pd.DataFrame | None = None
) -> alt.TopLevelMixin:
    """Repaired / broken / false fuzzy matches per threshold, the chosen threshold dashed; with
    ``presets``, a panel beside it with one point per preset and measure (same y axis)."""
    color = alt.Color(
        "measure:N",
        scale=alt.Scale(domain=list(METRIC_COLORS), range=list(METRIC_COLORS.values())),
        legend=alt.Legend(orient="bottom", title=None),
    )
    top = max(1, int(sweep[["repaired", "broken", "false_fuzzy_matches"]].to_numpy().max()))
    if presets is not None and not presets.empty:
        top = max(top, int(presets[["repaired", "broken", "false_fuzzy_matches"]].max().max()))
    y = alt.Y(
        "count:Q",
        title="count",
        scale=alt.Scale(domain=[0, top]),
        axis=alt.Axis(tickMinStep=1, format="d"),
    )
    lines = (
        alt.Chart(_measures(sweep, ["threshold"]))
        .mark_line(point=True)
        .encode(
            x=alt.X(
                "threshold:Q", title="fuzzy threshold (similarity %)", scale=alt.Scale(zero=False)
            ),
            y=y,
            color=color,
            tooltip=["threshold", "measure", "count"],
        )
    )
    rule = (
        alt.Chart(pd.DataFrame({"threshold": [chosen]}))
        .mark_rule(strokeDash=[4, 4])
        .encode(x="threshold:Q")
    )
    sweep_panel = (lines + rule).properties(height=300, title="ratio rule, by threshold")
    if presets is None or presets.empty:
        return sweep_panel
    rules = presets["rule"].tolist()
    points = (
        alt.Chart(_measures(presets, ["rule", "description"]))
        .mark_point(filled=True, size=110, opacity=1)
        .encode(
            x=alt.X("rule:N", title="edit preset", sort=rules, axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset("measure:N", sort=list(METRIC_COLORS)),
            y=y,
            color=color,
            tooltip=["rule", "description", "measure", "count"],
        )
        .properties(height=300, width=70 * len(rules), title="edit presets")
    )
    return alt.hconcat(sweep_panel.properties(width=480), points).resolve_scale(y="shared")


def _use_threshold(value: float) -> None:
    st.session_state["w_threshold"] = float(value)
    st.session_state["w_fuzzyrule"] = RATIO  # a threshold is a setting of the ratio rule


def _calibration_tab(index: CorpusIndex, view: ViewState, cases: list[Case], key: tuple) -> None:
    st.caption(
        "Sweeps the fuzzy threshold: cases fuzzy matching repairs, cases it breaks, and "
        "fuzzy matches to a word other than the one meant; the edit-distance presets "
        "(es-auto, typos-5-9) are counted the same way beside it. Real reported queries are "
        "used when the library has any — thresholds from real typos beat ones from invented "
        "typos."
    )
    c1, c2, c3 = st.columns(3)
    variants = c1.number_input("Typo variants per clean case", 0, 10, 3, key="cal_variants")
    rate = c2.slider("Typo rate (per letter)", 0.05, 0.5, 0.1, step=0.05, key="cal_rate")
    seed = c3.number_input("Seed", 0, 10**6, 0, key="cal_seed")
    has_reported = any(c.kind == REPORTED for c in cases)
    prefer = st.checkbox(
        "Use only the real reported queries",
        value=True,
        key="cal_reported",
        disabled=not has_reported,
        help="off: the labeled cases and generated typo variants instead",
    )
    if st.button("Run calibration", key="cal_run"):
        st.session_state["cal_on"] = True
    if not st.session_state.get("cal_on"):
        return
    chosen_set = calibration_queries(cases, int(variants), float(rate), int(seed), prefer)
    if not chosen_set.queries:
        st.info("No labeled cases to calibrate on.")
        return
    if chosen_set.source == "reported":
        st.markdown(f"Using **{len(chosen_set.queries)}** real reported queries from the library.")
    else:
        st.markdown(
            f"No reported queries yet: using **{len(chosen_set.queries) - chosen_set.variants}** "
            f"labeled cases and **{chosen_set.variants}** generated typo variants (seed {seed})."
        )
    base = replace(view.fixes, fuzzy=True, fuzzy_rule=RATIO)
    bar = st.progress(0.0, "Sweeping thresholds…")
    parts = []
    for i, threshold in enumerate(DEFAULT_THRESHOLDS):
        parts.append(_sweep_one(index, key, chosen_set.queries, threshold, base))
        bar.progress((i + 1) / len(DEFAULT_THRESHOLDS), f"threshold {threshold:g}")
    presets = _presets(index, key, chosen_set.queries, base)
    bar.empty()
    sweep = pd.concat(parts, ignore_index=True)
    chosen = choose_threshold(sweep)
    row = sweep.loc[sweep["threshold"] == chosen].iloc[0]
    st.altair_chart(calibration_chart(sweep, chosen, presets), width="content")
    st.dataframe(
        presets[["rule", "repaired", "broken", "false_fuzzy_matches", "description"]].rename(
            columns={"false_fuzzy_matches": "false fuzzy matches"}
        ),
        hide_index=True,
        width="stretch",
    )
    if not sweep[["repaired", "broken", "false_fuzzy_matches"]].to_numpy().any():
        st.info(
            "At no threshold does fuzzy matching repair or break any of these queries, so "
            "they say nothing about the threshold."
        )
    rule = view.fixes.fuzzy_rule
    current = f"threshold {view.fixes.threshold:g}" if rule == RATIO else f"the {rule} preset"
    st.markdown(
        f"**Chosen threshold: {chosen:g}** — repairs {row['repaired']}, breaks {row['broken']}, "
        f"{row['false_fuzzy_matches']} false fuzzy matches (current: {current})."
    )
    errors = [("broken", c) for c in row["broken_cases"].split("; ") if c] + [
        ("false fuzzy match", m) for m in row["false_matches"].split("; ") if m
    ]
    if errors:
        st.dataframe(
            pd.DataFrame(errors, columns=["error", "case"]), hide_index=True, width="stretch"
        )
    else:
        st.caption("No errors at the chosen threshold on these queries.")
    st.button(
        f"Use threshold {chosen:g}",
        key="cal_use",
        on_click=_use_threshold,
        args=(chosen,),
        disabled=chosen == view.fixes.threshold and rule == RATIO,
    )
    with st.expander("Every threshold"):
        st.dataframe(sweep, hide_index=True, width="stretch")


# -- robustness -----------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=256)
def _robust_one(
    _index: CorpusIndex,
    corpus_key: tuple,
    cases: tuple[Case, ...],
    fault: str,
    rate: float,
    seeds: int,
    base: Fixes,
) -> pd.DataFrame:
    return robustness_sweep(_index, cases, [rate], [fault], sweep_configurations(base), seeds=seeds)


def robustness_chart(table: pd.DataFrame, fault: str) -> alt.Chart:
    data = table[table["fault"] == fault]
    return (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X("rate:Q", title=f"{fault} noise rate (per letter)"),
            y=alt.Y("pass_rate:Q", title="pass rate", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("configuration:N", sort=list(dict.fromkeys(data["configuration"]))),
            tooltip=["configuration", "rate", "passed", "total", "pass_rate"],
        )
        .properties(height=280, title=f"{fault} noise")
    )


def _robustness_tab(index: CorpusIndex, view: ViewState, cases: list[Case], key: tuple) -> None:
    st.caption(
        "Each case's query corrupted at increasing rates (OCR misreads, keyboard typos), "
        "run with no fix, each fix alone and all fixes."
    )
    seeds = st.number_input("Corrupted copies per case and rate (seeds)", 1, 10, 3, key="rob_seeds")
    if st.button("Run robustness sweep", key="rob_run"):
        st.session_state["rob_on"] = True
    if not st.session_state.get("rob_on"):
        return
    if not cases:
        st.info("No cases in the library.")
        return
    steps = [(f, r) for f in QUERY_FAULTS for r in ROBUSTNESS_RATES]
    bar = st.progress(0.0, "Corrupting queries…")
    parts = []
    for i, (fault, rate) in enumerate(steps):
        parts.append(_robust_one(index, key, tuple(cases), fault, rate, int(seeds), view.fixes))
        bar.progress((i + 1) / len(steps), f"{fault} at rate {rate:g}")
    bar.empty()
    table = pd.concat(parts, ignore_index=True)
    columns = st.columns(len(QUERY_FAULTS))
    for column, fault in zip(columns, QUERY_FAULTS, strict=True):
        column.altair_chart(robustness_chart(table, fault), width="stretch")
    worst = table[table["rate"] == max(ROBUSTNESS_RATES)]
    lines = [
        f"{md_escape(fault)}: no fix {_pct(worst, fault, BASELINE)}, all fixes "
        f"{_pct(worst, fault, ALL)}"
        for fault in QUERY_FAULTS
    ]
    st.markdown(f"At rate {max(ROBUSTNESS_RATES):g}, pass rate — " + "; ".join(lines) + ".")
    with st.expander("Table"):
        st.dataframe(table, hide_index=True, width="stretch")


def _pct(table: pd.DataFrame, fault: str, config: str) -> str:
    row = table[(table["fault"] == fault) & (table["configuration"] == config)]
    return f"{row['pass_rate'].iloc[0]:.0%}" if len(row) else "—"


# -- page -----------------------------------------------------------------------------------


def render(index: CorpusIndex, view: ViewState, corpus_key: tuple) -> None:
    """The Triage page."""
    st.title("Triage")
    cases, problems = case_library()
    for problem in problems:
        st.error(md_escape(problem))
    report_tab, library_tab, calibration_tab, robustness_tab = st.tabs(
        ["Report", "Case library", "Threshold calibration", "Robustness"]
    )
    with report_tab:
        _report_tab(index, view, cases, corpus_key)
    with library_tab:
        _library_tab(index, view)
    with calibration_tab:
        _calibration_tab(index, view, case_library()[0], corpus_key)
    with robustness_tab:
        _robustness_tab(index, view, case_library()[0], corpus_key)
