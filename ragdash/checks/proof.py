"""Proof checks: is the expected document first, and is the evidence in what the model reads?

Evidence is found on token boundaries (:func:`ragdash.retrieval.highlight.evidence_pattern`):
case-insensitive, whitespace (PDF line breaks included) collapsed, and never inside a longer
word or number — ``4 disks`` is not found in ``24 disks``.

A passage that scores nothing is not retrieved: the retriever lists it (the seed's baseline
order is kept, see :mod:`ragdash.retrieval.ranking`) but nothing about the query chose it, so
it is not sent to the model, and a check whose top passage scores nothing fails as
``ranking`` with "no passage matched the query" — never as a pass because the expected
document happens to come first in list order.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ragdash.case import EVIDENCE_RULE, NO_MATCH, Case, Diagnosis
from ragdash.retrieval.highlight import evidence_pattern, has_cjk
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import Fixes

__all__ = [
    "ProofCheck",
    "check_case",
    "collapse",
    "context_text",
    "evidence_found",
    "found_in_normalized",
    "judge",
    "missing_evidence",
    "wrong_values",
]


@dataclass(frozen=True)
class ProofCheck:
    """The outcome of running one case under one set of fixes."""

    case: Case
    fixes: Fixes
    ranked: tuple[RankedPassage, ...]  # the top-k passages sent to the model
    diagnosis: Diagnosis
    missing_evidence: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return self.diagnosis is Diagnosis.PASS

    @property
    def first_id(self) -> str | None:
        return self.ranked[0].doc_id if self.ranked else None

    @property
    def no_match(self) -> bool:
        """True when no passage scored anything: nothing was retrieved."""
        return not self.ranked

    @property
    def reason(self) -> str:
        """The verdict in one sentence, with how evidence was looked for."""
        if self.no_match:
            return f"{NO_MATCH}; {EVIDENCE_RULE}"
        return f"{self.diagnosis.explanation}; {EVIDENCE_RULE}"


def collapse(text: str) -> str:
    """Lowercase with runs of whitespace folded to one space — how evidence is shown."""
    return re.sub(r"\s+", " ", text).strip().lower()


def evidence_found(evidence: str, context: str) -> bool:
    """True if ``evidence`` occurs in ``context`` on token boundaries (case-insensitive, any
    whitespace between words): ``30 days`` is in ``within 30\ndays``, not in ``130 days``.
    Both are NFKC-normalized first, so a PDF's ligature (``ﬁle``) or decomposed accent
    (``e`` + combining acute) reads as the evidence typed (``file``, ``é``).
    Dashes are one dash: ``45–54`` (en dash) is found as ``45-54``, as OCR reads it and as
    a user types it.

    >>> evidence_found("45–54 years", "aged 45-54 years")
    True
    """
    text = normalized(context)
    return found_in_normalized(evidence, text, has_cjk(text))


def found_in_normalized(evidence: str, text: str, cjk: bool) -> bool:
    """:func:`evidence_found` on a ``text`` already :func:`normalized`, ``cjk`` its
    :func:`has_cjk`: what a caller asking about many evidence strings in one passage works
    out once (generating cases asks tens of thousands of times over a large corpus).

    >>> text = normalized("aged 45–54 years")
    >>> found_in_normalized("45-54 years", text, cjk=False)
    True
    """
    pattern = evidence_pattern(normalized(evidence), cjk=cjk)
    return pattern is None or pattern.search(text) is not None


def normalized(text: str) -> str:
    """``text`` as evidence is compared: NFKC, every dash one dash."""
    return unicodedata.normalize("NFKC", text).translate(_DASHES)


#: Hyphen, non-breaking hyphen, figure dash, en dash, em dash, bar, minus: all "-".
_DASHES = str.maketrans("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-------")


def missing_evidence(evidence: Sequence[str], context: str) -> tuple[str, ...]:
    """The evidence strings not found in ``context`` (see :func:`evidence_found`)."""
    return tuple(e for e in evidence if not evidence_found(e, context))


def context_text(ranked: Sequence[RankedPassage]) -> str:
    """The combined raw text of the passages sent to the model."""
    return "\n\n".join(r.passage.text for r in ranked)


def judge(
    case: Case,
    ranked: Sequence[RankedPassage],
    fixes: Fixes,
    *,
    seed_zero_scores: bool = False,
) -> ProofCheck:
    """Judge an already-ranked list against a case (only its top-k is read; passages that
    score nothing are not retrieved, so they are not sent to the model).

    ``seed_zero_scores`` reproduces the seed's verdicts: zero-score passages count as
    retrieved, so a query that matches nothing "passes" when the expected document happens to
    be listed first. Only for comparing with the seed; every page and command leaves it off."""
    top = tuple(ranked[: max(case.top_k, 1)])
    if not seed_zero_scores:
        top = tuple(r for r in top if r.matched)
    missing = missing_evidence(case.evidence, context_text(top))
    if not top or top[0].doc_id != case.expected_id:
        diagnosis = Diagnosis.RANKING
    elif missing:
        diagnosis = Diagnosis.EXTRACTION
    else:
        diagnosis = Diagnosis.PASS
    return ProofCheck(case, fixes, top, diagnosis, missing)


def check_case(index: CorpusIndex, case: Case, fixes: Fixes) -> ProofCheck:
    """Run a case's query under ``fixes`` and judge it. Raises ``QueryError`` on a bad query."""
    return judge(case, index.top(case.query, fixes, max(case.top_k, 1)), fixes)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def wrong_values(check: ProofCheck) -> tuple[tuple[str, str], ...]:
    """What the model reads in place of each missing evidence string that holds a number:
    the same words with another number, as ``(expected, found)`` pairs — the withdrawn
    policy's "60 days" where "30 days" was expected. Shown on a FAIL so the wrong answer is
    marked as wrong; an evidence string with no number, or no look-alike, gives no pair.

    >>> from ragdash.bundled import SAMPLES
    >>> from ragdash.ingestion.ingest import load_folder
    >>> index = CorpusIndex(load_folder(SAMPLES))
    >>> case = Case("stale", "return policy days", "returns-2026", ("30 days",))
    >>> wrong_values(check_case(index, case, Fixes()))
    (('30 days', '60 days'),)
    """
    sent = normalized(context_text(check.ranked))
    pairs = []
    for evidence in check.missing_evidence:
        if not _NUMBER.search(evidence):
            continue
        parts = _NUMBER.split(" ".join(evidence.split()))
        body = r"\d+(?:[.,]\d+)*".join(
            r"\s+".join(re.escape(w) for w in part.split(" ")) for part in parts
        )
        found = re.search(rf"(?<![\w.,]){body}(?![\w])", sent, re.IGNORECASE)
        if found and collapse(found.group()) != collapse(evidence):
            pairs.append((evidence, " ".join(found.group().split())))
    return tuple(pairs)
