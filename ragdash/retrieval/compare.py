"""Why results moved: comparing a ranking with no fixes to one with the current fixes, and
saying in words how a tie at the top was broken."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ragdash.retrieval.matching import MatchKind, TokenMatch
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import FIX_TITLES, Fixes

__all__ = ["Movement", "compare_rankings", "tie_explanation", "withdrawn_explanation"]


@dataclass(frozen=True)
class Movement:
    """One passage's place before and after the fixes, and the reason it moved."""

    label: str
    doc_id: str
    rank_before: int | None
    rank_after: int | None
    score_before: float | None
    score_after: float | None
    reason: str

    @property
    def change(self) -> str:
        if self.rank_before is None:
            return "new"
        if self.rank_after is None:
            return "gone"
        if self.rank_after < self.rank_before:
            return "up"
        return "down" if self.rank_after > self.rank_before else "same"


def _key(r: RankedPassage) -> tuple[str, str]:
    return (r.doc_id, r.passage.text)


def _describe(m: TokenMatch) -> str:
    if m.kind == MatchKind.FUZZY:
        return (
            f"'{m.query_token}' matches '{m.passage_token}' (fuzzy, similarity {m.similarity:.0f})"
        )
    if m.kind == MatchKind.OCR:
        return f"'{m.query_token}' matches '{m.passage_token}' after OCR repair ({m.note})"
    return f"'{m.query_token}' matches exactly"


def _token_changes(before: RankedPassage, after: RankedPassage) -> list[str]:
    old = {m.query_token: m for m in before.breakdown}
    changes = []
    for m in after.breakdown:
        prev = old.get(m.query_token)
        if prev is None or (prev.kind, prev.passage_token) != (m.kind, m.passage_token):
            changes.append(
                _describe(m) if m.kind != MatchKind.NONE else f"'{m.query_token}' no longer matches"
            )
    return changes


def tie_explanation(ranked: Sequence[RankedPassage], fixes: Fixes) -> str | None:
    """If the first two results tie on score, say what put the winner first (the version
    pair when the recency or versions fix did). A top that scores nothing is no tie: nothing
    matched, so there is no winner."""
    if ranked and ranked[0].moved and ranked[0].moved.startswith(FIX_TITLES["versions"]):
        return f"{ranked[0].doc_id} wins: {ranked[0].moved}"
    if len(ranked) < 2 or ranked[0].score != ranked[1].score or not ranked[0].matched:
        return None
    first, second = ranked[0], ranked[1]
    a, b = first.passage, second.passage
    score = f"same score {first.score:g}"
    if first.moved:
        date_a = a.updated.isoformat() if a.updated else "undated"
        date_b = b.updated.isoformat() if b.updated else "undated"
        return (
            f"{a.doc_id} wins over {b.doc_id}: {score}, updated {date_a} vs {date_b} "
            f"({first.moved})"
        )
    if a.doc_id == b.doc_id:
        return f"{a.label} wins over {b.label}: {score}, earlier in the document"
    why = "listed first"
    if a.updated and b.updated and a.updated < b.updated:
        why = f"listed first, although it is older ({a.updated} vs {b.updated})"
        if fixes.recency:
            why += "; recency orders only versions of one document, and these are not"
    return f"{a.doc_id} wins over {b.doc_id}: {score}, {why} (list order)"



def withdrawn_explanation(
    unfiltered: Sequence[RankedPassage], ranked: Sequence[RankedPassage], fixes: Fixes
) -> str | None:
    """With ``status`` on, say when a withdrawn document would have tied with or beaten the
    winner: ``unfiltered`` is the same query ranked with ``status`` off."""
    if not fixes.status or not unfiltered:
        return None
    rival = unfiltered[0].passage
    if rival.status != "withdrawn":
        return None
    rival_score = unfiltered[0].score
    if not ranked:
        return (
            f"{rival.doc_id} would come first (score {rival_score:g}) but is withdrawn "
            f"({FIX_TITLES['status']})"
        )
    winner = ranked[0]
    if rival_score < winner.score:
        return None
    how = "tie with" if rival_score == winner.score else "beat"
    return (
        f"{winner.doc_id} wins: {rival.doc_id} would {how} it (score {rival_score:g} vs "
        f"{winner.score:g}) but is withdrawn, so it is not retrieved ({FIX_TITLES['status']})"
    )

class _Lookup:
    """A ranking indexed for counterpart look-ups: by (document, text) and by document, so
    finding where a passage was costs a dict look-up (or a scan of one document's passages
    when the tables fix re-cut it), never a scan of the whole ranking."""

    def __init__(self, ranking: Sequence[RankedPassage]) -> None:
        self.by_key: dict[tuple[str, str], RankedPassage] = {}
        self.by_doc: dict[str, list[RankedPassage]] = defaultdict(list)
        for r in ranking:
            self.by_key.setdefault(_key(r), r)
            self.by_doc[r.doc_id].append(r)

    def counterpart(self, a: RankedPassage) -> RankedPassage | None:
        """The passage ``a`` was before the fixes: the same text, or — when the tables fix
        re-cut the document — the same document's passage on overlapping pages sharing most
        words."""
        same = self.by_key.get(_key(a))
        if same is not None:
            return same
        p = a.passage
        overlapping = [
            b
            for b in self.by_doc.get(a.doc_id, ())
            if b.passage.page_start <= p.page_end and p.page_start <= b.passage.page_end
        ]
        if not overlapping:
            return None
        return max(overlapping, key=lambda b: (len(b.passage.tokens & p.tokens), -b.rank))


def compare_rankings(
    before: Sequence[RankedPassage], after: Sequence[RankedPassage], top_k: int, fixes: Fixes
) -> list[Movement]:
    """Movements of every passage in either top-k, ordered by their new rank then old rank.

    Only what is shown is worked out: the after-side top-k, and for each before-side top-k
    passage the after-side passages that trace back to it. With the rankings indexed once
    (:class:`_Lookup`) that is linear in the rankings' length — on a 10,000-passage corpus
    the old pairwise scan took minutes per rerun."""
    back = _Lookup(before)
    ahead = _Lookup(after)
    shown: dict[int, RankedPassage] = {a.rank: a for a in after[:top_k]}
    b: RankedPassage | None  # before-side; below, the one an after-side passage traces back to
    for b in before[:top_k]:
        # after-side passages that trace back to b: all are passages of b's document
        for a in ahead.by_doc.get(b.doc_id, ()):
            if back.counterpart(a) is b:
                shown.setdefault(a.rank, a)
    movements = []
    claimed: set[tuple[str, str]] = set()
    for rank in sorted(shown):
        a = shown[rank]
        b = back.counterpart(a)
        if b is not None:
            claimed.add(_key(b))
        movements.append(
            Movement(
                a.passage.label,
                a.doc_id,
                b.rank if b else None,
                a.rank,
                b.score if b else None,
                a.score,
                _reason(b, a, fixes),
            )
        )
    for b in before[:top_k]:
        if _key(b) not in claimed:
            movements.append(
                Movement(
                    b.passage.label, b.doc_id, b.rank, None, b.score, None, _reason(b, None, fixes)
                )
            )
    return movements


def _reason(b: RankedPassage | None, a: RankedPassage | None, fixes: Fixes) -> str:
    if a is None and b is not None:
        if fixes.status and b.passage.status == "withdrawn":
            return f"withdrawn document: not retrieved with {FIX_TITLES['status']}"
        return "no longer retrieved"
    if b is None and a is not None:
        return "new passage"
    assert a is not None and b is not None
    recut = ""
    if a.passage.text != b.passage.text:
        recut = f"re-cut by the tables fix (was {b.passage.label}); "
    changes = _token_changes(b, a)
    if a.score != b.score:
        detail = "; ".join(changes) or "its text changed"
        return f"{recut}score {b.score:g} → {a.score:g}: {detail}"
    if a.rank == b.rank:
        return f"{recut}unchanged" if recut else "unchanged"
    if a.moved:
        return f"{recut}{a.moved}"
    return f"{recut}same score {a.score:g}; other passages moved around it"
