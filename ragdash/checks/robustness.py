"""Robustness sweep: corrupt every case's query at increasing noise rates (OCR misreads,
keyboard typos) and measure the pass rate under the baseline, each fix alone, and all fixes.

Each (case, fault, rate) is corrupted with ``seeds`` different seeds (the same seeds for
every configuration, so configurations see identical queries); rate 0 is the query as
written. A query that corruption makes unusable counts as a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace

from ragdash.case import Case
from ragdash.checks.ablation import ALL, BASELINE, configurations
from ragdash.checks.faults import QUERY_FAULTS, corrupt_query
from ragdash.checks.proof import check_case
from ragdash.errors import QueryError
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_NAMES, Fixes

__all__ = [
    "DEFAULT_RATES",
    "ROBUSTNESS_COLUMNS",
    "RobustnessRow",
    "noisy_queries",
    "robustness_sweep",
    "sweep_configurations",
]

DEFAULT_RATES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)


@dataclass(frozen=True)
class RobustnessRow:
    """Runs of one fault at one rate under one configuration: passed of total."""

    fault: str
    rate: float
    configuration: str
    passed: int
    total: int
    pass_rate: float = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pass_rate", self.passed / self.total if self.total else 0.0)


ROBUSTNESS_COLUMNS = [f.name for f in fields(RobustnessRow)]


def sweep_configurations(base: Fixes | None = None) -> dict[str, Fixes]:
    """Baseline, each fix alone, and all fixes (settings from ``base``)."""
    configs = configurations(base)
    return {label: configs[label] for label in (BASELINE, *FIX_NAMES, ALL)}


def noisy_queries(
    query: str, fault: str, rate: float, seeds: int, seed: int = 0
) -> tuple[str, ...]:
    """The corrupted versions of ``query`` the sweep runs (one per seed; one at rate 0)."""
    if rate <= 0:
        return (query,)
    return tuple(corrupt_query(query, fault, rate, seed + n) for n in range(seeds))


def robustness_sweep(
    index: CorpusIndex,
    cases: Sequence[Case],
    rates: Sequence[float] = DEFAULT_RATES,
    faults: Sequence[str] = QUERY_FAULTS,
    configs: Mapping[str, Fixes] | None = None,
    seeds: int = 3,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[RobustnessRow, ...]:
    """One row per (fault, rate, configuration): passed runs, total runs, pass rate."""
    configs = dict(configs) if configs is not None else sweep_configurations()
    rows = []
    steps = max(len(faults) * len(rates), 1)
    for f, fault in enumerate(faults):
        for r, rate in enumerate(rates):
            if progress:
                progress((f * len(rates) + r) / steps, f"{fault} at rate {rate:g}")
            variants = [
                (case, query)
                for c, case in enumerate(cases)
                for query in noisy_queries(case.query, fault, rate, seeds, seed + 100 * c)
            ]
            for label, fixes in configs.items():
                passed = sum(_passes(index, case, query, fixes) for case, query in variants)
                rows.append(RobustnessRow(fault, float(rate), label, passed, len(variants)))
    if progress:
        progress(1.0, "done")
    return tuple(rows)


def _passes(index: CorpusIndex, case: Case, query: str, fixes: Fixes) -> bool:
    try:
        return check_case(index, _with_query(case, query), fixes).passed
    except QueryError:
        return False


def _with_query(case: Case, query: str) -> Case:
    return case if query == case.query else replace(case, query=query)
