"""Mage Knight (seed 002), issue 28 round 3b: each fix of the proofread (docs/content-review/round3-proofread.md)
held to the rulebook line it rests on. The change list is docs/content-review/round3b-mk.md.

Most tests read the records, layouts and sheet files only; the ones that check printed wording read the
bundled build the content tests share (tests/content/conftest.py, built once per run). Seed quotes are
skipped when the seeds are not on this machine (set PNP_SEEDS).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from bundledkit import Bundled, read_pages
from seedkit import says, seed_text

ROOT = Path(__file__).resolve().parents[2]
MK = "002_27974ad6e42770ae.txt"
Records = dict[str, dict[str, Any]]
HEADS = {"war": "War", "death": "Death", "famine": "Famine", "pestilence": "Pestilence"}


@pytest.fixture(scope="module")
def seed() -> str:
    return seed_text(MK)


def layout(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "layouts" / f"{name}.json").read_text(encoding="utf-8"))
    return data


def elements(name: str, side: str = "front") -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in layout(name)[side]["elements"]}


def sheet(name: str) -> str:
    return (ROOT / "sheets" / f"{name}.yaml").read_text(encoding="utf-8")


def printed(bundled: Bundled, relative: str) -> str:
    """A built PDF's text, whitespace folded, so a sentence broken over lines still reads on."""
    return " ".join(" ".join(page.text.split()) for page in read_pages(bundled.output / relative))


# --------------------------------------------------------------------------- 1, 22, 37: Horsemen


def test_1_horsemen_are_named_and_tinted_by_their_heads(seed: str, by_kind: dict[str, list[dict[str, Any]]]) -> None:
    says(
        seed,
        "War\nFamine Death Pestilence\nDestroyed Sites",  # the four pictures of the Four Horsemen page
        "b. Increase the level of the corresponding\nhead of the Apocalypse Dragon by 1",
        "If any player defeated the corresponding Horseman, they add the level of the Horseman to their count.",
    )
    horsemen = by_kind["mk.horseman"]
    assert {h["head"]: h["name"] for h in horsemen} == HEADS
    assert all("inferred" not in h for h in horsemen)
    band = elements("mk.horseman")["band"]
    assert "palette.head[head]" in band["fill"] and "inferred" not in band["fill"]


def test_1_horseman_card_has_a_level_track_1_to_6_and_no_invented_values(
    seed: str, by_kind: dict[str, list[dict[str, Any]]]
) -> None:
    says(
        seed,
        "mark this level on the Horseman card with a neutral Shield token.",
        "The level of each Horseman is equal to the number of players plus 2",  # 2-4 players: up to 6
        "Horsemen: Each Horseman begins at level 6",
        "Each Horseman is level 2",
        "Otherwise, if the Horseman is greater\nthan level 1, reduce its level by 1",
    )
    front = elements("mk.horseman")
    assert [front[f"lv{n}-n"]["text"] for n in range(1, 7)] == ["1", "2", "3", "4", "5", "6"]
    assert "lv7" not in front
    assert all("levels" not in h and "preferred_sites" not in h for h in by_kind["mk.horseman"])
    assert "beside the box's Horseman card" in front["track-note"]["text"]


def test_1_horseman_tokens_are_named_but_share_one_back(seed: str, by_id: Records) -> None:
    says(
        seed,
        "4 Horsemen enemy tokens",
        "Shuffle the 4 Horsemen enemy tokens and place one face down on each Core non-city tile",
    )
    token = by_id["horseman-enemy-token"]
    assert token["copies"] == len(token["per_horseman"]) == 4
    assert {by_id[h]["name"] for h in token["per_horseman"]} == set(HEADS.values())
    assert "per_horseman" in elements("mk.token")["name"]["text"]
    assert "per_horseman" not in elements("mk.token", "back")["back-label"]["text"]  # they start face down


def test_37_horseman_back_word_fits_inside_its_emblem(seed: str) -> None:
    says(seed, "4 Horsemen cards")
    back = elements("mk.horseman", "back")["back-title"]
    emblem = elements("mk-base-card", "back")["back-emblem"]
    word_mm = len("HORSEMAN") * 0.72 * back["size"] * 25.4 / 72  # bold capitals, generous width
    assert back["text"] == "HORSEMAN" and word_mm < emblem["w"]


def test_22_horsemen_line_names_the_four_cards(bundled: Bundled) -> None:
    text = printed(bundled, "mage-knight/setup/apocalypse-is-here.pdf")
    assert "Horsemen: War, Death, Famine, Pestilence" in text
    assert "Horseman card, Horseman card" not in text


def test_1_apocalypse_is_here_horseman_rule_on_the_card(seed: str, by_kind: dict[str, list[dict[str, Any]]]) -> None:
    says(seed, "If this was the fourth site that Horseman\nhas destroyed, remove its enemy token from the map")
    for horseman in by_kind["mk.horseman"]:
        assert f"raises the {horseman['name']} head one level" in horseman["rules"][-1]


# --------------------------------------------------------------------------- 2, 38: dragon heads


def test_2_glade_mana_rule_is_scoped_to_the_dragon_attacking_from_the_air(seed: str) -> None:
    says(
        seed,
        "Each head except the Control head attacks the player.",
        "A magical glade: You may stop a head from attacking you this turn by spending a mana of the relevant color",
        "If any of these effects are used, the site is destroyed at the end of the combat",
    )
    body = elements("mk.dragon-head")["body"]["text"]
    assert "in Against the Dragon, when the Dragon attacks you from the air" in body
    assert "the glade is destroyed after that combat" in body
    assert "against the Dragon in a magical glade, pay one" not in body


def test_38_famine_band_is_not_the_card_colour(seed: str) -> None:
    says(seed, "blue for Death, white for Famine, green for Pestilence, or red for War")
    palettes = layout("mk-base")["palettes"]
    parchment = layout("mk.dragon-head")["front"]["background"]
    assert palettes["head"]["famine"] == palettes["mana"]["white"] != parchment
    band = [int(palettes["head"]["famine"][i : i + 2], 16) for i in (1, 3, 5)]
    card = [int(parchment[i : i + 2], 16) for i in (1, 3, 5)]
    assert band[2] - band[0] > card[2] - card[0] + 0x20  # a cool grey against warm parchment, not beige on beige


# --------------------------------------------------------------------------- 5, 31: possessed tokens


def test_5_possessed_tokens_are_not_printed_as_useless_blanks(seed: str) -> None:
    says(seed, "12 Possessed enemy tokens", "The enemy’s Armor value is modified by the amount shown.")
    schema = json.loads((ROOT / "schemas" / "mk.possessed-enemy.schema.json").read_text(encoding="utf-8"))
    assert schema["x-card"] is False and not (ROOT / "layouts" / "mk.possessed-enemy.json").exists()


def test_31_possessed_aid_counts_faces_in_plain_words(seed: str, bundled: Bundled) -> None:
    says(seed, "x1\nx1\nx2 x1\nx3\nx1\nx1\nx1\nx1")  # the Quick Reference's copy counts
    text = printed(bundled, "mage-knight/aids/possessed-enemies.pdf")
    assert (
        "The box holds 12 possessed enemy tokens with 9 different faces: one face ×3, one face ×2, "
        "the other 7 faces ×1 each." in text
    )
    assert "Quick Reference order" not in text and "printed only on the box's tokens" in text


# --------------------------------------------------------------------------- 6, 12: tokens


def test_6_one_score_marker_per_hero_named(seed: str, by_id: Records) -> None:
    says(
        seed,
        "8 Score markers, one per Hero (including Heroes in previous expansions)",
        "Arythea: Power of Pain",
        "Coral: Treasure Hunter",
    )
    marker = by_id["score-marker"]
    assert marker["copies"] == len(marker["per_hero"]) == 8
    names = [by_id[h]["name"] for h in marker["per_hero"]]
    assert names == ["Arythea", "Goldyx", "Norowas", "Tovak", "Wolfhawk", "Krang", "Braevalar", "Coral"]
    assert "per_hero" in elements("mk.token")["name"]["text"]


def test_12_token_labels_sit_inside_the_gold_ring(seed: str) -> None:
    says(seed, "16 Destroyed Site tokens", "10 Neutral Shield tokens")
    front = elements("mk.token")
    ring = front["ring"]
    cx, cy, radius = ring["x"] + ring["w"] / 2, ring["y"] + ring["h"] / 2, ring["w"] / 2 - 0.25
    for name in ("name", "hero-sub"):
        box = front[name]
        for x in (box["x"], box["x"] + box["w"]):
            for y in (box["y"] + 1.0, box["y"] + box["h"] - 1.0):  # the text's line, not its padding
                assert math.hypot(x - cx, y - cy) < radius, (name, x, y)


# --------------------------------------------------------------------------- 17: map tiles


def test_17_map_tiles_are_a_checklist_not_blank_tiles(seed: str, bundled: Bundled) -> None:
    says(
        seed,
        "3 countryside (green) Map tiles (15, 16, 17)",
        "ensure exactly 1 core non-city tile with a pyramid on it",
        "with a Ziggurat (7, 9, 16, 17)",
    )
    schema = json.loads((ROOT / "schemas" / "mk.map-tile.schema.json").read_text(encoding="utf-8"))
    assert schema["x-card"] is False and not (ROOT / "layouts" / "mk.map-tile.json").exists()
    text = printed(bundled, "mage-knight/aids/component-list.pdf")
    for tile in ("Countryside tile 15", "Countryside tile 16", "Core non-city tile 11", "Core non-city tile 12"):
        assert tile in text
    assert "exactly 1 core non-city tile with a pyramid on it: look for the pyramid on the tiles" in text


# --------------------------------------------------------------------------- 20-23, 34: setup sheets


def test_20_friendly_cities_have_no_leader(seed: str, bundled: Bundled) -> None:
    says(
        seed,
        "Shield token on it, but no-one is its leader.",
        "Both the player and the Dummy player put one Shield token on it, but no-one is its leader.",
    )
    for name in ("for-the-council", "against-the-dragon", "against-the-apocalypse", "apocalypse-is-here"):
        text = printed(bundled, f"mage-knight/setup/{name}.pdf")
        assert "but no one is its leader" in text, name


def test_21_council_cities_are_allied_not_held(seed: str, bundled: Bundled) -> None:
    says(seed, "The blue city is allied with the Council of the Void.", "The red city is allied with the Apocalypse.")
    text = printed(bundled, "mage-knight/setup/the-council-versus-the-apocalypse.pdf")
    assert "allied with Council of the Void" in text and "held by Council" not in text


def test_22_setup_lines_are_not_repeated_per_player_count_and_agree_in_number(seed: str, bundled: Bundled) -> None:
    says(
        seed,
        "ensure\nthe 2 countryside tiles with a ziggurat on them\nare included)",
        "♦ Score 1 point for each card in the Dummy player’s Deed deck",
    )
    apocalypse = printed(bundled, "mage-knight/setup/against-the-apocalypse.pdf")
    assert apocalypse.count("Every player count: 2 Countryside tiles with a ziggurat") == 2  # competitive, cooperative
    assert "Exactly 1 Countryside tile with a ziggurat" in apocalypse  # solo: singular, no "1 players"
    dragon = printed(bundled, "mage-knight/setup/against-the-dragon.pdf")
    assert "Every player count: Core non-city tile 3" in dragon and "2 players: Core non-city tile 3" not in dragon
    everything = " ".join(
        printed(bundled, f"mage-knight/setup/{p.name}") for p in (bundled.output / "mage-knight/setup").glob("*.pdf")
    )
    assert not re.search(r"\b1 players\b|\b1 tiles\b|\+1 points\b", everything)
    assert "Base score: the lowest Fame; one team score" not in everything


def test_23_sheets_name_the_pieces_to_take_from_the_box(seed: str, by_id: Records) -> None:
    says(
        seed,
        "Place the Against the Apocalypse scenario card\nnearby.",
        "30 Quest cards\n31 Quest markers",
        "If there are any undestroyed sites in list A on the Horseman card",
        "A head’s current Armor and Attack value(s) depend on its level, as shown on its large token.",
    )
    box = {k: " ".join(by_id[k].get("from_the_box", [])) for k in by_id if by_id[k].get("kind") == "mk.scenario"}
    assert "Quest cards and Quest markers" in box["for-the-council"] and "Quest cards" in box["the-fractured-lands"]
    assert "Against the Apocalypse scenario card" in box["against-the-apocalypse"]
    assert "A, B and C lists" in box["apocalypse-is-here"] and "large head tokens" in box["against-the-dragon"]
    assert "Horseman cards" in box["against-the-horsemen"]
    assert "from_the_box" in sheet("mk-scenario")
    assert not [k for k, text in box.items() if re.search(r"\bl\.\d", text)]  # line numbers stay in notes


def test_34_first_reconnaissance_new_tile_line_says_what_to_do(seed: str, by_id: Records) -> None:
    says(
        seed,
        "For a detailed description of this scenario, see the\nGame Walkthrough",
        "♦ A new tile (no matter which type).",
    )
    rule = by_id["first-reconnaissance"]["special_rules"][0]
    assert (
        rule["text"] == "Follow the new-tile rule of the Game Walkthrough in the base game, whatever the tile's type."
    )


# --------------------------------------------------------------------------- 30, 39, 40: aids


def test_30_faction_token_aid_has_rulings_not_an_faq_table(seed: str, bundled: Bundled) -> None:
    says(seed, "The effect of each token is described on the reference card.", "Faction tokens\nScroll of Seeking")
    text = printed(bundled, "mage-knight/aids/apocalypse-dragon.pdf")  # round 4: the Faction tokens share its page 2
    assert "Rulings" in text and "Scroll of Seeking:" in text and "FAQ:" not in text
    assert "effect is printed on the box's Faction token reference cards" in text


def test_39_ziggurat_and_pyramid_rules_print_once(seed: str, bundled: Bundled) -> None:
    says(seed, "Ziggurat and pyramid are new adventure sites.")
    text = printed(bundled, "mage-knight/aids/enemies.pdf")
    assert "Ziggurat and pyramid" in text
    assert text.count("Adventure site you may ignore even when standing on it") == 1


def test_40_campaign_start_keeps_reputation_drift_and_banners(seed: str, by_id: Records) -> None:
    says(
        seed,
        "immediately moves it 3 spaces towards the middle of the track, stopping if it gets to the central ‘0’ Reputation space.",
        "Banner Artifacts must start in your deck; they\ncannot start attached to one of your Units",
    )
    points = " ".join(by_id["mk-rule-higher-level"]["points"])
    assert "moves 3 spaces towards the middle, stopping at 0" in points
    assert "Banner Artifacts start in your deck, never attached to a Unit" in points


# --------------------------------------------------------------------------- round 3c (round3b-proofread.md N-defects)


def test_n6_n4_no_cross_reference_block_and_no_near_empty_setup_page(bundled: Bundled) -> None:
    assert "Components named in this scenario" not in sheet("mk-scenario")
    pages = read_pages(bundled.output / "mage-knight" / "setup" / "the-fractured-lands.pdf")
    # each variant's page carries its own setup, not a 2-line overflow
    assert all(len(" ".join(page.text.split())) > 600 for page in pages), [len(p.text) for p in pages]


def test_n13_dragon_head_says_what_its_level_marker_is_once(by_kind: dict[str, list[dict[str, Any]]]) -> None:
    assert "(a neutral Shield token) on its large token" in (ROOT / "layouts" / "mk.dragon-head.json").read_text()
    for head in by_kind["mk.dragon-head"]:
        assert not any("(a neutral Shield token)" in rule for rule in head.get("rules", [])), head["id"]


def test_n17_psychic_attack_prints_on_one_aid_only(bundled: Bundled) -> None:
    aids = ("possessed-enemies", "rules-reference", "apocalypse-dragon")
    texts = {a: printed(bundled, f"mage-knight/aids/{a}.pdf") for a in aids}
    assert [a for a in aids if "Psychic Attack and Psychic Block" in texts[a]] == ["possessed-enemies"]


def test_n12_horseman_subtitle_says_what_it_does_to_its_head(seed: str) -> None:
    says(seed, "head of the Apocalypse Dragon by 1 by")  # 002:1479: a destroyed site raises its head
    front = elements("mk.horseman")
    assert (
        "raises the {{ head | ref }} head" in front["subtitle"]["text"] and "its head:" not in front["subtitle"]["text"]
    )
    assert "Lay it beside the box's Horseman card" in front["track-note"]["text"]


def test_n9_component_sub_counts_read_as_part_of_their_line(seed: str, bundled: Bundled) -> None:
    says(seed, "24 Faction tokens, 12 each of 2 factions: The Apocalypse Cult and the Council of the Void")
    text = printed(bundled, "mage-knight/aids/component-list.pdf")
    assert "☐ 30 Quest cards of which 9 starting Quest cards (marked *) ☐ 31 Quest markers" in text
    assert "☐ 24 Faction tokens of which 12 Faction tokens: The Apocalypse Cult, 12 Faction tokens: the Council" in text
    homm3 = printed(bundled, "homm3-conflux/aids/component-list.pdf")
    assert "☐ 12 Map tile of which 1 Starting tile, 3 Far tile, 8 Elemental Near tile ☐ 1 Town board" in homm3
    assert "☐ 9 Statistic card of which 3 Attack card, 1 Defense card, 2 Power card, 3 Knowledge card" in homm3
    assert "☐ 1 Starting tile" not in homm3 and "☐ 3 Attack card" not in homm3
