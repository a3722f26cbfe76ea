"""Content tests: HoMM IV Collectible Card & Tile Game records held to seed 001_84a3812162bd4827.txt."""

from __future__ import annotations

from typing import Any

SEED = "001_84a3812162bd4827.txt"


def homm4(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["kind"].startswith("homm4.")]


def test_every_homm4_record_cites_the_seed(records):
    recs = homm4(records)
    assert len(recs) > 50
    for r in recs:
        assert r["source"]["seed"] == SEED, r["id"]
        assert r["id"].startswith("homm4-"), r["id"]


def test_six_factions(by_kind):
    names = [r["name"] for r in by_kind["homm4.faction"]]
    assert names == ["Life", "Order", "Death", "Chaos", "Nature", "Might"]


def test_faction_towns_and_terrains(by_id):
    assert "town" not in by_id["homm4-chaos"]  # the Town Card in the rulebook example is not named
    assert by_id["homm4-chaos"]["town_name"] == "Asylum"  # named in Buying Heroes, no Town record
    assert by_id["homm4-life"]["town"] == "homm4-heaven"
    assert by_id["homm4-might"]["town"] == "homm4-stronghold"
    assert by_id["homm4-death"]["native_terrains"] == ["Volcanic", "Cursed Ground"]
    assert by_id["homm4-order"]["special_terrain"] == "Enchanted Stone"
    assert "spell_school" not in by_id["homm4-might"]


def test_eleven_hero_classes_in_rulebook_order(by_kind, by_id):
    names = [r["name"] for r in by_kind["homm4.hero-class"]]
    assert names == [
        "Knight",
        "Cleric",
        "Death Knight",
        "Necromancer",
        "Lord",
        "Wizard",
        "Rogue",
        "Sorcerer",
        "Ranger",
        "Druid",
        "Barbarian",
    ]
    knight = by_id["homm4-knight"]
    assert knight["faction"] == "homm4-life"
    assert knight["example_starting_skills"] == ["homm4-tactics", "homm4-defense"]


def test_golden_golems_stats(by_id):
    g = by_id["homm4-golden-golems"]
    assert g["name"] == "Golden Golems"
    assert (g["level"], g["melee_attack"], g["ranged_attack"], g["defense"], g["phase"]) == (2, 3, 0, 7, 7)


def test_bandits_and_units_without_numbers(by_kind, by_id):
    assert by_id["homm4-bandits"]["melee_attack"] == 1
    names = {r["name"] for r in by_kind["homm4.unit"]}
    assert names == {
        "Bandits",
        "Orcs",
        "Medusas",
        "Ifrits",
        "Black Dragons",
        "Golden Golems",
        "Halflings",
        "Cyclopes",
        "Evil Eyes",
        "Magi",
        "Fairy Dragons",
        "Crossbowman",
        "Cerberus",
        "Hydra",
        "Titans",
    }
    # The rulebook gives no cost for any unit: none may be invented.
    assert not any("cost" in r for r in by_kind["homm4.unit"])
    for uid in ("homm4-medusas", "homm4-ifrits", "homm4-black-dragons", "homm4-hydra", "homm4-titans"):
        u = by_id[uid]
        for stat in ("melee_attack", "ranged_attack", "defense", "movement", "level", "phase"):
            assert stat not in u, (uid, stat)


def test_errata_units(by_id):
    assert by_id["homm4-titans"]["purchase_requirement"] == "homm4-gem-mine"
    assert "Crystal Mine" in by_id["homm4-titans"]["errata"]
    assert "two" in by_id["homm4-cerberus"]["special_abilities"][0]["effect"]
    assert "three" in by_id["homm4-hydra"]["special_abilities"][0]["effect"]
    assert by_id["homm4-summon-cerberus"]["school"] == "Nature"
    assert by_id["homm4-summon-cerberus"]["summons"] == "homm4-cerberus"


def test_asylum_units_by_level(by_id):
    asylum = by_id["homm4-asylum"]
    assert asylum["faction"] == "homm4-chaos"
    assert asylum["spell_schools"] == ["Chaos", "Nature", "Death"]
    levels = {lv["level"]: lv for lv in asylum["levels"]}
    assert [levels[n]["units"] for n in (1, 2, 3, 4)] == [
        ["homm4-bandits", "homm4-orcs"],
        ["homm4-medusas"],
        ["homm4-ifrits"],
        ["homm4-black-dragons"],
    ]
    assert levels[1]["spell_levels"] == [1]
    assert levels[3]["spell_levels"] == [3, 4, 5]
    assert levels[2]["artifact_categories"] == ["Chaos"]


def test_heaven_university_and_stronghold(by_id):
    (lv,) = by_id["homm4-heaven"]["levels"]
    assert lv["level"] == 4 and lv["skill_cost"] == 2
    assert lv["skills_for_sale"] == ["homm4-tactics", "homm4-life-magic", "homm4-battle"]
    assert by_id["homm4-stronghold"]["spell_schools"] == []
    assert by_id["homm4-stronghold"]["faction"] == "homm4-might"


def test_token_counts_and_pairs(by_kind):
    tokens = {r["token_type"]: r for r in by_kind["homm4.token"]}
    assert {t: r["copies"] for t, r in tokens.items()} == {"Army": 48, "Town": 72, "Object": 180}
    for r in tokens.values():
        assert r["tokens_per_number"] == 2 and r["shades"] == ["light", "dark"] and r["numbered"]
    assert tokens["Army"]["emblem"] == "horse's head" and tokens["Army"]["shape"] == "round"


def test_component_list_matches_tokens(by_kind):
    (cl,) = by_kind["homm4.component-list"]
    counts = {c["name"]: c["count"] for c in cl["components"]}
    assert counts == {
        "Terrain Map Sections": 7,
        "Collectible cards": 120,
        "Object tokens": 180,
        "Town tokens": 72,
        "Army tokens": 48,
        "10-sided die": 1,
    }
    for c in cl["components"]:
        if "kind" in c:
            matching = [r for r in by_kind[c["kind"]] if all(r.get(k) == v for k, v in c["where"].items())]
            assert sum(r.get("copies", 1) for r in matching) == c["count"], c["name"]


def test_magic_skills_and_mana(by_id):
    chaos = by_id["homm4-chaos-magic"]
    assert chaos["spell_school"] == "Chaos"
    assert [(lv["level"], lv["spell_level"]) for lv in chaos["levels"]] == [
        ("Basic", 1),
        ("Advanced", 2),
        ("Expert", 3),
    ]
    assert chaos["levels"][0]["mana"] == 10
    assert by_id["homm4-sorcery"]["effects"] == [{"level": "Basic", "effect": "Adds 10 Mana points.", "mana": 10}]
    assert by_id["homm4-defense"]["primary_skill"] == "homm4-tactics"
    assert by_id["homm4-attack"]["primary_skill"] == "homm4-tactics"
    assert by_id["homm4-alchemists-lab"]["income_cards"] == 1


def test_hero_level_table(by_id):
    t = by_id["homm4-hero-level-changes"]["table"]
    assert t["columns"] == ["Card in the inventory", "Level change"]
    assert [row[1] for row in t["rows"]] == ["+1", "+1", "+2", "+3", "+4", "+5", "-1"]
    assert t["rows"][-1][0] == "One of the Primary Skill Cards matching the Hero's starting Skills"


def test_terrain_tables(by_id):
    native = {row[0]: row for row in by_id["homm4-native-terrains"]["table"]["rows"]}
    assert list(native) == ["Volcanic", "Swamp", "Snow", "Grass/Dirt", "Forest", "Wasteland", "Cursed Ground"]
    assert native["Grass/Dirt"][1:4] == ["Life", "½", "+1"]
    assert native["Cursed Ground"][1:4] == ["Death", "1", "+2"]
    special = {row[0]: row[1] for row in by_id["homm4-special-terrains"]["table"]["rows"]}
    assert special == {
        "Enchanted Stone": "Order",
        "Fields of Glory": "Might",
        "Fields of Life": "Life",
        "Magic Garden": "Nature",
        "Scorched Earth": "Chaos",
    }


def test_turn_summary_and_town_tables(by_id):
    rows = by_id["homm4-turn-summary"]["table"]["rows"]
    phases = list(dict.fromkeys(r[0] for r in rows))
    assert phases == ["1. Income Phase", "2. Purchase Phase", "3. Movement Phase", "4. Closing Phase"]
    assert [r[1] for r in rows if r[0] == "3. Movement Phase"] == ["A", "B", "B1", "B2", "B3"]
    assert len(rows) == 11
    walls = by_id["homm4-town-walls"]
    assert [r[0].split()[0] for r in walls["table"]["rows"]] == ["Undamaged", "Breach", "Sack"]
    assert "10" in walls["caption"]
    assert by_id["homm4-town-upgrade-costs"]["table"]["rows"] == [[1, 2, 2], [2, 3, 3], [3, 4, 4]]
    forces = dict(by_id["homm4-starting-forces"]["table"]["rows"])
    assert forces == {"Hero": 1, "Town": 1, "Level 1 Units": 3, "Level 2 Units": 2, "Level 3 Unit": 1}


def test_edge_labels(by_kind, by_id):
    for r in by_kind["homm4.unit"]:
        assert r["edge_labels"] == ["Swarm", "Protect"]
    for r in by_kind["homm4.town"]:
        assert r["edge_labels"] == ["Breach", "Sack"]
    assert by_id["homm4-alchemists-lab"]["edge_labels"] == ["Unclaimed", "Sold"]
    rows = by_id["homm4-card-edge-labels"]["table"]["rows"]
    assert [(r[0], r[1]) for r in rows] == [
        ("Unit", "Swarm"),
        ("Unit", "Protect"),
        ("Object", "Unclaimed"),
        ("Object", "Sold"),
        ("Town", "Breach"),
        ("Town", "Sack"),
    ]


def _refs(record: dict[str, Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(field, id, allowed kinds) for every cross-reference field used by homm4 records."""
    out = []
    single = {
        "homm4.faction": {"town": ("homm4.town",)},
        "homm4.hero-class": {"faction": ("homm4.faction",)},
        "homm4.town": {"faction": ("homm4.faction",)},
        "homm4.unit": {"faction": ("homm4.faction",), "purchase_requirement": ("homm4.object",)},
        "homm4.secondary-skill": {"primary_skill": ("homm4.primary-skill",)},
        "homm4.spell": {"primary_skill": ("homm4.primary-skill",), "summons": ("homm4.unit",)},
    }
    for field, kinds in single.get(record["kind"], {}).items():
        if field in record:
            out.append((field, record[field], kinds))
    for rid in record.get("example_starting_skills", []):
        out.append(("example_starting_skills", rid, ("homm4.primary-skill", "homm4.secondary-skill")))
    for lv in record.get("levels", []) if record["kind"] == "homm4.town" else []:
        out += [("units", u, ("homm4.unit",)) for u in lv.get("units", [])]
        out += [("skills_for_sale", s, ("homm4.primary-skill",)) for s in lv.get("skills_for_sale", [])]
    return out


def test_every_reference_resolves(records, by_id):
    count = 0
    for r in homm4(records):
        for field, rid, kinds in _refs(r):
            count += 1
            assert rid in by_id, (r["id"], field, rid)
            assert by_id[rid]["kind"] in kinds, (r["id"], field, rid)
    assert count >= 20
