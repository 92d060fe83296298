"""Triage → Threshold calibration: repaired vs broken vs false fuzzy matches per threshold."""

from __future__ import annotations

from dataclasses import replace

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.case import REPORTED, Case
from ragdash.checks.calibration import (
    DEFAULT_THRESHOLDS,
    MIN_CALIBRATION_QUERIES,
    LabeledQuery,
    PresetRow,
    SweepRow,
    calibration_queries,
    evaluate_presets,
    recommend_threshold,
    sweep_thresholds,
)
from ragdash.frames import frame
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import RATIO, Fixes
from ragdash.ui.glossary import show_table
from ragdash.ui.render import tooltips, wrapped_table
from ragdash.ui.text import grid, literal, upper_first
from ragdash.ui.viewstate import ViewState

__all__ = [
    "METRIC_COLORS",
    "METRIC_DASHES",
    "METRIC_SHAPES",
    "calibration_chart",
    "calibration_tab",
    "coinciding",
    "presets_chart",
]

METRIC_COLORS = {
    "repaired": "#2f9e44",
    "broken": "#e03131",
    "false fuzzy matches": "#f08c00",
}
#: Each measure's own dash and point shape: two measures with the same counts drew one line
#: on top of the other, and the hidden one seemed missing. Dashes and shapes show through.
METRIC_DASHES = {"repaired": [1, 0], "broken": [8, 4], "false fuzzy matches": [2, 3]}
METRIC_SHAPES = {"repaired": "circle", "broken": "square", "false fuzzy matches": "triangle-up"}
_COLUMNS = {
    "repaired": "repaired",
    "broken": "broken",
    "false fuzzy matches": "false_fuzzy_matches",
}


def _threshold_rows(sweep: pd.DataFrame) -> pd.DataFrame:
    """The sweep as five columns, threshold first: three lists of cases in columns of their
    own cut the table at 800 px; they share one column here, each named.

    >>> _threshold_rows(pd.DataFrame([{"threshold": 80, "repaired": 1, "broken": 0,
    ...     "false_fuzzy_matches": 0, "repaired_cases": "typo", "broken_cases": "",
    ...     "false_matches": ""}])).to_dict("list")["which cases"]
    ['repaired: typo']
    """
    lists = {
        "repaired_cases": "repaired",
        "broken_cases": "broken",
        "false_matches": "false matches",
    }
    which = [
        ". ".join(f"{name}: {row[col]}" for col, name in lists.items() if row.get(col))
        or "—"
        for row in sweep.to_dict("records")
    ]
    shown = sweep[["threshold", "repaired", "broken", "false_fuzzy_matches"]].rename(
        columns={"false_fuzzy_matches": "false fuzzy matches"}
    )
    return shown.assign(**{"which cases": which})


def coinciding(sweep: pd.DataFrame) -> list[list[str]]:
    """Groups of measures whose counts are equal at every threshold (drawn as one line).

    >>> coinciding(pd.DataFrame({"threshold": [80, 90], "repaired": [2, 1], "broken": [0, 0],
    ...                          "false_fuzzy_matches": [0, 0]}))
    [['broken', 'false fuzzy matches']]
    """
    groups: dict[tuple, list[str]] = {}
    for measure, column in _COLUMNS.items():
        groups.setdefault(tuple(sweep[column].tolist()), []).append(measure)
    return [names for names in groups.values() if len(names) > 1]


@st.cache_data(show_spinner=False, max_entries=256)
def _sweep_one(
    _index: CorpusIndex,
    corpus_key: tuple,
    queries: tuple[LabeledQuery, ...],
    threshold: float,
    base: Fixes,
) -> tuple[SweepRow, ...]:
    return sweep_thresholds(_index, queries, [threshold], base)


@st.cache_data(show_spinner=False, max_entries=64)
def _presets(
    _index: CorpusIndex, corpus_key: tuple, queries: tuple[LabeledQuery, ...], base: Fixes
) -> pd.DataFrame:
    return frame(evaluate_presets(_index, queries, base=base), PresetRow)


def _measures(table: pd.DataFrame, id_vars: list[str]) -> pd.DataFrame:
    """One row per (id, measure): the long form the charts draw."""
    return table.rename(columns={"false_fuzzy_matches": "false fuzzy matches"}).melt(
        id_vars=id_vars, value_vars=list(METRIC_COLORS), var_name="measure", value_name="count"
    )


def _offsets(sweep: pd.DataFrame, top: int) -> dict[str, float]:
    """How far to lift each measure's line so that coinciding ones sit side by side: the
    first of a group stays, the next rise by 5 % of the axis each (the tooltip keeps the
    true count)."""
    step = 0.05 * top
    lifts = {measure: 0.0 for measure in METRIC_COLORS}
    for names in coinciding(sweep):
        for i, name in enumerate(names):
            lifts[name] = i * step
    return lifts


def _scales(top: int) -> tuple[alt.Y, alt.Color, alt.StrokeDash, alt.Shape]:
    legend = alt.Legend(orient="bottom", title=None)
    y = alt.Y(
        "shown:Q",
        title="count",
        scale=alt.Scale(domain=[0, top * 1.08]),
        axis=alt.Axis(tickMinStep=1, format="d"),
    )
    color = alt.Color(
        "measure:N",
        scale=alt.Scale(domain=list(METRIC_COLORS), range=list(METRIC_COLORS.values())),
        legend=legend,
    )
    dash = alt.StrokeDash(
        "measure:N",
        scale=alt.Scale(domain=list(METRIC_DASHES), range=list(METRIC_DASHES.values())),
        legend=legend,
    )
    shape = alt.Shape(
        "measure:N",
        scale=alt.Scale(domain=list(METRIC_SHAPES), range=list(METRIC_SHAPES.values())),
        legend=legend,
    )
    return y, color, dash, shape


def _top(sweep: pd.DataFrame, presets: pd.DataFrame | None) -> int:
    top = max(1, int(sweep[list(_COLUMNS.values())].to_numpy().max()))
    if presets is not None and not presets.empty:
        top = max(top, int(presets[list(_COLUMNS.values())].max().max()))
    return top


def calibration_chart(
    sweep: pd.DataFrame, chosen: float, presets: pd.DataFrame | None = None
) -> alt.LayerChart:
    """Repaired / broken / false fuzzy matches per threshold, the chosen threshold dashed.

    Lines that coincide (equal at every threshold) are told apart: each measure has its own
    dash and point shape, the later lines of a group are lifted a little, and the title
    names them. As wide as its column (``presets`` only set the shared y axis; they are
    :func:`presets_chart`)."""
    top = _top(sweep, presets)
    y, color, dash, shape = _scales(top)
    lifts = _offsets(sweep, top)
    long = _measures(sweep, ["threshold"])
    long["shown"] = long["count"] + long["measure"].map(lifts)
    data = grid(long)
    x = alt.X("threshold:Q", title="fuzzy threshold (similarity %)", scale=alt.Scale(zero=False))
    tooltip = tooltips("threshold", "measure", "count")
    lines = alt.Chart(data).mark_line(strokeWidth=2).encode(
        x=x, y=y, color=color, strokeDash=dash, tooltip=tooltip
    )
    points = alt.Chart(data).mark_point(filled=True, size=60, opacity=0.9).encode(
        x=x, y=y, color=color, shape=shape, tooltip=tooltip
    )
    rule = (
        alt.Chart(grid(pd.DataFrame({"threshold": [chosen]})))
        .mark_rule(strokeDash=[4, 4])
        .encode(x=alt.X("threshold:Q"))
    )
    same = coinciding(sweep)
    title = alt.TitleParams(
        "ratio rule, by threshold",
        subtitle=[f"{' and '.join(names)}: equal at every threshold" for names in same],
    )
    # Streamlit fits title, axes and legend into this height too: about 300 px of plot.
    return (lines + points + rule).properties(height=430, title=title)


def presets_chart(presets: pd.DataFrame, sweep: pd.DataFrame) -> alt.Chart:
    """One point per edit preset and measure, on the sweep chart's y axis, beside each
    other (never on top of each other)."""
    top = _top(sweep, presets)
    y = _scales(top)[0]
    long = _measures(presets, ["rule", "description"])
    long["shown"] = long["count"]
    rules = presets["rule"].tolist()
    return (
        alt.Chart(grid(long))
        .mark_point(filled=True, size=110, opacity=1)
        .encode(
            x=alt.X("rule:N", title="edit preset", sort=rules, axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset("measure:N", sort=list(METRIC_COLORS)),
            y=y,
            # the sweep chart's legend above says which is which: this one, as narrow as
            # the chart, was cut ("brok")
            color=alt.Color(
                "measure:N",
                scale=alt.Scale(domain=list(METRIC_COLORS), range=list(METRIC_COLORS.values())),
                legend=None,
            ),
            shape=alt.Shape(
                "measure:N",
                scale=alt.Scale(domain=list(METRIC_SHAPES), range=list(METRIC_SHAPES.values())),
                legend=None,
            ),
            tooltip=tooltips("rule", "description", "measure", "count"),
        )
        .properties(
            height=300,
            width=90 * len(rules),
            title=alt.TitleParams("edit presets", subtitle="colours and shapes as above"),
        )
    )


def _use_threshold(value: float) -> None:
    st.session_state["w_threshold"] = float(value)
    st.session_state["w_fuzzyrule"] = RATIO  # a threshold is a setting of the ratio rule


def calibration_tab(index: CorpusIndex, view: ViewState, cases: list[Case], key: tuple) -> None:
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
    sample = len(chosen_set.queries)
    if chosen_set.source == "reported":
        st.markdown(f"Sample: **{sample}** real reported queries from the library.")
    else:
        st.markdown(
            f"Sample: **{sample:d}** queries. No reported queries yet, so "
            f"**{sample - chosen_set.variants:d}** labeled cases and **{chosen_set.variants:d}** "
            f"generated typo variants (seed {int(seed):d})."
        )
    base = replace(view.fixes, fuzzy=True, fuzzy_rule=RATIO)
    bar = st.progress(0.0, "Sweeping thresholds…")
    parts = []
    for i, threshold in enumerate(DEFAULT_THRESHOLDS):
        parts.append(_sweep_one(index, key, chosen_set.queries, threshold, base))
        bar.progress((i + 1) / len(DEFAULT_THRESHOLDS), f"threshold {threshold:g}")
    presets = _presets(index, key, chosen_set.queries, base)
    bar.empty()
    rows = [row for part in parts for row in part]
    chosen = recommend_threshold(rows, sample)
    sweep = frame(rows, SweepRow)
    # Two charts, each within its column at 800 px (side by side they were 750 px wide).
    st.altair_chart(
        calibration_chart(sweep, chosen if chosen is not None else view.fixes.threshold, presets),
        width="stretch",
    )
    for names in coinciding(sweep):
        st.caption(
            f"{literal(upper_first(' and '.join(names)))} are equal at every threshold: their "
            "lines are told apart by dash and point shape, the second drawn a little higher "
            "(hover a point for its count)."
        )
    if not presets.empty:
        st.altair_chart(presets_chart(presets, sweep), width="content")
    show_table(  # each preset's description is a line below: the column was cut at 800 px
        presets.rename(columns={"false_fuzzy_matches": "false fuzzy matches"}),
        hide_index=True,
        width="stretch",
        column_order=["rule", "repaired", "broken", "false fuzzy matches"],
    )
    for row in presets.itertuples(index=False):
        st.caption(f"{literal(row.rule)}: {literal(row.description)}")
    if not sweep[["repaired", "broken", "false_fuzzy_matches"]].to_numpy().any():
        st.info(
            "At no threshold does fuzzy matching repair or break any of these queries, so "
            "they say nothing about the threshold."
        )
    with st.expander("Every threshold"):
        wrapped_table(_threshold_rows(sweep), "Every threshold")
    if chosen is None:
        st.warning(
            f"**No threshold recommended:** the sample has {sample} "
            f"{'query' if sample == 1 else 'queries'}, fewer than the "
            f"{MIN_CALIBRATION_QUERIES} needed to tell a good threshold from chance. Save more "
            "reported queries, or switch off *Use only the real reported queries* to add the "
            "labeled cases and their typo variants.",
            icon=":material/warning:",
        )
        return
    row = sweep.loc[sweep["threshold"] == chosen].iloc[0]
    rule = view.fixes.fuzzy_rule
    current = f"threshold {view.fixes.threshold:g}" if rule == RATIO else f"the {rule} preset"
    st.markdown(
        f"**Chosen threshold: {chosen:g}** (from {sample:d} queries) — repairs "
        f"{int(row['repaired']):d}, breaks {int(row['broken']):d}, "
        f"{int(row['false_fuzzy_matches']):d} false fuzzy matches (current: {literal(current)})."
    )
    errors = [("broken", c) for c in row["broken_cases"].split("; ") if c] + [
        ("false fuzzy match", m) for m in row["false_matches"].split("; ") if m
    ]
    if errors:
        show_table(
            grid(pd.DataFrame(errors, columns=["error", "case"])), hide_index=True, width="stretch"
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
