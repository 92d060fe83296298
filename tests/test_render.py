"""Rendering helpers: scores read as people read them, #1 on top of the score chart, and
HTML tables that escape every cell."""

from __future__ import annotations

from ragdash.settings import Fixes
from ragdash.ui.render import breakdown_chart, fmt_score, html_table, round_numbers


def test_scores_are_rounded_for_display():
    assert fmt_score(1.9412) == "1.94" and fmt_score(3.0) == "3" and fmt_score(0.5) == "0.5"
    text = "score 1 → 1.9412 (similarity 94.1176)"
    assert round_numbers(text) == "score 1 → 1.94 (similarity 94.12)"


def test_the_first_result_is_on_top_of_the_score_chart(sample_index):
    # #1 has more matches (stacked rows) than #2: sorting by a summed rank put it below.
    for query, fixes in (("warehuse sync", "fuzzy"), ("basic plan storage", "tables"),
                         ("return policy days", "recency")):
        ranked = sample_index.search(query, Fixes.parse(fixes))[:6]
        spec = breakdown_chart(ranked).to_dict()
        order = spec["encoding"]["y"]["sort"]
        ranks = [int(label[1:].split()[0]) for label in order]
        assert ranks[0] == 1 and ranks == sorted(ranks)


def test_html_tables_escape_every_cell_and_show_no_none():
    html = html_table([{"a": "<script>x</script>", "b": None}], ["a", "b"], "t<")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "None" not in html and "—" in html and 'aria-label="t&lt;"' in html


def test_the_score_chart_reads_at_a_glance(sample_index):
    """Issue 29 #5: whole-number ticks for whole scores, ties marked, a legend of the kinds
    present only, the full passage name in the tooltip."""
    ranked = sample_index.search("return policy days", Fixes.parse("none"))[:6]
    spec = breakdown_chart(ranked).to_dict()
    x_axis = spec["encoding"]["x"]["axis"]
    assert x_axis["format"] == "d" and x_axis["tickMinStep"] == 1
    labels = spec["encoding"]["y"]["sort"]
    assert sum("(tie)" in label for label in labels) >= 2, labels  # 2024 and 2026 tie
    assert spec["encoding"]["color"]["scale"]["domain"] == ["exact"]  # no OCR, no fuzzy
    assert any(t.get("field") == "full name" for t in spec["encoding"]["tooltip"])
    fuzzy = breakdown_chart(sample_index.search("warehuse sync", Fixes.parse("fuzzy"))[:6])
    fuzzy_spec = fuzzy.to_dict()
    assert fuzzy_spec["encoding"]["color"]["scale"]["domain"] == ["exact", "fuzzy"]
    assert "format" not in fuzzy_spec["encoding"]["x"]["axis"]  # 1.94 is not whole


def test_the_robustness_chart_lists_every_configuration_and_stays_within_0_to_1():
    """Issue 29 #7: the legend listed 7 of 9 configurations and a line plotted above 1.0."""
    import pandas as pd

    from ragdash.ui.triage.robustness import robustness_chart

    names = [f"config-{i}" for i in range(9)]
    table = pd.DataFrame([{"fault": "typo", "configuration": n, "rate": r, "passed": 1,
                           "total": 1, "pass_rate": 1.0} for n in names for r in (0.0, 0.1)])
    spec = robustness_chart(table, "typo").to_dict()
    legend = spec["encoding"]["color"]["legend"]
    assert legend["orient"] == "bottom" and legend["symbolLimit"] == 0
    assert spec["encoding"]["y"]["scale"]["clamp"] is True
    assert spec["mark"]["clip"] is True
    assert spec["encoding"]["strokeDash"]["field"] == "configuration"


def test_the_chart_names_kinds_as_the_legend_does_and_each_bar_apart(sample_index):
    """Issue 43: the chart legend said "ocr" where the highlight legend said
    "OCR-normalized"; two bars were both labelled "plans"; 21-31 ticks on an axis."""
    ranked = sample_index.search("enterprise sso plan storage", Fixes.parse("ocr"))[:6]
    spec = breakdown_chart(ranked).to_dict()
    assert "OCR-normalized" in spec["encoding"]["color"]["scale"]["domain"]
    assert "ocr" not in spec["encoding"]["color"]["scale"]["domain"]
    labels = [label.split(" ", 1)[1] for label in spec["encoding"]["y"]["sort"]]
    plans = [label for label in labels if label.startswith("plans")]
    assert len(plans) >= 2 and len(set(plans)) == len(plans), plans  # pages tell them apart
    assert spec["encoding"]["x"]["axis"]["tickCount"] <= 6


def test_the_verdict_box_marks_the_wrong_value_and_escapes_every_text(sample_index):
    from ragdash.case import Case
    from ragdash.checks.proof import check_case
    from ragdash.ui.render import VerdictSide, verdict_html

    stale = Case("stale", "return policy days", "returns-2026", ("30 days",))
    check = check_case(sample_index, stale, Fixes())
    ranked = sample_index.search(stale.query, Fixes())
    expected = next(r for r in ranked if r.doc_id == "returns-2026")
    html = verdict_html(VerdictSide("No fix", check, expected))
    assert '<span class="rd-wrong">60 days</span>' in html
    assert '<span class="rd-right">30 days</span>' in html
    assert "Expected: returns-2026" in html and "ranked #2" in html
    hostile = Case("h", "return policy days", "<img src=x onerror=alert(1)>", ("<u>",))
    html = verdict_html(VerdictSide("<i>t</i>", check_case(sample_index, hostile, Fixes())))
    assert "<img" not in html and "<i>" not in html and "<u>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
