"""The schemas themselves: valid 2020-12 (checked by the reference implementation), named by
kind, every x-ref pointing at a kind that exists, and every kind DOMAIN.md lists present."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILES = sorted((ROOT / "schemas").glob("*.schema.json")) + sorted(
    (ROOT / "tests" / "fixture" / "schemas").glob("*.json")
)
KINDS = {p.name[: -len(".schema.json")] for p in (ROOT / "schemas").glob("*.schema.json")} - {"common"}

# Every record kind ../shared/DOMAIN.md implies, as this project names it.
DOMAIN_KINDS = {
    # HoMM III Conflux
    "homm3.summoned-unit",
    "homm3.unit",
    "homm3.neutral-unit",
    "homm3.hero",
    "homm3.spell",
    "homm3.ability",
    "homm3.specialty",
    "homm3.statistic",
    "homm3.artifact",
    "homm3.astrologers-proclaim",
    "homm3.town-building",
    "homm3.map-tile",
    "homm3.map-location",
    "homm3.token",
    "homm3.combat-token",
    "homm3.scenario",
    "homm3.campaign",
    "homm3.component-list",
    # HoMM IV
    "homm4.hero",
    "homm4.unit",
    "homm4.town",
    "homm4.object",
    "homm4.artifact",
    "homm4.primary-skill",
    "homm4.secondary-skill",
    "homm4.spell",
    "homm4.token",
    "homm4.faction",
    "homm4.hero-class",
    "homm4.table",
    "homm4.component-list",
    # Mage Knight
    "mk.quest",
    "mk.quest-marker",
    "mk.faction-token",
    "mk.possessed-enemy",
    "mk.enemy",
    "mk.dragon-head",
    "mk.horseman",
    "mk.site",
    "mk.token",
    "mk.scenario",
    "mk.component-list",
}


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_schema_is_valid_2020_12(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith("/" + path.name)


def _walk(node: Any) -> list[Any]:
    found = [node]
    if isinstance(node, dict):
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


@pytest.mark.parametrize(
    "path", [p for p in SCHEMA_FILES if p.parent.name == "schemas" and p.parent.parent == ROOT], ids=lambda p: p.name
)
def test_kind_and_references(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    if path.name in ("common.schema.json", "content.schema.json"):  # shared $defs, no kind
        return
    kind = path.name[: -len(".schema.json")]
    declared = schema.get("properties", {}).get("kind", {}).get("const")
    assert declared == kind
    for node in _walk(schema):
        if isinstance(node, dict) and "x-ref" in node:
            targets = node["x-ref"] if isinstance(node["x-ref"], list) else [node["x-ref"]]
            assert set(targets) <= KINDS, f"{kind}: x-ref to unknown kinds {set(targets) - KINDS}"


def test_every_domain_kind_has_a_schema() -> None:
    assert DOMAIN_KINDS <= KINDS, DOMAIN_KINDS - KINDS
