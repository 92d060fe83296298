"""Stage 2 — retrieval: tokens, matching, scoring and the index that ranks passages; the
retriever interface (``spec``, ``hits``, ``retrievers``) with ``bm25`` and the team's own
``http`` / ``python`` retrievers."""
