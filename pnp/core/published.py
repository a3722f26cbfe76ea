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
