"""``python -m ragdash check|query|ablate``: exit codes, one-line errors, JSON output."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, SAMPLE_CASES, SAMPLE_DOCS, doc_text, run_module

from ragdash.checks.ablation import ABLATION_COLUMNS, configurations
from ragdash.cli import main

DOCS = ["--docs", str(SAMPLE_DOCS)]
CASES = ["--cases", str(SAMPLE_CASES)]
CASE_FIELDS = {"name", "query", "expected_id", "ranked", "passed", "diagnosis", "missing_evidence"}
RANKED_FIELDS = {"doc_id", "passage", "score", "breakdown"}
BREAKDOWN_FIELDS = {"query_token", "passage_token", "kind", "similarity", "points"}


def run_cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_module("ragdash", *args, **env)


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- as a real process ---------------------------------------------------------------------


def test_check_exits_0_when_every_case_passes():
    result = run_cli("check", *DOCS, *CASES, "--fixes", "all")
    assert result.returncode == 0, result.stderr
    assert "8 of 8 cases passed" in result.stdout
    assert "Traceback" not in result.stderr


def test_check_exits_1_when_a_case_fails():
    result = run_cli("check", *DOCS, *CASES)
    assert result.returncode == 1
    assert "FAIL" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["check", "--docs", "no/such/folder", *CASES], "does not exist"),
        (["query", *DOCS, "--fixes", "speed", "sync"], "unknown fix 'speed'"),
        (["check", *DOCS, "--cases", "no/such/cases.json"], "cannot read cases file"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_traceback(args, fragment):
    result = run_cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("ragdash: error: ")
    assert fragment in lines[0]


# --- in process ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ([], "required: command"),
        (["frobnicate"], "invalid choice"),
        (["check", *DOCS], "--cases"),
        (["query", *DOCS, "?!"], "query is empty"),
        (["query", *DOCS, "--top-k", "0", "sync"], "--top-k must be at least 1"),
        (["query", *DOCS, "--threshold", "120", "sync"], "threshold 120 is outside 0-100"),
        (["query", *DOCS, "--top-k", "two", "sync"], "invalid int value"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, args, fragment):
    code, out, err = run_main(capsys, *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert fragment in err
    assert "Traceback" not in err


def test_a_broken_cases_file_exits_2_naming_the_problem(capsys, tmp_path):
    cases = tmp_path / "cases.json"
    cases.write_text('{"cases": [ {"name": "x" ]}', encoding="utf-8")
    code, _, err = run_main(capsys, "check", *DOCS, "--cases", str(cases))
    assert code == 2
    assert "cases.json is not valid JSON (line 1" in err


def test_a_folder_with_nothing_loadable_exits_2(capsys, tmp_path):
    (tmp_path / "broken.pdf").write_bytes(b"")
    code, _, err = run_main(capsys, "query", "--docs", str(tmp_path), "sync")
    assert code == 2
    assert "broken.pdf: error: is empty" in err
    assert "no loadable documents" in err


def test_ingest_problems_are_reported_but_the_command_still_runs(capsys, tmp_path):
    (tmp_path / "good.md").write_text(doc_text("Stock sync every 15 minutes.", id="good"))
    (tmp_path / "bad.pdf").write_bytes(b"not a pdf")
    code, out, err = run_main(capsys, "query", "--docs", str(tmp_path), "--json", "sync")
    assert code == 0
    assert "bad.pdf: error: is not a PDF" in err
    assert json.loads(out)["ranked"][0]["doc_id"] == "good"


def test_a_case_expecting_an_unknown_document_is_warned_about(capsys, tmp_path):
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"name": "x", "query": "sync", "expected_id": "ghost"}]))
    code, _, err = run_main(capsys, "check", *DOCS, "--cases", str(cases))
    assert code == 1
    assert "expects 'ghost', which is not in the corpus" in err


def test_check_json_has_the_documented_fields_per_case(capsys, sample_cases):
    code, out, _ = run_main(capsys, "check", *DOCS, *CASES, "--json")
    assert code == 1
    report = json.loads(out)
    assert report["fixes"] == "none"
    assert report["passed"] + report["failed"] == len(sample_cases)
    assert [c["name"] for c in report["cases"]] == [c.name for c in sample_cases]
    for record, case in zip(report["cases"], sample_cases, strict=True):
        assert set(record) >= CASE_FIELDS
        assert (record["query"], record["expected_id"]) == (case.query, case.expected_id)
        assert record["passed"] == (record["diagnosis"] == "pass")
        assert len(record["ranked"]) == case.top_k
        for ranked in record["ranked"]:
            assert set(ranked) >= RANKED_FIELDS
            assert isinstance(ranked["passage"]["text"], str)
            assert ranked["score"] == pytest.approx(sum(m["points"] for m in ranked["breakdown"]))
            for match in ranked["breakdown"]:
                assert set(match) >= BREAKDOWN_FIELDS
                assert match["kind"] in {"exact", "ocr", "fuzzy", "none"}
    assert report["passed"] == sum(c["passed"] for c in report["cases"])


def test_check_json_reports_missing_evidence_for_an_extraction_failure(capsys):
    _, out, _ = run_main(capsys, "check", *DOCS, *CASES, "--json")
    extraction = [c for c in json.loads(out)["cases"] if c["diagnosis"] == "extraction"]
    assert extraction
    for record in extraction:
        assert record["ranked"][0]["doc_id"] == record["expected_id"]
        assert record["missing_evidence"]
        assert set(record["missing_evidence"]) <= set(record["evidence"])


def test_check_top_k_overrides_every_case(capsys):
    _, out, _ = run_main(capsys, "check", *DOCS, *CASES, "--json", "--top-k", "3")
    cases = json.loads(out)["cases"]
    # Up to three passages are sent; a passage that matched nothing is never sent.
    assert {len(c["ranked"]) for c in cases} <= {1, 2, 3}
    assert max(len(c["ranked"]) for c in cases) > 1  # more than the cases' own top-k of 1
    assert all(r["score"] > 0 for c in cases for r in c["ranked"])


def test_query_json_ranks_with_a_breakdown(capsys):
    code, out, _ = run_main(capsys, "query", *DOCS, "--fixes", "fuzzy", "--json", "warehuse sync")
    assert code == 0
    report = json.loads(out)
    assert report["query"] == "warehuse sync"
    assert report["fixes"] == "fuzzy (fuzzy ratio>=80)"  # the label names every setting
    assert len(report["ranked"]) == 3  # the default top-k of a query
    first = report["ranked"][0]
    assert first["doc_id"] == "inventory"
    assert [m["kind"] for m in first["breakdown"]] == ["fuzzy", "exact"]
    assert first["breakdown"][0]["passage_token"] == "warehouse"


def test_query_text_output_shows_the_breakdown(capsys):
    code, out, _ = run_main(capsys, "query", *DOCS, "--fixes", "ocr", "--top-k", "1", "sso")
    assert code == 0
    assert "plans p1 #1" in out
    assert "sso" in out and "ocr" in out
    assert "0→o: 'ss0' → 'sso'" in out  # the rewrite and its evidence


def test_query_threshold_applies_to_fuzzy(capsys):
    args = ("query", *DOCS, "--fixes", "fuzzy", "--json", "--threshold", "99", "warehuse")
    _, out, _ = run_main(capsys, *args)
    kinds = {m["kind"] for r in json.loads(out)["ranked"] for m in r["breakdown"]}
    assert kinds == {"none"}


def test_query_fuzzy_rule_es_auto_repairs_the_typo_whatever_the_threshold(capsys):
    # At threshold 99 the ratio rule repairs nothing (see above); es-auto counts edits.
    args = ("query", *DOCS, "--fixes", "fuzzy", "--json", "--threshold", "99")
    code, out, _ = run_main(capsys, *args, "--fuzzy-rule", "es-auto", "warehuse sync")
    assert code == 0
    first = json.loads(out)["ranked"][0]
    assert first["doc_id"] == "inventory"
    assert [(m["passage_token"], m["kind"]) for m in first["breakdown"]] == [
        ("warehouse", "fuzzy"),
        ("sync", "exact"),
    ]


def test_ablate_json_lists_every_case_and_configuration(capsys, sample_cases):
    code, out, _ = run_main(capsys, "ablate", *DOCS, *CASES, "--json")
    assert code == 0
    records = json.loads(out)["rows"]
    assert len(records) == len(sample_cases) * len(configurations())
    assert set(records[0]) == set(ABLATION_COLUMNS)
    assert {r["configuration"] for r in records} == set(configurations())


def test_ablate_text_is_a_case_by_configuration_matrix(capsys, sample_cases):
    code, out, _ = run_main(capsys, "ablate", *DOCS, *CASES)
    assert code == 0
    header = out.splitlines()[1]  # after the line naming the docs and the cases
    assert all(name in header for name in configurations())
    assert all(case.name in out for case in sample_cases)


# --- fragility -----------------------------------------------------------------------------

FRAGILITY_FIELDS = {
    "case",
    "fault",
    "configuration",
    "outcome",
    "edits",
    "corrupted_query",
    "diagnosis",
    "first_id",
    "evaluations",
    "exhausted",
    "sentence",
}


def test_fragility_json_compares_no_fixes_with_all_fixes(capsys, sample_cases):
    code, out, _ = run_main(capsys, "fragility", *DOCS, *CASES, "--kind", "ocr", "--json")
    assert code == 0
    records = json.loads(out)["rows"]
    assert len(records) == len(sample_cases) * 2
    assert all(set(r) >= FRAGILITY_FIELDS for r in records)
    assert {(r["configuration"], r["fault"]) for r in records} == {("none", "ocr"), ("all", "ocr")}
    by_key = {(r["case"], r["configuration"]): r for r in records}
    broken = by_key["typo-control", "none"]
    assert (broken["outcome"], broken["edits"], broken["corrupted_query"]) == (
        "breaks",
        1,
        "wareh0use sync",
    )
    assert (broken["diagnosis"], broken["first_id"]) == ("ranking", "crm")
    repaired = by_key["typo-control", "all"]
    assert (repaired["outcome"], repaired["edits"], repaired["diagnosis"]) == (
        "survives",
        None,
        None,
    )
    assert by_key["stale-version", "none"]["edits"] == 0  # already fails


def test_fragility_text_is_a_table_per_case_with_a_summary(capsys, sample_cases):
    args = ("fragility", *DOCS, *CASES, "--kind", "ocr", "--fixes", "ocr")
    code, out, _ = run_main(capsys, *args)
    assert code == 0
    assert all(f"\n{case.name}: " in out for case in sample_cases)
    assert "wareh0use sync" in out
    assert (
        "OCR: breaks after 1 edit with no fixes, survives 4 edits (no more possible) with OCR "
        "normalization." in out
    )


def test_fragility_respects_the_evaluation_budget_and_max_edits(capsys):
    args = ("fragility", *DOCS, *CASES, "--kind", "typo", "--max-edits", "2")
    code, out, _ = run_main(capsys, *args, "--max-evaluations", "30", "--json")
    assert code == 0
    records = json.loads(out)["rows"]
    assert all(r["evaluations"] <= 30 and r["max_edits"] == 2 for r in records)
    assert any(r["exhausted"] and "not searched further" in r["sentence"] for r in records)


@pytest.mark.slow  # a command in two processes, as tests/test_determinism.py (also slow)
def test_fragility_is_the_same_whatever_the_hash_seed():
    args = ["fragility", *DOCS, *CASES, "--kind", "typo", "--max-evaluations", "150", "--json"]
    outputs = []
    for hash_seed in ("1", "2"):
        result = run_cli(*args, PYTHONHASHSEED=hash_seed)
        assert result.returncode == 0, result.stderr
        outputs.append(json.loads(result.stdout))
    assert outputs[0] == outputs[1]
    assert any(r["outcome"] == "breaks" for r in outputs[0]["rows"])


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--kind", "smudge"], "invalid choice: 'smudge'"),
        (["--max-edits", "0"], "--max-edits must be at least 1"),
        (["--beam", "0"], "--beam must be at least 1"),
        (["--max-evaluations", "-5"], "--max-evaluations must be at least 1"),
        (["--seed", "x"], "invalid int value"),
        (["--fixes", "speed"], "unknown fix 'speed'"),
    ],
)
def test_fragility_bad_input_exits_2_with_one_line(capsys, args, fragment):
    code, out, err = run_main(capsys, "fragility", *DOCS, *CASES, *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("ragdash: error: ") and fragment in err


def test_output_piped_into_a_reader_that_stops_early_gives_no_traceback():
    # `python -m ragdash fragility ... | head -1`: the reader closes the pipe mid-output.
    args = ["fragility", *DOCS, *CASES, "--kind", "ocr", "--max-edits", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragdash", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith("docs: samples (--docs)")
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr


def test_workspace_check_sees_the_uploads_edits_and_case_library(tmp_path):
    """``--workspace`` makes ``check`` see what the dashboard sees: an uploaded document
    and a case saved in the workspace's library run beside the bundled cases."""
    from ragdash.case import Case
    from ragdash.ingestion.workspace import Workspace
    from ragdash.storage.case_store import add_case

    workspace = tmp_path / "workspace"
    Workspace(workspace).save_upload("faq.md", b"Warranty claims are answered within 9 days.")
    add_case(workspace, Case("warranty", "warranty claims answered", "faq", ("9 days",)))
    result = run_cli("check", *DOCS, "--workspace", str(workspace), "--fixes", "all", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    names = [c["name"] for c in report["cases"]]
    assert names[-1] == "warranty" and len(names) == 9
    assert report["fixes"] == "all (ocr map 0=o,1=i,1=l,5=s,8=b; fuzzy ratio>=80)"


def test_check_without_cases_or_workspace_says_what_to_give():
    result = run_cli("check", *DOCS)
    assert result.returncode == 2
    assert "give --cases FILE" in result.stderr and "Traceback" not in result.stderr


def test_ocr_map_option_changes_what_the_ocr_fix_repairs(capsys):
    code, out, _ = run_main(capsys, "query", *DOCS, "--fixes", "ocr", "--ocr-map", "5=s",
                            "--json", "Enterpr1se")  # fmt: skip
    assert code == 0
    assert json.loads(out)["fixes"] == "ocr (ocr map 5=s)"
    code, _, err = run_main(capsys, "query", *DOCS, "--ocr-map", "0=oo", "sync")
    assert code == 2 and "0=oo" in err
ADVERSARIAL = str(ROOT / "tests" / "fixtures" / "adversarial" / "docs")


def test_rewrites_lists_each_ocr_rewrite_with_its_evidence_and_what_it_keeps(capsys):
    code, out, _ = run_main(capsys, "rewrites", "--docs", ADVERSARIAL)
    assert code == 0
    first, second = out.splitlines()[:2]
    assert first.startswith("docs: ") and first.endswith("(--docs)")  # what it ran on, first
    assert second.startswith("the OCR fix rewrites 2 of ")
    assert "0→o: 'c0ntr0ller' → 'controller', 'controller' appears in 1 document" in out
    assert "t1d: 't1d' looks like a code" in out and "fa1l: 'fa1l' is ambiguous" in out


def test_protect_keeps_a_token_the_ocr_fix_would_rewrite(capsys):
    code, out, _ = run_main(
        capsys, "rewrites", "--docs", ADVERSARIAL, "--protect", "b00t", "--json"
    )
    report = json.loads(out)
    assert code == 0 and report["protected"] == ["b00t"]
    assert [r["token"] for r in report["rewrites"]] == ["c0ntr0ller"]
    assert {"token": "b00t", "why": "'b00t' is on the protected list: kept"} in report["kept"]
    code, _, err = run_main(capsys, "query", *DOCS, "--protect", "sha-1", "sync")
    assert code == 2 and "letters and digits only" in err


def test_query_says_when_no_passage_matched(capsys):
    code, out, _ = run_main(capsys, "query", *DOCS, "quantum entanglement")
    assert code == 0 and "no passage matched the query" in out


def test_samples_names_the_bundled_samples_from_any_folder(tmp_path):
    """``--docs samples --cases samples`` (and no --docs at all) check the samples shipped in
    the package, wherever ragdash runs; a ``./samples`` folder there is named ``./samples``,
    and a note says so."""
    result = run_cli("check", "--docs", "samples", "--cases", "samples", "--fixes", "all",
                     cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "8 of 8 cases passed" in result.stdout and result.stderr == ""
    result = run_cli("check", "--cases", "samples", "--fixes", "all", cwd=tmp_path)
    assert result.returncode == 0 and "8 of 8 cases passed" in result.stdout, result.stderr
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "ours.md").write_text("# Ours\n\nOur own notes.\n")
    result = run_cli("query", "--docs", "samples", "return policy days", cwd=tmp_path)
    assert result.returncode == 0 and "returns-2024" in result.stdout
    assert "write ./samples for the folder" in result.stderr
    result = run_cli("query", "--docs", "./samples", "our own notes", cwd=tmp_path)
    assert result.returncode == 0 and "ours" in result.stdout, result.stderr


def test_inspect_samples_plans_pdf_works_from_any_folder_and_a_local_file_wins(tmp_path):
    """The README's ``inspect samples/plans.pdf`` reads the bundled PDF wherever ragdash
    runs; a file of that path where it runs is the one read."""
    result = run_cli("inspect", "samples/plans.pdf", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("plans.pdf: 2 page(s)")
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "plans.pdf").write_bytes(b"not a pdf")
    result = run_cli("inspect", "samples/plans.pdf", cwd=tmp_path)
    assert result.returncode == 2 and "plans.pdf" in result.stderr, result.stdout
    result = run_cli("inspect", "samples/nope.pdf", cwd=tmp_path)
    assert result.returncode == 2 and "samples/nope.pdf: cannot be read" in result.stderr


# --- ragdash dashboard: the operator's settings, checked before Streamlit starts ---------


@pytest.mark.parametrize(
    ("options", "spec"),
    [
        (["--retriever", "python", "--callable", "mypkg.mod:search"],
         {"kind": "python", "callable": "mypkg.mod:search"}),
        (["--retriever", "http", "--url", "http://127.0.0.1:8000/search", "--shape",
          "elasticsearch", "--timeout", "2.5", "--retries", "0", "--auth-env", "SEARCH_TOKEN"],
         {"kind": "http", "url": "http://127.0.0.1:8000/search", "shape": "elasticsearch",
          "timeout": 2.5, "retries": 0, "auth_env": "SEARCH_TOKEN"}),
        (["--retriever", "http", "--url", "http://127.0.0.1:8000/s", "--shape", "chroma",
          "--id-field", "metadata.source", "--text-field", "text", "--body-template",
          "body.json", "--lower-is-better"],
         {"kind": "http", "url": "http://127.0.0.1:8000/s", "shape": "chroma",
          "id_field": "metadata.source", "text_field": "text", "body_template": "body.json",
          "lower_is_better": True}),
        (["--retriever", "langchain", "--callable", "mypkg.rag:retriever", "--id-field",
          "source"],
         {"kind": "langchain", "callable": "mypkg.rag:retriever", "id_field": "source"}),
    ],
)  # fmt: skip
def test_dashboard_hands_the_operators_retriever_to_the_app(tmp_path, options, spec):
    """``ragdash dashboard --retriever …`` is the one place (with RAGDASH_RETRIEVER…) a team's
    function or service is named: the app reads it from the command line it is given."""
    from browser_harness import free_port

    from ragdash.cli import build_parser
    from ragdash.cli.dashboard import dashboard_command
    from ragdash.retrieval.spec import RetrieverSpec
    from ragdash.ui.context import settings_from

    args = build_parser().parse_args(
        ["dashboard", *DOCS, "--workspace", str(tmp_path / "ws"), "--port", str(free_port()),
         *options]
    )  # fmt: skip
    if "body_template" in spec:  # read before Streamlit starts: missing, then written
        with pytest.raises(Exception, match="body template body.json: cannot be read"):
            dashboard_command(args)
        (tmp_path / "body.json").write_text('{"query_texts": ["{query}"], "n_results": "{k}"}')
        args.body_template = spec["body_template"] = str(tmp_path / "body.json")
    command = dashboard_command(args)
    app_argv = command[command.index("--") + 1 :]
    assert settings_from(app_argv, {}).retriever == RetrieverSpec(**spec)
    # and the same through the environment (`streamlit run app.py` behind a service manager)
    environ = {"RAGDASH_RETRIEVER": spec["kind"], "RAGDASH_CALLABLE": spec.get("callable", ""),
               "RAGDASH_URL": spec.get("url", ""), "RAGDASH_SHAPE": spec.get("shape", ""),
               "RAGDASH_TIMEOUT": str(spec.get("timeout", "")),
               "RAGDASH_RETRIES": str(spec.get("retries", "")),
               "RAGDASH_AUTH_ENV": spec.get("auth_env", ""),
               "RAGDASH_ID_FIELD": spec.get("id_field", ""),
               "RAGDASH_TEXT_FIELD": spec.get("text_field", ""),
               "RAGDASH_BODY_TEMPLATE": spec.get("body_template", ""),
               "RAGDASH_LOWER_IS_BETTER": str(spec.get("lower_is_better", ""))}  # fmt: skip
    assert settings_from([], environ).retriever == RetrieverSpec(**spec)


def test_dashboard_refuses_bad_retriever_settings_in_one_line(capsys):
    code, out, err = run_main(capsys, "dashboard", *DOCS, "--retriever", "python")
    assert code == 2 and out == ""
    assert err.strip() == ("ragdash: error: retriever settings: the python retriever needs a "
                           "callable: package.module:function")  # fmt: skip


@pytest.mark.parametrize(
    ("address", "fragment"),
    [
        ("999.1.1.1", "--address '999.1.1.1' is not an IP address (e.g. 127.0.0.1) or a host"),
        ("my host", "--address 'my host' is not an IP address"),
        ("192.0.2.1", "cannot listen on 192.0.2.1 port"),  # TEST-NET: not this machine's
    ],
)
def test_dashboard_refuses_an_address_it_cannot_listen_on_in_one_line(address, fragment):
    """Issue 24 #10: ``--address 999.1.1.1`` printed Streamlit's traceback."""
    result = run_cli("dashboard", *DOCS, "--address", address, "--port", "18517")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("ragdash: error: ") and fragment in line


def test_dashboard_refuses_a_port_in_use_in_one_line():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("dashboard", *DOCS, "--port", str(port))
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line == f"ragdash: error: cannot listen on 127.0.0.1 port {port}: Address already in use"


@pytest.mark.parametrize("content", ["[]", '{"cases": []}'])
def test_an_empty_case_list_is_an_error_not_a_pass(capsys, tmp_path, content):
    # a CI gate on an empty list would pass forever
    cases = tmp_path / "cases.json"
    cases.write_text(content, encoding="utf-8")
    code, out, err = run_main(capsys, "check", *DOCS, "--cases", str(cases))
    assert code == 2 and "passed" not in out
    assert err.strip() == f"ragdash: error: {cases} holds no cases: nothing to check (add " \
        "cases, or import logged queries with ragdash import-cases)"


@pytest.mark.parametrize(
    ("name", "content"),
    [("logged.csv", "query,expected_id\nopen hours,note\n"),
     ("logged.jsonl", '{"query": "open hours", "expected_id": "note"}\n{"query": "x"}\n')],
)  # fmt: skip
def test_a_csv_or_jsonl_given_as_cases_points_to_import_cases(capsys, tmp_path, name, content):
    cases = tmp_path / name
    cases.write_text(content, encoding="utf-8")
    code, _, err = run_main(capsys, "check", *DOCS, "--cases", str(cases))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"ragdash import-cases {cases} --workspace DIR" in err


def test_help_texts_are_plain_text_whole_sentences_without_rst_markup():
    from ragdash.cli import COMMANDS, build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a.choices, dict))
    helps = {"ragdash": parser.format_help()}
    helps.update({name: p.format_help() for name, p in subparsers.choices.items()})
    assert set(COMMANDS) <= set(helps)
    for name, text in helps.items():
        assert "``" not in text and ":func:" not in text and ":mod:" not in text, name
    top = " ".join(helps["ragdash"].split())
    assert "ragdash (or python -m ragdash): check cases, run a query, ablate, inspect a PDF, " \
        "export cases, list what the OCR fix rewrites, or start the dashboard." in top
    assert "Exit codes: 0 all passed" in top


def test_check_and_stress_write_their_reports_with_the_same_mode(tmp_path):
    """``stress --report`` wrote 0600, ``check --report`` 0644: both get a new file's mode."""
    checked, stressed = tmp_path / "check.html", tmp_path / "stress.html"
    result = run_cli("check", "--docs", "samples", "--cases", "samples", "--fixes", "all",
                     "--report", str(checked))  # fmt: skip
    assert result.returncode == 0, result.stderr
    result = run_cli("stress", "--docs", "samples", "--generate", "3", "--seed", "1",
                     "--faults", "typo", "--report", str(stressed))  # fmt: skip
    assert result.returncode == 0, result.stderr
    umask = os.umask(0)
    os.umask(umask)
    assert checked.stat().st_mode & 0o777 == stressed.stat().st_mode & 0o777 == 0o666 & ~umask


def test_version_prints_the_version_and_exits_0():
    from ragdash.version import VERSION

    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"ragdash {VERSION}"


@pytest.mark.parametrize(
    "args",
    [["check", "--doc", "samples", "--cases", "samples"],
     ["query", "--docs", "samples", "--fix", "all", "sync"],
     ["stress", "--doc", "samples"]],
    ids=["--doc", "--fix", "stress --doc"],
)
def test_an_abbreviated_option_is_refused_not_guessed(capsys, args):
    code, _, err = run_main(capsys, *args)
    assert code == 2 and "unrecognized arguments" in err


def test_a_folder_of_only_unread_files_names_what_it_skipped(capsys, tmp_path):
    for name in ("guide.html", "policy.docx", *(f"page{i}.html" for i in range(6))):
        (tmp_path / name).write_text("<p>return policy</p>", encoding="utf-8")
    code, _, err = run_main(capsys, "query", "--docs", str(tmp_path), "return policy")
    assert code == 2 and err.count("\n") == 1
    assert "no loadable documents" in err and "reads .txt, .md and .pdf files" in err
    assert "skipped 8 other file(s): guide.html, page0.html" in err and "and 3 more" in err
