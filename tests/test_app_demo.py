"""Issue 43, the demo, with Streamlit's AppTest: one story per flaw — the Guided tour, the
landing button, Explore's suggestion and Triage's advice name the same fix for each bundled
case — and one name per fix, the sidebar's, on every page and chart."""

from __future__ import annotations

import pytest
from shown import unescaped, verdict_boxes

from ragdash.checks.tour import TOUR
from ragdash.settings import FIX_TITLES
from ragdash.ui.sidebar import FIX_LABELS

TOUR_PAGE = "ragdash/ui/pages/tour.py"
TRIAGE_PAGE = "ragdash/ui/pages/triage.py"


def no_exception(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def markdown_after(at, lead: str) -> str:
    """The shown text of the first Markdown element starting with ``lead``."""
    for md in at.markdown:
        text = unescaped(md.value)
        if text.startswith(lead):
            return text[len(lead) :]
    raise AssertionError(f"no Markdown starts with {lead!r}: {[m.value[:60] for m in at.markdown]}")


def named_fix(text: str) -> str:
    """The fix title a sentence starts with (``Skip withdrawn — …`` → ``Skip withdrawn``)."""
    found = [title for title in FIX_TITLES.values() if text.strip().startswith(title)]
    assert len(found) == 1, text
    return found[0]


def pass_box_fix(at) -> str:
    """The fix the PASS verdict box names: ``PASS · With Skip withdrawn …``."""
    [passed] = [b for b in verdict_boxes(at) if b.startswith("PASS · With ")]
    return named_fix(passed.removeprefix("PASS · With "))


def tour_fix(app, number: int) -> tuple[str, str]:
    at = app()
    at.run()
    at.session_state["tour_step"] = number
    at.switch_page(TOUR_PAGE).run()
    no_exception(at)
    return named_fix(markdown_after(at, "**The toggle that repairs it:** ")), pass_box_fix(at)


def landing_fix(app, case_name: str) -> tuple[str, str]:
    at = app()
    at.run()
    next(b for b in at.button if b.key == f"hero_{case_name}").click().run()
    no_exception(at)
    on = [FIX_TITLES[n] for n in FIX_TITLES if at.toggle(key=f"w_fix_{n}").value]
    assert len(on) == 1, on
    return on[0], pass_box_fix(at)


def explore_fix(app, case) -> str:
    at = app(q=case.query, expect=case.expected_id, evidence="; ".join(case.evidence),
             k=str(case.top_k), fixes="none")  # fmt: skip
    at.run()
    no_exception(at)
    suggestion = "would repair this** — turn it on."
    text = next(unescaped(m.value) for m in at.markdown if m.value.endswith(suggestion))
    return named_fix(text.removeprefix("**"))


def triage_fix(app, case) -> str:
    at = app()
    at.run()
    at.switch_page(TRIAGE_PAGE).run()
    at.text_input(key="tr_query").input(case.query)
    at.selectbox(key="tr_expect").select(case.expected_id)
    at.text_input(key="tr_evidence").input("; ".join(case.evidence))
    next(b for b in at.button if b.label == "Diagnose").click()
    at.run()
    no_exception(at)
    advice = named_fix(markdown_after(at, "**Turn on:** "))
    repaired_by = named_fix(markdown_after(at, "**Repaired by:** "))  # the first one named
    compared = at.selectbox(key="tr_compare")  # what Compare with opens on, by its title
    return advice, repaired_by, compared.options[compared.index]


@pytest.mark.parametrize("number", range(1, len(TOUR) + 1), ids=[s.case_name for s in TOUR])
def test_every_page_names_the_same_fix_for_each_bundled_flaw(app, number):
    """The stale-version case was repaired by "Recency tie-break" on the tour and the
    landing button, by "Skip withdrawn" in Explore and "only by winning a tie" in Triage."""
    from ragdash.storage.case_store import load_cases
    from ragdash.ui.context import DEFAULT_DOCS

    step = TOUR[number - 1]
    case = next(c for c in load_cases(DEFAULT_DOCS / "cases.json") if c.name == step.case_name)
    tour, tour_pass = tour_fix(app, number)
    landing, landing_pass = landing_fix(app, step.case_name)
    advice, repaired_by, compared = triage_fix(app, case)
    named = {
        "tour": tour,
        "the tour's PASS box": tour_pass,
        "landing button": landing,
        "the landing's PASS box": landing_pass,
        "Explore's suggestion": explore_fix(app, case),
        "Triage's advice": advice,
        "Triage's first repair": repaired_by,
        "Triage's Compare with": compared,
    }
    assert len(set(named.values())) == 1, named
    # and the one the tour's words are written for (stale versions: the withdrawn 2024 policy)
    assert set(named.values()) == {FIX_TITLES[step.fix]}


def chart_words(at) -> set[str]:
    """Every axis label the page's charts sort by and every value of the data Streamlit
    sends the browser with them: what a chart can show."""
    import json

    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
    from test_app_text import walk

    words: set[str] = set()
    for node in walk(at._tree):
        if getattr(node, "type", "") != "vega_lite_chart":
            continue
        spec = json.loads(node.proto.spec)
        for layer in spec.get("layer", [spec]):
            for channel in layer.get("encoding", {}).values():
                if isinstance(channel, dict) and isinstance(channel.get("sort"), list):
                    words |= {str(v) for v in channel["sort"]}
        for named in node.proto.datasets:
            frame = convert_arrow_bytes_to_pandas_df(named.data.data)
            for column in frame.columns:
                if column in ("configuration", "fixes", "config_label", "configuration_title"):
                    words |= {str(v) for v in frame[column]}
    return words


CODE_NAMES = {*FIX_TITLES, *(f"all-but-{n}" for n in FIX_TITLES), "none", "all"}


def test_the_sidebar_and_the_suite_heatmap_use_the_same_fix_names(app):
    """The heatmap's rows said status, versions, all-but-ocr where the sidebar said Skip
    withdrawn, Demote older versions."""
    at = app(fixes="none")
    at.run()
    at.switch_page("ragdash/ui/pages/suite.py").run()
    no_exception(at)
    sidebar = {t.label for t in at.sidebar.toggle}
    assert sidebar == set(FIX_TITLES.values()) and FIX_LABELS == FIX_TITLES
    words = chart_words(at)
    assert set(FIX_TITLES.values()) <= words, words
    assert "All but OCR normalization" in words and "No fix" in words
    assert not words & CODE_NAMES, words & CODE_NAMES
