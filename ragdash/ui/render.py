"""Rendering pieces shared by the pages. Every piece of document or query text goes through
``html.escape`` (inside ``ragdash.retrieval.highlight``) or :func:`literal` before Streamlit
sees it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.checks.proof import ProofCheck, wrong_values
from ragdash.ingestion.documents import Passage
from ragdash.retrieval.highlight import HIGHLIGHT_CSS, escape_text, highlight_html, match_kinds
from ragdash.retrieval.matching import MatchKind
from ragdash.retrieval.ranking import RankedPassage
from ragdash.ui.glossary import define
from ragdash.ui.text import grid, literal, plain

__all__ = [
    "DIAGNOSIS_COLORS",
    "KIND_COLORS",
    "KIND_NAMES",
    "VerdictSide",
    "TABLE_CSS",
    "breakdown_chart",
    "breakdown_frame",
    "fmt_score",
    "html_table",
    "human_time",
    "inject_css",
    "label_words",
    "legend",
    "passage_html",
    "passage_words",
    "ranked_passage",
    "round_numbers",
    "text_block",
    "tooltips",
    "verdict_html",
    "verdict_panel",
    "verdict_word",
    "wrapped_table",
]

#: One color per match kind, in the kinds' preference order (strongest first).
KIND_COLORS = dict(zip(MatchKind.matched(), ("#4caf50", "#f59f00", "#4c6ef5"), strict=True))
#: One name per match kind, in the chart's legend, the passage legend and the breakdowns
#: (the chart said "ocr" where the highlight legend said "OCR-normalized").
KIND_NAMES = {MatchKind.EXACT: "exact", MatchKind.OCR: "OCR-normalized", MatchKind.FUZZY: "fuzzy"}
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
.rd-verdicts { display: flex; flex-wrap: wrap; gap: 0.6rem; margin: 0.2rem 0 0.4rem; }
.rd-verdict { flex: 1 1 300px; min-width: 0; border-radius: 0.5rem; padding: 0.55rem 0.75rem;
  border: 1px solid; border-left-width: 6px; font-size: 0.92rem; line-height: 1.4; }
.rd-verdict.rd-v-fail { background: #fff5f5; border-color: #e03131; }
.rd-verdict.rd-v-pass { background: #ebfbee; border-color: #2f9e44; }
.rd-verdict .rd-v-head { font-weight: 700; font-size: 1.02rem; margin-bottom: 0.15rem; }
.rd-v-fail .rd-v-word { color: #c92a2a; }
.rd-v-pass .rd-v-word { color: #2b8a3e; }
.rd-verdict .rd-wrong { color: #c92a2a; font-weight: 700; text-decoration: line-through;
  white-space: nowrap; }
.rd-verdict .rd-right { white-space: nowrap; }
.rd-verdict .rd-right { font-weight: 700; }
.rd-cards { display: flex; flex-wrap: wrap; gap: 0.4rem; margin-top: 0.35rem; }
.rd-card { flex: 1 1 140px; min-width: 0; background: #fff; border: 1px solid #dee2e6;
  border-radius: 0.4rem; padding: 0.3rem 0.5rem; font-size: 0.84rem; }
.rd-card.rd-card-expected { border: 2px dashed #3b5bdb; }
.rd-card .rd-card-head { font-weight: 600; overflow-wrap: anywhere; }
.rd-tok { display: inline-block; white-space: nowrap; border-radius: 3px; padding: 0 4px;
  margin: 1px 2px 1px 0; font-size: 0.8rem; background: #e9ecef; }
.rd-tok.rd-exact { background: #b6e3b6; }
.rd-tok.rd-ocr { background: #ffd59e; }
.rd-tok.rd-fuzzy { background: #c9d7ff; }
.rd-tok.rd-none { background: #f1f3f5; color: #868e96; }
.rd-passage.rd-rows { white-space: pre; overflow-x: auto; }
[data-testid="stMainBlockContainer"] { padding-top: 2.5rem; }
@media (max-width: 1000px) {
  [data-testid="stSidebar"] { width: 220px !important; min-width: 220px !important; }
  [data-testid="stMainBlockContainer"] { padding-left: 1.25rem; padding-right: 1.25rem; }
}
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


def passage_words(passage: Passage) -> str:
    """A passage's name in plain words: ``plans p1-2 #2`` → ``plans, pages 1–2, part 2``.

    >>> p = Passage("plans", "text", page_start=1, page_end=2, position=1, order=0, kind="pdf")
    >>> passage_words(p)
    'plans, pages 1–2, part 2'
    """
    return f"{passage.doc_id}, {_place_words(passage)}"


def _place_words(passage: Passage) -> str:
    """Where a passage sits: ``pages 1–2, part 2`` (the name without its document)."""
    pages = (
        f"page {passage.page_start}"
        if passage.page_start == passage.page_end
        else f"pages {passage.page_start}–{passage.page_end}"
    )
    return f"{pages}, part {passage.position + 1}"


_LABEL = re.compile(r"^(?P<doc>.*) p(?P<a>\d+)(?:-(?P<b>\d+))? #(?P<n>\d+)$")


def label_words(label: str) -> str:
    """A passage label (``plans p1-2 #2``, what the core's comparisons carry) in the plain
    words of :func:`passage_words`; any other text as it is.

    >>> label_words("plans p1-2 #2"), label_words("crm p1 #1"), label_words("x")
    ('plans, pages 1–2, part 2', 'crm, page 1, part 1', 'x')
    """
    m = _LABEL.match(label)
    if m is None:
        return label
    pages = f"page {m['a']}" if m["b"] in (None, m["a"]) else f"pages {m['a']}–{m['b']}"
    return f"{m['doc']}, {pages}, part {m['n']}"


@dataclass(frozen=True)
class VerdictSide:
    """One side of a verdict panel: a proof check under a title (``No fix``, ``With Skip
    withdrawn``) and, when the expected document is not #1, its best passage in the whole
    ranking (None when it is not ranked at all)."""

    title: str
    check: ProofCheck
    expected: RankedPassage | None = None
    note: str = ""  # a sentence after the verdict (e.g. the whole-word rule, when it decided)


def _tokens_html(r: RankedPassage) -> str:
    chips = []
    for m in r.breakdown:
        kind = m.kind if m.points > 0 else MatchKind.NONE
        cls = {MatchKind.EXACT: "rd-exact", MatchKind.OCR: "rd-ocr",
               MatchKind.FUZZY: "rd-fuzzy"}.get(kind, "rd-none")  # fmt: skip
        word = m.query_token if m.passage_token in (None, m.query_token) else (
            f"{m.query_token}→{m.passage_token}"
        )
        points = fmt_score(m.points)
        chips.append(f'<span class="rd-tok {cls}">{escape_text(word)} +{points}</span>')
    return "".join(chips) or '<span class="rd-tok rd-none">no query word matches</span>'


def _card(r: RankedPassage | None, heading: str, expected: bool) -> str:
    """A passage beside another: its heading, where it ranks, its score and the query words
    it matched (each with its points)."""
    cls = "rd-card rd-card-expected" if expected else "rd-card"
    if r is None:
        body = "not retrieved: no query word matches it"
        return f'<div class="{cls}"><div class="rd-card-head">{heading}</div>{body}</div>'
    rank = "" if heading.startswith("#") else f"ranked #{r.rank} · "
    where = f"{rank}score {fmt_score(r.score)} · {_place_words(r.passage)}"
    return (
        f'<div class="{cls}"><div class="rd-card-head">{heading}</div>'
        f"<div>{escape_text(where)}</div>"
        f"<div>{_tokens_html(r)}</div></div>"
    )


def _quoted(values: Sequence[str]) -> str:
    return ", ".join(f"“{escape_text(v)}”" for v in values)


def verdict_html(side: VerdictSide) -> str:
    """One verdict box, escaped: PASS or FAIL with the side's title, what went wrong (the
    wrong value struck through beside the expected one: “60 days” for “30 days”), then #1
    beside the expected document, each with its score breakdown."""
    check = side.check
    case = check.case
    expected_id = escape_text(case.expected_id)
    word = verdict_word(check.passed)
    cls = "rd-v-pass" if check.passed else "rd-v-fail"
    top = check.ranked[0] if check.ranked else None
    first = escape_text(top.doc_id) if top else "nothing"
    if check.no_match:
        line = "No passage matched the query: nothing is retrieved."
    elif check.passed:
        held = f" and holds {_quoted(case.evidence)}" if case.evidence else ""
        line = f"#1 is <b>{expected_id}</b>, the expected document{held}."
    else:
        wrong = dict(wrong_values(check))
        if top is not None and top.doc_id != case.expected_id:
            line = f"Ranking problem: #1 is <b>{first}</b>, not the expected <b>{expected_id}</b>."
        else:
            line = f"Extraction problem: #1 is <b>{expected_id}</b>, the expected document, "
            line += "but its evidence is not all in what the model reads."
        for want, found in wrong.items():
            line += (
                f' The model reads <span class="rd-wrong">{escape_text(found)}</span> where '
                f'<span class="rd-right">{escape_text(want)}</span> is expected.'
            )
        missing = [e for e in check.missing_evidence if e not in wrong]
        if missing:
            line += f" Missing from what the model reads: {_quoted(missing)}."
    if side.note:
        line += f" Note: {escape_text(side.note)}."
    cards = ""
    if top is not None:
        first_is_expected = top.doc_id == case.expected_id
        head = f"#1 {first}" + (" (expected)" if first_is_expected else "")
        cards = _card(top, head, first_is_expected)
        if not first_is_expected:
            cards += _card(side.expected, f"Expected: {expected_id}", True)
        cards = f'<div class="rd-cards">{cards}</div>'
    return (
        f'<div class="rd-verdict {cls}" role="status" aria-label="{word}">'
        f'<div class="rd-v-head"><span class="rd-v-word">{word}</span> · '
        f"{escape_text(side.title)}</div><div>{line}</div>{cards}</div>"
    )


def verdict_panel(sides: Sequence[VerdictSide]) -> None:
    """The verdicts side by side (stacked when narrow), drawn first on the tour and on
    Explore: FAIL or PASS before any detail. Red is used for FAIL only."""
    boxes = "".join(verdict_html(side) for side in sides)
    st.html(f'<div class="rd-verdicts">{boxes}</div>')


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
    # a table's rows stay whole (scrolling sideways when narrow): at 800 px a row wrapped
    # in the middle and read as two rows
    cls = "rd-passage rd-rows" if ranked.passage.kind == "table" else "rd-passage"
    return f'<div class="{cls}">{body}</div>'


def breakdown_frame(ranked: RankedPassage) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "query token": m.query_token,
                "matched": m.passage_token or "—",
                # the legend's words: "OCR-normalized", never the kind's code "ocr"
                "how": KIND_NAMES.get(m.kind, "no match"),
                "similarity": f"{m.similarity:.1f}" if m.kind == MatchKind.FUZZY else "—",
                "points": fmt_score(m.points),
                "rewrite / why": m.note or "—",
            }
            for m in ranked.breakdown
        ]
    )


def _short_where(passage: Passage) -> str:
    """``plans p. 1–2``: the document and its pages, short enough for an axis label."""
    if passage.page_start == passage.page_end:
        return f"{passage.doc_id} p. {passage.page_start}"
    return f"{passage.doc_id} p. {passage.page_start}–{passage.page_end}"


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
            # the pages too: two passages of one document read as two bars named "plans"
            "passage": plain(
                f"#{r.rank} {_short_where(r.passage)}" + (" (tie)" if r.rank in tied else "")
            ),
            "full name": plain(passage_words(r.passage)),
            "rank": r.rank,
            "kind": KIND_NAMES.get(m.kind, str(m.kind)),
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
    x_axis = alt.Axis(format="d", tickMinStep=1, tickCount=6) if whole else alt.Axis(tickCount=6)
    present = [KIND_NAMES[k] for k in KIND_COLORS if KIND_NAMES[k] in set(data["kind"])]
    colors = {KIND_NAMES[k]: c for k, c in KIND_COLORS.items()}
    return (
        alt.Chart(grid(data))
        .mark_bar()
        .encode(
            y=alt.Y("passage:N", sort=order, title=None, axis=alt.Axis(labelLimit=220)),
            x=alt.X("sum(points):Q", title="score (points)", axis=x_axis),
            color=alt.Color(
                "kind:N",
                scale=alt.Scale(domain=present, range=[colors[k] for k in present]),
                title="match",
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=tooltips("full name", "token", "kind", "points"),
        )
        # Streamlit fits the whole chart, axis, title and legend included, into this height:
        # keep about 75 px for the x axis and 60 px for the legend below, so a bar shows.
        .properties(height=135 + 30 * len({r["passage"] for r in rows}))
    )


def tooltips(*fields: str | alt.Tooltip) -> list[alt.Tooltip]:
    """A chart's tooltip channels: each of ``fields`` a column name (its type inferred from
    the data, as for a bare name) or a channel already made. The chart's spec is the one a
    list of bare names gives; why not pass the names: altair finds the channel class of each
    bare string by hashing every Vega-Lite schema class (about 5 ms a name), a sixth of the
    CPU of drawing the pages with charts.

    >>> data = pd.DataFrame({"case": ["a"], "rank": [1]})
    >>> named = alt.Chart(data).mark_bar().encode(tooltip=["case", "rank"]).to_dict()
    >>> made = alt.Chart(data).mark_bar().encode(tooltip=tooltips("case", "rank")).to_dict()
    >>> named == made, made["encoding"]["tooltip"]
    (True, [{'field': 'case', 'type': 'nominal'}, {'field': 'rank', 'type': 'quantitative'}])
    """
    return [f if isinstance(f, alt.Tooltip) else alt.Tooltip(f) for f in fields]


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

