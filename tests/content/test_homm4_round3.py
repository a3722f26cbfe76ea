"""Facts of the HoMM IV Collectible Card & Tile Game corrected or added in issue 28 (third round),
each held to the rulebook line it rests on (docs/content-review/round3-homm4.md lists them).

Each test quotes a line of seed 001_84a3812162bd4827.txt (skipped when the seeds are not on this
machine: set PNP_SEEDS to their folder) and checks that the records or sheet files say what the
line says. Cheap: it reads the record and sheet files, it builds nothing.
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
H4 = "001_84a3812162bd4827.txt"


def rulebook() -> str:
    path = SEEDS / H4
    if not path.is_file():
        pytest.skip(f"seed {H4} not on this machine (set PNP_SEEDS)")
    return path.read_text(encoding="utf-8")


def says(line: str) -> None:
    """The rulebook prints this line (a quotation, word for word)."""
    assert line in rulebook(), f"the rulebook does not print: {line!r}"


@pytest.fixture(scope="module")
def h4() -> dict[str, dict[str, Any]]:
    records: dict[str, dict[str, Any]] = {}
    for path in sorted((ROOT / "cards" / "homm4").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for record in data if isinstance(data, list) else [data]:
            records[record["id"]] = record
    return records


def sheet(name: str) -> Any:
    return yaml.safe_load((ROOT / "sheets" / name).read_text(encoding="utf-8"))


def rows(record: dict[str, Any]) -> dict[str, list[Any]]:
    return {row[0]: row for row in record["table"]["rows"]}


def layout(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "layouts" / f"{name}.json").read_text(encoding="utf-8"))


# ------------------------------------------------------------------ sources and editorial words


def test_factions_cite_the_tables_that_list_them(h4: dict[str, dict[str, Any]]) -> None:
    text = rulebook()
    says("Terrain\tNative Faction\tEffects for native Units")
    # "Card Types" and "Skill Cards" list no Faction: the old note cited them
    for section in ("Card Types", "Skill Cards"):
        body = text.split(f"\n{section}\n", 1)[1][:1500]
        assert not all(f in body for f in ("Order", "Death", "Might"))
    assert "Native and Special Lands" in h4["homm4-life"]["source"]["note"]
    assert "Card Types" not in h4["homm4-life"]["source"]["note"]


def test_asylum_is_a_town_name_not_a_printed_section_reference(h4: dict[str, dict[str, Any]]) -> None:
    says("cannot be bought in the Town of Asylum, which belongs to the Chaos Faction.")
    chaos = h4["homm4-chaos"]
    assert chaos["town_name"] == "Asylum" and "notes" not in chaos
    assert "town" not in chaos  # the example Town Card is not Asylum


def test_example_town_card_has_no_editorial_name(h4: dict[str, dict[str, Any]]) -> None:
    says("when the Town Card shown in the illustration above is Level 1")
    town = h4["homm4-asylum"]
    assert town["name"] == "Chaos · Nature · Death Town" and "town_type" not in town
    assert town["inferred"] == ["faction"]


def test_rules_aid_promises_no_page_numbers() -> None:
    # the table of contents prints no page numbers, so the aid cannot print them either
    text = rulebook()
    contents = text[text.index("Table of Contents") : text.index("\nObjectives\n\nIn this game")]
    assert not any(ch.isdigit() for ch in contents)
    doc = sheet("homm4-rules.yaml")
    assert "page" not in doc.get("subtitle", "").lower()


def test_edge_label_table_prints_no_rulebook_sections(h4: dict[str, dict[str, Any]]) -> None:
    table = h4["homm4-card-edge-labels"]["table"]
    assert table["columns"] == ["Card type", "Edge label", "When the card is turned to it"]


# ------------------------------------------------------------------ paraphrases that changed the meaning


def test_sold_lasts_until_the_end_of_the_owners_turn(h4: dict[str, dict[str, Any]]) -> None:
    says("At the end of the real owner's turn, the Card returns to its normal position.")
    (sold,) = [r for r in h4["homm4-card-edge-labels"]["table"]["rows"] if r[1] == "Sold"]
    assert "until the end of the owner's turn" in sold[2] and "for a turn" not in sold[2]


def test_tournament_deck_is_60_or_10_per_section(h4: dict[str, dict[str, Any]]) -> None:
    says(
        "For tournaments, the size is 60 cards in the deck, or 10 cards for each Terrain Map Section used in the game, "
        "depending on the preference of the tournament organizer."
    )
    value = rows(h4["homm4-game-limits"])["Tournament deck size"][1]
    assert "60 cards" in value and "10 per Terrain Map Section" in value


def test_titans_need_a_gem_mine_not_its_control(h4: dict[str, dict[str, Any]]) -> None:
    says("the requirement for buying them is the presence of a Crystal Mine. In fact, it should be a Gem Mine.")
    assert h4["homm4-titans"]["purchase_requirement"] == "homm4-gem-mine"
    abilities = next(e for e in layout("homm4.unit")["front"]["elements"] if e.get("name") == "abilities")
    assert "control a" not in abilities["text"] and "{{ purchase_requirement | ref }} is required" in abilities["text"]


def test_stronghold_sells_only_might_heroes_under_every_rule(h4: dict[str, dict[str, Any]]) -> None:
    says("they can only be bought in Towns of the same Faction as the Heroes themselves.")
    says(
        "In Towns of the Might Faction (Stronghold) Spells cannot be learned, so only Might Faction Heroes can be bought in them."
    )
    (note,) = h4["homm4-stronghold"]["notes"]
    assert "even under the advanced rules" in note


def test_attacking_spells_add_stacked_levels_only_when_a_stack_casts(h4: dict[str, dict[str, Any]]) -> None:
    says(
        "the levels of the Units under the top Card in a Stack of Spellcasting Creatures are added to the Spell's attack value"
    )
    says("no one can ever answer an attack from Spells such as Magic Fist, Lightning or Fireball.")
    for spell in ("homm4-fireball", "homm4-magic-fist"):
        effect = h4[spell]["effect"]
        assert "When a Creature Stack casts it" in effect and "No one can ever answer it with a counterattack" in effect
    assert "No one can ever answer it" in h4["homm4-lightning"]["effect"]


def test_spellcasting_units_may_cast_attacking_spells_and_carry_no_invented_ability_name(
    h4: dict[str, dict[str, Any]],
) -> None:
    says(
        "some Units that cast Spells (such as Magi or Fairy Dragons) may cast attacking Spells, such as Fireball or Magic Fist."
    )
    for unit in ("homm4-magi", "homm4-fairy-dragons"):
        (ability,) = h4[unit]["special_abilities"]
        assert "name" not in ability and "can cast attacking Spells" in ability["effect"]
    says("Magi have no Ranged value, although they attack with Spells at range.")
    assert "cannot answer Ranged attacks" in h4["homm4-magi"]["special_abilities"][0]["effect"]


def test_cerberus_errata_counts_creatures(h4: dict[str, dict[str, Any]]) -> None:
    says('the triple-head attack of the Unit Card "Cerberus" allows them to attack up to two Creatures per turn.')
    points = " ".join(h4["homm4-rule-errata"]["points"])
    assert "up to two Creatures per turn" in points and "two Creature Stacks" not in points


# ------------------------------------------------------------------ inferences marked, not stored as facts


def test_upside_down_tokens_are_not_said_to_be_object_tokens(h4: dict[str, dict[str, Any]]) -> None:
    says("use Tokens turned upside down or coins to mark Units that have already counterattacked.")
    says("place a Token turned upside down on the Hero's Card at the very start of the battle.")
    says("place an Object Token on the Hero's Card, and a matching Token on the Game Board at the spot where he died.")
    uses = " ".join(h4["homm4-object-token"]["uses"])
    assert "counterattack" not in uses and "Potion" not in uses
    assert "fallen Hero" in uses


def test_orcs_phase_is_an_inference(h4: dict[str, dict[str, Any]]) -> None:
    says("if it were Phase 6 and the attacker were an Orc, it would be better to attack the Orc at range.")
    orcs = h4["homm4-orcs"]
    assert orcs["phase"] == 6 and orcs["inferred"] == ["phase"]


def test_gem_mine_as_an_object_card_is_marked_inferred(h4: dict[str, dict[str, Any]]) -> None:
    says("Titans: on the Titan Cards")
    mine = h4["homm4-gem-mine"]
    assert "inferred" in mine["source"]["note"]
    assert set(mine) == {"kind", "id", "name", "source"}  # nothing printed as its effect or type


# ------------------------------------------------------------------ facts the rulebook gives that were missing


def test_defense_bonuses_do_not_stack(h4: dict[str, dict[str, Any]]) -> None:
    says("Many Skills (such as Tactics and Defense) grant bonuses to friendly Units.")
    says("Friendly Creature Stacks receive the bonus of the Skill whose level is higher.")
    for skill in ("homm4-tactics", "homm4-defense"):
        assert "do not add up" in h4[skill]["effect"] or "higher Skill level" in h4[skill]["effect"]


def test_secondary_skills_grow_with_their_primary(h4: dict[str, dict[str, Any]]) -> None:
    says("the effectiveness of the Secondary Skills based on it increases automatically.")
    assert h4["homm4-attack"]["effect"] == "Its effects grow with the Hero's level in Tactics."
    assert h4["homm4-attack"]["primary_skill"] == "homm4-tactics"


def test_ranged_heavy_units_answer_melee_with_melee(h4: dict[str, dict[str, Any]]) -> None:
    says("when a Creature Stack is attacked in Melee, it must respond using its Melee attack value.")
    for unit in ("homm4-cyclopes", "homm4-evil-eyes"):
        assert "strike back with their Melee attack value" in h4[unit]["notes"][0]


def test_support_needs_a_target_the_supporter_could_attack(h4: dict[str, dict[str, Any]]) -> None:
    says("Creatures may give Support only for attacks on those Creatures they could attack themselves.")
    says("before rolling the die, declare how many cards in the target Stack you want to attack.")
    actions = rows(h4["homm4-battle-actions"])
    assert "could attack itself" in actions["Support"][2]
    assert "before the roll" in actions["Mass attack"][2]
    says("When their turn to attack comes again, they return to their normal position")
    assert "turn to attack comes again" in actions["Defense"][2]


def test_morale_options_and_luck_dice(h4: dict[str, dict[str, Any]]) -> None:
    says("They may even sacrifice their first attack in order to strengthen the second")
    says("if a Unit's Luck value is 3, when attacking it rolls the die 4 times")
    says("If a Unit's Luck value is -3, when attacking it rolls the die 4 times, using the worst result.")
    table = h4["homm4-morale-and-luck"]
    effects = rows(table)
    assert "twice its level" in effects["Morale"][4] and "other than 0" in effects["Morale"][4]
    assert "Luck 3: 4 dice" in effects["Luck"][4] and "Luck -3: 4 dice" in effects["Luck"][4]
    assert table["caption"].startswith("Advanced rules.")


def test_cursed_ground_words(h4: dict[str, dict[str, Any]]) -> None:
    says("Cursed Ground\tDeath\t1 MP/hex; +2 Attack and Defense. Morale and Luck have no effect.")
    native = h4["homm4-native-terrains"]
    assert native["table"]["columns"][-1] == "Attack and Defense"  # no column empty in six rows of seven
    assert "On Cursed Ground, Morale and Luck have no effect." in native["caption"]


RULE_LINES = {
    "homm4-rule-setup": ("Each player's deck must contain at least 40 cards.", "at least 40 cards"),
    "homm4-rule-start": (
        "draws 8 cards from his draw deck into his hand and places 5 of them on the table",
        "5 go face down",
    ),
    "homm4-rule-victory": ("The last remaining side in the game is the winner.", "The last player left"),
    "homm4-rule-towns": ("Simply discard a number of cards equal to the Town's level +1.", "its level +1 cards"),
    "homm4-rule-armies": ("Each player may control no more than 4 Armies at a time", "at most 4 Armies"),
    "homm4-rule-identify": (
        'If there is an "X" there, that Unit Card cannot be used to identify a Dwelling.',
        "(not X)",
    ),
    "homm4-rule-guard": ("the Guard Player discards three more cards from their deck", "discards 3 more cards"),
    "homm4-rule-underground": (
        "Players may quickly travel between places where the coins are located without spending Movement Points.",
        "without spending Movement points",
    ),
    "homm4-rule-battle": ("Your Army may have no more than 7 different Creatures or Creature Stacks.", "at most 7"),
    "homm4-rule-retreat": (
        "Heroes may not retreat if they are within four hexes of their nearest Town.",
        "within 4 hexes",
    ),
    "homm4-rule-heroes": ("is used as the Support value during battle.", "Support value"),
    "homm4-rule-spells": ("Basic Chaos Magic gives a Hero 10 Mana points", "Basic Chaos Magic 10"),
    "homm4-rule-variants": (
        "the total number of starting Units of each level must be the same for each player.",
        "the same for every player",
    ),
    "homm4-rule-advanced": ("you must subtract 2 from the die result.", "takes 2 off the die"),
}


@pytest.mark.parametrize("rule_id", sorted(RULE_LINES))
def test_rules_aid_carries_the_rulebooks_rules(h4: dict[str, dict[str, Any]], rule_id: str) -> None:
    line, words = RULE_LINES[rule_id]
    says(line)
    rule = h4[rule_id]
    assert rule["source"]["section"] in rulebook()
    assert words in " ".join(rule["points"]), (rule_id, words)


def test_aids_fold_in_the_near_empty_pages() -> None:
    names = {p.name for p in (ROOT / "sheets").glob("homm4-*.yaml")}
    assert names == {"homm4-reference-tables.yaml", "homm4-rules.yaml"}
    assert set(sheet("homm4-rules.yaml")["kinds"]) == {"homm4.rule", "homm4.component-list", "homm4.hero-class"}
    assert "homm4.faction" in sheet("homm4-reference-tables.yaml")["kinds"]


def test_name_only_records_print_no_card(h4: dict[str, dict[str, Any]]) -> None:
    """A card the rulebook gives nothing but a name for is named on the Town Card, the Titans card and
    the reference aid, and printed as no card (the layouts' copies is 0 for it)."""
    says("At Level 4, Black Dragons, Ifrits, Medusas, Orcs and Bandits become available.")
    for kind_layout, ids in (
        ("homm4.unit", ("homm4-medusas", "homm4-ifrits", "homm4-black-dragons")),
        ("homm4.object", ("homm4-gem-mine",)),
        ("homm4.primary-skill", ("homm4-life-magic", "homm4-battle")),
    ):
        copies = layout(kind_layout)["copies"]
        assert copies.endswith("else 0 }}"), kind_layout
        for rid in ids:
            shown = set(h4[rid]) - {"kind", "id", "name", "source", "edge_labels", "spell_school", "inferred"}
            assert not shown, (rid, shown)


def test_heaven_sells_life_heroes(h4: dict[str, dict[str, Any]]) -> None:
    says("a Knight Hero, whose Faction is Life, cannot be bought in the Town of Asylum")
    says("in Towns of the Life Faction (Heaven), when upgraded to level 4, Skills can be bought.")
    assert h4["homm4-heaven"]["faction"] == "homm4-life"
    assert h4["homm4-heaven"]["notes"] == ["Sells Heroes of the Life Faction, such as Knights."]


def test_halflings_and_orcs_say_what_their_ranged_value_means(h4: dict[str, dict[str, Any]]) -> None:
    says("Since the Halflings have a Ranged attack value greater than 0, they can attack while on the back line.")
    says("A Halfling Stack may counterattack after taking damage from a Ranged attack")
    assert "attack from the back line" in h4["homm4-halflings"]["notes"][0]
    says("Since Golden Golems cannot attack at range, they would not be able to strike back.")
    assert "strike back only with a Ranged attack" in h4["homm4-orcs"]["notes"][0]
