"""Tokenizing and cautious OCR normalization.

Tokens are lowercase runs of ``[a-z0-9]`` — the baseline retriever's whole notion of a word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

TOKEN_PATTERN = re.compile(r"[a-z0-9]+")

#: The seed's observed OCR confusions: a digit read where a letter was printed.
DEFAULT_OCR_MAP: Mapping[str, str] = {"0": "o", "1": "i"}

_DIGIT_RUN = re.compile(r"[0-9]+")


def tokenize(text: str) -> list[str]:
    """Split text into lowercase ``[a-z0-9]+`` tokens, in order (duplicates kept)."""
    return TOKEN_PATTERN.findall(text.lower())


def is_ocr_candidate(token: str, ocr_map: Mapping[str, str] = DEFAULT_OCR_MAP) -> bool:
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


def normalize_ocr(token: str, ocr_map: Mapping[str, str] = DEFAULT_OCR_MAP) -> str:
    """Return ``token`` with mapped digits replaced by letters, if it is an OCR candidate."""
    if not is_ocr_candidate(token, ocr_map):
        return token
    return "".join(ocr_map.get(ch, ch) for ch in token)


def parse_ocr_map(text: str) -> dict[str, str]:
    """Parse ``"0=o, 1=i"`` (or ``0→o``, ``0:o``) into a substitution map.

    Keys must be single digits and values single letters, because tokens only hold
    ``[a-z0-9]``; anything else raises ``ValueError`` naming the bad entry.
    """
    result: dict[str, str] = {}
    for raw in re.split(r"[,;\s]+", text.strip()):
        if not raw:
            continue
        parts = re.split(r"=|→|->|:", raw)
        if len(parts) != 2:
            raise ValueError(f"OCR map entry {raw!r} is not of the form digit=letter")
        key, value = parts[0].strip(), parts[1].strip().lower()
        if not (len(key) == 1 and key.isdigit()):
            raise ValueError(f"OCR map entry {raw!r}: the left side must be one digit")
        if not (len(value) == 1 and "a" <= value <= "z"):
            raise ValueError(f"OCR map entry {raw!r}: the right side must be one letter a-z")
        result[key] = value
    return result


def format_ocr_map(ocr_map: Mapping[str, str]) -> str:
    """Inverse of :func:`parse_ocr_map`."""
    return ", ".join(f"{k}={v}" for k, v in sorted(ocr_map.items()))
