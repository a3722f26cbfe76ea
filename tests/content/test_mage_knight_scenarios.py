"""Mage Knight: The Apocalypse Dragon scenario book, held to seed 002_27974ad6e42770ae.txt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = "002_27974ad6e42770ae.txt"

BOOK_ORDER = [
    "First Reconnaissance",
    "Solo Blitz",
    "For the Council",
    "Against the Apocalypse",
    "Against the Horsemen",
    "Against the Dragon",
    "Apocalypse is Here",
    "The Council versus the Apocalypse",
    "The Fractured Lands",
    "Solo Conquest Challenge",
]


def _scenarios() -> list[dict[str, Any]]:
    data = json.loads((ROOT / "cards" / "mage-knight" / "scenarios.json").read_text(encoding="utf-8"))
    return [r for r in data if r["kind"] == "mk.scenario"]


@pytest.fixture(scope="module")
def scen() -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in _scenarios()}


def _variant(s: dict[str, Any], vtype: str) -> dict[str, Any]:
    (v,) = [v for v in s["variants"] if v["type"] == vtype]
    return v


def _by_players(v: dict[str, Any], field: str) -> dict[int, Any]:
    return {e["players"]: e.get(field) for e in v["setup"]}


def test_scenario_count_and_book_order(by_kind):
    assert len(by_kind["mk.scenario"]) == 10
    assert [s["name"] for s in _scenarios()] == BOOK_ORDER
    pages = [s["page"] for s in _scenarios()]
    assert pages == [22, 24, 24, 26, 28, 31, 34, 38, 40, 41]


def test_every_scenario_cites_the_seed():
    for s in _scenarios():
        assert s["source"]["seed"] == SEED


def test_variant_lists(scen):
    got = {name: [v["type"] for v in s["variants"]] for name, s in scen.items()}
    assert got == {
        "First Reconnaissance": ["cooperative", "solo"],
        "Solo Blitz": ["solo"],
        "For the Council": ["competitive", "cooperative", "solo"],
        "Against the Apocalypse": ["competitive", "cooperative", "solo"],
        "Against the Horsemen": ["competitive", "cooperative", "solo"],
        "Against the Dragon": ["competitive", "cooperative", "solo"],
        "Apocalypse is Here": ["competitive", "cooperative", "solo"],
        "The Council versus the Apocalypse": ["competitive"],
        "The Fractured Lands": ["competitive", "cooperative", "solo"],
        "Solo Conquest Challenge": ["solo"],
    }
    assert sum(len(s["variants"]) for s in scen.values()) == 23


def test_players_by_type(scen):
    for s in scen.values():
        for v in s["variants"]:
            expected = {"min": 1, "max": 1} if v["type"] == "solo" else {"min": 2, "max": 4}
            assert v["players"] == expected, v["name"]
            # one setup entry per supported player count
            if "setup" in v:
                assert [e["players"] for e in v["setup"]] == list(range(expected["min"], expected["max"] + 1))


def test_lengths(scen):
    def rdn(name: str, vtype: str) -> tuple[int, int, int]:
        ln = _variant(scen[name], vtype)["length"]
        return ln["rounds"], ln["days"], ln["nights"]

    assert rdn("First Reconnaissance", "cooperative") == (3, 2, 1)
    assert rdn("First Reconnaissance", "solo") == (4, 2, 2)
    assert rdn("Solo Blitz", "solo") == (4, 2, 2)
    for vt in ("competitive", "cooperative", "solo"):
        assert rdn("For the Council", vt) == (3, 2, 1)
        assert rdn("Against the Apocalypse", vt) == (3, 2, 1)
        assert rdn("Against the Horsemen", vt) == (4, 2, 2)
        assert rdn("Against the Dragon", vt) == (4, 2, 2)
        assert rdn("Apocalypse is Here", vt) == (6, 3, 3)
        assert rdn("The Fractured Lands", vt) == (4, 2, 2)
    assert rdn("The Council versus the Apocalypse", "competitive") == (6, 3, 3)
    assert rdn("Solo Conquest Challenge", "solo") == (6, 3, 3)


def test_countryside_tiles_by_player_count(scen):
    def cs(name: str, vtype: str) -> dict[int, int]:
        return _by_players(_variant(scen[name], vtype), "countryside_tiles")

    assert cs("First Reconnaissance", "cooperative") == {2: 8, 3: 9, 4: 11}
    assert cs("For the Council", "competitive") == {2: 6, 3: 7, 4: 9}
    assert cs("For the Council", "cooperative") == {2: 7, 3: 9, 4: 11}
    assert cs("Against the Apocalypse", "competitive") == {2: 5, 3: 6, 4: 8}
    assert cs("Against the Apocalypse", "cooperative") == {2: 5, 3: 7, 4: 9}
    assert cs("Against the Apocalypse", "solo") == {1: 4}
    assert cs("Against the Horsemen", "cooperative") == {2: 11, 3: 11, 4: 11}
    assert cs("Against the Dragon", "cooperative") == {2: 6, 3: 8, 4: 10}
    assert cs("Apocalypse is Here", "competitive") == {2: 7, 3: 8, 4: 10}
    assert cs("Apocalypse is Here", "cooperative") == {2: 8, 3: 9, 4: 11}
    assert cs("The Council versus the Apocalypse", "competitive") == {2: 7, 3: 9, 4: 12}
    assert cs("The Fractured Lands", "cooperative") == {2: 9, 3: 10, 4: 13}
    assert cs("The Fractured Lands", "solo") == {1: 7}


def test_core_tiles_and_map_shapes(scen):
    v = _variant(scen["Apocalypse is Here"], "competitive")
    assert _by_players(v, "core_city_tiles") == {2: 2, 3: 2, 4: 2}
    assert _by_players(v, "core_non_city_tiles") == {2: 1, 3: 2, 4: 3}
    assert _by_players(v, "map_shape") == {2: "wedge", 3: "wedge", 4: "open"}
    assert _by_players(v, "map_columns_limit") == {2: None, 3: None, 4: 4}
    cva = _variant(scen["The Council versus the Apocalypse"], "competitive")
    assert _by_players(cva, "map_shape") == {2: "wedge", 3: "wedge", 4: "fully-open"}
    assert _by_players(cva, "core_city_tiles") == {2: 3, 3: 3, 4: 3}
    horsemen = _variant(scen["Against the Horsemen"], "solo")
    assert _by_players(horsemen, "map_shape") == {1: "special"}
    assert _by_players(horsemen, "core_city_tiles") == {1: 4}
    assert _by_players(horsemen, "core_non_city_tiles") == {1: 4}


def test_city_levels(scen):
    def levels(name: str, vtype: str) -> dict[int, list]:
        v = _variant(scen[name], vtype)
        return {e["players"]: [c.get("level") for c in e["cities"]] for e in v["setup"]}

    assert levels("Solo Blitz", "solo") == {1: [6]}
    assert levels("The Council versus the Apocalypse", "competitive") == {2: [4, 4, 4], 3: [5, 5, 5], 4: [6, 6, 6]}
    assert levels("The Fractured Lands", "competitive")[3] == [1, 2]
    assert levels("The Fractured Lands", "cooperative")[4] == [2, 4]
    assert levels("The Fractured Lands", "solo") == {1: [2]}
    assert levels("Against the Horsemen", "competitive") == {2: [1], 3: [1], 4: [1]}
    cities = _variant(scen["The Council versus the Apocalypse"], "competitive")["setup"][0]["cities"]
    assert [(c["color"], c.get("faction")) for c in cities] == [
        ("blue", "council-of-the-void"),
        ("white", None),
        ("red", "apocalypse-cult"),
    ]


def test_dragon_and_horseman_levels(scen):
    def lv(name: str, vtype: str, field: str) -> dict[int, int]:
        return _by_players(_variant(scen[name], vtype), field)

    assert lv("Against the Dragon", "competitive", "dragon_head_level") == {2: 3, 3: 4, 4: 5}
    assert lv("Against the Dragon", "cooperative", "dragon_head_level") == {2: 5, 3: 6, 4: 7}
    assert lv("Against the Dragon", "solo", "dragon_head_level") == {1: 4}
    assert lv("Apocalypse is Here", "competitive", "dragon_head_level") == {2: 4, 3: 5, 4: 6}
    assert lv("Apocalypse is Here", "cooperative", "dragon_head_level") == {2: 6, 3: 7, 4: 8}
    assert lv("Apocalypse is Here", "solo", "dragon_head_level") == {1: 5}
    assert lv("Apocalypse is Here", "competitive", "horseman_level") == {2: 5, 3: 5, 4: 5}
    assert lv("Apocalypse is Here", "cooperative", "horseman_level") == {2: 6, 3: 6, 4: 6}
    assert lv("Apocalypse is Here", "solo", "horseman_level") == {1: 4}
    assert lv("Against the Horsemen", "competitive", "horseman_level") == {2: 2, 3: 3, 4: 4}
    assert lv("Against the Horsemen", "cooperative", "horseman_level") == {2: 4, 3: 5, 4: 6}
    assert lv("Against the Horsemen", "solo", "horseman_level") == {1: 2}


def test_horseman_reveal_table(scen):
    table = scen["Apocalypse is Here"]["horseman_reveal"]
    assert [(r["horseman"], r["start_of_round"]) for r in table] == [(1, 2), (2, 3), (3, 4), (4, 5)]
    assert [r["tiles_revealed"]["4"] for r in table] == [2, 4, 6, 8]
    assert [r["tiles_revealed"]["3"] for r in table] == [1, 3, 5, 7]
    assert [r["tiles_revealed"]["1"] for r in table] == [1, 2, 4, 6]


def test_required_tiles(scen):
    dragon = _variant(scen["Against the Dragon"], "solo")["setup"][0]["tile_requirements"]
    assert dragon == [{"map_tiles": ["core-non-city-tile-3"]}]
    cva = {
        e["players"]: e["tile_requirements"]
        for e in _variant(scen["The Council versus the Apocalypse"], "competitive")["setup"]
    }
    assert [[r.get("count") for r in cva[n]] for n in (2, 3, 4)] == [[None, 4, 2], [None, 5, 3], [None, 6, 5]]
    heroes = {
        h["hero"]: [c["one_of"] for c in h.get("required_map_tiles", [])]
        for h in scen["Solo Conquest Challenge"]["hero_options"]
    }
    assert heroes["coral"] == [
        ["countryside-tile-7"],
        ["countryside-tile-9"],
        ["countryside-tile-16"],
        ["countryside-tile-17"],
    ]
    assert heroes["wolfhawk"][:2] == [
        ["countryside-tile-7", "countryside-tile-9"],
        ["countryside-tile-6", "countryside-tile-10"],
    ]
    assert heroes["goldyx"] == [["countryside-tile-4"], ["countryside-tile-9"], ["countryside-tile-11"]]
    assert heroes["arythea"] == []


def test_solo_conquest_challenge_skills(scen):
    skills = [(h["hero"], h["set_aside_skill"]) for h in scen["Solo Conquest Challenge"]["hero_options"]]
    assert skills == [
        ("arythea", "Power of Pain"),
        ("goldyx", "Glittering Fortune"),
        ("norowas", "Bonds of Loyalty"),
        ("tovak", "Shield Mastery"),
        ("wolfhawk", "Know Your Prey"),
        ("krang", "Puppet Master"),
        ("braevalar", "Shapeshift"),
        ("coral", "Treasure Hunter"),
    ]


def test_scenario_end(scen):
    for name in ("For the Council", "The Fractured Lands"):
        for v in scen[name]["variants"]:
            assert v["scenario_end"] == {"end_of_day": 2}
    comp = _variant(scen["Against the Apocalypse"], "competitive")["scenario_end"]["conditions"]
    coop = _variant(scen["Against the Apocalypse"], "cooperative")["scenario_end"]["conditions"]
    solo = _variant(scen["Against the Apocalypse"], "solo")["scenario_end"]["conditions"]
    assert [c.get("at_least_players_plus") for c in comp] == [1, 1, None]
    assert [c.get("at_least_players_plus") for c in coop] == [2, 2, None]
    assert solo[0]["at_least"] == 2
    for s in scen.values():
        for v in s["variants"]:
            end = v.get("scenario_end", {})
            if v["type"] == "solo" and "final_turn" in end:
                assert end["final_turn"] == "you-only", v["name"]


def test_scoring_numbers(scen):
    def pts(name: str, vtype: str) -> list[int]:
        return [i["points"] for i in _variant(scen[name], vtype)["scoring"].get("items", []) if "points" in i]

    assert pts("Against the Horsemen", "competitive") == [6, 6]
    assert pts("Against the Horsemen", "cooperative") == [4, 6, 15, 30, 1, 5]
    assert pts("Against the Dragon", "solo") == [5, 15, 30, 1, 5]
    assert pts("Apocalypse is Here", "cooperative") == [3, 5, 5, 15, 30, 1, 5]
    assert pts("Against the Apocalypse", "cooperative") == [3, 5, 15, 30, 1, 5]
    assert pts("The Council versus the Apocalypse", "competitive") == [24, 12, 24, 12]
    assert pts("For the Council", "solo") == [-10]
    titles = [
        i["title"] for i in _variant(scen["Against the Apocalypse"], "competitive")["scoring"]["items"] if "title" in i
    ]
    assert titles == ["Greatest Restorer", "Greatest Ascender"]
    for v in scen["The Fractured Lands"]["variants"]:
        assert v["scoring"]["greatest_quester"] is True and v["scoring"]["city_scoring"] is False


def test_blitz_rules(scen):
    blitz = {name for name, s in scen.items() if "blitz_rules" in s}
    assert blitz == {
        "Solo Blitz",
        "Against the Apocalypse",
        "Against the Horsemen",
        "Against the Dragon",
        "The Fractured Lands",
    }
    assert scen["Solo Blitz"]["blitz_rules"] == {
        "start_fame": 1,
        "start_reputation": 2,
        "start_reputation_modifier": 1,
        "fame_per_level": 1,
        "extra_source_dice": 1,
        "extra_units_in_offer": 1,
    }


def test_cooperative_and_solo_use_one_dummy(scen):
    for s in scen.values():
        for v in s["variants"]:
            if v["type"] == "competitive":
                assert "dummy_players" not in v, v["name"]
            elif "setup" in v:
                assert v["dummy_players"] == 1 and v["remove_competitive_cards"] is True, v["name"]


def _ids(obj: Any):
    """Every (schema field, value) pair that is a cross-reference in a scenario record."""
    if isinstance(obj, dict):
        for key, val in obj.items():
            if key in ("hero", "faction") and isinstance(val, str):
                yield key, val
            elif key in ("map_tiles", "with_any_site", "without_sites", "one_of") and isinstance(val, list):
                for x in val:
                    yield key, x
            elif key == "references":
                for group, ids in val.items():
                    for x in ids:
                        yield group, x
            else:
                yield from _ids(val)
    elif isinstance(obj, list):
        for x in obj:
            yield from _ids(x)


KIND_OF = {
    "hero": "mk.hero",
    "heroes": "mk.hero",
    "faction": "mk.faction",
    "factions": "mk.faction",
    "map_tiles": "mk.map-tile",
    "one_of": "mk.map-tile",
    "with_any_site": "mk.site",
    "without_sites": "mk.site",
    "sites": "mk.site",
    "dragon_heads": "mk.dragon-head",
    "horsemen": "mk.horseman",
    "enemies": "mk.enemy",
    "quests": "mk.quest",
    "tokens": "mk.token",
}


def test_every_reference_resolves(by_id):
    seen = 0
    for s in _scenarios():
        for field, ref in _ids(s):
            assert ref in by_id, f"{s['id']}: {field} -> {ref} has no record"
            assert by_id[ref]["kind"] == KIND_OF[field], f"{s['id']}: {ref} is {by_id[ref]['kind']}"
            seen += 1
    assert seen > 100


def test_dragon_scenarios_name_all_heads_and_horsemen(scen):
    heads = ["war", "control", "death", "famine", "pestilence"]
    assert scen["Against the Dragon"]["references"]["dragon_heads"] == heads
    assert scen["Apocalypse is Here"]["references"]["dragon_heads"] == heads
    assert len(scen["Apocalypse is Here"]["references"]["horsemen"]) == 4
    assert len(scen["Against the Horsemen"]["references"]["horsemen"]) == 4
