"""Stage 1 — ingestion: files become documents, pages, tables and passages."""
