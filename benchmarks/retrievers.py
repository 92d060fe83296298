"""The research table: the four seed flaws × {seed, bm25, dense, hybrid} × fixes.

    python -m benchmarks.retrievers [--max-edits 3] [--no-fragility]

Prints Markdown (docs/retrievers.md carries a dated copy):

1. the bundled testbed's four flaw cases under fixes ``none``, the fix that targets the flaw
   (``versions``, ``ocr``, ``fuzzy``, ``tables``) and ``all``, per retriever, with the
   ``fragility`` search's typo edits-to-break (fixes none → all; ``0`` = already fails,
   ``>N`` = not broken within N edits);
2. the adversarial corpus (tests/fixtures/adversarial): cases passed per retriever under
   fixes none / all;
3. time: making each retriever and its first query on the testbed (dense: loading the
   model; the vector cache is cold for dense, warm for hybrid, which shares the process),
   the mean time per query once warm (fixes all), and encoding ``--encode N`` passages of
   third-party text (:mod:`benchmarks.texts`) with the dense model: the index build at N.

Needs ``pip install -r requirements-dense.txt`` for dense and hybrid. The vector cache goes to a
temporary folder, so every run encodes from scratch.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from ragdash.checks.fragility import find_breaking_perturbation
from ragdash.checks.runs import run_cases
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.retrievers import make_retriever
from ragdash.settings import Fixes
from ragdash.storage.case_store import load_cases

__all__ = ["FLAWS", "KINDS", "main"]

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_docs"
ADVERSARIAL = ROOT / "tests" / "fixtures" / "adversarial"
KINDS = ("seed", "bm25", "dense", "hybrid")
#: The four seed flaws: their case on the testbed and the fix that targets each.
FLAWS = {"stale-version": "versions", "ocr-noise": "ocr", "typo": "fuzzy",
         "split-table": "tables"}  # fmt: skip


def _mark(passed: bool) -> str:
    return "pass" if passed else "FAIL"


def _edits(retriever, case, fixes: Fixes, max_edits: int) -> str:
    found = find_breaking_perturbation(retriever, case, fixes, "typo", max_edits=max_edits,
                                       max_evaluations=300)  # fmt: skip
    return str(found.edits) if found.broken else f">{found.depth}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.retrievers", description=__doc__,
                                allow_abbrev=False)
    p.add_argument("--max-edits", type=int, default=3)
    p.add_argument("--no-fragility", action="store_true")
    p.add_argument("--encode", type=int, default=2000, metavar="N",
                   help="passages to encode for the index-build time (0: skip)")
    args = p.parse_args(argv)
    os.environ["RAGDASH_CACHE_DIR"] = tempfile.mkdtemp(prefix="ragdash-bench-")
    testbed = CorpusIndex(load_folder(SAMPLES))
    cases = {c.name: c for c in load_cases(SAMPLES / "cases.json")}
    adversarial = CorpusIndex(load_folder(ADVERSARIAL / "docs"))
    adv_cases = load_cases(ADVERSARIAL / "cases.json")
    rows, timing, adv = [], [], []
    for kind in KINDS:
        start = time.perf_counter()
        retriever = make_retriever(kind, testbed)
        retriever.top("warm up", Fixes(), 1)  # builds the index (dense: encodes)
        built = time.perf_counter() - start
        queries = [c.query for c in cases.values()]
        for q in queries:  # warm: indexes for fixes all, query embeddings
            retriever.top(q, Fixes.all(), 5)
        dense = getattr(retriever, "dense", retriever)
        if hasattr(dense, "_queries"):
            dense._queries.clear()  # time embedding each query too
        start = time.perf_counter()
        for q in queries:
            retriever.top(q, Fixes.all(), 5)
        per_query = (time.perf_counter() - start) / len(queries)
        timing.append((kind, built, per_query))
        for name, fix in FLAWS.items():
            case = cases[name]
            verdicts = [
                _mark(run_cases(retriever, [case], f)[0].passed)
                for f in (Fixes(), Fixes(**{fix: True}), Fixes.all())
            ]
            fragile = "-" if args.no_fragility else " → ".join(
                _edits(retriever, case, f, args.max_edits) for f in (Fixes(), Fixes.all()))
            rows.append((name, kind, fix, *verdicts, fragile))
    # ">N": no query N edits away broke it within the search's budget of 300 checks.
        other = make_retriever(kind, adversarial)
        adv.append((kind, *(sum(r.passed for r in run_cases(other, adv_cases, f))
                            for f in (Fixes(), Fixes.all()))))  # fmt: skip
        print(f"{kind} done", file=sys.stderr)
    print("| flaw case | retriever | targeted fix | none | targeted | all | typo edits to "
          "break (none → all) |")
    print("|---|---|---|---|---|---|---|")
    for row in sorted(rows, key=lambda r: list(FLAWS).index(r[0])):
        print("| " + " | ".join(row) + " |")
    print()
    print(f"| retriever | adversarial corpus, fixes none (of {len(adv_cases)}) | fixes all |")
    print("|---|---|---|")
    for kind, none, every in adv:
        print(f"| {kind} | {none} | {every} |")
    print()
    print(f"| retriever | index build on the testbed ({len(testbed.passages())} passages) "
          "| per query (fixes all) |")
    print("|---|---|---|")
    for kind, built, per_query in timing:
        print(f"| {kind} | {built * 1000:.0f} ms | {per_query * 1000:.1f} ms |")
    if args.encode:
        from benchmarks.texts import passage_texts
        from ragdash.retrieval.dense import SentenceEmbedder

        texts = passage_texts(args.encode)
        embedder = SentenceEmbedder()
        start = time.perf_counter()
        embedder.encode(texts)
        took = time.perf_counter() - start
        print(f"\nencoding {len(texts)} passages (all-MiniLM-L6-v2, CPU, batch 32): "
              f"{took:.1f} s, {len(texts) / took:.0f} passages/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
