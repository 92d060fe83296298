"""``ragdash passages``: the repaired passages, for a team to index in its own retriever.

Corpus-side fixes change the passages, not the query — joined tables, OCR-repaired words,
withdrawn documents left out — so a team's retriever gets them only by re-indexing. This
module writes each passage ragdash would rank under the chosen fixes as one JSON line::

    {"id": "plans#2", "doc_id": "plans", "text": "...", "page_start": 1, "page_end": 2,
     "kind": "table", "metadata": {"subject": "...", "updated": "2026-01-10",
     "status": "current"}}

``doc_id`` is what a retriever must return as a hit's ``id`` for the proof check to
recognize the document. The fixes act like this: ``tables`` exports the passages with table
fragments joined across page breaks; ``ocr`` rewrites, keeping case, exactly the damaged words
the seed's OCR fix repairs with corpus evidence (:mod:`ragdash.retrieval.ocr`:
``Enterpr1se`` → ``Enterprise`` because other documents spell ``enterprise``; codes, protected
tokens and ambiguous readings untouched), and lists in ``metadata.ocr_readings`` the readings
of damaged words no document spells (``SS0`` → ``sso``), which the seed accepts only when a
query asks for them — index that field too and a query for ``sso`` finds the passage;
``status`` leaves withdrawn documents out; ``recency``, ``versions``, ``fuzzy`` and
``unicode`` change nothing here (they act on ranking or on the query; ``metadata.updated``
is always exported).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ragdash.csv_safe import csv_text
from ragdash.ingestion.documents import Passage
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.matching import repairs_for
from ragdash.retrieval.ocr import RepairTable
from ragdash.retrieval.ranking import eligible_passages
from ragdash.settings import Fixes

__all__ = ["PASSAGE_FORMATS", "export_passages", "passage_records", "repair_ocr_text"]

PASSAGE_FORMATS = ("jsonl", "csv")
_WORD = re.compile(r"[A-Za-z0-9]+")


def repair_ocr_text(text: str, repairs: Mapping[str, str]) -> str:
    """``text`` with every damaged word of ``repairs`` (lowercase raw → word) repaired,
    keeping the word's case::

    >>> repair_ocr_text("The Enterpr1se plan, SS0, 10 GB", {"enterpr1se": "enterprise"})
    'The Enterprise plan, SS0, 10 GB'
    """

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        new = repairs.get(word.lower())
        if new is None or len(new) != len(word):
            return word if new is None else new
        letters = [c for c in word if c.isalpha()]
        upper = bool(letters) and all(c.isupper() for c in letters)
        return "".join(
            (n.upper() if upper else n) if o.isdigit() else o
            for o, n in zip(word, new, strict=True)
        )

    return _WORD.sub(fix, text)


def ocr_table(passages: Sequence[Passage], fixes: Fixes) -> RepairTable:
    """The OCR fix's repairs over ``passages`` (document counts per token as evidence)."""
    docs_of: dict[str, set[str]] = {}
    for p in passages:
        for token in p.tokens:
            docs_of.setdefault(token, set()).add(p.doc_id)
    return repairs_for(docs_of, lambda w: len(docs_of.get(w, ())), fixes)


def passage_record(
    passage: Passage, fixes: Fixes, table: RepairTable | None = None
) -> dict[str, Any]:
    text = passage.text
    record_meta: dict[str, Any] = {}
    if table is not None:
        text = repair_ocr_text(text, {raw: r.word for raw, r in table.repairs.items()})
        open_readings = sorted(
            reading
            for reading, raws in table.unsupported.items()
            if any(raw in passage.tokens for raw, _ in raws)
        )
        if open_readings:
            record_meta["ocr_readings"] = open_readings
    return {
        "id": f"{passage.doc_id}#{passage.position + 1}",
        "doc_id": passage.doc_id,
        "text": text,
        "page_start": passage.page_start,
        "page_end": passage.page_end,
        "kind": passage.kind,
        "metadata": {
            "subject": passage.subject,
            "updated": passage.updated.isoformat() if passage.updated else None,
            "status": passage.status,
            **record_meta,
        },
    }


def passage_records(index: CorpusIndex, fixes: Fixes) -> Iterator[dict[str, Any]]:
    """One record per passage the corpus-side fixes leave, in list order."""
    passages = eligible_passages(index.passages(fixes.tables), fixes)
    table = ocr_table(passages, fixes) if fixes.ocr else None
    for passage in passages:
        yield passage_record(passage, fixes, table)


def export_passages(index: CorpusIndex, fixes: Fixes, fmt: str = "jsonl") -> str:
    """The passages as JSON lines or CSV (``metadata`` flattened to columns). The CSV is for
    people and spreadsheets: text cells starting with ``=``, ``+``, ``-`` or ``@`` get a
    leading ``'`` (:mod:`ragdash.csv_safe`); index the JSON lines, which keep every
    passage exactly."""
    if fmt not in PASSAGE_FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {', '.join(PASSAGE_FORMATS)}")
    records = list(passage_records(index, fixes))
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    columns = ["id", "doc_id", "text", "page_start", "page_end", "kind", "subject", "updated",
               "status"]  # fmt: skip
    # safe to open in a spreadsheet: a passage or subject starting with = + - @ gets a '
    rows = ({**r, **r["metadata"]} for r in records)
    return csv_text(([row[c] for c in columns] for row in rows), columns, lineterminator="\n")
