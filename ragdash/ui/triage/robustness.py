"""Triage → Robustness: pass rate against the noise rate, per fix."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.case import Case
from ragdash.checks.ablation import ALL, BASELINE
from ragdash.checks.faults import QUERY_FAULTS
from ragdash.checks.robustness import RobustnessRow, robustness_sweep, sweep_configurations
from ragdash.frames import frame
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes
from ragdash.ui.render import tooltips, wrapped_table
from ragdash.ui.retriever_picker import checks_source, page_retriever, searches_here
from ragdash.ui.text import grid, literal
from ragdash.ui.viewstate import ViewState

__all__ = ["ROBUSTNESS_RATES", "robustness_chart", "robustness_tab"]

ROBUSTNESS_RATES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4)


@st.cache_data(show_spinner=False, max_entries=256)
def _robust_one(
    _index: CorpusIndex,
    corpus_key: tuple,
    cases: tuple[Case, ...],
    fault: str,
    rate: float,
    seeds: int,
    base: Fixes,
) -> tuple[RobustnessRow, ...]:
    return robustness_sweep(_index, cases, [rate], [fault], sweep_configurations(base), seeds=seeds)


def robustness_chart(table: pd.DataFrame, fault: str) -> alt.Chart:
    """Pass rate against noise rate, one line per configuration. The legend sits below in
    columns with every configuration (at the right it listed 7 of 9 in its 280 px), the
    pass rate is held to 0-1 (a line plotted above 1.0), and lines that lie on top of each
    other differ by dash as well as color."""
    data = table[table["fault"] == fault]
    configurations = list(dict.fromkeys(data["configuration"]))
    legend = alt.Legend(orient="bottom", columns=3, symbolLimit=0, labelLimit=0)
    return (
        alt.Chart(grid(data))
        .mark_line(point=True, clip=True)
        .encode(
            x=alt.X("rate:Q", title=f"{fault} noise rate (per letter)"),
            y=alt.Y(
                "pass_rate:Q",
                title="pass rate",
                scale=alt.Scale(domain=[0, 1], clamp=True, nice=False),
            ),
            color=alt.Color("configuration:N", sort=configurations, legend=legend),
            strokeDash=alt.StrokeDash("configuration:N", sort=configurations, legend=legend),
            tooltip=tooltips("configuration", "rate", "passed", "total", "pass_rate"),
        )
        .properties(height=280 + 22 * -(-len(configurations) // 3), title=f"{fault} noise")
    )


def robustness_tab(index: CorpusIndex, view: ViewState, cases: list[Case], key: tuple) -> None:
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
    retriever = page_retriever(index, view.retriever)
    if not searches_here(retriever, "robustness sweep"):
        return
    index, key = checks_source(index, key, retriever)  # type: ignore[assignment]
    steps = [(f, r) for f in QUERY_FAULTS for r in ROBUSTNESS_RATES]
    bar = st.progress(0.0, "Corrupting queries…")
    parts = []
    for i, (fault, rate) in enumerate(steps):
        parts.append(_robust_one(index, key, tuple(cases), fault, rate, int(seeds), view.fixes))
        bar.progress((i + 1) / len(steps), f"{literal(fault)} at rate {rate:g}")
    bar.empty()
    table = frame([row for part in parts for row in part], RobustnessRow)
    columns = st.columns(len(QUERY_FAULTS))
    for column, fault in zip(columns, QUERY_FAULTS, strict=True):
        column.altair_chart(robustness_chart(table, fault), width="stretch")
    worst = table[table["rate"] == max(ROBUSTNESS_RATES)]
    lines = [
        f"{literal(fault)}: no fix {literal(_pct(worst, fault, BASELINE))}, all fixes "
        f"{literal(_pct(worst, fault, ALL))}"
        for fault in QUERY_FAULTS
    ]
    st.markdown(f"At rate {max(ROBUSTNESS_RATES):g}, pass rate — {'; '.join(lines)}.")
    with st.expander("Table"):
        wrapped_table(table, "Pass rate per fault, rate and configuration")


def _pct(table: pd.DataFrame, fault: str, config: str) -> str:
    row = table[(table["fault"] == fault) & (table["configuration"] == config)]
    return f"{row['pass_rate'].iloc[0]:.0%}" if len(row) else "—"
