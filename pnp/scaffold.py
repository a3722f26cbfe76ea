"""`pnp new DIR`: a fresh content project with one example kind, schema, records and layout."""

from __future__ import annotations

import shutil
from pathlib import Path

from pnp.config import ConfigError

TEMPLATE = Path(__file__).resolve().parent / "scaffold"


def scaffold(directory: Path) -> list[Path]:
    """Copy the template project into `directory` (which must not exist or be empty)."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ConfigError(f"{directory}: already exists and is not empty; choose a new folder")
    created: list[Path] = []
    for source in sorted(TEMPLATE.rglob("*")):
        if source.is_dir() or "__pycache__" in source.parts:
            continue
        relative = source.relative_to(TEMPLATE)
        name = ".gitignore" if relative.name == "gitignore" else relative.name
        target = directory / relative.parent / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        created.append(target)
    return created
