"""Facts corrected for issue 18, each held to the line of the rulebook it rests on.

Each case quotes a seed line: the test finds it in the seed file (skipped when the seeds are not on
this machine: set PNP_SEEDS to their folder) and checks that the record says what the line says.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = Path(os.environ.get("PNP_SEEDS", "/work/shared/seeds"))
H3, H3_TOKENS, H4, MK = (
    "000_6347cdb41225c97f.txt",
    "004_a850f7203ac9cad0.txt",
    "001_84a3812162bd4827.txt",
    "002_27974ad6e42770ae.txt",
)


def seed_has(seed: str, line: str) -> None:
    path = SEEDS / seed
    if not path.is_file():
        pytest.skip(f"seed {seed} not on this machine (set PNP_SEEDS)")
    assert line in path.read_text(encoding="utf-8"), f"{seed} does not print: {line!r}"


def seed_text(seed: str) -> str:
    path = SEEDS / seed
    if not path.is_file():
        pytest.skip(f"seed {seed} not on this machine (set PNP_SEEDS)")
    return path.read_text(encoding="utf-8")


def test_elemental_conflux_recruits_one_unit_in_total(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3, "You can Recruit one of these units if you pay its Recruitment cost.")
    rule = by_id["elemental-conflux"]["rule"]
    assert "one of the Elementals drawn (one in total)" in rule
    assert "you may Recruit it" not in rule  # the old reading: one per Dwelling


def test_ability_note_names_no_expert_card(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(
        H3,
        "Basic Fire Magic, Basic Air Magic, Basic Water Magic, Basic Earth Magic, Fire Magic, Air Magic, Water Magic, and Earth Magic.",
    )
    assert not re.search(r"\bExpert\b", json.dumps(by_id["conflux-component-list"]))
    line = next(c for c in by_id["conflux-component-list"]["components"] if c["name"] == "Ability card")
    assert "Basic Fire / Water / Air / Earth Magic" in line["note"]


def test_black_cube_says_what_triggers_a_retaliation(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3_TOKENS, "If a unit survives an attack by an adjacent unit, it attacks back.")
    effect = by_id["black-cube"]["effect"]
    assert "survives an attack by an adjacent unit attacks back" in effect
    assert "only once per Combat Round" in effect


def test_faction_cube_gives_the_activation_order(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(
        H3_TOKENS,
        "Units activate once per Combat Round in descending Initiative order; on a tie, alternate attacker and defender, starting with the attacker.",
    )
    effect = by_id["faction-cube"]["effect"]
    assert "highest Initiative first" in effect
    assert "attacker and defender alternate, the attacker first" in effect


def test_air_elementals_name_is_a_marked_inference(by_id: dict[str, dict[str, Any]]) -> None:
    text = seed_text(H3) + seed_text(H3_TOKENS)
    assert "Air Elementals" not in text and "Fire Elementals" in text
    assert by_id["air-elementals"]["inferred"] == ["name"]
    assert "inferred" not in by_id["fire-elementals"]


def test_luna_has_no_faction(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3, "These tokens are used instead of Luna's Specialty cards on the Battlefield expansion's board.")
    assert "Luna" in seed_text(H3) and not re.search(r"Luna[^.\n]*(Conflux faction|faction)", seed_text(H3))
    assert "faction" not in by_id["luna"]


def test_campaign_armies_name_no_faction_deck(records: list[dict[str, Any]]) -> None:
    seed_has(H3, "Fiur's Army: Level III Neutral Army, a Pack of Storm Elementals, a Few Energy Elementals.")
    text = json.dumps([r for r in records if r["kind"] in ("homm3.scenario", "homm3.campaign")])
    assert '"deck": "faction"' not in text
    assert '"deck": "neutral"' in text  # tier-named Neutral Unit cards keep their deck


def test_homm4_example_town_card_is_not_named(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(
        H4,
        "a Knight Hero, whose Faction is Life, cannot be bought in the Town of Asylum, which belongs to the Chaos Faction.",
    )
    seed_has(
        H4,
        "when the Town Card shown in the illustration above is Level 1, a Hero who visits this Town can learn Level 1 Spells of Chaos, Nature and Death.",
    )
    town = by_id["homm4-asylum"]
    assert town["name"] == "Chaos · Nature · Death Town"  # no editorial name, no bare "Town" (issue 28)
    assert "town_type" not in town
    assert town["inferred"] == ["faction"]


def test_edge_label_table_names_each_labels_section(by_id: dict[str, dict[str, Any]]) -> None:
    text = seed_text(H4)
    table = by_id["homm4-card-edge-labels"]["table"]
    assert "Rulebook section" not in table["columns"]  # issue 28: kept in the source note, not printed
    note = by_id["homm4-card-edge-labels"]["source"]["note"]
    for row in table["rows"]:
        sections = note.split(f" {row[1]}: ", 1)[1].split(".")[0].split(", ")
        for section in sections:
            assert f"\n{section}\n" in text, section
    seed_has(H4, 'turn it sideways so that you can read the word "Swarm" on it.')
    seed_has(H4, 'Object Cards have a "Sold" label on their side.')


def test_horsemen_are_named_by_their_heads(by_kind: dict[str, list[dict[str, Any]]]) -> None:
    # issue 28 round 3b: the page-11 labels name the four Horsemen and l.1479 / l.1553 link each to its head
    seed_has(MK, "4 Horsemen cards")
    seed_has(MK, "War\nFamine Death Pestilence\nDestroyed Sites")
    horsemen = by_kind["mk.horseman"]
    assert len(horsemen) == 4
    assert {h["name"] for h in horsemen} == {"War", "Death", "Famine", "Pestilence"}
    assert all(h["name"].lower() == h["head"] and "inferred" not in h for h in horsemen)


def test_coral_faq_includes_improve_fate_and_change_fate(by_id: dict[str, dict[str, Any]]) -> None:
    text = seed_text(MK)
    faq = text[text.index("\nFAQ\nCoral\n") :]
    assert faq.index("Improve Fate & Change Fate") < faq.index("Possessed Enemies")
    seed_has(MK, "The card you discard may not be a wound.")
    assert by_id["coral"]["faq"] == [
        {"topic": "Improve Fate & Change Fate", "answer": "The card you discard cannot be a Wound."}
    ]


def test_elemental_tiles_name_the_section_not_a_remark(by_kind: dict[str, list[dict[str, Any]]]) -> None:
    seed_has(H3, "All spells from that School of Magic that are cast by a Hero on that tile have their increased by 1.")
    effects = [t["effect"] for t in by_kind["homm3.map-tile"] if "effect" in t]
    assert len(effects) == 8
    # round 3b: the lost value is read as Power and marked as the kit's reading; the section is in the source note
    assert all("+1 Power (kit's reading of a symbol)" in e and "which one" not in e for e in effects)


def test_rule_records_cite_sections_the_seeds_print(by_kind: dict[str, list[dict[str, Any]]]) -> None:
    rules = [r for kind in ("homm3.rule", "homm4.rule", "mk.rule") for r in by_kind.get(kind, [])]
    assert len(rules) >= 18
    for rule in rules:
        assert rule["source"]["section"] in seed_text(rule["source"]["seed"]), rule["id"]


def test_higher_level_cost_table_numbers(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(MK, "9 points, or 7 points and a crystal of the")
    seed_has(MK, "A crystal of any basic color 3 points")
    seed_has(MK, "♦ Then, you have 6 Influence per level to spend on")
    rows = {row[0]: row[1:] for row in by_id["mk-rule-higher-level"]["table"]["rows"]}
    assert rows["Advanced Action"] == ["Character level +2", "6 per card beyond the free ones"]
    assert rows["Spells"] == ["Character level", "9, or 7 and a crystal of the matching colour"]
    assert rows["Artifacts"] == ["Character level -1", "12"]
    assert rows["Faction tokens (if used)"] == ["Character level -2", "3"]
    assert rows["A crystal of any basic colour"] == ["-", "3"]


def test_greatest_quester_numbers(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(MK, "the most quest points gets 3 extra Fame for being the")
    seed_has(MK, "Greatest Quester (1 if tied).")
    points = " ".join(by_id["mk-rule-greatest-quester"]["points"])
    assert "1 Fame per quest point" in points and "gains 3 Fame" in points and "(1 if tied)" in points


def test_homm4_errata_numbers(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(
        H4,
        "For tournaments, the size is 60 cards in the deck, or 10 cards for each Terrain Map Section used in the game",
    )
    seed_has(H4, "In fact, it should be a Gem Mine.")
    points = " ".join(by_id["homm4-rule-errata"]["points"])
    assert "60 cards" in points and "10 cards for each Terrain Map Section" in points and "Gem Mine" in points


def _texts(node: Any) -> list[str]:
    """Every `text` of a record, however deep (rules, notes, events)."""
    if isinstance(node, dict):
        own = [node["text"]] if isinstance(node.get("text"), str) else []
        return own + [t for value in node.values() for t in _texts(value)]
    if isinstance(node, list):
        return [t for value in node for t in _texts(value)]
    return []


@pytest.mark.parametrize("rid", ["troubled-walking-on-clouds", "dancing-in-water-and-fire"])
def test_forbidden_cards_rule_names_all_twelve_cards(rid: str, by_id: dict[str, dict[str, Any]]) -> None:
    line = (
        "You cannot use the following cards: Summon Fire Elemental, Summon Air Elemental, Summon Earth Elemental, "
        "Summon Water Elemental, Basic Fire Magic, Basic Air Magic, Basic Water Magic, Basic Earth Magic, "
        "Fire Magic, Air Magic, Water Magic, and Earth Magic."
    )
    seed_has(H3, line)
    rule = next(t for t in _texts(by_id[rid]) if t.startswith("You cannot use these cards:"))
    names = re.findall(r"(?:Summon \w+ Elemental|Basic \w+ Magic|(?<!Basic )\b(?:Fire|Air|Water|Earth) Magic)", line)
    assert len(names) == 12
    assert all(name in rule for name in names)
    assert "the four Summon Elemental spells" not in rule  # the old summary named no card


def test_elemental_damage_names_defense_from_the_combat_tokens_guide(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3, "it ignores the unit's .")  # the rulebook's line lost its icon
    seed_has(H3_TOKENS, "the damage works like Spell damage and ignores the target's Defense.")
    rule = by_id["homm3-rule-elemental-damage"]
    assert "ignores the target's Defense" in rule["points"][0]
    assert "see_rulebook" not in rule
    assert rule["source"]["seed"] == H3_TOKENS


def test_banner_icon_rule_keeps_no_transcription_remark(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(
        H3, "gain 2 of the banner-with-star icon (the printed book shows this icon but does not name it in the text)"
    )
    texts = _texts(by_id["master-of-the-elements"])
    banner = next(t for t in texts if "{homm3-banner-star}" in t)  # round 3b: the symbol, drawn
    assert "does not name" not in banner and banner.startswith("Each time you defeat an AI Enemy Army, gain 2")


def test_tower_tiles_reading_is_a_source_note(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3, "Tower (F1–F3), Fortress (F13–F15), and Rampart (F10–F12).")
    seed_has(H3, "Tower (#F1–#F3, #F7)")
    record = by_id["troubled-walking-on-clouds"]
    assert "#F1–#F3" in record["source"]["note"]
    assert "printed as" not in json.dumps(record["map"], ensure_ascii=False)


def test_horsemen_map_diagram_page(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(MK, "Against the Horsemen, Overview 28")
    seed_has(MK, "4 City tiles face down, as shown in the diagram.")
    record = by_id["against-the-horsemen"]
    assert record["page"] == 28
    assert not any("diagram" in note for note in record["setup_notes"])  # the sheet points to page 28 once


def _tower_pool(record: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(record["map"], ensure_ascii=False)
    assert "tile-hash-f1" in text
    pools = [
        pool
        for group in record["map"]["tiles"]
        for pick in group.get("picks", [])
        for pool in pick.get("pools", [])
        if pool.get("faction") == "tower"
    ]
    assert len(pools) == 1
    return pools[0]


def test_scenario_1_prints_the_tower_tiles_own_codes(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3, "2 × random tile from Castle (F3, F6, F9), Tower (F1–F3), Fortress (F13–F15), and Rampart")
    seed_has(H3, "Castle (F3, F6, F9), Tower (#F1–#F3, #F7), Fortress (F13–F15), Rampart (F10–F12).")
    first = _tower_pool(by_id["troubled-walking-on-clouds"])
    assert first["codes_printed"] == "#F1–#F3"  # round 3b: the Tower tiles' own codes (F2, F3 are other tiles)
    assert first["tiles"] == ["tile-hash-f1", "tile-hash-f2", "tile-hash-f3"]  # the reading, in source.note
    fourth = _tower_pool(by_id["master-of-the-elements"])
    assert "codes_printed" not in fourth  # scenario 4 prints the tiles' own codes
    assert [by_id[t]["code"] for t in fourth["tiles"]] == ["#F1", "#F2", "#F3", "#F7"]


def test_unit_phases_from_worked_examples_are_inferences(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H4, "For example, Phase 3 has come in the Round, and a Bandit from the enemy front line attacks")
    seed_has(H4, "By the time the Golden Golems' turn to attack comes in Phase 7")
    for unit_id, phase in (("homm4-bandits", 3), ("homm4-golden-golems", 7)):
        unit = by_id[unit_id]
        assert unit["phase"] == phase and unit["inferred"] == ["phase"]
        assert "inferred" in unit["source"]["note"]
    # stated as facts about the units, not only as an example's turn of events: kept as facts
    seed_has(H4, "The Bandit's Melee attack value is 1")
    seed_has(H4, "Level 2 Golden Golems add 2 to their defense value of 7.")
    assert by_id["homm4-bandits"]["melee_attack"] == 1
    assert (by_id["homm4-golden-golems"]["level"], by_id["homm4-golden-golems"]["defense"]) == (2, 7)


def _rule(record: dict[str, Any], title: str) -> str:
    return str(next(r["text"] for r in record["special_rules"] if r["title"] == title))


def test_mk_rules_point_to_the_rulebook_where_the_seed_is_garbled_or_cut(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(MK, "which of the Apocalypse Dragon’s turns it is this Round, as shown in the table below.")
    assert "(see the rulebook, page 31)" in _rule(by_id["against-the-dragon"], "The Dragon's turn")
    seed_has(
        MK,
        "to take them to their preferred site to destroy,\nin which case they will only move 1 space, or\nnot move at all",
    )
    turn = _rule(by_id["apocalypse-is-here"], "Horsemen's turn")
    assert "How far it moves each turn: see the rulebook, page 36." in turn
    assert "only 1 space if that is enough" in turn and "not at all if it was placed on one" in turn
    seed_has(MK, "♦ A new tile (no matter which type).")
    new_tiles = _rule(by_id["first-reconnaissance"], "New tiles")
    assert "prints only its opening" not in new_tiles and "Game Walkthrough in the base game" in new_tiles


# Round 3: abilities, artifacts, tokens, combat tokens, map locations and town buildings


def test_two_way_monolith_note_claims_no_entrance_exit_exclusivity(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3, "both showing a One-way Monolith on one side, and a Two-way Monolith on the other.")
    seed_has(H3, "The One-way Monolith tokens are marked as Entrance or Exit.")
    seed_has(H3, "You can use the Exit Monolith to move back to the Entrance Monolith.")  # the Two-way entry
    two_way = by_id["two-way-monolith"]
    assert "only the One-way" not in two_way["note"]
    assert "move back to the Entrance" in two_way["rule"]
    assert by_id["one-way-monolith"]["note"] == "Its tokens are marked Entrance or Exit."


def test_corrosion_token_records_no_face_the_guide_does_not_show(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(
        H3_TOKENS,
        "Behemoths (Stronghold) place a Corrosion Token on a unit they attack: -1 Defense to a minimum of 0,",
    )
    seed_has(H3_TOKENS, "-1 or -2 Attack as shown on the Token's side.")  # Weakness: a face the guide shows
    seed_has(H3_TOKENS, "+1 or +2 Attack as shown.")
    corrosion = by_id["corrosion-token"]
    assert "faces" not in corrosion
    assert corrosion["effect"].startswith("-1 Defense (not below 0) until the end of Combat")
    assert by_id["weakness-token"]["faces"] == ["-1 Attack", "-2 Attack"]
    assert by_id["attack-token"]["faces"] == ["+1 Attack", "+2 Attack"]


@pytest.mark.parametrize(
    ("token_id", "heading", "line", "expansion"),
    [
        ("weakness-token", "Weakness Token", "Sorceresses (Cove) place a Weakness Token on a unit", "cove"),
        ("attack-token", "Attack Token", "Ogres (Stronghold) place Attack Tokens on allied units", "stronghold"),
        ("corrosion-token", "Corrosion Token", "Behemoths (Stronghold) place a Corrosion Token", "stronghold"),
    ],
)
def test_unit_tokens_expansion_is_their_units_and_marked_inferred(
    token_id: str, heading: str, line: str, expansion: str, by_id: dict[str, dict[str, Any]]
) -> None:
    text = seed_text(H3_TOKENS)
    assert line in text and f"\n{heading}\n" in text  # the token's own heading names no expansion
    token = by_id[token_id]
    assert token["expansion"] == expansion and token["inferred"] == ["expansion"]


def test_spell_tokens_whose_heading_names_the_expansion_keep_it_as_a_fact(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3_TOKENS, "\nClone (Cove)\n")
    seed_has(H3_TOKENS, "\nQuicksand (Stronghold)\n")
    assert by_id["token-clone"]["expansion"] == "cove" and "inferred" not in by_id["token-clone"]
    assert by_id["quicksand-token"]["expansion"] == "stronghold" and "inferred" not in by_id["quicksand-token"]


def test_defense_token_cites_the_campaign_rules_for_stone_skin_and_armorer(by_id: dict[str, dict[str, Any]]) -> None:
    seed_has(H3, "Instant Defense spells (like Stone Skin)—When activated, put this card on the side of the Combat")
    seed_has(H3, '• Skill: "Armorer" Ability card.**')
    seed_has(H3, "**Whenever this skill is activated, put a Defense token on the unit with the highest")
    token = by_id["defense-token"]
    assert token["spells"] == ["stone-skin"] and token["abilities"] == ["armorer"]
    note = token["source"]["note"]
    for section in ("Rules for More Complex Spells", "3. Hard Place"):
        assert section in note and f"\n{section}\n" in seed_text(H3)
