"""Ablation: every case under baseline, each fix alone, all fixes, and all but each."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

from ragdash.case import Case
from ragdash.checks.proof import ProofCheck, check_case
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_NAMES, Fixes

__all__ = ["ABLATION_COLUMNS", "AblationRow", "ablation_row", "configurations", "run_ablation"]

BASELINE, ALL = "none", "all"


def configurations(base: Fixes | None = None) -> dict[str, Fixes]:
    """Named fix sets, in display order: ``none``, each fix alone, ``all``, ``all-but-X``.

    Settings (fuzzy threshold, OCR map) come from ``base``; which fixes are on does not.
    """
    base = base or Fixes()
    configs = {BASELINE: base.with_only(())}
    configs.update({name: base.with_only([name]) for name in FIX_NAMES})
    configs[ALL] = base.with_only(FIX_NAMES)
    configs.update(
        {f"all-but-{name}": base.with_only(n for n in FIX_NAMES if n != name) for name in FIX_NAMES}
    )
    return configs


def run_ablation(
    index: CorpusIndex,
    cases: Sequence[Case],
    base: Fixes | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[AblationRow, ...]:
    """One row per (case, configuration): verdict, diagnosis, first ID, missing evidence."""
    configs = configurations(base)
    rows = []
    total = max(len(cases) * len(configs), 1)
    for c, case in enumerate(cases):
        for k, (label, fixes) in enumerate(configs.items()):
            if progress:
                progress((c * len(configs) + k) / total, f"{case.name} · {label}")
            rows.append(ablation_row(label, check_case(index, case, fixes)))
    return tuple(rows)


@dataclass(frozen=True)
class AblationRow:
    """One case under one named configuration."""

    case: str
    kind: str
    configuration: str
    passed: bool
    diagnosis: str
    first_id: str
    missing_evidence: str  # "; "-joined


ABLATION_COLUMNS = [f.name for f in fields(AblationRow)]


def ablation_row(label: str, check: ProofCheck) -> AblationRow:
    return AblationRow(
        case=check.case.name,
        kind=check.case.kind,
        configuration=label,
        passed=check.passed,
        diagnosis=check.diagnosis.value,
        first_id=check.first_id or "",
        missing_evidence="; ".join(check.missing_evidence),
    )
