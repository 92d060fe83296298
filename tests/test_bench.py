"""The benchmark entry point runs on a tiny corpus and prints its tables (no timing checked)."""

from __future__ import annotations

import re

from benchmarks import bench
from ragdash.settings import Fixes


def test_bench_prints_build_latency_and_ablation_tables_with_ratios(capsys):
    assert bench.main(["--sizes", "150", "--queries", "20", "--cases", "4"]) == 0
    out = capsys.readouterr().out
    for heading in ("### Build", "### Query latency, top-10", "### Fuzzy typos", "### Ablation"):
        assert heading in out
    for column in ("ragdash s", "ragdash MB", "bm25s s", "build ragdash÷bm25s",
                   "memory ragdash÷bm25s", "no fix", "all fixes", "rank_bm25",
                   "rank_bm25÷all-fixes", "no-fix÷bm25s", "all-fixes÷bm25s", "typo queries",
                   "fuzzy-typo÷bm25s", "checks"):  # fmt: skip
        assert column in out
    rows = [line for line in out.splitlines() if re.match(r"\| 15\d \|", line)]
    assert len(rows) == 4
    ratios = [len(re.findall(r"\d+\.\d+x", row)) for row in rows[:3]]
    assert ratios == [2, 3, 1]  # build and memory; three latency ratios; fuzzy typos
    assert "| 64 |" in rows[3]  # 4 cases × 16 configurations


def test_a_million_passages_need_more_text_than_the_sources_hold_remixed_not_repeated():
    texts = bench.passage_texts(40)
    extra = bench.remixed(texts, 100)
    assert len(extra) == 100 and len(set(extra) | set(texts)) == 140
    assert bench.remixed(texts, 100) == extra  # seeded


def test_bench_corpus_is_third_party_text_cut_into_seeded_documents():
    texts = bench.passage_texts(50)
    assert len(texts) == 50 and len(set(texts)) == 50
    corpus = bench.make_corpus(texts)
    assert corpus == bench.make_corpus(texts)
    assert {doc.status for doc in corpus.documents} <= {"current", "withdrawn"}
    queries = bench.make_queries(corpus, 20)
    assert queries == bench.make_queries(corpus, 20)
    assert all(2 <= len(q.text.split()) <= 4 for q in queries)


def test_bench_systems_answer_the_same_top_k_shape():
    corpus = bench.make_corpus(bench.passage_texts(30))
    ours = bench.Ragdash(Fixes.all())
    ours.build(corpus)
    assert len(ours.query("return the value", 5)) == 5
    for peer in bench.available_peers():
        peer.build(corpus)
        peer.query("return the value", 5)


def test_bench_times_pdf_loading_beside_extract_text(tmp_path, capsys):
    from pdf_factory import inventory_rows, table_pdf

    path = tmp_path / "stock.pdf"
    path.write_bytes(table_pdf(inventory_rows(40), ruled=True))
    assert bench.main(["--pdf", str(path)]) == 0
    out = capsys.readouterr().out
    assert "extract_text s" in out and "ragdash load s" in out and "cached 2nd load s" in out
    (row,) = [line for line in out.splitlines() if line.startswith("| stock.pdf")]
    assert re.search(r"\| 2 \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d+x \|", row)


def test_latency_interleaves_the_systems_warms_each_up_and_reports_cpu_beside_wall():
    calls: list[str] = []

    class Probe(bench.System):
        def __init__(self, name: str) -> None:
            self.name = name

        def build(self, corpus) -> None:  # pragma: no cover - not built here
            pass

        def query(self, text: str, k: int) -> object:
            calls.append(self.name)
            return sum(range(2000))  # some CPU work to time

    systems = {"a": Probe("a"), "b": Probe("b"), "c": Probe("c")}
    result = bench.interleaved_latency(systems, ["q1", "q2", "q3"], 10, repeats=2)
    assert calls[:3] == ["a", "b", "c"]  # one warm-up call each, not timed
    timed_calls = calls[3:]
    assert len(timed_calls) == 3 * 3 * 2
    # the order rotates query by query, so no system always goes first
    assert timed_calls[0:3] == ["a", "b", "c"] and timed_calls[3:6] == ["b", "c", "a"]
    for latency in result.values():
        assert latency.median_ms > 0 and latency.cpu_ms >= 0 and latency.spread_ms >= 0
