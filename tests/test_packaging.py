"""ragdash as a new user gets it: ``pip install`` of the checkout into a fresh venv gives a
``ragdash`` command that works from any directory and a dashboard that starts from the
installed package; the README's Python snippet runs as printed."""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import time
import tomllib
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

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


def test_the_stores_extra_is_in_the_dense_requirements_so_ci_runs_the_store_tests():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["stores"]
    heavy = requirement_lines((ROOT / "requirements-dense.txt").read_text())
    dev = requirement_lines((ROOT / "requirements-dev.txt").read_text())
    assert "ragdash[dense]" in extra
    assert set(extra) - {"ragdash[dense]"} <= set(heavy) | set(dev)
    assert any(line.startswith("chromadb>=1.5") for line in extra)


def test_the_dense_extra_is_requirements_dense_with_torch_pinned_first_and_not_in_dev():
    """The heavy packages are installed only for the dense tests (scripts/test.sh without
    --light), not with every ``pip install -r requirements-dev.txt``."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["dense"]
    dense = requirement_lines((ROOT / "requirements-dense.txt").read_text())
    dev = requirement_lines((ROOT / "requirements-dev.txt").read_text())
    assert set(extra) <= set(dense)
    assert not any(line.startswith(("torch", "sentence-transformers")) for line in dev)
    assert "torch==2.13.0" in extra  # unpinned, pip pulls a multi-GB CUDA build
    assert dense.index("torch==2.13.0") < next(
        i for i, line in enumerate(dense) if line.startswith("sentence-transformers"))


def test_pyproject_lists_every_package_and_maps_the_samples_from_sample_docs():
    """The packages are listed (``find`` cannot map ``sample_docs/`` into the package): a new
    subpackage left out of the list would be missing from the wheel."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    inits = ROOT.glob("ragdash/**/__init__.py")
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in inits}
    assert set(setuptools["packages"]) == found | {"ragdash.samples"}
    assert setuptools["package-dir"] == {"ragdash.samples": "sample_docs"}
    assert not (ROOT / "ragdash" / "samples").exists()  # the design card's top-level layout


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


def copy_checkout(dest: Path) -> Path:
    shutil.copytree(
        ROOT, dest,
        ignore=shutil.ignore_patterns(".git", ".venv", "workspace", "screenshots", "__pycache__",
                                      "*.egg-info", "build", "dist", ".hypothesis", ".*_cache"),
    )  # fmt: skip
    return dest


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``pip wheel`` builds from a copy of the checkout (no build isolation, so
    nothing is downloaded): what a user installs."""
    base = tmp_path_factory.mktemp("wheel")
    source = copy_checkout(base / "checkout")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(base / "dist"), str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (found,) = (base / "dist").glob("ragdash-*.whl")
    return found


def fresh_venv(where: Path) -> Path:
    """A fresh venv that sees the packages this interpreter sees (so nothing is downloaded);
    its bin folder.

    ``--system-site-packages`` would not do: a venv made from a venv's python inherits the
    *base* interpreter's packages, not the venv's, and the tests run in either. A ``.pth``
    file adds this interpreter's site folders instead (after the new venv's own, so what is
    installed there wins), with their own ``.pth`` files (editable installs). pip comes from
    them too (``--without-pip``)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    inherited = [*site.getsitepackages()]
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        inherited.append(site.getusersitepackages())
    (site_packages,) = where.glob("lib/python3*/site-packages")
    (site_packages / "_inherited_from_the_tests.pth").write_text(
        "".join(f"import site; site.addsitedir({d!r})\n" for d in inherited)
    )
    return where / "bin"


def pip_env() -> dict[str, str]:
    """pip without a package index: a dependency the environment lacks fails the install
    instead of being downloaded."""
    return {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory, wheel) -> Path:
    """A fresh venv with the wheel and its dependencies installed by pip (the dependencies
    found already installed); returns the venv's bin folder."""
    bin_dir = fresh_venv(tmp_path_factory.mktemp("pkg") / "venv")
    pip = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True, text=True, timeout=300, env=pip_env(),
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr
    return bin_dir


def test_a_fresh_venv_sees_the_packages_this_interpreter_sees(tmp_path):
    """The very same installed packages (in a venv: the venv's, not the base Python's)."""
    import pytest as here_pytest
    import streamlit as here_streamlit

    bin_dir = fresh_venv(tmp_path / "venv")
    probe = "import sys, pip, pytest, streamlit; print(sys.prefix, pytest.__file__, " \
            "streamlit.__file__)"  # fmt: skip
    result = subprocess.run([str(bin_dir / "python"), "-c", probe], capture_output=True,
                            text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(tmp_path / "venv"), here_pytest.__file__,
                                     here_streamlit.__file__]  # fmt: skip


def test_the_wheel_ships_the_samples_and_an_entry_script_without_a_pages_folder(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for sample in sorted(p.name for p in SAMPLE.iterdir()):
        assert f"ragdash/samples/{sample}" in names, f"the wheel lacks the sample {sample}"
    assert {"ragdash/samples/cases.json", "ragdash/samples/plans.pdf"} <= names
    # Streamlit runs a main script with pages/ beside it as an old-style multipage app,
    # skipping the app shell (a fresh /suite raised KeyError: 'view').
    entry = PurePosixPath(next(n for n in names if n.endswith("/streamlit_app.py")))
    assert not any(n.startswith(f"{entry.parent}/pages/") for n in names)


def test_the_checkout_config_toml_says_what_ragdash_dashboard_passes():
    from ragdash.ingestion.workspace import MAX_UPLOAD_BYTES
    from ragdash.ui.serve import SERVER_OPTIONS, streamlit_flags

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    flat = {f"{section}.{key}": value for section, options in config.items()
            for key, value in options.items()}  # fmt: skip
    assert flat == SERVER_OPTIONS
    assert flat["server.maxUploadSize"] * 1024 * 1024 == MAX_UPLOAD_BYTES
    flags = streamlit_flags(server_port=8600)
    assert "--server.maxUploadSize=50" in flags and "--server.port=8600" in flags
    assert "--client.toolbarMode=minimal" in flags and "--server.enableXsrfProtection=true" in flags


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
    assert "site-packages" in where.stdout and str(installed.parent) in where.stdout


@pytest.mark.parametrize(
    "options",
    [("--docs", "samples", "--cases", "samples"), ("--cases", "samples")],
    ids=["docs-and-cases-samples", "default-docs"],
)
def test_the_bundled_samples_are_checked_from_an_empty_folder(installed, tmp_path, options):
    result = subprocess.run(
        [str(installed / "ragdash"), "check", *options, "--fixes", "all"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={k: v for k, v in os.environ.items() if k != "RAGDASH_DOCS"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "8 of 8 cases passed" in result.stdout
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran


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
        # the console script applies the same server options: the Host list, the origin guard
        from test_app_hosts import handshake

        own = f"127.0.0.1:{port}"
        assert handshake(port, own, f"http://{own}") == 101
        assert handshake(port, f"rebind.attacker.test:{port}") != 101
        assert handshake(port, own, "http://localhost:9999") != 101
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


# -- the installed dashboard, every page in Chromium ---------------------------------------

MAIN_H1 = '[data-testid="stMain"] h1'


def wait_healthy(server: subprocess.Popen, url: str) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"the dashboard did not answer its health check (exit {server.poll()})")


def open_clean(page, url: str, title: str) -> None:
    """Open ``url`` and wait for the page titled ``title``; no exception box, no "Page not
    found" (Streamlit says that in a dialog, then falls back to the default page)."""
    from browser_harness import wait_for_app

    page.goto(url)
    wait_for_app(page)
    assert_clean(page, title)


def query_is(page, query: str) -> None:
    """Explore's Query box comes to hold ``query`` (waiting up to 45 s): fails otherwise."""
    from playwright.sync_api import expect

    expect(page.get_by_label("Query")).to_have_value(query, timeout=45_000)


def assert_clean(page, title: str) -> None:
    page.locator(MAIN_H1, has_text=title).first.wait_for()
    assert page.locator('[data-testid="stException"]').all_inner_texts() == []
    assert "Page not found" not in page.locator("body").inner_text()
    assert page.locator(MAIN_H1).first.inner_text().strip() == title


@pytest.mark.browser
def test_the_installed_dashboard_opens_every_page_clean_in_chromium(installed, tmp_path):
    """``ragdash dashboard`` with no options, from an empty folder: the bundled samples,
    every page, the direct links, the page links and the 50 MB upload limit."""
    from browser_harness import chromium_browser, wait_for_app

    from ragdash.checks.tour import TOUR
    from ragdash.storage.case_store import load_cases

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k not in ("RAGDASH_DOCS", "RAGDASH_WORKSPACE")}
    log = open(tmp_path.parent / f"{tmp_path.name}-server.log", "w")  # noqa: SIM115
    server = subprocess.Popen(
        [str(installed / "ragdash"), "dashboard", "--port", str(port)],
        cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    try:
        wait_healthy(server, url)
        with chromium_browser() as browser:
            # The first link opened on the fresh server, then another in a new session.
            for path, title in (("/suite", "Test suite"), ("/explore", "Explore")):
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                open_clean(page, url + path, title)
                page.close()
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(45_000)
            open_clean(page, url + "/explore?q=warehouse+sync", "Explore")
            assert page.get_by_label("Query").input_value() == "warehouse sync"
            menu = page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
            # each link reads "<icon ligature>\n\n<title>"
            assert [m.splitlines()[-1].strip() for m in menu] == [
                "Explore", "Guided tour", "Test suite", "Stress test", "Documents", "Triage"
            ]  # fmt: skip
            for path, title in (("/", "Explore"), ("/documents", "Documents"),
                                ("/triage", "Triage"), ("/tour", "Guided tour")):  # fmt: skip
                open_clean(page, url + path, title)
            # Documents: the upload limit is the checkout's, not Streamlit's 200 MB.
            open_clean(page, url + "/documents", "Documents")
            limit = page.locator('[data-testid="stFileUploaderDropzoneInstructions"]')
            assert "50MB per file" in limit.inner_text()
            # Explore's link to the tour, and the tour's four steps from FAIL to PASS.
            open_clean(page, url + "/", "Explore")
            page.get_by_role("link", name=re.compile("Take the guided tour")).click()
            wait_for_app(page)
            assert_clean(page, "Guided tour")
            for number, step in enumerate(TOUR, start=1):
                page.get_by_role("heading", name=f"Step {number} of {len(TOUR)}: {step.flaw}")\
                    .wait_for()  # fmt: skip
                wait_for_app(page)
                shown = page.locator('[data-testid="stMain"]').inner_text()
                assert "FAIL · No fix" in shown and "PASS · With" in shown
                assert_clean(page, "Guided tour")
                if number < len(TOUR):
                    page.get_by_role("button", name="Next step").click()
            # The tour's "Try it in Explore" and the suite's "Open in Explore".
            page.get_by_role("button", name="Try it in Explore").click()
            wait_for_app(page)
            assert_clean(page, "Explore")
            cases = {c.name: c for c in load_cases(SAMPLE / "cases.json")}
            # after a click that switches pages the old page can look settled for a moment:
            # wait for the query to arrive (a person sees it a moment later), as long as 45 s
            query_is(page, cases[TOUR[-1].case_name].query)
            open_clean(page, url + "/suite", "Test suite")
            page.get_by_role("button", name="Open in Explore").click()
            wait_for_app(page)
            assert_clean(page, "Explore")
            query_is(page, next(iter(cases.values())).query)
            page.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


# -- the CI gate recipe (docs/ci-gate.md), run as written ----------------------------------


def runnable_blocks(path: Path) -> list[str]:
    """The ```bash blocks of a doc page marked ``<!-- runnable in a team repository … -->``,
    in order: they install packages and commit, so they run here in a temporary repository,
    never from the checkout (tests/test_docs.py runs the plain ``<!-- runnable -->`` ones)."""
    text = path.read_text(encoding="utf-8")
    marker = r"^<!-- runnable in a team repository[^\n]*-->\n```bash\n(.*?)^```"
    return re.findall(marker, text, re.S | re.M)


def test_the_ci_gate_recipe_runs_as_written_in_a_fresh_repository(wheel, tmp_path):
    from ragdash.settings import FIX_NAMES

    make_baseline, gate = runnable_blocks(ROOT / "docs" / "ci-gate.md")
    repo = tmp_path / "team-repo"
    shutil.copytree(SAMPLE, repo / "kb")  # the team's documents and cases
    bin_dir = fresh_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items()
           if k not in ("RAGDASH_DOCS", "RAGDASH_WORKSPACE", "PYTHONPATH", "FIXES")}  # fmt: skip
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(bin_dir.parent),
        RAGDASH_SPEC=str(wheel), PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
        GIT_AUTHOR_NAME="Team", GIT_AUTHOR_EMAIL="team@example.com",
        GIT_COMMITTER_NAME="Team", GIT_COMMITTER_EMAIL="team@example.com",
    )  # fmt: skip

    def sh(script: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", script], cwd=repo, env={**env, **extra},
                              capture_output=True, text=True, timeout=600)  # fmt: skip

    assert sh("git init -q && git add kb && git commit -q -m 'our documents'").returncode == 0
    made = sh(make_baseline)
    assert made.returncode == 0, made.stderr
    # committed, and made without a case library or a workspace
    assert sh("git ls-files --error-unmatch ci/baseline-run.json").returncode == 0
    assert sh("git status --porcelain").stdout == ""
    assert not (repo / "workspace").exists()

    passed = sh(gate)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "gate: passed" in passed.stdout
    assert (repo / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    # The pipeline drops the fuzzy fix: the gate fails and names the case it breaks.
    (repo / "report.html").unlink()
    without_fuzzy = ",".join(name for name in FIX_NAMES if name != "fuzzy")
    failed = sh(gate, FIXES=without_fuzzy)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "gate: FAILED" in failed.stdout
    assert "case 'typo' passed in ci/baseline-run.json and fails now" in failed.stdout
    assert "without fuzzy" in failed.stdout
    assert "typo" in (repo / "report.html").read_text(encoding="utf-8")
