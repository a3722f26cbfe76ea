"""The rulebook transcriptions (seeds) that content tests quote: read once per module, and the
test skipped where the seeds are not on the machine (PNP_SEEDS names their folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SEEDS = Path(os.environ.get("PNP_SEEDS", "/work/shared/seeds"))


def seed_text(name: str) -> str:
    """The seed file `name`, or the calling test skipped when it is not on this machine."""
    path = SEEDS / name
    if not path.is_file():
        pytest.skip(f"seed {name} not on this machine (set PNP_SEEDS)")
    return path.read_text(encoding="utf-8")


def says(seed: str, *lines: str) -> None:
    """Each line is printed in the seed, word for word: a test quotes the rulebook, not a memory of it."""
    for line in lines:
        assert line in seed, f"the rulebook does not print: {line!r}"
