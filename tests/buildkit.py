"""Copies of tests/build_project shaped for a test."""

from __future__ import annotations

import shutil
from pathlib import Path

PROJECT = Path(__file__).resolve().parent / "build_project"


def cards_only(target: Path) -> Path:
    """The build project copied to `target` without its token kind (spells and their layout):
    a game of one kind, cards with backs."""
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    (target / "cards" / "spells.json").unlink()
    (target / "layouts" / "test-spell.json").unlink()
    return target
