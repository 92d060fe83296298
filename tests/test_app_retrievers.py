"""The dashboard with other retrievers (Streamlit AppTest): the selector, links that carry
only what is safe, a team's function or service only as named where the dashboard was
started (never from the page, a link or a session), fixes greyed out where they cannot
apply, BM25's per-token breakdown, and the Test suite's metrics beside the ablation."""

from __future__ import annotations

import pytest
from conftest import open_documents, require_module
from test_app import ROOT, SUITE, html_tables, no_exception, param, results
from test_retrievers import mypkg  # noqa: F401 - the fixture: a team's search function

from ragdash.settings import Fixes
from ragdash.storage.case_store import load_cases
from ragdash.storage.passages_export import passage_records

require_module("bm25s")

from bm25_service import running  # noqa: E402


def texts(elements) -> str:
    """The elements' text as shown (Markdown escapes removed)."""
    return "\n".join(e.value for e in elements).replace("\\", "")


def all_text(at) -> str:
    """Every element the page drew, as its protobuf text (markdown, HTML, tables, widgets)."""
    found = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            found.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(found).replace("\\", "")


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
    frames = [d.value for d in at.dataframe] + html_tables(at)  # the breakdown wraps
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
    at = app(q="return policy days", retriever="python", callable="cProfile:run")
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_retriever").value == "seed"
    assert "started without a Python function" in texts(at.warning)


def _payload(target) -> str:
    """A query that writes ``target`` when a retriever runs it as Python (``cProfile.run``
    execs its first argument)."""
    return f"__import__('pathlib').Path({str(target)!r}).write_text('ran')"


def test_a_visitor_cannot_name_a_function_in_the_page_a_link_or_the_session(app, tmp_path):
    """Issue 24 #1: *Python function* + ``cProfile:run`` + a query ran Python on the server."""
    target = tmp_path / "pwned.txt"
    at = app()
    # a session crafted as the old sidebar left it: the python kind, a callable, a query
    at.session_state["w_retriever"] = "python"
    at.session_state["w_callable"] = "cProfile:run"
    at.session_state["w_q"] = _payload(target)
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_retriever").options == ["builtin (ragdash scorer)", "bm25"]
    assert [t.key for t in at.sidebar.text_input] == ["w_ocrmap", "w_protect"]  # no Function
    assert not target.exists()
    at.switch_page(SUITE).run()  # every page ranks with the same retriever
    no_exception(at)
    at = app(q=_payload(target), retriever="python", callable="cProfile:run")
    at.run()
    no_exception(at)
    assert not target.exists()


def test_the_operators_python_function_is_offered_read_only_and_ranks(
    app, monkeypatch, mypkg  # noqa: F811 - the fixture
):
    monkeypatch.setenv("RAGDASH_RETRIEVER", "python")
    monkeypatch.setenv("RAGDASH_CALLABLE", "mypkg.mod:search")
    at = app(fixes="none")
    at.run()
    no_exception(at)
    picker = at.selectbox(key="w_retriever")
    assert picker.options == ["builtin (ragdash scorer)", "bm25", "Python function"]
    assert picker.value == "python"  # a fresh session opens on the operator's retriever
    assert [t.key for t in at.sidebar.text_input] == ["w_ocrmap", "w_protect"]
    assert "mypkg.mod:search" in captions(at) and "read-only" in captions(at)
    assert param(at, "retriever") == "python" and "callable" not in at.query_params
    at = app(q="warehouse sync", fixes="none", retriever="python", callable="cProfile:run")
    at.run()
    no_exception(at)
    assert results(at)[0] == "inventory"  # ranked by mypkg.mod:search (BM25), not the seed
    assert "Ranked by **python mypkg.mod:search**" in captions(at)
    assert "callable: a link never names a Python function" in texts(at.warning)


def test_the_operators_service_is_called_and_a_link_cannot_point_elsewhere(
    app, sample_index, monkeypatch
):
    records = list(passage_records(sample_index, Fixes()))
    with running(records) as service, running(records) as other:
        monkeypatch.setenv("RAGDASH_RETRIEVER", "http")
        monkeypatch.setenv("RAGDASH_URL", service.url + "/search")
        at = app(q="warehouse sync", fixes="none", retriever="http", url=other.url + "/search")
        at.run()
        no_exception(at)
        assert other.requests == []  # the link's URL is never asked
        assert service.requests and service.requests[0][1]["query"] == "warehouse sync"
        assert results(at)[0] == "inventory"
        assert "url" not in at.query_params
        assert "url: a link never names a service URL" in texts(at.warning)
        # the passage-side fixes need a re-index; status, versions and recency are applied
        # to the service's hits (ragdash/retrieval/post_fixes.py), fuzzy and ocr to the query
        for name in ("tables", "unicode"):
            assert at.toggle(key=f"w_fix_{name}").disabled
        for name in ("recency", "status", "versions", "fuzzy", "ocr"):
            assert not at.toggle(key=f"w_fix_{name}").disabled
        assert "Not applied with http:" in captions(at) and "corpus-side" in captions(at)
        assert "own: an external retriever reports no per-token breakdown" in captions(at)
    monkeypatch.delenv("RAGDASH_RETRIEVER")
    at = app(q="warehouse sync", retriever="http", url=other.url + "/search")
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_retriever").value == "seed"
    assert "started without an HTTP service" in texts(at.warning)


def test_a_bad_operator_setting_is_one_message_and_the_page_uses_seed(app, monkeypatch):
    monkeypatch.setenv("RAGDASH_RETRIEVER", "python")
    monkeypatch.setenv("RAGDASH_CALLABLE", "not a callable")
    at = app()
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_retriever").options == ["builtin (ragdash scorer)", "bm25"]
    assert "started with cannot be used" in texts(at.sidebar.error)


def test_a_dead_service_gives_a_message_on_explore_and_error_rows_on_the_suite(
    app, monkeypatch
):
    with running([{"doc_id": "x", "text": "x", "page_start": 1}]) as service:
        url = service.url + "/search"
    monkeypatch.setenv("RAGDASH_RETRIEVER", "http")
    monkeypatch.setenv("RAGDASH_URL", url)
    monkeypatch.setenv("RAGDASH_RETRIES", "0")
    at = app(q="warehouse sync", retriever="http")
    at.run()
    no_exception(at)
    assert any("connection refused" in e.value for e in at.error)
    at.switch_page(SUITE).run()
    no_exception(at)
    [table] = html_tables(at)  # the Test suite's wrapping HTML table
    assert set(table["verdict"]) == {"ERROR"}
    assert "connection refused" in table["message"].iloc[0]
    assert "failed on every case" in texts(at.warning)


def test_the_suite_shows_metrics_per_configuration_beside_the_ablation(app):
    at = app(fixes="none", retriever="bm25")
    at.run()
    at.switch_page(SUITE).run()
    no_exception(at)
    metrics = next(d.value for d in at.dataframe if "MRR" in d.value.columns)
    assert list(metrics["configuration"])[:2] == ["No fix", "Recency tie-break"]
    by_config = metrics.set_index("configuration")
    assert by_config.loc["All fixes", "MRR"] == 1.0 and by_config.loc["No fix", "MRR"] < 1.0
    assert by_config.loc["All fixes", "passed"] == "8/8"
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
    assert "Skip withdrawn" in repaired_by and "Recency" not in repaired_by  # BM25: no tie


def test_the_suite_fragility_search_runs_against_bm25_and_points_external_ones_to_the_cli(
    app, monkeypatch
):
    from ragdash import CorpusIndex, load_folder, make_retriever
    from ragdash.checks.fragility import find_breaking_perturbation

    at = app(fixes="fuzzy", retriever="bm25")
    at.run()
    at.switch_page(SUITE).run()
    at.button(key="suite_fragility_run").click().run(timeout=120)
    no_exception(at)
    sentences = {md.value.split("** — ")[0].strip("*").replace("\\", ""): md.value
                 for md in at.markdown if "** — " in md.value}  # fmt: skip
    bm25 = make_retriever("bm25", CorpusIndex(load_folder(ROOT / "sample_docs")))
    case = next(c for c in load_cases(ROOT / "sample_docs" / "cases.json")
                if c.name == "typo-control")  # fmt: skip
    found = find_breaking_perturbation(bm25, case, Fixes(), "typo")  # type: ignore[arg-type]
    assert f"breaks after {found.edits} edit" in sentences["typo-control"]
    with running(list(passage_records(bm25.index, Fixes()))) as service:
        monkeypatch.setenv("RAGDASH_RETRIEVER", "http")
        monkeypatch.setenv("RAGDASH_URL", service.url + "/search")
        at = app()
        at.run()
        at.switch_page(SUITE).run()
    no_exception(at)
    assert "from the CLI, `ragdash fragility --retriever …`" in captions(at)


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/secret", "answered HTTP 500 Internal Server Error"),
        ("/huge-number", "a number of 5,000 digits"),
        ("/deep", "nested more than 64 levels deep"),
    ],
)
def test_a_hostile_services_answer_is_one_message_on_each_page_never_its_body(
    app, monkeypatch, path, shown
):
    """Issue 24 #5: after Connect the page showed 80 characters of the error body (which may
    hold secrets); a 5,000-digit number or 100,000-deep JSON was an uncaught exception."""
    from hostile_service import SECRET, hostile_service

    with hostile_service() as service:
        monkeypatch.setenv("RAGDASH_RETRIEVER", "http")
        monkeypatch.setenv("RAGDASH_URL", service.url + path)
        monkeypatch.setenv("RAGDASH_RETRIES", "0")
        at = app(q="warehouse sync", retriever="http")
        at.run()
        no_exception(at)
        assert shown in texts(at.error)
        at.switch_page(SUITE).run()
        no_exception(at)
        [table] = html_tables(at)
        assert set(table["verdict"]) == {"ERROR"} and shown in table["message"].iloc[0]
        page = all_text(at)
    assert shown in page and "db_password" not in page and SECRET not in page


def test_the_operators_service_shows_its_field_paths_and_auth_variable_never_the_secret(
    app, monkeypatch
):
    from es_service import running_es
    from test_app import DOCUMENTS


    monkeypatch.setenv("SEARCH_TOKEN", "Bearer s3cr3t-value")
    monkeypatch.setenv("RAGDASH_RETRIEVER", "http")
    monkeypatch.setenv("RAGDASH_SHAPE", "elasticsearch")
    monkeypatch.setenv("RAGDASH_AUTH_ENV", "SEARCH_TOKEN")
    monkeypatch.setenv("RAGDASH_RETRIES", "2")
    records = [{"id": "inventory#1", "doc_id": "inventory", "page_start": 1,
                "text": "Warehouse sync runs every 15 minutes."}]  # fmt: skip
    with running_es(records) as es:
        monkeypatch.setenv("RAGDASH_URL", es.url + "/passages/_search")
        at = app(q="warehouse sync", fixes="none", retriever="http")
        at.run()
        no_exception(at)
        shown = captions(at)
        assert results(at)[0] == "inventory", (shown, texts(at.error), texts(at.warning))
        assert es.requests, (shown, texts(at.error), texts(at.warning))
        assert es.requests[0][1]["query"] == {"multi_match": {"query": "warehouse sync",
                                                              "fields": ["text"]}}  # fmt: skip
    assert "shape `elasticsearch`; hits at `hits.hits`" in shown
    assert "id `_source.doc_id`; text `_source.text`" in shown
    assert "Authorization from the variable `SEARCH_TOKEN`" in shown
    assert "10 s in all, 2 retries" in shown
    assert "s3cr3t" not in all_text(at)
    open_documents(at.switch_page(DOCUMENTS).run())  # rows are lazy: open them
    no_exception(at)
    tries = [t for t in at.text_input if (t.key or "").startswith("try_")]
    tries[0].set_value("warehouse").run()
    no_exception(at)
    assert "searches its own whole index, so it cannot be asked about one document" in (
        captions(at)
    )


def test_the_operators_langchain_retriever_is_offered_read_only_with_its_fields(
    app, monkeypatch, tmp_path
):
    require_module("langchain_core")
    from conftest import SAMPLE_DOCS
    from test_langchain_retriever import RAG_MODULE

    package = tmp_path / "lcapp"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rag.py").write_text(RAG_MODULE.format(docs=str(SAMPLE_DOCS)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("RAGDASH_RETRIEVER", "langchain")
    monkeypatch.setenv("RAGDASH_CALLABLE", "lcapp.rag:retriever")
    at = app(q="warehouse sync", fixes="none", retriever="langchain")
    at.run()
    no_exception(at)
    assert at.selectbox(key="w_retriever").options[-1] == "LangChain retriever"
    assert results(at)[0] == "inventory"
    assert "id `metadata.doc_id`; text `page_content`" in captions(at)
    assert "lcapp.rag:retriever" in captions(at) and "read-only" in captions(at)
