"""A short fingerprint of a corpus as the retriever sees it, so that a shared link can tell
whether it is opened on the same documents it was made on."""

from __future__ import annotations

import hashlib
import json

from ragdash.ingestion.documents import Corpus

__all__ = ["FINGERPRINT_CHARS", "corpus_fingerprint"]

FINGERPRINT_CHARS = 10


def corpus_fingerprint(corpus: Corpus) -> str:
    """10 lowercase hex characters of a SHA-256 over everything that can change a result.

    Per document, in list order: its id, list order, kind, update date, status, page text
    and structured ``table_pages``. Metadata is included, not just text, because the
    ``recency`` fix orders ties by date and the ``status`` fix drops withdrawn documents, and
    with no fix the list order decides ties: the same words with another date, status or
    order can rank differently. ``kind`` decides how a document is cut into passages (a PDF
    page by page). The subject, file name and ingestion messages are left out: no ranking
    reads them, so renaming a subject keeps a link valid.
    """
    records = [
        [
            doc.doc_id,
            doc.order,
            doc.kind,
            doc.updated.isoformat() if doc.updated else None,
            doc.status,
            list(doc.pages),
            list(doc.table_pages) if doc.table_pages is not None else None,
        ]
        for doc in corpus.documents
    ]
    # JSON gives one unambiguous encoding (no separator inside a text can fake a boundary);
    # ensure_ascii keeps lone surrogates from a damaged file encodable.
    payload = json.dumps(records, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("ascii")).hexdigest()[:FINGERPRINT_CHARS]
