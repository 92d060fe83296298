"""The ingestion diff of one document: what the ``tables`` fix changes in its passages, and
whether each case's evidence can be found inside a single passage with the fix off and on.

A proof check passes only if the evidence is in the text sent to the model; with ``top_k``
1 that is one passage. So evidence split across two passages (a table row cut by a page
break) is not findable, however well the document ranks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

from ragdash.case import Case
from ragdash.checks.proof import collapse
from ragdash.ingestion.documents import Passage
from ragdash.retrieval.index import CorpusIndex

__all__ = [
    "BECAME_FINDABLE",
    "EITHER_WAY",
    "EvidenceFinding",
    "LOST",
    "NOT_FINDABLE",
    "PASSAGE_DIFF_COLUMNS",
    "PassageChange",
    "evidence_findability",
    "passage_diff",
]

BECAME_FINDABLE = "became findable"
LOST = "lost"
EITHER_WAY = "findable either way"
NOT_FINDABLE = "not findable"



@dataclass(frozen=True)
class PassageChange:
    """One row of :func:`passage_diff`: a passage before and after the tables fix."""

    before_label: str
    before_text: str
    after_label: str
    after_text: str
    change: str
    also_from: str
    shared_words: int


PASSAGE_DIFF_COLUMNS = tuple(f.name for f in fields(PassageChange))


@dataclass(frozen=True)
class EvidenceFinding:
    """Where evidence of one case is found in its expected document, fix off and on.

    ``evidence`` is one evidence string, or — for a case with several — all of them at once
    (found only where one passage holds every string, as a ``top_k`` 1 check needs).
    ``without_fix`` / ``with_fix`` are the labels of the passages holding it, in order.
    """

    case_name: str
    evidence: tuple[str, ...]
    without_fix: tuple[str, ...]
    with_fix: tuple[str, ...]

    @property
    def together(self) -> bool:
        """True for the finding about all of a case's evidence strings in one passage."""
        return len(self.evidence) > 1

    @property
    def evidence_text(self) -> str:
        """The evidence for display: ``"30 days"`` or ``"Basic" + "10 Go" together``."""
        quoted = " + ".join(f'"{e}"' for e in self.evidence)
        return f"{quoted} together" if self.together else quoted

    @property
    def change(self) -> str:
        """``became findable``, ``lost``, ``findable either way`` or ``not findable``."""
        if self.with_fix and not self.without_fix:
            return BECAME_FINDABLE
        if self.without_fix and not self.with_fix:
            return LOST
        return EITHER_WAY if self.with_fix else NOT_FINDABLE


def evidence_findability(
    index: CorpusIndex, doc_id: str, cases: Iterable[Case]
) -> list[EvidenceFinding]:
    """For each case expecting ``doc_id`` (in the order given): one finding per evidence
    string, then, if the case has several, one for all of them in a single passage.

    Comparison is :func:`ragdash.checks.proof.collapse` (case-insensitive, whitespace folded),
    the same as :func:`ragdash.checks.proof.missing_evidence`. Empty when no case expects the
    document or none has evidence.
    """
    wanted = [case for case in cases if case.expected_id == doc_id and case.evidence]
    if not wanted:
        return []
    before = _collapsed(index.passages_of(doc_id, tables=False))
    after = _collapsed(index.passages_of(doc_id, tables=True))
    findings: list[EvidenceFinding] = []
    for case in wanted:
        groups: list[tuple[str, ...]] = [(e,) for e in case.evidence]
        if len(case.evidence) > 1:
            groups.append(tuple(case.evidence))
        for group in groups:
            findings.append(
                EvidenceFinding(case.name, group, _holding(before, group), _holding(after, group))
            )
    return findings


def _collapsed(passages: Sequence[Passage]) -> list[tuple[str, str]]:
    return [(p.label, collapse(p.text)) for p in passages]


def _holding(passages: Sequence[tuple[str, str]], evidence: Sequence[str]) -> tuple[str, ...]:
    needles = [collapse(e) for e in evidence]
    return tuple(label for label, text in passages if all(n in text for n in needles))


def passage_diff(index: CorpusIndex, doc_id: str) -> tuple[PassageChange, ...]:
    """The passages of ``doc_id`` before (tables fix off) and after (on), side by side.

    One row per passage after the fix, in order, paired with the passage before the fix it
    shares the most words with among those on overlapping pages (ties: the earlier one);
    then one row per passage before the fix that no row used. Columns
    (:data:`PASSAGE_DIFF_COLUMNS`):

    - ``before_label``, ``before_text``, ``after_label``, ``after_text`` — empty strings for
      the missing side;
    - ``change`` — ``unchanged`` (same text, whitespace and case aside), ``joined`` (the
      after passage also holds words only other before passages had: a table joined across
      a page break), ``split`` (the before passage's words went to several after passages:
      prose and table separated), ``changed``, ``added`` (nothing before on its pages shares
      a word) or ``removed``;
    - ``also_from`` — labels of the other before passages a joined passage drew words from;
    - ``shared_words`` — distinct words the paired passages share.

    Empty (with the columns) for an unknown ``doc_id``.
    """
    before = index.passages_of(doc_id, tables=False)
    after = index.passages_of(doc_id, tables=True)
    # Which before passages each after passage draws from: the best match, then others
    # holding words the best one lacks.
    pairing: list[tuple[Passage, Passage | None, list[Passage]]] = []
    fed: dict[int, int] = {}  # before position -> after passages it gave words to
    for new in after:
        nearby = [old for old in before if _pages_overlap(old, new)]
        best = max(nearby, key=lambda old: len(old.tokens & new.tokens), default=None)
        if best is not None and not best.tokens & new.tokens:
            best = None
        others: list[Passage] = []
        if best is not None:
            missing = new.tokens - best.tokens
            others = [old for old in nearby if old is not best and old.tokens & missing]
            for giver in (best, *others):
                fed[giver.position] = fed.get(giver.position, 0) + 1
        pairing.append((new, best, others))
    rows = []
    for new, old, others in pairing:
        if old is None:
            change = "added"
        elif collapse(old.text) == collapse(new.text):
            change = "unchanged"
        elif others:
            change = "joined"
        elif fed[old.position] > 1:
            change = "split"
        else:
            change = "changed"
        rows.append(_row(old, new, change, others))
    rows.extend(_row(old, None, "removed", []) for old in before if old.position not in fed)
    return tuple(rows)


def _pages_overlap(a: Passage, b: Passage) -> bool:
    return a.page_start <= b.page_end and b.page_start <= a.page_end


def _row(
    old: Passage | None, new: Passage | None, change: str, others: list[Passage]
) -> PassageChange:
    return PassageChange(
        before_label=old.label if old else "",
        before_text=old.text if old else "",
        after_label=new.label if new else "",
        after_text=new.text if new else "",
        change=change,
        also_from=", ".join(o.label for o in others),
        shared_words=len(old.tokens & new.tokens) if old and new else 0,
    )
