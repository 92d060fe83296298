"""ragdash's version, in a base module of its own: saved indexes and runs record it, and the
modules that write them must not import the public API (which imports everything) to read it.
``pyproject.toml`` reads it from here too, so there is one place to bump::

    >>> VERSION.count(".")
    2
"""

__all__ = ["VERSION"]

VERSION = "0.2.0"
