"""Helpers for the development sets of real PDFs in ``../shared/realpdfs``, ``realpdfs2`` and
``realpdfs3`` (never copied into the repository): open only the pages a decision
needs, join their tables, and judge each ``truth.json`` decision.

``../shared`` is the folder beside the repository (CI checks it out there); the
``RAGDASH_SHARED`` environment variable points elsewhere (``conftest.SHARED``). Without a set
its tests skip, and fail in CI (``conftest.require``)."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import pdfplumber
from conftest import SHARED

from ragdash.case import Case
from ragdash.ingestion.documents import Document
from ragdash.ingestion.furniture import WINDOW, find_furniture
from ragdash.ingestion.joins import JoinedTable, join_tables
from ragdash.ingestion.pdf_layout import PageLayout, page_layout

#: The development sets, in order; each holds PDFs, a MANIFEST and a truth.json.
SETS = ("realpdfs", "realpdfs2", "realpdfs3")
#: The sets whose decisions are also retrieval proof cases (:func:`proof_cases`). Set 3 is
#: judged on its page-break decisions only: as proof cases its mednine rows (Arabic in
#: visual order) fail — the across cases with the tables fix on, and the single-row cases
#: that pass with it off fail with it on — already before issue 44's rules (left open).
PROOF_SETS = ("realpdfs", "realpdfs2")
REALPDFS = SHARED / "realpdfs"
TRUTH = REALPDFS / "truth.json"
#: Files named in a MANIFEST as removed from a set: their rows are ignored.
REMOVED = frozenset({"test-3820.pdf"})


def present(name: str) -> bool:
    """The set's truth.json is there."""
    return (SHARED / name / "truth.json").is_file()


def absent_reason(name: str) -> str:
    return f"development set of real PDFs not found at {SHARED / name} (set RAGDASH_SHARED)"


@cache
def _truth(name: str) -> tuple[dict, ...]:
    rows = json.loads((SHARED / name / "truth.json").read_text(encoding="utf-8"))
    return tuple({**row, "set": name} for row in rows if row["file"] not in REMOVED)


def truth(name: str | None = None) -> list[dict]:
    """The decisions of one set, or of every set present; each row names its ``set``."""
    names = [name] if name else [n for n in SETS if present(n)]
    return [row for n in names for row in _truth(n)]


def locate(name: str) -> Path:
    """A PDF of the development sets by its file name."""
    for folder in SETS:
        if (SHARED / folder / name).is_file():
            return SHARED / folder / name
    raise FileNotFoundError(f"{name}: not in any development set under {SHARED}")


def norm(text: str) -> str:
    return " ".join(text.replace("|", " ").split()).lower()


@cache
def layouts_of(name: str, pages: tuple[int, ...]) -> tuple[PageLayout, ...]:
    data = locate(name).read_bytes()
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        result = []
        for n in pages:
            page = pdf.pages[n - 1]
            result.append(page_layout(page, n))
            page.close()
        return tuple(result)


def pages_for(name: str, entries: list[dict]) -> tuple[int, ...]:
    with pdfplumber.open(locate(name)) as pdf:
        total = len(pdf.pages)
    wanted: set[int] = set()
    for e in entries:
        a, b = e["pages"]
        wanted |= set(range(max(1, a - WINDOW), min(total, b + WINDOW) + 1))
    return tuple(sorted(wanted))


@cache
def tables_of(name: str, pages: tuple[int, ...]) -> tuple[list[JoinedTable], list]:
    layouts = layouts_of(name, pages)
    return join_tables(layouts, find_furniture(layouts))


def table_text(table: JoinedTable) -> str:
    return norm("\n".join([*table.header, *(r.text for r in table.rows)]))


@dataclass(frozen=True)
class Verdict:
    entry: dict
    joined: bool  # our pipeline put row_before and row_after in one table
    found_before: bool
    found_after: bool

    @property
    def right(self) -> bool:
        return self.joined == self.entry["join"]


def judge(entry: dict) -> Verdict:
    name = entry["file"]
    same = [e for e in truth() if e["file"] == name]
    tables, _ = tables_of(name, pages_for(name, same))
    before, after = norm(entry["row_before"]), norm(entry["row_after"])
    a, b = entry["pages"]
    holds_before = [
        t for t in tables if before in table_text(t) and t.page_start <= a <= t.page_end
    ]
    holds_after = [t for t in tables if after in table_text(t) and t.page_start <= b <= t.page_end]
    joined = any(t is u for t in holds_before for u in holds_after)
    return Verdict(entry, joined, bool(holds_before), bool(holds_after))


def table_report(verdicts: list[Verdict]) -> str:
    lines = [f"{'file':34} {'pages':8} {'truth':6} {'ours':6} result"]
    for v in verdicts:
        e = v.entry
        truth_word = "join" if e["join"] else "apart"
        ours = "join" if v.joined else "apart"
        if v.right:
            result = "right"
        elif v.joined:
            result = "WRONG JOIN"
        else:
            result = "MISSED JOIN" + (
                "" if v.found_before and v.found_after
                else f" (row found: before={v.found_before} after={v.found_after})"
            )
        pages = f"{e['pages'][0]}-{e['pages'][1]}"
        lines.append(f"{e['file'][:34]:34} {pages:8} {truth_word:6} {ours:6} {result}")
    right_joins = sum(v.right and v.entry["join"] for v in verdicts)
    wrong = sum(v.joined and not v.entry["join"] for v in verdicts)
    missed = sum(not v.joined and v.entry["join"] for v in verdicts)
    lines.append(
        f"right joins {right_joins}/{sum(v.entry['join'] for v in verdicts)}, "
        f"right apart {sum(v.right and not v.entry['join'] for v in verdicts)}/"
        f"{sum(not v.entry['join'] for v in verdicts)}, wrong joins {wrong}, missed joins {missed}"
    )
    return "\n".join(lines)


def _runs(pages: Sequence[int]) -> list[tuple[int, ...]]:
    runs: list[list[int]] = []
    for page in sorted(pages):
        if runs and page == runs[-1][-1] + 1:
            runs[-1].append(page)
        else:
            runs.append([page])
    return [tuple(r) for r in runs]


def dev_documents() -> dict[tuple[str, int], Document]:
    """Every stretch of pages the decisions need (two pages either side), one document per
    stretch of a file, pages renumbered from 1 — what uploading just those pages would
    give. Keyed by (file, first real page)."""
    docs: dict[tuple[str, int], Document] = {}
    entries = truth()
    for name in dict.fromkeys(e["file"] for e in entries):
        same = [e for e in entries if e["file"] == name]
        for run in _runs(pages_for(name, same)):
            layouts = tuple(
                replace(layout, page=n) for n, layout in enumerate(layouts_of(name, run), 1)
            )
            doc_id = f"{name.removesuffix('.pdf')}-p{run[0]}-{run[-1]}"
            docs[(name, run[0])] = Document(
                doc_id, doc_id, None, "current", f"{doc_id}.pdf", "pdf",
                tuple(x.plain for x in layouts), len(docs),
                tuple(x.text for x in layouts), layouts,
            )
    return docs


def document_of(entry: dict, docs: dict[tuple[str, int], Document]) -> Document:
    start = max(first for name, first in docs if name == entry["file"]
                and first <= entry["pages"][0])
    return docs[(entry["file"], start)]


def proof_cases(docs: dict[tuple[str, int], Document]) -> tuple[list[Case], list[Case]]:
    """Proof-check cases from truth rows (query: the first column's name and the row text;
    one passage sent to the model): for a join, one case whose evidence is the rows either
    side of the break (it needs the join); for every entry, one case per row alone (it
    needs no fix, and must keep passing with the tables fix)."""
    cross, single = [], []
    for entry in (e for name in PROOF_SETS if present(name) for e in truth(name)):
        doc_id = document_of(entry, docs).doc_id
        name = f"{entry['file'].removesuffix('.pdf')}-p{entry['pages'][0]}-{entry['pages'][1]}"
        head = entry["header"][0] if entry.get("header") else ""
        before, after = entry["row_before"], entry["row_after"]
        if entry["join"]:
            cross.append(
                Case(f"{name}-across", f"{head} {before} {after}", doc_id, (before, after), 1)
            )
        for side, row in (("before", before), ("after", after)):
            single.append(Case(f"{name}-{side}", f"{head} {row}", doc_id, (row,), 1))
    return cross, single
