"""A corpus ready to search: its passages with the tables fix off and on, built once."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from ragdash.ingestion.documents import Corpus, Passage
from ragdash.ingestion.fingerprint import corpus_fingerprint
from ragdash.ingestion.segmentation import corpus_passages
from ragdash.retrieval.inverted import InvertedIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.retrieval.saved import read_index, save_index
from ragdash.settings import Fixes

__all__ = ["CorpusIndex", "tables_neutral"]


class CorpusIndex:
    """Holds a corpus, its two passage sets (``tables`` off / on) and an inverted index over
    each, all built lazily once.

    One instance is shared by the CLI, the dashboard and the tests; ``search`` and ``top`` are
    the entry points to ranking (identical to :func:`ragdash.retrieval.ranking.rank_passages`).
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._passages: dict[bool, tuple[Passage, ...]] = {}
        self._inverted: dict[tuple[bool, bool], InvertedIndex] = {}
        self._by_document: dict[bool, dict[str, tuple[Passage, ...]]] = {}

    def passages(self, tables: bool = False) -> tuple[Passage, ...]:
        """All passages, in list order, as ingestion with the tables fix off or on makes them."""
        if tables not in self._passages:
            other = self._passages.get(not tables)
            if other is not None and tables_neutral(self.corpus):
                self._passages[tables] = other  # the tables fix changes nothing here
            else:
                self._passages[tables] = corpus_passages(self.corpus, join_tables=tables)
        return self._passages[tables]

    def passages_of(self, doc_id: str, tables: bool = False) -> tuple[Passage, ...]:
        """One document's passages, in order (grouped once per passage set, so pages that
        show every document do not scan the whole corpus for each)."""
        if tables not in self._by_document:
            groups: dict[str, list[Passage]] = {}
            for passage in self.passages(tables):
                groups.setdefault(passage.doc_id, []).append(passage)
            self._by_document[tables] = {d: tuple(ps) for d, ps in groups.items()}
        return self._by_document[tables].get(doc_id, ())

    def inverted(self, tables: bool = False, unicode: bool = False) -> InvertedIndex:
        """The inverted index over :meth:`passages`, tokens as the ``unicode`` fix reads them
        or not (shared when both passage sets are the same)."""
        key = (tables, unicode)
        if key not in self._inverted:
            passages = self.passages(tables)
            other = self._inverted.get((not tables, unicode))
            if other is not None and other.passages is passages:
                self._inverted[key] = other
            else:
                self._inverted[key] = self._build_inverted(passages, tables, unicode)
        return self._inverted[key]

    def _build_inverted(
        self, passages: tuple[Passage, ...], tables: bool, unicode: bool
    ) -> InvertedIndex:
        """How one inverted index is made; a stress test's faulted index overrides it to
        derive the index from the clean corpus instead of tokenizing every passage again."""
        return InvertedIndex.build(passages, unicode)

    @cached_property
    def fingerprint(self) -> str:
        """A short hash of the corpus as the retriever sees it (see
        :func:`ragdash.ingestion.fingerprint.corpus_fingerprint`): shared links carry it."""
        return corpus_fingerprint(self.corpus)

    @classmethod
    def load(cls, folder: str | Path, docs: str | Path | None = None) -> CorpusIndex:
        """An index saved by :meth:`save`, postings memory-mapped, checked against its
        manifest and its docs folder (see :mod:`ragdash.retrieval.saved`). Raises
        ``IndexFileError`` naming the file when it is corrupt, stale or from another
        version."""
        corpus, passages, inverted = read_index(folder, docs)
        index = cls(corpus)
        index._passages.update(passages)
        index._inverted.update(inverted)
        return index

    def save(self, folder: str | Path, docs: str | Path | None = None) -> Path:
        """Write this index to ``folder`` atomically (``docs``: the folder it came from, to
        tell a stale index later); see :func:`ragdash.retrieval.saved.save_index`."""
        return save_index(self, folder, docs)

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]:
        """Every eligible passage ranked for ``query`` under ``fixes``, best first."""
        return self.inverted(fixes.tables, fixes.unicode).rank(query, fixes)

    def top(self, query: str, fixes: Fixes, k: int) -> list[RankedPassage]:
        """The first ``k`` of :meth:`search`, without ranking the rest."""
        return self.inverted(fixes.tables, fixes.unicode).rank(query, fixes, max(k, 0))


def tables_neutral(corpus: Corpus) -> bool:
    """True when the tables fix cannot change any passage: no document is paged."""
    return all(doc.kind != "pdf" and len(doc.pages) == 1 for doc in corpus.documents)
