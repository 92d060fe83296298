from dashboard.documents import render
from dashboard.shell import page_context

index, _, corpus_key = page_context()
if index is not None:
    render(index, corpus_key)
