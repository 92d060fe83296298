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
    k: int,
    arrays: FamilyArrays,
    units: np.ndarray,
    passages: Sequence[Passage],
    families: VersionFamilies,
    recency: bool,
    versions: bool,
) -> tuple[np.ndarray, dict[int, str]]:
    """The first ``k`` scoring passages after the versions and recency moves, and why each
    moved. ``ids`` are the scoring passages (any order) and ``key`` their place keys
    (unique; smaller ranks higher)."""
    count = min(k, len(ids))
    if count <= 0:
        return ids[:0], {}
    # Each passage's place key (new_key), starting from where scoring puts it.
    place = np.empty(len(units), dtype=np.int64)  # only entries of ``ids`` are meaningful
    place[ids] = key
    part = np.argpartition(key, count - 1)[:count] if count < len(ids) else np.arange(len(ids))
    limit = int(key[part].max())  # the k-th place
    top_places = np.sort(key[part])
    reasons: dict[int, str] = {}
    pair_moves: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    if versions and families.pair_family:
        paired = ids[arrays.pair[ids] >= 0]
        if len(paired):
            fam = arrays.pair[paired]
            before = paired[np.lexsort((key_of(place, paired), fam))]
            after = paired[np.lexsort((key_of(place, paired), -arrays.newness[paired], fam))]
            old = place[before].copy()
            place[after] = old
            for f in np.unique(fam).tolist():
                sel = arrays.pair[before] == f
                pair_moves[f] = (before[sel], after[sel])
    # Who holds the first ``count`` places now.
    holders = _holders(top_places, ids, place, limit)
    if recency:
        holders = _recency(holders, top_places, ids, place, limit, arrays, units, passages,
                           families, reasons)  # fmt: skip
    # Versions reasons (recency's, set above, win as in the full reorder).
    for pid in holders.tolist():
        f = int(arrays.pair[pid])
        if f < 0 or f not in pair_moves or pid in reasons:
            continue
        before, after = pair_moves[f]
        why = _moved_up(pid, before.tolist(), after.tolist(), passages, families, "versions")
        if why:
            reasons[pid] = why
    return holders, {pid: reasons[pid] for pid in holders.tolist() if pid in reasons}


def key_of(place: np.ndarray, pids: np.ndarray) -> np.ndarray:
    return place[pids]


def _holders(top_places: np.ndarray, ids: np.ndarray, place: np.ndarray, limit: int) -> np.ndarray:
    """The passages whose place is among ``top_places``, in place order."""
    inside = ids[place[ids] <= limit]
    return inside[np.argsort(place[inside])]


def _recency(
    holders: np.ndarray,
    top_places: np.ndarray,
    ids: np.ndarray,
    place: np.ndarray,
    limit: int,
    arrays: FamilyArrays,
    units: np.ndarray,
    passages: Sequence[Passage],
    families: VersionFamilies,
    reasons: dict[int, str],
) -> np.ndarray:
    """Newest first within each (score, recency family) group holding a top place."""
    groups = {
        (int(units[pid]), int(arrays.recency[pid]))
        for pid in holders.tolist()
        if arrays.recency[pid] >= 0
    }
    if not groups:
        return holders
    result = holders.copy()
    slot_of = {int(p): i for i, p in enumerate(top_places.tolist())}
    in_family: dict[int, np.ndarray] = {}
    for score, fam in sorted(groups):
        if fam not in in_family:
            in_family[fam] = ids[arrays.recency[ids] == fam]
        members = in_family[fam]
        members = members[units[members] == score]
        places = place[members]
        top = np.sort(places[places <= limit])  # the group's places among the first k
        m = len(top)
        newest = _newest(members, places, arrays.newness[members], m)
        for slot_place, pid in zip(top.tolist(), newest.tolist(), strict=True):
            result[slot_of[slot_place]] = pid
        docs = arrays.doc[members]
        for j, pid in enumerate(newest.tolist()):
            mine = place[pid]
            if int(np.count_nonzero(places < mine)) <= j:
                continue  # it did not move up
            # The first member, in place order, from the j-th place up to where it was,
            # of another document: the older version it now ranks above.
            between = (places >= top[j]) & (places < mine) & (docs != arrays.doc[pid])
            if between.any():
                passed = int(members[between][np.argmin(places[between])])
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
