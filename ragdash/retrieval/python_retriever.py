"""The ``python`` retriever's transport: call a team's function ``package.module:function``.

The function takes ``(query: str, top_k: int)`` and returns what an HTTP service would
answer (ragdash retriever schema v1, :mod:`ragdash.retrieval.hits`): a list of hits with
``id``, ``text``, ``score`` and an optional ``page`` — as dicts, or objects with those
attributes (a dataclass, a LangChain ``Document`` with ``text_field="page_content"`` and
``id_field="metadata.source"``)::

    # mypkg/mod.py
    def search(query: str, top_k: int) -> list[dict]:
        return [{"id": "returns-2026", "text": "...", "score": 3.2}]

    $ ragdash check --retriever python --callable mypkg.mod:search

The function is imported once, when the retriever is made (an import error names the
module); an exception raised by a call becomes a :class:`RetrieverError` for that query
(``mypkg.mod:search raised KeyError: 'x'``), so a run reports it and goes on.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ragdash.errors import RetrieverError, RetrieverRaised
from ragdash.retrieval.hits import Hit, parse_hits
from ragdash.retrieval.spec import RetrieverSpec

__all__ = ["PythonBackend", "import_named", "load_callable"]


def import_named(name: str) -> Any:
    """The object ``package.module:attr`` names (``attr`` may be a dotted path): the one place
    ragdash imports code, always a name the operator gave on the command line or in the
    environment (never page input). Raises :class:`RetrieverError` naming what could not be
    found."""
    module_name, _, attr = name.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise RetrieverError(f"{name}: cannot import {module_name!r} ({exc})") from None
    except Exception as exc:  # the module itself failed while importing
        raise RetrieverError(
            f"{name}: importing {module_name!r} raised {type(exc).__name__}: {exc}"
        ) from None
    for part in attr.split("."):
        if not hasattr(target, part):
            raise RetrieverError(f"{name}: {module_name!r} has no {attr!r}")
        target = getattr(target, part)
    return target


def load_callable(name: str) -> Callable[..., Any]:
    """Import ``package.module:function`` (:func:`import_named`) and check it can be called.
    Raises :class:`RetrieverError` naming what could not be found."""
    target = import_named(name)
    if not callable(target):
        raise RetrieverError(f"{name}: {name.partition(':')[2]!r} is not callable")
    return target


class PythonBackend:
    """Calls one function; :meth:`fetch` is the whole contract (query, k → hits)."""

    def __init__(self, spec: RetrieverSpec) -> None:
        if spec.kind != "python":
            raise ValueError(f"PythonBackend needs a python spec, not {spec.kind!r}")
        self.spec = spec
        self.name = spec.callable
        self.function = load_callable(spec.callable)

    def fetch(self, query: str, k: int) -> list[Hit]:
        """The function's top ``k`` hits for ``query``. Raises :class:`RetrieverError`."""
        try:
            answer = self.function(query, k)
        except Exception as exc:  # the team's code: report it for this query, go on
            raise RetrieverRaised(f"{self.name} raised {type(exc).__name__}: {exc}") from None
        return parse_hits(answer, self.spec.response_shape, self.name, k)
