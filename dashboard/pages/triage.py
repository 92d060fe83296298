from dashboard.shell import page_context
from dashboard.triage import render

index, view, corpus_key = page_context()
if index is not None:
    render(index, view, corpus_key)
