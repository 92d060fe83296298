"""The Documents page's rewrite budget: what the OCR fix would rewrite in this corpus, each
rewrite with its evidence, and the damaged-looking tokens it keeps (codes, ambiguous ones)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ragdash.checks.rewrites import rewrite_budget
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes
from ragdash.ui.render import wrapped_table
from ragdash.ui.text import label, literal

__all__ = ["render_rewrite_budget"]


def render_rewrite_budget(index: CorpusIndex, fixes: Fixes) -> None:
    """An expander listing every OCR rewrite and every kept candidate, under ``fixes``."""
    budget = rewrite_budget(index, fixes)
    if not budget.rewrites and not budget.kept:
        return
    # plain words (it read "OCR rewrite budget: … (0.0%); 191 kept")
    kept = len(budget.kept)
    title = (
        f"OCR fix rewrites {len(budget.rewrites):d} of {budget.tokens:,} different words "
        f"({budget.share:.1%}) and leaves {kept:d} damaged-looking word{'s' if kept != 1 else ''}"
        " as they are"
    )
    with st.expander(label(title)):
        st.caption(
            "Each token the OCR fix rewrites, and the evidence: the repaired word is used "
            "elsewhere in the corpus. Codes, tokens several documents use as they are, "
            "ambiguous readings and the protected list are kept."
        )
        if budget.rewrites:
            rows = [{"token": r.raw, "read as": r.word, "why": r.note} for r in budget.rewrites]
            wrapped_table(pd.DataFrame(rows), "Tokens the OCR fix rewrites")
        if budget.kept:
            wrapped_table(
                pd.DataFrame([{"token": t, "kept because": why} for t, why in budget.kept]),
                "Tokens the OCR fix keeps",
            )
        if budget.note:
            st.caption(literal(budget.note))
