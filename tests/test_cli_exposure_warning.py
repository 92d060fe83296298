"""``ragdash dashboard --address`` on a non-loopback address warns that the dashboard has no
login and is reachable from other machines; the default (127.0.0.1) says nothing."""

from __future__ import annotations

import socket

import pytest
from conftest import SAMPLE_DOCS, require

from ragdash.cli import dashboard, main


class Launched(BaseException):
    """Stands in for the ``execv`` that would become the server."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(monkeypatch, capsys, tmp_path, address: str) -> str:
    def execv(*_: object) -> None:
        raise Launched

    monkeypatch.setattr(dashboard.os, "execv", execv)
    args = ["dashboard", "--docs", str(SAMPLE_DOCS), "--workspace", str(tmp_path / "ws"),
            "--address", address, "--port", str(_free_port())]  # fmt: skip
    with pytest.raises(Launched):
        main(args)
    return capsys.readouterr().err


@pytest.mark.parametrize("address", ["0.0.0.0", "::"])
def test_an_address_open_to_other_machines_is_warned_about(monkeypatch, capsys, tmp_path, address):
    """Regression (issue 40 #6): ``--address 0.0.0.0`` printed no warning."""
    if address == "::":
        try:
            with socket.socket(socket.AF_INET6) as probe:
                probe.bind(("::", 0))
        except OSError as exc:
            require(f"no IPv6 listening here ({exc})")
    err = _start(monkeypatch, capsys, tmp_path, address)
    assert "no login" in err and "every network interface" in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("address", ["127.0.0.1", "localhost"])
def test_a_loopback_address_starts_without_a_warning(monkeypatch, capsys, tmp_path, address):
    assert "no login" not in _start(monkeypatch, capsys, tmp_path, address)
