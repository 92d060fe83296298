"""The OCR fix's rewrite budget: every token of a corpus the fix rewrites, with its evidence,
and the damaged-looking tokens it keeps and why — a list a user can scan before trusting the
fix on their documents.

Why a budget: a fix that rewrites text silently can break what works (the seed turned
``sha1`` into ``shai`` and ``t1d`` into ``tid``). If the OCR fix rewrites 3 of 2,000 distinct
tokens and each rewrite reads ``0→o: 'contr0ller' → 'controller', 'controller' appears in 4
documents``, a user can check them in a minute; if it rewrites 300, something is wrong with
the map or the corpus::

    >>> budget = rewrite_budget(index, Fixes(ocr=True))          # doctest: +SKIP
    >>> budget.summary                                           # doctest: +SKIP
    'the OCR fix rewrites 1 of 64 distinct tokens (1.6%); 1 kept'
"""

from __future__ import annotations

from dataclasses import dataclass

from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ocr import Repair
from ragdash.retrieval.wordlist import word_list_note
from ragdash.settings import Fixes

__all__ = ["RewriteBudget", "rewrite_budget"]


@dataclass(frozen=True)
class RewriteBudget:
    """The OCR fix's rewrites of one corpus under some settings."""

    tokens: int  # distinct tokens the retriever sees
    rewrites: tuple[Repair, ...]  # sorted by raw token
    kept: tuple[tuple[str, str], ...]  # (token, why the fix leaves it alone)
    protected: tuple[str, ...]
    note: str | None = None  # the word list is missing, or None

    @property
    def share(self) -> float:
        return len(self.rewrites) / self.tokens if self.tokens else 0.0

    @property
    def summary(self) -> str:
        """``the OCR fix rewrites 2 of 120 distinct tokens (1.7%); 3 kept``."""
        return (
            f"the OCR fix rewrites {len(self.rewrites)} of {self.tokens} distinct tokens "
            f"({self.share:.1%}); {len(self.kept)} kept"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "tokens": self.tokens,
            "rewritten": len(self.rewrites),
            "rewrites": [
                {
                    "token": r.raw,
                    "word": r.word,
                    "changes": list(r.changes),
                    "support": r.support,
                    "source": r.source,
                    "evidence": r.note,
                }
                for r in self.rewrites
            ],
            "kept": [{"token": t, "why": why} for t, why in self.kept],
            "protected": list(self.protected),
            "note": self.note,
        }


def rewrite_budget(index: CorpusIndex, fixes: Fixes) -> RewriteBudget:
    """What the OCR fix rewrites in ``index``'s corpus under ``fixes``' map, protected list,
    tokenizer and tables/status settings (whether ``ocr`` itself is on does not matter: this
    says what turning it on would do). Rewrites only a query can support (a reading no
    document spells) are not counted: they show in a query's breakdown."""
    view = index.inverted(fixes.tables, fixes.unicode).view(fixes.status)
    table = view.repairs(fixes)
    return RewriteBudget(
        tokens=len(view.words),
        rewrites=tuple(table.repairs[raw] for raw in sorted(table.repairs)),
        kept=tuple(sorted(table.refused.items())),
        protected=fixes.protected,
        note=word_list_note(),
    )
