"""Mage Knight (seed 002), issue 28: each corrected fact held to the rulebook line it rests on.

Each test quotes the seed (skipped when the seeds are not on this machine: set PNP_SEEDS) and reads
only the records, layouts and sheets, so the module costs no build. The change list with line
numbers is docs/content-review/round3-mk.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from seedkit import says, seed_text

ROOT = Path(__file__).resolve().parents[2]
MK = "002_27974ad6e42770ae.txt"
Records = dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def seed() -> str:
    return seed_text(MK)


def page_of(seed: str, line: str) -> int:
    """The rulebook page a line is on: the seed ends each page with its number printed twice ("1212")."""
    rest = seed[seed.index(line) :].split("\n")
    return next(
        int(text[: len(text) // 2]) for text in rest if len(text) in (2, 4) and text[: len(text) // 2] * 2 == text
    )


def sheet(name: str) -> str:
    return (ROOT / "sheets" / f"{name}.yaml").read_text(encoding="utf-8")


def rule_text(by_id: Records, rule_id: str) -> str:
    return " ".join(by_id[rule_id]["points"])


# --------------------------------------------------------------------------- scoring and sheets


def test_fractured_lands_applies_greatest_quester_scoring_not_a_title(seed: str) -> None:
    says(
        seed,
        "Achievements scoring and Greatest Quester\nscoring, except:",
        "Then apply standard Achievements scoring and Greatest Quester scoring, except no titles are awarded.",
    )
    text = sheet("mk-scenario")
    assert "Greatest Quester scoring" in text and "Greatest Quester title" not in text


def test_scenario_sheets_print_no_page_numbers_in_subtitles(seed: str) -> None:
    says(seed, "Against the Dragon, Competitive 33")  # a table-of-contents line, not a player's need
    text = sheet("mk-scenario")
    assert "rulebook page" not in text and "(rulebook sections)" not in text


def test_scenarios_point_to_the_dragon_aid_for_its_combat_rules(seed: str, by_id: Records) -> None:
    says(seed, "Fighting a Horseman: See the Combat Versus a Horseman rules in the Rulebook.")
    texts = [
        r["text"]
        for s in ("against-the-dragon", "against-the-horsemen", "apocalypse-is-here")
        for r in by_id[s]["special_rules"]
    ]
    assert not [t for t in texts if "rules of the rulebook" in t]
    assert sum("(on the Apocalypse Dragon aid)" in t for t in texts) == 4
    assert "mk-rule-horseman-combat" in by_id and "mk-rule-dragon-combat" in by_id


# --------------------------------------------------------------------------- rule records


def test_psychic_attack_section_is_on_page_8(seed: str, by_id: Records) -> None:
    says(seed, "Psychic Attack and Block\nSome enemies have a new type of attack called Psychic Attack.")
    assert page_of(seed, "Psychic Attack and Block\nSome enemies") == 8 == by_id["mk-rule-psychic-attack"]["page"]


def test_psychic_attack_faq_on_damage_is_kept(seed: str, by_id: Records) -> None:
    says(seed, "each allow you to ignore 1 point of damage from a Psychic Attack.")
    assert "ignore 1 point of Psychic Attack damage" in rule_text(by_id, "mk-rule-psychic-attack")


def test_randomized_heads_may_wait_until_the_dragon_is_first_attacked(seed: str, by_id: Records) -> None:
    says(seed, "revealed, or even wait until the Apocalypse Dragon is\nattacked for the first time.")
    text = rule_text(by_id, "mk-rule-variant-random-heads")
    assert "when it is first attacked" in text and "at its first attack" not in text


def test_city_rulers_are_listed_by_the_rulebook_not_on_hero_cards(seed: str, by_id: Records) -> None:
    says(seed, "cards at random. The revealed Mage Knight is ruling\nthe city and has the indicated effects.")
    assert "Hero card's entry" not in rule_text(by_id, "mk-rule-variant-mage-knight-in-a-city")
    assert "hero.city_ruler" in sheet("mk-rules")
    rulers = {h for h in ("arythea", "goldyx", "norowas", "tovak", "wolfhawk", "krang", "braevalar", "coral")}
    assert all(by_id[h].get("city_ruler") for h in rulers)


def test_dragon_for_a_city_is_fortified_for_the_player_moving_into_the_city_space(seed: str, by_id: Records) -> None:
    says(seed, "If you move into the City space to attack the\nApocalypse Dragon, it is fortified during that combat,")
    text = rule_text(by_id, "mk-rule-variant-dragon-for-city")
    assert "moves into the city space to attack it" in text and "cooperative attack do not" in text


def test_proxy_player_points_to_no_wrong_page_range(seed: str, by_id: Records) -> None:
    says(seed, "Arythea is being used as the Proxy Player.")
    assert page_of(seed, "Arythea is being used as the Proxy Player.") == 19  # not "pages 16 to 18"
    assert "see_rulebook" not in by_id["mk-rule-proxy-player"]


def test_quest_tick_completes_a_step_unless_the_card_says_otherwise(seed: str, by_id: Records) -> None:
    says(
        seed,
        "signifies that you gain a quest point and, unless noted otherwise on the Quest card, the completion of that quest step.",
    )
    assert "unless the card says otherwise, completes the step" in rule_text(by_id, "mk-rule-quests")


def test_quest_rules_cover_abandoning_failing_and_the_round_refresh(seed: str, by_id: Records) -> None:
    says(
        seed,
        "Abandoning a personal Quest card: You may abandon your personal Quest card at any time on your turn.",
        "Failing a quest: Some Quest cards may instruct you that you have failed the quest.",
        "immediately after refreshing the Spell offer you must refresh the Quest offer by discarding the two rightmost Quest cards.",
        "When performing a combat on a Quest card as your action, you may not also challenge rampaging enemies.",
    )
    done = rule_text(by_id, "mk-rule-quest-completing")
    assert "Abandoning your personal quest (any time on your turn): -1 Reputation" in done
    assert "Failing a quest" in done and "does not count as completed" in done
    refresh = rule_text(by_id, "mk-rule-quest-round")
    assert (
        "discard the two rightmost Quest cards" in refresh and "loses 1 Reputation if it is a personal quest" in refresh
    )
    assert "cannot also include challenged rampaging enemies" in refresh
    assert "selectattr('topic', 'equalto', 'quests')" in sheet("quests")


def test_prove_yourself_steps_2_and_3_in_the_same_turn(seed: str, by_id: Records) -> None:
    says(
        seed,
        "You may complete steps 2 and 3 in the same turn if you are fighting multiple enemies and at least one of them is worth 4 or more Fame.",
    )
    faq = by_id["prove-yourself"]["faq"]
    assert "steps 2 and 3 in the same turn" in faq and "in one combat" not in faq


def test_random_objects_counts_lines_through_all_marked_spaces(seed: str, by_id: Records) -> None:
    line = "Example: All the spaces in a straight line with all spaces with a 7.X Quest marker are outlined in red:"
    says(seed, line)
    assert page_of(seed, line) == 47
    faq = by_id["random-objects"]["faq"]
    assert "with all the spaces holding a 7.X Quest marker" in faq and "rulebook page 47" in faq


# --------------------------------------------------------------------------- possessed enemies, dragon, horsemen


def test_possessed_token_rules_are_complete(seed: str, by_id: Records) -> None:
    says(
        seed,
        "If all possessed enemy tokens\nare in use, do not place a possessed enemy token with\na possessed enemy.",
        "The enemy’s Attack value (of its topmost attack if it has multiple attacks) is modified by the amount shown.",
        "Enemies with the Elusive defensive ability (Lost Legion) have both of their Armor values modified",
    )
    text = rule_text(by_id, "mk-rule-possessed-enemies")
    for fact in (
        "placed without one",
        "only the topmost",
        "summoned enemy's topmost Attack",
        "both Armor values",
        "Faction token",
    ):
        assert fact in text, fact
    assert "'mk-rule-possessed-enemies'" in sheet("possessed-enemies")


def test_arcane_immunity_and_multiple_attacks_are_on_the_dragon_aid(seed: str, by_id: Records) -> None:
    says(
        seed,
        "any non-Attack/non-Block effects, no matter what\nsource they are from.",
        "You cannot group them and block them by a single block.",
        "These effects ignore Arcane Immunity.",
    )
    arcane = rule_text(by_id, "mk-rule-arcane-immunity")
    assert "not an Attack or a Block" in arcane and "Its attacks are not protected" in arcane
    assert "shelter" in arcane
    assert "one Block never covers two of them" in rule_text(by_id, "mk-rule-multiple-attacks")
    assert {
        by_id[i]["topic"] for i in ("mk-rule-arcane-immunity", "mk-rule-multiple-attacks", "mk-rule-dragon-combat")
    } == {"apocalypse dragon"}
    assert "selectattr('topic', 'equalto', 'apocalypse dragon')" in sheet("mk-dragon")


def test_dragon_combat_rules(seed: str, by_id: Records) -> None:
    says(
        seed,
        "You must play all Attack abilities targeting a particular head in the same attack during that combat phase.",
        "You must move into one of the 3 spaces covered by the Apocalypse Dragon figure to attack it; they are not counted as safe spaces.",
        "The level markers of the heads only move once all players participating in the cooperative attack have finished their combat.",
    )
    text = rule_text(by_id, "mk-rule-dragon-combat")
    assert "they are not safe spaces" in text and "must be one attack" in text
    assert "Level markers move only after all participants have fought" in rule_text(
        by_id, "mk-rule-dragon-cooperative"
    )


def test_horseman_on_a_fortified_site_the_site_must_be_assaulted(seed: str, by_id: Records) -> None:
    says(
        seed,
        "If there is an unconquered fortified site in that space, the player must assault the site as usual, but may choose to also fight the Horseman during the same combat.",
    )
    for horseman in ("horseman-war", "horseman-death", "horseman-famine", "horseman-pestilence"):
        assert "must assault the site as usual" in by_id[horseman]["rules"][1]


def test_faction_tokens_can_come_from_starting_at_a_higher_level(seed: str, by_id: Records) -> None:
    says(seed, "if you are playing with Faction tokens, a number of Faction tokens from the appropriate stack(s).")
    for faction in ("apocalypse-cult", "council-of-the-void"):
        assert "3 Influence each" in by_id[faction]["token_rules"]


# --------------------------------------------------------------------------- printed wording


def test_no_rules_example_or_proxy_example_wording(seed: str, by_id: Records) -> None:
    says(seed, "Example: If you are told to draw an Apocalypse possessed brown enemy token,")
    says(seed, "Her current objective card is her Unique card, “Battle Versatility”, a red card.")
    assert not [n for n in by_id["brown-enemy"]["notes"] if "example" in n.lower()]
    assert "example" not in by_id["arythea"]["cards_and_skills"][0]["notes"].lower()


def test_pyramid_floor_order_is_an_inference_not_printed(seed: str, by_id: Records) -> None:
    says(seed, "1 Brown Enemy\n2 Purple Enemy\n3 Green Enemy\nRed Enemy\nWhite Enemy\nGray Enemy")
    says(seed, "Coral therefore has two options, either fight an apocalypse possessed green enemy and leave")
    assert by_id["pyramid"]["inferred"] == ["floors"]
    for colour in ("gray-enemy", "white-enemy", "red-enemy"):
        assert not re.search(r"floor \d", by_id[colour]["notes"][0])
    assert "'floors' not in (site.inferred or [])" in sheet("mk-enemies")


# --------------------------------------------------------------------------- printed kit


def test_quest_cards_markers_and_faction_tokens_are_aids_not_cards(seed: str) -> None:
    says(seed, "30 Quest cards", "31 Quest markers", "24 Faction tokens, 12 each of 2 factions")
    for kind in ("mk.quest", "mk.quest-marker", "mk.faction-token"):
        schema = json.loads((ROOT / "schemas" / f"{kind}.schema.json").read_text(encoding="utf-8"))
        assert schema["x-card"] is False
        assert not (ROOT / "layouts" / f"{kind}.json").exists()
    assert yaml.safe_load(sheet("quests"))["kinds"][1:3] == ["mk.quest", "mk.quest-marker"]


def test_dragon_heads_print_no_empty_level_track(seed: str) -> None:
    says(seed, "A head’s current Armor and Attack value(s) depend on its level, as shown on its large token.")
    layout = json.loads((ROOT / "layouts" / "mk.dragon-head.json").read_text(encoding="utf-8"))
    names = [e["name"] for e in layout["front"]["elements"]]
    assert not [n for n in names if n.startswith("row")] and "body" in names and "glyph" in names


def test_every_printed_token_has_a_drawn_glyph(seed: str, by_id: Records) -> None:
    says(seed, "16 Destroyed Site tokens", "12 Possessed enemy tokens")
    icons = json.loads((ROOT / "layouts" / "icons.json").read_text(encoding="utf-8"))["icons"]
    token_layout = (ROOT / "layouts" / "mk.token.json").read_text(encoding="utf-8")
    for token in (
        "destroyed-site-token",
        "horseman-enemy-token",
        "apocalypse-round-order-token",
        "neutral-shield-token",
        "score-marker",
    ):
        assert f"'{token}':" in token_layout, token
    used = [
        "mk-destroyed-site",
        "mk-horseman",
        "mk-round-order",
        "mk-neutral-shield",
        "mk-score-marker",
        "mk-possessed",
        "mk-dragon-head",
    ]
    for name in used:
        art = ROOT / icons[name]["image"]
        assert art.suffix == ".svg" and "<path" in art.read_text(encoding="utf-8"), name


def test_fractured_lands_prints_that_cities_are_not_scored(seed: str, by_id: Records) -> None:
    says(seed, "Apply standard Achievements scoring and Greatest Quester scoring. Do not apply city scoring.")
    assert [v["scoring"]["city_scoring"] for v in by_id["the-fractured-lands"]["variants"]] == [False] * 3
    assert "{% elif sc.city_scoring is sameas false %}{% set base = base + ['no city scoring'] %}" in sheet(
        "mk-scenario"
    )


def test_possessed_aid_says_where_possessed_enemies_appear(seed: str, by_id: Records) -> None:
    says(
        seed,
        "reveal a random possessed enemy token and a random enemy token to create an apocalypse possessed enemy and fight it.",
        "Place a possessed enemy token face up underneath\neach rampaging enemy on the City tile;",
        "♦ The enemy is possessed by the relevant faction if the site is owned by the Council of the Void or the Apocalypse.",
    )
    where = by_id["mk-rule-possessed-enemies"]["points"][2]
    for place in (
        "ziggurat or pyramid floor",
        "Against the Apocalypse",
        "Apocalypse is Here",
        "The Council versus the Apocalypse",
        "Control head",
    ):
        assert place in where, place
