"""Stage 3 — checks: cases, the proof check, and the analyses built on it; ``runs`` and
``metrics`` run a case set against any retriever and score it."""
