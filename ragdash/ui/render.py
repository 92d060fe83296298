"""Rendering pieces shared by the pages. Every piece of document or query text goes through
``html.escape`` (inside ``ragdash.retrieval.highlight``) or :func:`literal` before Streamlit
sees it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.retrieval.highlight import HIGHLIGHT_CSS, escape_text, highlight_html, match_kinds
from ragdash.retrieval.matching import MatchKind
from ragdash.retrieval.ranking import RankedPassage
from ragdash.ui.glossary import define
from ragdash.ui.text import grid, literal, plain

__all__ = [
    "DIAGNOSIS_COLORS",
    "KIND_COLORS",
    "TABLE_CSS",
    "breakdown_chart",
    "breakdown_frame",
    "fmt_score",
    "html_table",
    "human_time",
    "inject_css",
    "legend",
    "passage_html",
    "ranked_passage",
    "round_numbers",
    "text_block",
    "verdict_word",
    "wrapped_table",
]

#: One color per match kind, in the kinds' preference order (strongest first).
KIND_COLORS = dict(zip(MatchKind.matched(), ("#4caf50", "#f59f00", "#4c6ef5"), strict=True))
DIAGNOSIS_COLORS = {"pass": "#2f9e44", "ranking": "#e03131", "extraction": "#f08c00"}
#: Tables drawn as HTML (:func:`html_table`) wrap instead of cutting cells off, so every
#: column header stays readable at laptop widths (800 px).
TABLE_CSS = """
.rd-table-wrap { overflow-x: auto; max-width: 100%; }
.rd-table { border-collapse: collapse; width: 100%; font-size: 0.85rem; table-layout: auto; }
.rd-table th, .rd-table td { border-bottom: 1px solid rgba(49, 51, 63, 0.15);
  padding: 0.3rem 0.35rem; text-align: left; vertical-align: top;
  overflow-wrap: break-word; word-break: normal; white-space: normal; hyphens: manual; }
.rd-table th { font-weight: 600; }
.rd-table th[title] { text-decoration: underline dotted; cursor: help; }
.rd-table td { overflow-wrap: anywhere; }
.rd-words .rd-table td { overflow-wrap: break-word; }
.rd-passage mark.rd-diff-del { background: #ffc9c9; }
.rd-passage mark.rd-diff-ins { background: #b2f2bb; }
.rd-table td.rd-fail { color: #c92a2a; font-weight: 600; }
.rd-table td.rd-pass { color: #2b8a3e; font-weight: 600; }
"""


def inject_css() -> None:
    st.html(f"<style>{HIGHLIGHT_CSS}{TABLE_CSS}</style>")


def fmt_score(value: float) -> str:
    """A score as people read it: at most two decimals, no trailing zeros (``1.94``, ``3``)."""
    return f"{round(float(value), 2):g}"


_LONG_DECIMAL = re.compile(r"\b\d+\.\d{3,}\b")


def round_numbers(text: str) -> str:
    """Scores inside a sentence rounded for display: ``1.9412`` → ``1.94``."""
    return _LONG_DECIMAL.sub(lambda m: fmt_score(float(m.group())), text)


def human_time(stamp: str) -> str:
    """A stored ISO timestamp as people read it: ``2026-12-03T17:49:13+00:00`` →
    ``3 Dec 2026, 17:49 UTC`` (shown in UTC, as stored; seconds left out). Anything that is
    not a timestamp is shown as it is.

    >>> human_time("2026-12-03T17:49:13+00:00")
    '3 Dec 2026, 17:49 UTC'
    >>> human_time("yesterday")
    'yesterday'
    """
    try:
        moment = datetime.fromisoformat(str(stamp))
    except ValueError:
        return str(stamp)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    zone = " UTC" if moment.tzinfo is not None else ""
    return f"{moment.day} {moment:%b %Y, %H:%M}{zone}"


def verdict_word(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def html_table(rows: Sequence[Mapping[str, object]], columns: Sequence[str], label: str) -> str:
    """An escaped HTML table of ``rows`` (``columns`` in order, key columns first). Cells
    wrap; a ``verdict`` cell is colored; a header with a glossary entry
    (:mod:`ragdash.ui.glossary`) shows it on hover. Every cell goes through ``html.escape``."""
    head = "".join(
        f'<th title="{escape_text(define(c) or "")}">{escape_text(c)}</th>'
        if define(c)
        else f"<th>{escape_text(c)}</th>"
        for c in columns
    )
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = row.get(c)
            text = "—" if value is None or value == "" else str(value)
            cls = ""
            if c == "verdict":
                cls = ' class="rd-pass"' if text == "PASS" else ' class="rd-fail"'
            cells.append(f"<td{cls}>{escape_text(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="rd-table-wrap"><table class="rd-table" aria-label="{escape_text(label)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def wrapped_table(data: pd.DataFrame, label: str) -> None:
    """``data`` as a wrapping :func:`html_table`: for the small tables of an expander or a
    tab, whose columns a grid cut off at 800 px (a grid sizes columns to their text and
    scrolls sideways; these cells wrap instead). Cells go through :func:`grid` (invisible
    characters as code points) and ``html.escape``; floats are rounded (:func:`fmt_score`).

    Big tables (hundreds of rows) stay grids, with column widths that fit.
    """
    shown = grid(data)
    shown.columns = [str(c).replace("_", " ") for c in shown.columns]  # as a grid shows them
    rows = [
        {c: fmt_score(v) if isinstance(v, float) else v for c, v in row.items()}
        for row in shown.to_dict("records")
    ]
    # whole words: cells that may break anywhere let the table squeeze a column to one
    # letter ("ho|w", "wareh|use") while another keeps its whole sentence on a line
    st.html(f'<div class="rd-words">{html_table(rows, list(shown.columns), label)}</div>')


def legend() -> None:
    st.html(
        '<div class="rd-passage rd-legend" style="white-space:normal">'
        '<mark class="hit-exact">exact</mark><mark class="hit-ocr">OCR-normalized</mark>'
        '<mark class="hit-fuzzy">fuzzy</mark>'
        '<mark class="evidence">required evidence</mark></div>'
    )


def passage_html(ranked: RankedPassage, evidence: Sequence[str]) -> str:
    """The passage text, escaped, with matched tokens and evidence marked."""
    body = highlight_html(ranked.passage.text, match_kinds(ranked.breakdown), evidence)
    return f'<div class="rd-passage">{body}</div>'


def breakdown_frame(ranked: RankedPassage) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "query token": m.query_token,
                "matched": m.passage_token or "—",
                "how": m.kind,
                "similarity": f"{m.similarity:.1f}" if m.kind == MatchKind.FUZZY else "—",
                "points": fmt_score(m.points),
                "rewrite / why": m.note or "—",
            }
            for m in ranked.breakdown
        ]
    )


def breakdown_chart(ranked: Sequence[RankedPassage]) -> alt.Chart | None:
    """Stacked bars: each passage's score split by match kind (exact / OCR / fuzzy), #1 on
    top. Read at a glance: whole-number ticks when every score is whole (0.05 steps for
    scores of 1, 2, 3 were 21 ticks of noise), a tie marked in the label (identical bars
    said nothing), a legend of the kinds present only, the passage's full name in the
    tooltip (the label is ``#rank document``, short enough to show whole)."""
    totals = {r.rank: sum(m.points for m in r.breakdown if m.points > 0) for r in ranked}
    tied = {rank for rank, total in totals.items()
            if total > 0 and sum(t == total for t in totals.values()) > 1}  # fmt: skip
    rows: list[dict[str, Any]] = [
        {
            # axis labels show bidi controls as code points, as every label does
            "passage": plain(
                f"#{r.rank} {r.passage.doc_id}" + (" (tie)" if r.rank in tied else "")
            ),
            "full name": plain(r.passage.label),
            "rank": r.rank,
            "kind": m.kind,
            "points": m.points,
            "token": f"{m.query_token} → {m.passage_token}",
        }
        for r in ranked
        for m in r.breakdown
        if m.points > 0
    ]
    if not rows:
        return None
    data = pd.DataFrame(rows)
    # An explicit order: #1 on top whatever the number of matches per passage (sorting by a
    # field sums it over a passage's stacked rows, which could put #1 below #2).
    order = list(dict.fromkeys(row["passage"] for row in sorted(rows, key=lambda r: r["rank"])))
    whole = all(float(row["points"]).is_integer() for row in rows)
    x_axis = alt.Axis(format="d", tickMinStep=1) if whole else alt.Axis()
    present = [kind for kind in KIND_COLORS if kind in set(data["kind"])]
    return (
        alt.Chart(grid(data))
        .mark_bar()
        .encode(
            y=alt.Y("passage:N", sort=order, title=None, axis=alt.Axis(labelLimit=220)),
            x=alt.X("sum(points):Q", title="score (points)", axis=x_axis),
            color=alt.Color(
                "kind:N",
                scale=alt.Scale(domain=present, range=[KIND_COLORS[k] for k in present]),
                title="match",
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=["full name", "token", "kind", "points"],
        )
        # Streamlit fits the whole chart, axis, title and legend included, into this height:
        # keep about 75 px for the x axis and 60 px for the legend below, so a bar shows.
        .properties(height=135 + 30 * len({r["passage"] for r in rows}))
    )


def text_block(text: str) -> None:
    """Show untrusted text literally (escaped, whitespace kept)."""
    st.html(f'<div class="rd-passage">{escape_text(text)}</div>')


def ranked_passage(
    r: RankedPassage, evidence: Sequence[str], heading: str, note: str = ""
) -> None:
    """One ranked passage as every page shows it: ``heading`` (already Markdown-escaped),
    an optional ``note`` (e.g. which version pair moved it), the passage with matches
    highlighted and evidence outlined, its score breakdown."""
    st.markdown(heading)
    if note:
        st.caption(literal(note))
    st.html(passage_html(r, evidence))
    with st.expander(f"Score breakdown of #{r.rank:d}"):
        wrapped_table(breakdown_frame(r), f"Score breakdown of #{r.rank:d}")

