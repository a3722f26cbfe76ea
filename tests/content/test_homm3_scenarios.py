"""HoMM III Conflux scenarios and the "Masters of the Elements" campaign, held to seed 000."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = "000_6347cdb41225c97f.txt"

CAMPAIGN_ORDER = ["troubled-walking-on-clouds", "dancing-in-water-and-fire", "hard-place", "master-of-the-elements"]
MULTIPLAYER = ["one-bad-day", "deluge", "too-many-monsters"]


@pytest.fixture(scope="module")
def scen(by_id: dict[str, dict[str, Any]]):
    def get(sid: str) -> dict[str, Any]:
        record = by_id[sid]
        assert record["kind"] == "homm3.scenario"
        return record

    return get


def _tile_counts(groups: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for group in groups:
        counts[group["type"]] = counts.get(group["type"], 0) + group["count"]
    return counts


def _tile_ids(record: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for group in record["map"]["tiles"]:
        for pick in group.get("picks", []):
            out.update(pick.get("tiles", []))
            for pool in pick.get("pools", []):
                out.update(pool["tiles"])
    return out


# ------------------------------------------------------------------ the campaign


def test_campaign_lists_four_scenarios_in_order_with_lengths(by_id: dict[str, dict[str, Any]]) -> None:
    campaign = by_id["masters-of-the-elements"]
    assert campaign["kind"] == "homm3.campaign"
    assert campaign["name"] == "Masters of the Elements"
    assert campaign["scenarios"] == CAMPAIGN_ORDER
    names = [by_id[s]["name"] for s in campaign["scenarios"]]
    assert names == ["Troubled Walking on Clouds", "Dancing in Water and Fire", "Hard Place", "Master of the Elements"]
    assert [by_id[s]["length_rounds"] for s in campaign["scenarios"]] == [13, 16, 10, 14]
    assert [by_id[s]["number"] for s in campaign["scenarios"]] == [1, 2, 3, 4]
    assert all(by_id[s]["campaign"] == "masters-of-the-elements" for s in CAMPAIGN_ORDER)
    assert campaign["income"] == {"gold": 10, "building_materials": 0, "valuables": 0}


def test_campaign_deck_between_scenarios_has_five_steps(by_id: dict[str, dict[str, Any]]) -> None:
    rules = {r["title"]: r for r in by_id["masters-of-the-elements"]["rules"]}
    assert len(rules["Your Might and Magic Deck Between Scenarios"]["steps"]) == 5
    assert "Rules for More Complex Spells" in rules
    assert set(rules["Rules for More Complex Spells"]["refs"]) >= {"fireball", "chain-lightning", "stone-skin"}


# ------------------------------------------------------------------ modes and players


def test_modes_player_counts_and_lengths(scen) -> None:
    expected = {
        "one-bad-day": ("alliance", [4]),
        "deluge": ("clash", [3]),
        "too-many-monsters": ("cooperative", [2, 3]),
        **{sid: ("campaign", [1]) for sid in CAMPAIGN_ORDER},
    }
    for sid, (mode, players) in expected.items():
        assert (scen(sid)["mode"], scen(sid)["player_counts"]) == (mode, players), sid
    assert scen("one-bad-day")["alliances"] == {"teams": 2, "players_per_team": 2}
    assert scen("one-bad-day")["length_rounds"] == 16
    assert scen("deluge")["length_rounds"] == 10
    assert scen("too-many-monsters")["length_by_difficulty"] == {"easy": 11, "normal": 12, "hard": 14, "impossible": 16}
    assert "length_rounds" not in scen("too-many-monsters")


def test_every_scenario_source_is_seed_000(by_kind: dict[str, list[dict[str, Any]]]) -> None:
    scenarios = by_kind["homm3.scenario"]
    assert sorted(s["id"] for s in scenarios) == sorted(MULTIPLAYER + CAMPAIGN_ORDER)
    for record in scenarios + by_kind["homm3.campaign"]:
        assert record["source"]["seed"] == SEED


# ------------------------------------------------------------------ multiplayer scenarios


def test_one_bad_day_setup(scen) -> None:
    s = scen("one-bad-day")
    assert s["setup"]["starting_resources"] == {"gold": 11, "building_materials": 3, "valuables": 1}
    assert s["setup"]["income"] == {"gold": 10, "building_materials": 0, "valuables": 0}
    assert s["setup"]["buildings"] == [{"building": "dwelling", "tier": "bronze"}]
    assert s["setup"]["units"] == [{"count": 3, "size": "few", "tier": "bronze"}]
    assert s["setup"]["starting_bonus"] is False
    assert _tile_counts(s["map"]["tiles"]) == {"starting": 4, "near": 6, "far": 8}
    assert s["map"]["monoliths"]["type"] == "one-way"
    assert s["time_out"] == {**s["time_out"], "round": 16, "outcome": "all-lose"}
    assert s["timed_events"] == []


def test_deluge_setup_and_events(scen) -> None:
    s = scen("deluge")
    assert s["setup"]["starting_resources"] == {"gold": 10, "building_materials": 3, "valuables": 1}
    assert [b["building"] for b in s["setup"]["buildings"]] == ["dwelling", "mage-guild"]
    assert _tile_counts(s["map"]["tiles"]) == {"starting": 4, "near": 6, "far": 6}
    assert s["map"]["monoliths"]["type"] == "two-way"
    (town,) = s["defenders"]
    assert [(e["count"], e["size"], e["tier"]) for e in town["army"]] == [
        (3, "pack", "bronze"),
        (2, "pack", "silver"),
        (2, "few", "gold"),
    ]
    assert town["field_difficulty"] == "VI"
    assert s["time_out"]["outcome"] == "draw" and s["time_out"]["round"] == 10
    assert [e["rounds"] for e in s["timed_events"]] == [[3, 5, 7, 9]]


def test_too_many_monsters_tiles_per_player_count(scen) -> None:
    s = scen("too-many-monsters")
    by_players = {m["players"]: _tile_counts(m["tiles"]) for m in s["map"]["by_player_count"]}
    assert by_players == {
        2: {"starting": 2, "near": 4, "center": 2, "far": 4},
        3: {"starting": 3, "near": 6, "center": 3, "far": 6},
    }
    extra = s["map"]["per_extra_player"]
    assert _tile_counts(extra["tiles"]) == {"starting": 1, "near": 2, "center": 1, "far": 2}
    assert extra["monolith_tokens"] == 3
    assert s["map"]["sectors"] == 3
    assert s["setup"]["starting_resources"] == {"gold": 10, "building_materials": 3, "valuables": 1}
    assert s["time_out"]["outcome"] == "lose"
    assert s["timed_events"] == []


# ------------------------------------------------------------------ campaign scenarios


def test_campaign_starting_resources_and_heroes(scen) -> None:
    assert scen("troubled-walking-on-clouds")["setup"]["starting_resources"] == {"gold": 20}
    assert scen("dancing-in-water-and-fire")["setup"]["starting_resources"] == {
        "gold": 10,
        "building_materials": 3,
        "valuables": 2,
    }
    assert scen("hard-place")["setup"]["starting_resources"] == {"gold": 15}
    assert scen("master-of-the-elements")["setup"]["starting_resources"] == {"gold": 30}
    for sid in CAMPAIGN_ORDER:
        assert scen(sid)["setup"]["heroes"] == ["tarnum"]
        assert scen(sid)["setup"]["faction_army"] == []
    assert len(scen("troubled-walking-on-clouds")["setup"]["faction_options"]) == 6
    assert scen("hard-place")["setup"]["any_hero_of_faction"] == scen("hard-place")["setup"]["faction"]
    assert [len(scen(s)["setup"]["bonus_options"]) for s in CAMPAIGN_ORDER] == [3, 3, 3, 2]
    master = [(b["building"], b.get("tier")) for b in scen("master-of-the-elements")["setup"]["buildings"]]
    assert master == [
        ("city-hall", None),
        ("citadel", None),
        ("dwelling", "bronze"),
        ("dwelling", "silver"),
        ("mage-guild", None),
        ("magic-university", None),
    ]


def test_campaign_map_tiles(scen, by_id: dict[str, dict[str, Any]]) -> None:
    codes = lambda sid: sorted(by_id[t]["code"] for t in _tile_ids(scen(sid)))  # noqa: E731
    twc = scen("troubled-walking-on-clouds")
    assert _tile_counts(twc["map"]["tiles"]) == {"center": 1, "starting": 2, "far": 2, "near": 1, "elemental-near": 2}
    assert {"C1", "S3", "S8", "N5", "N18", "N19"} <= set(codes("troubled-walking-on-clouds"))
    assert _tile_counts(scen("dancing-in-water-and-fire")["map"]["tiles"]) == {
        "starting": 1,
        "far": 1,
        "near": 1,
        "elemental-near": 4,
    }
    assert codes("hard-place") == sorted(["S8", "S2", "F2", "F5", "F8", "N20", "N21"])
    master = scen("master-of-the-elements")["map"]
    (elemental,) = [g for g in master["tiles"] if g["type"] == "elemental-near"]
    assert elemental["count"] == 4
    assert [(p["element"], [by_id[t]["code"] for t in p["tiles"]]) for p in elemental["picks"]] == [
        ("fire", ["N14", "N15"]),
        ("water", ["N16", "N17"]),
        ("air", ["N18", "N19"]),
        ("earth", ["N20", "N21"]),
    ]
    assert master["monoliths"] == {**master["monoliths"], "type": "one-way", "count": 4}
    assert [scen(s)["map"]["layout_pages"] for s in CAMPAIGN_ORDER] == [[21], [28], [34], [40]]


def test_campaign_timed_event_rounds_and_caps(scen) -> None:
    rounds = {sid: [r for e in scen(sid)["timed_events"] for r in e["rounds"]] for sid in CAMPAIGN_ORDER}
    assert rounds == {
        "troubled-walking-on-clouds": [1, 3, 5, 9],
        "dancing-in-water-and-fire": [1, 3, 5, 8, 10, 16],
        "hard-place": [1, 3, 5, 6, 7, 9],
        "master-of-the-elements": [1, 3, 6, 9, 14],
    }
    assert scen("troubled-walking-on-clouds")["experience_cap"] == 4
    assert scen("dancing-in-water-and-fire")["experience_cap"] == 5
    assert "experience_cap" not in scen("hard-place")


def test_ai_armies_and_decks(scen) -> None:
    twc = {h["name"]: h for h in scen("troubled-walking-on-clouds")["ai"]["heroes"]}
    assert list(twc) == ["Fiur", "Lord of Air's Guardians"]
    assert twc["Fiur"]["deck"] == {"might": 4}
    assert twc["Fiur"]["army"][0] == {"neutral_army_level": "III"}
    assert twc["Lord of Air's Guardians"]["deck"] == {"magic": 8, "skill": 3}
    spells = scen("troubled-walking-on-clouds")["ai"]["shared_spell_deck"]
    assert [(c["card"], c["count"]) for c in spells] == [
        ("magic-arrow", 2),
        ("lightning-bolt", 1),
        ("chain-lightning", 1),
    ]

    assert scen("dancing-in-water-and-fire")["ai"]["shared_deck"] == {"magic": 5, "might": 2}

    hp = {h["name"]: h for h in scen("hard-place")["ai"]["heroes"]}
    assert hp["First Overlord"]["deck"] == {"might": 3, "magic": 1}
    assert hp["Second Overlord"]["deck"] == {"might": 2, "magic": 2, "skill": 3}
    siege = {e["siege_card"]: e["count"] for e in hp["Second Overlord"]["army"] if "siege_card" in e}
    assert siege == {"Arrow Tower": 1, "Gate": 1, "Wall": 3}

    moe = scen("master-of-the-elements")["ai"]
    assert [h["name"] for h in moe["heroes"]] == [
        "The Lord of Air",
        "The Lord of Earth",
        "The Lord of Fire",
        "The Lord of Water",
    ]
    assert moe["shared_deck"] == {"magic": 4, "might": 3}
    air = moe["heroes"][0]
    assert air["army"][-1]["count"] == 2 and air["army"][-1]["tier"] == "azure"
    assert all(len(h["spell_deck"]) == 2 for h in moe["heroes"])


def test_hard_place_neutral_decks(scen, by_id: dict[str, dict[str, Any]]) -> None:
    keep = scen("hard-place")["neutral_decks_keep"]
    names = {tier: [by_id[i]["name"] for i in ids] for tier, ids in keep.items()}
    assert names == {
        "bronze": ["Rogues", "Zombies", "Wraiths", "Harpies", "Evil Eyes", "Troglodytes", "Sprites"],
        "silver": ["Nomads", "Vampires", "Liches", "Medusas", "Minotaurs", "Energy Elementals"],
        "gold": ["Enchanters", "Dread Knights", "Ghost Dragons", "Manticores", "Black Dragons"],
    }


def test_banned_cards_in_first_two_scenarios(scen, by_id: dict[str, dict[str, Any]]) -> None:
    for sid in CAMPAIGN_ORDER[:2]:
        banned = [r for r in scen(sid)["additional_rules"] if len(r.get("refs", [])) == 12]
        assert len(banned) == 1, sid
        names = {by_id[i]["name"] for i in banned[0]["refs"]}
        assert {"Summon Fire Elemental", "Basic Earth Magic", "Water Magic"} <= names


# ------------------------------------------------------------------ references


def _schemas() -> dict[str, dict[str, Any]]:
    out = {}
    for path in (ROOT / "schemas").glob("*.schema.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        out[schema["$id"].rsplit("/", 1)[1]] = schema
    return out


def _refs(value: Any, node: Any, doc: dict[str, Any], schemas: dict[str, Any], out: list) -> None:
    while isinstance(node, dict) and "$ref" in node and "x-ref" not in node:
        file, _, frag = node["$ref"].partition("#")
        if file:
            doc = schemas[file]
        node = doc
        for part in frag.strip("/").split("/"):
            if part:
                node = node[part]
    if not isinstance(node, dict):
        return
    if "x-ref" in node and isinstance(value, str):
        kinds = node["x-ref"]
        out.append((value, [kinds] if isinstance(kinds, str) else kinds))
    elif isinstance(value, dict):
        for key, sub in value.items():
            if key in node.get("properties", {}):
                _refs(sub, node["properties"][key], doc, schemas, out)
    elif isinstance(value, list) and "items" in node:
        for item in value:
            _refs(item, node["items"], doc, schemas, out)


def test_every_reference_resolves_to_the_right_kind(by_kind, by_id) -> None:
    schemas = _schemas()
    checked = 0
    for kind in ("homm3.scenario", "homm3.campaign"):
        schema = schemas[f"{kind}.schema.json"]
        for record in by_kind[kind]:
            found: list = []
            _refs(record, schema, schema, schemas, found)
            for value, kinds in found:
                assert value in by_id, f"{record['id']}: {value} has no record"
                assert by_id[value]["kind"] in kinds, f"{record['id']}: {value} is {by_id[value]['kind']}"
                checked += 1
    assert checked > 300
