"""The first ``k`` of a ranking with the ``versions`` and ``recency`` fixes, without ordering
the rest.

:func:`ragdash.retrieval.families.reorder` moves versions of one document among the places
they hold, so the plain way is to sort every matching passage and then reorder the whole
list — a full pass in Python over every match, per query (at 10,000 passages most of an
all-fixes query). Only two kinds of move can change the first ``k`` places:

* **versions** permutes the passages of a detected pair family among the family's places:
  a place in the first ``k`` gets the family's *i*-th newest member. Pair families are few
  and small, so every family with a matching member is worked out (vectorized).
* **recency** permutes, among the places held by passages of one score and one recency
  family, newest first. Only the groups holding a place in the first ``k`` matter, and of
  each only its ``m`` newest members (``m`` = the group's places in the first ``k``): a
  partial selection (``np.partition``), never a sort of the group.

Places are compared by a *key* (``-score × N + tie rank``), so no array of places is ever
built. The result — passage ids and the reasons of those that moved — equals the first ``k``
of the full reorder; the index falls back to the full reorder when a query names a version
(a number or ``v2``: :func:`ragdash.retrieval.families.reorder` then leaves that family as
scored, which needs every member's markers).

Example: ``policy-2023`` (score 3) and ``policy-2025`` (score 2), a detected pair, with
``faq`` (score 2, listed first): keys put ``policy-2023`` first, then ``faq``, then
``policy-2025``; for ``k = 1`` the pair family's first place goes to its newest member, so
the answer is ``[policy-2025]`` without looking at ``faq``'s place at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragdash.ingestion.documents import Passage
from ragdash.retrieval.families import VersionFamilies, _reason, newness

__all__ = ["FamilyArrays", "names_a_version", "top_moving"]

_VERSION_LIKE = re.compile(r"v\d+", re.IGNORECASE)


def names_a_version(tokens: Sequence[str]) -> bool:
    """True if a query token could name a version (all digits, or ``v`` and digits): then
    the fast path does not apply (the full reorder checks each family's markers)."""
    return any(t.isdigit() or _VERSION_LIKE.fullmatch(t) for t in tokens)


@dataclass(frozen=True, eq=False)
class FamilyArrays:
    """Per passage: its pair family and recency family as numbers (-1: none), its document
    number, and how new it is as one integer (larger is newer, as :func:`newness`)."""

    pair: np.ndarray
    recency: np.ndarray
    newness: np.ndarray
    doc: np.ndarray

    @classmethod
    def build(
        cls, passages: Sequence[Passage], families: VersionFamilies, doc: np.ndarray
    ) -> FamilyArrays:
        def numbers(mapping: dict[str, str]) -> np.ndarray:
            ids: dict[str, int] = {}
            return np.fromiter(
                (
                    ids.setdefault(mapping[p.doc_id], len(ids)) if p.doc_id in mapping else -1
                    for p in passages
                ),
                dtype=np.int64,
                count=len(passages),
            )

        new = np.fromiter(
            (a * 10_000_000 + b for a, b in map(newness, passages)),
            dtype=np.int64,
            count=len(passages),
        )
        return cls(numbers(families.pair_family), numbers(families.recency_family), new, doc)


def top_moving(
    key: np.ndarray,
    ids: np.ndarray,
    vals: np.ndarray,
    k: int,
    arrays: FamilyArrays,
    passages: Sequence[Passage],
    families: VersionFamilies,
    recency: bool,
    versions: bool,
) -> tuple[np.ndarray, dict[int, str]]:
    """The first ``k`` scoring passages after the versions and recency moves, and why each
    moved. ``ids`` are the scoring passages, ``vals`` their scores and ``key`` their place
    keys (unique; smaller ranks higher), all aligned: the work is done on positions in
    ``ids``, never on arrays as long as the corpus."""
    count = min(k, len(ids))
    if count <= 0:
        return ids[:0], {}
    place = key.copy()  # each position's place, after the moves
    part = np.argpartition(key, count - 1)[:count] if count < len(ids) else np.arange(len(ids))
    limit = int(key[part].max())  # the k-th place
    top_places = np.sort(key[part])
    reasons: dict[int, str] = {}
    pair_moves: dict[int, tuple[list[int], list[int]]] = {}
    pair = arrays.pair[ids]
    if versions and families.pair_family:
        paired = np.flatnonzero(pair >= 0)
        if len(paired):
            fam = pair[paired]
            new = arrays.newness[ids[paired]]
            before = paired[np.lexsort((place[paired], fam))]
            after = paired[np.lexsort((place[paired], -new, fam))]
            place[after] = place[before].copy()
            fam_before = pair[before]
            for f in np.unique(fam).tolist():
                sel = fam_before == f
                pair_moves[f] = (ids[before[sel]].tolist(), ids[after[sel]].tolist())
    inside = np.flatnonzero(place <= limit)
    holders = inside[np.argsort(place[inside])]  # positions holding the first places
    if recency:
        holders = _recency(holders, top_places, ids, vals, place, limit, arrays, passages,
                           families, reasons)  # fmt: skip
    out = ids[holders]
    # Versions reasons (recency's, set above, win as in the full reorder).
    for pid, f in zip(out.tolist(), pair[holders].tolist(), strict=True):
        if f < 0 or f not in pair_moves or pid in reasons:
            continue
        before_ids, after_ids = pair_moves[f]
        why = _moved_up(pid, before_ids, after_ids, passages, families, "versions")
        if why:
            reasons[pid] = why
    return out, {pid: reasons[pid] for pid in out.tolist() if pid in reasons}


def _recency(
    holders: np.ndarray,
    top_places: np.ndarray,
    ids: np.ndarray,
    vals: np.ndarray,
    place: np.ndarray,
    limit: int,
    arrays: FamilyArrays,
    passages: Sequence[Passage],
    families: VersionFamilies,
    reasons: dict[int, str],
) -> np.ndarray:
    """Newest first within each (score, recency family) group holding a top place
    (positions in, positions out)."""
    rec = arrays.recency[ids]
    groups = {
        (int(vals[h]), int(rec[h])) for h in holders.tolist() if rec[h] >= 0
    }
    if not groups:
        return holders
    result = holders.copy()
    slot_of = {int(p): i for i, p in enumerate(top_places.tolist())}
    in_family: dict[int, np.ndarray] = {}
    for score, fam in sorted(groups):
        if fam not in in_family:
            in_family[fam] = np.flatnonzero(rec == fam)
        members = in_family[fam]
        members = members[vals[members] == score]
        places = place[members]
        inside = places <= limit
        order = np.argsort(places[inside])
        top = places[inside][order]  # the group's places among the first k, in order
        top_members = members[inside][order]  # who held them before the move
        newest = _newest(members, places, arrays.newness[ids[members]], len(top))
        for slot_place, pos in zip(top.tolist(), newest.tolist(), strict=True):
            result[slot_of[slot_place]] = pos
        for j, pos in enumerate(newest.tolist()):
            mine = int(place[pos])
            old = int(np.searchsorted(top, mine)) if mine <= limit else len(members)
            if old <= j:
                continue  # it did not move up
            # The first member, in place order, from the j-th place up to where it was,
            # of another document: the older version it now ranks above.
            doc = arrays.doc[ids[pos]]
            passed = next(
                (int(ids[q]) for q in top_members[j:old].tolist() if arrays.doc[ids[q]] != doc),
                None,
            )
            if passed is None and mine > limit:  # past the first k: scan the group once
                between = (places > limit) & (places < mine) & (arrays.doc[ids[members]] != doc)
                if between.any():
                    passed = int(ids[members[between][np.argmin(places[between])]])
            if passed is not None:
                pid = int(ids[pos])
                reasons[pid] = _reason(passages[pid], passages[passed], families, "recency")
    return result


def _newest(members: np.ndarray, places: np.ndarray, new: np.ndarray, m: int) -> np.ndarray:
    """The ``m`` newest members, newest first, ties by place (a stable sort's order)."""
    if m >= len(members):
        chosen = np.arange(len(members))
    else:
        cut = np.partition(-new, m - 1)[m - 1]  # the m-th newest's (negated) newness
        sure = np.flatnonzero(-new < cut)
        tied = np.flatnonzero(-new == cut)
        need = m - len(sure)
        if need < len(tied):
            tied = tied[np.argpartition(places[tied], need - 1)[:need]]
        chosen = np.concatenate([sure, tied])
    chosen = chosen[np.lexsort((places[chosen], -new[chosen]))]
    return members[chosen]


def _moved_up(
    pid: int,
    before: list[int],
    after: list[int],
    passages: Sequence[Passage],
    families: VersionFamilies,
    fix: str,
) -> str:
    """The reason :func:`ragdash.retrieval.families.reorder` gives a passage that moved up
    within its group (empty if it did not)."""
    old, new = before.index(pid), after.index(pid)
    if new >= old:
        return ""
    doc = passages[pid].doc_id
    passed = next((q for q in before[new:old] if passages[q].doc_id != doc), None)
    return "" if passed is None else _reason(passages[pid], passages[passed], families, fix)
