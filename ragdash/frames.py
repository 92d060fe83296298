"""DataFrames at the edges: the core returns tuples of frozen row dataclasses, and the CLI
and the pages turn them into pandas tables here, for charts, ``st.dataframe`` and JSON.

Why: a core that returns dataclasses is typed, cheap to test and usable without pandas;
one conversion keeps the columns in the row type's field order, so a table's columns are
documented by its dataclass::

    >>> from ragdash.checks.robustness import RobustnessRow
    >>> frame([RobustnessRow("ocr", 0.1, "none", 3, 4)], RobustnessRow).columns.tolist()
    ['fault', 'rate', 'configuration', 'passed', 'total', 'pass_rate']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from typing import Any

import pandas as pd

__all__ = ["ablation_matrix", "columns_of", "frame", "metrics_table", "records"]


def columns_of(row_type: type) -> list[str]:
    """The column names of ``row_type``'s table: its fields, in order."""
    return [f.name for f in fields(row_type)]


def frame(rows: Iterable[Any], row_type: type) -> pd.DataFrame:
    """A table with one row per dataclass instance (an empty one keeps the columns).
    Fields typed ``int | None`` become pandas' nullable ``Int64``, so a missing count stays
    missing instead of turning the column into floats."""
    columns = columns_of(row_type)
    table = pd.DataFrame([[getattr(r, c) for c in columns] for r in rows], columns=columns)
    for f in fields(row_type):
        if str(f.type).replace(" ", "") in ("int|None", "Optional[int]"):
            table[f.name] = table[f.name].astype("Int64")
    return table


def records(rows: Iterable[Any]) -> list[dict[str, Any]]:
    """JSON-ready dicts of dataclass rows (enum members are strings already)."""
    return [{f.name: getattr(r, f.name) for f in fields(r)} for r in rows]


def ablation_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """Cases × configurations of an ablation table (:class:`~ragdash.checks.ablation.
    AblationRow` rows), each cell the diagnosis, rows and columns in first-seen order."""
    matrix = table.pivot(index="case", columns="configuration", values="diagnosis")
    order = list(table["configuration"].drop_duplicates())
    cases = list(table["case"].drop_duplicates())
    return matrix.loc[cases, order]


def metrics_table(rows: Iterable[Any]) -> pd.DataFrame:
    """Metrics rows (:class:`~ragdash.checks.runs.MetricsRow`) as a table whose columns are
    named as the README writes the metrics (``hit@k``, ``MRR``, …)."""
    from ragdash.checks.metrics import METRIC_NAMES
    from ragdash.checks.runs import MetricsRow

    names = ["hit_at_k", "recall_at_k_docs", "recall_at_k_evidence", "mrr", "ndcg_at_k"]
    return frame(rows, MetricsRow).rename(columns=dict(zip(names, METRIC_NAMES, strict=True)))
