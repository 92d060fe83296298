"""Tokenizing and cautious OCR normalization.

Tokens are lowercase runs of ``[a-z0-9]`` — the baseline retriever's whole notion of a word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ragdash.settings import DEFAULT_OCR_MAP

TOKEN_PATTERN = re.compile(r"[a-z0-9]+")

#: The seed's observed OCR confusions as digit → letter (:data:`ragdash.settings.DEFAULT_OCR_MAP`).
DEFAULT_SUBSTITUTIONS: Mapping[str, str] = dict(DEFAULT_OCR_MAP)

_DIGIT_RUN = re.compile(r"[0-9]+")


def tokenize(text: str) -> list[str]:
    """Split text into lowercase ``[a-z0-9]+`` tokens, in order (duplicates kept)."""
    return TOKEN_PATTERN.findall(text.lower())


def is_ocr_candidate(token: str, ocr_map: Mapping[str, str] = DEFAULT_SUBSTITUTIONS) -> bool:
    """True if ``token`` looks like a word with a digit misread for a letter.

    Cautious on purpose: the token must start with a letter, hold at least two letters, and
    every digit in it must stand alone (a run of one) and be in the map. So ``enterpr1se`` and
    ``ss0`` qualify, while numbers (``10``, ``2026``), measurements (``10gb``, ``1st``) and
    codes (``x100``, ``a1``, ``covid19``) are never touched.
    """
    if not token or not token[0].isalpha():
        return False
    runs = _DIGIT_RUN.findall(token)
    if not runs:
        return False
    if sum(ch.isalpha() for ch in token) < 2:
        return False
    return all(len(run) == 1 and run in ocr_map for run in runs)


def normalize_ocr(token: str, ocr_map: Mapping[str, str] = DEFAULT_SUBSTITUTIONS) -> str:
    """Return ``token`` with mapped digits replaced by letters, if it is an OCR candidate."""
    if not is_ocr_candidate(token, ocr_map):
        return token
    return "".join(ocr_map.get(ch, ch) for ch in token)
