"""The real CLI on a copy of a test project (test helper for the print-production tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pnp(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m pnp ARGS` in `project`, with this checkout's pnp."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pnp", *args], cwd=project, capture_output=True, text=True, env=env, timeout=300
    )


def copy_project(name: str, target: Path) -> Path:
    """tests/<name>, without its output, copied to `target`."""
    shutil.copytree(ROOT / "tests" / name, target, ignore=shutil.ignore_patterns("output"))
    return target
