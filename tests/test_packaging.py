"""ragdash as a new user gets it: ``pip install`` of the checkout into a fresh venv gives a
``ragdash`` command that works from any directory and a dashboard that starts from the
installed package; the README's Python snippet runs as printed."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest
from browser_harness import free_port

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_docs"


def requirement_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] not in "#-"]


def test_requirements_txt_and_pyproject_list_the_same_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = requirement_lines((ROOT / "requirements.txt").read_text())
    assert sorted(project["dependencies"]) == sorted(listed)
    assert any(dep.startswith("numpy") for dep in listed)  # the core imports numpy


def readme_snippet() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Use it from Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_python_snippet_runs_as_printed():
    result = subprocess.run(
        [sys.executable, "-c", readme_snippet()],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ["True", "pass"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv (seeing the machine's packages, so nothing is downloaded) with a copy
    of the checkout installed by pip; returns the venv's bin folder."""
    base = tmp_path_factory.mktemp("pkg")
    source = base / "checkout"
    shutil.copytree(
        ROOT, source,
        ignore=shutil.ignore_patterns(".git", "workspace", "screenshots", "__pycache__",
                                      "*.egg-info", "build", ".hypothesis", ".*_cache"),
    )  # fmt: skip
    venv = base / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True
    )
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
         "--no-build-isolation", str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr
    return venv / "bin"


def test_the_installed_command_checks_the_testbed_from_another_directory(installed, tmp_path):
    result = subprocess.run(
        [str(installed / "ragdash"), "check", "--docs", str(SAMPLE),
         "--cases", str(SAMPLE / "cases.json"), "--fixes", "all"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "8 of 8 cases passed" in result.stdout
    # the package imported is the installed one, not the checkout
    where = subprocess.run(
        [str(installed / "python"), "-c", "import ragdash; print(ragdash.__file__)"],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert "site-packages" in where.stdout


def test_the_installed_dashboard_command_serves_the_app(installed, tmp_path):
    port = free_port()
    server = subprocess.Popen(
        [str(installed / "ragdash"), "dashboard", "--docs", str(SAMPLE),
         "--workspace", str(tmp_path / "ws"), "--port", str(port)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        healthy = False
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health") as r:
                    healthy = r.status == 200
                    break
            except OSError:
                time.sleep(0.5)
        assert healthy, "the dashboard did not answer its health check"
        # stopping the command stops the server: nothing is left listening on the port
        server.terminate()
        server.wait(timeout=20)
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_the_dashboard_command_refuses_a_missing_docs_folder_in_one_line(installed, tmp_path):
    result = subprocess.run(
        [str(installed / "ragdash"), "dashboard", "--docs", str(tmp_path / "nope")],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert "does not exist" in result.stderr and "Traceback" not in result.stderr
