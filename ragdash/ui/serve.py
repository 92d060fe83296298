"""The Streamlit server settings ragdash runs with — one source for both launch paths.

``streamlit run app.py`` in the checkout reads ``.streamlit/config.toml`` from the working
folder; ``ragdash dashboard`` runs from anywhere, where no such file is found, so it passes
the same settings as ``--section.option=value`` flags. Both come from :data:`SERVER_OPTIONS`
(a test checks that the checkout's ``config.toml`` says exactly this): before, the installed
dashboard accepted 200 MB uploads (Streamlit's default) where the checkout accepted 50 MiB."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from ragdash.ingestion.workspace import MAX_UPLOAD_BYTES

__all__ = ["LOOPBACK_HOSTS", "SERVER_OPTIONS", "allowed_hosts", "install_origin_guard",
           "origin_is_own", "streamlit_flags"]

#: The host names a browser on this machine uses for a dashboard listening on loopback.
LOOPBACK_HOSTS: tuple[str, ...] = ("127.0.0.1", "localhost", "::1")

#: Every setting of ``.streamlit/config.toml``, as ``section.option`` → value.
SERVER_OPTIONS: dict[str, str | int | bool | list[str]] = {
    # This machine only: ragdash has no login (``ragdash dashboard --address`` overrides).
    "server.address": "127.0.0.1",
    # Uploads above this (MiB) are refused by Streamlit; the workspace refuses them too.
    "server.maxUploadSize": MAX_UPLOAD_BYTES // (1024 * 1024),
    "server.enableXsrfProtection": True,
    "server.enableCORS": True,
    # The WebSocket (where the documents' text goes) answers only a page opened under one of
    # these names: a page on rebind.attacker.test resolving to 127.0.0.1 (DNS rebinding) is
    # refused. ``ragdash dashboard`` adds its --address and each --allowed-host.
    "server.allowedHosts": list(LOOPBACK_HOSTS),
    "browser.gatherUsageStats": False,
    "client.toolbarMode": "minimal",
    # An uncaught error shows its type, never a traceback with server paths.
    "client.showErrorDetails": "type",
    # No grid offers Streamlit's own "Download as CSV" (nor copies cells): it wrote document
    # text as it is, so a subject =HYPERLINK(...) was a live formula in the spreadsheet.
    # Every CSV a page offers is ragdash's own download, made safe by ragdash.csv_safe.
    "client.disableDataExport": True,
    # Red means FAIL only: Streamlit's default accent (buttons, switched-on toggles, chips)
    # is red, so a "Next step" button looked like the FAIL box beside it. Blue, as the icon.
    "theme.primaryColor": "#3b5bdb",
}


def _flag_value(value: str | int | bool) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def streamlit_flags(**overrides: str | int | bool | list[str]) -> list[str]:
    """:data:`SERVER_OPTIONS` (with ``overrides``, keyed ``server_port`` for
    ``server.port``) as ``streamlit run`` flags; a list is one flag per value::

        >>> streamlit_flags(server_address="0.0.0.0")[:2]
        ['--server.address=0.0.0.0', '--server.maxUploadSize=50']
    """
    options = dict(SERVER_OPTIONS)
    options.update({name.replace("_", ".", 1): value for name, value in overrides.items()})
    flags = []
    for name, value in options.items():
        for one in value if isinstance(value, list) else [value]:
            flags.append(f"--{name}={_flag_value(one)}")
    return flags


def _is_wildcard(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_unspecified
    except ValueError:
        return False


def allowed_hosts(address: str, extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The Host names the dashboard's WebSocket accepts: this machine's loopback names, the
    address it listens on and the operator's own (a proxy's host name). Listening on every
    interface (``0.0.0.0``, ``::``) adds this machine's name, never ``*``: a name the users
    type is named with ``--allowed-host``.

        >>> allowed_hosts("127.0.0.1", ["dash.example.org"])
        ['127.0.0.1', 'localhost', '::1', 'dash.example.org']
    """
    names = list(LOOPBACK_HOSTS)
    wanted = [socket.gethostname()] if _is_wildcard(address) else [address]
    for name in [*wanted, *extra]:
        name = name.strip().lower().rstrip(".")
        if name and name not in names:
            names.append(name)
    return names


def _netloc(url_or_host: str, scheme: str = "http") -> tuple[str, int] | None:
    """``(hostname, port)`` of an Origin (``http://h:p``) or a Host header (``h:p``)."""
    try:
        parts = urlsplit(url_or_host if "//" in url_or_host else f"//{url_or_host}")
        port = parts.port or (443 if (parts.scheme or scheme) in ("https", "wss") else 80)
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname.lower().rstrip("."), port


def origin_is_own(origin: str | None, host: str | None) -> bool:
    """Whether a WebSocket from a page at ``origin`` may drive the dashboard reached as
    ``host``: only the dashboard's own page (same host name and port). Streamlit alone
    accepts any ``localhost`` or ``127.0.0.1`` origin whatever its port, so another web app
    on this machine (``http://localhost:9999``) could drive it. No Origin is a non-browser
    client, which no web page can be. A proxy passes the Host its users typed through
    (nginx: ``proxy_set_header Host $host``), so its pages are same-origin too.

        >>> origin_is_own("http://localhost:9999", "127.0.0.1:8501")
        False
        >>> origin_is_own("http://127.0.0.1:8501", "127.0.0.1:8501")
        True
    """
    if origin is None:
        return True
    seen = _netloc(origin)
    return seen is not None and host is not None and seen == _netloc(
        host, scheme=urlsplit(origin).scheme
    )


def install_origin_guard() -> bool:
    """Make Streamlit's WebSocket refuse a page of another origin (see :func:`origin_is_own`)
    besides its own checks (the Host allow-list, foreign host names). Streamlit has no option
    for this, so its check is wrapped in place — once per process; False where this Streamlit
    has no such check (a newer release: tests/test_app_exposure.py then fails).

    ``ragdash dashboard`` installs it before the server starts (``python -m
    ragdash.ui.serve``); ``streamlit run app.py`` from the first page run on.
    """
    try:
        from streamlit.web.server.starlette import starlette_websocket as ws
    except ImportError:
        return False
    original = getattr(ws, "_is_origin_allowed", None)
    if original is None:
        return False
    if getattr(original, "ragdash_guard", False):
        return True

    def guarded(origin: str | None, host: str | None) -> bool:
        return original(origin, host) and origin_is_own(origin, host)

    guarded.ragdash_guard = True  # type: ignore[attr-defined]
    ws._is_origin_allowed = guarded
    return True


def main() -> int:
    """``python -m ragdash.ui.serve run SCRIPT [flags]``: ``streamlit`` with the origin
    guard installed before the server starts (what ``ragdash dashboard`` runs)."""
    install_origin_guard()
    from streamlit.web.cli import main as streamlit_main

    return streamlit_main(prog_name="streamlit")


if __name__ == "__main__":
    raise SystemExit(main())
