"""The ``python`` retriever's factory form: a team's own stack, indexed from ragdash's passages.

A search function ``(query, top_k)`` sees only queries, so the corpus-side fixes never reach
the index behind it. A *factory* is handed the passages instead and builds the index itself::

    # mypkg/stack.py
    def build(passages, options):
        index = MyVectorStore([p["text"] for p in passages])        # the team's code
        def search(query, k):
            return [{"id": passages[i]["doc_id"], "text": passages[i]["text"], "score": s}
                    for i, s in index.query(query, k)]
        return search

    $ ragdash check --retriever python --callable mypkg.stack:build

``passages`` are ``ragdash passages`` records (``id``, ``doc_id``, ``text``, ``page_start``,
``page_end``, ``kind``, ``metadata``) as the corpus-side fixes leave them (``tables`` joins
split tables, ``ocr`` repairs damaged words: :mod:`ragdash.retrieval.reindex`); ``options``
is a plain dict: ``{"fixes": [names on], "tables": bool, "ocr": bool, "corpus": fingerprint}``.
The ranking-side fixes (status, versions, recency) are applied to what ``search`` returns
(:mod:`ragdash.retrieval.post_fixes`), the query-side ones (ocr, fuzzy) to the query.

**Which form**: a callable whose first parameter is named ``passages`` is a factory; any
other is the plain ``(query, top_k)`` form, which keeps working. ``--factory`` forces the
factory form for a callable whose parameter has another name.

**Built once**: per process, per callable × corpus fingerprint × the passage-changing fixes
(:data:`MAX_BUILT` kept, oldest dropped), so a ``check``, an ``ablate`` over 16
configurations and every rerun of the dashboard (one process) build each index once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ragdash.errors import RetrieverError, RetrieverRaised
from ragdash.retrieval.hits import Hit, parse_hits
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.reindex import index_key, indexed_texts, passage_dicts
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import Fixes

__all__ = ["MAX_BUILT", "FactoryBackend", "built_count", "is_factory"]

#: Built search functions kept per process.
MAX_BUILT = 16
_BUILT: dict[tuple, Callable[..., Any]] = {}
_BUILDS: dict[str, int] = {}


def is_factory(function: Callable[..., Any]) -> bool:
    """True when ``function``'s first parameter is named ``passages``."""
    try:
        params = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0] == "passages"


def built_count(name: str) -> int:
    """How many times this process built the factory ``name`` (for tests and timings)."""
    return _BUILDS.get(name, 0)


class FactoryBackend:
    """The backend of an :class:`~ragdash.retrieval.retrievers.ExternalRetriever` whose
    search function the team's factory builds from ragdash's passages, once per corpus and
    fixes (:meth:`fetch_for`: the retriever hands it the corpus and the fixes)."""

    #: Its row of :data:`ragdash.retrieval.spec.FIX_SUPPORT`.
    support_kind = "factory"

    def __init__(self, spec: RetrieverSpec, factory: Callable[..., Any]) -> None:
        self.spec = spec
        self.name = spec.callable
        self.factory = factory

    def fetch(self, query: str, k: int) -> list[Hit]:
        raise RetrieverError(f"{self.name} is a factory: it needs the corpus (fetch_for)")

    def search_function(self, index: CorpusIndex, fixes: Fixes) -> Callable[..., Any]:
        key = (self.spec.callable, id(self.factory), index.fingerprint, index_key(fixes))
        if key not in _BUILT:
            passages, texts = indexed_texts(index, fixes)
            options = {"fixes": list(fixes.enabled), "tables": fixes.tables, "ocr": fixes.ocr,
                       "corpus": index.fingerprint}  # fmt: skip
            try:
                search = self.factory(passage_dicts(passages, texts), options)
            except Exception as exc:  # the team's code
                raise RetrieverError(
                    f"{self.spec.callable} (factory) raised {type(exc).__name__}: {exc}"
                ) from None
            if not callable(search):
                raise RetrieverError(f"{self.spec.callable} (factory) returned "
                                     f"{type(search).__name__}, not a search(query, k) function")
            if len(_BUILT) >= MAX_BUILT:
                _BUILT.pop(next(iter(_BUILT)))
            _BUILT[key] = search
            _BUILDS[self.spec.callable] = _BUILDS.get(self.spec.callable, 0) + 1
        return _BUILT[key]

    def fetch_for(self, query: str, k: int, fixes: Fixes, index: CorpusIndex) -> list[Hit]:
        search = self.search_function(index, fixes)
        try:
            answer = search(query, k)
        except Exception as exc:  # the team's code: report it for this query, go on
            raise RetrieverRaised(
                f"{self.spec.callable} search raised {type(exc).__name__}: {exc}"
            ) from None
        return parse_hits(answer, self.spec.response_shape, self.spec.callable, k)
