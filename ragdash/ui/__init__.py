"""The Streamlit layer of ragdash: pages that call the core (``ragdash``) and render."""
