from ragdash.ui.explore import render
from ragdash.ui.shell import page_context

index, view, _ = page_context()
if index is not None:
    render(index, view)
