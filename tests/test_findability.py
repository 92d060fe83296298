"""The ingestion diff of one document: evidence findable in one passage with the tables fix
off and on, and passages before/after the fix side by side."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from ragdash.case import Case
from ragdash.checks.findability import (
    BECAME_FINDABLE,
    EITHER_WAY,
    LOST,
    NOT_FINDABLE,
    PASSAGE_DIFF_COLUMNS,
    EvidenceFinding,
    PassageChange,
    evidence_findability,
    passage_diff,
)
from ragdash.frames import frame
from ragdash.ingestion.documents import Passage


def _by_case(findings, name):
    return [f for f in findings if f.case_name == name]


def test_split_table_evidence_becomes_findable_in_one_passage_only_with_the_fix(
    sample_index, sample_cases
):
    findings = _by_case(evidence_findability(sample_index, "plans", sample_cases), "split-table")
    together = [f for f in findings if f.together]
    assert len(together) == 1
    finding = together[0]
    assert finding.evidence == ("Basic", "10 Go")
    assert finding.without_fix == ()
    assert finding.with_fix == ("plans p1-2 #2",)
    assert finding.change == BECAME_FINDABLE
    assert finding.evidence_text == '"Basic" + "10 Go" together'


def test_each_split_table_string_alone_is_findable_either_way(sample_index, sample_cases):
    # "Basic" ends page 1 and "10 Go" starts page 2: each is somewhere without the fix; only
    # both in one passage — what a top_k 1 proof check needs — is new with it.
    findings = _by_case(evidence_findability(sample_index, "plans", sample_cases), "split-table")
    singles = {f.evidence: f for f in findings if not f.together}
    assert set(singles) == {("Basic",), ("10 Go",)}
    assert singles[("Basic",)].without_fix == ("plans p1 #1",)
    assert singles[("10 Go",)].without_fix == ("plans p2 #2",)
    assert all(f.with_fix == ("plans p1-2 #2",) for f in singles.values())
    assert all(f.change == EITHER_WAY for f in singles.values())


def test_prose_evidence_is_findable_either_way(sample_index, sample_cases):
    (finding,) = _by_case(evidence_findability(sample_index, "plans", sample_cases), "ocr-noise")
    assert finding.evidence == ("identity provider",)
    assert finding.without_fix == finding.with_fix == ("plans p1 #1",)
    assert finding.change == EITHER_WAY
    assert finding.evidence_text == '"identity provider"'


def test_findings_follow_case_order_then_evidence_order(sample_index, sample_cases):
    findings = evidence_findability(sample_index, "plans", sample_cases)
    assert [(f.case_name, f.evidence) for f in findings] == [
        ("ocr-noise", ("identity provider",)),
        ("ocr-noise-control", ("dedicated account manager",)),
        ("split-table", ("Basic",)),
        ("split-table", ("10 Go",)),
        ("split-table", ("Basic", "10 Go")),
        ("split-table-control", ("Pro | 100 Go",)),
    ]


def test_text_documents_are_unaffected(sample_index, sample_cases):
    findings = evidence_findability(sample_index, "returns-2026", sample_cases)
    assert {f.case_name for f in findings} == {"stale-version", "stale-version-control"}
    assert all(f.change == EITHER_WAY for f in findings)


@pytest.mark.parametrize("doc_id", ["crm", "returns-2024", "no-such-doc"])
def test_a_document_no_case_expects_gives_an_empty_list(sample_index, sample_cases, doc_id):
    assert evidence_findability(sample_index, doc_id, sample_cases) == []


def test_evidence_across_prose_and_table_is_lost_with_the_fix(sample_index):
    # Without the fix page 1 runs from prose into the table header; with it they part.
    case = Case("edge", "q", "plans", ("Account  MANAGER. Plan | Storage",))
    (finding,) = evidence_findability(sample_index, "plans", [case])
    assert finding.without_fix == ("plans p1 #1",)
    assert finding.with_fix == ()
    assert finding.change == LOST


def test_evidence_nowhere_is_not_findable(sample_index):
    cases = [Case("absent", "q", "plans", ("20 Go",)), Case("none", "q", "plans", ())]
    (finding,) = evidence_findability(sample_index, "plans", cases)
    assert finding.change == NOT_FINDABLE


@pytest.mark.parametrize(
    ("without", "with_", "change"),
    [
        ((), ("a",), BECAME_FINDABLE),
        (("a",), (), LOST),
        (("a",), ("b", "c"), EITHER_WAY),
        ((), (), NOT_FINDABLE),
    ],
)
def test_change_words(without, with_, change):
    assert EvidenceFinding("c", ("e",), without, with_).change == change


# --- passage_diff ----------------------------------------------------------------------------


def test_plans_passages_side_by_side(sample_index):
    diff = frame(passage_diff(sample_index, "plans"), PassageChange)
    assert tuple(diff.columns) == PASSAGE_DIFF_COLUMNS
    assert diff[["before_label", "after_label", "change", "also_from"]].values.tolist() == [
        ["plans p1 #1", "plans p1 #1", "split", ""],
        ["plans p2 #2", "plans p1-2 #2", "joined", "plans p1 #1"],
        ["plans p2 #2", "plans p2 #3", "split", ""],
    ]
    table = diff.iloc[1]
    assert "Basic | 10 Go | 5 EUR" in table.after_text
    assert table.before_text.startswith("10 Go | 5 EUR")
    assert table.shared_words > 0


def test_a_text_document_is_unchanged(sample_index):
    diff = frame(passage_diff(sample_index, "crm"), PassageChange)
    assert diff[["before_label", "after_label", "change"]].values.tolist() == [
        ["crm p1 #1", "crm p1 #1", "unchanged"]
    ]
    assert diff.iloc[0].before_text == diff.iloc[0].after_text


def test_unknown_document_gives_an_empty_frame(sample_index):
    diff = frame(passage_diff(sample_index, "no-such-doc"), PassageChange)
    assert diff.empty and tuple(diff.columns) == PASSAGE_DIFF_COLUMNS


@dataclass
class _FakeIndex:
    """Just the ``passages_of(doc_id, tables)`` that the diff reads, with chosen passages."""

    before: tuple[Passage, ...]
    after: tuple[Passage, ...]

    def passages_of(self, doc_id: str, tables: bool = False) -> tuple[Passage, ...]:
        return tuple(p for p in (self.after if tables else self.before) if p.doc_id == doc_id)


def _passage(text: str, page: int, position: int) -> Passage:
    return Passage("d", text, page, page, position, 0, "page")


def test_changed_added_and_removed_rows():
    index = _FakeIndex(
        before=(
            _passage("alpha beta gamma", 1, 0),
            _passage("delta epsilon", 2, 1),
            _passage("zeta eta", 3, 2),
        ),
        after=(
            _passage("alpha beta", 1, 0),
            _passage("theta iota", 2, 1),
            _passage("kappa", 4, 2),
        ),
    )
    diff = frame(passage_diff(index, "d"), PassageChange)  # type: ignore[arg-type]
    assert diff[["before_label", "after_label", "change", "shared_words"]].values.tolist() == [
        ["d p1 #1", "d p1 #1", "changed", 2],
        ["", "d p2 #2", "added", 0],
        ["", "d p4 #3", "added", 0],
        ["d p2 #2", "", "removed", 0],
        ["d p3 #3", "", "removed", 0],
    ]
