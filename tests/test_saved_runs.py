"""Saved runs, the diff of two runs and the CI gate: the bundled testbed with no fixes and
then all fixes gives 4 cases fail→pass with the repairing fix named; a changed corpus names
its documents; an old library keeps its data when it learns to keep runs; the CLI saves,
lists, shows, diffs, reports and gates (exit 1 naming the case when a fix is removed)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import replace

import pytest
from conftest import SAMPLE_CASES, SAMPLE_DOCS

from ragdash.checks.ablation import configurations
from ragdash.checks.html_report import diff_report, run_report
from ragdash.checks.rundiff import diff_runs, diff_text, gate, parse_min_metric
from ragdash.checks.runs import run_cases, run_configurations
from ragdash.checks.snapshot import SavedRun, load_run_file, snapshot
from ragdash.cli import main
from ragdash.errors import RunError, SettingsError
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.retrievers import make_retriever
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import FIX_NAMES, Fixes
from ragdash.storage.case_store import load_cases
from ragdash.storage.library import CaseLibrary

REPAIRED = {"stale-version": "recency", "ocr-noise": "ocr", "typo": "fuzzy",
            "split-table": "tables"}  # fmt: skip
ALL_BUT_OCR = ",".join(n for n in FIX_NAMES if n != "ocr")


def saved(index: CorpusIndex, fixes: Fixes, name: str = "", spec=None) -> SavedRun:
    spec = spec or RetrieverSpec()
    retriever = make_retriever(spec, index)
    cases = load_cases(SAMPLE_CASES)
    rows, _ = run_configurations(retriever, cases, configurations(fixes))
    return snapshot(run_cases(retriever, cases, fixes), spec, fixes, index, name=name,
                    ablation=[(r.case, r.configuration, r.diagnosis) for r in rows])  # fmt: skip


@pytest.fixture(scope="module")
def testbed_runs():
    index = CorpusIndex(load_folder(SAMPLE_DOCS))
    return saved(index, Fixes(), "no fixes"), saved(index, Fixes.all(), "all fixes")


def test_a_run_keeps_every_case_outcome_the_settings_and_the_corpus(testbed_runs):
    none, _ = testbed_runs
    assert (none.passed, none.total) == (4, 8)
    assert none.fixes_label == "none" and none.retriever_label == "builtin"
    assert none.corpus_fingerprint == CorpusIndex(load_folder(SAMPLE_DOCS)).fingerprint
    assert {d.doc_id for d in none.documents} >= {"returns-2024", "returns-2026", "plans"}
    stale = none.case("stale-version")
    assert (stale.verdict, stale.diagnosis, stale.rank, stale.first_id) == (
        "fail", "ranking", 2, "returns-2024")
    assert stale.missing_evidence == ("30 days",)
    assert stale.passages[0].doc_id == "returns-2024"
    assert none.metric_values["mrr"] == pytest.approx(0.781, abs=1e-3)


def test_a_run_file_reads_back_equal_and_a_bad_one_is_named(testbed_runs, tmp_path):
    run = testbed_runs[1]
    assert SavedRun.from_dict(json.loads(json.dumps(run.to_dict()))) == run
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run.to_dict()), encoding="utf-8")
    assert load_run_file(path).cases == run.cases
    future = run.to_dict() | {"fixes": {"fixes": "all", "spellcheck": True}}
    path.write_text(json.dumps(future), encoding="utf-8")
    with pytest.raises(RunError, match="run.json' cannot be read: unknown setting 'spellcheck'"):
        load_run_file(path)
    path.write_text('{"format": "something"}', encoding="utf-8")
    with pytest.raises(RunError, match="run.json.*not a ragdash run"):
        load_run_file(path)


def test_no_fixes_then_all_fixes_repairs_four_cases_each_by_its_fix(testbed_runs):
    diff = diff_runs(*testbed_runs)
    assert {c.case for c in diff.fixed} == set(REPAIRED)
    assert diff.broke == ()
    for change in diff.fixed:
        (reason,) = change.reasons
        assert reason.startswith("a fix changed: fixes turned on: recency")
        assert f"{REPAIRED[change.case]} alone repairs it" in reason or (
            REPAIRED[change.case] in reason.split("—")[1])
    mrr = next(m for m in diff.metrics if m.metric == "mrr")
    assert mrr.delta == pytest.approx(1 - 0.78125, abs=1e-3)
    text = diff_text(diff)
    assert "4 fail→pass" in text and "ocr alone repairs it" in text


def test_a_changed_corpus_names_the_documents_and_the_case_it_touches(tmp_path, testbed_runs):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    policy = docs / "returns-2026.md"
    policy.write_text(policy.read_text().replace("30 days", "45 days"), encoding="utf-8")
    (docs / "extra.md").write_text("---\nid: extra\n---\nAn extra note.\n", encoding="utf-8")
    after = saved(CorpusIndex(load_folder(docs)), Fixes.all())
    diff = diff_runs(testbed_runs[1], after)
    assert diff.corpus.added == ("extra",) and diff.corpus.changed == ("returns-2026",)
    (change,) = [c for c in diff.changes if c.case == "stale-version"]
    assert change.change == "pass→fail"
    assert any("returns-2026 (the expected document) was changed" in r for r in change.reasons)
    assert "corpus: added: extra; changed: returns-2026" in diff_text(diff)


def test_a_rank_change_of_the_expected_document_is_listed_with_a_same_verdict(testbed_runs):
    none = testbed_runs[0]
    moved = tuple(replace(c, rank=3) if c.name == "ocr-noise" else c for c in none.cases)
    diff = diff_runs(none, replace(none, cases=moved))
    (change,) = diff.changes
    assert (change.case, change.change) == ("ocr-noise", "rank")
    assert (change.before, change.after) == ("fail (ranking), rank 4", "fail (ranking), rank 3")
    assert change.reasons[0].startswith("nothing the runs recorded changed")


def test_a_changed_retriever_is_named(testbed_runs):
    index = CorpusIndex(load_folder(SAMPLE_DOCS))
    bm25 = saved(index, Fixes(), spec=RetrieverSpec("bm25"))
    diff = diff_runs(testbed_runs[0], bm25)
    assert diff.retriever_changed
    assert all(any("the retriever changed: builtin → bm25" in r for r in c.reasons)
               for c in diff.changes)  # fmt: skip


def test_the_gate_fails_on_a_regression_or_a_threshold_and_passes_otherwise(testbed_runs):
    none, all_fixes = testbed_runs
    regression = gate(none, diff_runs(all_fixes, none), fail_on="regression")
    assert "case 'ocr-noise' passed in 'all fixes' and fails now: fail (ranking), rank 4" \
        in regression
    assert gate(all_fixes, diff_runs(none, all_fixes), fail_on="regression") == []
    assert gate(none, fail_on="nothing", min_pass_rate=0.5) == []
    assert gate(none, fail_on="nothing", min_pass_rate=0.6)[0].startswith("pass rate 0.500")
    assert gate(none, fail_on="nothing", min_metrics={"mrr": 0.8})[0].startswith("MRR 0.781")
    # a metric drop within the margin is no regression
    assert not [r for r in gate(none, diff_runs(all_fixes, none), fail_on="regression",
                                margin=0.5) if "dropped" in r]  # fmt: skip


def test_min_metric_accepts_the_shown_names_and_refuses_others():
    assert parse_min_metric("MRR=0.8") == ("mrr", 0.8)
    assert parse_min_metric("hit@k=1") == ("hit_at_k", 1.0)
    with pytest.raises(SettingsError, match="precision"):
        parse_min_metric("precision=0.5")
    with pytest.raises(SettingsError, match="between 0 and 1"):
        parse_min_metric("mrr=8")


def test_reports_are_single_files_with_no_script_and_escaped_text(testbed_runs):
    none, all_fixes = testbed_runs
    hostile = replace(none, name="<script>alert(1)</script>")
    html = run_report(hostile)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html.lower() and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    assert html.count('class="case"') == 4  # the four failing cases, with their passages
    report = diff_report(diff_runs(none, all_fixes))
    assert report.count("fail→pass</td>") == 4


def test_a_case_the_retriever_failed_on_is_reported_with_its_error(testbed_runs):
    none = testbed_runs[0]
    failed = replace(none.cases[0], verdict="error", diagnosis="error", passages=(),
                     message="http://127.0.0.1:9/search: connection refused")  # fmt: skip
    html = run_report(replace(none, cases=(failed,)))
    assert "connection refused" in html and "the retriever failed on this case" in html
    assert "No passage matched" not in html


# -- the library ---------------------------------------------------------------------------


def test_a_schema_1_library_keeps_its_cases_and_history_and_learns_to_keep_runs(
    tmp_path, testbed_runs, sample_cases
):
    path = tmp_path / "library.sqlite"
    library = CaseLibrary(path)
    library.add(sample_cases[0])
    library.record_run(sample_cases[0].name, "none", False, "ranking")
    with sqlite3.connect(path) as conn:  # as the previous ragdash left it
        conn.execute("DROP TABLE saved_runs")
        conn.execute("PRAGMA user_version = 1")
    assert CaseLibrary(path, read_only=True).saved_runs() == []
    reopened = CaseLibrary(path)
    assert reopened.cases() == [sample_cases[0]]
    assert [(r.configuration, r.diagnosis) for r in reopened.history()] == [("none", "ranking")]
    kept = reopened.save_run(testbed_runs[0])
    assert kept.id == 1 and reopened.saved_run("latest") == kept
    reopened.delete_run(1)
    with pytest.raises(RunError, match="no run #1"):
        reopened.saved_run(1)
    assert reopened.cases() == [sample_cases[0]]


# -- the CLI -------------------------------------------------------------------------------


def check_args(lib, fixes: str, *extra: str) -> list[str]:
    return ["check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
            "--fixes", fixes, "--library", str(lib), *extra]  # fmt: skip


def test_cli_saves_two_runs_lists_shows_diffs_and_reports_them(capsys, tmp_path):
    lib = tmp_path / "lib.sqlite"
    assert main(check_args(lib, "none", "--save-run", "--run-name", "no fixes")) == 1
    assert main(check_args(lib, "all", "--save-run", "--run-name", "all fixes")) == 0
    capsys.readouterr()
    assert main(["runs", "list", "--library", str(lib)]) == 0
    listed = capsys.readouterr().out
    assert "no fixes" in listed and "4/8" in listed and "8/8" in listed
    assert main(["runs", "show", "1", "--library", str(lib)]) == 0
    assert "stale-version" in capsys.readouterr().out
    assert main(["diff", "1", "2", "--library", str(lib)]) == 0
    out = capsys.readouterr().out
    assert "4 fail→pass" in out
    for case, fix in REPAIRED.items():
        assert f"fail→pass  {case}:" in out and fix in out
    assert main(["diff", "1", "latest", "--library", str(lib), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["before"], record["after"]) == ("#1 'no fixes'", "#2 'all fixes'")
    assert [c["change"] for c in record["changes"]] == ["fail→pass"] * 4
    assert record["fixes"]["turned_on"] == list(FIX_NAMES) and record["corpus"]["changed"] == []
    report = tmp_path / "report.html"
    assert main(["report", "2", "--against", "1", "--library", str(lib), "-o", str(report)]) == 0
    assert "ragdash diff #1 &#x27;no fixes&#x27; → #2" in report.read_text(encoding="utf-8")
    assert main(["runs", "export", "2", "--library", str(lib), "-o", str(tmp_path / "b.json")]) == 0
    assert main(["runs", "delete", "1", "--library", str(lib)]) == 0
    capsys.readouterr()
    assert main(["runs", "show", "1", "--library", str(lib)]) == 2
    assert "no run #1" in capsys.readouterr().err


def test_the_gate_exits_1_naming_the_case_when_a_fix_is_removed(capsys, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert main(check_args(tmp_path / "l.sqlite", "all", "--run-file", str(baseline))) == 0
    capsys.readouterr()
    gate_args = ("--baseline", str(baseline), "--fail-on", "regression")
    # the same fixes: no regression
    assert main(check_args(tmp_path / "l.sqlite", "all", *gate_args)) == 0
    assert "gate: passed" in capsys.readouterr().out
    # the OCR fix removed: ocr-noise regresses, the gate names it
    code = main(check_args(tmp_path / "l.sqlite", ALL_BUT_OCR, *gate_args,
                           "--report", str(tmp_path / "r.html")))  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert "pass→fail  ocr-noise" in out and "fixes turned off: ocr" in out
    assert "gate: FAILED" in out and "case 'ocr-noise' passed in" in out
    assert "ocr-noise" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_the_gate_thresholds_and_its_bad_input(capsys, tmp_path):
    lib = tmp_path / "l.sqlite"
    assert main(check_args(lib, "none", "--fail-on", "nothing", "--min-pass-rate", "0.5")) == 0
    assert main(check_args(lib, "none", "--fail-on", "nothing", "--min-metric", "mrr=0.8")) == 1
    assert "MRR 0.781 is below --min-metric mrr=0.8" in capsys.readouterr().out
    for extra, fragment in (
        (("--fail-on", "regression"), "needs --baseline"),
        (("--min-metric", "speed=1"), "--min-metric 'speed=1'"),
        (("--baseline", "7"), "does not exist"),
        (("--baseline", "nonsense"), "neither a run id"),
        (("--min-pass-rate", "2"), "between 0 and 1"),
    ):
        assert main(check_args(lib, "none", *extra)) == 2
        err = capsys.readouterr().err
        assert fragment in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert main(["check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
                 "--save-run"]) == 2  # fmt: skip
    assert "--workspace DIR or --library FILE" in capsys.readouterr().err


def test_a_run_saved_in_a_workspace_is_listed_and_metrics_at_another_k_are_not_compared(
    capsys, tmp_path
):
    ws = tmp_path / "ws"
    args = ["check", "--docs", str(SAMPLE_DOCS), "--workspace", str(ws), "--fixes", "all"]
    assert main([*args, "--save-run"]) == 0
    capsys.readouterr()
    assert main(["runs", "list", "--workspace", str(ws), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["passed"], r["total"]) for r in listed] == [(1, 8, 8)]
    code = main([*args, "--baseline", "latest", "--fail-on", "regression", "--metrics-k", "3"])
    assert code == 1
    assert "the metrics cannot be compared: k=5" in capsys.readouterr().out


def test_check_names_the_word_list_the_run_records_it_and_a_baseline_made_with_another_warns(
    capsys, tmp_path
):
    from ragdash.retrieval.wordlist import word_list_label

    baseline = tmp_path / "baseline.json"
    assert main(check_args(tmp_path / "l.sqlite", "all", "--run-file", str(baseline))) == 0
    out = capsys.readouterr().out
    assert f"word list: {word_list_label()}" in out and "wordfreq" in out
    data = json.loads(baseline.read_text(encoding="utf-8"))
    assert data["word_list"] == word_list_label()
    gate = ("--baseline", str(baseline), "--fail-on", "regression")
    assert main(check_args(tmp_path / "l.sqlite", "all", *gate)) == 0
    assert "word list" not in capsys.readouterr().err  # the same list: nothing to say
    # a baseline made on a machine with Debian's list (or before the list was recorded)
    data["word_list"] = "/usr/share/dict/words (73,604 words)"
    baseline.write_text(json.dumps(data), encoding="utf-8")
    assert main(check_args(tmp_path / "l.sqlite", "all", *gate)) == 0
    err = capsys.readouterr().err
    assert "the baseline's English word list differs from this run's" in err
    assert "/usr/share/dict/words (73,604 words)" in err and word_list_label() in err


def test_a_run_an_older_ragdash_saved_as_seed_reads_as_the_builtin_scorer(testbed_runs):
    """The built-in scorer was labelled "seed" (the word --seed also uses); a run saved then
    is read as builtin, so a diff against a run saved today does not call it another
    retriever."""
    from ragdash.checks.snapshot import SavedRun

    none, _ = testbed_runs
    old = {**none.to_dict(), "retriever_label": "seed"}
    assert SavedRun.from_dict(old).retriever_label == "builtin"
