"""A real LangChain retriever (a ``langchain_core`` ``BaseRetriever`` subclass) through
``--retriever langchain``: ``.invoke(query)`` Documents, ``page_content`` as the text,
``metadata["doc_id"]`` as the document id, the list order as the ranking (Documents carry
no score); and Chroma's column-wise answer and distances through the ``python`` retriever."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE_CASES, SAMPLE_DOCS, require_module, run_module

require_module("langchain_core")

from ragdash.checks.runs import run_cases  # noqa: E402
from ragdash.errors import RetrieverError, SettingsError  # noqa: E402
from ragdash.retrieval.options import spec_argv, spec_from_environ  # noqa: E402
from ragdash.retrieval.retrievers import make_retriever  # noqa: E402
from ragdash.retrieval.spec import RetrieverSpec  # noqa: E402
from ragdash.settings import Fixes  # noqa: E402

RAG_MODULE = '''
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from ragdash import CorpusIndex, load_folder
from ragdash.retrieval.bm25 import Bm25Retriever
from ragdash.settings import Fixes

_bm25 = Bm25Retriever(CorpusIndex(load_folder({docs!r})))


class KeywordRetriever(BaseRetriever):
    """A team's retriever: BM25 over the docs, Documents in rank order, no scores."""

    k: int = 5
    key: str = "doc_id"

    def _get_relevant_documents(self, query, *, run_manager: CallbackManagerForRetrieverRun):
        return [
            Document(page_content=r.passage.text, metadata={{self.key: r.doc_id}})
            for r in _bm25.top(query, Fixes(), self.k)
        ]


retriever = KeywordRetriever()
by_source = KeywordRetriever(key="source")


def build():
    return KeywordRetriever(k=3)


def chroma_search(query, top_k):
    """Chroma's collection.query() answer: columns, one list per query, distances."""
    ranked = _bm25.top(query, Fixes(), top_k)
    return {{
        "ids": [[f"{{r.doc_id}}#{{r.passage.position}}" for r in ranked]],
        "documents": [[r.passage.text for r in ranked]],
        "metadatas": [[{{"doc_id": r.doc_id}} for r in ranked]],
        "distances": [[1 / (1 + r.score) for r in ranked]],
    }}


def not_a_retriever():
    return 42
'''


@pytest.fixture
def lcpkg(tmp_path, monkeypatch):
    package = tmp_path / "lcpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rag.py").write_text(RAG_MODULE.format(docs=str(SAMPLE_DOCS)))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_langchain_retriever_gets_the_same_diagnoses_as_bm25(lcpkg, sample_index, sample_cases):
    team = make_retriever(RetrieverSpec("langchain", callable="lcpkg.rag:retriever"), sample_index)
    bm25 = make_retriever("bm25", sample_index)
    got = run_cases(team, sample_cases, Fixes())
    assert [r.error for r in got] == [""] * len(sample_cases)
    assert [r.diagnosis for r in got] == [r.diagnosis for r in run_cases(bm25, sample_cases,
                                                                         Fixes())]  # fmt: skip
    ranked = team.top("warehouse sync", Fixes(), 3)
    assert ranked[0].doc_id == "inventory"
    assert [r.score for r in ranked] == [1.0, 0.5, pytest.approx(1 / 3)]  # position: no score
    assert len(make_retriever(RetrieverSpec("langchain", callable="lcpkg.rag:build"),
                              sample_index).top("warehouse", Fixes(), 9)) == 3  # fmt: skip
    source = RetrieverSpec("langchain", callable="lcpkg.rag:by_source", id_field="source")
    assert make_retriever(source, sample_index).top("warehouse", Fixes(), 1)[0].doc_id == (
        "inventory"
    )


def test_something_that_is_not_a_retriever_is_refused_naming_it(lcpkg, sample_index):
    with pytest.raises(RetrieverError, match="lcpkg.rag:not_a_retriever: int is not a LangChain"):
        make_retriever(RetrieverSpec("langchain", callable="lcpkg.rag:not_a_retriever"),
                       sample_index)  # fmt: skip
    missing_key = make_retriever(RetrieverSpec("langchain", callable="lcpkg.rag:by_source"),
                                 sample_index)  # fmt: skip
    (run,) = run_cases(missing_key, [c for c in _cases() if c.name == "typo"], Fixes())
    assert run.error.startswith("lcpkg.rag:by_source: hit 1 has no 'metadata.doc_id'")


def _cases():
    from ragdash.storage.case_store import load_cases

    return load_cases(SAMPLE_CASES)


def test_ragdash_check_runs_a_langchain_retriever_from_the_current_folder(lcpkg):
    args = ["check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES), "--json",
            "--retriever", "langchain", "--callable", "lcpkg.rag:retriever"]  # fmt: skip
    result = run_module("ragdash", *args, "--fixes", "fuzzy", cwd=lcpkg)
    report = json.loads(result.stdout)
    assert report["retriever"] == "langchain lcpkg.rag:retriever"
    assert report["passed"] == 5 and report["errors"] == 0


def test_a_langchain_retriever_is_named_by_the_operator_only(monkeypatch):
    spec = spec_from_environ({"RAGDASH_RETRIEVER": "langchain",
                              "RAGDASH_CALLABLE": "lcpkg.rag:retriever"})  # fmt: skip
    assert spec.kind == "langchain" and spec.external
    assert spec_argv(spec) == ["--retriever", "langchain", "--callable", "lcpkg.rag:retriever"]
    with pytest.raises(SettingsError, match="the langchain retriever needs a callable"):
        RetrieverSpec("langchain")
    from ragdash.ui.viewstate import retriever_from_params  # a shared link cannot name one

    got, problems = retriever_from_params({"retriever": "langchain", "callable": "x.y:z"},
                                          RetrieverSpec())  # fmt: skip
    assert got == RetrieverSpec()
    assert any("started without a LangChain retriever" in p for p in problems)
    assert retriever_from_params({"retriever": "langchain"}, RetrieverSpec(), spec)[0] == spec


def test_chroma_columns_and_distances_are_read_through_the_python_retriever(
    lcpkg, sample_index, sample_cases
):
    spec = RetrieverSpec("python", callable="lcpkg.rag:chroma_search", shape="chroma")
    chroma = make_retriever(spec, sample_index)
    bm25 = make_retriever("bm25", sample_index)
    ranked = chroma.top("warehouse sync", Fixes(), 3)
    assert ranked[0].doc_id == "inventory" and ranked[0].score > ranked[1].score  # similarity
    for case in sample_cases:
        assert [r.doc_id for r in chroma.top(case.query, Fixes(), 5)] == [
            r.doc_id for r in bm25.top(case.query, Fixes(), 5)
        ]


def test_hits_without_scores_rank_by_position_and_distances_count_lower_as_better():
    from ragdash.retrieval.hits import parse_hits
    from ragdash.retrieval.spec import SHAPES

    ragdash = SHAPES["ragdash"]
    plain = parse_hits([{"id": "a", "text": "t"}, {"id": "b", "text": "u"}], ragdash, "s", 5)
    assert [(h.id, h.score) for h in plain] == [("a", 1.0), ("b", 0.5)]
    near = parse_hits([{"id": "a", "text": "t", "distance": 0.2}], ragdash, "s", 5)
    assert near[0].score == 1 / 1.2  # shown as a similarity, 1/(1+d)
    flagged = RetrieverSpec("http", url="http://h/s", lower_is_better=True).response_shape
    assert parse_hits([{"id": "a", "text": "t", "score": 3}], flagged, "s", 5)[0].score == 0.25
    with pytest.raises(RetrieverError, match="s: 1 documents values for 2 ids"):
        parse_hits({"ids": [["a", "b"]], "documents": [["t"]]}, SHAPES["chroma"], "s", 5)
