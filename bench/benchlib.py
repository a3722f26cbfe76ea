"""Helpers shared by the benchmarks (run as scripts: `python bench/check_bench.py`)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def tool(name: str, script: str) -> str:
    """A command installed beside this Python (the venv), else on PATH; exit with a message if missing."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        sys.exit(f"{script}: {name} not found next to {sys.executable} or on PATH")
    return found


def copy_icons(repo: Path, root: Path) -> None:
    """Copy the repository's icons.json and the art it names, so a generated project's icons resolve."""
    (root / "layouts").mkdir(parents=True, exist_ok=True)
    shutil.copy(repo / "layouts" / "icons.json", root / "layouts" / "icons.json")
    art = repo / "layouts" / "art"
    if art.is_dir():
        shutil.copytree(art, root / "layouts" / "art", dirs_exist_ok=True)
