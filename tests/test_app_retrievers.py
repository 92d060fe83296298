"""The dashboard with other retrievers (Streamlit AppTest): the selector, links that carry
only what is safe, Connect before a service is called, fixes greyed out where they cannot
apply, BM25's per-token breakdown, and the Test suite's metrics beside the ablation."""

from __future__ import annotations

import pytest
from test_app import ROOT, SUITE, html_tables, no_exception, param, results

from ragdash.settings import Fixes
from ragdash.storage.case_store import load_cases
from ragdash.storage.passages_export import passage_records

pytest.importorskip("bm25s")

from bm25_service import running  # noqa: E402


def captions(at) -> str:
    """The captions' text as shown (Markdown escapes removed)."""
    return "\n".join(c.value for c in at.caption).replace("\\", "")


def test_choosing_bm25_ranks_with_it_shows_tf_idf_and_goes_in_the_link(app):
    at = app(q="warehuse sync", fixes="none")
    at.run()
    assert results(at)[0] == "crm"  # seed: the typo scores nothing, list order wins
    at.selectbox(key="w_retriever").set_value("bm25").run()
    no_exception(at)
    assert results(at)[0] == "inventory"  # BM25's idf and length normalization
    assert "Ranked by **bm25 (k1=1.2, b=0.75)**" in captions(at)
    frames = [d.value for d in at.dataframe]
    assert any({"tf", "idf", "points"} <= set(f.columns) for f in frames)
    assert param(at, "retriever") == "bm25"
    at.number_input(key="w_k1").set_value(2.0).run()
    assert param(at, "k1") == "2"


def test_a_link_restores_bm25_but_never_a_python_callable(app):
    at = app(q="return policy days", retriever="bm25", b="0.5")
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_retriever").value == "bm25"
    assert at.number_input(key="w_b").value == 0.5
    at = app(q="return policy days", retriever="python")
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_retriever").value == "seed"
    assert any("a link never calls a Python function" in w.value for w in at.warning)


def test_a_service_from_a_link_is_called_only_after_connect(app, sample_index):
    records = list(passage_records(sample_index, Fixes()))
    with running(records) as service:
        url = service.url + "/search"
        at = app(q="warehouse sync", fixes="none", retriever="http", url=url)
        at.run()
        no_exception(at)
        assert service.requests == []  # opening the link sent nothing
        assert any("Not connected" in w.value for w in at.warning)
        for name in ("recency", "status", "tables"):
            assert at.toggle(key=f"w_fix_{name}").disabled
        assert not at.toggle(key="w_fix_fuzzy").disabled
        assert "Not applied with http: corpus-side" in captions(at)
        at.button(key="w_connect").click().run()
        no_exception(at)
        assert service.requests and service.requests[0][1]["query"] == "warehouse sync"
        assert results(at)[0] == "inventory"
        assert param(at, "url") == url
        assert "own: an external retriever reports no per-token breakdown" in captions(at)


def test_a_dead_service_gives_a_message_on_explore_and_error_rows_on_the_suite(app):
    with running([{"doc_id": "x", "text": "x", "page_start": 1}]) as service:
        url = service.url + "/search"
    at = app(q="warehouse sync", retriever="http", url=url)
    at.run()
    at.button(key="w_connect").click().run()
    no_exception(at)
    assert any("connection refused" in e.value for e in at.error)
    at.switch_page(SUITE).run()
    no_exception(at)
    [table] = html_tables(at)  # the Test suite's wrapping HTML table
    assert set(table["verdict"]) == {"ERROR"}
    assert "connection refused" in table["message"].iloc[0]
    assert any("failed on every case" in w.value for w in at.warning)


def test_the_suite_shows_metrics_per_configuration_beside_the_ablation(app):
    at = app(fixes="none", retriever="bm25")
    at.run()
    at.switch_page(SUITE).run()
    no_exception(at)
    metrics = next(d.value for d in at.dataframe if "MRR" in d.value.columns)
    assert list(metrics["configuration"])[:2] == ["none", "recency"]
    by_config = metrics.set_index("configuration")
    assert by_config.loc["all", "MRR"] == 1.0 and by_config.loc["none", "MRR"] < 1.0
    assert by_config.loc["all", "passed"] == "8/8"
    assert any("against **bm25" in m.value for m in at.markdown)


def test_triage_diagnoses_a_report_against_bm25_and_names_what_repairs_it(app):
    from test_app_triage import TRIAGE, submit_report

    at = app(retriever="bm25")
    at.run()
    at.switch_page(TRIAGE).run()
    submit_report(at, "return policy days", "returns-2026", "30 days")
    no_exception(at)
    assert "Diagnosed against **bm25 (k1=1.2, b=0.75)**" in captions(at).replace("\\", "")
    repaired_by = next(m.value for m in at.markdown if m.value.startswith("**Repaired by:**"))
    assert "`status`" in repaired_by and "`recency`" not in repaired_by  # BM25 has no tie


def test_the_suite_fragility_search_runs_against_bm25_and_points_external_ones_to_the_cli(app):
    from ragdash import CorpusIndex, load_folder, make_retriever
    from ragdash.checks.fragility import find_breaking_perturbation

    at = app(fixes="fuzzy", retriever="bm25")
    at.run()
    at.switch_page(SUITE).run()
    at.button(key="suite_fragility_run").click().run(timeout=120)
    no_exception(at)
    sentences = {md.value.split("** — ")[0].strip("*").replace("\\", ""): md.value
                 for md in at.markdown if "** — " in md.value}  # fmt: skip
    bm25 = make_retriever("bm25", CorpusIndex(load_folder(ROOT / "ragdash" / "samples")))
    case = next(c for c in load_cases(ROOT / "ragdash" / "samples" / "cases.json")
                if c.name == "typo-control")  # fmt: skip
    found = find_breaking_perturbation(bm25, case, Fixes(), "typo")  # type: ignore[arg-type]
    assert f"breaks after {found.edits} edit" in sentences["typo-control"]
    with running(list(passage_records(bm25.index, Fixes()))) as service:
        at = app(retriever="http", url=service.url + "/search")
        at.run()
        at.button(key="w_connect").click().run()
        at.switch_page(SUITE).run()
    no_exception(at)
    assert "from the CLI, `ragdash fragility --retriever …`" in captions(at)
