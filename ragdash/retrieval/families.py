"""Version families: which documents are versions of one another, and how ranking uses it.

The seed's ``recency`` fix broke *every* score tie by date, so an unrelated newer document
beat an older one that happened to tie with it, and a case could pass "because the expected
document happens to be newer". Here dates only decide between versions of one document:

* **recency** — within a group of passages with the same (non-zero) score, the passages of
  one *family* swap places so the newest version comes first; every other passage keeps its
  place. A family joins documents the stale-version detector pairs
  (:func:`ragdash.retrieval.versions.find_version_pairs`), documents with the same id once dates
  and version numbers are removed (``returns-2024``/``returns-2026``), and documents with the
  same subject once dates and versions are removed.
* **versions** — the older of a *detected* pair ranks below the newer one whenever the newer
  one matches the query at all, even when both are ``current`` and the old wording scores
  higher: their passages swap places among the slots the pair holds. Only detected pairs
  count (same subject or id *and* mostly the same words), so two documents that merely share
  a subject are never demoted.

"Newer" is a current document over a withdrawn one (a rolled-back 2025 version marked
withdrawn never outranks the current 2024 one), then the later update date (undated counts as
the oldest). Passages that score nothing are never
moved: a query that matches nothing ranks nothing, whatever the dates. And a query that names
an older version — a year or version number of its id, subject or update date that the newest
version does not have (``2023 remote work policy``) — asks for that version: its family is
left as scored.

Example: ``policy-2023`` (score 3, first) and ``policy-2025`` (score 2, third) with an
unrelated ``faq`` (score 2, second): with ``versions`` the order is ``policy-2025``,
``faq``, ``policy-2023`` — the new policy takes the old one's slot, ``faq`` stays second.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from ragdash.ingestion.documents import Corpus, Document, Passage
from ragdash.retrieval.versions import VersionPair, find_version_pairs, name_pieces, strip_versions
from ragdash.settings import FIX_TITLES
from ragdash.text import tokenize

__all__ = [
    "VersionFamilies",
    "families_of",
    "newness",
    "patch_families",
    "reorder",
    "version_markers",
]


def newness(passage: Passage) -> tuple[int, int]:
    """Sort key, larger is newer: a current version before a withdrawn one (a withdrawn
    2025 version that was rolled back never outranks the current 2024 one), then the update
    date (undated oldest)."""
    return (passage.status != "withdrawn", (passage.updated or date.min).toordinal())


class _Union:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


@dataclass(frozen=True)
class VersionFamilies:
    """Per document id, its recency family and its detected-pair family (an id of the family;
    a document alone in its family is absent), and the detected pairs themselves."""

    pairs: tuple[VersionPair, ...] = ()
    recency_family: dict[str, str] = field(default_factory=dict)
    pair_family: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.recency_family

    def pair_between(self, a: str, b: str) -> VersionPair | None:
        """The detected pair of documents ``a`` and ``b`` (in either order), if any."""
        for pair in self.pairs:
            if {pair.older_id, pair.newer_id} == {a, b}:
                return pair
        return None


def families_of(passages: Sequence[Passage]) -> VersionFamilies:
    """The version families of the documents behind ``passages`` (each document's text is
    its passages joined, so the reference scorer and the index, given the same passages,
    find the same families)."""
    texts: dict[str, list[str]] = {}
    first: dict[str, Passage] = {}
    for p in passages:
        texts.setdefault(p.doc_id, []).append(p.text)
        first.setdefault(p.doc_id, p)
    if len(first) < 2:
        return VersionFamilies()
    documents = tuple(
        Document(doc_id, p.subject or doc_id, p.updated, p.status, "", "text",
                 ("\n".join(texts[doc_id]),), p.order)
        for doc_id, p in first.items()
    )
    pairs = tuple(find_version_pairs(Corpus(documents)))
    by_pair, by_name = _Union(), _Union()
    for pair in pairs:
        by_pair.join(pair.older_id, pair.newer_id)
        by_name.join(pair.older_id, pair.newer_id)
    for key in (_stem_key, _subject_key):
        groups: dict[str, str] = {}
        for doc in documents:
            k = key(doc)
            if k:
                by_name.join(groups.setdefault(k, doc.doc_id), doc.doc_id)
    return VersionFamilies(pairs, _families(by_name), _families(by_pair))


def patch_families(
    clean: VersionFamilies,
    pairs: Sequence[VersionPair],
    present: Collection[str],
    changed: Collection[str],
    name_keys: Callable[[str], tuple[str, str]],
    named: Mapping[tuple[int, str], Sequence[str]],
) -> VersionFamilies:
    """The families :func:`families_of` finds for a corpus that is ``clean``'s but for the
    documents ``changed`` (and with only the documents ``present``), given its detected
    ``pairs``. Why: a faulted variant changes a few documents of thousands, and a family that
    holds no changed or missing document is the clean one — only the families those
    documents touch are joined again, a whole clean family standing in as one member (a
    family's id is its smallest document id, whatever order they were joined in).
    ``name_keys(doc)`` gives a document's (id stem, subject) keys in this corpus and
    ``named[(0 or 1, key)]`` the clean documents with that stem or subject key.

        >>> clean = VersionFamilies((), {"a-2023": "a-2023", "a-2024": "a-2023"}, {})
        >>> keys = {"a-2023": ("id:a", ""), "a-2024": ("id:a", ""), "a-2025": ("id:a", "")}
        >>> named = {(0, "id:a"): ["a-2023", "a-2024"]}
        >>> patch_families(clean, (), set(keys), {"a-2025"}, keys.get, named).recency_family
        {'a-2023': 'a-2023', 'a-2024': 'a-2023', 'a-2025': 'a-2023'}
    """
    changed = set(changed)
    gone = changed | {d for d in clean.recency_family if d not in present}
    new_keys = {d: name_keys(d) for d in changed if d in present}

    def patch(fam: Mapping[str, str], with_names: bool) -> dict[str, str]:
        members: dict[str, list[str]] = {}
        for d, r in fam.items():
            members.setdefault(r, []).append(d)
        dirty = {fam[d] for d in gone if d in fam}
        loose = {d for r in dirty for d in members[r] if d in present}
        loose |= {d for d in changed if d in present}

        def node(d: str) -> str:
            return d if d in loose else fam.get(d, d)

        union = _Union()
        for d in sorted(loose):
            union.find(d)
        for pair in pairs:
            if pair.older_id in loose or pair.newer_id in loose:
                union.join(node(pair.older_id), node(pair.newer_id))
        if with_names:
            joined: set[tuple[int, str]] = set()  # each key's documents are joined once
            for d in sorted(loose):
                keys = new_keys[d] if d in changed else name_keys(d)
                for slot, k in enumerate(keys):
                    if not k or (slot, k) in joined:
                        continue
                    joined.add((slot, k))
                    for other in named.get((slot, k), ()):
                        if other in present and other not in changed:
                            union.join(d, node(other))
                    for other, theirs in new_keys.items():
                        if theirs[slot] == k:
                            union.join(d, node(other))
        out = {d: r for d, r in fam.items() if r not in dirty}
        groups: dict[str, list[str]] = {}
        for n in list(union.parent):
            groups.setdefault(union.find(n), []).extend([n] if n in loose else members.get(n, [n]))
        for root, docs in groups.items():
            if len(docs) > 1:
                out.update(dict.fromkeys(docs, root))
        return out

    return VersionFamilies(
        tuple(pairs), patch(clean.recency_family, True), patch(clean.pair_family, False)
    )


def _stem_key(doc: Document) -> str:
    stem = strip_versions(doc.doc_id)
    return f"id:{stem}" if stem and stem != doc.doc_id.lower() else ""


def _subject_key(doc: Document) -> str:
    if doc.subject == doc.doc_id:
        return ""  # no subject given: the id stands in for it (see _stem_key)
    pieces = name_pieces(doc.subject)
    return f"subject:{' '.join(pieces)}" if pieces else ""


def _families(union: _Union) -> dict[str, str]:
    members: dict[str, list[str]] = {}
    for doc_id in list(union.parent):
        members.setdefault(union.find(doc_id), []).append(doc_id)
    return {d: root for root, docs in members.items() if len(docs) > 1 for d in docs}


def version_markers(passage: Passage) -> frozenset[str]:
    """The tokens that name this version: numbers in its id and subject (``2023``, ``v2`` →
    ``2``) and its update year."""
    found = {t for t in tokenize(f"{passage.doc_id} {passage.subject}") if t.isdigit()}
    found |= {m.group() for m in _VERSION_NUMBER.finditer(f"{passage.doc_id} {passage.subject}")}
    if passage.updated:
        found.add(str(passage.updated.year))
    return frozenset(found)


_VERSION_NUMBER = re.compile(r"(?<![a-z0-9])v\d+(?![0-9])", re.IGNORECASE)


def reorder(
    ids: list[int],
    passages: Sequence[Passage],
    score: Callable[[int], float],
    families: VersionFamilies,
    recency: bool,
    versions: bool,
    query_tokens: Collection[str] = (),
) -> tuple[list[int], dict[int, str]]:
    """``ids`` (passage indices, already sorted by score then list order) with ``versions``
    and then ``recency`` applied (see the module docstring), and for each moved passage the
    reason in words. A family whose older version the query names (``query_tokens``) is
    left as it is."""
    if families.empty or not (recency or versions):
        return ids, {}
    ids = list(ids)
    reasons: dict[int, str] = {}
    asked = frozenset(query_tokens)
    scoring = [i for i, pid in enumerate(ids) if score(pid) > 0]
    if versions and families.pair_family:
        slots_by_family: dict[str, list[int]] = {}
        for slot in scoring:
            fam = families.pair_family.get(passages[ids[slot]].doc_id)
            if fam is not None:
                slots_by_family.setdefault(fam, []).append(slot)
        for slots in slots_by_family.values():
            if not _names_an_older_version(ids, slots, passages, asked):
                _rearrange(ids, slots, passages, reasons, families, "versions")
    if recency:
        groups: dict[tuple[float, str], list[int]] = {}
        for slot in scoring:
            p = passages[ids[slot]]
            fam = families.recency_family.get(p.doc_id)
            if fam is not None:
                groups.setdefault((score(ids[slot]), fam), []).append(slot)
        for slots in groups.values():
            if not _names_an_older_version(ids, slots, passages, asked):
                _rearrange(ids, slots, passages, reasons, families, "recency")
    return ids, reasons


def _names_an_older_version(
    ids: list[int], slots: list[int], passages: Sequence[Passage], asked: frozenset[str]
) -> bool:
    """True if the query names a year or version of an older member that the newest member
    does not have: the user asked for that version."""
    if not asked:
        return False
    members = [passages[ids[s]] for s in slots]
    newest = max(members, key=newness)
    newest_markers = version_markers(newest)
    return any(
        asked & (version_markers(p) - newest_markers) for p in members if p.doc_id != newest.doc_id
    )


def _rearrange(
    ids: list[int],
    slots: list[int],
    passages: Sequence[Passage],
    reasons: dict[int, str],
    families: VersionFamilies,
    fix: str,
) -> None:
    """Put the passages in ``slots`` newest document first (stable), noting who moved."""
    if len({passages[ids[s]].doc_id for s in slots}) < 2:
        return
    before = [ids[s] for s in slots]
    after = sorted(before, key=lambda pid: _rank(newness(passages[pid])))
    if after == before:
        return
    for s, pid in zip(slots, after, strict=True):
        ids[s] = pid
    for old_slot, pid in enumerate(before):
        new_slot = after.index(pid)
        if new_slot >= old_slot:
            continue
        # It moved up: name the older version it now ranks above.
        passed = next(
            (q for q in before[new_slot:old_slot] if passages[q].doc_id != passages[pid].doc_id),
            None,
        )
        if passed is None:
            continue
        reasons[pid] = _reason(passages[pid], passages[passed], families, fix)


def _rank(key: tuple[int, int]) -> tuple[int, int]:
    """Newest first, for a stable ascending sort."""
    return (-key[0], -key[1])


def _reason(new: Passage, old: Passage, families: VersionFamilies, fix: str) -> str:
    when_new = new.updated.isoformat() if new.updated else "undated"
    when_old = old.updated.isoformat() if old.updated else "undated"
    pair = families.pair_between(new.doc_id, old.doc_id)
    if fix == "versions":
        why = pair.sentence if pair else f"{old.doc_id} and {new.doc_id} are detected versions"
        return (
            f"{FIX_TITLES['versions']}: {new.doc_id} ({when_new}) ranks above its older version "
            f"{old.doc_id} ({when_old}) — {why}"
        )
    how = "detected version pair" if pair else "same id or subject once dates are removed"
    return (
        f"{FIX_TITLES['recency']}: same score, the newest version first — {new.doc_id} "
        f"({when_new}) ranks above {old.doc_id} ({when_old}), a version of the same document "
        f"({how})"
    )
