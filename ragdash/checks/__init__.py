"""Stage 3 — checks: cases, the proof check, and the analyses built on it."""
