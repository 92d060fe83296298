"""The script ``ragdash dashboard`` hands to ``streamlit run`` (inside the installed package)."""

from ragdash.ui.app import run

run()
