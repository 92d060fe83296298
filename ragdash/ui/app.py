"""The dashboard's main script body, shared by the top-level ``app.py`` (``streamlit run
app.py``) and ``ragdash dashboard`` (which runs :mod:`ragdash.ui.entry.streamlit_app`).

Streamlit re-executes the main script on every interaction, but imports modules once, so
the entry scripts call :func:`run` rather than doing the work at import time."""

from __future__ import annotations

from functools import cache

import streamlit as st
from PIL import Image, ImageDraw

from ragdash.ui.context import case_library, current_index, ensure_index
from ragdash.ui.glossary import render_glossary
from ragdash.ui.navigation import pages
from ragdash.ui.render import inject_css
from ragdash.ui.serve import install_origin_guard, origin_is_own
from ragdash.ui.sidebar import render_sidebar
from ragdash.ui.state import corpus_link_warning, current_view, sync_url

__all__ = ["favicon", "run"]


@cache
def favicon() -> Image.Image:
    """The tab icon, drawn here: a ``:material/...:`` page icon makes the browser fetch the
    icon from fonts.gstatic.com — a request to another host on every page load."""
    icon = Image.new("RGBA", (32, 32), (0, 0, 0, 0))
    draw = ImageDraw.Draw(icon)
    draw.ellipse((3, 3, 21, 21), outline=(76, 110, 245, 255), width=4)  # a magnifier
    draw.line((18, 18, 29, 29), fill=(76, 110, 245, 255), width=5)
    return icon


def run() -> None:
    """Set up the page, the navigation and the sidebar, then render the chosen page."""
    install_origin_guard()  # `streamlit run app.py`: from the first page run on (once)
    st.set_page_config(page_title="ragdash", page_icon=favicon(), layout="wide")
    headers = st.context.headers
    if not origin_is_own(headers.get("Origin"), headers.get("Host")):
        # the session the guard came too late for (`streamlit run app.py`'s first): no data
        st.error("This dashboard answers only its own page, not a page of another site.")
        st.stop()
    inject_css()
    navigation = st.navigation(pages().navigation())
    index = current_index()
    cases, _ = case_library()
    on_tour = navigation.url_path == pages().tour.url_path
    view = render_sidebar(current_view(cases), index, toggles=not on_tour)
    render_glossary()
    if index is not None:
        ensure_index(index, view.fixes)
        corpus_link_warning(index.fingerprint)
    navigation.run()
    sync_url(st.session_state["view"], index.fingerprint if index is not None else None)
