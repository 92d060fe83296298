"""The guided tour of the four flaws: one step per flaw of the bundled testbed — its case
(query, expected document, evidence), the failure in one sentence, the toggle that repairs
it, and the proof check before and after (FAIL → PASS)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragdash.case import Case
from ragdash.checks.proof import ProofCheck, check_case
from ragdash.checks.triage import Advice, advice
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes

__all__ = ["STALE_TOGGLES", "TOUR", "TourOutcome", "TourStep", "run_step"]


@dataclass(frozen=True)
class TourStep:
    """One flaw: the bundled case that shows it, the fix that repairs it, and in words."""

    flaw: str
    case_name: str
    fix: str
    failure: str  # what goes wrong with no fix, one sentence
    repair: str  # what the fix does about it, one sentence after its name ("it …")


#: Why the stale-version flaw has three toggles: said once, on its tour step.
STALE_TOGGLES = (
    "Three toggles act on stale versions. Skip withdrawn leaves out a document marked "
    "withdrawn — the 2024 policy is, so it repairs this case. Demote older versions is for "
    "an old copy nobody marked: it detects the two versions and ranks the newer first. "
    "Recency tie-break only reorders an exact score tie by date; it passes here only "
    "because the two policies happen to tie."
)

TOUR: tuple[TourStep, ...] = (
    TourStep(
        "Stale versions",
        "stale-version",
        "status",
        "The 2024 and 2026 return policies tie on every query word, so list order hands the "
        "model the withdrawn 2024 one (60 days instead of 30).",
        "it leaves the withdrawn 2024 policy out, so the 2026 one comes first.",
    ),
    TourStep(
        "OCR noise",
        "ocr-noise",
        "ocr",
        "The scanned plans PDF reads “Enterpr1se” and “SS0”, so neither query word matches it "
        "and the CRM note, which mentions “Enterprise customers”, comes first.",
        "it reads 1 as i and 0 as o in words, so both query words match the PDF.",
    ),
    TourStep(
        "Typos",
        "typo",
        "fuzzy",
        "“warehuse” matches nothing, so only “sync” counts and the CRM document, listed "
        "first, wins.",
        "it lets “warehuse” match “warehouse”, so the inventory document wins.",
    ),
    TourStep(
        "Tables cut by a page break",
        "split-table",
        "tables",
        "The page break cuts the plans table's “Basic |” row from its “10 Go” value (10 GB: "
        "the PDF is a French supplier's price list), so the right document comes first but "
        "the model never sees the number.",
        "it puts the whole row back into one passage.",
    ),
)


@dataclass(frozen=True)
class TourOutcome:
    """A step run on a corpus: the proof check with no fix and with the fix that
    :func:`ragdash.checks.triage.advice` names — the same fix Explore and Triage name."""

    step: TourStep
    case: Case
    before: ProofCheck
    after: ProofCheck
    advice: Advice

    @property
    def fix(self) -> str:
        """The fix the step turns on: the advice's (the step's own when there is none)."""
        return self.advice.fix or self.step.fix

    @property
    def shows_the_flaw(self) -> bool:
        """The step tells its story: it fails with no fix and passes with its fix, the fix
        its words name."""
        return not self.before.passed and self.after.passed and self.fix == self.step.fix


def run_step(
    index: CorpusIndex, cases: Sequence[Case], step: TourStep, base: Fixes | None = None
) -> TourOutcome | None:
    """Run ``step``'s case with no fix and with the advised fix alone (settings from
    ``base``); None when the cases do not include it (another docs folder)."""
    case = next((c for c in cases if c.name == step.case_name), None)
    if case is None:
        return None
    base = base or Fixes()
    told = advice(index, case, base)
    before = check_case(index, case, base.with_only(()))
    after = check_case(index, case, base.with_only([told.fix or step.fix]))
    return TourOutcome(step, case, before, after, told)
