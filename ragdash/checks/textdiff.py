"""Where two versions of a passage differ, word by word.

The Documents page listed passages before and after the tables fix as the first 60-odd
characters of each — the same running header on every row, so the rows all read alike and
the change was out of sight. :func:`change_summary` says in one line what was removed,
added or replaced and where; :func:`marked_chunks` splits both texts into runs that are the
same on both sides and runs that differ, for a side-by-side view with the differences
marked (the page escapes each run before marking it).

>>> change_summary("Plans\\nBasic | 10 GB\\nPro", "Plans\\nBasic | 10 GB")
'removed at the end «Pro»'
>>> change_summary("a b c", "a X c")
'after «a»: «b» → «X»'
>>> change_summary("same", "same")
'same text'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["TextChange", "change_summary", "marked_chunks", "text_changes"]

_WORDS = re.compile(r"\S+|\s+")
#: Longest run of text quoted in a summary, in characters (the rest is "…").
QUOTE = 60
#: Changes named in one summary line; more are counted ("and 3 more changes").
SHOWN = 3


@dataclass(frozen=True)
class TextChange:
    """One run that differs: ``kind`` is ``added``, ``removed`` or ``replaced``; ``where``
    says where it sits in the earlier text (``at the start``, ``at the end`` or
    ``after «…»`` with the words just before it)."""

    kind: str
    before: str
    after: str
    where: str


def _tokens(text: str) -> list[str]:
    return _WORDS.findall(text)


def _opcodes(before: str, after: str) -> tuple[list[str], list[str], list[tuple]]:
    a, b = _tokens(before), _tokens(after)
    return a, b, SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def _squash(text: str, limit: int = QUOTE) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def text_changes(before: str, after: str) -> list[TextChange]:
    """The runs of words that differ between ``before`` and ``after``, in order."""
    a, b, ops = _opcodes(before, after)
    found = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        removed, added = "".join(a[i1:i2]), "".join(b[j1:j2])
        if not removed.strip() and not added.strip():
            continue  # only whitespace moved
        if i1 == 0:
            where = "at the start"
        elif i2 == len(a) and j2 == len(b):
            where = "at the end"
        else:
            lead = " ".join("".join(a[:i1]).split()[-3:])
            where = f"after «{_squash(lead[-30:], 30)}»"
        kind = "replaced" if removed.strip() and added.strip() else (
            "removed" if removed.strip() else "added"
        )  # fmt: skip
        found.append(TextChange(kind, removed, added, where))
    return found


def change_summary(before: str | None, after: str | None) -> str:
    """One line saying how ``after`` differs from ``before`` (``None`` or empty: the
    passage is new, or gone)."""
    if not before and not after:
        return "no text"
    if not before:
        return f"new passage: «{_squash(after or '')}»"
    if not after:
        return f"passage gone: «{_squash(before)}»"
    changes = text_changes(before, after)
    if not changes:
        return "same text"
    parts = []
    for change in changes[:SHOWN]:
        if change.kind == "replaced":
            parts.append(f"{change.where}: «{_squash(change.before)}» → «{_squash(change.after)}»")
        elif change.kind == "removed":
            parts.append(f"removed {change.where} «{_squash(change.before)}»")
        else:
            parts.append(f"added {change.where} «{_squash(change.after)}»")
    more = len(changes) - SHOWN
    if more > 0:
        parts.append(f"and {more} more change{'s' if more > 1 else ''}")
    return "; ".join(parts)


def marked_chunks(
    before: str, after: str
) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Both texts as ``(run, differs)`` pairs: joined, each side is its text again.

    >>> marked_chunks("a b", "a c")
    ([('a ', False), ('b', True)], [('a ', False), ('c', True)])
    """
    a, b, ops = _opcodes(before, after)
    left: list[tuple[str, bool]] = []
    right: list[tuple[str, bool]] = []
    for tag, i1, i2, j1, j2 in ops:
        differs = tag != "equal"
        if i2 > i1:
            left.append(("".join(a[i1:i2]), differs))
        if j2 > j1:
            right.append(("".join(b[j1:j2]), differs))
    return left, right
