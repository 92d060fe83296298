"""The retrievers a check can run against, and :func:`make_retriever` to pick one.

Every retriever answers ``retrieve(query, fixes, k)`` with a
:class:`ragdash.retrieval.hits.Retrieval` (ranked passages, the query sent, notes), so the
proof check, the metrics, query corruption and the fragility search work the same against
each::

    >>> index = CorpusIndex(load_folder(SAMPLES))                            # doctest: +SKIP
    >>> bm25 = make_retriever(RetrieverSpec("bm25"), index)                  # doctest: +SKIP
    >>> bm25.top("return policy days", Fixes(), 1)[0].doc_id                 # doctest: +SKIP
    'returns-2024'

* ``seed`` — :class:`SeedRetriever`: ragdash's scorer with all its fixes (the default);
* ``bm25`` — :class:`ragdash.retrieval.bm25.Bm25Retriever`;
* ``dense`` / ``hybrid`` — :class:`ragdash.retrieval.dense.DenseRetriever` /
  :class:`ragdash.retrieval.dense.HybridRetriever`: embeddings (and BM25) over the passages
  ragdash indexes itself;
* ``http`` / ``python`` / ``langchain`` — :class:`ExternalRetriever` over
  :class:`ragdash.retrieval.http_retriever.HttpBackend`,
  :class:`ragdash.retrieval.python_retriever.PythonBackend` (or, for a python *factory*
  ``build(passages, options)``, :class:`ragdash.retrieval.factory.FactoryBackend`) or
  :class:`ragdash.retrieval.langchain_retriever.LangChainBackend`.

An external retriever sees the query, so the query-side fixes reach it (``ocr`` and ``fuzzy``
rewrite the query against the corpus vocabulary before it is sent); and ragdash knows the
corpus, so ``status``, ``versions`` and ``recency`` are applied to the hits it returns
(:mod:`ragdash.retrieval.post_fixes`; it is asked for a few more hits than ``k`` then). What
reaches which kind: :data:`ragdash.retrieval.spec.FIX_SUPPORT`. Its hits become ranked
passages carrying the document's metadata from the corpus when the id is known; an id the
corpus does not have is kept (it still counts as "the wrong document first") and named in the
retrieval's notes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import Protocol

from ragdash.ingestion.documents import Corpus, Document, Passage
from ragdash.retrieval.bm25 import Bm25Retriever
from ragdash.retrieval.families import VersionFamilies, families_of
from ragdash.retrieval.hits import Hit, Retrieval, Retriever
from ragdash.retrieval.http_retriever import HttpBackend, needs_embedder
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.langchain_retriever import LangChainBackend
from ragdash.retrieval.post_fixes import EXTRA_DEPTH, apply_post_fixes, fetch_depth
from ragdash.retrieval.python_retriever import PythonBackend
from ragdash.retrieval.query_repair import repair_query
from ragdash.retrieval.ranking import RankedPassage, query_tokens
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import Fixes

__all__ = [
    "EXTERNAL_PASSAGE_KIND",
    "SEARCH_DEPTH",
    "Backend",
    "ExternalRetriever",
    "SeedRetriever",
    "make_retriever",
]

#: How many hits ``search`` (a whole ranking, for pages) asks an external retriever for.
SEARCH_DEPTH = 20
#: The ``kind`` of a passage an external retriever returned.
EXTERNAL_PASSAGE_KIND = "external"


class SeedRetriever:
    """ragdash's own scorer (1 point per distinct query token) with every fix: exactly
    :meth:`CorpusIndex.top` / :meth:`CorpusIndex.search`."""

    def __init__(self, index: CorpusIndex, spec: RetrieverSpec | None = None) -> None:
        self.index = index
        self.spec = spec or RetrieverSpec()

    def retrieve(self, query: str, fixes: Fixes, k: int | None = None) -> Retrieval:
        ranked = self.index.search(query, fixes) if k is None else self.index.top(query, fixes, k)
        return Retrieval(tuple(ranked), query)

    @property
    def corpus(self) -> Corpus:
        return self.index.corpus

    def top(self, query: str, fixes: Fixes, k: int) -> list[RankedPassage]:
        return self.index.top(query, fixes, k)

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]:
        return self.index.search(query, fixes)


class Backend(Protocol):
    """A team's retriever seen from ragdash: a name for messages and ``fetch(query, k)``."""

    name: str

    def fetch(self, query: str, k: int) -> list[Hit]: ...


class ExternalRetriever:
    """A team's retriever (``http`` or ``python``) behind the common interface."""

    def __init__(self, index: CorpusIndex, spec: RetrieverSpec, backend: Backend) -> None:
        self.index = index
        self.spec = spec
        self.backend = backend
        self._shared: dict[tuple, list[Hit]] | None = None

    @property
    def corpus(self) -> Corpus:
        return self.index.corpus

    @cached_property
    def _documents(self) -> dict[str, Document]:
        return {doc.doc_id: doc for doc in self.index.corpus.documents}

    @cached_property
    def families(self) -> VersionFamilies:
        """The corpus's version families (the ``versions``/``recency`` post-fixes)."""
        return families_of(self.index.passages(False))

    def _spelled(self, token: str) -> tuple[str, ...]:
        """How the corpus writes ``token`` (lowercase), most used first (``ss0`` →
        ``SS0``): a repaired query word is sent in a case the corpus uses, so a retriever
        that keeps case (LangChain's BM25Retriever splits on spaces) finds it. Looked up
        once per token."""
        cache = self.__dict__.setdefault("_spellings", {})
        if token not in cache:
            import re

            forms: dict[str, int] = {}
            pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(token)}(?![A-Za-z0-9])", re.I)
            for p in self.index.passages(False):
                if token in p.text.lower():
                    for m in pattern.finditer(p.text):
                        forms[m.group(0)] = forms.get(m.group(0), 0) + 1
            cache[token] = tuple(sorted(forms, key=lambda f: -forms[f]))  # most used first
        return cache[token]

    @property
    def support_kind(self) -> str:
        """Its row of :data:`ragdash.retrieval.spec.FIX_SUPPORT` (``factory`` for a python
        factory)."""
        return getattr(self.backend, "support_kind", self.spec.kind)

    @contextmanager
    def answers_shared(self) -> Iterator[None]:
        """Within the block, one request per query sent (and, for a factory, per set of
        passage-changing fixes): configurations that differ only in ranking-side fixes
        (status, versions, recency, applied here to the hits) re-rank the same answer instead
        of asking the service again, so ``ablate`` asks an external retriever at most 4 times
        a case (none, ocr, fuzzy, both), not 16. Each shared request asks
        :data:`EXTRA_DEPTH` more hits than ``k`` and a shallower configuration reads its top.
        Failures are never shared: the next configuration asks again."""
        self._shared = {}
        try:
            yield
        finally:
            self._shared = None

    def fetch(self, query: str, k: int, fixes: Fixes) -> list[Hit]:
        """The team's hits for the (repaired) query; a factory backend also gets the corpus
        and the fixes (it indexes the passages they leave)."""
        fetch_for = getattr(self.backend, "fetch_for", None)
        if fetch_for is not None:
            return fetch_for(query, k, fixes, self.index)
        return self.backend.fetch(query, k)

    def _hits(self, query: str, k: int, fixes: Fixes) -> list[Hit]:
        """:meth:`fetch` at the depth ``fixes`` need, through :meth:`answers_shared`'s
        answers when it is on."""
        depth = fetch_depth(k, fixes)
        if self._shared is None:
            return self.fetch(query, depth, fixes)
        factory = getattr(self.backend, "fetch_for", None) is not None
        key = (query, k, (fixes.tables, fixes.ocr, fixes.unicode) if factory else None)
        if key not in self._shared:
            self._shared[key] = self.fetch(query, k + EXTRA_DEPTH, fixes)
        return self._shared[key][:depth]

    def retrieve(self, query: str, fixes: Fixes, k: int | None = None) -> Retrieval:
        """Repair the query (query-side fixes), ask the team's retriever for ``k`` hits
        (:data:`SEARCH_DEPTH` when ``k`` is None; more when a ranking-side fix is on, see
        :func:`ragdash.retrieval.post_fixes.fetch_depth`), then apply the ranking-side fixes
        to them. Raises ``QueryError`` / :class:`ragdash.errors.RetrieverError`."""
        k = SEARCH_DEPTH if k is None else max(k, 0)
        repaired = repair_query(query, fixes, self.index.inverted(False).view(False),
                                self._spelled)  # fmt: skip
        hits = self._hits(repaired.text, k, fixes) if k else []
        ranked, fixed = apply_post_fixes(
            [self._ranked(rank, hit) for rank, hit in enumerate(hits, start=1)], fixes,
            self.families, query_tokens(repaired.text, fixes.unicode), k,
        )  # fmt: skip
        notes = []
        if repaired.changes:
            notes.append(f"query repaired: {', '.join(repaired.changes)}")
        notes.extend(repaired.notes)
        known = self._documents
        unknown = [f"{h.id!r} (rank {n})" for n, h in enumerate(hits, 1) if h.id not in known]
        if unknown:
            notes.append(
                f"{self.backend.name} returned ids not in the corpus: {', '.join(unknown[:5])}"
                + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
                + " — ids must be document ids (the doc_id of `ragdash passages`)"
            )
        return Retrieval(ranked, repaired.text, tuple(notes) + fixed)

    def _ranked(self, rank: int, hit: Hit) -> RankedPassage:
        doc = self._documents.get(hit.id)
        page = hit.page or 1
        passage = Passage(
            doc_id=hit.id,
            text=hit.text,
            page_start=page,
            page_end=page,
            position=rank - 1,
            order=doc.order if doc else len(self._documents) + rank,
            kind=EXTERNAL_PASSAGE_KIND,
            subject=doc.subject if doc else "",
            updated=doc.updated if doc else None,
            status=doc.status if doc else "current",
        )
        return RankedPassage(rank, passage, hit.score, returned=True)

    def top(self, query: str, fixes: Fixes, k: int) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes, k).ranked)

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes).ranked)


_BACKENDS: dict[str, Callable[[RetrieverSpec], Backend]] = {
    "http": HttpBackend,
    "python": PythonBackend,
    "langchain": LangChainBackend,
}


def make_retriever(spec: RetrieverSpec | str | None, index: CorpusIndex) -> Retriever:
    """The retriever ``spec`` names, over ``index``'s corpus. Raises
    :class:`ragdash.errors.RetrieverError` when a ``python`` callable cannot be imported
    (an ``http`` service is first asked on the first query)."""
    spec = RetrieverSpec.resolve(spec)
    if spec.kind == "seed":
        return SeedRetriever(index, spec)
    if spec.kind == "bm25":
        return Bm25Retriever(index, spec)
    if spec.kind in ("dense", "hybrid"):
        from ragdash.retrieval.dense import DenseRetriever, HybridRetriever

        return (DenseRetriever if spec.kind == "dense" else HybridRetriever)(index, spec)
    if needs_embedder(spec):  # a Chroma server takes the query's embedding, not its text
        from ragdash.retrieval.dense import make_embedder

        return ExternalRetriever(index, spec, HttpBackend(spec, make_embedder(spec)))
    if spec.kind == "python":
        from ragdash.retrieval.factory import FactoryBackend, is_factory
        from ragdash.retrieval.python_retriever import load_callable

        function = load_callable(spec.callable)
        if spec.factory or is_factory(function):
            return ExternalRetriever(index, spec, FactoryBackend(spec, function))
    return ExternalRetriever(index, spec, _BACKENDS[spec.kind](spec))
