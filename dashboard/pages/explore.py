from dashboard.explore import render
from dashboard.shell import page_context

index, view, _ = page_context()
if index is not None:
    render(index, view)
