"""``python -m benchmarks.bench``: how fast the index builds and answers, next to BM25 peers.

Corpora are cut from text the project did not write — the docstrings of the Python
standard library, then of the installed packages — into passages of a few sentences, each
its own document with a seeded date, status and (now and then) OCR damage. Queries are a few
words of a random passage, some misspelled or OCR-damaged. Everything is measured in the
same run: build time and memory, median and p95 top-k latency with no fix and with all
fixes, and the same queries through ``rank_bm25`` (``BM25Okapi.get_scores`` + top-k) and
``bm25s`` when they are installed. Not a test: nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import numpy as np

from benchmarks.texts import passage_texts, remixed
from ragdash.case import Case
from ragdash.checks.ablation import configurations, run_ablation
from ragdash.ingestion.documents import Corpus, Document
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes
from ragdash.text import tokenize

SIZES = (1_000, 10_000, 100_000)
#: rank_bm25 scores every passage in Python: above this size it is left out of the run.
RANK_BM25_LIMIT = 200_000
QUICK_SIZES = (1_000, 10_000)
NO_FIXES = Fixes()


# --- corpus --------------------------------------------------------------------------------


def damage(text: str, rng: random.Random) -> str:
    """Misread one ``o``/``i`` of a word as ``0``/``1``, as OCR does."""
    words = [w for w in set(tokenize(text)) if w.isalpha() and len(w) >= 5 and "o" in w]
    if not words:
        return text
    word = rng.choice(sorted(words))
    return text.replace(word, word.replace("o", "0", 1), 1)


def make_corpus(texts: Sequence[str], seed: int = 0) -> Corpus:
    """One text document per passage: dated (some undated), 10% withdrawn, 3% OCR-damaged."""
    rng = random.Random(seed)
    docs = []
    for i, text in enumerate(texts):
        updated = None if rng.random() < 0.1 else date(2020, 1, 1) + timedelta(rng.randrange(2500))
        status = "withdrawn" if rng.random() < 0.1 else "current"
        body = damage(text, rng) if rng.random() < 0.03 else text
        docs.append(Document(f"p{i}", f"passage {i}", updated, status, f"p{i}.md", "text",
                             (body,), i))  # fmt: skip
    return Corpus(tuple(docs))


@dataclass(frozen=True)
class Query:
    text: str
    doc_id: str  # the passage it was drawn from
    evidence: str  # one of its words


def make_queries(corpus: Corpus, count: int, seed: int = 1) -> list[Query]:
    """2-4 distinct words of random passages; 30% with a typo, 10% with OCR damage."""
    rng = random.Random(seed)
    queries: list[Query] = []
    for _ in range(count * 100):
        if len(queries) >= count:
            break
        doc = rng.choice(corpus.documents)
        words = sorted({w for w in tokenize(doc.text) if w.isalpha() and len(w) >= 3})
        if len(words) < 2:
            continue
        picked = rng.sample(words, min(len(words), rng.randint(2, 4)))
        long = [i for i, w in enumerate(picked) if len(w) >= 6]
        roll = rng.random()
        if roll < 0.3 and long:
            i = rng.choice(long)
            cut = rng.randrange(1, len(picked[i]) - 1)
            picked[i] = picked[i][:cut] + picked[i][cut + 1 :]
        elif roll < 0.4 and any("o" in w for w in picked):
            i = next(i for i, w in enumerate(picked) if "o" in w)
            picked[i] = picked[i].replace("o", "0", 1)
        queries.append(Query(" ".join(picked), doc.doc_id, picked[0]))
    return queries


# --- systems -------------------------------------------------------------------------------


class System:
    """Something that builds over passage texts and answers top-k queries."""

    name = ""

    def build(self, corpus: Corpus) -> None:
        raise NotImplementedError

    def query(self, text: str, k: int) -> object:
        raise NotImplementedError


class Ragdash(System):
    name = "ragdash"

    def __init__(self, fixes: Fixes = NO_FIXES) -> None:
        self.fixes = fixes

    def build(self, corpus: Corpus) -> None:
        self.index = CorpusIndex(corpus)
        self.index.inverted(False)

    def query(self, text: str, k: int) -> object:
        return self.index.top(text, self.fixes, k)


class ColdFuzzy(Ragdash):
    """ragdash with the fuzzy fix, every look-up cold: the per-vocabulary fuzzy cache is
    emptied before each query, so a repeated typo is timed like a new one."""

    name = "fuzzy-typo"

    def __init__(self) -> None:
        super().__init__(Fixes(fuzzy=True))

    def query(self, text: str, k: int) -> object:
        for view in self.index.inverted(False)._views.values():
            view._fuzzy.clear()
        return super().query(text, k)


class RankBM25(System):
    name = "rank_bm25"

    def build(self, corpus: Corpus) -> None:
        from rank_bm25 import BM25Okapi

        self.bm25 = BM25Okapi([tokenize(doc.text) for doc in corpus.documents])

    def query(self, text: str, k: int) -> object:
        scores = self.bm25.get_scores(tokenize(text))
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        return top[np.argsort(-scores[top], kind="stable")]


class BM25S(System):
    name = "bm25s"

    def build(self, corpus: Corpus) -> None:
        import bm25s

        self.retriever = bm25s.BM25()
        tokens = [tokenize(doc.text) for doc in corpus.documents]
        self.retriever.index(tokens, show_progress=False)
        self.size = len(tokens)

    def query(self, text: str, k: int) -> object:
        return self.retriever.retrieve([tokenize(text)], k=min(k, self.size), show_progress=False)


def available_peers() -> list[System]:
    peers: list[System] = []
    for cls, module in ((RankBM25, "rank_bm25"), (BM25S, "bm25s")):
        try:
            __import__(module)
        except ImportError:
            continue
        peers.append(cls())
    return peers


# --- measuring -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Latency:
    """Per-query times of one system: wall median and p95, CPU median, and the wall spread
    (interquartile range) — CPU beside wall so a loaded machine shows as a gap between them."""

    median_ms: float
    p95_ms: float
    cpu_ms: float = 0.0
    spread_ms: float = 0.0


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def build_memory_mb(system: System, corpus: Corpus) -> float:
    """Memory the built system holds (tracemalloc, traced Python and numpy allocations)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    system.build(corpus)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held / 2**20


def interleaved_latency(
    systems: dict[str, System], queries: Sequence[str], k: int, repeats: int = 3
) -> dict[str, Latency]:
    """Every system on every query, ``repeats`` times, interleaved: for each query the
    systems take turns in a rotating order, so a burst of load on the machine falls on all
    of them alike. Each system answers one query before timing starts (a cold first call —
    imports, lazily built pools — is not a per-query cost). The same work is timed for
    every system: the query string in, its top-``k`` out (tokenizing included)."""
    names = list(systems)
    for system in systems.values():
        if queries:
            system.query(queries[0], k)
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(repeats):
        for i, q in enumerate(queries):
            turn = i % max(len(names), 1)
            for name in names[turn:] + names[:turn]:
                w0, c0 = time.perf_counter(), time.process_time()
                systems[name].query(q, k)
                cpu[name].append((time.process_time() - c0) * 1000)
                wall[name].append((time.perf_counter() - w0) * 1000)
    result = {}
    for name in names:
        times = wall[name]
        if not times:
            result[name] = Latency(0.0, 0.0)
            continue
        q1, q3 = np.percentile(times, [25, 75])
        result[name] = Latency(
            statistics.median(times),
            float(np.percentile(times, 95)),
            statistics.median(cpu[name]),
            float(q3 - q1),
        )
    return result


def ablation_cases(queries: Sequence[Query], count: int) -> list[Case]:
    """``count`` proof-check cases (queries reused round-robin if too few), top-3, one
    evidence word."""
    return [
        Case(f"c{i}", q.text, q.doc_id, (q.evidence,), top_k=3)
        for i, q in ((i, queries[i % len(queries)]) for i in range(count))
    ]


@dataclass
class Row:
    passages: int
    build_s: dict[str, float]
    memory_mb: dict[str, float]
    extras_s: float  # first all-fixes query: OCR groups, fuzzy pools, tie orders
    latency: dict[str, Latency]
    typo_latency: dict[str, Latency]  # typo'd queries only: cold fuzzy vs bm25s
    typo_queries: int
    ablation_s: float
    ablation_runs: int


def measure(size: int, texts: Sequence[str], args: argparse.Namespace) -> Row:
    corpus = make_corpus(texts[:size])
    queries = make_queries(corpus, args.queries)
    strings = [q.text for q in queries]
    makers: list[Callable[[], System]] = [Ragdash, *(type(p) for p in available_peers())]
    if size > RANK_BM25_LIMIT:  # ~2 s a query at 1M passages: 200 queries x 3 would be hours
        makers = [m for m in makers if m is not RankBM25]
    build, memory = {}, {}
    ours = Ragdash()
    peers: dict[str, System] = {}
    for make in makers:
        memory[make.name] = build_memory_mb(make(), corpus)
        gc.collect()
        system = ours if make is Ragdash else make()
        build[make.name] = timed(lambda s=system: s.build(corpus))
        if system is not ours:
            peers[make.name] = system
    every = Ragdash(Fixes.all())
    every.index = ours.index
    extras = timed(lambda: every.query("warmup qxzv", args.k))
    lat = interleaved_latency({"none": ours, "all": every, **peers}, strings, args.k)
    cold = ColdFuzzy()
    cold.index = ours.index
    typos = typo_queries(queries, ours.index.inverted(False).postings.token_ids)
    fast = {"bm25s": peers["bm25s"]} if "bm25s" in peers else {}
    typo_lat = interleaved_latency({"fuzzy": cold, **fast}, typos, args.k) if typos else {}
    del peers, fast
    gc.collect()
    cases = []
    if args.cases:
        cases = ablation_cases(make_queries(corpus, args.cases, seed=2), args.cases)
    ablation = timed(lambda: run_ablation(ours.index, cases)) if cases else 0.0
    runs = len(cases) * len(configurations())
    return Row(len(ours.index.passages()), build, memory, extras, lat, typo_lat, len(typos),
               ablation, runs)  # fmt: skip


def typo_queries(queries: Sequence[Query], vocabulary: object) -> list[str]:
    """The queries with a misspelled word: letters only, not a word of the corpus."""
    from ragdash.retrieval.wordlist import english_words

    english = english_words()
    return [
        q.text
        for q in queries
        if any(t.isalpha() and t not in vocabulary and t not in english for t in tokenize(q.text))
    ]


# --- report --------------------------------------------------------------------------------


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.1f}x" if a and b else "n/a"


def _ms(lat: Latency | None) -> str:
    if not lat:
        return "n/a"
    return f"{lat.median_ms:.2f} / {lat.p95_ms:.2f} / {lat.cpu_ms:.2f} ±{lat.spread_ms:.2f}"


def _num(value: float | None, fmt: str) -> str:
    return format(value, fmt) if value is not None else "n/a"


def report(rows: Sequence[Row], k: int) -> str:
    """The markdown tables: build and memory, query latency, fuzzy typos, ablation."""
    out = ["### Build (tokenize + index; memory held after the build, tracemalloc, same "
           "method for both)", ""]  # fmt: skip
    out.append(
        "| passages | ragdash s | ragdash MB | all-fixes extras s | rank_bm25 s | bm25s s "
        "| bm25s MB | build ragdash÷bm25s | memory ragdash÷bm25s |"
    )
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        b, m = r.build_s, r.memory_mb
        out.append(
            f"| {r.passages:,} | {b['ragdash']:.2f} | {m['ragdash']:.0f} | {r.extras_s:.2f} "
            f"| {_num(b.get('rank_bm25'), '.2f')} | {_num(b.get('bm25s'), '.2f')} "
            f"| {_num(m.get('bm25s'), '.0f')} | {_ratio(b['ragdash'], b.get('bm25s'))} "
            f"| {_ratio(m['ragdash'], m.get('bm25s'))} |"
        )
    out += [
        "",
        f"### Query latency, top-{k}, ms (wall median / wall p95 / CPU median ±wall IQR)",
        "",
        "Systems interleaved query by query, each warmed up, 3 repeats; the ratios compare "
        "CPU medians (the machine's other load inflates wall time for everyone). rank_bm25 "
        f"is left out above {RANK_BM25_LIMIT:,} passages.",
        "",
    ]
    out.append(
        "| passages | no fix | all fixes | rank_bm25 | bm25s "
        "| rank_bm25÷all-fixes | no-fix÷bm25s | all-fixes÷bm25s |"
    )
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        lat = r.latency
        mine, peer, fast = lat["all"].cpu_ms, lat.get("rank_bm25"), lat.get("bm25s")
        base = fast.cpu_ms if fast else None
        out.append(
            f"| {r.passages:,} | {_ms(lat['none'])} | {_ms(lat['all'])} "
            f"| {_ms(peer)} | {_ms(fast)} "
            f"| {_ratio(peer.cpu_ms if peer else None, mine)} "
            f"| {_ratio(lat['none'].cpu_ms, base)} | {_ratio(mine, base)} |"
        )
    out += [
        "",
        "### Fuzzy typos: the queries with a misspelled word, fuzzy fix on, every look-up "
        "cold (cache emptied), against bm25s on the same queries",
        "",
        "| passages | typo queries | fuzzy (ms, as above) | bm25s | fuzzy-typo÷bm25s |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        fz, fast = r.typo_latency.get("fuzzy"), r.typo_latency.get("bm25s")
        out.append(
            f"| {r.passages:,} | {r.typo_queries} | {_ms(fz)} | {_ms(fast)} "
            f"| {_ratio(fz.cpu_ms if fz else None, fast.cpu_ms if fast else None)} |"
        )
    out += ["", f"### Ablation (run_ablation: cases × {len(configurations())} configurations)", ""]
    out.append("| passages | checks | seconds | ms per check |")
    out.append("|---:|---:|---:|---:|")
    for r in rows:
        per = 1000 * r.ablation_s / max(r.ablation_runs, 1)
        out.append(f"| {r.passages:,} | {r.ablation_runs:,} | {r.ablation_s:.2f} | {per:.2f} |")
    return "\n".join(out)


# --- PDF loading ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PdfTiming:
    """One PDF: pdfplumber's own ``extract_text`` of every page, ragdash's load of the same
    pages (text, lines, tables, letter spacing), and a second load from the parse cache."""

    name: str
    pages: int
    extract_text_s: float
    load_s: float
    cached_s: float


def time_pdf(path: Path, repeats: int = 1) -> PdfTiming:
    """Time both in the same run, alternating, best of ``repeats``."""
    import io
    import tempfile

    import pdfplumber

    from ragdash.ingestion.ingest import MAX_PDF_PAGES, read_pdf
    from ragdash.ingestion.pdf_cache import PdfCache

    data = path.read_bytes()
    plain, ours, cached = [], [], []
    pages = 0
    for _ in range(max(repeats, 1)):
        start = time.perf_counter()
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for page in pdf.pages:
                page.extract_text()
                page.close()
                pages += 1
        plain.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as tmp:
            cache = PdfCache(tmp)
            start = time.perf_counter()
            read_pdf(data, MAX_PDF_PAGES, cache=cache)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            read_pdf(data, MAX_PDF_PAGES, cache=cache)
            cached.append(time.perf_counter() - start)
    return PdfTiming(path.name, pages // max(repeats, 1), min(plain), min(ours), min(cached))


def pdf_report(rows: Sequence[PdfTiming]) -> str:
    out = ["### PDF loading (same pages, same run)", ""]
    out.append("| file | pages | extract_text s | ragdash load s | load÷extract_text "
               "| cached 2nd load s |")  # fmt: skip
    out.append("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        out.append(
            f"| {r.name} | {r.pages} | {r.extract_text_s:.2f} | {r.load_s:.2f} | "
            f"{_ratio(r.load_s, r.extract_text_s)} | {r.cached_s:.3f} |"
        )
    return "\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    """The command line (one function, so other benchmarks add their options here)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__,
                                     allow_abbrev=False)
    parser.add_argument("--quick", action="store_true", help="1k and 10k passages, fewer runs")
    parser.add_argument(
        "--sizes", "--passages", dest="passages", type=int, nargs="+",
        help="corpus sizes to measure (e.g. --sizes 10000 100000 1000000)",
    )
    parser.add_argument("--queries", type=int, help="queries per size (default 200, quick 50)")
    parser.add_argument("--cases", type=int, help="ablation cases (default 1000, quick 100)")
    parser.add_argument("--k", type=int, default=10, help="passages returned per query")
    parser.add_argument(
        "--pdf", nargs="+", type=Path, metavar="FILE",
        help="time loading these PDFs beside pdfplumber's extract_text (then exit)",
    )
    parser.add_argument("--repeats", type=int, default=1, help="PDF timing: best of N runs")
    parser.add_argument(
        "--dashboard", action="store_true",
        help="drive the dashboard pages with AppTest instead (--dashboard --help: its options)",
    )  # fmt: skip
    return parser


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    quick = args.quick
    args.passages = args.passages or list(QUICK_SIZES if quick else SIZES)
    args.queries = args.queries or (50 if quick else 200)
    args.cases = args.cases if args.cases is not None else (100 if quick else 1000)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    if "--dashboard" in argv:  # the dashboard benchmark (it imports this module's corpus)
        from benchmarks import dashboard

        return int(dashboard.main([a for a in argv if a != "--dashboard"]))
    args = parse_args(argv)
    if args.pdf:
        timings = []
        for path in args.pdf:
            timings.append(time_pdf(path, args.repeats))
            print(f"timed {path.name}", flush=True)
        print()
        print(pdf_report(timings))
        return 0
    start = time.perf_counter()
    texts = passage_texts(max(args.passages))
    if len(texts) < max(args.passages):
        texts += remixed(texts, max(args.passages) - len(texts))
    print(f"corpus: {len(texts):,} passages of standard-library and package docstrings "
          f"({time.perf_counter() - start:.1f} s to read)")  # fmt: skip
    sizes = sorted({min(size, len(texts)) for size in args.passages})
    rows = []
    for size in sizes:
        rows.append(measure(size, texts, args))
        print(f"measured {size:,} passages", flush=True)
    print()
    print(report(rows, args.k))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
