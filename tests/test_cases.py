"""Reading and writing cases files."""

from __future__ import annotations

import json

import pytest

from ragdash.case import Case
from ragdash.checks.cases import (
    CaseFileError,
    case_from_dict,
    case_to_dict,
    dump_cases,
    parse_cases,
    save_cases,
)
from ragdash.storage.case_store import load_cases


def test_the_sample_cases_load_with_unique_names_and_kinds(sample_cases):
    assert len(sample_cases) == len({c.name for c in sample_cases}) >= 8
    assert {c.kind for c in sample_cases} == {"corrupted", "control"}
    assert all(c.query and c.expected_id and c.top_k >= 1 for c in sample_cases)


def test_a_bare_list_and_an_object_with_cases_both_parse():
    item = {"name": "a", "query": "q", "expected_id": "doc"}
    assert parse_cases(json.dumps([item])) == parse_cases(json.dumps({"cases": [item]}))


def test_optional_fields_take_their_defaults():
    case = case_from_dict({"name": " a ", "query": "q", "expected_id": " doc "})
    assert case == Case("a", "q", "doc", (), 1, "", "")


def test_a_single_evidence_string_becomes_a_one_item_list_and_blanks_are_dropped():
    assert case_from_dict(
        {"name": "a", "query": "q", "expected_id": "d", "evidence": "x"}
    ).evidence == ("x",)
    case = case_from_dict({"name": "a", "query": "q", "expected_id": "d", "evidence": ["x", " "]})
    assert case.evidence == ("x",)


@pytest.mark.parametrize(
    ("item", "fragment"),
    [
        ("not an object", "not a JSON object"),
        ({"query": "q", "expected_id": "d"}, "has no name"),
        ({"name": "a", "query": " ", "expected_id": ""}, "has no query, expected_id"),
        ({"name": "a", "query": "q", "expected_id": "d", "evidence": [1]}, "list of strings"),
        ({"name": "a", "query": "q", "expected_id": "d", "top_k": 0}, "top_k"),
        ({"name": "a", "query": "q", "expected_id": "d", "top_k": True}, "top_k"),
        ({"name": "a", "query": "q", "expected_id": "d", "top_k": "2"}, "top_k"),
    ],
)
def test_bad_cases_are_refused_naming_the_case_and_the_problem(item, fragment):
    with pytest.raises(CaseFileError, match=fragment) as info:
        parse_cases(json.dumps([{"name": "ok", "query": "q", "expected_id": "d"}, item]), "my.json")
    assert "my.json: case 2" in str(info.value)


def test_invalid_json_names_the_line_and_column():
    with pytest.raises(CaseFileError, match=r"my\.json is not valid JSON \(line 2, column"):
        parse_cases('{"cases": [\n  oops ]}', "my.json")


def test_a_document_without_a_list_is_refused():
    with pytest.raises(CaseFileError, match="list of cases"):
        parse_cases('{"tests": []}')


def test_duplicate_case_names_are_refused():
    item = {"name": "same", "query": "q", "expected_id": "d"}
    with pytest.raises(CaseFileError, match="'same' is used twice"):
        parse_cases(json.dumps([item, item]))


def test_cases_round_trip_through_a_file(tmp_path, sample_cases):
    path = tmp_path / "out" / "cases.json"
    path.parent.mkdir()
    save_cases(path, sample_cases)
    assert load_cases(path) == sample_cases
    assert parse_cases(dump_cases(sample_cases)) == sample_cases
    assert case_from_dict(case_to_dict(sample_cases[0])) == sample_cases[0]


def test_saving_keeps_non_ascii_text_readable(tmp_path):
    path = tmp_path / "cases.json"
    save_cases(path, [Case("café", "prix €", "doc")])
    assert "café" in path.read_text(encoding="utf-8")
    assert load_cases(path)[0].query == "prix €"


def test_a_missing_cases_file_is_a_one_line_error(tmp_path):
    with pytest.raises(CaseFileError, match="cannot read cases file") as info:
        load_cases(tmp_path / "nope.json")
    assert "\n" not in str(info.value)


def test_a_non_utf8_cases_file_is_refused(tmp_path):
    path = tmp_path / "cases.json"
    path.write_bytes('[{"name": "caf\xe9"}]'.encode("cp1252"))
    with pytest.raises(CaseFileError, match="not UTF-8"):
        load_cases(path)


def test_a_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "cases.json"
    path.write_bytes(
        b"\xef\xbb\xbf" + json.dumps([{"name": "a", "query": "q", "expected_id": "d"}]).encode()
    )
    assert [c.name for c in load_cases(path)] == ["a"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"cases": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply"),
        ('[{"name": "a", "query": "q", "expected_id": "d", "top_k": ' + "9" * 5000 + "}]",
         "not a usable cases file"),
        ('[{"name": "a", "query": "q", "expected_id": "d", "top_k": 100000}]', "from 1 to 1000"),
        ('[{"name": "a", "query": "' + "q" * 20000 + '", "expected_id": "d"}]', "longer than"),
        ('[{"name": "a", "query": "q", "expected_id": "d", "evidence": '
         + str(["e"] * 500).replace("'", '"') + "}]", "evidence strings"),
    ],
    ids=["deep", "huge-int", "top-k", "long-field", "many-evidence"],
)  # fmt: skip
def test_hostile_case_files_are_refused_with_a_message_naming_the_problem(text, problem):
    with pytest.raises(CaseFileError, match=problem):
        parse_cases(text, "cases.json")


def test_too_many_cases_are_refused_before_any_is_checked(monkeypatch):
    import ragdash.checks.cases as cases_module

    monkeypatch.setattr(cases_module, "MAX_CASES", 3)
    text = json.dumps([{"name": f"c{i}", "query": "q", "expected_id": "d"} for i in range(4)])
    with pytest.raises(CaseFileError, match="holds 4 cases; the limit is 3"):
        parse_cases(text, "cases.json")
