"""Mage Knight: The Apocalypse Dragon (seed 002): records held to the rulebook's facts.

Scenario records (cards/mage-knight/scenarios.json) are tested elsewhere.
"""

from __future__ import annotations

from typing import Any

import pytest

SEED = "002_27974ad6e42770ae.txt"


def _kind(by_kind: dict[str, list[dict[str, Any]]], kind: str) -> list[dict[str, Any]]:
    return by_kind.get(kind, [])


def _components(by_id: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    clist = by_id["apocalypse-dragon-component-list"]
    return {line["name"]: line for line in clist["components"]}


# --- component list -----------------------------------------------------------


def test_component_counts_match_the_box_lists(by_id):
    lines = _components(by_id)
    expected = {
        "Quest cards": 30,
        "Quest markers": 31,
        "Faction tokens": 24,
        "Faction tokens: The Apocalypse Cult": 12,
        "Faction tokens: the Council of the Void": 12,
        "Possessed enemy tokens": 12,
        "Destroyed Site tokens": 16,
        "Horsemen cards": 4,
        "Horsemen enemy tokens": 4,
        "large Apocalypse Dragon tokens, one per head": 5,
        "Neutral Shield tokens": 10,
        "starting Quest cards (marked *)": 9,
        "Basic Action cards": 16,
        "Skill tokens": 11,
        "Shield tokens": 20,
    }
    for name, count in expected.items():
        assert lines[name]["count"] == count, name


def test_complete_component_lines_match_record_copies(by_kind, by_id):
    for line in by_id["apocalypse-dragon-component-list"]["components"]:
        if line.get("transcription") != "complete":
            continue
        where = line.get("where", {})
        recs = [r for r in _kind(by_kind, line["kind"]) if all(r.get(k) == v for k, v in where.items())]
        assert sum(r.get("copies", 1) for r in recs) == line["count"], line["name"]


# --- quests ---------------------------------------------------------------------


def test_numbered_quests_from_the_faq(by_kind):
    numbered = {q["number"]: q["name"] for q in _kind(by_kind, "mk.quest") if "number" in q}
    assert numbered == {
        5: "Prove Yourself",
        7: "Random Objects",
        10: "Free Wine",
        12: "A Very Personal Quest",
        13: "The Burned Monastery",
        15: "Under Siege",
    }


def test_quest_names_and_known_types(by_kind, by_id):
    names = {q["name"] for q in _kind(by_kind, "mk.quest")}
    assert {"Tomb of the Lost King", "Magic Overload", "The Child Seer"} <= names
    assert len(names) == 9
    assert by_id["tomb-of-the-lost-king"]["type"] == "independent"
    assert by_id["magic-overload"]["type"] == "collective"
    # No other quest type is stated by the seed: nothing may be guessed.
    typed = {q["id"] for q in _kind(by_kind, "mk.quest") if "type" in q}
    assert typed == {"tomb-of-the-lost-king", "magic-overload"}


def test_quest_steps_are_ascending_and_free_wine_has_option_1a(by_kind, by_id):
    for q in _kind(by_kind, "mk.quest"):
        numbers = [s["number"] for s in q.get("steps", [])]
        assert numbers == list(range(1, len(numbers) + 1)), q["id"]
    assert [s["number"] for s in by_id["tomb-of-the-lost-king"]["steps"]] == [1, 2, 3]
    step1 = by_id["free-wine"]["steps"][0]
    assert [o["letter"] for o in step1["options"]] == ["a"]
    assert by_id["the-child-seer"]["steps"][0]["places_marker"] is True


def test_quest_count_is_partial_within_thirty(by_kind):
    quests = _kind(by_kind, "mk.quest")
    assert len(quests) <= 30
    numbers = [q["number"] for q in quests if "number" in q]
    assert len(numbers) == len(set(numbers))


def test_every_quest_marker_names_an_existing_quest(by_kind, by_id):
    quests = _kind(by_kind, "mk.quest")
    numbers = {q["number"] for q in quests if "number" in q}
    markers = _kind(by_kind, "mk.quest-marker")
    assert len(markers) == 2
    for m in markers:
        assert "quest" in m or "quest_card" in m, m["id"]
        if "quest" in m:
            assert m["quest"] in numbers, m["id"]
        if "quest_card" in m:
            assert by_id[m["quest_card"]]["kind"] == "mk.quest", m["id"]
    assert by_id["quest-marker-7-x"]["quest"] == 7
    assert by_id["quest-marker-7-x"]["label"] == "7.X"
    assert by_id["quest-marker-the-child-seer"]["quest_card"] == "the-child-seer"


# --- factions and faction tokens ----------------------------------------------


def test_two_factions_of_twelve_tokens(by_kind):
    factions = {f["id"]: f for f in _kind(by_kind, "mk.faction")}
    assert set(factions) == {"apocalypse-cult", "council-of-the-void"}
    assert factions["apocalypse-cult"]["name"] == "Apocalypse Cult"
    assert factions["council-of-the-void"]["name"] == "Council of the Void"
    assert [factions[k]["token_count"] for k in sorted(factions)] == [12, 12]


def test_scroll_of_seeking_is_the_only_named_faction_token(by_kind):
    tokens = _kind(by_kind, "mk.faction-token")
    assert [t["name"] for t in tokens] == ["Scroll of Seeking"]
    # The seed gives neither its faction nor its effect.
    assert "faction" not in tokens[0] and "effect" not in tokens[0]
    assert "oasis" in tokens[0]["faq"]


# --- possessed enemies ----------------------------------------------------------


def test_possessed_enemy_copies_from_the_quick_reference(by_kind):
    tokens = sorted(_kind(by_kind, "mk.possessed-enemy"), key=lambda t: t["reference_order"])
    assert [t["reference_order"] for t in tokens] == list(range(1, 10))
    assert [t.get("copies", 1) for t in tokens] == [1, 1, 2, 1, 3, 1, 1, 1, 1]
    assert sum(t.get("copies", 1) for t in tokens) == 12
    for t in tokens:
        assert t["reward"] == "faction-token"
        # The modifier values are pictures in the rulebook: none may be invented.
        for field in ("armor_modifier", "attack_modifier", "psychic_attack", "fame_modifier"):
            assert field not in t


def test_enemy_colours(by_kind):
    colours = {e["colour"]: e["name"] for e in _kind(by_kind, "mk.enemy")}
    assert colours == {
        "green": "Green Enemy",
        "brown": "Brown Enemy",
        "purple": "Purple Enemy",
        "red": "Red Enemy",
        "white": "White Enemy",
        "gray": "Gray Enemy",
    }


# --- the Apocalypse Dragon and the Horsemen -------------------------------------


def test_five_dragon_heads(by_kind, by_id):
    heads = _kind(by_kind, "mk.dragon-head")
    assert [h["name"] for h in heads] == ["War", "Control", "Death", "Famine", "Pestilence"]
    assert all(h["abilities"] == ["Arcane Immunity"] for h in heads)
    assert {h["id"]: h.get("mana") for h in heads if h["id"] != "control"} == {
        "war": "red",
        "death": "blue",
        "famine": "white",
        "pestilence": "green",
    }
    control = by_id["control"]
    assert control["attackable"] is False
    assert "fame_per_level" not in control
    summon = [lv["level"] for lv in control["levels"] if "summon" in lv["effect"]]
    bonus = [lv["level"] for lv in control["levels"] if "bonus" in lv["effect"]]
    assert summon == [3, 7, 11] and bonus == [4, 8, 12]
    assert all(by_id[h]["fame_per_level"] == 1 for h in ("war", "death", "famine", "pestilence"))


def test_four_horsemen_one_per_non_control_head(by_kind, by_id):
    horsemen = _kind(by_kind, "mk.horseman")
    assert len(horsemen) == 4
    assert sorted(h["head"] for h in horsemen) == ["death", "famine", "pestilence", "war"]
    for h in horsemen:
        assert by_id[h["head"]]["kind"] == "mk.dragon-head"
        assert h["reward_faction"] == "apocalypse-cult"
        assert by_id[h["token"]]["copies"] == 4
        assert "levels" not in h  # per-level values are printed on the cards, not in the seed


# --- sites, tokens, tiles, hero -------------------------------------------------


def test_ziggurat_and_pyramid_floors(by_id):
    zig = by_id["ziggurat"]["floors"]
    assert [f["enemy"] for f in zig] == ["green-enemy", "purple-enemy", "brown-enemy"]
    assert [f["trap_dice"] for f in zig] == [3, 2, 1]
    assert zig[0]["traps"] == [{"mana": "red", "element": "fire", "attack": 2}]
    assert "Two random mana crystals" in zig[0]["reward"]
    pyr = by_id["pyramid"]["floors"]
    assert [f["enemy"] for f in pyr] == ["gray-enemy", "white-enemy", "red-enemy"]
    assert [f["trap_dice"] for f in pyr] == [3, 2, 1]
    for site in ("ziggurat", "pyramid"):
        assert by_id[site]["categories"] == ["adventure"]
        assert "2 Fame" in by_id[site]["scoring"]


def test_quest_site_icons_and_inhabited_sites(by_kind):
    sites = _kind(by_kind, "mk.site")
    icons = [s["name"] for s in sites if s.get("quest_icon")]
    assert icons == [
        "Village",
        "City",
        "Mage Tower",
        "Crystal Mine",
        "Keep",
        "Magical Glade",
        "Monastery",
        "Dungeon",
        "Tomb",
        "Refugee Camp",
        "Oasis",
    ]
    inhabited = {s["id"] for s in sites if "inhabited" in s.get("categories", [])}
    assert inhabited == {"village", "monastery", "keep", "mage-tower", "city", "oasis", "refugee-camp"}
    fortified = {s["id"] for s in sites if "fortified" in s.get("categories", [])}
    assert fortified == {"keep", "mage-tower", "city"}


def test_new_map_tiles(by_kind):
    new = [t for t in _kind(by_kind, "mk.map-tile") if t.get("expansion") == "the-apocalypse-dragon"]
    assert sorted((t["tile_type"], t["number"]) for t in new) == [
        ("core-non-city", 11),
        ("core-non-city", 12),
        ("countryside", 15),
        ("countryside", 16),
        ("countryside", 17),
    ]
    ziggurat_tiles = sorted(t["number"] for t in _kind(by_kind, "mk.map-tile") if "ziggurat" in t.get("sites", []))
    assert ziggurat_tiles == [16, 17]
    for t in new:
        assert t["colour"] == ("green" if t["tile_type"] == "countryside" else "brown")


def test_tokens_and_coral(by_id):
    assert by_id["destroyed-site-token"]["copies"] == 16
    assert by_id["neutral-shield-token"]["copies"] == 10
    assert by_id["score-marker"]["copies"] == 8
    coral = by_id["coral"]
    skills = [c["name"] for c in coral["cards_and_skills"] if c["type"] == "skill"]
    assert skills == ["Coordinated Attack", "Combat Healer", "Commandeer Vessel", "Treasure Hunter"]
    assert [c["name"] for c in coral["cards_and_skills"] if c["type"] == "basic-action"] == ["Quick-Witted"]
    assert "+3 Armor" in coral["city_ruler"]


# --- references and sources -----------------------------------------------------

REF_FIELDS = {
    "mk.horseman": {"head": "mk.dragon-head", "token": "mk.token", "reward_faction": "mk.faction"},
    "mk.quest-marker": {"quest_card": "mk.quest"},
    "mk.faction-token": {"faction": "mk.faction"},
}


@pytest.mark.parametrize("kind", sorted(REF_FIELDS))
def test_single_references_resolve(by_kind, by_id, kind):
    for rec in _kind(by_kind, kind):
        for field, target in REF_FIELDS[kind].items():
            if field in rec:
                assert by_id[rec[field]]["kind"] == target, (rec["id"], field)


def test_list_references_resolve(by_kind, by_id):
    for tile in _kind(by_kind, "mk.map-tile"):
        for site in tile.get("sites", []):
            assert by_id[site]["kind"] == "mk.site", tile["id"]
    for site in _kind(by_kind, "mk.site"):
        for floor in site.get("floors", []):
            assert by_id[floor["enemy"]]["kind"] == "mk.enemy", site["id"]
    for quest in _kind(by_kind, "mk.quest"):
        for step in quest.get("steps", []):
            for part in [step, *step.get("options", [])]:
                for site in part.get("sites", []):
                    assert by_id[site]["kind"] == "mk.site", quest["id"]


def test_all_records_cite_seed_002(records):
    mk = [r for r in records if r["kind"].startswith("mk.") and r["kind"] != "mk.scenario"]
    assert len(mk) >= 70
    assert all(r["source"]["seed"] == SEED for r in mk)


def test_heroes_named_by_the_variants(by_kind, by_id):
    heroes = {h["id"]: h for h in _kind(by_kind, "mk.hero")}
    assert set(heroes) == {"arythea", "goldyx", "norowas", "tovak", "wolfhawk", "krang", "braevalar", "coral"}
    solo_skills = {
        "arythea": "Power of Pain",
        "goldyx": "Glittering Fortune",
        "norowas": "Bonds of Loyalty",
        "tovak": "Shield Mastery",
        "wolfhawk": "Know Your Prey",
        "krang": "Puppet Master",
        "braevalar": "Shapeshift",
        "coral": "Treasure Hunter",
    }
    for hero, skill in solo_skills.items():
        assert skill in [c["name"] for c in heroes[hero]["cards_and_skills"] if c["type"] == "skill"], hero
    assert heroes["wolfhawk"]["expansion"] == "the-lost-legion"
    assert heroes["braevalar"]["expansion"] == "shades-of-tezla"
    assert heroes["krang"]["expansion"] == "krang"
    assert [h for h in heroes.values() if h.get("expansion") == "the-apocalypse-dragon"] == [heroes["coral"]]
