"""HoMM III Conflux and HoMM IV facts corrected after the round 3 proofread (issue 28), each held to
the seed line it rests on (docs/content-review/round3b-homm.md lists them with file and line).

Cheap: reads the records, layouts and sheet files, never builds. Each case quotes a seed line; it
is skipped when the seeds are not on this machine (set PNP_SEEDS to their folder).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SEEDS = Path(os.environ.get("PNP_SEEDS", "/work/shared/seeds"))
H3, H4, H3_TOKENS = "000_6347cdb41225c97f.txt", "001_84a3812162bd4827.txt", "004_a850f7203ac9cad0.txt"


def seed_has(seed: str, line: str) -> None:
    path = SEEDS / seed
    if not path.is_file():
        pytest.skip(f"seed {seed} not on this machine (set PNP_SEEDS)")
    assert line in path.read_text(encoding="utf-8"), f"{seed} does not print: {line!r}"


def record(game: str, file: str, rid: str) -> dict[str, Any]:
    records = json.loads((ROOT / "cards" / game / file).read_text(encoding="utf-8"))
    return next(r for r in records if r["id"] == rid)


def h3(file: str, rid: str) -> dict[str, Any]:
    return record("homm3-conflux", file, rid)


def h4(file: str, rid: str) -> dict[str, Any]:
    return record("homm4", file, rid)


def layout(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "layouts" / f"{name}.json").read_text(encoding="utf-8"))
    return data


def layout_text(name: str) -> str:
    return (ROOT / "layouts" / f"{name}.json").read_text(encoding="utf-8")


def sheet(name: str) -> str:
    return (ROOT / "sheets" / name).read_text(encoding="utf-8")


def scenario_texts(rid: str) -> str:
    return json.dumps(h3("scenarios.json", rid), ensure_ascii=False)


# HoMM III, item 3: enough Monolith tokens for the scenarios
def test_monolith_tokens_print_four_pairs() -> None:
    seed_has(H3, "NOTE: Place 4 One-way Monolith tokens as shown in the map layout.")
    seed_has(H3, "and 3 Monolith tokens per additional player.")
    token = h3("tokens.json", "monolith-token")
    assert token["paired"] and token["copies"] == 4  # 4 of each side: 4 Entrance, 4 Exit fronts
    assert "2 if paired" in layout_text("homm3.token")


# item 4: several Time tokens (no value printed: the kit's convention is marked) and Summon tokens
def test_time_and_summon_tokens_come_in_numbers() -> None:
    seed_has(H3, "reduce their total value by 1 at the end of the round. When there are no Time tokens left")
    seed_has(H3, "When you Summon a unit, place this token on its card.")
    seed_has(H3, "• 8 × Summoned Unit card")
    time, summon = h3("tokens.json", "time-token"), h3("tokens.json", "summon-token")
    assert time["copies"] == 6 and "the kit's own convention" in time["effect"]
    assert summon["copies"] == 8


# item 36: Quicksand and Land Mine in two colour sets
def test_quicksand_and_land_mine_print_two_colour_sets() -> None:
    seed_has(H3_TOKENS, "take 2, 4 or 6 Quicksand Tokens of one color")
    seed_has(H3_TOKENS, "Two Tokens may share a space only if different players placed them.")
    data = layout("homm3.combat-token")
    assert data["expand"]["colour_set"]["to"] == "{{ 2 if counts_by_power is defined else 1 }}"
    assert "colour_set == 2" in data["front"]["background"] and "colour_set == 2" in data["back"]["background"]
    assert h3("combat-tokens.json", "quicksand-token")["counts_by_power"] == [2, 4, 6]


# item 14: the Stack token's bonuses are choices ("or")
def test_stack_token_prints_its_bonuses_as_a_choice() -> None:
    seed_has(H3_TOKENS, "Each Stack Token gives a unit +1 Attack, +1 Defense, +1 HP or +2 Initiative")
    value = next(e for e in layout("homm3.combat-token")["front"]["elements"] if e["name"] == "b-value")
    assert "' or' if loop.revindex == 2" in value["text"]


# item 7: campaign AI spells are reference cards; Prayer's rule; Lightning Bolt prints no card
def test_campaign_ai_spells_are_marked_and_prayer_has_its_rule() -> None:
    seed_has(H3, "*Choose the crossed-swords option when using this spell.")
    assert "crossed-swords option" in h3("spells.json", "prayer")["ai_rule"]
    assert "ai_rule" not in h3("spells.json", "lightning-bolt") and "effect" not in h3("spells.json", "lightning-bolt")
    data = layout("homm3.spell")
    assert data["copies"].endswith("else 0 }}") and "ai_rule is defined" in data["copies"]
    assert "Campaign AI spell" in layout_text("homm3.spell") and "AI SPELL" in json.dumps(data["back"])


# item 8: no "icon in the rulebook" wording; marked readings instead
def test_lost_symbols_are_read_and_marked_not_described() -> None:
    seed_has(H3, "Healing spells (like Cure)—When activated, remove the from the AI unit")
    seed_has(H3, "All spells from that School of Magic that are cast by a Hero on that tile have their increased by 1.")
    seed_has(H3, "put a Defense token on the unit with the highest defense to represent the card's effect")
    for text in (
        json.dumps(h3("spells.json", "cure")),
        json.dumps(h3("campaign.json", "masters-of-the-elements")),
        scenario_texts("hard-place"),
        scenario_texts("master-of-the-elements"),
        (ROOT / "cards" / "homm3-conflux" / "map-tiles.json").read_text(encoding="utf-8"),
    ):
        assert "icon in the rulebook" not in text and "given only as an icon" not in text
    assert h3("spells.json", "cure")["ai_rule"].startswith("Remove the damage tokens (kit's reading of a symbol)")
    assert h3("map-tiles.json", "tile-n14")["effect"].endswith("+1 Power (kit's reading of a symbol).")
    assert "highest Defense (kit's reading of a symbol)" in scenario_texts("hard-place")


def test_banner_with_star_is_drawn() -> None:
    seed_has(H3, "gain 2 of the banner-with-star icon")
    assert "gain 2 {homm3-banner-star}." in scenario_texts("master-of-the-elements")
    icons = json.loads((ROOT / "layouts" / "icons.json").read_text(encoding="utf-8"))["icons"]
    assert (ROOT / icons["homm3-banner-star"]["image"]).is_file()


# item 35: the Summon strength reads "Power", as everywhere else
def test_scenario_one_summon_reads_power() -> None:
    seed_has(H3_TOKENS, "add an Elemental unit (Few or Pack, by Power used)")
    text = scenario_texts("troubled-walking-on-clouds")
    assert "with 4 Power;" in text and "with 2 Power." in text and "{power}" not in text


# item 15: the Air summoned unit prints the spell's own words
def test_air_summoned_unit_prints_the_spells_words() -> None:
    seed_has(H3, '• Skill: "Summon Air Elemental" Spell card.*')
    assert "replace('Summon ', '')" in layout_text("homm3.summoned-unit")
    assert "take the Air Elemental card" in h3("spells.json", "summon-air-elemental")["effect"]


# item 16: only this box's map tiles print; the others are listed
def test_only_conflux_map_tiles_print() -> None:
    seed_has(H3, "• 8 × Elemental Near tile")
    assert "expansion == 'conflux'" in layout("homm3.map-tile")["copies"]
    assert "Map tiles the campaign names" in sheet("homm3-factions.yaml")


# item 18: the Tower Far tiles print with their own codes
def test_scenario_one_prints_the_tower_tile_codes() -> None:
    seed_has(H3, "Tower (#F1–#F3, #F7)")
    seed_has(H3, "Tower (F1–F3)")
    assert '"codes_printed": "#F1–#F3"' in scenario_texts("troubled-walking-on-clouds")


# item 19: the factions aid carries no source commentary
def test_factions_aid_has_no_editorial_notes() -> None:
    seed_has(H3_TOKENS, "Ogres (Stronghold) place Attack Tokens on allied units")
    notes = [r["note"] for r in json.loads((ROOT / "cards" / "homm3-conflux" / "factions.json").read_text())]
    assert not [n for n in notes if "guide" in n or "scenario 1 prints" in n or "Named only" in n]
    assert "Attack (Ogres)" in h3("factions.json", "stronghold")["note"]


# item 24: Tarnum and Fiur are reference cards
def test_campaign_and_enemy_heroes_are_reference_cards() -> None:
    seed_has(H3, "• 2 × Hero card (double-sided)")
    seed_has(H3, "• Enemy Heroes: Fiur, Lord of Air's Guardians.")
    assert h3("heroes.json", "fiur")["card_use"] == "enemy-hero"
    assert h3("heroes.json", "tarnum")["card_use"] == "campaign-hero"
    assert "card_use" not in h3("heroes.json", "luna")
    assert "AI ENEMY" in layout_text("homm3.hero")


# item 25: statistic cards say what the campaign does with them
def test_statistic_cards_print_their_campaign_rule() -> None:
    seed_has(H3, "From these cards, take out all the Statistic cards and the level 1 Specialty card")
    seed_has(H3, "You cannot Remove Statistic, Starting Ability, or Specialty cards this way.")
    effect = h3("statistics.json", "knowledge")["effect"]
    assert "Starting deck" in effect and "Faerie Ring cannot Remove it" in effect


# item 32: no raw "Cards named" lines in the campaign booklet
def test_campaign_booklet_prints_no_cards_named_line() -> None:
    assert "Cards named:" not in sheet("homm3-campaign.yaml")


# item 33: the Hard Place completion trigger names only the bonus pairs
def test_hard_place_completion_names_only_the_bonus_pairs() -> None:
    seed_has(H3, '"Summon Air Elemental" Spell card and "Basic Air Magic" Ability card.')
    text = scenario_texts("hard-place")
    assert "Take the pair you took as your bonus out of your deck" in text
    trigger = h3("scenarios.json", "hard-place")["triggers"][-1]["effects"][0]
    assert "summon-earth-elemental" not in trigger["refs"] and "basic-earth-magic" not in trigger["refs"]


# item 29: the map locations and tokens aid fits one page (no repeated Monolith facts, no tile list)
def test_map_locations_aid_drops_repeated_lines() -> None:
    summary = sheet("homm3-token-summary.yaml")
    assert "{% if locations and not paired %}*Marks:*" in summary and "{% if faces and not paired %}" in summary
    assert "On: {% endif %}" not in sheet("map-locations-and-tokens.yaml")


# item 29: the campaign cover starts the rules; no section page break
def test_campaign_rules_start_on_the_cover() -> None:
    assert 'title: "{{ name }}: campaign rules"' not in sheet("homm3-campaign.yaml")


# HoMM IV, item 10: cards carry the corrected rule, not an "Errata:" note
def test_homm4_cards_print_no_errata_sentence() -> None:
    seed_has(
        H4, 'the triple-head attack of the Unit Card "Cerberus" allows them to attack up to two Creatures per turn'
    )
    seed_has(H4, "In fact, it should be a Gem Mine.")
    assert "Errata:" not in layout_text("homm4.unit") and "Errata:" not in layout_text("homm4.spell")
    assert "up to two Creatures per turn" in h4("spells.json", "homm4-summon-cerberus")["effect"]
    assert h4("units.json", "homm4-titans")["purchase_requirement"] == "homm4-gem-mine"


# item 11: tokens in player colours
def test_homm4_tokens_print_player_colours() -> None:
    seed_has(H4, "replace the Town Tokens with Town Tokens of your color")
    seed_has(H4, "Each player may control no more than 4 Armies at a time")
    data = layout("homm4.token")
    assert len(data["expand"]["player"]) == 6 and data["expand"]["number"]["to"] == "{{ copies // 12 }}"
    assert all(h4("tokens.json", t)["copies"] % 12 == 0 for t in ("homm4-army-token", "homm4-town-token"))
    assert "6 colours: this kit's own split" in " ".join(h4("rules.json", "homm4-rule-setup")["points"])


# item 26: Expert card, Tactics text once, a glyph per secondary skill
def test_homm4_skill_cards_fill_their_ends() -> None:
    seed_has(H4, "you discard this Primary Skill Card and play a new card of the same Skill at the Expert level.")
    text = layout_text("homm4.primary-skill")
    assert "higher-text" in text and "Basic and Advanced:" in text
    glyphs = {r: h4("secondary-skills.json", r)["glyph"] for r in ("homm4-defense", "homm4-attack", "homm4-sorcery")}
    assert len(set(glyphs.values())) == 3


# item 27: the example Town has a title, made of what it teaches
def test_homm4_example_town_title() -> None:
    seed_has(H4, "can learn Level 1 Spells of Chaos, Nature and Death")
    assert h4("towns.json", "homm4-asylum")["name"] == "Chaos · Nature · Death Town"


# item 28: the Knight line is a sentence
def test_homm4_knight_line_is_a_sentence() -> None:
    seed_has(H4, "his Card states that he starts with basic Tactics and basic Defense")
    assert "card may start him with basic" in sheet("homm4-rules.yaml")


# item 29: errata with the cards, hero level table whole
def test_homm4_aids_have_no_near_empty_page() -> None:
    rules = yaml.safe_load(sheet("homm4-rules.yaml"))
    assert "reject('equalto', 'Errata')" in json.dumps(rules)
    assert "'Errata'" in sheet("homm4-reference-tables.yaml")
    assert h4("tables.json", "homm4-hero-level-changes")["new_page"] is True


# ---------------------------------------------------------------- round 3c (round3b-proofread.md N-defects)


# N7: the units-and-cards aid says a rule shared by many rows once; each row keeps only its own call
def test_n7_units_aid_states_shared_rules_once() -> None:
    seed_has(H3, "b) Silver deck: Nomads, Vampires, Liches, Medusas, Minotaurs, Energy Elementals.")
    aid = sheet("homm3-units-and-cards.yaml")
    assert "One of the cards kept in the" not in aid  # the keep rule is one note above the tier tables
    assert "'Kept in the deck.'" in aid and "strips each Neutral Unit deck down" in aid
    assert "notes('homm3.ability')" in aid  # the 4+-card rules printed once, under the Ability table


# N10: no rulebook page reference on the map-locations aid; the rule is named instead (000:839 gives no bonus)
def test_n10_settlement_names_the_core_rule_without_a_page() -> None:
    seed_has(H3, 'you gain an extra bonus (see page 25, "Settlements" in the Core Rulebook).')
    rule = h3("map-locations.json", "settlement")["rule"]
    assert "p. 25" not in rule and "page" not in rule
    assert "core game's Settlements rule" in rule


# N11: HoMM III wording nits
def test_n11_homm3_wording_nits() -> None:
    seed_has(H3, "• From the Neutral Unit decks, remove all cards except for the following:")
    scenario_sheet, campaign_sheet = sheet("homm3-scenario.yaml"), sheet("homm3-campaign.yaml")
    # zero Valuables is a plural; only exactly one is "Valuable"
    assert "k == 'valuables' and v == 1" in scenario_sheet and "k == 'valuables' and v == 1" in campaign_sheet
    # tile codes go inside the sentence, before its full stop
    assert "{{ r.text[:-1] }} ({{ ns.named | join(', ') }})." in scenario_sheet
    # the keep-list rule is said once (the table's lead line), in the rulebook's verb
    assert "Keep only these cards in each Neutral Unit deck; remove the others." in scenario_sheet
    assert "Strip the Neutral Unit decks" not in scenario_texts("hard-place")
    # no two parentheses in a row on the Armorer line
    assert ") (" not in scenario_texts("hard-place")


# N14: token nits: the Monolith face drops the title word it repeats; the teal set's title is teal too
def test_n14_token_titles() -> None:
    token = layout_text("homm3.token")
    assert token.count("| replace(name | replace(' token', '') | replace(' Token', ''), '')") == 2
    combat = layout("homm3.combat-token")
    teal = "'#1d6b5e' if (colour_set is defined and colour_set == 2)"
    titles = [
        e for side in ("front", "back") for e in combat[side]["elements"] if e["name"] in ("f-name", "x-name", "s-name")
    ]
    assert len(titles) == 3 and all(teal in e["color"] for e in titles)
