"""Generated cases for a team that has none: seeded passages, a query from each passage's
distinctive words, evidence found in that passage only."""

from __future__ import annotations

from ragdash.case import Case
from ragdash.ingestion.documents import Corpus

__all__ = ["GENERATED_KIND", "generate_cases"]

#: The ``kind`` of a generated case.
GENERATED_KIND = "generated"


def generate_cases(corpus: Corpus, n: int, seed: int = 0) -> list[Case]:
    """Up to ``n`` cases over ``corpus``, the same for the same seed."""
    raise NotImplementedError
