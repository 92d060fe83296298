"""``ragdash passages``: the repaired passages, for a team to index in its own retriever.

Corpus-side fixes change the passages, not the query — joined tables, OCR-repaired words,
withdrawn documents left out — so a team's retriever gets them only by re-indexing. This
module writes each passage ragdash would rank under the chosen fixes as one JSON line::

    {"id": "plans#2", "doc_id": "plans", "text": "...", "page_start": 1, "page_end": 2,
     "kind": "table", "metadata": {"subject": "...", "updated": "2026-01-10",
     "status": "current"}}

``doc_id`` is what a retriever must return as a hit's ``id`` for the proof check to
recognize the document. The fixes act like this: ``tables`` exports the passages with table
fragments joined across page breaks; ``ocr`` rewrites OCR-damaged words in the text with the
fix's map and its cautious rule (``Enterpr1se`` → ``Enterprise``, ``SS0`` → ``SSO``; numbers
and codes untouched); ``status`` leaves withdrawn documents out; ``recency`` and ``fuzzy``
change nothing here (recency needs ``metadata.updated``, which is always exported; fuzzy is a
query-side fix).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ragdash.ingestion.documents import Passage
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import eligible_passages
from ragdash.retrieval.tokens import normalize_ocr
from ragdash.settings import Fixes

__all__ = ["PASSAGE_FORMATS", "export_passages", "passage_records", "repair_ocr_text"]

PASSAGE_FORMATS = ("jsonl", "csv")
_WORD = re.compile(r"[A-Za-z0-9]+")


def repair_ocr_text(text: str, ocr_map: Mapping[str, str]) -> str:
    """``text`` with every OCR-damaged word repaired, keeping the word's case::

    >>> repair_ocr_text("Enterpr1se plan with SS0, 10 GB", {"0": "o", "1": "i"})
    'Enterprise plan with SSO, 10 GB'
    """

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        normal = normalize_ocr(word.lower(), ocr_map)
        if normal == word.lower():
            return word
        letters = [c for c in word if c.isalpha()]
        upper = bool(letters) and all(c.isupper() for c in letters)
        return "".join(
            (n.upper() if upper else n) if o.isdigit() else o
            for o, n in zip(word, normal, strict=True)
        )

    return _WORD.sub(fix, text)


def passage_record(passage: Passage, fixes: Fixes) -> dict[str, Any]:
    text = repair_ocr_text(passage.text, fixes.substitutions) if fixes.ocr else passage.text
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
        },
    }


def passage_records(index: CorpusIndex, fixes: Fixes) -> Iterator[dict[str, Any]]:
    """One record per passage the corpus-side fixes leave, in list order."""
    for passage in eligible_passages(index.passages(fixes.tables), fixes):
        yield passage_record(passage, fixes)


def export_passages(index: CorpusIndex, fixes: Fixes, fmt: str = "jsonl") -> str:
    """The passages as JSON lines or CSV (``metadata`` flattened to columns)."""
    if fmt not in PASSAGE_FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {', '.join(PASSAGE_FORMATS)}")
    records = list(passage_records(index, fixes))
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    out = io.StringIO()
    columns = ["id", "doc_id", "text", "page_start", "page_end", "kind", "subject", "updated",
               "status"]  # fmt: skip
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    for r in records:
        meta = r.pop("metadata")
        writer.writerow({**r, **meta})
    return out.getvalue()
