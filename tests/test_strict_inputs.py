"""A mistake in a case is refused, and every run says what it ran on (issue 41).

A case written ``{"evidance": ["999 EUR"], "topk": 3}`` used to load with both keys
dropped: no evidence was checked and the case passed. Now an unknown key, a missing
required key or a value of the wrong type is refused naming the case, the key and the key
it was likely meant to be — from a cases file, an import, the library or the generator.
``ragdash check --cases mine.json`` without ``--docs`` ran against the bundled samples and
never said so; now it is refused, and every run names its docs folder and its cases in its
first line and in ``--json``."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE_CASES

from ragdash.checks.cases import case_from_dict, parse_cases
from ragdash.cli import main
from ragdash.errors import CaseFileError, LibraryError
from ragdash.storage.library import CaseLibrary
from ragdash.storage.log_import import parse_log_cases

GOOD = {"name": "price", "query": "basic plan price", "expected_id": "plans"}


def _file(tmp_path, *cases: dict) -> str:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"cases": list(cases)}), encoding="utf-8")
    return str(path)


def _run(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("extra", "key", "near"),
    [({"evidance": ["999 EUR"]}, "evidance", "evidence"), ({"topk": 3}, "topk", "top_k"),
     ({"expected_doc": "plans"}, "expected_doc", "expected_id")],
)  # fmt: skip
def test_a_misspelled_key_is_refused_naming_the_case_the_key_and_the_key_meant(
    capsys, monkeypatch, tmp_path, extra, key, near
):
    cases = _file(tmp_path, {**GOOD, **extra})
    code, out, err = _run(capsys, monkeypatch, "check", "--docs", "samples", "--cases", cases)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"ragdash: error: mine.json: case 1 ('price'): unknown key {key!r} "
        f"(did you mean {near!r}?); nothing was loaded"
    )


@pytest.mark.parametrize(
    ("case", "words"),
    [({"name": "a", "query": "q"}, "case 1 ('a') has no expected_id"),
     ({**GOOD, "query": 42}, "'query' must be text, not a number"),
     ({**GOOD, "evidence": {"a": 1}}, "'evidence' must be a list of strings"),
     ({**GOOD, "top_k": "3"}, "'top_k' must be a whole number"),
     ({**GOOD, "note": None}, "'note' must be text, not null")],
)  # fmt: skip
def test_a_missing_key_or_a_wrong_type_is_refused_naming_the_case(case, words):
    with pytest.raises(CaseFileError, match="cases.json: case 1") as caught:
        parse_cases(json.dumps([case]), "cases.json")
    assert words in str(caught.value)


def test_a_users_own_x_key_and_an_exports_fixes_are_read():
    case = case_from_dict({**GOOD, "x-reviewed": "2026-03", "fixes": "fuzzy"})
    assert (case.name, case.evidence) == ("price", ())


def test_an_import_with_a_misspelled_column_names_the_column_meant():
    found = parse_log_cases(
        "query,expected_id,evidance,timestamp\nreturn policy,returns-2026,30 days,2026\n",
        "log.csv",
    )
    assert found.cases == ()
    assert [str(e) for e in found.errors] == [
        "row 2: unknown column 'evidance' (did you mean 'evidence'?)"
    ]


def test_a_case_saved_to_the_library_is_checked_as_a_file_is(tmp_path):
    from ragdash.case import Case

    library = CaseLibrary(tmp_path / "library.sqlite")
    with pytest.raises(LibraryError, match="'query' must be text"):
        library.add(Case("bad", 5, "plans"))  # type: ignore[arg-type]


def test_generated_cases_pass_the_strict_reading(sample_corpus):
    from ragdash.checks.cases import case_to_dict
    from ragdash.checks.generate import generate_cases

    cases = generate_cases(sample_corpus, 6, seed=1)
    assert cases and [case_from_dict(case_to_dict(c)) for c in cases] == cases


def test_own_cases_without_docs_are_refused_not_run_on_the_samples(
    capsys, monkeypatch, tmp_path
):
    cases = _file(tmp_path, {**GOOD, "evidence": ["999 EUR"]})
    for command in ("check", "ablate", "stress", "fragility"):
        code, out, err = _run(capsys, monkeypatch, command, "--cases", cases)
        assert code == 2 and out == "", command
        assert err.strip() == (
            f"ragdash: error: --cases {cases} names your own cases: give --docs DIR, the "
            "folder they are about (--docs samples for the bundled samples)"
        )


def test_every_run_names_its_docs_and_cases_first_and_in_json(capsys, monkeypatch):
    both = ("--docs", "samples", "--cases", str(SAMPLE_CASES))
    runs = {
        "check": ("check", *both),
        "ablate": ("ablate", *both),
        "fragility": ("fragility", *both, "--kind", "ocr", "--max-evaluations", "20"),
        "stress": ("stress", *both, "--faults", "typo"),
    }
    for name, args in runs.items():
        _, out, _ = _run(capsys, monkeypatch, *args)
        assert out.splitlines()[0] == "docs: samples (--docs) · cases: samples (8 cases)", name
        _, out, _ = _run(capsys, monkeypatch, *args, "--json")
        assert json.loads(out)["inputs"] == {
            "docs": "samples", "docs_from": "--docs", "cases": "samples", "case_count": 8
        }, name  # fmt: skip
    _, out, _ = _run(capsys, monkeypatch, "stress", "--generate", "3", "--seed", "4")
    assert out.splitlines()[0] == (
        "docs: samples (default (no --docs, no $RAGDASH_DOCS): the bundled samples) · "
        "cases: generated with seed 4 (3 cases)"
    )


def test_passages_rewrites_and_index_build_name_their_docs_first_too(
    capsys, monkeypatch, tmp_path
):
    """``passages``, ``rewrites`` and ``index build`` ran on a folder and never said which.
    ``passages`` writes its data to stdout, so its inputs go to stderr, before anything."""
    line = "docs: samples (--docs)"
    record = {"docs": "samples", "docs_from": "--docs"}
    _, out, _ = _run(capsys, monkeypatch, "rewrites", "--docs", "samples")
    assert out.splitlines()[0] == line
    _, out, _ = _run(capsys, monkeypatch, "rewrites", "--docs", "samples", "--json")
    assert json.loads(out)["inputs"] == record
    _, out, err = _run(capsys, monkeypatch, "passages", "--docs", "samples")
    assert err.splitlines()[0] == line
    assert json.loads(out.splitlines()[0])["doc_id"]  # stdout is still only passages
    _, out, err = _run(capsys, monkeypatch, "passages", "--docs", "samples", "--json",
                       "-o", str(tmp_path / "p.jsonl"))  # fmt: skip
    assert json.loads(err.splitlines()[0]) == {"inputs": record} and out == ""
    _, out, _ = _run(capsys, monkeypatch, "index", "build", "--docs", "samples",
                     "-o", str(tmp_path / "index"))  # fmt: skip
    assert out.splitlines()[0] == line and "saved 6 passages" in out
