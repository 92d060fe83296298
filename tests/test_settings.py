"""The one settings type: validation, canonical forms, the label, and every accepted form."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragdash.errors import RagdashError, SettingsError
from ragdash.settings import (
    DEFAULT_OCR_MAP,
    FIX_NAMES,
    SEED_OCR_MAP,
    Fixes,
    format_ocr_map,
    parse_ocr_map,
    split_fix_names,
)


def test_fixes_parse_and_names_round_trip():
    assert Fixes.parse("none") == Fixes()
    assert Fixes.parse("ALL") == Fixes.all()
    assert Fixes.parse(" recency , ocr ").enabled == ("recency", "ocr")
    for spec in ("none", "all", "recency", "status,fuzzy", "recency,ocr,tables"):
        assert Fixes.parse(Fixes.parse(spec).names) == Fixes.parse(spec)
    assert Fixes.parse("tables,recency").names == "recency,tables"


def test_fixes_parse_rejects_an_unknown_name_and_lists_the_choices():
    with pytest.raises(ValueError, match="unknown fix 'speed'") as info:
        Fixes.parse("recency,speed")
    assert all(name in str(info.value) for name in FIX_NAMES)


def test_split_fix_names_keeps_the_good_names_beside_a_bad_one():
    assert split_fix_names("fuzzy,bogus") == (["fuzzy"], ["bogus"])
    assert split_fix_names("all") == (list(FIX_NAMES), [])


def test_fixes_carry_settings_through_with_only():
    only = Fixes.parse("all", threshold=70.0).with_only(["fuzzy"])
    assert only.enabled == ("fuzzy",)
    assert only.threshold == 70.0


@pytest.mark.parametrize("threshold", [500, -1, 100.01, math.nan, math.inf, "80", True])
def test_a_bad_threshold_is_refused_when_created_naming_it(threshold):
    with pytest.raises(SettingsError, match="threshold"):
        Fixes(threshold=threshold)


def test_settings_errors_are_value_errors_under_the_one_root():
    with pytest.raises(ValueError):
        Fixes(fuzzy_rule="levenshtein")
    with pytest.raises(RagdashError, match="levenshtein"):
        Fixes(fuzzy_rule="levenshtein")
    with pytest.raises(SettingsError, match="must be true or false"):
        Fixes(ocr="yes")  # type: ignore[arg-type]


def test_every_form_of_an_ocr_map_resolves_to_one_hashable_canonical_form():
    forms = ["1=I, 0=o", {"0": "o", "1": "i"}, [("1", "i"), ("0", "o")], (("0", "o"), ("1", "i"))]
    resolved = {Fixes(ocr=True, ocr_map=form) for form in forms}  # hashable: a dict map was not
    assert len(resolved) == 1
    assert next(iter(resolved)).ocr_map == SEED_OCR_MAP


def test_a_digit_may_map_to_several_letters():
    fixes = Fixes(ocr_map="1=i, 1=l, 0=o")
    assert fixes.ocr_map == (("0", "o"), ("1", "i"), ("1", "l"))
    assert fixes.substitutions == {"0": "o", "1": "i"}


@pytest.mark.parametrize("ocr_map", ["0=oo", "00=o", {"0": 5}, [("0",)], 7])
def test_a_bad_ocr_map_is_refused_naming_the_entry(ocr_map):
    with pytest.raises(SettingsError, match="OCR map"):
        Fixes(ocr_map=ocr_map)


def test_the_label_names_every_setting_that_changes_results():
    assert Fixes().label == "none"
    assert Fixes.parse("recency").label == "recency"
    assert Fixes.all().label == "all (ocr map 0=o,1=i,1=l,5=s,8=b; fuzzy ratio>=80)"
    assert Fixes(ocr=True, ocr_map="0=o", protected="SHA1 t1d").label == (
        "ocr (ocr map 0=o; protected sha1,t1d)"
    )
    assert Fixes(fuzzy=True, threshold=85.5).label == "fuzzy (fuzzy ratio>=85.5)"
    assert Fixes(fuzzy=True, fuzzy_rule="es-auto").label == "fuzzy (fuzzy es-auto)"
    # settings of a fix that is off change nothing, so two such settings label alike
    assert Fixes(threshold=60).label == Fixes().label


def test_the_default_map_reads_a_digit_as_any_of_several_letters():
    assert DEFAULT_OCR_MAP == (("0", "o"), ("1", "i"), ("1", "l"), ("5", "s"), ("8", "b"))


def test_the_protected_list_is_canonical_and_refuses_what_is_not_one_token():
    assert Fixes(protected="T1D, sha1; sha1").protected == ("sha1", "t1d")
    assert Fixes(protected=["RAID1"]).protected == ("raid1",)
    with pytest.raises(SettingsError, match="letters and digits only"):
        Fixes(protected="sha-1")


def test_resolve_accepts_every_form_and_round_trips_to_dict():
    fixes = Fixes(
        ocr=True,
        fuzzy=True,
        threshold=72,
        ocr_map="5=s",
        fuzzy_rule="typos-5-9",
        protected="sha1, t1d",
        versions=True,
        unicode=True,
    )
    assert Fixes.resolve(fixes.to_dict()) == fixes
    assert Fixes.resolve(fixes) is fixes
    assert Fixes.resolve("all") == Fixes.all()
    assert Fixes.resolve(None) == Fixes()
    assert Fixes.resolve("ocr", threshold=60).threshold == 60
    with pytest.raises(SettingsError, match="'speed'"):
        Fixes.resolve({"fixes": "all", "speed": 3})


@pytest.mark.parametrize("spec", ["0=o, 1=i", "0→o 1→i", "0:o;1:i", "1->i,0->o", "0=O, 1=I"])
def test_parse_ocr_map_accepts_the_documented_spellings(spec):
    assert parse_ocr_map(spec) == SEED_OCR_MAP


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [("00=o", "one digit"), ("a=b", "one digit"), ("0=oo", "one letter"), ("0", "digit=letter")],
)
def test_parse_ocr_map_rejects_bad_entries_naming_them(spec, fragment):
    with pytest.raises(ValueError, match=fragment) as info:
        parse_ocr_map(spec)
    assert spec in str(info.value)


DIGITS, LETTERS = st.sampled_from("0123456789"), st.sampled_from("abcdefghijklmnopqrstuvwxyz")


@given(st.dictionaries(DIGITS, LETTERS))
def test_format_ocr_map_round_trips(mapping):
    assert parse_ocr_map(format_ocr_map(mapping)) == tuple(sorted(mapping.items()))
