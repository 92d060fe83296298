"""ragdash: a plain-Python retrieval core that shows how realistic flaws break a simple
RAG retriever, and how targeted fixes repair it. The Streamlit dashboard (app.py) and the
CLI (python -m ragdash) are thin layers over this package."""

__version__ = "0.1.0"
