"""Fuzzing the PDF loader with mutated bytes of real PDFs: every input either loads or gives
a clear IngestError — never another exception, never a hang past the time limit."""

from __future__ import annotations

import random
import signal
from pathlib import Path

import pytest

from ragdash.errors import IngestError
from ragdash.ingestion.ingest import read_pdf

ROOT = Path(__file__).resolve().parent.parent
SEEDS = [
    ROOT / "sample_docs" / "plans.pdf",
    *sorted((ROOT / "tests" / "fixtures").glob("*.pdf")),
]
#: Seconds one mutated input may take before the loader counts as hung.
TIME_LIMIT = 20
MUTANTS_PER_SEED = 15


class Hung(Exception):
    pass


def _alarm(signum, frame):
    raise Hung()


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One of: flip random bytes, truncate, duplicate a slice, or zero a run."""
    buf = bytearray(data)
    kind = rng.choice(["flip", "truncate", "splice", "zero"])
    if kind == "flip":
        for _ in range(rng.randint(1, 40)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
    elif kind == "truncate":
        del buf[rng.randrange(1, len(buf)) :]
    elif kind == "splice":
        a = rng.randrange(len(buf))
        b = min(len(buf), a + rng.randint(1, 2000))
        buf[rng.randrange(len(buf)) : 0] = buf[a:b]
    else:
        a = rng.randrange(len(buf))
        buf[a : a + rng.randint(1, 500)] = bytes(min(500, len(buf) - a))
    return bytes(buf)


@pytest.mark.parametrize("seed_pdf", SEEDS, ids=lambda p: p.name)
def test_mutated_pdfs_load_or_fail_clearly(seed_pdf):
    original = seed_pdf.read_bytes()
    rng = random.Random(seed_pdf.name)
    outcomes = {"loaded": 0, "refused": 0}
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for i in range(MUTANTS_PER_SEED):
            data = mutate(original, rng)
            signal.alarm(TIME_LIMIT)
            try:
                pdf = read_pdf(data)
            except IngestError as exc:
                assert str(exc), "the message must say what is wrong"
                outcomes["refused"] += 1
            except Hung:
                pytest.fail(f"mutant {i} of {seed_pdf.name} took over {TIME_LIMIT} s")
            else:
                assert len(pdf.pages) >= 1
                outcomes["loaded"] += 1
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert sum(outcomes.values()) == MUTANTS_PER_SEED
