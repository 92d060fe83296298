"""ragdash dashboard: how realistic flaws break a simple RAG retriever, and how targeted
fixes repair it. Run: streamlit run app.py [-- --docs DIR --workspace DIR].

The app lives in the package (:mod:`ragdash.ui.app`); this file is the thin entry point."""

from ragdash.ui.app import run

run()
