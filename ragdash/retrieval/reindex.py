"""The passages a retriever ragdash indexes itself sees, under the corpus-side fixes.

Why one place: ``dense``, ``hybrid`` and a ``python`` factory all index the passages ragdash
hands them, so a corpus-side fix reaches them only by changing those passages. What each fix
does to them (the same as ``ragdash passages`` exports):

* ``tables`` — the passage set with table fragments joined across page breaks (a different
  set of passages, so a different index);
* ``ocr`` — each damaged word the OCR fix repairs with corpus evidence is replaced by its
  repaired word (``Enterpr1se`` → ``enterprise``), and readings no document spells
  (``SS0`` → ``sso``) are appended, as ``ragdash passages`` lists them in
  ``metadata.ocr_readings``;
* ``unicode`` — changes tokens, not text: a dense model tokenizes on its own, so it does not
  change a dense index (it does change BM25's, the other half of ``hybrid``);
* ``status`` — not here: withdrawn hits are dropped after ranking
  (:mod:`ragdash.retrieval.post_fixes`), so one index serves both settings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ragdash.ingestion.documents import Passage
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.matching import repairs_for
from ragdash.settings import Fixes

__all__ = ["index_key", "indexed_texts", "passage_dicts"]

_WORD = re.compile(r"[A-Za-z0-9]+")


def index_key(fixes: Fixes) -> tuple:
    """The settings that change the texts :func:`indexed_texts` gives."""
    return (fixes.tables, (fixes.ocr_map, fixes.protected) if fixes.ocr else None)


def indexed_texts(index: CorpusIndex, fixes: Fixes) -> tuple[tuple[Passage, ...], tuple[str, ...]]:
    """The passages (all of them, list order) and the text to index for each."""
    passages = index.passages(fixes.tables)
    if not fixes.ocr:
        return passages, tuple(p.text for p in passages)
    docs_of: dict[str, set[str]] = {}
    for p in passages:
        for token in p.tokens:
            docs_of.setdefault(token, set()).add(p.doc_id)
    table = repairs_for(docs_of, lambda w: len(docs_of.get(w, ())), fixes)
    repairs = {raw: r.word for raw, r in table.repairs.items()}
    texts = []
    for p in passages:
        text = _WORD.sub(lambda m: repairs.get(m.group(0).lower(), m.group(0)), p.text)
        readings = sorted(
            reading for reading, raws in table.unsupported.items()
            if any(raw in p.tokens for raw, _ in raws)
        )  # fmt: skip
        texts.append(text + (" (" + " ".join(readings) + ")" if readings else ""))
    return passages, tuple(texts)


def passage_dicts(passages: Sequence[Passage], texts: Sequence[str]) -> list[Mapping]:
    """The passages as a factory receives them (``ragdash passages``' record shape)."""
    return [
        {
            "id": f"{p.doc_id}#{p.position + 1}",
            "doc_id": p.doc_id,
            "text": text,
            "page_start": p.page_start,
            "page_end": p.page_end,
            "kind": p.kind,
            "metadata": {
                "subject": p.subject,
                "updated": p.updated.isoformat() if p.updated else None,
                "status": p.status,
            },
        }
        for p, text in zip(passages, texts, strict=True)
    ]
