"""A text block met again in a document is copied, not set again (pnp.drawing.words.TextSetter.block).

Four cards whose stat values (the same values in two stats, at two places) and rules repeat from
card to card, one rule with a character the font lacks on two cards. The copies must be the bytes of setting each block anew (the build with
the copies turned off, BLOCK_TEXT below any text, writes the same PDF), and what setting a block
finds names its own record: a block that found something is never copied (both cards with the
missing glyph are reported, each at its record).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pnp.drawing.words import TextSetter
from tests.runpnp import run as pnp

LACKING = "\u6f22"  # a CJK character: DejaVu Sans has no glyph for it
RECORDS = [
    {"kind": "tb.card", "id": "tb-1", "power": 3, "cost": 3, "rule": "Draw a card."},
    {"kind": "tb.card", "id": "tb-2", "power": 3, "cost": 5, "rule": f"Gain {LACKING} gold."},
    {"kind": "tb.card", "id": "tb-3", "power": 5, "cost": 3, "rule": "Draw a card."},
    {"kind": "tb.card", "id": "tb-4", "power": 5, "cost": 5, "rule": f"Gain {LACKING} gold."},
]


def write_project(root: Path) -> Path:
    for folder in ("cards", "schemas", "layouts"):
        (root / folder).mkdir(parents=True)
    (root / "pnp.toml").write_text('[project]\nname = "blocks"\n\n[games.tb]\ntitle = "Blocks"\nfolder = "tb"\n')
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pnp.invalid/schemas/tb.card.schema.json",
        "type": "object",
        "properties": {
            "kind": {"const": "tb.card"},
            "id": {"type": "string"},
            "power": {"type": "integer"},
            "cost": {"type": "integer"},
            "rule": {"type": "string"},
        },
        "required": ["kind", "id", "power", "cost", "rule"],
        "additionalProperties": False,
    }
    (root / "schemas" / "tb.card.schema.json").write_text(json.dumps(schema))
    layout = {
        "kinds": ["tb.card"],
        "unit": "mm",
        "size": "poker",
        "front": {
            "background": "#f4ecd8",
            "elements": [
                {"type": "stat", "x": 4, "y": 40, "w": 14, "h": 12, "label": "PWR", "value": "{{ power }}"},
                {"type": "stat", "x": 40, "y": 40, "w": 14, "h": 12, "label": "COST", "value": "{{ cost }}"},
                {"type": "text", "x": 4, "y": 60, "w": 55, "h": 20, "text": "{{ rule }}", "size": 9},
            ],
        },
    }
    (root / "layouts" / "tb-card.json").write_text(json.dumps(layout))
    (root / "cards" / "cards.json").write_text(json.dumps(RECORDS, indent=1))
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = write_project(tmp_path_factory.mktemp("blocks") / "project")
    done = pnp(root, "build", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    return root, done.stdout + done.stderr


def test_a_block_that_finds_something_is_set_on_each_card(built: tuple[Path, str]) -> None:
    _, said = built
    lines = [line for line in said.splitlines() if "missing-glyph" in line]
    assert len(lines) == 2, said
    assert any("'tb-2'" in line for line in lines) and any("'tb-4'" in line for line in lines), lines


def test_copied_blocks_are_the_bytes_of_blocks_set_anew(
    built: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = built
    anew = write_project(tmp_path / "project")
    monkeypatch.setattr(TextSetter, "BLOCK_TEXT", -1)  # no text is short enough to be kept: every block set
    done = pnp(anew, "build", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert (anew / "output" / "tb" / "tb.card.pdf").read_bytes() == (
        root / "output" / "tb" / "tb.card.pdf"
    ).read_bytes()
