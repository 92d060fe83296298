"""The folder of the script ``ragdash dashboard`` hands to ``streamlit run``.

A folder of its own because Streamlit treats a main script with a ``pages/`` folder beside
it as an old-style multipage app: next to ``ragdash/ui/pages`` the installed dashboard ran
each page without the app shell (``/suite`` on a fresh server: ``KeyError: 'view'``)."""

__all__: list[str] = []
