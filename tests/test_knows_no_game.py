"""pnp/ knows no game: no kind name or game prefix of the bundled content appears in pnp/*.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bundled_names() -> set[str]:
    """Every kind of the repository's schemas/ and its game prefix ('homm3.', 'mk.', 'homm4')."""
    names: set[str] = set()
    for path in (ROOT / "schemas").glob("*.schema.json"):
        kind = json.loads(path.read_text(encoding="utf-8")).get("properties", {}).get("kind", {}).get("const")
        if isinstance(kind, str):
            names.add(kind)
            prefix = kind.split(".", 1)[0]
            names.update({prefix + ".", prefix + "-", f'"{prefix}"', f"'{prefix}'"})
    return names


def test_pnp_source_names_no_bundled_kind_or_game() -> None:
    names = bundled_names()
    assert "mk." in names and len(names) > 20  # the scan sees the bundled schemas
    prefixes = {n[:-1] for n in names if n.endswith(".")}
    words = [rf"\b{re.escape(p)}\b" for p in sorted(prefixes)]  # 'homm4' and 'mk' as words
    pattern = re.compile("|".join([*(re.escape(n) for n in sorted(names, key=len, reverse=True)), *words]))
    hits = []
    for path in sorted((ROOT / "pnp").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                before = line[match.start() - 1] if match.start() else " "
                if before.isalnum() or before == "_":
                    continue  # 'rmk.' inside another word
                hits.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}: {line.strip()}")
    assert not hits, "\n".join(hits)
