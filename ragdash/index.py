"""A corpus ready to search: its passages with the tables fix off and on, built once."""

from __future__ import annotations

from ragdash.documents import Corpus, Passage
from ragdash.ranking import Fixes, RankedPassage, rank_passages
from ragdash.segmentation import corpus_passages


class CorpusIndex:
    """Holds a corpus and its two passage sets (``tables`` off / on), segmented lazily once.

    One instance is shared by the CLI, the dashboard and the tests; ``search`` is the single
    entry point to ranking.
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._passages: dict[bool, tuple[Passage, ...]] = {}

    def passages(self, tables: bool = False) -> tuple[Passage, ...]:
        """All passages, in list order, as ingestion with the tables fix off or on makes them."""
        if tables not in self._passages:
            self._passages[tables] = corpus_passages(self.corpus, join_tables=tables)
        return self._passages[tables]

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]:
        """Every eligible passage ranked for ``query`` under ``fixes``, best first."""
        return rank_passages(self.passages(fixes.tables), query, fixes)
