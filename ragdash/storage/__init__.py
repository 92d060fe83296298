"""Where results live: the SQLite case library, exports (cases, repaired passages), cases
imported from logs, and atomic file writes."""
