from ragdash.ui.shell import page_context
from ragdash.ui.tour import render

view = page_context()[1]
render(view)
