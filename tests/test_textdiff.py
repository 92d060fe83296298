"""Where two versions of a passage differ (issue 29: the Documents page's passages before
and after the tables fix all showed the same cut-off running header)."""

from __future__ import annotations

from ragdash.checks.findability import passage_diff
from ragdash.checks.textdiff import change_summary, marked_chunks, text_changes


def test_each_re_cut_passage_of_the_sample_pdf_says_what_moved(sample_index):
    rows = [c for c in passage_diff(sample_index, "plans") if c.change != "unchanged"]
    summaries = [change_summary(c.before_text, c.after_text) for c in rows]
    assert summaries[0] == "removed at the end «Plan | Storage | Monthly price Basic |»"
    assert summaries[1].startswith("added at the start «Plan | Storage | Monthly price Basic |»")
    assert "removed at the end «Prices are per month" in summaries[1]
    # no two rows read alike, and none starts with the page's shared first line
    assert len(set(summaries)) == len(summaries)
    assert not any("Subscription plans" in s for s in summaries)


def test_a_change_in_the_middle_is_placed_after_the_words_before_it():
    [change] = text_changes(
        "Refunds within 30 days of purchase", "Refunds within 14 days of purchase"
    )
    assert (change.kind, change.before, change.after) == ("replaced", "30", "14")
    assert change.where == "after «Refunds within»"
    assert change_summary(None, "x") == "new passage: «x»"
    assert change_summary("x", "") == "passage gone: «x»"


def test_long_runs_are_quoted_short_and_many_changes_counted():
    before = " ".join(f"w{i}" for i in range(40))
    after = " ".join(f"w{i}" if i % 5 else f"X{i}" for i in range(40))
    summary = change_summary(before, after)
    assert summary.endswith("and 5 more changes")
    long = change_summary("a", "a " + "word " * 40)
    assert "…»" in long and len(long) < 100


def test_marked_chunks_rebuild_both_texts():
    before, after = "Plan | Storage\nBasic | 10 GB", "Basic | 10 GB\nPro | 50 GB"
    left, right = marked_chunks(before, after)
    assert "".join(r for r, _ in left) == before
    assert "".join(r for r, _ in right) == after
    assert ("Plan | Storage\n", True) in left or any(d and "Plan" in r for r, d in left)
