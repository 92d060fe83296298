"""The Streamlit server settings ragdash runs with — one source for both launch paths.

``streamlit run app.py`` in the checkout reads ``.streamlit/config.toml`` from the working
folder; ``ragdash dashboard`` runs from anywhere, where no such file is found, so it passes
the same settings as ``--section.option=value`` flags. Both come from :data:`SERVER_OPTIONS`
(a test checks that the checkout's ``config.toml`` says exactly this): before, the installed
dashboard accepted 200 MB uploads (Streamlit's default) where the checkout accepted 50 MiB."""

from __future__ import annotations

from ragdash.ingestion.workspace import MAX_UPLOAD_BYTES

__all__ = ["SERVER_OPTIONS", "streamlit_flags"]

#: Every setting of ``.streamlit/config.toml``, as ``section.option`` → value.
SERVER_OPTIONS: dict[str, str | int | bool] = {
    # This machine only: ragdash has no login (``ragdash dashboard --address`` overrides).
    "server.address": "127.0.0.1",
    # Uploads above this (MiB) are refused by Streamlit; the workspace refuses them too.
    "server.maxUploadSize": MAX_UPLOAD_BYTES // (1024 * 1024),
    "server.enableXsrfProtection": True,
    "server.enableCORS": True,
    "browser.gatherUsageStats": False,
    "client.toolbarMode": "minimal",
    # An uncaught error shows its type, never a traceback with server paths.
    "client.showErrorDetails": "type",
}


def _flag_value(value: str | int | bool) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def streamlit_flags(**overrides: str | int | bool) -> list[str]:
    """:data:`SERVER_OPTIONS` (with ``overrides``, keyed ``server_port`` for
    ``server.port``) as ``streamlit run`` flags::

        >>> streamlit_flags(server_address="0.0.0.0")[:2]
        ['--server.address=0.0.0.0', '--server.maxUploadSize=50']
    """
    options = dict(SERVER_OPTIONS)
    options.update({name.replace("_", ".", 1): value for name, value in overrides.items()})
    return [f"--{name}={_flag_value(value)}" for name, value in options.items()]
