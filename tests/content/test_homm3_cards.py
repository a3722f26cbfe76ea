"""Content tests: HoMM III Conflux cards, tiles, locations and tokens held to the seeds.

Seeds: 000_6347cdb41225c97f.txt (Conflux rulebook), 004_a850f7203ac9cad0.txt (combat tokens guide).
Scenarios and the campaign are tested in test_homm3_scenarios.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RULEBOOK = "000_6347cdb41225c97f.txt"
TOKENS_GUIDE = "004_a850f7203ac9cad0.txt"
ROOT = Path(__file__).resolve().parents[2]
MY_FILES = sorted(
    p for p in (ROOT / "cards" / "homm3-conflux").glob("*.json") if p.name not in {"scenarios.json", "campaign.json"}
)


def _mine() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in MY_FILES:
        data = json.loads(path.read_text(encoding="utf-8"))
        out.extend(data if isinstance(data, list) else [data])
    return out


def names(by_kind: dict[str, list[dict[str, Any]]], kind: str) -> list[str]:
    return [r["name"] for r in by_kind.get(kind, [])]


def test_sources_cite_the_two_conflux_seeds() -> None:
    recs = _mine()
    assert len(recs) > 150
    assert {r["source"]["seed"] for r in recs} == {RULEBOOK, TOKENS_GUIDE}
    assert all(r["kind"].startswith("homm3.") for r in recs)


def test_component_list_lines_in_printed_order(by_id: dict[str, dict[str, Any]]) -> None:
    lines = [(c["name"], c["count"]) for c in by_id["conflux-component-list"]["components"]]
    assert lines == [
        ("Map tile", 12),
        ("Starting tile", 1),
        ("Far tile", 3),
        ("Elemental Near tile", 8),
        ("Town board", 1),
        ("Mission book", 1),
        ("Player's Aid", 1),
        ("Unit leaflet (Conflux)", 1),
        ("Hero model", 2),
        ("Town model", 1),
        ("Unit model", 7),
        ("Hero card (double-sided)", 2),
        ("Unit card", 7),
        ("Town Building tile", 7),
        ("Neutral Unit card", 8),
        ("Summoned Unit card", 8),
        ("Astrologers Proclaim card", 3),
        ("Artifact card", 8),
        ("Spell card", 10),
        ("Ability card", 15),
        ("Specialty card", 12),
        ("Statistic card", 9),
        ("Attack card", 3),
        ("Defense card", 1),
        ("Power card", 2),
        ("Knowledge card", 3),
        ("Build token", 1),
        ("Population token", 1),
    ]
    complete = {
        c["name"] for c in by_id["conflux-component-list"]["components"] if c.get("transcription") == "complete"
    }
    assert complete == {
        "Starting tile",
        "Elemental Near tile",
        "Statistic card",
        "Attack card",
        "Defense card",
        "Power card",
        "Knowledge card",
        "Build token",
        "Population token",
    }


def test_statistic_cards_split_3_1_2_3(by_kind: dict[str, list[dict[str, Any]]]) -> None:
    split = {r["stat"]: r.get("copies", 1) for r in by_kind["homm3.statistic"]}
    assert split == {"attack": 3, "defense": 1, "power": 2, "knowledge": 3}
    assert sum(split.values()) == 9


def test_summoned_units_cover_the_four_elements(by_kind, by_id) -> None:
    summoned = by_kind["homm3.summoned-unit"]
    assert sorted(r["element"] for r in summoned) == ["air", "earth", "fire", "water"]
    assert sorted(names(by_kind, "homm3.summoned-unit")) == [
        "Air Elementals",
        "Earth Elementals",
        "Fire Elementals",
        "Water Elementals",
    ]
    for unit in summoned:
        assert unit["sizes"] == ["few", "pack"]
        spell = by_id[unit["summoned_by"]]
        assert spell["kind"] == "homm3.spell"
        assert spell["name"] == f"Summon {unit['element'].title()} Elemental"
        assert spell["summons"] == unit["id"]
        assert spell["expansion"] == "conflux"


def test_magic_arrow_belongs_to_all_four_schools(by_id) -> None:
    assert sorted(by_id["magic-arrow"]["schools"]) == ["air", "earth", "fire", "water"]
    for el in ("fire", "water", "air", "earth"):
        assert by_id[f"summon-{el}-elemental"]["schools"] == [el]
        assert by_id[f"basic-{el}-magic"]["school"] == el
        assert by_id[f"{el}-magic"]["school"] == el
    assert [r["id"] for r in _mine() if r["kind"] == "homm3.spell" and r.get("expansion") == "conflux"] == [
        "summon-fire-elemental",
        "summon-water-elemental",
        "summon-air-elemental",
        "summon-earth-elemental",
    ]


def test_conflux_map_tile_codes_and_elements(by_kind) -> None:
    conflux = {r["code"]: r for r in by_kind["homm3.map-tile"] if r.get("expansion") == "conflux"}
    assert sorted(conflux, key=lambda c: (c[0] != "S", int(c[1:]))) == [
        "S8",
        "N14",
        "N15",
        "N16",
        "N17",
        "N18",
        "N19",
        "N20",
        "N21",
    ]
    assert conflux["S8"]["type"] == "starting" and conflux["S8"]["faction"] == "conflux"
    elements = {code: t.get("element") for code, t in conflux.items() if t["type"] == "elemental-near"}
    assert elements == {
        "N14": "fire",
        "N15": "fire",
        "N16": "water",
        "N17": "water",
        "N18": "air",
        "N19": "air",
        "N20": "earth",
        "N21": "earth",
    }
    codes = {r["code"] for r in by_kind["homm3.map-tile"]}
    assert {"C1", "S2", "S3", "N1", "N5", "F3", "F6", "F9", "F13", "#F1", "#F7"} <= codes
    tower = sorted(r["code"] for r in by_kind["homm3.map-tile"] if r.get("faction") == "tower")
    assert tower == ["#F1", "#F2", "#F3", "#F7"]


def test_six_map_locations_and_categories(by_kind) -> None:
    cats = {r["name"]: r["category"] for r in by_kind["homm3.map-location"]}
    assert cats == {
        "Town": "flaggable",
        "Settlement": "flaggable",
        "Elemental Conflux": "visitable",
        "Faerie Ring": "visitable",
        "One-way Monolith": "revisitable",
        "Two-way Monolith": "revisitable",
    }
    assert all(r.get("rule") for r in by_kind["homm3.map-location"])


def test_conflux_tokens(by_id, by_kind) -> None:
    assert names(by_kind, "homm3.token") == [
        "Time token",
        "Monolith token",
        "Fire Wall token",
        "Summon token",
        "Build token",
        "Population token",
    ]
    monolith = by_id["monolith-token"]
    assert monolith["paired"] is True
    assert monolith["faces"] == ["Two-way Monolith", "One-way Monolith (Entrance)", "One-way Monolith (Exit)"]
    assert monolith["locations"] == ["one-way-monolith", "two-way-monolith"]
    fire_wall = by_id["fire-wall-token"]
    assert [(by_id[s]["hero"], by_id[s]["level"]) for s in fire_wall["stands_for"]] == [("luna", "I"), ("luna", "VI")]
    assert fire_wall["spells"] == ["fire-wall"]


def test_combat_tokens_of_the_guide(by_kind, by_id) -> None:
    assert names(by_kind, "homm3.combat-token") == [
        "Paralysis Token",
        "Defense Token",
        "Black Cube",
        "Faction Cube",
        "Quicksand Token",
        "Land Mine Token",
        "Force Field Token",
        "Clone",
        "Weakness Token",
        "Attack Token",
        "Corrosion Token",
        "Stack Token",
        "Initiative Token",
    ]
    assert all(r["source"]["seed"] == TOKENS_GUIDE for r in by_kind["homm3.combat-token"])
    for tid, faces in (("quicksand-token", ["empty", "Quicksand"]), ("land-mine-token", ["empty", "2 damage"])):
        assert by_id[tid]["counts_by_power"] == [2, 4, 6]
        assert by_id[tid]["faces"] == faces
    assert by_id["weakness-token"]["faces"] == ["-1 Attack", "-2 Attack"]
    assert by_id["attack-token"]["faces"] == ["+1 Attack", "+2 Attack"]
    assert "faces" not in by_id["corrosion-token"]  # the guide shows no face for it (issue 18, round 3)
    assert by_id["stack-token"]["count_by_difficulty"] == {"easy": 1, "normal": 2, "hard": 3, "impossible": 4}
    assert by_id["force-field-token"]["count_by_board"] == {"combat_board": 1, "battlefield_board": 2}


def test_combat_token_expansions_and_sources(by_id) -> None:
    expansion = {
        t: by_id[t].get("expansion")
        for t in (
            "token-clone",
            "quicksand-token",
            "weakness-token",
            "attack-token",
            "corrosion-token",
            "stack-token",
            "initiative-token",
            "paralysis-token",
        )
    }
    assert expansion == {
        "token-clone": "cove",
        "quicksand-token": "stronghold",
        "weakness-token": "cove",
        "attack-token": "stronghold",
        "corrosion-token": "stronghold",
        "stack-token": "naval-battles",
        "initiative-token": "battlefield",
        "paralysis-token": None,
    }
    paralysis = by_id["paralysis-token"]
    assert paralysis["spells"] == ["blind"]
    assert [by_id[u]["name"] for u in paralysis["units"]] == ["Medusas", "Basilisks"]
    assert paralysis["removed_by_spells"] == ["cure"] and paralysis["ignored_by"] == ["troglodytes"]
    assert by_id["black-cube"]["exempt_units"] == ["griffins"]
    assert [by_id[by_id[t]["units"][0]]["name"] for t in ("weakness-token", "attack-token", "corrosion-token")] == [
        "Sorceresses",
        "Ogres",
        "Behemoths",
    ]
    assert by_id["token-clone"]["spells"] == ["clone"] and by_id["clone"]["expansion"] == "cove"


def test_neutral_unit_tiers(by_kind) -> None:
    tiers: dict[str, list[str]] = {}
    for r in by_kind["homm3.neutral-unit"]:
        assert r["id"] == "neutral-" + r["name"].lower().replace(" ", "-")
        tiers.setdefault(r["tier"], []).append(r["name"])
    assert {
        "Rogues",
        "Zombies",
        "Wraiths",
        "Harpies",
        "Evil Eyes",
        "Troglodytes",
        "Sprites",
        "Storm Elementals",
        "Ice Elementals",
    } == set(tiers["bronze"])
    assert {"Energy Elementals", "Magma Elementals", "Mummies"} <= set(tiers["silver"])
    assert {"Phoenixes", "Archangels", "Diamond Golems", "Enchanters", "Black Dragons"} <= set(tiers["gold"])
    assert set(tiers["azure"]) == {"Azure Dragons", "Crystal Dragons"}
    conflux = sorted(r["name"] for r in by_kind["homm3.neutral-unit"] if r.get("expansion") == "conflux")
    assert conflux == ["Energy Elementals", "Ice Elementals", "Magma Elementals", "Phoenixes"]


def test_heroes_specialties_and_buildings(by_id, by_kind) -> None:
    assert "faction" not in by_id["luna"] and by_id["luna"]["double_sided"] is True
    assert sorted(names(by_kind, "homm3.specialty")) == ["Luna's Specialty I", "Luna's Specialty VI"]
    pyre = by_id["magical-pyre"]
    assert (pyre["faction"], pyre["tier"], pyre["dwelling"]) == ("conflux", "gold", True)
    assert sorted(names(by_kind, "homm3.town-building")) == [
        "Citadel",
        "City Hall",
        "Dwelling",
        "Mage Guild",
        "Magic University",
        "Magical Pyre",
    ]
    assert [by_id[u].get("expansion") for u in ("genies", "magi", "nagas")] == ["tower"] * 3
    assert {by_id[u]["faction"] for u in ("ogres", "behemoths")} == {"stronghold"}


def test_every_reference_in_my_records_resolves(by_id) -> None:
    ref_fields = {
        "summoned_by": "homm3.spell",
        "summons": "homm3.summoned-unit",
        "hero": "homm3.hero",
        "faction": "homm3.faction",
        "stands_for": "homm3.specialty",
        "spells": "homm3.spell",
        "removed_by_spells": "homm3.spell",
        "locations": "homm3.map-location",
        "abilities": "homm3.ability",
    }
    unit_kinds = {"homm3.unit", "homm3.neutral-unit", "homm3.summoned-unit"}
    checked = 0
    for r in _mine():
        for field, kind in ref_fields.items():
            values = r.get(field)
            if values is None or (field == "abilities" and r["kind"] != "homm3.combat-token"):
                continue
            for v in values if isinstance(values, list) else [values]:
                assert by_id[v]["kind"] == kind, (r["id"], field, v)
                checked += 1
        for field in ("units", "ignored_by", "exempt_units"):
            for v in r.get(field, []):
                assert by_id[v]["kind"] in unit_kinds, (r["id"], field, v)
                checked += 1
    assert checked >= 60
