"""Ablation and fragility over a large case library in several processes (``--jobs N``).

Why processes: the checks are pure Python and CPU-bound, so threads would share one core
through the GIL. Each case is independent of the others — an ablation row depends on the
case and the configuration only, and every fragility search seeds its own random generator
from ``seed`` — so the library is cut into contiguous chunks of cases, each chunk runs in a
worker exactly as it would alone, and the chunks' rows are put back in case order: the
result is the same tuple ``jobs=1`` gives, row for row.

Where the operating system forks (Linux), workers inherit the already-built index (no copy
is made until a page is written); elsewhere each worker rebuilds it from the corpus once.

Example: 1,000 cases with ``jobs=4`` become 16 chunks of 62-63 cases; the pool runs four at
a time and the rows come back in the order of the 1,000 cases::

    >>> chunks(list(range(10)), 3)
    [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from ragdash.case import Case
from ragdash.checks.ablation import AblationRow, run_ablation
from ragdash.checks.fragility import FragilityRow, fragility_table
from ragdash.ingestion.documents import Corpus
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes

__all__ = ["MAX_JOBS", "chunks", "parallel_ablation", "parallel_fragility", "parse_jobs"]

#: Most worker processes ``--jobs`` accepts (more only adds start-up cost and memory).
MAX_JOBS = 64
#: Chunks per worker: small enough that one slow chunk does not leave the others idle.
CHUNKS_PER_JOB = 4

T = TypeVar("T")

_INDEX: CorpusIndex | None = None


def parse_jobs(text: str) -> int:
    """``--jobs``: a whole number from 1 to :data:`MAX_JOBS`, else a ``ValueError`` that
    says so.

    >>> parse_jobs("4")
    4
    >>> parse_jobs("0")
    Traceback (most recent call last):
    ...
    ValueError: --jobs must be a whole number from 1 to 64 (worker processes), got '0'
    """
    value = text.strip()
    if not value.isdigit() or not 1 <= int(value) <= MAX_JOBS:
        raise ValueError(
            f"--jobs must be a whole number from 1 to {MAX_JOBS} (worker processes), got {text!r}"
        )
    return int(value)


def chunks(items: Sequence[T], count: int) -> list[list[T]]:
    """``items`` cut into at most ``count`` contiguous chunks of near-equal size, in order."""
    count = max(1, min(count, len(items)))
    size, extra = divmod(len(items), count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return [c for c in out if c]


def _init(index: CorpusIndex | None, corpus: Corpus | None) -> None:
    global _INDEX
    _INDEX = index if index is not None else CorpusIndex(corpus)  # type: ignore[arg-type]


def _ablation_chunk(cases: list[Case], base: Fixes | None) -> tuple[AblationRow, ...]:
    assert _INDEX is not None
    return run_ablation(_INDEX, cases, base)


def _fragility_chunk(
    cases: list[Case], configurations: dict[str, Fixes], kinds: tuple[str, ...], options: dict
) -> tuple[FragilityRow, ...]:
    assert _INDEX is not None
    return fragility_table(_INDEX, cases, configurations, kinds, **options)


def _run(
    index: CorpusIndex,
    cases: Sequence[Case],
    jobs: int,
    work: Callable[..., tuple[T, ...]],
    *args: object,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[T, ...]:
    parts = chunks(list(cases), jobs * CHUNKS_PER_JOB)
    methods = multiprocessing.get_all_start_methods()
    fork = "fork" in methods and os.name == "posix"
    context = multiprocessing.get_context("fork" if fork else "spawn")
    initargs = (index, None) if fork else (None, index.corpus)
    rows: list[T] = []
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init,
                             initargs=initargs) as pool:  # fmt: skip
        futures = [pool.submit(work, part, *args) for part in parts]
        for done, future in enumerate(futures, start=1):
            rows.extend(future.result())  # in submission order: case order
            if progress:
                progress(done / len(futures), f"{done} of {len(futures)} chunks")
    return tuple(rows)


def parallel_ablation(
    index: CorpusIndex,
    cases: Sequence[Case],
    base: Fixes | None = None,
    jobs: int = 1,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[AblationRow, ...]:
    """:func:`ragdash.checks.ablation.run_ablation` in ``jobs`` processes, same rows."""
    if jobs <= 1 or len(cases) <= 1:
        return run_ablation(index, cases, base, progress)
    return _run(index, cases, jobs, _ablation_chunk, base, progress=progress)


def parallel_fragility(
    index: CorpusIndex,
    cases: Sequence[Case],
    configurations: Mapping[str, Fixes],
    kinds: Sequence[str],
    jobs: int = 1,
    **options: object,
) -> tuple[FragilityRow, ...]:
    """:func:`ragdash.checks.fragility.fragility_table` in ``jobs`` processes, same rows
    (``options``: ``seed``, ``max_edits``, ``beam``, ``max_evaluations``, ``sample``)."""
    if jobs <= 1 or len(cases) <= 1:
        return fragility_table(index, cases, configurations, kinds, **options)  # type: ignore[arg-type]
    return _run(index, cases, jobs, _fragility_chunk, dict(configurations), tuple(kinds), options)
