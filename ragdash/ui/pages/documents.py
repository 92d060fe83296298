from ragdash.ui.documents import render
from ragdash.ui.shell import page_context

index, _, corpus_key = page_context()
if index is not None:
    render(index, corpus_key)
