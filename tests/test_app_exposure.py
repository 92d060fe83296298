"""Safe by default: ragdash has no login, so both ways of starting it — `streamlit run app.py`
from the checkout (the shipped .streamlit/config.toml) and `ragdash dashboard` from anywhere
— listen on 127.0.0.1 only, never on all interfaces. Checked on the real listening socket
(/proc/net/tcp and tcp6), not on the command line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser_harness import free_port
from conftest import require

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK_V4 = "0100007F"  # 127.0.0.1 as /proc/net/tcp writes it


def listening_addresses(port: int) -> set[str]:
    """The local addresses (hex, as the kernel writes them) listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def wait_healthy(proc: subprocess.Popen, port: int) -> None:
    deadline = time.time() + 90
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the dashboard exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError("the dashboard did not answer on 127.0.0.1 within 90 s")


def run_and_listen(command: list[str], cwd: Path, port: int) -> set[str]:
    # its own process group: `ragdash dashboard` starts streamlit as a child, stopped with it
    proc = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "RAGDASH_WORKSPACE": str(cwd / "ws"), "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        wait_healthy(proc, port)
        return listening_addresses(port)
    finally:
        stop_group(proc)


def stop_group(proc: subprocess.Popen) -> None:
    """Stop ``proc`` and what it started (its own process group), by its id."""
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(autouse=True)
def _needs_proc():
    if not Path("/proc/net/tcp").is_file():
        require("needs Linux /proc/net/tcp to read the listening address")


def test_streamlit_run_app_listens_on_localhost_only():
    port = free_port()
    addresses = run_and_listen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         f"--server.port={port}", "--browser.gatherUsageStats=false",
         "--server.fileWatcherType=none"],
        ROOT, port,
    )  # fmt: skip
    assert addresses == {LOOPBACK_V4}, f"listening on {addresses}, not only 127.0.0.1"


def test_ragdash_dashboard_listens_on_localhost_only(tmp_path):
    """From a folder without the checkout's config: the CLI's own default decides."""
    port = free_port()
    addresses = run_and_listen(
        [sys.executable, "-m", "ragdash", "dashboard", "--docs", str(ROOT / "sample_docs"),
         "--workspace", str(tmp_path / "ws"), "--port", str(port)],
        tmp_path, port,
    )  # fmt: skip
    assert addresses == {LOOPBACK_V4}, f"listening on {addresses}, not only 127.0.0.1"


def test_the_shipped_config_binds_localhost():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["address"] == "127.0.0.1"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for header in ("X-Frame-Options", "frame-ancestors", "X-Content-Type-Options"):
        assert header in readme, f"README does not tell the proxy to add {header}"
