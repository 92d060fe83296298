from ragdash.ui.shell import page_context
from ragdash.ui.tour import render

_, view, _ = page_context()
render(view)
