"""The toolkit's docs speak of any game: the bundled games and their transcription rules belong
to cards/README.md, not to the pages that document pnp."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLKIT_PAGES = ["records.md", "layouts.md", "api.md", "export.md"]
BUNDLED = re.compile(r"seed|homm|mk\.|rulebook", re.IGNORECASE)


@pytest.mark.parametrize("page", TOOLKIT_PAGES)
def test_toolkit_page_names_no_bundled_game(page: str) -> None:
    lines = (ROOT / "docs" / page).read_text(encoding="utf-8").splitlines()
    hits = [f"{page}:{n}: {line}" for n, line in enumerate(lines, 1) if BUNDLED.search(line)]
    assert not hits, "\n".join(hits)


def test_records_page_lets_any_prefix_be_a_game_and_requires_no_source() -> None:
    text = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
    assert "[games.PREFIX]" in text
    example = json.loads(re.search(r"```json\n(.*?)```", text, re.DOTALL).group(1))  # type: ignore[union-attr]
    assert example["required"] == ["kind", "id", "name"]


def test_transcription_rules_live_with_the_bundled_content() -> None:
    rules = (ROOT / "cards" / "README.md").read_text(encoding="utf-8")
    assert "game prefix `homm3`, `homm4` or `mk`" in rules and "Never guess" in rules
