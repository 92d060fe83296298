"""The ``langchain`` retriever's transport: any LangChain ``BaseRetriever`` a team already has.

``--retriever langchain --callable mypkg.rag:retriever`` names a ``BaseRetriever`` object (or
a zero-argument factory returning one, called once when the retriever is made)::

    # mypkg/rag.py
    retriever = vectorstore.as_retriever(search_kwargs={"k": 5})

ragdash calls ``retriever.invoke(query)`` and reads each ``Document``: ``page_content`` is
the text, ``metadata["doc_id"]`` the document id (``--id-field`` names another metadata key,
e.g. ``source``; ``ragdash passages`` exports ``doc_id``), ``metadata["page_start"]`` the
page. A ``Document`` has no score, so the list order is the ranking (the hit at rank n
scores ``1/n``); the first ``k`` are kept. Why duck-typed (anything with ``.invoke``) rather
than an ``isinstance`` check: ragdash does not depend on ``langchain-core``; the team's code
does. Like ``python``, it runs the team's code, so only the operator names it
(:mod:`ragdash.retrieval.options`).
"""

from __future__ import annotations

from typing import Any

from ragdash.errors import RetrieverError, RetrieverRaised, RetrieverUnreachable, unreachable_cause
from ragdash.retrieval.hits import Hit, parse_hits
from ragdash.retrieval.python_retriever import import_named
from ragdash.retrieval.spec import ResponseShape, RetrieverSpec

__all__ = ["LangChainBackend", "document_shape", "load_retriever"]

_ATTRIBUTES = ("page_content", "id", "metadata")


def _document_path(value: str, default: str) -> str:
    """A field of a ``Document``: its own attribute, or else a ``metadata`` key."""
    if not value:
        return default
    if value.split(".")[0] in _ATTRIBUTES:
        return value
    return "metadata." + value


def document_shape(spec: RetrieverSpec) -> ResponseShape:
    """Where a ``Document`` keeps what ragdash reads, with the spec's field overrides."""
    return ResponseShape(
        "",
        _document_path(spec.id_field, "metadata.doc_id"),
        _document_path(spec.text_field, "page_content"),
        _document_path(spec.score_field, "metadata.score"),
        _document_path(spec.page_field, "metadata.page_start"),
        spec.lower_is_better,
    )


def load_retriever(name: str) -> Any:
    """The object ``package.module:attr`` names, or what a zero-argument factory there
    returns, when it has ``invoke``. Raises :class:`RetrieverError` naming the problem."""
    target = import_named(name)
    if not callable(getattr(target, "invoke", None)) and callable(target):
        try:
            target = target()
        except Exception as exc:
            # a client that cannot connect is the retriever being down (exit 4), not input
            # ragdash cannot use (exit 2)
            kind = RetrieverUnreachable if unreachable_cause(exc) else RetrieverError
            raise kind(f"{name}() raised {type(exc).__name__}: {exc}") from None
    if not callable(getattr(target, "invoke", None)):
        raise RetrieverError(
            f"{name}: {type(target).__name__} is not a LangChain retriever (no .invoke)"
        )
    return target


class LangChainBackend:
    """Calls one retriever; :meth:`fetch` is the whole contract (query, k → hits)."""

    def __init__(self, spec: RetrieverSpec) -> None:
        if spec.kind != "langchain":
            raise ValueError(f"LangChainBackend needs a langchain spec, not {spec.kind!r}")
        self.spec = spec
        self.name = spec.callable
        self.retriever = load_retriever(spec.callable)
        self.shape = document_shape(spec)

    def fetch(self, query: str, k: int) -> list[Hit]:
        """The retriever's first ``k`` documents for ``query``. Raises RetrieverError."""
        try:
            answer = self.retriever.invoke(query)
        except Exception as exc:  # the team's code: report it for this query, go on
            raise RetrieverRaised(f"{self.name} raised {type(exc).__name__}: {exc}") from None
        if not isinstance(answer, list | tuple):
            raise RetrieverError(
                f"{self.name}: invoke returned {type(answer).__name__}, not a list of Documents"
            )
        return parse_hits(list(answer), self.shape, self.name, k)
