"""A copy of this checkout as it is now (committed or not, new files too, ignored files not):
what a clean clone of the work in progress would hold, for tests that build or install it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_checkout(target: Path, skip: tuple[str, ...] = ()) -> Path:
    """Copy every file git would commit (tracked or new, not ignored) into `target`, but those under `skip` folders."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for relative in filter(None, listed.split("\0")):
        source = ROOT / relative
        if source.is_file() and not relative.startswith(tuple(f"{folder}/" for folder in skip)):
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relative)
    return target
