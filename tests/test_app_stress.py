"""The Stress test page (issue 26) in the real app (AppTest): a run on the bundled samples
shows the core's numbers in the matrix cells, a faulted case opens in Explore with the
injected document marked and the fault named on top, a link reopened in a fresh session
rebuilds the faulted case (or says it is gone), a cancelled run keeps nothing, and the docs
folder and the workspace are byte-identical after a run."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from types import SimpleNamespace

from conftest import SAMPLE_CASES, SAMPLE_DOCS
from streamlit.testing.v1 import AppTest
from test_app import no_exception

from ragdash.checks.stress import FAULTS, configurations_for, faulted_variant, run_stress
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.storage.case_store import load_cases

ROOT = Path(__file__).resolve().parent.parent
STRESS = "ragdash/ui/pages/stress.py"


def _run_page(at: AppTest, **inputs) -> AppTest:
    """Run the page's form with ``inputs``; the case library unless another source is named
    (the page's default is generated cases: these tests compare with the bundled cases)."""
    inputs.setdefault("stress_source", "library")
    at.run()
    at.switch_page(STRESS).run()
    no_exception(at)
    for key, value in inputs.items():
        element = next(
            e for kind in ("multiselect", "slider", "number_input", "radio")
            for e in at.get(kind) if e.key == key
        )  # fmt: skip
        element.set_value(value)
    run = next(b for b in at.button if b.label == "Run the stress test")
    run.click().run(timeout=300)
    no_exception(at)
    return at


def _matrices(at: AppTest) -> list:
    """The matrix charts' protos (AppTest has no accessor for charts)."""
    from test_app_text import walk

    return [
        node.proto
        for node in walk(at._tree)
        if getattr(node, "type", "") == "vega_lite_chart" and "stresscell" in node.proto.spec
    ]


def _cells(at: AppTest) -> dict[tuple[str, str, str], str]:
    """What each matrix cell says (``7/10``), by (retriever, fault key, configuration key):
    read from the data Streamlit sends the browser with each chart."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    found = {}
    for proto in _matrices(at):
        for named in proto.datasets:
            frame = convert_arrow_bytes_to_pandas_df(named.data.data)
            for row in frame.to_dict("records"):
                found[(row["retriever"], row["fault_key"], row["config_key"])] = row["cell"]
    return found


def test_a_run_on_the_samples_shows_the_cores_numbers_in_the_matrix(app):
    at = _run_page(app(), stress_seed=7, stress_rate=0.3)
    shown = _cells(at)
    report = run_stress(
        load_folder(SAMPLE_DOCS), load_cases(SAMPLE_CASES), faults=FAULTS, rate=0.3, seed=7,
        retrievers=(RetrieverSpec(),),
    )  # fmt: skip
    expected = {
        ("seed", c.fault, c.configuration): f"{c.passed}/{c.total}" if c.total else "n/a"
        for c in report.cells
    }
    assert shown == expected
    assert {(f, c) for _, f, c in shown} == {
        (f, c) for f in FAULTS for c in configurations_for(f)
    }  # no fix, the targeted fix, all fixes: for every fault
    text = " ".join(m.value for m in at.markdown)
    assert "Which fix repairs which fault" in text and "Cases no fix saves" in text
    downloads = [d.proto.label for d in at.get("download_button")]
    assert downloads == ["Download the report (JSON)", "Download the report (HTML)"]


def test_two_retrievers_give_one_matrix_each_with_the_cores_numbers(app):
    at = _run_page(app(), stress_retrievers=["seed", "bm25"], stress_faults=["stale", "typo"])
    shown = _cells(at)
    report = run_stress(
        load_folder(SAMPLE_DOCS), load_cases(SAMPLE_CASES), faults=("stale", "typo"), rate=0.3,
        seed=0, retrievers=(RetrieverSpec(), RetrieverSpec("bm25")),
    )  # fmt: skip
    assert shown == {
        (c.retriever, c.fault, c.configuration): f"{c.passed}/{c.total}" if c.total else "n/a"
        for c in report.cells
    }
    assert {r for r, _, _ in shown} == {"seed", "bm25"}


def _open_first(at: AppTest, fault: str) -> AppTest:
    """Pick the first faulted case of ``fault`` and open it in Explore."""
    picker = at.selectbox(key="stress_pick")
    labels = picker.options  # as shown
    index = next(i for i, text in enumerate(labels) if f"· {fault_title(fault)}" in text)
    picker.set_value(index).run()
    at.button(key="stress_pick_open").click().run(timeout=120)
    no_exception(at)
    return at


def fault_title(fault: str) -> str:
    from ragdash.ui.stress_view import FAULT_TITLES

    return FAULT_TITLES[fault]


def _injected_marks(at: AppTest) -> list[str]:
    """Where Explore marks a document as injected: a passage heading's badge or a ranking
    table's row."""
    shown = [m.value.replace("\\", "") for m in at.markdown]  # as read, escapes dropped
    marks = [m for m in shown if "injected by the stress test" in m or "(injected) ranks" in m]
    for frame in at.dataframe:
        if "passage" in frame.value.columns:
            marks += [p for p in frame.value["passage"] if p.endswith("[injected]")]
    return marks


def test_a_stale_duplicate_opens_in_explore_marked_as_injected(app):
    at = _open_first(_run_page(app(), stress_faults=["stale"]), "stale")
    assert at.title[0].value == "Explore"
    note = " ".join(m.value for m in at.markdown)
    assert "fault injected: stale duplicate" in note
    params = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    case = next(c for c in load_cases(SAMPLE_CASES) if c.name == params["scase"])
    variant = faulted_variant(load_folder(SAMPLE_DOCS), case, "stale", rate=0.3, seed=0)
    assert variant is not None and variant.injected
    marks = _injected_marks(at)
    assert marks and all(any(d in m for d in variant.injected) for m in marks)
    # the URL carries names and numbers only: the run id, the fault, the case, the seed…
    assert params["sfault"] == "stale" and params["sseed"] == "0"
    stress = {k for k in params if k.startswith("s") and k != "seed"}
    assert stress <= {"stress", "sfault", "scase", "scases", "sseed", "srate", "svariant",
                      "sconfig", "sretriever", "sn"}  # fmt: skip

    at.button(key="stress_leave").click().run()
    no_exception(at)
    assert _injected_marks(at) == []
    assert "stress" not in at.query_params


def test_a_link_to_a_faulted_case_is_rebuilt_in_a_fresh_session(app):
    first = _open_first(_run_page(app(), stress_faults=["stale"]), "stale")
    link = {k: (v[0] if isinstance(v, list) else v) for k, v in first.query_params.items()}
    fresh = app(**link)
    fresh.run()
    no_exception(fresh)
    assert "fault injected: stale duplicate" in " ".join(m.value for m in fresh.markdown)
    assert _injected_marks(fresh)

    gone = app(**{**link, "scase": "no-such-case"})
    gone.run()
    no_exception(gone)
    assert any("is gone" in w.value for w in gone.warning)
    assert _injected_marks(gone) == []


def test_a_link_to_a_generated_case_generates_it_again(app):
    first = _open_first(_run_page(app(), stress_source="generated", stress_n=6,
                                  stress_seed=3), "stale")  # fmt: skip
    link = {k: (v[0] if isinstance(v, list) else v) for k, v in first.query_params.items()}
    assert (link["scases"], link["sn"], link["sseed"]) == ("generated", "6", "3")
    fresh = app(**link)
    fresh.run()
    no_exception(fresh)
    assert "fault injected: stale duplicate" in " ".join(m.value for m in fresh.markdown)
    assert _injected_marks(fresh)


def test_a_cancelled_run_keeps_nothing_and_says_so(app):
    at = app()
    at.run()
    at.switch_page(STRESS).run()
    at.session_state["stress_running"] = "interrupted"  # what a run stopped mid-way leaves
    at.run()
    no_exception(at)
    assert any("cancelled before it finished" in i.value for i in at.info)
    assert _cells(at) == {}


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_run_never_touches_the_docs_folder_or_the_workspace(tmp_path, monkeypatch):
    docs, workspace = tmp_path / "docs", tmp_path / "workspace"
    shutil.copytree(SAMPLE_DOCS, docs)
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    monkeypatch.setenv("RAGDASH_WORKSPACE", str(workspace))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()  # the app itself sets the workspace up on the first visit
    before_docs, before_ws = _tree(docs), _tree(workspace) if workspace.exists() else {}
    for source in ("library", "generated", "samples"):  # samples: docs is not the samples
        _run_page(at, stress_source=source, stress_n=5)
        assert _cells(at)
        at = _open_first(at, "stale")
    assert _tree(docs) == before_docs
    assert (_tree(workspace) if workspace.exists() else {}) == before_ws


def test_only_ragdash_scorers_and_the_operators_model_are_offered():
    from ragdash.ui.stress import stress_retrievers

    seed = RetrieverSpec()
    http = RetrieverSpec("http", url="http://127.0.0.1:9/search")
    assert list(stress_retrievers(seed, http)) == ["seed", "bm25"]
    bm25 = RetrieverSpec("bm25", k1=1.5)
    assert stress_retrievers(bm25, seed)["bm25"] == bm25  # the sidebar's k1 and b


def test_a_click_on_a_cell_names_its_fault_and_configuration():
    from ragdash.ui.stress import clicked_cell

    point = {"fault_key": "stale", "config_key": "none"}
    event = SimpleNamespace(selection={"stresscell": [point]})
    assert clicked_cell(event) == ("stale", "none")
    assert clicked_cell(SimpleNamespace(selection={"stresscell": []})) is None
    assert clicked_cell(None) is None


def test_the_page_shows_what_ragdash_stress_prints_for_the_same_inputs(app):
    """The same run from the dashboard and from the CLI: the same numbers (the CLI's
    ``--json`` ``faults`` holds the first retriever's cells)."""
    import json

    from conftest import run_module

    done = run_module(
        "ragdash", "stress", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
        "--seed", "7", "--rate", "0.3", "--json", timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)["faults"]
    at = _run_page(app(), stress_seed=7, stress_rate=0.3)
    shown = _cells(at)
    assert {
        (fault, configuration): f"{cell['passed']}/{cell['total']}" if cell["total"] else "n/a"
        for fault, cells in printed.items()
        for configuration, cell in cells.items()
    } == {(f, c): text for (_, f, c), text in shown.items()}


def test_a_run_stopped_mid_way_keeps_nothing_and_the_next_visit_says_it_was_cancelled(
    app, monkeypatch
):
    """Cancel reruns the page, which stops the run at its next progress update: simulated
    by a run that reports progress and is then stopped as Streamlit stops it."""
    import streamlit as st

    import ragdash.ui.stress as page

    def stopped(*args, progress=None, **kwargs):
        progress(0.4, "typo · stale")
        st.stop()

    monkeypatch.setattr(page, "run_stress", stopped)
    at = _run_page(app())
    assert _cells(at) == {}
    at.run()
    no_exception(at)
    assert any("cancelled before it finished" in i.value for i in at.info)
    assert _cells(at) == {}


def test_a_run_that_breaks_shows_an_error_card_not_a_cancellation(app, monkeypatch):
    import ragdash.ui.stress as page

    def broken(*args, **kwargs):
        raise IndexError("tuple index out of range")

    monkeypatch.setattr(page, "run_stress", broken)
    at = _run_page(app())
    assert any("cannot be shown" in e.value for e in at.error)
    at.run()
    assert not any("cancelled" in i.value for i in at.info)


def test_generated_cases_are_the_default_source(app):
    """Issue 43: the page defaulted to the case library, where the table fault is n/a in
    every column (no library case is a table row)."""
    at = app()
    at.run()
    at.switch_page(STRESS).run()
    no_exception(at)
    source = next(r for r in at.radio if r.key == "stress_source")
    assert source.value == "generated" and source.options[0].startswith("Generated")


def test_a_cells_click_opens_a_case_the_fault_broke_first():
    """Issue 43: a stress cell opened a case that fails without the fault too (FAIL → FAIL
    with an unrelated suggestion): a case that passes clean and fails faulted comes first."""
    from ragdash.checks.stress import StressResult
    from ragdash.ui.stress import _cell_results

    def result(case: str, passed: bool, clean: bool) -> StressResult:
        return StressResult(case, "typo", "", "none", "seed", "q", passed, "pass" if passed
                            else "ranking", "x", (), (), clean_passed=clean)  # fmt: skip

    results = [result("fails-anyway", False, False), result("passes", True, True),
               result("broken", False, True)]  # fmt: skip
    run = SimpleNamespace(report=SimpleNamespace(results=results))
    assert [r.case for r in _cell_results(run, "typo", "none", "seed")] == [
        "broken", "fails-anyway", "passes"]  # fmt: skip


def test_the_core_says_which_faulted_cases_pass_clean():
    """A bundled corrupted case fails with no fix before any fault: it is not measured (a
    failure there is not the fault's doing, issue 46) and the report says the retriever
    does not answer it clean; its control passes clean and is measured."""
    report = run_stress(load_folder(SAMPLE_DOCS), load_cases(SAMPLE_CASES), faults=("typo",))
    none = {r.case: r for r in report.results if r.configuration == "none"}
    assert "typo" not in none and ("seed", "typo") not in report.clean
    assert ("seed", "typo-control") in report.clean
    assert report.clean_passed("seed") < len(report.cases)
    assert none["typo-control"].clean_passed is True
    assert any(r.broken_by_fault for r in report.results)


def test_the_cases_no_fix_saves_name_the_builtin_scorer_as_the_rest_of_the_page(app):
    """The table of cases no fix saves said ``seed`` (the scorer's internal kind) where the
    matrix, the retriever line and the command say ``builtin``."""
    at = _run_page(app(), stress_source="generated", stress_seed=0, stress_rate=0.3)
    lost = [
        h.proto.body for h in at.get("html") if 'aria-label="Cases no fix saves"' in h.proto.body
    ]
    assert lost, "seed 0 on the samples leaves cases no fix saves (the docs' screenshot)"
    assert "<td>builtin</td>" in lost[0] and "<td>seed</td>" not in lost[0]
    intro = " ".join(m.value for m in at.markdown)
    assert "page break hurt **your** retriever" in intro
