"""How close to breaking: the fragility search (fewest OCR / typo edits that make a passing
case fail) under no fixes and the current fixes, for the Test suite and Triage pages."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.case import Case
from ragdash.checks.fragility import (
    KIND_TITLES,
    NO_EDITS,
    FragilityRow,
    case_summary,
    compared_configurations,
    fragility_table,
    result_phrase,
)
from ragdash.frames import frame
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes, configuration_title
from ragdash.ui.render import tooltips, wrapped_table
from ragdash.ui.text import grid, label, literal

__all__ = [
    "CONFIGURATION_COLORS",
    "FRAME_PX",
    "MAX_EDITS_CHOICES",
    "ROW_PX",
    "chart_frame",
    "fragility_chart",
    "fragility_rows",
    "render_fragility",
]

#: Bounds of the search as the dashboard runs it (the CLI exposes all of them).
MAX_EDITS_CHOICES = (2, 4, 6, 8)
#: No fixes in orange, the current fixes in blue, other configurations after them.
CONFIGURATION_COLORS = ["#e8590c", "#1c7ed6", "#2f9e44", "#ae3ec9", "#868e96"]


@st.cache_data(show_spinner=False, max_entries=512)
def _case_table(
    _index: CorpusIndex,
    corpus_key: tuple,
    case: Case,
    configurations: tuple[tuple[str, Fixes], ...],
    seed: int,
    max_edits: int,
) -> tuple[FragilityRow, ...]:
    # corpus_key stands in for the (unhashable) index: a changed corpus is a new entry.
    return fragility_table(
        _index, [case], dict(configurations), seed=seed, max_edits=max_edits
    )


def fragility_rows(
    index: CorpusIndex,
    corpus_key: tuple,
    cases: list[Case],
    configurations: dict[str, Fixes],
    seed: int,
    max_edits: int,
) -> list[FragilityRow]:
    """The fragility rows of ``cases``, one case at a time under a progress bar (each case
    is cached, so a second look is instant)."""
    bar = st.progress(0.0, "Searching for the smallest breaking corruption…")
    parts = []
    for i, case in enumerate(cases):
        bar.progress(i / len(cases), f"{label(case.name)} ({i + 1:d}/{len(cases)})")
        parts.append(
            _case_table(index, corpus_key, case, tuple(configurations.items()), seed, max_edits)
        )
    bar.empty()
    return [row for part in parts for row in part]


def chart_frame(table: pd.DataFrame) -> pd.DataFrame:
    """One bar per case × fault × configuration: its length is the edits that broke the
    case (0 when it already fails) or, for a survivor, the edits it was searched to."""
    rows = []
    for row in table.itertuples(index=False):
        edits = None if pd.isna(row.edits) else int(row.edits)
        length = edits if edits is not None else int(row.depth)
        if row.outcome == "already fails":
            label = "fails"
        elif row.outcome == "breaks":
            label = str(edits)
        elif row.stopped == NO_EDITS:
            label = f"survives all {int(row.depth)}" if int(row.depth) else "no edit possible"
        else:
            label = f"survives {int(row.depth)}+"
        rows.append(
            {
                "case": row.case,
                "fault": KIND_TITLES.get(row.fault, row.fault),
                "configuration": configuration_title(row.configuration),
                "edits": length,
                "label": label,
                "result": result_phrase(row.outcome, edits, int(row.depth), row.stopped),
                "breaks": "breaks" if row.outcome != "survives" else "survives",
                "corrupted query": row.corrupted_query or "",
                "failure": row.failure or "",
            }
        )
    return pd.DataFrame(rows)


#: Height of one case's row in the fragility chart, and of the title, axis and legend.
ROW_PX, FRAME_PX = 44, 150


def fragility_chart(
    table: pd.DataFrame, fault: str | None = None
) -> alt.LayerChart | alt.FacetChart:
    """Edits to break each case, no fixes vs current fixes, for one fault kind (``fault``:
    its title; None for all rows); pale bars are cases that survived the whole search.

    One chart per fault, each as wide as its column: a faceted chart had a fixed width per
    panel (1,010 px in a 468 px column at 800 px). The outcome is shown by opacity with no
    legend of its own — its swatches were black and grey under orange and blue bars — and
    said in words under the chart instead."""
    data = chart_frame(table)
    if fault is not None:
        data = data[data["fault"] == fault]
    cases = list(dict.fromkeys(data["case"]))
    configurations = list(dict.fromkeys(data["configuration"]))
    base = alt.Chart(grid(data)).encode(  # case names as axis labels and in tooltips
        y=alt.Y("case:N", sort=cases, title=None, axis=alt.Axis(labelLimit=220)),
        yOffset=alt.YOffset("configuration:N"),
        x=alt.X(
            "edits:Q",
            title="character edits to break the proof check",
            # a handful of whole-number ticks: 0-30 edits drew 31 of them
            axis=alt.Axis(tickMinStep=1, format="d", tickCount=6),
            scale=alt.Scale(domainMax=int(data["edits"].max()) + 2),
        ),
        color=alt.Color(
            "configuration:N",
            title="fixes",
            sort=configurations,
            scale=alt.Scale(
                domain=configurations, range=CONFIGURATION_COLORS[: len(configurations)]
            ),
            legend=alt.Legend(orient="bottom"),
        ),
        tooltip=tooltips("case", "fault", "configuration", "result", "corrupted query",
                         "failure"),
    )
    bars = base.mark_bar().encode(
        opacity=alt.Opacity(
            "breaks:N",
            scale=alt.Scale(domain=["breaks", "survives"], range=[1.0, 0.35]),
            legend=None,
        )
    )
    labels = base.mark_text(align="left", dx=3, fontSize=11).encode(
        text=alt.Text("label:N"), color=alt.value("#333")
    )
    # Streamlit fits the whole chart — title, x axis and its title, the legend below — into
    # this height: 150 px for those, so each case keeps its 44 px (two bars of ~20 px and
    # their labels; at 34 px for everything the bars were 3 px and the labels overlapped).
    return alt.layer(bars, labels, data=data).properties(
        height=FRAME_PX + max(90, ROW_PX * len(cases)), title=fault or ""
    )


def render_fragility(
    index: CorpusIndex,
    corpus_key: tuple,
    cases: list[Case],
    fixes: Fixes,
    key: str,
    also: dict[str, Fixes] | None = None,
) -> pd.DataFrame | None:
    """Controls, the search (on request), the chart, one sentence per case and the table,
    comparing no fixes with ``fixes`` (and the ``also`` configurations). Returns the table
    once it has been run, else None."""
    configurations = {**compared_configurations(fixes), **(also or {})}
    names = ", ".join(configuration_title(c) for c in list(configurations)[1:])
    c1, c2 = st.columns(2)
    seed = int(c1.number_input("Seed", 0, 10**6, 0, key=f"{key}_seed"))
    max_edits = int(
        c2.selectbox("Most edits tried", MAX_EDITS_CHOICES, index=2, key=f"{key}_max")
    )
    run_key = f"{key}_on"
    if st.button("Search for the smallest breaking corruption", key=f"{key}_run"):
        st.session_state[run_key] = True
    if not st.session_state.get(run_key):
        compared = f"with no fixes and with {literal(names)}" if names else "with no fixes"
        st.caption(
            "For each case: the fewest OCR (o→0, i→1) or typo edits of its query that make "
            f"the proof check fail, {compared}. Seeded and bounded."
        )
        return None
    rows = fragility_rows(index, corpus_key, cases, configurations, seed, max_edits)
    table = frame(rows, FragilityRow)
    for fault in dict.fromkeys(chart_frame(table)["fault"]):
        st.altair_chart(fragility_chart(table, fault), width="stretch")
    st.caption(
        "Bar length: the fewest edits that broke the case (0: it already fails). Pale "
        "bars: the case survived every edit tried (the label says how many)."
    )
    for case in dict.fromkeys(table["case"]):
        st.markdown(f"**{literal(case)}** — {literal(case_summary(rows, case))}")
    columns = [
        "case",
        "fault",
        "configuration",
        "outcome",
        "edits",
        "corrupted_query",
        "failure",
        "evaluations",
        "sentence",
    ]
    shown = table[columns].astype(object)
    shown = shown.where(shown.notna(), "—").astype(str)  # a survivor has no corrupted query
    with st.expander("Every search: corrupted query, failure, evaluations"):
        # five columns: the sentence says the outcome, configuration, corrupted query and
        # failure (nine columns cut the table at 800 px)
        wrapped_table(shown[["case", "fault", "edits", "evaluations", "sentence"]], "Every search")
    return table
