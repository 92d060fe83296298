"""The development set of real PDFs (``../shared/realpdfs``, never copied here): every
page-break decision of its ``truth.json`` is right, and the tables fix makes the cases that
need a join pass without making any case that passes without it fail.

Only the pages a decision needs are opened (two either side), so the 400-page PDF costs a
dozen pages. Run with ``-s`` to see the decision table.
"""

from __future__ import annotations

import pytest
from realpdfs import REALPDFS, TRUTH, dev_documents, judge, proof_cases, table_report, truth

from ragdash.checks.proof import check_case
from ragdash.ingestion.documents import Corpus
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import Fixes

pytestmark = pytest.mark.skipif(
    not TRUTH.is_file(), reason=f"development set of real PDFs not found at {REALPDFS}"
)


def test_every_page_break_decision_in_truth_json_is_right():
    verdicts = [judge(entry) for entry in truth()]
    report = table_report(verdicts)
    print("\n" + report)
    wrong = [v for v in verdicts if not v.right]
    assert not wrong, report


@pytest.fixture(scope="module")
def dev_index() -> tuple[CorpusIndex, dict]:
    docs = dev_documents()
    return CorpusIndex(Corpus(tuple(docs.values()))), docs


def test_the_tables_fix_repairs_every_case_that_needs_a_join(dev_index):
    index, docs = dev_index
    cross, _ = proof_cases(docs)
    off = [check_case(index, c, Fixes()) for c in cross]
    on = [check_case(index, c, Fixes().with_only(["tables"])) for c in cross]
    print(f"\ncases needing a join: {sum(c.passed for c in off)} pass with the tables fix off, "
          f"{sum(c.passed for c in on)} with it on, of {len(cross)}")
    assert not any(c.passed for c in off)  # they really need the join
    assert [c.case.name for c in on if not c.passed] == []


def test_no_case_that_passes_without_the_tables_fix_fails_with_it(dev_index):
    index, docs = dev_index
    _, single = proof_cases(docs)
    off = [check_case(index, c, Fixes()) for c in single]
    on = [check_case(index, c, Fixes().with_only(["tables"])) for c in single]
    print(f"\nsingle-row cases: {sum(c.passed for c in off)} pass with the tables fix off, "
          f"{sum(c.passed for c in on)} with it on, of {len(single)}")
    broken = [a.case.name for a, b in zip(off, on, strict=True) if a.passed and not b.passed]
    assert broken == []
