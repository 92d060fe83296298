"""Bidi and zero-width characters in every grid of the real app (AppTest): the Test suite's
case table, the saved-runs table, *Compare two runs*, the Triage result table and Explore's
corrupted-query block show U+202E and U+200B as ``⟨U+202E⟩`` / ``⟨U+200B⟩``, never raw
(issue 24 #9). A grid draws on a canvas, so a raw override there reverses the cell as it
would in a label: ``typo \u202eesac`` read as ``typo case``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SAMPLE_CASES
from streamlit.testing.v1 import AppTest
from test_app import SUITE, no_exception
from test_app_text import walk

from ragdash.storage.case_store import add_case, load_cases

ROOT = Path(__file__).resolve().parent.parent
TRIAGE = "ragdash/ui/pages/triage.py"
RLO, ZWSP = "\u202e", "\u200b"
#: A case whose verdict changes between no fixes and all fixes, named with an override
#: and a zero-width space.
CASE = f"typo {RLO}esac{ZWSP}"
CASE_SHOWN = "typo ⟨U+202E⟩esac⟨U+200B⟩"
RUN = f"no {RLO}fixes"


def raw_cells(at: AppTest) -> list[str]:
    """Grid cells, column names and HTML tables on the page holding a raw U+202E or U+200B."""
    found = []
    for i, element in enumerate(at.dataframe):
        table = element.value
        texts = [*map(str, table.columns), *map(str, table.index)]
        texts += [str(v) for column in table.columns for v in table[column]]
        found += [f"dataframe {i}: {t!r}" for t in texts if RLO in t or ZWSP in t]
    for node in walk(at._tree):
        proto = getattr(node, "proto", None)
        if getattr(node, "type", "") in {"html", "code"} and proto is not None:
            body = getattr(proto, "body", None) or getattr(proto, "code_text", "")
            if RLO in body or ZWSP in body:
                found.append(f"{node.type}: {body[:80]!r}")
    return found


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "workspace"
    monkeypatch.setenv("RAGDASH_WORKSPACE", str(root))
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    typo = next(c for c in load_cases(SAMPLE_CASES) if c.name == "typo")
    add_case(root, replace(typo, name=CASE))
    return root


def suite(fixes: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["fixes"] = fixes
    at.run()
    at.switch_page(SUITE).run()
    no_exception(at)
    return at


def save(at: AppTest, name: str) -> None:
    at.text_input(key="runs_name").input(name)
    at.button(key="FormSubmitter:runs_save-Save this run").click().run()
    no_exception(at)


def table_with(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def html_bodies(at: AppTest) -> list[str]:
    return [n.proto.body for n in walk(at._tree) if getattr(n, "type", "") == "html"]


def test_the_suite_case_table_saved_runs_and_the_comparison_show_code_points(workspace):
    at = suite("none")
    assert any(CASE_SHOWN in body for body in html_bodies(at))  # the case table
    assert raw_cells(at) == []
    save(at, RUN)
    at = suite("all")
    save(at, "all fixes")
    runs = table_with(at, "corpus")
    assert list(runs["name"]) == ["all fixes", "no ⟨U+202E⟩fixes"]
    changes = table_with(at, "change")
    assert CASE_SHOWN in set(changes["case"])
    assert raw_cells(at) == []


def test_the_triage_result_table_shows_code_points(workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(TRIAGE).run()
    at.text_input(key="tr_query").input("warehuse sync")
    at.selectbox(key="tr_expect").select("inventory")
    at.text_input(key="tr_evidence").input(f"zz {RLO}live{ZWSP}")
    next(b for b in at.button if b.label == "Diagnose").click()
    at.run()
    no_exception(at)
    table = at.dataframe[0].value
    assert "zz ⟨U+202E⟩live⟨U+200B⟩" in set(table["missing evidence"])
    assert raw_cells(at) == []


def test_explore_shows_the_corrupted_query_with_code_points(workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(q=f"warehouse {RLO}sync{ZWSP} policy", fault="typo", rate="0.1")
    at.run()
    no_exception(at)
    blocks = [c.value for c in at.code]
    assert any("⟨U+202E⟩" in b for b in blocks), blocks
    assert raw_cells(at) == []
