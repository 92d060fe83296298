"""``python -m benchmarks.stress``: how long ``ragdash stress`` takes on a large corpus.

The corpus is :mod:`benchmarks.bench`'s (standard-library docstrings cut into passages, one
document each, seeded dates, statuses and OCR damage); cases are generated from it
(:func:`ragdash.checks.generate.generate_cases`), then every fault is injected into every
case and run under ``none``, the targeted fix and ``all`` — for ``builtin`` and ``bm25``, with
``--jobs`` worker processes. The peer, measured in the same run on the same cases, is a
plain ``ablate`` (no fault, 15 configurations), so the ratio says what the fault injection
costs next to the check people already run. Not a test: nothing here asserts a timing.

    python -m benchmarks.stress --size 10000 --cases 100 --jobs 2
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Sequence

from benchmarks.bench import make_corpus
from benchmarks.texts import passage_texts
from ragdash.checks.generate import generate_cases
from ragdash.checks.parallel import parallel_ablation
from ragdash.checks.stress import FAULTS, run_stress
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.spec import retriever_kind, shown_kind

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stress", description=__doc__,
                                     allow_abbrev=False)
    parser.add_argument("--size", type=int, default=10_000, help="passages (default 10000)")
    parser.add_argument("--cases", type=int, default=100, help="generated cases (default 100)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--retrievers", default="builtin,bm25",
                        help="builtin (ragdash's own scorer; seed is read too), bm25 (default "
                        "builtin,bm25)")  # fmt: skip
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    corpus = make_corpus(passage_texts(args.size))
    index = CorpusIndex(corpus)
    index.inverted(False)
    t1 = time.perf_counter()
    cases = generate_cases(corpus, args.cases, seed=7, index=index)
    t2 = time.perf_counter()
    print(f"corpus: {len(index.passages()):,} passages, built in {t1 - t0:.1f} s; "
          f"{len(cases)} cases generated in {t2 - t1:.1f} s")  # fmt: skip
    start = time.perf_counter()
    parallel_ablation(index, cases, jobs=args.jobs)
    peer = time.perf_counter() - start
    print(f"peer: ablate (15 configurations, no fault), {args.jobs} jobs: {peer:.1f} s")
    for shown in args.retrievers.split(","):
        retriever = retriever_kind(shown)
        start, cpu = time.perf_counter(), _cpu()
        report = run_stress(corpus, cases, faults=FAULTS, seed=7, retrievers=(retriever,),
                            jobs=args.jobs, index=index)  # fmt: skip
        took, used = time.perf_counter() - start, _cpu() - cpu
        checks = len(report.results)
        totals = ", ".join(f"{f} {report.cell(f, 'none', retriever).total}" for f in report.faults)
        print(f"stress {shown_kind(retriever)}: {took:.1f} s for {checks} checks ({totals} "
              f"variants), {took / max(peer, 1e-9):.1f}x the ablate peer; {used:.1f} s of CPU "
              "(this process and its workers)")  # fmt: skip
    return 0


def _cpu() -> float:
    """CPU seconds of this process and its finished workers: on a shared machine the wall
    time says how busy the others were, the CPU time what the run itself cost."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


if __name__ == "__main__":
    raise SystemExit(main())
