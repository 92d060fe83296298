"""Where results live: the SQLite case library, exports and atomic file writes."""
