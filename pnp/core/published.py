"""The JSON Schemas pnp publishes for editors and `$schema` keys: every *.schema.json in pnp/.

Found by glob at run time, so a schema added to the package (sheets, icons.json, the x-
keywords) is published with no list to update; `pnp schema-path` prints where they are.
"""

from __future__ import annotations

from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parents[1]
SUFFIX = ".schema.json"


def published_schemas() -> dict[str, Path]:
    """Schema name ('layout') -> its file, for every schema shipped in the package."""
    return {path.name[: -len(SUFFIX)]: path for path in sorted(SCHEMA_DIR.glob(f"*{SUFFIX}")) if path.is_file()}


def docs_folder() -> Path | None:
    """pnp's documentation: pnp/docs/ in an installed wheel (setup.py copies docs/*.md there),
    else the docs/ folder beside pnp/ in a source checkout; None when neither is there."""
    for folder in (SCHEMA_DIR / "docs", SCHEMA_DIR.parent / "docs"):
        if folder.is_dir() and any(folder.glob("*.md")):
            return folder
    return None


def published_docs() -> dict[str, Path]:
    """Topic ('adopting') -> its Markdown file, for `pnp docs`."""
    folder = docs_folder()
    if folder is None:
        return {}
    return {path.stem: path for path in sorted(folder.glob("*.md")) if path.is_file()}
