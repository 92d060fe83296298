"""Long lists on the Documents page, drawn in bounded time: ingestion messages grouped and
counted (the first few shown, every one downloadable), documents a page at a time.

A folder of 10,000 files or a metadata.csv of 100,000 rows naming missing files made the page
draw one alert or one expander per item — minutes per rerun. Here the number of elements drawn
does not grow with the folder: a table of message kinds with their counts, at most
:data:`MESSAGES_SHOWN` alerts, at most :data:`DOCUMENTS_PER_PAGE` documents."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pandas as pd
import streamlit as st

from ragdash.csv_safe import csv_text
from ragdash.ingestion.documents import IngestMessage
from ragdash.ui.glossary import show_table
from ragdash.ui.text import grid, literal

__all__ = [
    "DOCUMENTS_PER_PAGE",
    "MESSAGES_SHOWN",
    "MessageGroup",
    "group_messages",
    "messages_csv",
    "paginate",
    "render_messages",
]

#: Alerts drawn one by one before the rest go to the table and the download.
MESSAGES_SHOWN = 10
#: Documents drawn (each an expander with its form and tabs) per page of the listing.
DOCUMENTS_PER_PAGE = 25

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\d+")
T = TypeVar("T")


@dataclass(frozen=True)
class MessageGroup:
    """Messages of one level that say the same thing about different files or rows."""

    level: str
    kind: str
    count: int
    example: str


def _kind(message: str) -> str:
    """The message with what varies between files taken out, so that ``row 7 repeats file
    'a.md'; ignored`` and ``row 9 repeats file 'b.md'; ignored`` are one kind."""
    return _NUMBER.sub("N", _QUOTED.sub("'…'", message))


def group_messages(messages: Sequence[IngestMessage]) -> list[MessageGroup]:
    """Messages grouped by level and kind, errors first, then the largest groups.

    >>> msgs = [IngestMessage("metadata.csv", "warning", f"lists 'f{i}.md', no such file")
    ...         for i in range(3)] + [IngestMessage("x.pdf", "error", "unreadable")]
    >>> [(g.level, g.kind, g.count) for g in group_messages(msgs)]
    [('error', 'unreadable', 1), ('warning', "lists '…', no such file", 3)]
    """
    counts: dict[tuple[str, str], list] = {}
    for m in messages:
        key = (m.level, _kind(m.message))
        entry = counts.setdefault(key, [0, str(m)])
        entry[0] += 1
    groups = [MessageGroup(lv, kind, n, example) for (lv, kind), (n, example) in counts.items()]
    return sorted(groups, key=lambda g: (g.level != "error", -g.count, g.kind))


def messages_csv(messages: Sequence[IngestMessage]) -> str:
    """Every message as CSV (file, level, message), for the download; safe to open in a
    spreadsheet (a file named ``=HYPERLINK(…)`` is text there, :mod:`ragdash.csv_safe`)."""
    rows = ((m.source, m.level, m.message) for m in messages)
    return csv_text(rows, ["file", "level", "message"])


@st.cache_data(show_spinner=False, max_entries=4)
def _csv_bytes(_messages: Sequence[IngestMessage], corpus_key: tuple) -> bytes:
    # corpus_key stands in for the messages (a changed corpus is a new entry)
    return messages_csv(_messages).encode("utf-8")


def render_messages(messages: Sequence[IngestMessage], corpus_key: tuple) -> None:
    """The ingestion messages: counted by kind, the first :data:`MESSAGES_SHOWN` as alerts,
    all of them in a CSV download when there are more."""
    if not messages:
        return
    errors = sum(m.level == "error" for m in messages)
    title = (
        f"Ingestion messages ({len(messages):,}: {errors:,} errors, "
        f"{len(messages) - errors:,} warnings)"
    )
    with st.expander(title, expanded=True):
        groups = group_messages(messages)
        if len(messages) > MESSAGES_SHOWN:
            show_table(
                grid(pd.DataFrame(
                    [
                        {"level": g.level, "count": g.count, "kind": g.kind, "example": g.example}
                        for g in groups
                    ]
                )),
                hide_index=True,
                width="stretch",
            )
        for m in messages[:MESSAGES_SHOWN]:
            show = st.error if m.level == "error" else st.warning
            show(literal(str(m)))
        rest = len(messages) - MESSAGES_SHOWN
        if rest > 0:
            st.caption(f"…and {rest:,} more, counted by kind in the table above.")
            st.download_button(
                f"Download all {len(messages):,} messages (CSV)",
                _csv_bytes(messages, corpus_key),
                file_name="ingestion-messages.csv",
                mime="text/csv",
                icon=":material/download:",
                on_click="ignore",
            )


def paginate(items: Sequence[T], key: str, text_of: Callable[[T], str]) -> Sequence[T]:
    """The items of the page the reader picked, after an optional text filter: at most
    :data:`DOCUMENTS_PER_PAGE` of them, so the page draws in the same time for 10 or 10,000."""
    if len(items) <= DOCUMENTS_PER_PAGE:
        return items
    c1, c2 = st.columns([3, 1])
    needle = c1.text_input(
        "Find documents (id, subject or file)", key=f"{key}_find", placeholder="part of a name"
    ).strip().lower()
    found = [item for item in items if needle in text_of(item).lower()] if needle else items
    pages = max(1, -(-len(found) // DOCUMENTS_PER_PAGE))
    if st.session_state.get(f"{key}_page", 1) > pages:  # a narrower filter: fewer pages
        st.session_state[f"{key}_page"] = pages
    page = int(c2.number_input(f"Page (of {pages:,})", 1, pages, 1, key=f"{key}_page"))
    start = (page - 1) * DOCUMENTS_PER_PAGE
    shown = found[start : start + DOCUMENTS_PER_PAGE]
    if shown:
        st.caption(
            f"Showing {start + 1:,}–{start + len(shown):,} of {len(found):,} documents"
            + (f" matching {literal(needle)}" if needle else "")
            + "."
        )
    else:
        st.caption(f"No documents match {literal(needle)}.")
    return shown
