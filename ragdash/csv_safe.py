"""CSV that is safe to open in a spreadsheet: the one way ragdash writes every CSV export.

Document text, file names and case names are untrusted. A cell such as
``=HYPERLINK("http://evil.example/c","case")`` is a live formula once Excel or LibreOffice
opens the file (it can leak data or, with DDE, start programs). OWASP's rule for CSV
injection is applied to every cell: text starting with ``=``, ``+``, ``-``, ``@``, a tab or
a carriage return gets a leading ``'``, which spreadsheets show as text and do not
evaluate::

    >>> safe_cell('=HYPERLINK("http://evil.example/c","case")')
    '\\'=HYPERLINK("http://evil.example/c","case")'
    >>> safe_cell("-0.5"), safe_cell(-0.5), safe_cell(3), safe_cell("plans")
    ("'-0.5", -0.5, 3, 'plans')

Numbers stay numbers only when they *are* numbers (a Python or numpy number, not text that
looks like one), so a score of ``-0.5`` still sorts as a number while a document line
``-1+1`` is text. A program reading the CSV back gets the ``'`` too: exports meant for
machines are JSON (``ragdash passages`` writes JSON lines by default).
"""

from __future__ import annotations

import csv
import io
import numbers
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMULA_START", "csv_text", "escape_cell", "frame_csv", "safe_cell", "unescape_cell"]

#: What a spreadsheet reads as the start of a formula (OWASP, CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value`` as a cell: numbers, booleans and None unchanged, anything else as text with
    a ``'`` before a leading formula character."""
    if value is None or isinstance(value, (bool, numbers.Number)):
        return value
    if hasattr(value, "dtype") and getattr(value, "ndim", None) == 0:  # a numpy scalar
        kind = value.dtype.kind
        if kind in "biuf":
            return value
    text = value if isinstance(value, str) else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_text(
    rows: Iterable[Sequence[Any]], header: Sequence[str] | None = None, **dialect: Any
) -> str:
    """``rows`` (and ``header``) as CSV text, every cell through :func:`safe_cell`;
    ``dialect``: :func:`csv.writer`'s formatting options (e.g. ``lineterminator="\\n"``)."""
    out = io.StringIO()
    writer = csv.writer(out, **dialect)
    if header is not None:
        writer.writerow([safe_cell(h) for h in header])
    writer.writerows([safe_cell(v) for v in row] for row in rows)
    return out.getvalue()


def frame_csv(frame: pd.DataFrame) -> str:
    """A pandas table as CSV (no index), every text cell and column name made safe; number
    columns are written as pandas writes them."""
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype.kind not in "biufc":  # text, objects, dates, categories
            safe[column] = safe[column].map(safe_cell).astype(object)
    safe.columns = [safe_cell(str(c)) for c in safe.columns]
    return safe.to_csv(index=False)


def escape_cell(text: str) -> str:
    """``text`` made safe for a CSV ragdash also reads back (the workspace's
    ``metadata.csv``), undone exactly by :func:`unescape_cell`: a ``'`` goes before a formula
    character, and before a ``'`` that is followed by one or by another ``'``::

        >>> [escape_cell(t) for t in ("=1+1", "'=1+1", "'tis", "plain")]
        ["'=1+1", "''=1+1", "'tis", 'plain']
        >>> all(unescape_cell(escape_cell(t)) == t for t in ("=x", "'=x", "''", "'", "'a", ""))
        True
    """
    quoted = text[:1] == "'" and text[1:2] in (*FORMULA_START, "'") and text[1:2] != ""
    return "'" + text if text.startswith(FORMULA_START) or quoted else text


def unescape_cell(text: str) -> str:
    """The text :func:`escape_cell` was given."""
    if text[:1] == "'" and text[1:2] != "" and text[1:2] in (*FORMULA_START, "'"):
        return text[1:]
    return text
