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
