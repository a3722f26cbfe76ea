"""The code stays ruff clean and mypy --strict clean (configured in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    found = BIN / name
    if not found.exists():
        which = shutil.which(name)
        if which is None:
            pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
        return which
    return str(found)


def test_ruff_check() -> None:
    done = subprocess.run([tool("ruff"), "check", "pnp", "tests", "bench"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format() -> None:
    done = subprocess.run(
        [tool("ruff"), "format", "--check", "pnp", "tests", "bench"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict() -> None:
    done = subprocess.run([tool("mypy"), "pnp"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
