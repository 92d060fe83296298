"""``dashboard``: start the Streamlit dashboard."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ragdash.cli.common import (
    _HOST_LABEL,
    EXIT_OK,
    BadInput,
    _docs,
    _retriever_spec,
    one_line,
    say,
)
from ragdash.errors import (
    RetrieverError,
)

__all__ = ["check_address", "check_host_name", "cmd_dashboard", "dashboard_command"]


def check_address(address: str, port: int) -> None:
    """Refuse, in one line, an address or port the server could not listen on (Streamlit
    would print a traceback): not an IP address or host name, a name that does not resolve,
    an address of another machine, a port in use or not allowed."""
    import ipaddress
    import socket

    if not 1 <= port <= 65535:
        raise BadInput(f"--port must be 1-65535, got {port}")
    shown = one_line(address)
    try:
        ipaddress.ip_address(address)
    except ValueError:
        labels = address.rstrip(".").split(".")
        if (not address or len(address) > 253 or not all(_HOST_LABEL.match(x) for x in labels)
                or labels[-1].isdigit()):  # fmt: skip
            raise BadInput(
                f"--address {shown!r} is not an IP address (e.g. 127.0.0.1) or a host name"
            ) from None
    try:
        found = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise BadInput(f"--address {shown!r}: no such host on this machine's network") from None
    family, kind, proto, _, where = found[0]
    with socket.socket(family, kind, proto) as probe:
        if os.name == "posix":
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            probe.bind(where)
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise BadInput(f"cannot listen on {shown} port {port}: {why}") from None


def check_host_name(name: str) -> str:
    """An ``--allowed-host`` as Streamlit's allow-list takes it (a host name, an IP address
    or ``*.example.org``), or one line naming what is wrong: ``*`` alone would let any site
    that resolves to this machine drive the dashboard."""
    import ipaddress

    shown = one_line(name)
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        pass
    labels = name.lower().rstrip(".").split(".")
    if labels[0] == "*" and len(labels) > 2:
        labels = labels[1:]
    if (not name or len(name) > 253 or not all(_HOST_LABEL.match(x) for x in labels)
            or labels[-1].isdigit()):  # fmt: skip
        raise BadInput(
            f"--allowed-host {shown!r} is not a host name (e.g. dash.example.org, "
            "*.example.org) or an IP address"
        )
    return name.lower().rstrip(".")


def dashboard_command(args: argparse.Namespace) -> list[str]:
    """The ``streamlit run`` command ``ragdash dashboard`` becomes: the docs, the workspace
    and the operator's retriever (``--retriever …``) go to the app after ``--``."""
    from ragdash.retrieval.options import spec_argv
    from ragdash.ui import APP_SCRIPT
    from ragdash.ui.serve import allowed_hosts, streamlit_flags

    docs = _docs(args)
    if not docs.is_dir():
        raise BadInput(f"docs folder {str(docs)!r} does not exist or is not a folder")
    spec = _retriever_spec(args)
    if spec.body_template:  # read now: a bad file is one line here, not an error per page
        from dataclasses import replace as _replace

        from ragdash.retrieval.http_retriever import load_template

        try:
            load_template(spec.body_template)
        except RetrieverError as exc:
            raise BadInput(str(exc)) from None
        spec = _replace(spec, body_template=str(Path(spec.body_template).resolve()))
    check_address(args.address, args.port)
    hosts = allowed_hosts(args.address, [check_host_name(n) for n in args.allowed_host or ()])
    flags = streamlit_flags(
        server_port=args.port, server_address=args.address, server_allowedHosts=hosts
    )
    return [  # ragdash.ui.serve: streamlit with the WebSocket's origin guard installed first
        sys.executable, "-m", "ragdash.ui.serve", "run", str(APP_SCRIPT), *flags,
        "--", "--docs", str(docs.resolve()), "--workspace", str(Path(args.workspace).resolve()),
        *spec_argv(spec),
    ]  # fmt: skip


def cmd_dashboard(args: argparse.Namespace) -> int:
    """Run ``streamlit run`` on the app inside the installed package."""
    import subprocess

    command = dashboard_command(args)
    warning = exposure_warning(args.address)
    if warning:
        say(f"ragdash: warning: {warning}", file=sys.stderr)
    if os.name == "posix":
        # Become the server: a SIGTERM to `ragdash dashboard` (a service manager, a test's
        # terminate()) then stops Streamlit itself instead of orphaning it on its port.
        sys.stdout.flush()
        os.execv(sys.executable, command)
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return EXIT_OK


def exposure_warning(address: str) -> str | None:
    """What to tell the operator when ``--address`` lets other machines in (the dashboard
    has no login), or None for a loopback address or a name that resolves only to one::

        >>> exposure_warning("127.0.0.1") is None and exposure_warning("localhost") is None
        True
        >>> exposure_warning("0.0.0.0").startswith("the dashboard has no login")
        True
    """
    import ipaddress
    import socket

    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(address, None)}
    except (OSError, UnicodeError):
        found = {address}
    try:
        if found and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found):
            return None
    except ValueError:
        pass
    where = (
        "every network interface of this machine"
        if address in ("0.0.0.0", "::", "") else f"{one_line(address)}"
    )  # fmt: skip
    return (
        f"the dashboard has no login and listens on {where}: anyone who can reach it "
        "can read the documents, upload files and edit metadata. Put an authenticating "
        "proxy in front (docs/limits-and-security.md) or use --address 127.0.0.1"
    )
