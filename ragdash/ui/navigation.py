"""The dashboard's pages as ``st.Page`` objects, made in one place.

Pages link to each other through these objects (``st.switch_page(pages().explore)``,
``st.page_link(pages().tour)``), never through file paths: a path string is resolved
against the folder of the main script, which is the checkout for ``streamlit run app.py``
but ``site-packages/ragdash/ui/entry`` for an installed ``ragdash dashboard`` — so a
checkout-relative path worked in one launch path and raised ``StreamlitPageNotFoundError``
in the other."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from ragdash.ui.context import once_per_run

__all__ = ["PAGES_DIR", "Pages", "pages"]

PAGES_DIR = Path(__file__).resolve().parent / "pages"


@dataclass(frozen=True)
class Pages:
    """Every page of the dashboard, plus the hidden ``/explore`` address (see
    :func:`_explore_address`)."""

    explore: StreamlitPage
    tour: StreamlitPage
    suite: StreamlitPage
    stress: StreamlitPage
    documents: StreamlitPage
    triage: StreamlitPage
    explore_address: StreamlitPage

    def navigation(self) -> list[StreamlitPage]:
        """What ``st.navigation`` registers, in menu order."""
        return [self.explore, self.tour, self.suite, self.stress, self.documents, self.triage,
                self.explore_address]  # fmt: skip


def _explore_address() -> None:
    """``/explore`` opens Explore. Explore is the default page, and Streamlit serves the
    default page at the root only (its url path is ``""``), so a link to ``/explore`` —
    the name the menu shows — said "Page not found". This hidden page owns that address
    and hands over to Explore; the view in the link was already read by the app shell."""
    st.switch_page(pages().explore)


def _make() -> Pages:
    return Pages(
        explore=st.Page(PAGES_DIR / "explore.py", title="Explore", icon=":material/search:",
                        url_path="", default=True),  # fmt: skip
        tour=st.Page(PAGES_DIR / "tour.py", title="Guided tour", icon=":material/tour:",
                     url_path="tour"),  # fmt: skip
        suite=st.Page(PAGES_DIR / "suite.py", title="Test suite", icon=":material/science:",
                      url_path="suite"),  # fmt: skip
        stress=st.Page(PAGES_DIR / "stress.py", title="Stress test",
                       icon=":material/bolt:", url_path="stress"),  # fmt: skip
        documents=st.Page(PAGES_DIR / "documents.py", title="Documents",
                          icon=":material/description:", url_path="documents"),  # fmt: skip
        triage=st.Page(PAGES_DIR / "triage.py", title="Triage", icon=":material/bug_report:",
                       url_path="triage"),  # fmt: skip
        explore_address=st.Page(_explore_address, title="Explore", url_path="explore",
                                visibility="hidden"),  # fmt: skip
    )


def pages() -> Pages:
    """The pages, made once per script run: the app shell registers them and the pages link
    to the very same objects."""
    return once_per_run("pages", _make)
