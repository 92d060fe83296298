"""Every embeddings answer and every vector-cache entry is checked before use: a service
whose query embedding is narrower than its passages', or whose numbers overflow float32,
fails the retriever in one line (exit 4); a cache entry of the wrong width, a forged ``.npy``
header, or a FIFO in place of a cached file is ignored and encoded again. Real HTTP service
on 127.0.0.1, real ``np.save`` files, a real FIFO."""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from conftest import run_module

from ragdash.retrieval.dense import cached_vectors

HEAD = "---\nsubject: {}\nupdated: 2026-01-01\nstatus: current\n---\n"
DOCS = {
    "returns.md": "# Returns\n\nItems can be returned within 30 days of delivery.\n",
    "plans.md": "# Plans\n\nThe Pro plan includes 100 GB of storage.\n",
    "support.md": "# Support\n\nSupport answers within one business day.\n",
}
CASES = {"cases": [{"name": "returns", "kind": "control", "query": "return window days",
                    "expected_id": "returns", "evidence": ["30 days"]}]}  # fmt: skip


def _vector(text: str, width: int) -> list[float]:
    digest = hashlib.sha256(text.lower().encode()).digest()
    return [1.0 + digest[i % 32] / 255 for i in range(width)]


class _Service(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/embeddings; its path says how it misbehaves."""

    def do_POST(self):  # noqa: N802 - http.server's name
        texts = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["input"]
        width = 4
        if self.path.startswith("/narrow") and len(texts) == 1:  # the query alone: narrower
            width = 3
        if self.path.startswith("/wide5"):
            width = 5
        vectors = [_vector(t, width) for t in texts]
        if self.path.startswith("/huge"):
            vectors = [[1e300, *v[1:]] for v in vectors]
        data = json.dumps({"data": [{"index": i, "embedding": v}
                                    for i, v in enumerate(vectors)]}).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def service():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Service)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def corpus(tmp_path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(HEAD.format(name[:-3]) + text)
    (tmp_path / "cases.json").write_text(json.dumps(CASES))
    return docs, tmp_path / "cases.json"


def check(corpus, url: str, cache: Path):
    docs, cases = corpus
    return run_module("ragdash", "check", "--docs", str(docs), "--cases", str(cases),
                      "--retriever", "dense", "--embeddings-url", url, "--retries", "0",
                      timeout=120, RAGDASH_CACHE_DIR=str(cache))  # fmt: skip


@pytest.mark.parametrize(
    ("path", "says"),
    [("/narrow", "the query's embedding has 3 numbers, the passages' 4"),
     ("/huge", "beyond float32's range")],
)  # fmt: skip
def test_a_bad_embeddings_answer_fails_the_retriever_in_one_line(
    service, corpus, tmp_path, path, says
):
    done = check(corpus, service + path, tmp_path / "cache")
    assert done.returncode == 4, (done.returncode, done.stdout, done.stderr)
    assert done.stderr == "" and "no passage matched" not in done.stdout
    (line,) = [x for x in done.stdout.splitlines() if says in x]  # the case's error, one line
    assert line.startswith("returns: ") and "http://127.0.0.1:" in line
    assert "1 could not be run" in done.stdout


@pytest.mark.parametrize("damage", ["another-width", "header-claims-2**40-columns", "fifo"])
def test_check_encodes_a_damaged_vector_cache_again(service, corpus, tmp_path, damage):
    """Through ``check``: before, another width (manifest agreeing) was an internal
    ValueError (exit 3), a header claiming (n, 2**40) "out of memory" (exit 2), a FIFO a run
    that never ended."""
    cache = tmp_path / "cache"
    first = check(corpus, service + "/v1", cache)
    assert first.returncode == 0, first.stderr
    (manifest,) = (cache / "dense").glob("*.json")
    npy = manifest.with_suffix(".npy")
    about = json.loads(manifest.read_text())
    if damage == "another-width":  # the same key, another width: manifest and .npy agree
        np.save(npy, np.ones((about["passages"], 5), np.float32) / 5**0.5)
        manifest.write_text(json.dumps({**about, "dimensions": 5}))
    elif damage == "fifo":
        npy.unlink()
        os.mkfifo(npy)
    else:
        npy.write_bytes(_forged((about["passages"], 2**40), np.load(npy).tobytes()))
    again = check(corpus, service + "/v1", cache)
    assert (again.returncode, again.stdout) == (0, first.stdout), again.stderr
    assert np.load(npy).shape == (about["passages"], 4)  # rebuilt


class _Counting:
    identity, label, calls = "test:counting", "counting", 0

    def encode(self, texts, progress=False):
        _Counting.calls += 1
        rows = np.array([_vector(t, 4) for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


TEXTS = ["Basic | 10 Go", "Pro | 100 Go", "Enterprise | 1 To"]


def _entry(folder: Path) -> Path:
    _Counting.calls = 0
    first = cached_vectors(_Counting(), TEXTS, {}, folder)
    assert _Counting.calls == 1 and first.shape == (3, 4)
    (npy,) = folder.glob("*.npy")
    return npy


def _forged(shape: tuple[int, ...], data: bytes) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        out, {"descr": "<f4", "fortran_order": False, "shape": shape}
    )  # fmt: skip
    return out.getvalue() + data


def _read_in_time(folder: Path) -> np.ndarray:
    """cached_vectors in a thread: a hang fails the test instead of stalling the run."""
    got: list = []
    worker = threading.Thread(target=lambda: got.append(cached_vectors(_Counting(), TEXTS, {},
                                                                       folder)), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert got, "reading the vector cache did not finish within 20 s"
    return got[0]


@pytest.mark.parametrize(
    "damage",
    ["header-claims-2**40-columns", "header-claims-more-rows", "data-cut-short",
     "fifo-npy", "fifo-manifest", "folder-npy", "nan-values"],
)  # fmt: skip
def test_a_damaged_cache_entry_is_ignored_and_encoded_again(tmp_path, damage):
    npy = _entry(tmp_path)
    good = np.load(npy)
    data = good.tobytes()
    if damage == "header-claims-2**40-columns":
        npy.write_bytes(_forged((3, 2**40), data))
    elif damage == "header-claims-more-rows":
        npy.write_bytes(_forged((3_000_000_000, 4), data))
    elif damage == "data-cut-short":
        npy.write_bytes(_forged((3, 4), data[:-4]))
    elif damage == "fifo-npy":
        npy.unlink()
        os.mkfifo(npy)
    elif damage == "fifo-manifest":
        npy.with_suffix(".json").rename(tmp_path / "saved.json")
        os.mkfifo(npy.with_suffix(".json"))
    elif damage == "folder-npy":
        npy.unlink()
        npy.mkdir()
    elif damage == "nan-values":
        bad = good.copy()
        bad[1, 2] = np.nan
        np.save(npy, bad)
    if damage == "folder-npy":  # the write cannot replace a folder: the run goes on
        assert np.array_equal(_read_in_time(tmp_path), good)
        return
    assert np.array_equal(_read_in_time(tmp_path), good)
    assert _Counting.calls == 2  # encoded again
    assert npy.is_file() and np.array_equal(np.load(npy), good)  # and replaced


def test_the_stress_runs_dense_retriever_names_a_narrow_query_too(service, corpus):
    """``stress`` embeds through its own memo: the same check, not a TypeError."""
    from ragdash.checks.stress import _retriever_factory
    from ragdash.errors import RetrieverError
    from ragdash.ingestion.ingest import load_folder
    from ragdash.retrieval.index import CorpusIndex
    from ragdash.retrieval.spec import RetrieverSpec
    from ragdash.settings import Fixes

    make = _retriever_factory(RetrieverSpec("dense", embeddings_url=service + "/narrow"))
    retriever = make(CorpusIndex(load_folder(corpus[0])))
    with pytest.raises(RetrieverError, match="the query's embedding has 3 numbers"):
        retriever.retrieve("return window days", Fixes(), 3)
