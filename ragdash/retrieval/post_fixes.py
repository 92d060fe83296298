"""The ranking-side fixes (``status``, ``versions``, ``recency``) applied to any retriever's hits.

Why here, once: these three fixes need no access to a retriever's index, only to the corpus,
which ragdash always has. ``status`` knows which documents are withdrawn (metadata.csv);
``versions`` and ``recency`` know which documents are versions of one another
(:func:`ragdash.retrieval.families.families_of`). So whatever ranked the passages — ragdash's
BM25, a dense model, a hybrid, a team's HTTP service or Python function — the same step
repairs the ranking it returned:

* **status** — hits of withdrawn documents are dropped (the retrieval's notes say how many
  and whose);
* **versions** — among the hits, the older document of a *detected* version pair gives its
  place to the newer one (the passages of one family swap among the slots they hold; every
  other hit keeps its place), unless the query names the older version (``2023 policy``);
* **recency** — hits of one version family with *equal* scores are put newest first.

Each moved hit carries the reason in :attr:`RankedPassage.moved` (the run's breakdown shows
it), e.g. ``versions: returns-2026 (2026-…) ranks above its older version returns-2024 …``.

A retriever that should be repaired this way asks for :func:`fetch_depth` hits, not ``k``:
a withdrawn hit dropped or a newer version that ranked just below the cut-off must still be
there to take the freed place. The seed scorer and ``bm25`` apply the same fixes inside their
ranking (``status`` before scoring: withdrawn passages are not indexed; ``versions`` and
``recency`` through the same :func:`ragdash.retrieval.families.reorder`), so they do not run
this step again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ragdash.ingestion.documents import Passage
from ragdash.retrieval.families import VersionFamilies, reorder
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import Fixes

__all__ = ["EXTRA_DEPTH", "apply_post_fixes", "fetch_depth", "post_fixes_on"]

#: Extra hits asked of a retriever when a post-processing fix is on.
EXTRA_DEPTH = 10


def post_fixes_on(fixes: Fixes) -> bool:
    """True when a fix this step applies is on."""
    return fixes.status or fixes.versions or fixes.recency


def fetch_depth(k: int, fixes: Fixes) -> int:
    """How many hits to ask for to return ``k`` after this step (``k`` + :data:`EXTRA_DEPTH`
    when a post-processing fix is on)."""
    return k + EXTRA_DEPTH if k and post_fixes_on(fixes) else k


def apply_post_fixes(
    ranked: Sequence[RankedPassage],
    fixes: Fixes,
    families: VersionFamilies,
    query_tokens: Sequence[str] = (),
    k: int | None = None,
) -> tuple[tuple[RankedPassage, ...], tuple[str, ...]]:
    """``ranked`` (best first) with status/versions/recency applied as the module docstring
    says, renumbered and cut to ``k``; and the notes naming what changed."""
    notes: list[str] = []
    kept = list(ranked)
    if fixes.status:
        dropped = [r for r in kept if r.passage.status == "withdrawn"]
        if dropped:
            kept = [r for r in kept if r.passage.status != "withdrawn"]
            names = ", ".join(dict.fromkeys(r.doc_id for r in dropped))
            notes.append(f"status: {len(dropped)} hit(s) of withdrawn documents dropped ({names})")
    moved: dict[int, str] = {}
    if (fixes.versions or fixes.recency) and not families.empty and kept:
        passages: list[Passage] = [r.passage for r in kept]
        # Every returned hit counts as matching (score > 0 for reorder); equal scores stay
        # equal, so recency still acts only on ties.
        low = min(r.score for r in kept)
        shift = 1.0 - low if low <= 0 else 0.0
        order, reasons = reorder(
            list(range(len(kept))), passages, lambda i: kept[i].score + shift, families,
            fixes.recency, fixes.versions, query_tokens,
        )  # fmt: skip
        if reasons:
            notes.append(f"{'; '.join(dict.fromkeys(r.split(':', 1)[0] for r in reasons.values()))}"
                         f": {len(reasons)} hit(s) moved above an older version")
        moved = {new: reasons[i] for new, i in enumerate(order) if i in reasons}
        kept = [kept[i] for i in order]
    if k is not None:
        kept = kept[: max(k, 0)]
    out = tuple(
        replace(r, rank=n, moved=moved.get(n - 1, r.moved)) for n, r in enumerate(kept, start=1)
    )
    return out, tuple(notes)
