"""The http retriever against a real BM25 service on 127.0.0.1: proof checks, metrics, and
every way a service lets a run down (timeouts, junk, unknown ids, 5xx, a server that dies)."""

from __future__ import annotations

import json
import os
import time

import pytest
from conftest import SAMPLE_CASES, SAMPLE_DOCS, require_module, run_module
from hostile_service import hostile_service

require_module("bm25s")

from bm25_service import running  # noqa: E402 - needs bm25s
from es_service import running_es  # noqa: E402 - needs bm25s

from ragdash.case import Case  # noqa: E402
from ragdash.checks.runs import metrics_of, run_cases  # noqa: E402
from ragdash.errors import RetrieverError  # noqa: E402
from ragdash.retrieval.retrievers import make_retriever  # noqa: E402
from ragdash.retrieval.spec import RetrieverSpec  # noqa: E402
from ragdash.settings import Fixes  # noqa: E402
from ragdash.storage.passages_export import passage_records  # noqa: E402


@pytest.fixture(scope="module")
def plain_passages(sample_index):
    return list(passage_records(sample_index, Fixes()))


def http(sample_index, url: str, **settings):
    return make_retriever(RetrieverSpec("http", url=url, **settings), sample_index)


def test_a_live_bm25_service_gets_the_same_diagnoses_as_the_builtin_bm25(
    sample_index, sample_cases, plain_passages
):
    builtin = run_cases(make_retriever("bm25", sample_index), sample_cases, Fixes())
    with running(plain_passages) as service:
        runs = run_cases(http(sample_index, service.url + "/search"), sample_cases, Fixes())
        sent = service.requests[0][1]
    assert sent == {"query": sample_cases[0].query, "top_k": 5}
    assert [r.diagnosis for r in runs] == [r.diagnosis for r in builtin]
    failed = {r.case.name: r.diagnosis for r in runs if not r.passed}
    assert failed == {"stale-version": "ranking", "ocr-noise": "ranking",
                      "split-table": "extraction"}  # fmt: skip
    assert metrics_of(runs).mrr == pytest.approx(metrics_of(builtin).mrr)


def test_query_side_fixes_reach_the_service_and_corpus_side_ones_need_the_exported_passages(
    sample_index, sample_cases, plain_passages
):
    by_name = {c.name: c for c in sample_cases}
    with running(plain_passages) as service:
        retriever = http(sample_index, service.url + "/search")
        run = run_cases(retriever, [by_name["ocr-noise"]], Fixes.all())[0]
        typo = run_cases(retriever, [by_name["typo"]], Fixes(fuzzy=True))[0]
    # the OCR damage is in the service's index; the query asks for the corpus's spelling, as
    # the seed's OCR fix matches it ('sso' → the scan's 'SS0')
    assert run.passed and "query repaired: sso → ss0" in run.notes
    assert typo.query_sent == "warehouse sync" and typo.passed
    repaired = list(passage_records(sample_index, Fixes.all()))
    with running(repaired) as service:  # the team re-indexed `ragdash passages --fixes all`
        runs = run_cases(http(sample_index, service.url + "/search"), sample_cases, Fixes.all())
    assert {r.case.name: r.verdict for r in runs if not r.passed} == {}


def _exported(*fixes: str) -> list[dict]:
    """What `ragdash passages` prints, as the team would index it (one record a line)."""
    args = ["passages", "--docs", str(SAMPLE_DOCS), *(["--fixes", *fixes] if fixes else [])]
    result = run_module("ragdash", *args)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_the_elasticsearch_shape_passes_the_testbed_against_a_strict_search_emulation():
    """Done-when of issue 25: a real `_search` body, the document id from `_source.doc_id`,
    no extra flags — against an emulation that refuses what a real cluster refuses."""
    with running_es(_exported("all")) as es:
        url = es.url + "/passages/_search"
        args = ["check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
                "--fixes", "all", "--retriever", "http", "--url", url]  # fmt: skip
        result = run_module("ragdash", *args, "--shape", "elasticsearch")
        sent = es.requests[0][1]
        opensearch = run_module("ragdash", *args, "--shape", "opensearch", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 of 8 cases passed" in result.stdout
    assert sent == {"query": {"multi_match": {"query": "return policy days",
                                              "fields": ["text"]}}, "size": 15}  # fmt: skip
    # size: the case's top-k 5, plus EXTRA_DEPTH hits for the ranking-side fixes (status,
    # versions, recency) applied to the answer to fill what they drop
    assert json.loads(opensearch.stdout)["passed"] == 8


def test_a_body_the_service_refuses_names_the_body_as_the_cause(sample_index, sample_cases):
    with running_es(_exported()) as es:
        runs = run_cases(http(sample_index, es.url + "/passages/_search"), sample_cases[:1],
                         Fixes())  # fmt: skip
    assert runs[0].error == (
        f"{es.url}/passages/_search: the service refused the request body (HTTP 400 Bad "
        "Request): check --shape / --body-template"
    )


def test_a_body_template_is_filled_on_the_parsed_json_so_a_query_cannot_break_it(
    sample_index, tmp_path
):
    template = tmp_path / "body.json"
    template.write_text(json.dumps({
        "query": {"match": {"text": {"query": "{query}"}}}, "size": "{k}", "_source": True,
    }))  # fmt: skip
    hostile = 'warehouse" } , "size": 1000, "x": {"y'
    with running_es(_exported()) as es:
        retriever = http(sample_index, es.url + "/passages/_search", shape="elasticsearch",
                         body_template=str(template))  # fmt: skip
        ranked = retriever.top(hostile, Fixes(), 2)
        sent = es.requests[-1][1]
    assert sent == {"query": {"match": {"text": {"query": hostile}}}, "size": 2, "_source": True}
    assert ranked[0].doc_id == "inventory"
    (tmp_path / "bad.json").write_text('{"query": {"match": {"text": "{query}"}}')
    for name, problem in (("no.json", "cannot be read"), ("bad.json", "not JSON")):
        with pytest.raises(RetrieverError, match=f"body template .*{name}: {problem}"):
            http(sample_index, "http://127.0.0.1:9/x", body_template=str(tmp_path / name))


def test_a_query_holding_a_placeholder_is_sent_as_typed(sample_index, tmp_path):
    """Regression (issue 40 #6): with ``"acme-{query}"`` in the template, the query
    ``sync {k}`` was sent as ``acme-sync 3`` (the placeholders were filled one after the
    other, so the query's own ``{k}`` was filled too)."""
    template = tmp_path / "body.json"
    template.write_text(json.dumps({
        "query": {"match": {"text": {"query": "acme-{query}"}}}, "size": "{k}",
    }))  # fmt: skip
    query = "warehouse sync {k} {query}"
    with running_es(_exported()) as es:
        retriever = http(sample_index, es.url + "/passages/_search", shape="elasticsearch",
                         body_template=str(template))  # fmt: skip
        retriever.top(query, Fixes(), 3)
        sent = es.requests[-1][1]
    assert sent["query"]["match"]["text"]["query"] == f"acme-{query}"
    assert sent["size"] == 3


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/junk", "the answer is not JSON (text/html, 24 bytes)"),
        ("/object", "the answer is an object without a 'results' list (it has: documents)"),
        ("/no-text", "hit 1 has no 'text' (it has: id, score)"),
        ("/forbidden", "answered HTTP 403 Forbidden"),
    ],
)
def test_a_service_answering_junk_gives_a_clear_message_per_case_and_the_run_finishes(
    sample_index, sample_cases, plain_passages, path, message
):
    with running(plain_passages) as service:
        runs = run_cases(http(sample_index, service.url + path), sample_cases[:3], Fixes())
        asked = len(service.requests)
    assert [r.verdict for r in runs] == ["error"] * 3
    assert runs[0].error == f"{service.url}{path}: {message}"
    assert asked == 3  # a bad answer is not retried: asking again gets the same
    assert metrics_of(runs).errors == 3 and metrics_of(runs).hit == 0


def test_a_slow_service_times_out_per_case(sample_index, sample_cases, plain_passages):
    with running(plain_passages, slow=1.0) as service:
        retriever = http(sample_index, service.url + "/slow", timeout=0.2, retries=1)
        runs = run_cases(retriever, sample_cases[:2], Fixes())
    assert [r.error for r in runs] == [
        f"{service.url}/slow: timed out after 0.2 s (2 attempts)"
    ] * 2


def test_ids_not_in_the_corpus_are_named_for_the_case_which_is_still_judged(
    sample_index, sample_cases, plain_passages
):
    with running(plain_passages) as service:
        run = run_cases(http(sample_index, service.url + "/unknown"), sample_cases[:1], Fixes())[0]
    assert run.verdict == "fail" and run.diagnosis == "ranking"
    assert "returned ids not in the corpus: 'chunk-returns-2024' (rank 1)" in run.message
    assert "ids must be document ids" in run.message


def test_a_5xx_answer_is_retried(sample_index, sample_cases, plain_passages):
    with running(plain_passages) as service:
        run = run_cases(http(sample_index, service.url + "/flaky"), sample_cases[1:2], Fixes())[0]
        asked = len(service.requests)
    assert run.passed and asked == 2
    with running(plain_passages) as service:
        once = http(sample_index, service.url + "/flaky", retries=0)
        with pytest.raises(RetrieverError, match=r"answered HTTP 500 Internal Server Error \(1"):
            once.top("return policy", Fixes(), 1)


def test_a_server_that_dies_mid_run_fails_the_remaining_cases_and_the_run_finishes(
    sample_index, sample_cases, plain_passages
):
    with running(plain_passages, die_after=3) as service:
        retriever = http(sample_index, service.url + "/dies", timeout=1)
        runs = run_cases(retriever, sample_cases, Fixes())
    assert [r.verdict != "error" for r in runs] == [True] * 3 + [False] * 5
    assert runs[-1].error == (
        f"{service.url}/dies: connection refused (is the service running?) (2 attempts)"
    )


def test_nothing_is_cached_a_reindexed_service_is_seen_at_once(sample_index, plain_passages):
    with running(plain_passages) as service:
        retriever = http(sample_index, service.url + "/search")
        assert retriever.top("enterprise sso", Fixes(), 1)[0].doc_id == "crm"
        service.records[:] = [dict(r, text=r["text"] + " enterprise sso") if r["doc_id"] == "plans"
                              else r for r in service.records]  # fmt: skip
        service.model.index([r["text"].lower().split() for r in service.records],
                            show_progress=False)  # fmt: skip
        assert retriever.top("enterprise sso", Fixes(), 1)[0].doc_id == "plans"


def test_the_token_comes_from_the_environment_and_never_from_the_spec(
    sample_index, plain_passages, monkeypatch
):
    with running(plain_passages) as service:
        retriever = http(sample_index, service.url + "/search", auth_env="SEARCH_TOKEN")
        with pytest.raises(RetrieverError, match="SEARCH_TOKEN .* is not set"):
            retriever.top("sync", Fixes(), 1)
        monkeypatch.setenv("SEARCH_TOKEN", "Bearer s3cret")
        retriever.top("sync", Fixes(), 1)
        assert service.requests[-1][2]["Authorization"] == "Bearer s3cret"
    assert "s3cret" not in json.dumps(retriever.spec.to_dict()) + retriever.spec.label


def test_a_service_that_is_not_running_is_reported_not_raised(sample_index, sample_cases):
    with running([{"doc_id": "x", "text": "x", "page_start": 1}]) as service:
        url = service.url + "/search"
    runs = run_cases(http(sample_index, url, retries=0), sample_cases[:2], Fixes())
    assert runs[0].error == f"{url}: connection refused (is the service running?) (1 attempt)"


def test_ragdash_check_runs_the_proof_checks_against_a_live_service(plain_passages, tmp_path):
    with running(plain_passages) as service:
        url = service.url + "/search"
        args = ["check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES)]
        result = run_module("ragdash", *args, "--retriever", "http", "--url", url, "--json")
        table = run_module("ragdash", *args, "--retriever", "http", "--url", url, "--metrics",
                           "--fixes", "fuzzy")  # fmt: skip
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["retriever"] == f"http {url}"
    assert report["passed"] == 5 and report["errors"] == 0
    assert report["metrics"]["k"] == 5 and 0 < report["metrics"]["mrr"] < 1
    assert {c["name"]: c["diagnosis"] for c in report["cases"]}["split-table"] == "extraction"
    assert "fuzzy: applied — query typo repair" in table.stdout
    assert "none           5/8" in table.stdout and "fuzzy          5/8" in table.stdout


def test_ragdash_check_reports_a_dead_service_once_stops_asking_and_exits_4(tmp_path):
    with running([{"doc_id": "x", "text": "x", "page_start": 1}]) as service:
        url = service.url + "/search"
    args = ["--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES), "--retries", "0"]
    result = run_module("ragdash", "check", *args, "--retriever", "http", "--url", url)
    assert result.returncode == 4  # the documented retriever-error code: not 0, not 1
    assert "0 of 8 cases passed; 8 could not be run" in result.stdout
    # one line per cause, not the same line once per case; asked 3 times, then stopped
    cause = f"{url}: connection refused (is the service running?) (1 attempt)"
    lines = [line for line in result.stdout.splitlines() if "connection refused" in line]
    assert lines == [
        f"3 cases (stale-version, stale-version-control, ocr-noise): {cause}",
        "5 cases (ocr-noise-control, typo, typo-control, split-table, split-table-control): "
        f"stopped after 3 connection failures in a row: {cause}",
    ]
    assert "Traceback" not in result.stderr
    never = run_module("ragdash", "check", *args, "--retriever", "http", "--url", url,
                       "--max-failures", "0", "--json")  # fmt: skip
    assert never.returncode == 4
    assert {c["error"] for c in json.loads(never.stdout)["cases"]} == {cause}


def test_ragdash_ablate_asks_only_the_configurations_that_can_differ_and_keeps_metrics(
    plain_passages,
):
    args = ["ablate", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
            "--retriever", "http", "--metrics"]  # fmt: skip
    with running(plain_passages) as service:
        result = run_module("ragdash", *args, "--url", service.url + "/search", "--json")
        asked = [repr(r) for r in service.requests]
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # at most none, ocr, fuzzy, ocr+fuzzy per case (not 16 configurations), and no request
    # twice: configurations differing in ranking-side fixes re-rank the same answer
    assert 8 <= len(asked) <= 4 * 8 and len(set(asked)) == len(asked)
    assert len(report["rows"]) == 16 * 8 and len(report["metrics"]) == 16
    by_name = {m["configuration"]: m for m in report["metrics"]}
    assert by_name["tables"] == {**by_name["none"], "configuration": "tables"}
    # all fixes: only split-table fails (tables need a re-index); status and recency reach
    # the service's hits
    assert by_name["all"]["passed"] == 7 and 0 < by_name["all"]["mrr"] <= 1
    assert report["identical"]["all-but-tables"] == {"same_as": "all",
                                                     "reason": "tables does not reach http"}
    dead = run_module("ragdash", *args, "--url", service.url + "/search", "--retries", "0")
    assert dead.returncode == 4
    assert "all-but-unicode: identical to all — unicode does not reach http" in dead.stdout
    assert dead.stdout.count("connection refused") == 2  # once per cause, not per row


def test_ragdash_check_compares_a_service_before_and_after_re_indexing(sample_index):
    before = list(passage_records(sample_index, Fixes()))
    after = list(passage_records(sample_index, Fixes.parse("tables,ocr,status")))
    with running(before) as old, running(after) as new:
        args = ["check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
                "--retriever", "http", "--url", new.url + "/search",
                "--compare-url", old.url + "/search"]  # fmt: skip
        text = run_module("ragdash", *args)
        report = json.loads(run_module("ragdash", *args, "--json").stdout)
    assert text.returncode == 0, text.stderr
    changed = text.stdout.split("before: ")[1]
    assert "stale-version  fail (ranking)     pass (pass)" in changed
    assert "ocr-noise      fail (ranking)     pass (pass)" in changed
    assert "split-table    fail (extraction)  pass (pass)" in changed
    assert "before  5/8" in text.stdout and "after   8/8" in text.stdout
    assert report["compared"]["retriever"] == f"http {old.url}/search"
    assert report["compared"]["metrics"]["mrr"] < report["metrics"]["mrr"] == 1


# --- an untrusted service: bounded in time, size and depth (issue 24 #5) -------------------


def _error(sample_index, url: str, **settings) -> str:
    """The one-line error a case gets from the service at ``url``."""
    run = run_cases(http(sample_index, url, retries=0, **settings),
                    [Case("c", "warehouse sync", "inventory")], Fixes())[0]  # fmt: skip
    assert run.verdict == "error"
    return run.error


def test_a_service_that_drips_its_answer_is_cut_at_the_total_deadline(sample_index):
    """One byte every 0.2 s: every read is quick, so a per-read timeout never fires and the
    answer took about 36 s; the timeout bounds the whole request."""
    with hostile_service(drip=0.2) as service:
        retriever = http(sample_index, service.url + "/drip", timeout=1, retries=0)
        started = time.monotonic()
        with pytest.raises(RetrieverError) as raised:
            retriever.top("warehouse sync", Fixes(), 1)
        took = time.monotonic() - started
    assert str(raised.value) == f"{service.url}/drip: timed out after 1 s (1 attempt)"
    assert took < 1 + 1.5, f"a 1 s timeout took {took:.1f} s"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/huge-number", "the answer holds a number of 5,000 digits (at most 30 are read)"),
        ("/deep", "the answer is nested more than 64 levels deep"),
    ],
)
def test_junk_numbers_and_nesting_fail_only_their_case(sample_index, sample_cases, path, message):
    """A 5,000-digit score raised ValueError and nesting 100,000 deep RecursionError out of
    the whole run."""
    with hostile_service() as service:
        runs = run_cases(http(sample_index, service.url + path), sample_cases[:3], Fixes())
    assert [r.error for r in runs] == [f"{service.url}{path}: {message}"] * 3


def test_an_answer_over_the_size_cap_is_refused_before_or_while_reading(sample_index):
    with hostile_service() as service:
        claimed = _error(sample_index, service.url + "/claims-huge")
        streamed = _error(sample_index, service.url + "/oversize")
    assert claimed == f"{service.url}/claims-huge: the answer is larger than 20 MB"
    assert streamed == f"{service.url}/oversize: the answer is larger than 20 MB"


def test_redirects_are_followed_only_within_the_services_own_origin(sample_index):
    with hostile_service() as other, hostile_service(other=other.url + "/search") as service:
        to_other = _error(sample_index, service.url + "/redirect-other")
        to_ftp = _error(sample_index, service.url + "/redirect-ftp")
        same = http(sample_index, service.url + "/redirect-same").top("sync", Fixes(), 1)
    assert other.requests == []  # the query never went to the other host
    port = service.url.rsplit(":", 1)[1]
    assert to_other == (
        f"{service.url}/redirect-other: answered HTTP 302 Found, a redirect to {other.url} — "
        f"only redirects within http://127.0.0.1:{port} are followed (give the service's own "
        "URL)"
    )
    assert "a redirect to ftp://files.example — only" in to_ftp
    assert [p.doc_id for p in same] == ["inventory"]
    assert service.requests[-2:] == ["/redirect-same", "/search"]


def test_an_error_answer_shows_its_status_never_its_body_or_reason(sample_index):
    with hostile_service() as service:
        error = _error(sample_index, service.url + "/secret")
    assert error == f"{service.url}/secret: answered HTTP 500 Internal Server Error (1 attempt)"


def test_ragdash_check_fails_each_junk_answer_on_its_case_and_never_shows_a_secret():
    with hostile_service() as service:
        results = {
            path: run_module("ragdash", "check", "--docs", str(SAMPLE_DOCS), "--cases",
                             str(SAMPLE_CASES), "--retriever", "http", "--url",
                             service.url + path, "--retries", "0")
            for path in ("/huge-number", "/deep", "/secret")
        }  # fmt: skip
    for path, result in results.items():
        assert result.returncode == 4, (path, result.stderr)  # the retriever erred: not 1-3
        assert "0 of 8 cases passed; 8 could not be run" in result.stdout, path
        assert result.stderr == "" and "Traceback" not in result.stdout
    assert "db_password" not in results["/secret"].stdout
    assert "answered HTTP 500 Internal Server Error" in results["/secret"].stdout


@pytest.mark.parametrize(("signal_name", "code", "word"),
                         [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")])
def test_a_run_killed_mid_way_exits_non_zero_with_a_line(plain_passages, signal_name, code, word):
    import signal
    import subprocess
    import sys

    from conftest import ROOT

    with running(plain_passages, slow=60) as service:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(
            [sys.executable, "-m", "ragdash", "ablate", "--docs", str(SAMPLE_DOCS), "--cases",
             str(SAMPLE_CASES), "--retriever", "http", "--url", service.url + "/slow",
             "--timeout", "120"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
            # a suite started in the background inherits SIGINT ignored: as a user's run does
            # not, the run gets the default handling back
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
        while not service.requests and process.poll() is None:  # the run is asking now
            time.sleep(0.05)
        process.send_signal(getattr(signal, signal_name))
        out, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert f"ragdash: {word} ({signal_name})" in err and "Traceback" not in err


def test_search_shape_fields_without_an_underscore_are_source_fields():
    def shape(**fields):
        return RetrieverSpec("http", url="http://h/_search", shape="opensearch", **fields)

    chunked = shape(id_field="source", text_field="body")
    assert (chunked.response_shape.id, chunked.response_shape.text) == ("_source.source",
                                                                        "_source.body")
    assert chunked.search_field == "body"  # the multi_match field
    assert shape(id_field="_id").response_shape.id == "_id"
    assert shape().response_shape.id == "_source.doc_id" and shape().search_field == "text"


def test_every_search_body_ragdash_sends_is_what_the_official_query_dsl_parses(
    sample_index, sample_cases, tmp_path
):
    """Besides the emulation: the bodies sent while the testbed runs with every fix
    (repaired queries included), in both shapes and through a body template, parse with the
    official client's query DSL (``elasticsearch.dsl``, what ``elasticsearch-dsl`` became)
    and come back equal — a known query type with its known parameters. No real cluster
    is asked (none is reachable from CI); the DSL does refuse a malformed query, as below."""
    require_module("elasticsearch")  # ragdash[stores]; CI has it, so never skips this
    from elasticsearch.dsl import Search
    from elasticsearch.dsl.query import Bool, Match, MultiMatch

    from ragdash.retrieval.http_retriever import fill_template

    template = tmp_path / "match.json"
    template.write_text(json.dumps({"query": {"match": {"text": {"query": "{query}"}}},
                                    "size": "{k}"}))  # fmt: skip
    with running_es(_exported("all")) as es:
        url = es.url + "/passages/_search"
        for settings in ({"shape": "elasticsearch"}, {"shape": "opensearch"},
                         {"shape": "elasticsearch", "body_template": str(template)}):  # fmt: skip
            runs = run_cases(http(sample_index, url, **settings), sample_cases, Fixes.all())
            assert [r.error for r in runs if r.error] == []
        bodies = [body for _, body in es.requests]
    # the bool query of the docs' --body-template example, filled as ragdash fills it
    bodies.append(fill_template({"query": {"bool": {
        "must": [{"match": {"text": "{query}"}}],
        "filter": [{"term": {"metadata.status": "current"}}]}}, "size": "{k}"},
        'a "quoted" {query}', 5))  # fmt: skip
    assert len(bodies) == 3 * len(sample_cases) + 1
    for body in bodies:
        search = Search.from_dict(body)
        assert search.to_dict() == body
        assert isinstance(search.query._proxied, MultiMatch | Match | Bool)
        assert isinstance(body["size"], int) and body["size"] > 0
    queries = {b["query"]["multi_match"]["query"] for b in bodies if "multi_match" in b["query"]}
    # the fixes' repaired queries, each token in the corpus's own case (the PDF says SS0)
    assert {"warehouse sync", "enterprise SS0"} <= queries
    for malformed in ({"query": "return policy"}, {"query": {"multi_matchx": {"query": "q"}}},
                      {"query": {}}):  # fmt: skip
        with pytest.raises(Exception):  # noqa: B017 - the DSL raises ValueError or its own
            Search.from_dict(malformed)
