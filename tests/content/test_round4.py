"""Round 4 of the content review: the defects the round-3b proofread left known
(docs/content-review/round3b-proofread.md, "Left, known"), each held to the rulebook line it rests on.
The change list is docs/content-review/round4.md.

The record and sheet-file checks read files only; the printed checks read the bundled build the content
tests share (tests/content/conftest.py, built once per run). Seed quotes are skipped when the seeds are
not on this machine (set PNP_SEEDS).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pdfplumber
from bundledkit import Bundled, read_pages
from seedkit import says, seed_text

ROOT = Path(__file__).resolve().parents[2]
H3, H4, H3_TOKENS, MK = (
    "000_6347cdb41225c97f.txt",
    "001_84a3812162bd4827.txt",
    "004_a850f7203ac9cad0.txt",
    "002_27974ad6e42770ae.txt",
)
MM = 72 / 25.4


def record(game: str, file: str, rid: str) -> dict[str, Any]:
    records = json.loads((ROOT / "cards" / game / file).read_text(encoding="utf-8"))
    return next(r for r in records if r["id"] == rid)


def printed(bundled: Bundled, relative: str) -> str:
    """A built PDF's text, whitespace folded, so a sentence broken over lines still reads on."""
    return " ".join(" ".join(page.text.split()) for page in read_pages(bundled.output / relative))


# --------------------------------------------------------------------------- 1: no empty box on Sorcery


def test_sorcery_fills_its_panel_with_its_mana_rule(bundled: Bundled) -> None:
    """The Sorcery card printed a Basic row and, under it, 40 % of an empty panel: its effect line (the
    rulebook's Mana entry, in the kit's words) now sits there, under the row, and every Secondary Skill
    card has text down to the foot of its panel (print-shop pages: 3 mm of bleed around the trim)."""
    says(
        seed_text(H4),
        "For example, Basic Chaos Magic gives a Hero 10 Mana points, while the Secondary Skill Sorcery (at basic "
        "level) adds another 10, for a total of 20 Mana points.",
        "The total cost of the Spells cast by a particular Hero may not exceed the number of Mana points of that Hero.",
    )
    effect = record("homm4", "secondary-skills.json", "homm4-sorcery")["effect"]
    assert "Basic Sorcery adds 10, for 20 in all" in effect and "Basic Chaos Magic: 10" in effect
    lowest: dict[str, float] = {}
    basic_row = 0.0
    with pdfplumber.open(bundled.output / "homm4" / "printshop" / "homm4.secondary-skill.pdf") as pdf:
        for page in pdf.pages:
            words = page.extract_words()
            title = (page.extract_text() or "").split("\n")[0]
            if title == "IV":  # a back
                continue
            lowest[title] = max(w["bottom"] / MM - 3 for w in words)
            if title == "Sorcery":
                basic_row = next(w["top"] / MM - 3 for w in words if w["text"] == "Basic")
                under = " ".join(w["text"] for w in words if w["top"] / MM - 3 > basic_row + 5)
                assert "Mana" in under and "Sorcery" in under, under
    assert set(lowest) == {"Defense", "Attack", "Sorcery"}
    assert 50 < basic_row < 55  # the Basic row stays where the level rows start
    # the panel runs to 85 mm: its last quarter holds text on every card, no empty box
    assert all(bottom > 72 for bottom in lowest.values()), lowest


# --------------------------------------------------------------------------- 2: Air Elemental


def test_air_elemental_keeps_the_only_words_the_rulebook_gives() -> None:
    """The rulebook prints three of the Summoned Unit cards' names, all plural, and never the Air one's: its
    only words for it are the spell's, "Summon Air Elemental". A plural would be the kit's invention, so the
    card keeps the spell's words and the record's plural stays marked inferred (checked, not changed)."""
    h3, guide = seed_text(H3), seed_text(H3_TOKENS)
    says(h3, "Then add a Pack of Fire Elementals.", "Then add a Pack of Water Elementals.")
    says(h3, "First Overlord's Army: Pack of Earth Elementals*", '"Summon Air Elemental" Spell card')
    says(guide, "Types: Fire, Earth, Water, Air.")
    assert "Air Elementals" not in h3 and "Air Elementals" not in guide
    air = record("homm3-conflux", "summoned-units.json", "air-elementals")
    assert air["inferred"] == ["name"] and air["summoned_by"] == "summon-air-elemental"
    names = {r["id"]: r["name"] for r in json.loads((ROOT / "cards/homm3-conflux/summoned-units.json").read_text())}
    assert {names[f"{e}-elementals"] for e in ("fire", "water", "earth")} == {
        "Fire Elementals",
        "Water Elementals",
        "Earth Elementals",
    }


# --------------------------------------------------------------------------- 3: lost symbols said plainly


def test_lost_symbol_rules_say_what_the_rulebook_gives(bundled: Bundled) -> None:
    """Armorer, the Arrow Tower and the Gate read a stat or kinds of units the rulebook shows only as an icon
    (lost in the transcription). Each now says so plainly, points to the rulebook section or marks what the
    kit does instead as the kit's reading; the rulebook's own AI ties end with the player's choice."""
    h3 = seed_text(H3)
    says(
        h3,
        "In case of a tie in value, give preference to the unit of the highest tier and then to the greatest value of .",
        "When there are no units to target, the Arrow Tower attacks the and units, following the same order.",
        "place the Gate in front of the unit with the highest .",
        "If there is still more than one valid target, then you can choose which unit is attacked.",
    )
    armorer = next(s["rule"] for s in record("homm3-conflux", "scenarios.json", "hard-place")["ai"]["skills"])
    assert "The rulebook breaks a tie left after that by a second stat it shows only as a symbol" in armorer
    assert "choose among those units yourself (kit's reading)" in armorer
    points = [
        p
        for part in record("homm3-conflux", "campaign.json", "masters-of-the-elements")["rules"]
        for p in part.get("points", [])
    ]
    tower = next(p for p in points if p.startswith("The Arrow Tower"))
    gate = next(p for p in points if p.startswith("If Walls and Gate"))
    stone_skin = next(p for p in points if p.startswith("Instant Defense spells"))
    assert "units that the rulebook gives only as symbols: look them up in its AI Under Siege section" in tower
    assert "a stat it shows only as a symbol: look it up in its AI Under Siege section" in gate
    assert "to the unit you choose: kit's reading" in stone_skin
    assert "two further kinds of units shown only as symbols" not in tower
    booklet = printed(bundled, "homm3-conflux/campaign-masters-of-the-elements.pdf")
    assert "look them up in its AI Under Siege section" in booklet
    assert "choose among those units yourself (kit's reading)" in printed(bundled, "homm3-conflux/setup/hard-place.pdf")


# --------------------------------------------------------------------------- 4: half-empty aids


def test_faction_tokens_share_the_apocalypse_dragon_aid(bundled: Bundled) -> None:
    """The Faction tokens aid (half a page) is a part of the Apocalypse Dragon aid, whose second page was a
    third full: one file of 2 pages, nothing left out."""
    says(seed_text(MK), "The effect of each token is described on the reference card.")
    aid = bundled.output / "mage-knight" / "aids" / "apocalypse-dragon.pdf"
    text = printed(bundled, "mage-knight/aids/apocalypse-dragon.pdf")
    assert len(read_pages(aid)) == 2
    assert not (bundled.output / "mage-knight" / "aids" / "faction-tokens.pdf").exists()
    for words in ("The five heads", "Faction tokens", "Apocalypse Cult: 12 tokens", "Council of the Void: 12 tokens"):
        assert words in text, words
    assert "Scroll of Seeking:" in text and "Using Faction tokens" in text


# --------------------------------------------------------------------------- 5: Build and Population tokens


def test_build_and_population_tokens_say_the_rulebook_gives_no_rule(bundled: Bundled) -> None:
    """The Conflux rulebook names the Build and Population tokens only in its component list: the aid says
    it gives no rule for them, and the kit invents none."""
    h3 = seed_text(H3)
    says(h3, "• 1 × Build token\n• 1 × Population token")
    assert h3.count("Build token") == 1 and h3.count("Population token") == 1
    for rid in ("build-token", "population-token"):
        token = record("homm3-conflux", "tokens.json", rid)
        assert not {"placed_when", "effect", "removed_when"} & set(token), rid
    text = printed(bundled, "homm3-conflux/aids/map-locations-and-tokens.pdf")
    assert "Also in the box: Build token, Population token (the Conflux rulebook gives no rule for them)." in text
    assert len(read_pages(bundled.output / "homm3-conflux" / "aids" / "map-locations-and-tokens.pdf")) == 1
