"""ragdash dashboard: how realistic flaws break a simple RAG retriever, and how targeted
fixes repair it. Run: streamlit run app.py [-- --docs DIR --workspace DIR]."""

import streamlit as st

from dashboard.context import case_library, current_index
from dashboard.render import inject_css
from dashboard.sidebar import render_sidebar
from dashboard.state import corpus_link_warning, current_view, sync_url

st.set_page_config(page_title="ragdash", page_icon=":material/search:", layout="wide")
inject_css()

pages = [
    st.Page(
        "dashboard/pages/explore.py", title="Explore", icon="🔎", url_path="explore", default=True
    ),
    st.Page(
        "dashboard/pages/suite.py", title="Test suite", icon=":material/science:", url_path="suite"
    ),
    st.Page(
        "dashboard/pages/documents.py",
        title="Documents",
        icon=":material/description:",
        url_path="documents",
    ),
    st.Page(
        "dashboard/pages/triage.py", title="Triage", icon=":material/bug_report:", url_path="triage"
    ),
]
navigation = st.navigation(pages)
index = current_index()
cases, _ = case_library()
view = render_sidebar(current_view(cases), index)
if index is not None:
    corpus_link_warning(index.fingerprint)
navigation.run()
sync_url(st.session_state["view"], index.fingerprint if index is not None else None)
