"""The one rule for tests that need something a machine may lack (tests/conftest.py): on a
developer's machine a missing browser, Tesseract, development set or package skips the test
with its reason; in CI (``CI=true``, or ``RAGDASH_REQUIRE_ALL=1``) it fails, whatever way the
test skipped, except for the documented ``ALLOWED_SKIPS``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ALLOWED_SKIPS, ROOT, SHARED

PROBE = '''
import pytest
from conftest import require, require_module

def test_asks_for_a_missing_tool():
    require("the frobnicator is not installed")

@pytest.mark.skipif(True, reason="no gadget here")
def test_skipped_by_a_mark():
    pass

def test_skipped_in_its_body():
    pytest.skip("no widget here")

@pytest.mark.skipif(True, reason="root can read anything")
def test_an_allowed_skip():
    pass

def test_runs():
    pass
'''
PROBE_MODULE = '''
from conftest import require_module

require_module("no_such_package_for_ragdash_tests")

def test_never_collected():
    pass
'''
PROSE = '''
def f():
    """Prose that reads like a session::

        >>> open_the_users_folder()  # doctest: +SKIP
    """
'''


def run_probe(tmp_path: Path, **env: str) -> tuple[str, dict[str, int]]:
    """Pytest on three probe files beside a copy of the real conftest; its output and its
    closing counts (``{"passed": 1, "failed": 3, ...}``)."""
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "test_probe_module.py").write_text(PROBE_MODULE, encoding="utf-8")
    (tmp_path / "prose.py").write_text(PROSE, encoding="utf-8")
    environ = {k: v for k, v in os.environ.items()
               if k not in ("CI", "RAGDASH_REQUIRE_ALL", "RAGDASH_REQUIRE_BROWSER")}  # fmt: skip
    # only pytest's own plugins: the installed ones cost seconds a start (conftest.run_module)
    environ.update(PYTHONPATH=str(ROOT), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **env)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "--doctest-modules", "--continue-on-collection-errors",
         "-c", os.devnull, "--rootdir", str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, env=environ, timeout=300,
    )  # fmt: skip
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", done.stdout.splitlines()[-1])}
    return done.stdout, counts


def test_a_missing_capability_skips_with_its_reason_on_a_developers_machine(tmp_path):
    out, counts = run_probe(tmp_path)
    # the module skipped at collection counts twice: as tests and as doctests
    assert counts == {"passed": 1, "skipped": 6, "deselected": 1}, out
    assert "the frobnicator is not installed" in out and "no widget here" in out
    assert "python package no_such_package_for_ragdash_tests is not installed" in out


def test_in_ci_every_skip_fails_but_the_documented_ones(tmp_path):
    """CI=true: the helper's skip, a skipif mark, a skip in the body and a module skipped at
    collection all fail, naming what is missing; the allowed skip stays a skip, and a
    docstring whose every example is +SKIP is left out rather than reported skipped."""
    out, counts = run_probe(tmp_path, CI="true")
    # a skipif mark acts at setup, so it errors; the module errors as tests and as doctests
    assert counts == {"failed": 2, "passed": 1, "skipped": 1, "deselected": 1, "errors": 3}, out
    for reason in ("the frobnicator is not installed", "no gadget here", "no widget here",
                   "no_such_package_for_ragdash_tests"):  # fmt: skip
        assert reason in out
    assert "root can read anything" in out and "root can read anything" in ALLOWED_SKIPS


def test_ragdash_require_all_asks_for_the_same_outside_ci(tmp_path):
    _, counts = run_probe(tmp_path, RAGDASH_REQUIRE_ALL="1")
    assert counts["failed"] == 2 and counts["errors"] == 3


def test_the_development_sets_are_found_beside_the_repository_or_by_one_variable():
    """``../shared`` or ``$RAGDASH_SHARED``, never one machine's absolute path."""
    if not os.environ.get("RAGDASH_SHARED"):
        assert ROOT.parent / "shared" == SHARED
    named = [
        str(path.relative_to(ROOT))
        for folder in ("tests", "benchmarks", "ragdash", "scripts")
        for path in (ROOT / folder).rglob("*.py")
        if "/work/" + "shared" in path.read_text(encoding="utf-8")
    ]
    assert named == []
