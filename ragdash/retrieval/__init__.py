"""Stage 2 — retrieval: tokens, matching, scoring and the index that ranks passages."""
