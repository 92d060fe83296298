"""The Streamlit dashboard: a thin layer over the core (which never imports Streamlit).

:data:`APP_SCRIPT` is the script ``ragdash dashboard`` hands to ``streamlit run``; it sits
in a folder with no ``pages/`` beside it (see :mod:`ragdash.ui.entry`)."""

from pathlib import Path

__all__ = ["APP_SCRIPT"]

APP_SCRIPT = Path(__file__).resolve().parent / "entry" / "streamlit_app.py"
