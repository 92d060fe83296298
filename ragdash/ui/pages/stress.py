from ragdash.ui.shell import page_context
from ragdash.ui.stress import render

index, view, corpus_key = page_context()
if index is not None:
    render(index, view, corpus_key)
