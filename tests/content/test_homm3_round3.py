"""HoMM III Conflux facts corrected for issue 28 (third round), each held to the rulebook line it
rests on (docs/content-review/round3-homm3.md lists them with file and line).

Cheap: reads the records and sheet files, never builds. Each case quotes a seed line; the case is
skipped when the seeds are not on this machine (set PNP_SEEDS to their folder).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = Path(os.environ.get("PNP_SEEDS", "/work/shared/seeds"))
H3, H3_TOKENS = "000_6347cdb41225c97f.txt", "004_a850f7203ac9cad0.txt"
GAME = ROOT / "cards" / "homm3-conflux"


def seed_has(seed: str, line: str) -> None:
    path = SEEDS / seed
    if not path.is_file():
        pytest.skip(f"seed {seed} not on this machine (set PNP_SEEDS)")
    assert line in path.read_text(encoding="utf-8"), f"{seed} does not print: {line!r}"


def record(file: str, rid: str) -> dict[str, Any]:
    records = json.loads((GAME / file).read_text(encoding="utf-8"))
    return next(r for r in records if r["id"] == rid)


def sheet(name: str) -> str:
    return (ROOT / "sheets" / name).read_text(encoding="utf-8")


def test_alliance_mode_needs_an_expansion_and_four_players() -> None:
    seed_has(
        H3, "This mode requires at least one expansion and 4 players to form an Alliance of 2 players vs. 2 players."
    )
    rules = [r["text"] for r in record("scenarios.json", "one-bad-day")["mode_rules"]]
    assert "Alliance mode needs at least one expansion and 4 players: 2 against 2." in rules


def test_one_bad_day_victory_prints_no_stray_reference() -> None:
    seed_has(
        H3, "or occupy both enemy Exit Monoliths (effectively blocking them) at the same time at the end of a round."
    )
    victory = record("scenarios.json", "one-bad-day")["victory"][0]
    assert "refs" not in victory  # printed as "(One-way Monolith)" after the sentence
    assert "both enemy Exit Monoliths" in victory["text"]


def test_elemental_damage_ignores_defense_as_the_guide_says() -> None:
    seed_has(
        H3_TOKENS,
        "Units that deal elemental damage attack normally, but the damage works like Spell damage and ignores the target's Defense.",
    )
    rule = record("rules.json", "homm3-rule-elemental-damage")
    assert rule["points"][0].endswith("it ignores the target's Defense.")
    assert "icon" not in " ".join(rule["points"]) and "see_rulebook" not in rule


def test_two_way_monolith_also_has_an_entrance_and_an_exit() -> None:
    seed_has(
        H3,
        "When you enter this location, move your Hero to the corresponding Exit Monolith location. You can use the Exit Monolith to move back to the Entrance Monolith.",
    )
    loc = record("map-locations.json", "two-way-monolith")
    assert "only the One-way" not in loc["note"]
    assert "Exit Monolith" in loc["rule"] and "back to the Entrance" in loc["rule"]


def test_monolith_token_pairing_of_entrance_and_exit_is_not_stated_as_fact() -> None:
    seed_has(
        H3,
        "The tokens representing the Monoliths are paired, both showing a One-way Monolith on one side, and a Two-way Monolith on the other.",
    )
    token = record("tokens.json", "monolith-token")
    assert "Entrance on one, Exit on the other" not in token["note"]
    assert "not stated" in token["source"]["note"]


def test_monolith_token_may_go_anywhere_the_rules_allow() -> None:
    seed_has(H3, "You can place the token however you wish, provided that it follows the above rules.")
    assert "place it however you wish" in record("tokens.json", "monolith-token")["placed_when"]


def test_summoned_units_deck_setup_is_recorded() -> None:
    seed_has(
        H3,
        "Put them together into a new deck called the Summoned Units deck and place it beside the Neutral Unit decks.",
    )
    points = record("rules.json", "homm3-rule-summon-timing")["points"]
    assert any("Summoned Units deck, beside the Neutral Unit decks" in p for p in points)


def test_summon_air_elemental_prints_no_inferred_unit_name() -> None:
    seed_has(H3_TOKENS, "Types: Fire, Earth, Water, Air.")
    spell = record("spells.json", "summon-air-elemental")
    assert record("summoned-units.json", "air-elementals")["inferred"] == ["name"]
    assert "Air Elementals" not in spell["effect"]
    layout = (ROOT / "layouts" / "homm3.spell.json").read_text(encoding="utf-8")
    assert "*Summons:*" not in layout


def test_summon_spell_schools_are_marked_inferred_and_not_printed() -> None:
    seed_has(H3, "every Spell card belongs to one of the following four of them: Air, Fire, Earth, and Water.")
    for el in ("fire", "water", "air", "earth"):
        assert record("spells.json", f"summon-{el}-elemental")["inferred"] == ["schools"]
    layout = (ROOT / "layouts" / "homm3.spell.json").read_text(encoding="utf-8")
    assert "'schools' not in (inferred or [])" in layout


def test_summon_power_cites_the_guide() -> None:
    seed_has(
        H3, "Depending on the used, you can Summon either a non-Reinforced unit (a Few) or a Reinforced one (a Pack)."
    )
    seed_has(H3_TOKENS, "add an Elemental unit (Few or Pack, by Power used)")
    assert H3_TOKENS in record("spells.json", "summon-fire-elemental")["source"]["note"]
    assert H3_TOKENS in record("scenarios.json", "troubled-walking-on-clouds")["source"]["note"]


def test_units_in_the_hard_place_neutral_decks_are_not_called_non_neutral() -> None:
    seed_has(H3, "Bronze deck: Rogues, Zombies, Wraiths, Harpies, Evil Eyes, Troglodytes, Sprites.")
    for rid in ("sprites", "troglodytes", "evil-eyes", "medusas", "manticores", "black-dragons", "energy-elementals"):
        note = record("units.json", rid)["source"]["note"]
        assert "so not a Neutral Unit deck card" not in note
        assert f"neutral-{rid}" in note


def test_campaign_prints_no_invented_summary() -> None:
    seed_has(H3, "The Conflux campaign consists of four scenarios.")
    campaign = record("campaign.json", "masters-of-the-elements")
    assert "summary" not in campaign
    assert "inference" in campaign["source"]["note"]  # the recommended Hero


def test_gate_goes_before_the_unit_with_the_highest_icon_stat() -> None:
    seed_has(H3, "place the Gate in front of the unit with the highest .")
    points = [p for part in record("campaign.json", "masters-of-the-elements")["rules"] for p in part.get("points", [])]
    gate = next(p for p in points if p.startswith("If Walls and Gate"))
    # round 4: says plainly that the rulebook shows the stat as a symbol, and where a player finds it
    assert "top unit" not in gate
    assert "a stat it shows only as a symbol: look it up in its AI Under Siege section" in gate


def test_cure_rule_marks_damage_as_a_reading() -> None:
    seed_has(
        H3, "remove the from the AI unit with the greatest value of tokens, starting with the highest tier available."
    )
    points = [p for part in record("campaign.json", "masters-of-the-elements")["rules"] for p in part.get("points", [])]
    cure = next(p for p in points if p.startswith("Healing spells"))
    assert "the damage tokens (kit's reading of a symbol)" in cure  # round 3b: marked reading, no "rulebook"


def test_armorer_rule_invents_no_stat_on_the_card() -> None:
    seed_has(H3, "put a Defense token on the unit with the highest to represent the card's effect.")
    rule = record("scenarios.json", "hard-place")["ai"]["skills"][0]["rule"]
    # round 3b: Defense, marked as the kit's reading (Stone Skin's rule words the same step "highest defense")
    assert "the stat the card shows" not in rule and "the highest Defense (kit's reading of a symbol)" in rule


def test_banner_icon_rule_has_no_see_the_rulebook_remark() -> None:
    seed_has(H3, "gain 2 of the banner-with-star icon")
    rules = [r["text"] for r in record("scenarios.json", "master-of-the-elements")["additional_rules"]]
    banner = next(t for t in rules if "{homm3-banner-star}" in t)  # round 3b: the symbol is drawn
    assert "see the rulebook" not in banner and "rulebook" not in banner


def test_elemental_tiles_print_no_editorial_remark() -> None:
    seed_has(H3, "All spells from that School of Magic that are cast by a Hero on that tile have their increased by 1.")
    tiles = json.loads((GAME / "map-tiles.json").read_text(encoding="utf-8"))
    effects = [t["effect"] for t in tiles if t.get("type") == "elemental-near"]
    assert len(effects) == 8 and all("which one" not in e and "+1" in e for e in effects)


def test_factions_named_only_by_the_guide_say_so() -> None:
    seed_has(H3_TOKENS, "Part of the Cove Expansion.")
    # round 3b: the aid is for players; the source commentary moved to the source notes
    assert "combat tokens guide" in record("factions.json", "cove")["source"]["note"]
    assert "Inferno and Cove are named only there" in record("factions.json", "inferno")["source"]["note"]
    assert "Also named in the rulebook:*" not in sheet("homm3-factions.yaml")


def test_valuable_is_singular_as_the_rulebook_prints_it() -> None:
    seed_has(H3, "11 × Gold, 3 × Building Materials, 1 × Valuable.")
    seed_has(H3, '"10" Gold, "0" Building Materials, "0" Valuable.')
    # exactly 1 is singular; the rulebook's '"0" Valuable' reads as a slip beside "2 × Valuables" (round 3b N11)
    assert "'Valuable' if k == 'valuables' and v == 1" in sheet("homm3-scenario.yaml")
    assert "'Valuable' if k == 'valuables' and v == 1" in sheet("homm3-campaign.yaml")


def test_ai_heroes_print_no_invented_hero_card() -> None:
    seed_has(H3, "Enemy Heroes: Fiur, Lord of Air's Guardians.")
    assert "Hero card:" not in sheet("homm3-scenario.yaml")


def test_deluge_defenders_heading_does_not_widen_the_experience_rule() -> None:
    seed_has(H3, "For the purpose of gaining experience, this field counts as having difficulty level VI.")
    assert "field difficulty {{" not in sheet("homm3-scenario.yaml")


def test_token_aid_prints_board_and_difficulty_counts_in_words() -> None:
    seed_has(H3_TOKENS, "On the normal Combat Board place 1 Token; on the Battlefield Board place 2 Tokens")
    seed_has(H3_TOKENS, "Easy 1, Normal 2, Hard 3, Impossible 4.")
    summary = sheet("homm3-token-summary.yaml")
    assert "dictsort" not in summary
    assert "['easy', 'normal', 'hard', 'impossible']" in summary
    assert "battlefield_board: Battlefield Board" in summary


def test_rules_aid_promises_no_page_numbers() -> None:
    assert "rulebook page" not in sheet("homm3-rules.yaml")


def test_every_token_glyph_is_a_declared_vector_icon() -> None:
    icons = json.loads((ROOT / "layouts" / "icons.json").read_text(encoding="utf-8"))["icons"]
    ids = [
        r["id"]
        for f in ("tokens.json", "combat-tokens.json")
        for r in json.loads((GAME / f).read_text(encoding="utf-8"))
    ]
    for rid in ids:
        if rid in ("black-cube", "faction-cube", "monolith-token"):
            continue  # cubes keep their drawn cube; the Monolith uses its one-way / two-way glyphs
        for name in (f"homm3-{rid}", f"homm3-{rid}-pale"):
            assert (ROOT / icons[name]["image"]).is_file(), name
    for name in ("homm3-monolith-one-way-pale", "homm3-monolith-two-way-pale"):
        assert icons[name]["image"].endswith(".svg")


def test_hero_cards_print_what_the_rulebooks_say_of_each_hero() -> None:
    seed_has(H3, "These tokens are used instead of Luna's Specialty cards on the Battlefield expansion's board.")
    seed_has(H3, "Fiur's Army: Level III Neutral Army, a Pack of Storm Elementals, a Few Energy Elementals.")
    seed_has(H3, "Faction Hero: Tarnum or any Conflux Hero.")
    luna, tarnum, fiur = (record("heroes.json", i) for i in ("luna", "tarnum", "fiur"))
    assert "Specialty cards I and VI put a Fire Wall" in luna["role"]
    assert "any Conflux Hero" in tarnum["role"]
    assert "4 × Might card" in fiur["role"] and "Level III Neutral Army" in fiur["role"]
    layout = (ROOT / "layouts" / "homm3.hero.json").read_text(encoding="utf-8")
    assert "else (role if role is defined)" in layout


def test_luna_box_and_double_side_are_marked_inferences_and_not_printed() -> None:
    seed_has(H3, "2 × Hero card (double-sided)")
    luna = record("heroes.json", "luna")
    assert luna["inferred"] == ["expansion", "double_sided"]
    layout = (ROOT / "layouts" / "homm3.hero.json").read_text(encoding="utf-8")
    assert "'double_sided' not in (inferred or [])" in layout
    assert "'expansion' not in (inferred or [])" in layout


def test_scenario_sheet_prints_no_empty_story_column() -> None:
    seed_has(
        H3,
        "Place a model representing the Second Overlord on the Town field of this tile. This enemy Hero does not move.",
    )
    scenario = sheet("homm3-scenario.yaml")
    assert (
        """{header: Story section, value: "{{ trigger.story }}", width: 16, when: "triggers | selectattr('story') | list"}"""
        in scenario
    )


def test_tokens_without_a_rule_get_one_line_not_empty_rows() -> None:
    seed_has(H3, "• 1 × Build token\n• 1 × Population token")
    aid = sheet("map-locations-and-tokens.yaml")
    assert "selectattr('placed_when')" in aid and "*Also in the box:*" in aid
    assert "placed_when" not in record("tokens.json", "build-token")


def test_ability_schools_are_marked_inferred_and_not_printed_as_text() -> None:
    seed_has(
        H3,
        "Basic Fire Magic, Basic Air Magic, Basic Water Magic, Basic Earth Magic, Fire Magic, Air Magic, Water Magic, and Earth Magic.",
    )
    for el in ("fire", "water", "air", "earth"):
        assert record("abilities.json", f"basic-{el}-magic")["inferred"] == ["school"]
        assert record("abilities.json", f"{el}-magic")["inferred"] == ["school"]
    # printed on the units-and-cards aid (no card layout any more), which prints no School at all
    assert "school" not in sheet("homm3-units-and-cards.yaml").lower()


def test_campaign_ai_spells_print_their_casting_rule() -> None:
    seed_has(H3, "Spells attacking multiple targets (like Fireball and Chain Lightning)")
    seed_has(H3, "If more than half of them have already activated this turn, do not cast the spell now")
    for rid in ("fireball", "chain-lightning", "stone-skin", "cure", "fire-shield", "weakness"):
        assert record("spells.json", rid)["ai_rule"], rid
    assert "adjacent player units" in record("spells.json", "fireball")["ai_rule"]
    assert "damage tokens (kit's reading of a symbol)" in record("spells.json", "cure")["ai_rule"]
    layout = (ROOT / "layouts" / "homm3.spell.json").read_text(encoding="utf-8")
    assert "'*Campaign AI:* ' ~ ai_rule" in layout


def test_summoned_unit_cards_print_the_summon_rules() -> None:
    seed_has(H3, "remains under your command until it perishes, or the Combat ends, whichever comes first.")
    seed_has(H3, "When you Summon a unit, place this token on its card.")
    layout = (ROOT / "layouts" / "homm3.summoned-unit.json").read_text(encoding="utf-8")
    assert layout.count("it never joins your Unit deck") == 2  # front (Few) and back (Pack)
    assert "mark it with a Summon token" in layout


def test_token_layouts_draw_in_an_aid_where_no_side_is_set() -> None:
    seed_has(
        H3_TOKENS, "Sorceresses (Cove) place a Weakness Token on a unit: -1 or -2 Attack as shown on the Token's side."
    )
    for name in ("homm3.token.json", "homm3.combat-token.json"):
        layout = (ROOT / "layouts" / name).read_text(encoding="utf-8")
        assert "[side - 1]" not in layout and "faces[side]" not in layout, name
        assert "(side if side is defined else 1)" in layout, name


# ------------------------------------------- units, abilities, buildings: the units-and-cards aid


@pytest.mark.parametrize(
    ("rid", "line", "expansion"),
    [
        ("sorceresses", "Sorceresses (Cove) place a Weakness Token on a unit", "cove"),
        ("ogres", "Ogres (Stronghold) place Attack Tokens on allied units", "stronghold"),
        ("behemoths", "Behemoths (Stronghold) place a Corrosion Token on a unit they attack", "stronghold"),
        ("pit-lords", "A Pack of Pit Lords (Inferno) can summon Few Demons adjacent to them", "inferno"),
    ],
)
def test_guide_tags_on_units_are_their_expansion(rid: str, line: str, expansion: str) -> None:
    """The guide's "(X)" after a name marks the box it belongs to, as for Clone: the unit's
    expansion; the faction of the same name is an inference, kept but not printed."""
    seed_has(H3_TOKENS, line)
    seed_has(H3_TOKENS, "It is removed if the original unit leaves the board. Part of the Cove Expansion.")
    unit = record("units.json", rid)
    assert unit["expansion"] == expansion and unit["inferred"] == ["faction"]


def test_tower_units_need_the_tower_expansion() -> None:
    seed_has(H3, "Within it, choose one of the following options (the second one requires the Tower Expansion):")
    seed_has(H3, "Add a Few Genies, a Few Magi, and a Few Nagas to your army.")
    assert [record("units.json", u).get("expansion") for u in ("crusaders", "genies", "magi", "nagas")] == [
        None,
        "tower",
        "tower",
        "tower",
    ]


def test_dwelling_prints_the_elemental_conflux_rule() -> None:
    seed_has(
        H3,
        'When you enter this location, for every Dwelling you have, draw from the corresponding Neutral Unit deck until you find an "Elementals" card.',
    )
    seed_has(H3, "You can Recruit one of these units if you pay its Recruitment cost.")
    (rule,) = record("town-buildings.json", "dwelling")["rules"]
    assert "each Dwelling you own lets you draw from the Neutral Unit deck of its tier until an Elementals card" in rule
    assert "one in total" in rule and "Recruitment cost" in rule


def test_units_abilities_and_buildings_are_not_cut_out_cards() -> None:
    """No statistics (units) and no effects (Abilities, Town Buildings) in the rulebooks: the kinds are
    printed on the units-and-cards aid, which reads where each is called for from the scenarios."""
    seed_has(H3, "• 7 × Unit card")
    for kind in ("unit", "neutral-unit", "ability", "town-building"):
        schema = json.loads((ROOT / "schemas" / f"homm3.{kind}.schema.json").read_text(encoding="utf-8"))
        assert schema["x-card"] is False, kind
        assert not (ROOT / "layouts" / f"homm3.{kind}.json").exists(), kind
    aid = sheet("homm3-units-and-cards.yaml")
    assert "kinds: [homm3.unit, homm3.neutral-unit, homm3.ability, homm3.town-building]" in aid
    assert "records_of('homm3.scenario')" in aid
