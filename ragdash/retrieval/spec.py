"""The one settings type for *which retriever* a check runs against: :class:`RetrieverSpec`.

:class:`ragdash.settings.Fixes` says which repairs are on; a ``RetrieverSpec`` says whose
ranking they repair — ragdash's own scorer (``seed``), Okapi BM25 over the same passages
(``bm25``), embeddings over them (``dense``, a sentence-transformers model or an embeddings
endpoint) or both fused (``hybrid``), a team's search service (``http``) or a team's Python
function or factory (``python``). Like
``Fixes`` it is frozen, validates itself when created and has a ``label`` naming every
setting that changes results, so two equal specs rank alike and hash alike::

    >>> RetrieverSpec("bm25").label
    'bm25 (k1=1.2, b=0.75)'
    >>> RetrieverSpec("http", url="http://127.0.0.1:8000/search").label
    'http http://127.0.0.1:8000/search'
    >>> RetrieverSpec("bm25", b=2)
    Traceback (most recent call last):
    ...
    ragdash.errors.SettingsError: bm25 b 2 is outside 0-1

Why the defaults: ``k1=1.2, b=0.75`` are Lucene's (so Elasticsearch's and OpenSearch's), the
BM25 a team most likely runs. Secrets never live here: an HTTP service that needs a token
gets it from the environment variable named by ``auth_env`` (the name is safe in a link,
the value never leaves the machine), and :attr:`RetrieverSpec.safe_url` hides a password or
query string in the URL wherever the spec is shown or shared.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ragdash.errors import SettingsError
from ragdash.settings import FIX_NAMES

__all__ = [
    "DEFAULT_B",
    "DEFAULT_K1",
    "DEFAULT_RETRIES",
    "DEFAULT_RRF_K",
    "DEFAULT_TIMEOUT",
    "FIX_SUPPORT",
    "OPERATOR_KINDS",
    "RETRIEVER_DESCRIPTIONS",
    "RETRIEVER_KINDS",
    "SEARCH_BODY_SHAPES",
    "SHAPES",
    "ResponseShape",
    "RetrieverSpec",
    "fix_support",
    "retriever_kind",
    "shown_kind",
    "fix_support_table",
]

RETRIEVER_KINDS = ("seed", "bm25", "http", "python", "langchain", "dense", "hybrid")
#: What users read and type for ragdash's own scorer: ``builtin``. Its kind is ``seed`` inside
#: (saved runs and ``--json`` keep that value, and ``--retriever seed`` is still read), but
#: in user-facing text "seed" means only ``--seed``, the random seed.
BUILTIN = "builtin"
KIND_ALIASES = {BUILTIN: "seed"}


def retriever_kind(text: str) -> str:
    """The kind a user's word names: ``builtin`` (or ``seed``) is ragdash's own scorer::

    >>> retriever_kind("builtin"), retriever_kind(" BM25 ")
    ('seed', 'bm25')
    """
    word = str(text).strip().lower()
    return KIND_ALIASES.get(word, word)


def shown_kind(kind: str) -> str:
    """The name users read for a kind: ``builtin`` for ragdash's own scorer. Also reads a
    label an older ragdash saved (``seed``) as today's, so a run saved then and one saved now
    with the same scorer are not told apart::

    >>> shown_kind("seed"), shown_kind("bm25 (k1=1.2, b=0.75)")
    ('builtin', 'bm25 (k1=1.2, b=0.75)')
    """
    return BUILTIN if kind == "seed" else kind
#: The kinds only whoever starts ragdash may name (see :attr:`RetrieverSpec.operator_only`).
OPERATOR_KINDS = ("http", "python", "langchain", "dense", "hybrid")
RETRIEVER_DESCRIPTIONS = {
    "seed": "ragdash's own scorer: 1 point per distinct query token, every fix built in",
    "bm25": "Okapi BM25 over the same passages and tokens (k1, b settable)",
    "http": "your search service: POST the query as JSON (ragdash schema v1, an "
    "Elasticsearch/OpenSearch _search body or your --body-template), read ranked hits back",
    "python": "your function package.module:function(query, top_k) returning ranked hits",
    "langchain": "your LangChain BaseRetriever package.module:object (or a zero-argument "
    "factory returning one): .invoke(query), list order is the ranking",
    "dense": "embeddings (a sentence-transformers model or an embeddings URL) over the "
    "passages ragdash indexes, cosine similarity",
    "hybrid": "bm25 + dense fused by reciprocal rank (rrf-k settable)",
}
DEFAULT_RRF_K = 60.0
DEFAULT_K1, DEFAULT_B = 1.2, 0.75
DEFAULT_TIMEOUT = 10.0
DEFAULT_RETRIES = 1
MAX_TIMEOUT = 300.0
MAX_RETRIES = 5

_CALLABLE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_FIELD = re.compile(r"^[\w@$-]+(\.[\w@$-]+)*$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ResponseShape:
    """Where a service's answer keeps the ranked hits and their fields, as dotted paths.

    ``results`` is the path to the list ("" = the answer is the list itself, or an object
    whose ``results`` key holds it); ``page`` may be missing from a hit.
    """

    results: str
    id: str
    text: str
    score: str
    page: str
    lower_is_better: bool = False  # the score is a distance: smaller means closer
    columns: bool = False  # Chroma's column-wise answer: {"ids": [[...]], "documents": ...}


#: Response shapes a team is likely to have already: ragdash's own schema v1, an
#: Elasticsearch / OpenSearch ``_search`` answer (``hits.hits[]._source.doc_id``, the
#: document id ``ragdash passages`` exports — ``_id`` is a chunk's id in a chunked index —
#: and ``_source.text``), and Chroma's column-wise ``collection.query()`` answer (one row
#: per hit is made of ``ids``/``documents``/``metadatas``/``distances``: ``id``, ``text``,
#: ``metadata``, ``distance``; the document id is ``metadata.doc_id``, lower distance is
#: better). In the ``elasticsearch``/``opensearch`` shapes a field given without a leading
#: ``_`` is a ``_source`` field (``--id-field doc_id`` = ``_source.doc_id``; ``_id`` stays).
SHAPES: Mapping[str, ResponseShape] = {
    "ragdash": ResponseShape("", "id", "text", "score", "page"),
    "elasticsearch": ResponseShape(
        "hits.hits", "_source.doc_id", "_source.text", "_score", "_source.page_start"
    ),
    "opensearch": ResponseShape(
        "hits.hits", "_source.doc_id", "_source.text", "_score", "_source.page_start"
    ),
    "chroma": ResponseShape(
        "", "metadata.doc_id", "text", "distance", "metadata.page_start", True, True
    ),
}
#: Shapes whose request is an Elasticsearch ``_search`` body.
SEARCH_BODY_SHAPES = ("elasticsearch", "opensearch")

#: How each fix reaches each retriever kind: ``native`` (built into the ranking),
#: ``query`` (ragdash rewrites the query before sending it), or ``reindex`` (it changes the
#: passages, so it reaches an external retriever only through ``ragdash passages`` and a
#: re-index on the team's side) / ``n/a``.
FIX_SUPPORT: Mapping[str, Mapping[str, tuple[bool, str]]] = {
    "seed": {name: (True, "built into the scorer") for name in FIX_NAMES},
    "bm25": {
        "recency": (True, "between versions of one document with equal BM25 scores, the "
                    "newest comes first"),
        "status": (True, "withdrawn passages are left out of the BM25 index"),
        "ocr": (True, "the OCR fix's repairs are indexed as their words; the query is "
                "repaired against the corpus"),
        "fuzzy": (True, "query typo repair: a misspelled word is replaced by the closest "
                  "corpus word before BM25 scores it"),
        "tables": (True, "BM25 runs over the passages with table fragments joined"),
        "versions": (True, "the older of a detected version pair ranks below the newer"),
        "unicode": (True, "passages and query tokenized by the unicode tokenizer"),
    },
}
# The ranking-side fixes reach every retriever: ragdash applies them to the hits it gets
# back (ragdash/retrieval/post_fixes.py). tests/test_fix_support.py runs each fix's case
# with the fix off and on for every kind and checks these claims against what changes.
_POST = {
    "recency": (True, "applied to the returned hits: hits of one version family with equal "
                "scores are put newest first"),
    "status": (True, "applied to the returned hits: hits of withdrawn documents are dropped"),
    "versions": (True, "applied to the returned hits: the newer of a detected version pair "
                 "takes the older one's place"),
}
_EXTERNAL = {
    **_POST,
    "ocr": (True, "query side only: a query word is sent as the corpus spells it (a "
            "damaged query word read as a letter, `sso` as the scan's `ss0`); the damaged "
            "passages need `ragdash passages --fixes ocr` and a re-index (or a python factory)"),
    "fuzzy": (True, "query typo repair: a misspelled word is replaced by the closest corpus "
              "word before the query is sent"),
    "tables": (False, "corpus-side: export with `ragdash passages --fixes tables` and "
               "re-index to join split tables (a python factory gets the joined passages)"),
    "unicode": (False, "the service tokenizes on its own; ragdash sends the query as typed"),
}
_DENSE = {
    **_POST,
    "recency": (False, "applied to the hits, but it acts only on exact score ties and cosine "
                "scores practically never tie (versions acts on near-ties)"),
    "ocr": (True, "the passages are re-embedded with the OCR repairs, and the query is "
            "OCR-normalized"),
    "fuzzy": (True, "query typo repair before the query is embedded"),
    "tables": (True, "the passages with table fragments joined are embedded"),
    "unicode": (False, "the model tokenizes on its own: the unicode fix changes no text"),
}
_HYBRID = {
    **_DENSE,
    "recency": (True, "applied to the fused hits: equal RRF scores within a version family "
                "go newest first"),
    "unicode": (True, "the BM25 half tokenizes passages and query with the unicode tokenizer"),
}
#: A python factory (build(passages, options) -> search) indexes ragdash's passages.
_FACTORY = {
    **_EXTERNAL,
    "ocr": (True, "the factory indexes the passages with the OCR repairs"),
    "tables": (True, "the factory indexes the passages with table fragments joined"),
}
FIX_SUPPORT = {**FIX_SUPPORT, "http": _EXTERNAL, "python": _EXTERNAL, "langchain": _EXTERNAL,
               "dense": _DENSE, "hybrid": _HYBRID, "factory": _FACTORY}  # fmt: skip


def fix_support_table(kinds: tuple[str, ...] = ("bm25", "dense", "hybrid", "http", "python",
                                                   "langchain", "factory")) -> str:
    """The "which fix reaches which retriever" table in Markdown, from :data:`FIX_SUPPORT`
    (whose claims ``tests/test_dense.py`` checks against behaviour); docs/retrievers.md
    carries it verbatim (a test compares)."""
    rows = ["| fix | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
    for fix in FIX_NAMES:
        cells = []
        for kind in kinds:
            applies, how = fix_support(kind, fix)
            cells.append(f"{'**yes**' if applies else 'no'}: {how}".replace("|", "\\|"))
        rows.append(f"| `{fix}` | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def fix_support(kind: str, fix: str) -> tuple[bool, str]:
    """Whether ``fix`` changes what retriever ``kind`` returns, and how (or why not);
    ``factory`` is the python retriever's factory form::

    >>> fix_support("http", "tables")[0]
    False
    """
    default = (kind == "seed", "built into the scorer" if kind == "seed" else
               "not wired to this retriever yet")  # fmt: skip
    return FIX_SUPPORT[kind].get(fix, default)


@dataclass(frozen=True)
class RetrieverSpec:
    """Which retriever, and its settings; validated once created (:class:`SettingsError`).

    ``url`` is for ``http``, ``callable`` (``package.module:function``) for ``python``,
    ``k1``/``b`` for ``bm25``; ``timeout`` (seconds one attempt may take in all: connecting
    and every read) and ``retries`` (extra attempts after a connection failure, a timeout or
    a 5xx answer) for ``http``; ``shape``
    names a :data:`SHAPES` entry and the ``*_field`` / ``results_path`` settings override
    single paths of it (``""`` keeps the shape's); ``auth_env`` names an environment variable
    whose value is sent as the ``Authorization`` header.
    """

    kind: str = "seed"
    url: str = ""
    callable: str = ""
    k1: float = DEFAULT_K1
    b: float = DEFAULT_B
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    shape: str = "ragdash"
    results_path: str = ""
    id_field: str = ""
    text_field: str = ""
    score_field: str = ""
    page_field: str = ""
    auth_env: str = ""
    body_template: str = ""
    lower_is_better: bool = False
    #: dense/hybrid: a sentence-transformers model name or local folder ("" = the default,
    #: :func:`ragdash.retrieval.dense.default_model`), or an OpenAI-compatible embeddings URL.
    model: str = ""
    embeddings_url: str = ""
    #: hybrid: the k of reciprocal rank fusion, 1/(k + rank).
    rrf_k: float = DEFAULT_RRF_K
    #: python: the callable is a factory build(passages, options) -> search(query, k).
    factory: bool = False

    def __post_init__(self) -> None:
        if self.kind not in RETRIEVER_KINDS:
            raise SettingsError(
                f"unknown retriever {self.kind!r}; choose from "
                f"{', '.join(map(shown_kind, RETRIEVER_KINDS))}"
            )
        object.__setattr__(self, "k1", _number("bm25 k1", self.k1, 0, 100))
        object.__setattr__(self, "b", _number("bm25 b", self.b, 0, 1))
        object.__setattr__(self, "timeout", _number("timeout", self.timeout, 0, MAX_TIMEOUT))
        if self.timeout <= 0:
            raise SettingsError("timeout must be more than 0 seconds")
        retries = self.retries
        if isinstance(retries, bool) or not isinstance(retries, int):
            raise SettingsError(f"retries {retries!r} is not a whole number")
        if not 0 <= retries <= MAX_RETRIES:
            raise SettingsError(f"retries {retries} is outside 0-{MAX_RETRIES}")
        if self.shape not in SHAPES:
            raise SettingsError(
                f"unknown response shape {self.shape!r}; choose from {', '.join(SHAPES)}"
            )
        for name in ("id_field", "text_field", "score_field", "page_field", "results_path"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise SettingsError(f"{name} {value!r} is not text")
            object.__setattr__(self, name, value.strip())
            if value.strip() and not _FIELD.match(value.strip()):
                raise SettingsError(f"{name} {value!r} is not a field name or dotted path")
        if not isinstance(self.lower_is_better, bool):
            raise SettingsError(f"lower_is_better {self.lower_is_better!r} is not true/false")
        if not isinstance(self.body_template, str):
            raise SettingsError(f"body_template {self.body_template!r} is not a file path")
        object.__setattr__(self, "body_template", self.body_template.strip())
        if self.auth_env and not _ENV.match(self.auth_env):
            raise SettingsError(f"auth_env {self.auth_env!r} is not an environment variable name")
        object.__setattr__(self, "rrf_k", _number("rrf k", self.rrf_k, 0, 10_000))
        if not isinstance(self.factory, bool):
            raise SettingsError(f"factory {self.factory!r} must be true or false")
        for name in ("model", "embeddings_url"):
            if not isinstance(getattr(self, name), str):
                raise SettingsError(f"{name} {getattr(self, name)!r} is not text")
            object.__setattr__(self, name, getattr(self, name).strip())
        if self.embeddings_url:
            _check_url(self.embeddings_url)
        object.__setattr__(self, "url", self.url.strip())
        object.__setattr__(self, "callable", self.callable.strip())
        if self.kind == "http":
            _check_url(self.url)
        if self.kind in ("python", "langchain") and not _CALLABLE.match(self.callable):
            raise SettingsError(
                f"callable {self.callable!r} is not of the form package.module:function"
                if self.callable
                else f"the {self.kind} retriever needs a callable: package.module:function"
            )

    # -- construction -----------------------------------------------------------------

    @classmethod
    def resolve(cls, value: RetrieverSpec | str | Mapping[str, Any] | None = None) -> RetrieverSpec:
        """A spec from a spec, a kind name (``"bm25"``), a mapping of field names (a saved
        run, JSON) or ``None`` (the default ``seed``)."""
        if value is None:
            return cls()
        if isinstance(value, RetrieverSpec):
            return value
        if isinstance(value, str):
            return cls(kind=retriever_kind(value))
        if isinstance(value, Mapping):
            known = {f.name for f in fields(cls)}
            unknown = sorted(set(value) - known)
            if unknown:
                raise SettingsError(f"unknown retriever setting {', '.join(map(repr, unknown))}")
            if isinstance(value.get("kind"), str):
                value = {**value, "kind": retriever_kind(value["kind"])}
            return cls(**value)
        raise SettingsError(f"retriever {value!r} is not a kind name, a mapping or a spec")

    # -- reading ------------------------------------------------------------------------

    @property
    def operator_only(self) -> bool:
        """True for the retrievers only whoever starts ragdash may name: a team's code or
        service (``external``) and the embedding retrievers (``dense``, ``hybrid``: they load
        a model, minutes of CPU for a large corpus) — never a page visitor or a link."""
        return self.kind in OPERATOR_KINDS

    @property
    def external(self) -> bool:
        """True for the team's retrievers (``http``, ``python``): ragdash sees only their
        answers, not their index."""
        return self.kind in ("http", "python", "langchain")

    @property
    def embedder_label(self) -> str:
        """The embedding model of ``dense``/``hybrid`` as labels name it."""
        if self.embeddings_url:
            return f"embeddings {redact_url(self.embeddings_url)}" + (
                f" model {self.model}" if self.model else "")
        return self.model or "all-MiniLM-L6-v2"

    @property
    def response_shape(self) -> ResponseShape:
        """The shape with this spec's single-field overrides applied (in a ``_search`` shape
        a field without a leading ``_`` is read from ``_source``)."""
        base = SHAPES[self.shape]

        def path(value: str, default: str) -> str:
            if not value:
                return default
            if self.shape in SEARCH_BODY_SHAPES and not value.startswith("_"):
                return "_source." + value
            return value

        return ResponseShape(
            self.results_path or base.results,
            path(self.id_field, base.id),
            path(self.text_field, base.text),
            path(self.score_field, base.score),
            path(self.page_field, base.page),
            self.lower_is_better or base.lower_is_better,
            base.columns,
        )

    @property
    def search_field(self) -> str:
        """The ``_source`` field a ``_search`` body's ``multi_match`` searches: the text
        field without its ``_source.`` prefix (default ``text``)."""
        text = self.response_shape.text
        return text.removeprefix("_source.")

    @property
    def safe_url(self) -> str:
        """The URL with any user:password and query string hidden, for labels and links::

        >>> RetrieverSpec("http", url="https://u:pw@h.example/s?key=abc").safe_url
        'https://***@h.example/s?***'
        """
        return redact_url(self.url)

    @property
    def link_safe(self) -> bool:
        """True when the URL holds nothing that may be a secret (no user:password, no query
        string), so a shared link may carry it."""
        parts = urlsplit(self.url)
        return not (parts.username or parts.password or parts.query or parts.fragment)

    @property
    def label(self) -> str:
        """The retriever and every setting that changes its results, e.g. ``bm25 (k1=1.2,
        b=0.75)`` or ``http https://search.example/q (shape elasticsearch)``."""
        if self.kind == "bm25":
            return f"bm25 (k1={self.k1:g}, b={self.b:g})"
        if self.kind == "seed":
            return BUILTIN
        if self.kind == "dense":
            return f"dense ({self.embedder_label})"
        if self.kind == "hybrid":
            return (f"hybrid (bm25 k1={self.k1:g}, b={self.b:g} + dense {self.embedder_label}, "
                    f"rrf k={self.rrf_k:g})")
        target = self.safe_url if self.kind == "http" else self.callable
        details = [] if self.shape == "ragdash" else [f"shape {self.shape}"]
        if self.body_template:
            details.append(f"body template {self.body_template}")
        if self.lower_is_better:
            details.append("lower is better")
        if self.factory:
            details.append("factory")
        if self.kind == "http" and self.shape == "chroma" and not self.body_template:
            details.append(f"query embedded with {self.embedder_label}")
        base = SHAPES[self.shape]
        for name, default in (
            ("results_path", base.results),
            ("id_field", base.id),
            ("text_field", base.text),
            ("score_field", base.score),
            ("page_field", base.page),
        ):
            value = getattr(self, name)
            if value and value != default:
                details.append(f"{name.replace('_', ' ')} {value}")
        return f"{self.kind} {target}" + (f" ({'; '.join(details)})" if details else "")

    def with_kind(self, kind: str) -> RetrieverSpec:
        return replace(self, kind=kind)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form that :meth:`resolve` reads back to an equal spec (the URL
        redacted: a report never carries a secret)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["url"] = self.safe_url
        data["embeddings_url"] = redact_url(self.embeddings_url)
        return data


def redact_url(url: str) -> str:
    """``url`` with user:password and the query string replaced by ``***``."""
    if not url:
        return url
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.username or parts.password:
        netloc = "***@" + netloc.rsplit("@", 1)[-1]
    query = "***" if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _check_url(url: str) -> None:
    if not url:
        raise SettingsError("the http retriever needs a URL, e.g. http://127.0.0.1:8000/search")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsError(
            f"URL {redact_url(url)!r} must start with http:// or https:// and name a host"
        )
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise SettingsError(f"URL {redact_url(url)!r} has a port that is not 0-65535") from None


def _number(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SettingsError(f"{name} {value!r} is not a number")
    if not math.isfinite(value) or not low <= value <= high:
        raise SettingsError(f"{name} {value:g} is outside {low:g}-{high:g}")
    return float(value)
