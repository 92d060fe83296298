"""Rendering pieces shared by the pages. Every piece of document or query text goes through
``html.escape`` (inside ``ragdash.retrieval.highlight``) or :func:`md_escape` before Streamlit
sees it."""

from __future__ import annotations

import re
from collections.abc import Sequence

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.retrieval.highlight import HIGHLIGHT_CSS, escape_text, highlight_html, match_kinds
from ragdash.retrieval.matching import MatchKind
from ragdash.retrieval.ranking import RankedPassage

#: One color per match kind, in the kinds' preference order (strongest first).
KIND_COLORS = dict(zip(MatchKind.matched(), ("#4caf50", "#f59f00", "#4c6ef5"), strict=True))
DIAGNOSIS_COLORS = {"pass": "#2f9e44", "ranking": "#e03131", "extraction": "#f08c00"}
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: str) -> str:
    """Text made inert for Streamlit's markdown (labels, captions, alerts)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def md_code(text: str) -> str:
    """Inline code for markdown: backslashes are literal inside code spans, so only the
    backtick itself has to go."""
    return "`" + text.replace("`", "'") + "`"


def inject_css() -> None:
    st.html(f"<style>{HIGHLIGHT_CSS}</style>")


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
                "similarity": round(m.similarity, 1) if m.kind == MatchKind.FUZZY else None,
                "points": m.points,
                "rewrite / why": m.note,
            }
            for m in ranked.breakdown
        ]
    )


def breakdown_chart(ranked: Sequence[RankedPassage]) -> alt.Chart | None:
    """Stacked bars: each passage's score split by match kind (exact / OCR / fuzzy)."""
    rows = [
        {
            "passage": f"#{r.rank} {r.passage.label}",
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
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y("passage:N", sort=alt.SortField("rank"), title=None),
            x=alt.X("sum(points):Q", title="score (points)"),
            color=alt.Color(
                "kind:N",
                scale=alt.Scale(domain=list(KIND_COLORS), range=list(KIND_COLORS.values())),
                title="match",
            ),
            tooltip=["passage", "token", "kind", "points"],
        )
        # Streamlit fits the whole chart, axis and title included, into this height: keep
        # about 75 px for the x axis so a single bar still shows.
        .properties(height=75 + 30 * len({r["passage"] for r in rows}))
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
        st.caption(md_escape(note))
    st.html(passage_html(r, evidence))
    with st.expander(f"Score breakdown of #{r.rank}"):
        st.dataframe(breakdown_frame(r), hide_index=True, width="stretch")

