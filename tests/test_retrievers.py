"""The retriever interface: seed is today's scorer, a team's Python function plugs in, the
spec validates itself and never carries a secret, and every fix says where it applies."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE_CASES, SAMPLE_DOCS, run_module

from ragdash.checks.proof import check_case
from ragdash.checks.runs import run_cases
from ragdash.errors import RetrieverError, SettingsError
from ragdash.retrieval.hits import parse_hits
from ragdash.retrieval.retrievers import make_retriever
from ragdash.retrieval.spec import SHAPES, RetrieverSpec, fix_support
from ragdash.settings import FIX_NAMES, Fixes

SEARCH_MODULE = '''
from ragdash import CorpusIndex, load_folder
from ragdash.retrieval.bm25 import Bm25Retriever
from ragdash.settings import Fixes

_bm25 = Bm25Retriever(CorpusIndex(load_folder({docs!r})))


def search(query, top_k):
    return [
        {{"id": r.doc_id, "text": r.passage.text, "score": r.score}}
        for r in _bm25.top(query, Fixes(), top_k)
    ]


def broken(query, top_k):
    raise KeyError("index not loaded")


def wrong_type(query, top_k):
    return "returns-2026"
'''


@pytest.fixture
def mypkg(tmp_path, monkeypatch):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(SEARCH_MODULE.format(docs=str(SAMPLE_DOCS)))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_seed_is_the_default_and_ranks_exactly_as_the_proof_check_always_did(
    sample_index, sample_cases
):
    retriever = make_retriever(None, sample_index)
    assert retriever.spec == RetrieverSpec() and retriever.spec.label == "builtin"
    for fixes in (Fixes(), Fixes.all()):
        runs = run_cases(retriever, sample_cases, fixes)
        old = [check_case(sample_index, case, fixes) for case in sample_cases]
        assert [r.check for r in runs] == old


def test_a_python_callable_gets_the_same_proof_checks_as_bm25(mypkg, sample_index, sample_cases):
    team = make_retriever(RetrieverSpec("python", callable="mypkg.mod:search"), sample_index)
    bm25 = make_retriever("bm25", sample_index)
    assert [r.diagnosis for r in run_cases(team, sample_cases, Fixes())] == [
        r.diagnosis for r in run_cases(bm25, sample_cases, Fixes())
    ]
    ranked = team.top("warehouse sync", Fixes(), 2)
    assert ranked[0].doc_id == "inventory" and ranked[0].breakdown == ()
    assert ranked[0].passage.updated is not None  # the document's metadata from the corpus


def test_a_callable_that_raises_or_answers_junk_fails_its_case_with_a_message(
    mypkg, sample_index, sample_cases
):
    broken = make_retriever(RetrieverSpec("python", callable="mypkg.mod:broken"), sample_index)
    runs = run_cases(broken, sample_cases[:2], Fixes())
    assert [r.error for r in runs] == ["mypkg.mod:broken raised KeyError: 'index not loaded'"] * 2
    junk = make_retriever(RetrieverSpec("python", callable="mypkg.mod:wrong_type"), sample_index)
    assert run_cases(junk, sample_cases[:1], Fixes())[0].error == (
        "mypkg.mod:wrong_type: expected a list of hits, got str"
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nopkg.mod:search", "nopkg.mod:search: cannot import 'nopkg.mod'"),
        ("mypkg.mod:missing", "mypkg.mod:missing: 'mypkg.mod' has no 'missing'"),
    ],
)
def test_a_callable_that_cannot_be_imported_is_refused_naming_it(
    mypkg, sample_index, name, message
):
    with pytest.raises(RetrieverError, match=message):
        make_retriever(RetrieverSpec("python", callable=name), sample_index)


def test_ragdash_check_with_a_python_callable_from_the_current_folder(mypkg):
    result = run_module(
        "ragdash", "check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
        "--retriever", "python", "--callable", "mypkg.mod:search", "--metrics", cwd=mypkg,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "retriever: python mypkg.mod:search" in result.stdout
    assert "5 of 8 cases passed" in result.stdout
    assert "hit@k" in result.stdout and "nDCG@k" in result.stdout
    bad = run_module("ragdash", "check", "--cases", str(SAMPLE_CASES), "--docs",
                     str(SAMPLE_DOCS), "--retriever", "python", cwd=mypkg)  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "ragdash: error: retriever settings: the python retriever needs a callable: "
        "package.module:function"
    )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"kind": "solr"}, "unknown retriever 'solr'; choose from builtin, bm25, http, python, "
                           "langchain, dense, hybrid"),
        ({"kind": "http"}, "the http retriever needs a URL"),
        ({"kind": "http", "url": "ftp://x/y"}, "must start with http:// or https://"),
        ({"kind": "python", "callable": "mypkg.mod"}, "is not of the form package.module"),
        ({"kind": "bm25", "k1": -1}, "bm25 k1 -1 is outside 0-100"),
        ({"kind": "http", "url": "http://h/s", "timeout": 0}, "timeout must be more than 0"),
        ({"kind": "http", "url": "http://h/s", "retries": 9}, "retries 9 is outside 0-5"),
        ({"id_field": "a b"}, "id_field 'a b' is not a field name or dotted path"),
    ],
)
def test_a_bad_retriever_setting_is_refused_naming_it(settings, message):
    with pytest.raises(SettingsError, match=message):
        RetrieverSpec(**settings)


def test_a_url_with_a_password_or_query_string_is_hidden_in_labels_and_links():
    spec = RetrieverSpec("http", url="https://user:pw@search.example/q?api_key=abc")
    assert spec.label == "http https://***@search.example/q?***"
    assert not spec.link_safe and spec.to_dict()["url"] == spec.safe_url
    assert RetrieverSpec("http", url="http://127.0.0.1:8000/search").link_safe
    bm25 = RetrieverSpec("bm25", k1=2)
    assert RetrieverSpec.resolve(bm25.to_dict()) == bm25


def test_every_fix_says_whether_it_reaches_each_retriever():
    for kind in ("seed", "bm25"):
        assert all(fix_support(kind, name)[0] for name in FIX_NAMES)
    external = {name: fix_support("http", name)[0] for name in FIX_NAMES}
    # status, versions and recency are applied to the service's hits (post_fixes); the
    # bundled OCR damage is in the passages, which only a re-index repairs (test_dense.py
    # checks each claim against behaviour).
    assert external == {"recency": True, "status": True, "ocr": True, "fuzzy": True,
                        "tables": False, "versions": True, "unicode": False}  # fmt: skip
    assert "ragdash passages --fixes tables" in fix_support("python", "tables")[1]


def test_hits_are_read_from_the_common_shapes_and_junk_names_the_field():
    ragdash = SHAPES["ragdash"]
    hit = parse_hits([{"id": 7, "text": "t", "score": 1, "page": 2}], ragdash, "svc", 5)[0]
    assert (hit.id, hit.page) == ("7", 2)
    assert len(parse_hits({"results": [{"id": "a", "text": "t", "score": 1}] * 9}, ragdash,
                          "svc", 3)) == 3  # fmt: skip
    with pytest.raises(RetrieverError, match="svc: answers in schema version 2"):
        parse_hits({"results": [], "schema_version": 2}, ragdash, "svc", 5)
    with pytest.raises(RetrieverError, match="svc: hit 1: 'score' must be a finite number"):
        parse_hits([{"id": "a", "text": "t", "score": "high"}], ragdash, "svc", 5)
    with pytest.raises(RetrieverError, match="svc: hit 1: 'page' must be a page number"):
        parse_hits([{"id": "a", "text": "t", "score": 1, "page": 0}], ragdash, "svc", 5)


def test_ragdash_query_shows_the_bm25_breakdown():
    result = run_module("ragdash", "query", "return policy days", "--docs", str(SAMPLE_DOCS),
                        "--retriever", "bm25", "--json")  # fmt: skip
    report = json.loads(result.stdout)
    assert report["retriever"] == "bm25 (k1=1.2, b=0.75)"
    assert report["ranked"][0]["breakdown"][0]["note"].startswith("tf 1 · idf ")



def test_the_readme_retriever_snippet_runs_as_printed():
    import re
    import subprocess
    import sys

    from conftest import ROOT

    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Use it from Python")[1]
    first, second = re.findall(r"```python\n(.*?)```", section, re.S)[:2]
    result = subprocess.run([sys.executable, "-c", first + second], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[2:4] == ["fail", "0.5"]
