"""The Test suite's *Saved runs* in Streamlit's AppTest: a run saved with no fixes and one
with all fixes are listed, compared (4 cases fail→pass, each with its reason) and offered as
HTML reports; the CLI sees the same runs in the workspace's library."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest
from test_app import ROOT, SUITE, no_exception

from ragdash.cli import main


def suite(fixes: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["fixes"] = fixes
    at.run()
    at.switch_page(SUITE).run()
    no_exception(at)
    return at


def table_with(at: AppTest, column: str):
    """The first table showing ``column`` (AppTest does not expose a dataframe's key)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def save(at: AppTest, name: str) -> None:
    at.text_input(key="runs_name").input(name)
    at.button(key="FormSubmitter:runs_save-Save this run").click().run()
    no_exception(at)


def test_two_saved_runs_are_listed_compared_and_reported(tmp_path, monkeypatch, capsys):
    workspace = tmp_path / "workspace"
    monkeypatch.setenv("RAGDASH_WORKSPACE", str(workspace))
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    at = suite("none")
    assert any("No saved run yet" in c.value for c in at.caption)
    save(at, "no fixes")
    assert any("Saved run #1 (4 of 8" in s.value for s in at.success)
    at = suite("all")
    save(at, "all fixes")
    runs = table_with(at, "corpus")
    assert list(runs["name"]) == ["all fixes", "no fixes"]
    assert list(runs["passed"]) == ["8/8", "4/8"]
    assert any("**4 fail→pass**, **0 pass→fail**" in md.value for md in at.markdown)
    changes = table_with(at, "change")
    assert set(changes["case"]) == {"stale-version", "ocr-noise", "typo", "split-table"}
    assert set(changes["change"]) == {"fail→pass"}
    why = {md.value.split("**")[1].replace("\\", ""): md.value.replace("\\", "")
           for md in at.markdown if md.value.startswith("- **")}  # fmt: skip
    assert set(why) == set(changes["case"])
    assert "ocr alone repairs it" in why["ocr-noise"]
    assert "tables alone repairs it" in why["split-table"]
    deltas = table_with(at, "delta")
    assert dict(zip(deltas["metric"], deltas["delta"], strict=True))["MRR"] == "+0.219"
    labels = {b.label for b in at.get("download_button")}
    assert {"Download HTML report", "Download the diff as an HTML report"} <= labels
    # the CLI sees the same runs
    assert main(["diff", "1", "2", "--workspace", str(workspace)]) == 0
    assert "4 fail→pass" in capsys.readouterr().out


def test_a_damaged_newest_saved_run_is_one_error_card_with_delete(tmp_path, monkeypatch):
    import sqlite3

    workspace = tmp_path / "workspace"
    monkeypatch.setenv("RAGDASH_WORKSPACE", str(workspace))
    monkeypatch.delenv("RAGDASH_DOCS", raising=False)
    at = suite("none")
    save(at, "good")
    save(at, "damaged")
    with sqlite3.connect(workspace / "library.sqlite") as conn:  # deep JSON, as a bad disk
        conn.execute("UPDATE saved_runs SET data = ?, metrics = ? WHERE id = 2",
                     ("[" * 100_000, "[" * 100_000))  # fmt: skip
    at = suite("none")
    no_exception(at)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "Run #2 cannot be shown" in errors[0], errors
    assert "nested too deeply" in errors[0]
    assert list(table_with(at, "corpus")["name"]) == ["damaged", "good"]  # the list still draws
    assert at.button(key="runs_delete")  # the way out
    at.button(key="runs_delete").click().run()
    no_exception(at)
    assert not at.error
    assert list(table_with(at, "corpus")["name"]) == ["good"]
    assert {b.label for b in at.get("download_button")} >= {"Download HTML report"}
