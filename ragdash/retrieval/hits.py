"""The retriever contract: what any retriever hands back, and how an answer is read.

Every retriever — ragdash's ``seed`` scorer, ``bm25``, a team's HTTP service or Python
function — answers "query, k" with ranked passages. Inside ragdash they are
:class:`ragdash.retrieval.ranking.RankedPassage` objects, so the proof check, the metrics and
every page read them alike. A team's service speaks **ragdash retriever schema v1**::

    request   POST <url>   {"query": "return policy days", "top_k": 5}
    answer    [{"id": "returns-2026", "text": "...", "score": 7.1, "page": 1}, ...]
              or {"results": [...same...], "schema_version": 1}

``id`` is the *document* id (the file name without extension, as ``ragdash passages``
exports it in ``doc_id``), ``text`` the passage the model would read, ``score`` any number
(higher is better; the list order is the ranking), ``page`` optional (1-based). Field names
and the list's place can be remapped for other shapes (:data:`ragdash.retrieval.spec.SHAPES`,
e.g. an Elasticsearch ``_search`` answer), so::

    >>> from ragdash.retrieval.spec import SHAPES
    >>> parse_hits({"hits": {"hits": [{"_id": "plans#1", "_score": 2.0,
    ...     "_source": {"doc_id": "plans", "text": "Pro | 100 Go"}}]}},
    ...     SHAPES["elasticsearch"], "es", 5)
    [Hit(id='plans', text='Pro | 100 Go', score=2.0, page=None)]

A hit without a score (a LangChain ``Document`` has none) is ranked by its position: it
gets the score ``1/rank``. A ``distance`` (Chroma's ``distances``, LanceDB's ``_distance``,
or any score with ``lower_is_better``) is shown as a similarity (:func:`similarity`:
``1/(1+d)``, ``1-d`` below 0), so a higher score is better everywhere in ragdash; the list
order stays the ranking, and every hit a service returned counts as retrieved whatever its
score (:attr:`ragdash.retrieval.ranking.RankedPassage.matched`): a distance of 3.2 is a
match, not "no passage matched". Chroma's column-wise answer
(``{"ids": [[...]], "documents": [[...]], "metadatas": [[...]], "distances": [[...]]}``) is
read as one row per hit (:func:`column_rows`).

An answer that does not fit raises :class:`ragdash.errors.RetrieverError` naming the source
and the first bad hit, e.g. ``es: hit 2 has no 'text' (it has: id, score)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ragdash.errors import RetrieverError
from ragdash.ingestion.documents import Corpus
from ragdash.retrieval.ranking import RankedPassage
from ragdash.retrieval.spec import ResponseShape, RetrieverSpec
from ragdash.settings import Fixes

__all__ = [
    "DISTANCES",
    "SCHEMA_VERSION",
    "Hit",
    "Retrieval",
    "Retriever",
    "column_rows",
    "field_value",
    "parse_hits",
    "similarity",
]

#: The version of the request/answer schema documented above.
SCHEMA_VERSION = 1
_MISSING = object()
#: Fields read as a distance (lower is closer) when a hit has no score: schema v1's and a
#: Chroma row's ``distance``, and the ``_distance`` LanceDB adds to a vector search's rows.
DISTANCES = ("distance", "_distance")


@dataclass(frozen=True)
class Hit:
    """One ranked passage as an external retriever reports it."""

    id: str
    text: str
    score: float
    page: int | None = None


@dataclass(frozen=True)
class Retrieval:
    """What one retriever call gave: the ranked passages, the query actually sent (after
    query-side fixes), and notes a user should see (ids not in the corpus, a rewritten
    query)."""

    ranked: tuple[RankedPassage, ...]
    query_sent: str
    notes: tuple[str, ...] = field(default=())


class Retriever(Protocol):
    """Anything that ranks passages for a query: ``retrieve(query, fixes, k)``.

    ``top``/``search``/``corpus`` mirror :class:`ragdash.retrieval.index.CorpusIndex`, so
    the checks written for the seed scorer (``check_case``, ``run_ablation``, ``triage``,
    the fragility search and the robustness sweep only call ``top`` and read ``corpus``)
    run against any retriever. Raises ``QueryError`` for a query that cannot be run and
    :class:`RetrieverError` when the retriever does not answer usably.
    """

    spec: RetrieverSpec

    @property
    def corpus(self) -> Corpus: ...

    def retrieve(self, query: str, fixes: Fixes, k: int) -> Retrieval: ...

    def top(self, query: str, fixes: Fixes, k: int) -> list[RankedPassage]: ...

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]: ...


def field_value(item: Any, path: str) -> Any:
    """The value at a dotted ``path`` in nested mappings (or attributes of objects, e.g. a
    dataclass or a LangChain ``Document``); a private sentinel when it is missing."""
    value = item
    for part in path.split("."):
        if isinstance(value, Mapping):
            value = value.get(part, _MISSING)
        else:
            value = getattr(value, part, _MISSING)
        if value is _MISSING:
            return _MISSING
    return value


def _fields_of(item: Any) -> str:
    names = list(item) if isinstance(item, Mapping) else list(getattr(item, "__dict__", {}))
    return ", ".join(map(str, names[:8])) or "nothing"


def hit_list(answer: Any, shape: ResponseShape, source: str) -> Sequence[Any]:
    """The list of hits inside ``answer`` (see the module docstring)."""
    if isinstance(answer, Mapping):
        version = answer.get("schema_version", SCHEMA_VERSION)
        if version != SCHEMA_VERSION:
            raise RetrieverError(
                f"{source}: answers in schema version {version!r}; ragdash reads version "
                f"{SCHEMA_VERSION}"
            )
    if shape.results:
        found = field_value(answer, shape.results)
        if found is _MISSING:
            raise RetrieverError(
                f"{source}: the answer has no {shape.results!r} list "
                f"(it has: {_fields_of(answer) if isinstance(answer, Mapping) else 'a list'})"
            )
        answer = found
    elif isinstance(answer, Mapping):
        if "results" not in answer:
            raise RetrieverError(
                f"{source}: the answer is an object without a 'results' list "
                f"(it has: {_fields_of(answer)})"
            )
        answer = answer["results"]
    if not isinstance(answer, list | tuple):
        raise RetrieverError(
            f"{source}: expected a list of hits, got {type(answer).__name__}"
        )
    return answer


_COLUMNS = (("ids", "id"), ("documents", "text"), ("metadatas", "metadata"),
            ("distances", "distance"))  # fmt: skip


def column_rows(answer: Any, source: str) -> list[dict[str, Any]]:
    """Chroma's column-wise ``query()`` answer for one query as one dict per hit (``id``,
    ``text``, ``metadata``, ``distance``). Raises :class:`RetrieverError` naming the column
    that does not fit."""
    if not isinstance(answer, Mapping):
        raise RetrieverError(
            f"{source}: expected Chroma's column-wise object (ids, documents, ...), got "
            f"{type(answer).__name__}"
        )
    columns: dict[str, Sequence[Any]] = {}
    for key, name in _COLUMNS:
        value = answer.get(key)
        if value is None:
            continue
        if isinstance(value, list | tuple) and value and isinstance(value[0], list | tuple):
            value = value[0]  # one list per query: ragdash sends one query
        if not isinstance(value, list | tuple):
            raise RetrieverError(f"{source}: {key!r} must be a list, got {type(value).__name__}")
        columns[name] = value
    if "id" not in columns:
        raise RetrieverError(f"{source}: the answer has no 'ids' (it has: {_fields_of(answer)})")
    n = len(columns["id"])
    for key, name in _COLUMNS:
        if name in columns and len(columns[name]) != n:
            raise RetrieverError(f"{source}: {len(columns[name])} {key} values for {n} ids")
    return [{name: value[i] for name, value in columns.items()} for i in range(n)]


def similarity(distance: float) -> float:
    """A distance (lower is closer) as a similarity (higher is closer): ``1/(1+d)`` for
    ``d >= 0`` (in (0, 1], 1 at distance 0), ``1-d`` below 0 (an inner-product "distance"
    can be negative). Why not ``-d``: a negative score reads as "nothing matched", and a
    similarity is what every other score in ragdash is. It is positive for every finite
    ``d``, never increases as ``d`` grows and maps equal distances to equal scores, so the
    service's order and its ties (which ``recency`` acts on) are kept::

        >>> [round(similarity(d), 3) for d in (-2.0, 0.0, 0.25, 3.0, 1e300)]
        [3.0, 1.0, 0.8, 0.25, 0.0]
        >>> similarity(1e300) > 0
        True
    """
    return 1.0 / (1.0 + distance) if distance >= 0 else 1.0 - distance


def parse_hits(answer: Any, shape: ResponseShape, source: str, k: int) -> list[Hit]:
    """Read up to ``k`` hits from a decoded answer, checking each one."""
    if shape.columns:
        answer = column_rows(answer, source)
    hits = []
    for n, item in enumerate(hit_list(answer, shape, source)[:k], start=1):
        hits.append(_hit(item, shape, f"{source}: hit {n}", n))
    return hits


def _hit(item: Any, shape: ResponseShape, where: str, rank: int = 1) -> Hit:
    if item is None or isinstance(item, str | int | float | bool | list):
        raise RetrieverError(f"{where} is {type(item).__name__}, not an object with fields")
    values = {}
    for name, path in (("id", shape.id), ("text", shape.text)):
        value = field_value(item, path)
        if value is _MISSING or value is None:
            raise RetrieverError(f"{where} has no {path!r} (it has: {_fields_of(item)})")
        values[name] = value
    doc_id, text = values["id"], values["text"]
    score = field_value(item, shape.score)
    lower = shape.lower_is_better
    if score is _MISSING or score is None:
        found = (field_value(item, name) for name in DISTANCES)
        distance = next((d for d in found if d is not _MISSING and d is not None), None)
        if distance is not None:
            score, lower = distance, True
        else:
            score = 1.0 / rank  # no score: the list order is the ranking
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise RetrieverError(f"{where}: {shape.id!r} must be a non-empty string, got {doc_id!r}")
    if not isinstance(text, str):
        raise RetrieverError(f"{where}: {shape.text!r} must be text, got {type(text).__name__}")
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise RetrieverError(f"{where}: {shape.score!r} must be a finite number, got {score!r}")
    if lower:
        score = similarity(float(score))
    page = field_value(item, shape.page)
    if page is _MISSING or page is None:
        page = None
    elif isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise RetrieverError(f"{where}: {shape.page!r} must be a page number of 1 or more, "
                             f"got {page!r}")
    return Hit(doc_id.strip(), text, float(score), page)
