"""The real dashboard run with Streamlit's AppTest: pages render, fixes change results as
the bundled testbed says, links restore the view, uploads and edits persist, and document
text reaches the page escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from conftest import open_documents
from shown import unescaped, verdict_boxes
from streamlit.testing.v1 import AppTest

from ragdash.checks.faults import corrupt_query
from ragdash.settings import FIX_NAMES, Fixes
from ragdash.storage.case_store import load_cases
from ragdash.ui.sidebar import FIX_LABELS

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_docs"
EXPLORE = "ragdash/ui/pages/explore.py"
SUITE = "ragdash/ui/pages/suite.py"
DOCUMENTS = "ragdash/ui/pages/documents.py"
#: Which fix repairs which corrupted case of the bundled testbed.
CASE_FIX = {"stale-version": "status", "ocr-noise": "ocr", "typo": "fuzzy",
            "split-table": "tables"}
RESULT_HEADER = re.compile(r"^\*\*#(\d+) · (.+?)\*\*")


def results(at: AppTest) -> list[str]:
    """Document ids of the ranked passages shown, in order."""
    found = []
    for md in at.markdown:
        match = RESULT_HEADER.match(md.value)
        if match:
            found.append(match.group(2).replace("\\", ""))
    return found


def param(at: AppTest, name: str) -> str:
    """A URL parameter as the app left it (AppTest may hold a string or a list)."""
    value = at.query_params[name]
    return value[0] if isinstance(value, list) else value


class _TableReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def html_tables(at: AppTest) -> list[pd.DataFrame]:
    """The tables the page draws as HTML (``render.html_table``), header row as columns."""
    frames = []
    for element in at.get("html"):
        body = element.proto.body
        if "rd-table" not in body or "<table" not in body:
            continue
        reader = _TableReader()
        reader.feed(body)
        frames.append(pd.DataFrame(reader.rows[1:], columns=reader.rows[0]))
    return frames


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


@pytest.mark.parametrize("page", [EXPLORE, SUITE, DOCUMENTS])
def test_each_page_renders_without_exceptions(app, page):
    at = app()
    at.run()
    at.switch_page(page).run()
    no_exception(at)
    assert at.title[0].value in {"Explore", "Test suite", "Documents"}


def test_a_half_typed_ocr_map_in_the_sidebar_does_not_crash_the_documents_page(app):
    """Regression: ``0=oo`` in the sidebar raised a ValueError traceback on Documents; the
    page now reads the view's (last valid) OCR map and the sidebar names the bad entry."""
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    at.text_input(key="w_ocrmap").input("0=oo").run()
    no_exception(at)
    assert at.title[0].value == "Documents"
    shown = [re.sub(r"\\(.)", r"\1", e.value) for e in at.sidebar.error]  # Markdown-escaped
    assert any("0=oo" in text and "one letter" in text for text in shown)


def test_the_first_screen_shows_no_error_and_the_four_flaws_one_click_each(app):
    """Issue 29 #1: the app opened on a red RANKING box nobody had asked for. It opens on
    an empty query and a hero of the four flaws; each button opens its case with its fix:
    FAIL with no fix beside PASS with the fix."""
    at = app()
    at.run()
    no_exception(at)
    assert not at.error and not at.warning
    assert at.text_input(key="w_q").value == ""
    [hint] = [i.value for i in at.info]  # one clear hint
    assert "click one of the four flaws" in hint
    for name, fix in CASE_FIX.items():
        at.button(key=f"hero_{name}").click().run()
        no_exception(at)
        case = next(c for c in load_cases(SAMPLE / "cases.json") if c.name == name)
        assert at.text_input(key="w_q").value == case.query
        assert at.toggle(key=f"w_fix_{fix}").value
        assert param(at, "fixes") == fix
        assert [v.split()[0] for v in verdicts(at)] == ["FAIL", "PASS"]
        assert not at.error  # a FAIL is a verdict box, never an application error


@pytest.mark.parametrize("name", sorted(CASE_FIX))
def test_toggling_each_fix_repairs_its_case(app, name):
    case = next(c for c in load_cases(SAMPLE / "cases.json") if c.name == name)
    at = app(q=case.query, fixes="none", expect=case.expected_id,
             evidence=";".join(case.evidence), k=str(case.top_k))
    at.run()
    no_exception(at)
    assert fails(at), "with no fix the corrupted case must fail"
    at.toggle(key=f"w_fix_{CASE_FIX[name]}").set_value(True).run()
    no_exception(at)
    assert results(at)[0] == case.expected_id
    assert passes(at)
    assert param(at, "fixes") == CASE_FIX[name]


def test_toggle_changes_the_first_result_of_the_stale_query(app):
    at = app(q="return policy days", fixes="none")
    at.run()
    assert results(at)[0] == "returns-2024"
    at.toggle(key="w_fix_recency").set_value(True).run()
    assert results(at)[0] == "returns-2026"


def test_url_parameters_restore_the_view(app):
    at = app(q="warehouse sync", fixes="recency,fuzzy", threshold="70", k="2",
             fault="typo", rate="0.2", seed="7", expect="inventory", evidence="15 minutes")
    at.run()
    no_exception(at)
    for name in FIX_NAMES:
        assert at.toggle(key=f"w_fix_{name}").value == (name in ("recency", "fuzzy"))
    assert at.slider(key="w_threshold").value == 70
    assert at.number_input(key="w_k").value == 2
    assert at.radio(key="w_fault").value == "typo"
    corrupted = corrupt_query("warehouse sync", "typo", 0.2, 7)
    assert corrupted in [c.value for c in at.code]
    assert len(results(at)) == 2
    # The address bar keeps describing the same view.
    assert param(at, "fixes") == "recency,fuzzy" and param(at, "threshold") == "70"
    assert param(at, "seed") == "7" and param(at, "k") == "2"



def test_links_carry_the_corpus_hash_and_warn_when_opened_on_another_corpus(app):
    from ragdash.ingestion.fingerprint import corpus_fingerprint
    from ragdash.ingestion.ingest import load_folder

    here = corpus_fingerprint(load_folder(SAMPLE))
    at = app(q="return policy days", fixes="none")
    at.run()
    assert param(at, "corpus") == here
    assert not [w for w in at.warning if "different corpus" in w.value]
    # The same link on this corpus: no warning; with another corpus's hash: a clear warning.
    same = app(q="return policy days", fixes="none", corpus=here)
    same.run()
    assert not [w for w in same.warning if "different corpus" in w.value]
    other = app(q="return policy days", fixes="none", corpus="0123456789")
    other.run()
    no_exception(other)
    [warning] = [w.value for w in other.warning if "different corpus" in w.value]
    assert "0123456789" in warning and here in warning
    assert results(other)[0] == "returns-2024"  # the view itself is still shown
    assert param(other, "corpus") == here  # and the address bar now names this corpus

def test_choosing_a_fuzzy_preset_changes_the_result_and_the_link(app):
    # "snyc" swaps two letters of "sync": 75% similar, under the default threshold of 80,
    # but one edit, which es-auto allows a 4-letter word (typos-5-9 wants 5 letters).
    at = app(q="snyc", fixes="fuzzy")
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_fuzzyrule").value == "ratio"
    assert not at.slider(key="w_threshold").disabled
    unmatched = results(at)[0]
    assert unmatched not in ("crm", "inventory")  # nothing matched: list order
    at.selectbox(key="w_fuzzyrule").select("es-auto").run()
    no_exception(at)
    assert results(at)[0] == "crm"  # holds "sync", listed before inventory
    assert param(at, "fuzzyrule") == "es-auto"
    assert at.slider(key="w_threshold").disabled  # a preset counts edits, not similarity
    at.selectbox(key="w_fuzzyrule").select("typos-5-9").run()
    assert results(at)[0] == unmatched and param(at, "fuzzyrule") == "typos-5-9"


def test_a_link_with_a_fuzzy_preset_opens_with_it(app):
    at = app(q="snyc", fixes="fuzzy", fuzzyrule="es-auto")
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_fuzzyrule").value == "es-auto"
    assert results(at)[0] == "crm"


def test_bad_url_parameters_fall_back_with_a_warning(app):
    at = app(q="return policy days", fixes="bogus", k="zero", threshold="300", fuzzyrule="AUTO")
    at.run()
    no_exception(at)
    text = " ".join(w.value for w in at.warning)
    assert "bogus" in text and "zero" in text and "threshold" in text
    assert "fuzzyrule" in text and at.selectbox(key="w_fuzzyrule").value == "ratio"
    assert results(at), "the page still shows results with default settings"


def test_empty_query_shows_a_message_not_a_traceback(app):
    at = app(q="   ", fixes="all")
    at.run()
    no_exception(at)
    assert any("empty" in i.value for i in at.info)
    assert results(at) == []


def test_corrupting_a_query_shows_the_corrupted_text_and_uses_it(app):
    at = app(q="warehouse sync", fixes="none")
    at.run()
    assert results(at)[0] == "inventory"
    at.radio(key="w_fault").set_value("ocr")
    at.slider(key="w_rate").set_value(1.0)
    at.run()
    no_exception(at)
    corrupted = corrupt_query("warehouse sync", "ocr", 1.0, 0)
    assert corrupted != "warehouse sync"
    assert corrupted in [c.value for c in at.code]


def test_comparison_tab_explains_why_the_winner_moved(app):
    at = app(q="return policy days", fixes="recency")
    at.run()
    no_exception(at)
    moved = [m.value.replace("\\", "") for m in at.markdown if m.value.startswith("- **")]
    [row] = [m for m in moved if m.startswith("- **returns-2026")]
    assert "#2 → #1 (up)" in row and "newest" in row



def test_explore_says_in_words_how_the_tie_at_the_top_was_broken(app):
    at = app(q="return policy days", fixes="recency")
    at.run()
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert any(
        "returns-2026 wins over returns-2024: same score 3, updated 2026-01-05 vs 2024-02-01"
        in c
        for c in captions
    ), captions
    at = app(q="return policy days", fixes="status")
    at.run()
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert any("returns-2024 would tie with it" in c and "withdrawn" in c for c in captions)

def test_suite_page_shows_every_case_and_the_ablation(app):
    at = app(fixes="none")
    at.run()
    at.switch_page(SUITE).run()
    no_exception(at)
    cases = load_cases(SAMPLE / "cases.json")
    table = html_tables(at)[0]
    assert list(table["case"]) == [c.name for c in cases]
    failing = set(table.loc[table["verdict"] == "FAIL", "case"])
    assert failing == set(CASE_FIX)
    assert len(at.get("download_button")) == 2



def vega_specs(at: AppTest) -> list[dict]:
    """The Vega-Lite specs of the charts the page drew (AppTest has no accessor for them)."""
    import json

    found, todo = [], [at._tree]
    while todo:
        node = todo.pop()
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            todo.extend(children.values())
        if getattr(node, "type", "") == "vega_lite_chart":
            found.append(json.loads(node.proto.spec))
    return found


def test_the_suite_heatmap_says_pass_or_fail_in_its_cells_and_filters_failures(app):
    """Issue 29 #6: 16×8 colored cells with no text, labels ~9 px, no click-through, no
    failures-only filter."""
    at = app(fixes="none")
    at.run()
    at.switch_page(SUITE).run()
    no_exception(at)
    spec = next(s for s in vega_specs(at) if "params" in s)
    cells, words = spec["layer"]
    assert words["mark"]["type"] == "text" and words["encoding"]["text"]["field"] == "verdict"
    for axis in ("x", "y"):
        assert cells["encoding"][axis]["axis"]["labelFontSize"] >= 11
    assert spec["params"][0]["select"]["type"] == "point"  # a click selects a cell
    all_cases = cells["encoding"]["x"]["sort"]
    at.toggle(key="suite_failures_only").set_value(True).run()
    no_exception(at)
    spec = next(s for s in vega_specs(at) if "params" in s)
    shown = spec["layer"][0]["encoding"]["x"]["sort"]
    assert set(CASE_FIX) <= set(shown) < set(all_cases)
    assert "No fix" in spec["layer"][0]["encoding"]["y"]["sort"]


def test_heatmap_cells_carry_their_word_and_a_click_names_its_cell():
    from types import SimpleNamespace

    from ragdash.ui.suite import clicked_cell, heatmap

    table = pd.DataFrame({"case": ["a", "a", "b"], "configuration": ["none", "ocr", "none"],
                          "diagnosis": ["ranking", "pass", "extraction"],
                          "first_id": "x", "missing_evidence": ""})  # fmt: skip
    spec = heatmap(table).to_dict()
    words = [r["verdict"] for r in next(iter(spec["datasets"].values()))]
    assert words == ["FAIL", "PASS", "FAIL"]

    # the rows are named as the sidebar names the fixes; a click carries the code label
    assert spec["layer"][0]["encoding"]["y"]["sort"] == ["No fix", "OCR normalization"]
    event = SimpleNamespace(selection={"cell": [{"case": "typo", "config": "fuzzy"}]})
    assert clicked_cell(event) == ("typo", "fuzzy")
    assert clicked_cell(SimpleNamespace(selection={"cell": []})) is None
    assert clicked_cell(None) is None


def test_suite_searches_how_close_each_case_is_to_breaking(app):
    from ragdash.checks.fragility import compared_configurations, find_breaking_perturbation
    from ragdash.ingestion.ingest import load_folder
    from ragdash.retrieval.index import CorpusIndex

    at = app(fixes="fuzzy")
    at.run()
    at.switch_page(SUITE).run()
    at.button(key="suite_fragility_run").click().run(timeout=120)
    no_exception(at)
    cases = load_cases(SAMPLE / "cases.json")
    sentences = {
        md.value.split("** — ")[0].strip("*").replace("\\", ""): md.value
        for md in at.markdown
        if "** — " in md.value
    }
    assert set(sentences) == {c.name for c in cases}
    # The page says what the core finds: typo-control breaks sooner with no fix than with fuzzy.
    index = CorpusIndex(load_folder(SAMPLE))
    case = next(c for c in cases if c.name == "typo-control")
    none, fuzzy = (
        find_breaking_perturbation(index, case, fixes, "typo")
        for fixes in compared_configurations(Fixes.parse("fuzzy")).values()
    )
    assert none.edits is not None and (fuzzy.edits is None or fuzzy.edits > none.edits)
    assert f"breaks after {none.edits} edit" in sentences["typo-control"]
    # a wrapping table of five columns (nine were cut at 800 px): the sentence names the
    # configuration and the corrupted query
    table = next(t for t in html_tables(at) if "sentence" in t.columns and "edits" in t.columns)
    rows = table[(table["case"] == "typo-control") & (table["fault"] == "typo")]
    assert len(rows) == 2 and "with no fixes" in rows.iloc[0]["sentence"]
    assert f"'{none.corrupted_query}'" in rows.iloc[0]["sentence"]
    assert not table.isin(["None", "nan", "<NA>"]).any().any()  # an empty cell reads "—"

def test_picking_a_case_opens_it_in_explore(app):
    at = app(fixes="none")
    at.run()
    at.switch_page(SUITE).run()
    at.selectbox(key="suite_pick").set_value("typo").run()
    at.button[0].click().run()
    no_exception(at)
    assert at.text_input(key="w_q").value == "warehuse sync"
    assert at.selectbox(key="w_expect").value == "inventory"
    assert results(at)[0] == "crm"


def test_adding_a_case_in_the_ui_saves_it_to_the_case_library(app, tmp_path):
    at = app()
    at.run()
    at.switch_page(SUITE).run()
    form_inputs = [t for t in at.text_input if t.key is None or not t.key.startswith("w_")]
    name, query, evidence = form_inputs[0], form_inputs[1], form_inputs[2]
    name.set_value("reported-refund")
    query.set_value("refund card")
    evidence.set_value("full refund")
    next(s for s in at.selectbox if s.label == "Expected document").set_value("returns-2026")
    at.button(key="FormSubmitter:add_case-Save case").click().run()
    no_exception(at)
    # one case store: the Test suite saves to the same SQLite library as Triage
    saved = load_cases(tmp_path / "workspace" / "library.sqlite")
    assert [c.name for c in saved] == ["reported-refund"]
    assert not (tmp_path / "workspace" / "cases.json").exists()
    assert "reported-refund" in list(html_tables(at)[0]["case"])


def test_upload_persists_in_the_workspace_and_is_searchable(app, tmp_path):
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    body = b"---\nid: loyalty\nupdated: 2026-03-01\n---\nLoyalty points expire after 18 months.\n"
    at.file_uploader(key="upload").upload("loyalty.md", body, "text/markdown").run()
    no_exception(at)
    assert (tmp_path / "workspace" / "uploads" / "loyalty.md").read_bytes() == body
    assert "loyalty" in list(at.dataframe[0].value["id"])
    # A restart (a new session) still has it, and it can be found.
    again = app(q="loyalty points expire", fixes="none")
    again.run()
    assert results(again)[0] == "loyalty"


def test_a_corrupt_upload_is_refused_with_a_message_and_nothing_is_lost(app, tmp_path):
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    before = list(at.dataframe[0].value["id"])
    at.file_uploader(key="upload").upload("broken.pdf", b"%PDF-1.4 garbage", "application/pdf")
    at.run()
    no_exception(at)
    assert any("broken.pdf" in e.value.replace("\\", "") for e in at.error)
    assert list(at.dataframe[0].value["id"]) == before
    assert not (tmp_path / "workspace" / "uploads" / "broken.pdf").exists()


#: The metadata form of returns-2026 (second in list order): keys name position and id.
SAVE_RETURNS_2026 = "FormSubmitter:edit_1:returns-2026-Save metadata"


def test_editing_metadata_saves_it_and_bad_dates_are_refused(app, tmp_path):
    at = app()
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run())
    updated = [t for t in at.text_input if t.label.startswith("Updated")]
    # Forms follow list order: the second document is returns-2026.
    updated[1].set_value("26/01/2026")
    at.button(key=SAVE_RETURNS_2026).click().run()
    no_exception(at)
    assert any("ISO date" in e.value for e in at.error)
    assert not (tmp_path / "workspace" / "metadata.csv").exists()
    updated = [t for t in at.text_input if t.label.startswith("Updated")]
    updated[1].set_value("2023-01-01")
    at.button(key=SAVE_RETURNS_2026).click().run()
    no_exception(at)
    assert "2023-01-01" in (tmp_path / "workspace" / "metadata.csv").read_text()
    docs = at.dataframe[0].value
    assert docs.loc[docs["id"] == "returns-2026", "updated"].iloc[0] == "2023-01-01"


def test_hostile_document_text_reaches_the_page_escaped(app, tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "evil.md").write_text(
        "---\nid: evil\nupdated: 2026-01-01\n---\n"
        "Refund <script>alert('x')</script> <img src=x onerror=\"alert(1)\"> "
        "<style>body{display:none}</style> **bold** $x^2$\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    at = app(q="refund", fixes="none")
    at.run()
    no_exception(at)
    passage = next(h.value for h in at.html if "rd-passage" in h.value and "Refund" in h.value)
    assert "<script>" not in passage and "&lt;script&gt;" in passage
    assert "<img" not in passage and "&lt;img" in passage
    assert "<style>" not in passage and "**bold**" in passage


def test_hostile_ids_long_tokens_and_invisible_characters_do_not_break_pages(
    app, tmp_path, monkeypatch
):
    docs = tmp_path / "docs"
    docs.mkdir()
    long_token = "a" * 5000
    (docs / "odd.md").write_text(
        "---\nid: x<b>bold</b>\nsubject: [link](javascript:alert(1))\nupdated: 2026-01-01\n---\n"
        f"Refund \u202egnirts desrever\u202c zero\u200bwidth {long_token} "
        "[click](javascript:alert(1))\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    at = app(q="refund", fixes="all")
    at.run()
    no_exception(at)
    assert results(at) == ["x<b>bold</b>"]
    header = next(m.value for m in at.markdown if m.value.startswith("**#1"))
    # Markdown would make "<b>" bold; escaped, it is shown as typed.
    assert "\\<b\\>" in header and "<b>" not in header.replace("\\<b\\>", "")
    passage = next(h.value for h in at.html if "rd-passage" in h.value and "Refund" in h.value)
    assert long_token in passage and "zero⟨U+200B⟩width" in passage and "<a " not in passage
    # The right-to-left override is shown as its code point, not obeyed.
    assert "⟨U+202E⟩gnirts desrever⟨U+202C⟩" in passage and "\u202e" not in passage
    for page in (SUITE, DOCUMENTS):
        at.switch_page(page).run()
        no_exception(at)


def test_fixes_off_and_on_give_what_the_core_gives(app):
    from ragdash.ingestion.ingest import load_folder
    from ragdash.retrieval.index import CorpusIndex

    index = CorpusIndex(load_folder(SAMPLE))
    for spec in ("none", "all"):
        at = app(q="enterprise sso", fixes=spec, k="3")
        at.run()
        expected = [r.doc_id for r in index.search("enterprise sso", Fixes.parse(spec))[:3]]
        assert results(at) == expected


def test_the_passage_limit_refuses_an_upload_and_names_skipped_docs(app, tmp_path, monkeypatch):
    from ragdash.ingestion.ingest import load_folder
    from ragdash.ingestion.segmentation import passage_count

    counts = [passage_count(d) for d in load_folder(SAMPLE).documents]
    monkeypatch.setenv("RAGDASH_MAX_PASSAGES", str(sum(counts)))
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    body = b"---\nid: loyalty\n---\nLoyalty points expire after 18 months.\n"
    at.file_uploader(key="upload").upload("loyalty.md", body, "text/markdown").run()
    no_exception(at)
    refused = [e.value.replace("\\", "") for e in at.error]
    assert any("loyalty.md" in e and "limit" in e and "nothing was saved" in e for e in refused)
    assert not (tmp_path / "workspace" / "uploads" / "loyalty.md").exists()
    # A lower limit: the last documents in list order are left out, each named on the page.
    monkeypatch.setenv("RAGDASH_MAX_PASSAGES", str(sum(counts) - counts[-1]))
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    no_exception(at)
    assert len(at.dataframe[0].value["id"]) == len(counts) - 1
    assert any("would take the corpus past the limit" in e.value for e in at.error)


def test_documents_page_lists_stale_versions_and_what_the_tables_fix_makes_findable(app):
    at = app()
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run())
    no_exception(at)
    [pair] = [unescaped(w.value) for w in at.warning if "older version of" in w.value]
    assert pair.startswith("returns-2024 (2024-02-01, withdrawn) looks like an older version of "
                           "returns-2026 (2026-01-05)")
    assert "listed first" in pair
    findings = next(t for t in html_tables(at) if "fix on" in t.columns)
    together = findings[findings["evidence"].str.contains("together")].iloc[0]
    assert together["case"] == "split-table" and together["change"] == "became findable"
    assert together["fix off"] == "—" and together["fix on"].startswith("plans p1-2")
    diff = next(df.value for df in at.dataframe if "text after" in df.value.columns
                or "after_text" in df.value.columns)
    assert "joined" in set(diff["change"])



def test_files_of_one_upload_batch_share_the_room_the_passage_limit_leaves(
    app, tmp_path, monkeypatch
):
    from ragdash.ingestion.ingest import load_folder
    from ragdash.ingestion.segmentation import passage_count

    room_for_one = sum(passage_count(d) for d in load_folder(SAMPLE).documents) + 1
    monkeypatch.setenv("RAGDASH_MAX_PASSAGES", str(room_for_one))
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    first = b"---\nid: loyalty\n---\nLoyalty points expire after 18 months.\n"
    second = b"---\nid: gifts\n---\nGift cards never expire.\n"
    uploader = at.file_uploader(key="upload")
    uploader.upload("loyalty.md", first, "text/markdown")
    uploader.upload("gifts.md", second, "text/markdown").run()
    no_exception(at)
    uploads = tmp_path / "workspace" / "uploads"
    assert (uploads / "loyalty.md").exists() and not (uploads / "gifts.md").exists()
    refused = [unescaped(e.value) for e in at.error]
    assert any("gifts.md" in e and "more than the 0" in e for e in refused), refused


def test_a_query_matching_nothing_shows_no_winner_and_says_so(app):
    at = app(q="quantum entanglement", fixes="all", expect="plans")
    at.run()
    no_exception(at)
    assert any("No passage matched the query" in w.value for w in at.warning)
    assert fails(at) and "No passage matched the query" in fails(at)[0]


def test_the_protected_list_reaches_the_fixes_and_the_link(app):
    at = app(q="enterprise sso", fixes="ocr", protect="enterpr1se")
    at.run()
    no_exception(at)
    assert at.text_input(key="w_protect").value == "enterpr1se"
    assert param(at, "protect") == "enterpr1se"
    at.text_input(key="w_protect").input("").run()
    assert "protect" not in at.query_params


def test_the_documents_page_shows_the_ocr_rewrite_budget(app):
    at = app(fixes="ocr")
    at.run()
    at.switch_page(DOCUMENTS).run()
    no_exception(at)
    budget = "OCR fix rewrites 1 of"
    assert any(e.label.startswith(budget) for e in at.expander)
def verdicts(at: AppTest) -> list[str]:
    """The proof-check verdict boxes on the page, in order (``FAIL · No fix …``)."""
    return verdict_boxes(at)


def fails(at: AppTest) -> list[str]:
    return [v for v in verdicts(at) if v.startswith("FAIL")]


def passes(at: AppTest) -> list[str]:
    return [v for v in verdicts(at) if v.startswith("PASS")]


@pytest.mark.parametrize("name", sorted(CASE_FIX))
def test_the_case_picker_on_explore_sets_query_expected_document_and_evidence(app, name):
    case = next(c for c in load_cases(SAMPLE / "cases.json") if c.name == name)
    at = app(q="anything at all", fixes="none")
    at.run()
    at.selectbox(key="w_case").set_value(name).run()
    no_exception(at)
    assert at.text_input(key="w_q").value == case.query
    assert at.selectbox(key="w_expect").value == case.expected_id
    assert at.text_input(key="w_evidence").value == "; ".join(case.evidence)
    assert param(at, "expect") == case.expected_id
    assert fails(at)  # with no fix the corrupted case fails, and the page says why
    assert any(d in fails(at)[0] for d in ("Ranking problem", "Extraction problem"))


@pytest.mark.parametrize("fixes", ["none", "all"])
def test_typing_a_new_query_after_picking_a_case_never_shows_its_verdict(app, fixes):
    at = app(q="x", fixes=fixes)
    at.run()
    at.selectbox(key="w_case").set_value("stale-version").run()
    assert verdicts(at), "the picked case is judged"
    for query in ("warehouse sync please", "enterprise login", "storage of basic plans"):
        at.text_input(key="w_q").input(query).run()
        no_exception(at)
        assert verdicts(at) == [], query
        assert any("No expectation set for this query" in i.value for i in at.info)
        assert at.selectbox(key="w_expect").value in ("", None)
        assert at.selectbox(key="w_case").value is None  # the picker follows the query
        assert "expect" not in at.query_params and "evidence" not in at.query_params
    # Asked, the person may keep the expectation for the new query: then it is judged.
    at.button(key="keep_expect").click().run()
    no_exception(at)
    assert at.selectbox(key="w_expect").value == "returns-2026"
    assert param(at, "expect") == "returns-2026"
    assert verdicts(at)
    # Typing the case's query back after a plain edit restores its expectation.
    at.selectbox(key="w_case").set_value("typo").run()
    at.text_input(key="w_q").input("warehuse sync plan").run()
    assert verdicts(at) == []
    at.text_input(key="w_q").input("warehuse sync").run()
    assert at.selectbox(key="w_expect").value == "inventory" and verdicts(at)


@pytest.mark.parametrize("name", sorted(CASE_FIX))
def test_typing_a_known_cases_query_picks_up_its_expectation(app, name):
    """Issue 29 #2: typing "warehuse sync" said "No expectation set … for the query return
    policy days"; only the picker gave FAIL/PASS, and the picker kept the old case. Typed
    (any case, any spacing), a known case's query brings its expectation: FAIL with no fix,
    PASS with its fix, the picker showing the case — none picked."""
    case = next(c for c in load_cases(SAMPLE / "cases.json") if c.name == name)
    at = app(q="x", fixes="none")
    at.run()
    at.text_input(key="w_q").input("  " + case.query.upper().replace(" ", "   ")).run()
    no_exception(at)
    assert at.selectbox(key="w_expect").value == case.expected_id
    assert at.selectbox(key="w_case").value == name
    assert fails(at) and not passes(at)
    # the FAIL names the fix that repairs it (stale versions: skip withdrawn repairs it
    # outright, recency only wins the tie), one click away
    named = [n for n, text in FIX_LABELS.items() for i in at.markdown
             if i.value.startswith(f"**{text} would repair this**")]  # fmt: skip
    assert named == [CASE_FIX[name]]
    at.button(key="explore_repair").click().run()
    no_exception(at)
    assert at.toggle(key=f"w_fix_{named[0]}").value
    assert passes(at)
    assert param(at, "fixes") == named[0]


def test_a_cases_query_with_its_own_top_k_brings_it(app):
    at = app(q="x", fixes="none")
    at.run()
    at.text_input(key="w_q").input("pro plan storage").run()  # split-table-control, k=2
    no_exception(at)
    assert at.number_input(key="w_k").value == 2
    assert passes(at)


def test_on_the_tour_the_sidebar_hides_the_fix_toggles(app):
    """Issue 29 #3: on the tour the fix toggles looked live but changed nothing."""
    at = app(q="warehuse sync", fixes="fuzzy")
    at.run()
    assert at.toggle(key="w_fix_fuzzy").value
    at.switch_page("ragdash/ui/pages/tour.py").run()
    no_exception(at)
    assert not [t for t in at.sidebar.toggle if t.key and t.key.startswith("w_fix_")]
    assert any("fix toggles are hidden" in c.value for c in at.sidebar.caption)
    at.switch_page(EXPLORE).run()  # the fixes are kept for the other pages
    assert at.toggle(key="w_fix_fuzzy").value and param(at, "fixes") == "fuzzy"


def test_explore_says_page_1_and_the_word_rule_only_when_it_decided(app):
    """Issue 29 #1/#5: "pages 1–1" for one-page files; the whole-word note on every
    verdict, PASS too."""
    at = app(q="warehuse sync", fixes="fuzzy", expect="inventory", evidence="15 minutes")
    at.run()
    texts = [m.value for m in at.markdown] + verdicts(at)
    assert not any("pages 1–1" in t for t in texts)
    assert any(" · page 1 · " in t for t in texts)
    assert not any("24 disks" in t for t in texts)
    at = app(q="warehuse sync", fixes="fuzzy", expect="inventory", evidence="5 minutes")
    at.run()  # "5 minutes" is only inside "15 minutes": the rule decided this FAIL
    assert any("24 disks" in v for v in fails(at))


def test_an_expectation_set_by_hand_belongs_to_the_query_it_was_set_for(app):
    at = app(q="warehuse sync", fixes="none")
    at.run()
    assert any("No expectation set" in i.value for i in at.info)
    at.selectbox(key="w_expect").set_value("inventory").run()
    assert fails(at) and "Ranking problem" in fails(at)[0]


def test_a_link_without_k_opens_at_the_top_k_of_a_fresh_app(app):
    fresh = app()
    fresh.run()
    linked = app(q="return policy days", fixes="none")
    linked.run()
    assert fresh.number_input(key="w_k").value == linked.number_input(key="w_k").value


def test_the_advanced_settings_are_grouped_and_collapsed(app):
    at = app()
    at.run()
    [advanced] = [e for e in at.sidebar.expander if e.label == "Advanced settings"]
    keys = {w.key for w in (*advanced.selectbox, *advanced.slider, *advanced.text_input,
                            *advanced.number_input)}
    assert {"w_fuzzyrule", "w_threshold", "w_ocrmap", "w_k"} <= keys
    assert not advanced.proto.expanded


def test_a_missing_docs_folder_is_reported_once_with_what_to_do(app, tmp_path, monkeypatch):
    monkeypatch.setenv("RAGDASH_DOCS", str(tmp_path / "no-such-folder"))
    for page in (None, SUITE, DOCUMENTS, "ragdash/ui/pages/triage.py"):
        at = app()
        at.run()
        if page:
            at.switch_page(page).run()
        no_exception(at)
        errors = [e.value for e in at.error if "Cannot load documents" in e.value]
        assert len(errors) == 1, (page, errors)
        assert "--docs DIR" in errors[0] and "RAGDASH_DOCS" in errors[0]
    # The tour does not need the docs folder: it runs on the bundled samples.
    at.switch_page("ragdash/ui/pages/tour.py").run()
    no_exception(at)
    assert fails(at) and passes(at)


def test_an_empty_docs_folder_says_what_to_do(app, tmp_path, monkeypatch):
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("RAGDASH_DOCS", str(tmp_path / "empty"))
    at = app()
    at.run()
    no_exception(at)
    [notice] = [i.value for i in at.info if "No documents yet" in i.value]
    assert "upload" in notice and "Documents" in notice
    assert any("0 documents" in c.value for c in at.sidebar.caption)
    for page in (SUITE, "ragdash/ui/pages/triage.py"):
        at.switch_page(page).run()
        no_exception(at)
        assert [i.value for i in at.info if "No documents yet" in i.value], page


def test_a_folder_holding_only_a_bad_pdf_says_so_on_explore(app, tmp_path, monkeypatch):
    docs = tmp_path / "bad"
    docs.mkdir()
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    at = app()
    at.run()
    no_exception(at)
    [notice] = [w.value for w in at.warning if "No document could be loaded" in w.value]
    assert "1 file was refused" in notice and "Documents page" in notice
    assert any(c.value.endswith("1 error") for c in at.sidebar.caption)


def test_the_copy_link_popover_holds_the_views_link(app):
    at = app(q="warehuse sync", fixes="fuzzy", k="2")
    at.run()
    links = [c.value for c in at.code if "q=warehuse+sync" in c.value]
    assert links and "fixes=fuzzy" in links[0] and "k=2" in links[0]
    assert f"corpus={param(at, 'corpus')}" in links[0]
    # The link follows a change made in this run (not the address bar of the last one).
    at.toggle(key="w_fix_ocr").set_value(True).run()
    links = [c.value for c in at.code if "q=warehuse+sync" in c.value]
    assert "fixes=ocr%2Cfuzzy" in links[0]


def test_no_fix_and_current_fixes_side_by_side_with_a_verdict_on_each(app):
    """Issue 29 #4: FAIL → PASS was in a second tab headed "Current fixes (ocr (ocr map
    0=o,1=i,…))"; now both rankings are side by side on the first screen, headed by the
    fixes' names."""
    at = app(q="warehuse sync", fixes="fuzzy", expect="inventory", evidence="15 minutes")
    at.run()
    no_exception(at)
    assert not at.tabs
    assert [v.split()[0] for v in verdicts(at)] == ["FAIL", "PASS"]
    assert fails(at)[0].startswith("FAIL · No fix Ranking problem")
    assert passes(at)[0].startswith("PASS · With Fuzzy matching")
    assert any(m.value == "**Current fixes: Fuzzy matching**" for m in at.markdown)
    # Scores read rounded, and no "None" anywhere in the comparison.
    frames = [df.value for df in at.dataframe if "score" in df.value.columns]
    assert "1.94" in set(frames[1]["score"])
    assert not any("None" in m.value for m in at.markdown)


def test_with_no_fix_on_every_caption_reads_as_a_sentence(app):
    at = app(q="warehuse sync", fixes="none")
    at.run()
    no_exception(at)
    texts = [unescaped(c.value) for c in at.caption] + [unescaped(m.value) for m in at.markdown]
    assert "**No fix**" in texts
    assert any("No fix is on: turn one on in the sidebar" in t for t in texts)
    assert not any(" and with ." in t or "with  " in t or "None" in t for t in texts), texts


def test_a_link_can_open_the_tour_at_a_step(app):
    from ragdash.checks.tour import TOUR

    at = app(step="3")
    at.switch_page("ragdash/ui/pages/tour.py").run()  # opened at /tour?step=3
    no_exception(at)
    assert any(h.value.startswith(f"Step 3 of 4: {TOUR[2].flaw}") for h in at.subheader)
    assert param(at, "step") == "3"
    at.button(key="tour_next").click().run()
    assert any(h.value.startswith("Step 4 of 4") for h in at.subheader)
    assert param(at, "step") == "4"
    at.switch_page(EXPLORE).run()
    assert "step" not in at.query_params


def test_the_tour_says_so_when_the_bundled_samples_are_missing(app, tmp_path, monkeypatch):
    import ragdash.ui.tour as tour

    tour._bundled.clear()
    monkeypatch.setattr(tour, "DEFAULT_DOCS", tmp_path / "gone")
    try:
        at = app()
        at.switch_page("ragdash/ui/pages/tour.py").run()
        no_exception(at)
        assert any("bundled sample documents" in e.value for e in at.error)
        # an installed ragdash has no checkout to run from: never send the user to one
        assert not any("checkout" in e.value for e in at.error)
    finally:
        tour._bundled.clear()


def test_a_bad_name_in_a_links_fix_list_drops_only_that_name_with_a_warning(app):
    at = app(q="warehuse sync", fixes="fuzzy,bogus", ocrmap="0=o,9=xx")
    at.run()
    no_exception(at)
    assert at.toggle(key="w_fix_fuzzy").value and results(at)[0] == "inventory"
    warnings = [unescaped(w.value) for w in at.warning]
    assert any("bogus" in w and "ignored" in w for w in warnings)
    assert any("9=xx" in w for w in warnings)
    assert at.text_input(key="w_ocrmap").value == "0=o"


def test_the_first_screen_says_what_ragdash_shows_and_links_the_tour(app):
    at = app()
    at.run()
    intro = at.markdown[0].value
    assert intro.startswith("ragdash shows how realistic flaws") and intro.count(". ") == 1
    links = [el.proto.page for el in at.get("page_link")]
    assert any(link.endswith("tour.py") or "tour" in link for link in links), links


def test_an_upload_named_like_a_bundled_file_does_not_break_the_documents_page(app, tmp_path):
    """Regression: ``crm.md`` uploaded with another id gave two widgets the key
    ``edit_crm.md`` and the Documents page crashed for every session."""
    from conftest import doc_text

    from ragdash.ingestion.workspace import Workspace

    Workspace(tmp_path / "workspace").save_upload(
        "crm.md", doc_text("Another CRM note.", id="crm-notes").encode()
    )
    at = app()
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run())
    no_exception(at)
    labels = [unescaped(e.label) for e in at.expander]
    assert any(label.startswith("crm — ") for label in labels)
    assert any(label.startswith("crm-notes — ") for label in labels)


def test_a_hostile_upload_name_is_saved_safely_and_shown_as_text(app, tmp_path):
    """Markdown (an outside image) in an upload's name: the file is saved under a safe name,
    the page keeps working, and no message carries the raw name."""
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    body = b"---\nid: hostile-name\n---\nSome notes.\n"
    name = "notes ![x](http---evil.example-i.png).md"
    at.file_uploader(key="upload").upload(name, body, "text/markdown").run()
    no_exception(at)
    saved = [p.name for p in (tmp_path / "workspace" / "uploads").iterdir()]
    assert len(saved) == 1 and "!" not in saved[0] and "(" not in saved[0]
    texts = [s.value for s in at.success]
    assert texts and all("![" not in t for t in texts)
    assert "hostile-name" in list(at.dataframe[0].value["id"])


def test_the_documents_page_draws_a_long_pdfs_pages_ten_at_a_time(app, tmp_path, monkeypatch):
    """Issue 29 #8: the Pages tab drew all 400 pages of a long PDF at once."""
    from pdf_factory import many_pages_pdf

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "long.pdf").write_bytes(many_pages_pdf(25, lines_per_page=3))
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    at = app()
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run())
    no_exception(at)

    def pages_drawn() -> list[int]:
        found = [re.match(r"Page (\d+) · \d+ characters", c.value) for c in at.caption]
        return [int(m.group(1)) for m in found if m]

    assert pages_drawn() == list(range(1, 11))
    picker = next(s for s in at.selectbox if s.label.startswith("Pages (25 in all)"))
    picker.set_value(21).run()
    no_exception(at)
    assert pages_drawn() == list(range(21, 26))
    # jargon explained where it is shown
    assert any(m.label == "Table rows rejoined" and m.proto.help for m in at.metric)


def test_an_uploads_warning_is_shown_once(app, tmp_path):
    """Issue 29 #8: every upload warning was shown twice (upload outcome and ingestion
    messages)."""
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    body = b"---\nid: gifts\n---\nGift cards never expire.\n"
    at.file_uploader(key="upload").upload("gifts.md", body, "text/markdown").run()
    no_exception(at)
    said = [unescaped(w.value) for w in at.warning if "has no 'updated' date" in unescaped(w.value)]
    assert len(said) == 1, said
    assert any("gifts.md added to the workspace" in unescaped(s.value) for s in at.success)


def test_after_a_metadata_edit_the_documents_page_says_which_cases_it_moved(app, tmp_path):
    """Issue 29 #9: a change to the documents made a bundled case fail and nothing said why
    results moved. Here the 2026 return policy is re-dated 2023 and withdrawn: under recency
    the 2024 policy (withdrawn too, but newer) now wins the tie."""
    at = app(fixes="recency")
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run())
    assert not any("moved these cases" in w.value for w in at.warning)
    updated = [t for t in at.text_input if t.label.startswith("Updated")]
    updated[1].set_value("2023-01-01")  # list order: the second document is returns-2026
    [t for t in at.selectbox if t.label == "Status"][1].set_value("withdrawn")
    at.button(key=SAVE_RETURNS_2026).click().run()
    no_exception(at)
    [moved] = [unescaped(w.value) for w in at.warning if "moved these cases" in w.value]
    assert "stale-version**: PASS → FAIL" in moved
    assert "now first: returns-2024 p1 #1 (was returns-2026 p1 #1)" in moved
    assert "typo" not in moved  # unchanged cases are not listed


def test_the_documents_page_draws_a_document_only_when_its_row_is_opened(
    app, tmp_path, monkeypatch
):
    """Issue 45: every closed row was computed and sent (its pages, passages, inspection and
    page images): 5.8–13 s to open the page. Now the list draws first, a row's view when it
    is opened, and a PDF is inspected once per content (a renamed copy is not redone)."""
    import uuid

    from pdf_factory import text_pages_pdf

    import ragdash.ui.documents as documents

    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = text_pages_pdf([[f"Order {uuid.uuid4().hex}: the returns policy applies."]] * 2)
    (docs / "first.pdf").write_bytes(pdf)
    (docs / "copy.pdf").write_bytes(pdf)  # the same bytes under another name
    (docs / "notes.md").write_text("# Notes\n\nWarehouse sync runs nightly.\n")
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    inspected = []
    real = documents.inspect_pdf
    monkeypatch.setattr(documents, "inspect_pdf",
                        lambda data, **kw: inspected.append(1) or real(data, **kw))  # fmt: skip
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    no_exception(at)
    assert sorted(at.dataframe[0].value["id"]) == ["copy", "first", "notes"]
    assert len([e for e in at.expander if (e.key or "").startswith("doc_open_")]) == 3
    assert not any(t.label == "Inspection" for t in at.tabs)
    assert inspected == [] and not at.get("image")  # nothing of a closed row is drawn
    open_documents(at, "first")
    no_exception(at)
    assert [t.label for t in at.tabs if t.label == "Inspection"] == ["Inspection"]
    assert len(at.get("image")) == 1 and inspected == [1]
    open_documents(at, "copy")
    no_exception(at)
    assert len(at.get("image")) == 2 and inspected == [1]  # the same content: not redone
