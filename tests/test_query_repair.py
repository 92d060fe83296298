"""One guarded query repair for every retriever: the query a bm25, http or python retriever is
sent is repaired by the seed's own decision (English word list, typo-likeness, short-word
rules, OCR reading then fuzzy), so ``login`` never becomes ``logic`` anywhere."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from conftest import ROOT, require_module

require_module("bm25s")

from bm25_service import running  # noqa: E402 - needs bm25s

from ragdash.checks.runs import run_cases  # noqa: E402
from ragdash.ingestion.ingest import load_folder  # noqa: E402
from ragdash.retrieval.index import CorpusIndex  # noqa: E402
from ragdash.retrieval.retrievers import make_retriever  # noqa: E402
from ragdash.retrieval.spec import RetrieverSpec  # noqa: E402
from ragdash.settings import Fixes  # noqa: E402
from ragdash.storage.case_store import load_cases  # noqa: E402
from ragdash.storage.passages_export import passage_records  # noqa: E402

ADVERSARIAL = ROOT / "tests" / "fixtures" / "adversarial"
KINDS = ("bm25", "http", "python")

SEARCH_MODULE = """
from ragdash import CorpusIndex, load_folder
from ragdash.settings import Fixes

_index = CorpusIndex(load_folder({docs!r}))  # a keyword scorer with no fixes of its own


def search(query, top_k):
    return [
        {{"id": r.doc_id, "text": r.passage.text, "score": r.score}}
        for r in _index.top(query, Fixes(), top_k)
    ]
"""


@pytest.fixture(scope="module")
def index() -> CorpusIndex:
    return CorpusIndex(load_folder(ADVERSARIAL / "docs"))


@pytest.fixture
def team_module(tmp_path, monkeypatch):
    package = tmp_path / "repairpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(SEARCH_MODULE.format(docs=str(ADVERSARIAL / "docs")))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@contextmanager
def retriever_of(kind: str, index: CorpusIndex):
    """A retriever of ``kind`` over the adversarial corpus (the http one a real BM25 service
    indexed from ``ragdash passages``; the python one a team's function)."""
    if kind == "http":
        with running(list(passage_records(index, Fixes()))) as service:
            yield make_retriever(RetrieverSpec("http", url=service.url + "/search"), index)
    else:
        team = RetrieverSpec("python", callable="repairpkg.mod:search")
        yield make_retriever(team if kind == "python" else kind, index)


@pytest.mark.parametrize("kind", KINDS)
def test_a_real_english_word_is_never_fuzzed_for_any_retriever(kind, index, team_module):
    with retriever_of(kind, index) as retriever:
        for fixes in (Fixes(fuzzy=True), Fixes.all()):
            result = retriever.retrieve("login problems", fixes, 3)
            assert result.query_sent == "login problems"
            assert "logic" not in " ".join(result.notes)
            assert "'login' is an English word: not fuzzed" in result.notes


@pytest.mark.parametrize("kind", KINDS)
def test_typos_and_ocr_then_typo_are_repaired_for_every_retriever(kind, index, team_module):
    with retriever_of(kind, index) as retriever:
        typo = retriever.retrieve("warehuse sync", Fixes(fuzzy=True), 3)
        assert typo.query_sent == "warehouse sync"
        assert typo.ranked[0].doc_id == "inventory"
        both = retriever.retrieve("wareh0sue sync", Fixes.all(), 3)
        assert both.query_sent == "warehouse sync"
        assert "query repaired: wareh0sue → warehouse" in both.notes
        assert both.ranked[0].doc_id == "inventory"


@pytest.mark.parametrize("kind", KINDS)
def test_the_adversarial_fuzzy_real_word_case_is_not_broken_by_fuzzy_for_any_retriever(
    kind, index, team_module
):
    """fuzzy-real-word: 'login' is a word no document uses; fuzzing it to 'logic' puts the
    rules page ahead. With the guard the fuzzy fix changes nothing: the python retriever (a
    keyword scorer) passes under every setting, and BM25 (here and behind http) ranks the
    answer exactly as it does with no fixes."""
    case = next(c for c in load_cases(ADVERSARIAL / "cases.json") if c.name == "fuzzy-real-word")
    with retriever_of(kind, index) as retriever:
        runs = [run_cases(retriever, [case], f)[0] for f in (Fixes(), Fixes(fuzzy=True))]
        assert [r.error for r in runs] == ["", ""]
        assert [r.query_sent for r in runs] == ["login problems"] * 2
        assert runs[1].metrics.rank == runs[0].metrics.rank
        assert runs[1].diagnosis == runs[0].diagnosis
        assert [r.doc_id for r in runs[1].retrieved] == [r.doc_id for r in runs[0].retrieved]
        if kind == "python":
            assert runs[1].passed


def test_ragdash_query_with_bm25_keeps_login_and_says_why():
    from conftest import run_module

    result = run_module("ragdash", "query", "--docs", "samples", "login password",
                        "--retriever", "bm25", "--fixes", "fuzzy")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "logic" not in result.stdout + result.stderr
    assert "'login' is an English word: not fuzzed" in result.stderr
