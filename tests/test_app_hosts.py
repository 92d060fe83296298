"""No other site drives the dashboard: its WebSocket (``/_stcore/stream``, where the
documents' text goes) answers only a page opened under this machine's own names (no DNS
rebinding: ``rebind.attacker.test`` resolving to 127.0.0.1 is refused) and of its own origin
(another web app on this machine, ``http://localhost:9999``, is refused). Checked on real
servers, both launch paths, with a raw WebSocket handshake."""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser_harness import free_port, running_app
from conftest import SAMPLE_DOCS
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = SAMPLE_DOCS


def handshake(port: int, host: str, origin: str | None = None) -> int:
    """The HTTP status a WebSocket handshake to ``/_stcore/stream`` gets (101: opened)."""
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        "GET /_stcore/stream HTTP/1.1", f"Host: {host}", "Upgrade: websocket",
        "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
    ]  # fmt: skip
    if origin is not None:
        lines.append(f"Origin: {origin}")
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status = sock.recv(4096).split(b"\r\n", 1)[0].decode()
    return int(status.split()[1])


def test_streamlit_run_app_refuses_a_foreign_host():
    with running_app(docs=SAMPLE) as url:
        port = int(url.rsplit(":", 1)[1])
        assert handshake(port, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}") == 101
        assert handshake(port, f"localhost:{port}", f"http://localhost:{port}") == 101
        assert handshake(port, f"[::1]:{port}", f"http://[::1]:{port}") == 101
        # DNS rebinding: the attacker's page, its name resolving to 127.0.0.1
        rebound = f"rebind.attacker.test:{port}"
        assert handshake(port, rebound, f"http://{rebound}") != 101
        assert handshake(port, rebound) != 101
        assert handshake(port, f"127.0.0.1:{port}", "http://evil.example") != 101


MARKER = "zq-marker-7731"


def page_run(port: int, origin: str) -> bytes:
    """Every message of one run of the app's first page for a session opened from
    ``origin`` (a real WebSocket client, as a page's script would open it)."""
    frames = []
    with connect(f"ws://127.0.0.1:{port}/_stcore/stream", origin=origin,
                 open_timeout=20) as ws:  # fmt: skip
        rerun = BackMsg()
        rerun.rerun_script.query_string = ""
        ws.send(rerun.SerializeToString())
        deadline = time.time() + 90
        while time.time() < deadline:
            frames.append(ws.recv(timeout=90))
            message = ForwardMsg()
            message.ParseFromString(frames[-1])
            if message.WhichOneof("type") == "script_finished":
                break
    return b"".join(frames)


def test_streamlit_run_app_shows_another_origin_nothing_from_its_first_session(tmp_path):
    """`streamlit run app.py` cannot guard the handshake before a page first runs: that
    first session of another origin is accepted by Streamlit, but the page shows it nothing,
    and every handshake of another origin after it is refused."""
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE, docs)
    (docs / f"{MARKER}.md").write_text(
        "---\nsubject: Marker\nupdated: 2026-01-01\nstatus: current\n---\n# M\n\nText.\n"
    )
    with running_app(docs=docs, workspace=tmp_path / "ws") as url:
        port = int(url.rsplit(":", 1)[1])
        foreign = page_run(port, "http://localhost:9999")
        assert MARKER.encode() not in foreign
        assert b"answers only its own page" in foreign
        with pytest.raises(InvalidStatus):
            page_run(port, "http://localhost:9999")
        assert MARKER.encode() in page_run(port, f"http://127.0.0.1:{port}")


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
    raise AssertionError("the dashboard did not answer within 90 s")


def test_ragdash_dashboard_refuses_a_foreign_host_and_origin_and_takes_the_proxys(tmp_path):
    """From a folder without the checkout's config; ``--allowed-host`` names a proxy."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragdash", "dashboard", "--docs", str(SAMPLE),
         "--workspace", str(tmp_path / "ws"), "--port", str(port),
         "--allowed-host", "dash.example.org"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        wait_healthy(proc, port)
        own = f"127.0.0.1:{port}"
        assert handshake(port, own, f"http://{own}") == 101
        assert handshake(port, own) == 101  # no Origin: not a web page
        assert handshake(port, f"rebind.attacker.test:{port}") != 101
        # another web app on this machine: Streamlit alone accepts any localhost origin
        assert handshake(port, own, "http://localhost:9999") != 101
        assert handshake(port, own, "http://127.0.0.1:9999") != 101
        # the operator's proxy, passing the Host its users typed through
        assert handshake(port, "dash.example.org", "https://dash.example.org") == 101
        assert handshake(port, "dash.example.org:8443", "https://dash.example.org:8443") == 101
        assert handshake(port, "dash.example.org", "https://evil.example") != 101
        assert handshake(port, "other.example.org", "https://other.example.org") != 101
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    "name", ["*", "a b", "-x.example", "http://x.example", "", "x" * 300]
)
def test_a_bad_allowed_host_is_one_line(tmp_path, name):
    result = subprocess.run(
        [sys.executable, "-m", "ragdash", "dashboard", "--docs", str(SAMPLE),
         "--workspace", str(tmp_path / "ws"), "--port", str(free_port()),
         f"--allowed-host={name}"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "is not a host name" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_ragdash_dashboard_passes_the_host_list_and_no_grid_export(tmp_path):
    """What `ragdash dashboard` hands Streamlit (the installed console script runs the same
    code): the loopback names, its --address, each --allowed-host, no grid CSV download."""
    from ragdash.cli import build_parser
    from ragdash.cli.dashboard import dashboard_command

    args = build_parser().parse_args(
        ["dashboard", "--docs", str(SAMPLE), "--workspace", str(tmp_path / "ws"),
         "--port", str(free_port()), "--allowed-host", "Dash.Example.org.",
         "--allowed-host", "*.corp.example"]
    )  # fmt: skip
    command = dashboard_command(args)
    assert command[1:4] == ["-m", "ragdash.ui.serve", "run"]
    hosts = [f.split("=", 1)[1] for f in command if f.startswith("--server.allowedHosts=")]
    assert hosts == ["127.0.0.1", "localhost", "::1", "dash.example.org", "*.corp.example"]
    assert "--client.disableDataExport=true" in command
