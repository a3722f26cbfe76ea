"""The bundled cards and sheets as a player prints them: `pnp build` and `pnp export printshop` on
a copy of the bundled project (made once per test run: tests/content/conftest.py), then the text
pdfplumber extracts from every card PDF and every sheet PDF (setup sheets, the campaign booklet,
reference aids, the game booklets).

No placeholder word, no editorial remark (seed file names, JSON pointers, bracket tags, notes for
reviewers), no value marked as an inference, and no character drawn under 6 pt.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from bundledkit import Bundled, read_pages

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("homm3-conflux", "homm4", "mage-knight")

# words a layout once printed in place of data it did not have
PLACEHOLDERS = (
    "Portrait",
    "Spell icon",
    "Skill icon",
    "Object image",
    "Town image",
    "Artifact image",
    "Object type",
    "Town type",
    "type not given",
    "Proxy tile",
)
EDITORIAL = (
    re.compile(r"\d{3}_[0-9a-f]{16}"),  # a seed file name
    re.compile(r"\.txt\b"),
    re.compile(r"\bseed\b", re.IGNORECASE),
    re.compile(r"(?:^|\s)#?/[a-z_]+/\d+"),  # a JSON pointer such as /components/20 or scenarios/0
    re.compile(r"\[[^\]]*\]"),  # a bracket tag
    re.compile(r"transcri|inferred|not print|cut off|rulebook does not|rulebook shows", re.IGNORECASE),
    re.compile(r"not given|not reproduced|game-mechanics sections|is printed as|printed book", re.IGNORECASE),
)


@pytest.fixture(scope="module")
def built(bundled: Bundled) -> Path:
    """The output of the bundled project built and exported for a print shop (tests/content/conftest.py)."""
    return bundled.output


def _card_pdfs(output: Path) -> list[Path]:
    """Card sheets (output/<game>/<kind>.pdf): every face, front and back; no setup sheets or aids.
    The print-shop files draw the same faces one a page: the tests that need a face alone read
    them (`_faces`), the others read each face once, here."""
    return [p for game in GAMES for p in sorted((output / game).glob("*.*.pdf"))]


@pytest.fixture(scope="module")
def pages(built: Path) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(pdf and page, extracted text, characters) for every page of every card PDF."""
    return _read_pages(built, _card_pdfs(built))


def _read_pages(output: Path, pdfs: list[Path]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(pdf and page, extracted text, characters) for every page of the given PDFs."""
    out: list[tuple[str, str, list[dict[str, Any]]]] = []
    for pdf_path in pdfs:
        for number, page in enumerate(read_pages(pdf_path), 1):
            out.append((f"{pdf_path.relative_to(output)} p.{number}", page.text, list(page.chars)))
    return out


def _sheet_pdfs(output: Path) -> list[Path]:
    """Every other PDF a build writes: setup sheets, campaign booklets, aids, game booklets."""
    cards = set(_card_pdfs(output))
    return [p for p in sorted(output.rglob("*.pdf")) if p not in cards]


@pytest.fixture(scope="module")
def sheet_pages(built: Path) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(pdf and page, extracted text, characters) for every page of every sheet PDF."""
    return _read_pages(built, _sheet_pdfs(built))


def test_every_card_kind_was_built(built: Path) -> None:
    kinds = {p.stem for p in _card_pdfs(built) if p.parent.name != "printshop"}
    assert {"homm3.summoned-unit", "homm3.spell", "homm4.town", "homm4.spell", "mk.dragon-head", "mk.horseman"} <= kinds
    # Quest cards, Quest markers and Faction tokens are printed on the quests and Apocalypse Dragon aids:
    # the rulebook gives no card's full text, so a card face would be near-empty.
    assert not {"mk.quest", "mk.quest-marker", "mk.faction-token"} & kinds
    # Likewise the Conflux Unit, Neutral Unit, Ability and Town Building cards (no statistics, no
    # effects in the rulebooks): printed on the units-and-cards aid instead.
    assert not {"homm3.unit", "homm3.neutral-unit", "homm3.ability", "homm3.town-building"} & kinds
    # Mage Knight's blank map tiles are a checklist on the component-list aid, and the possessed
    # tokens (nine faces the rulebook does not give) are drawn from the box.
    assert not {"mk.map-tile", "mk.possessed-enemy"} & kinds
    assert len(kinds) >= 18


def test_no_placeholder_word_prints(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    found = [(where, word) for where, text, _ in pages for word in PLACEHOLDERS if word in text]
    assert not found, found


def test_homm4_cards_print_no_empty_faction_or_class_chip(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    found = [
        where
        for where, text, _ in pages
        if "homm4" in where and re.search(r"(?m)(?:^|\s)(?:Faction|Class)(?:\s|$)", text)
    ]
    assert not found, found


def test_quest_rulings_print_their_step_text(sheet_pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    """The quests aid prints a step only with its text: no bare "Step N" row for a step the rulebook only numbers."""
    text = " ".join(" ".join(t.split()) for where, t, _ in sheet_pages if "mage-knight/aids/quests.pdf" in where)
    assert "Step 1a: Involves adding a Wound to your hand" in text
    assert "Step 1: The first Hero to do this step picks the map space" in text
    assert not re.search(r"Step \d+[a-z]?:\s*(?:Step|$)", text)


def test_no_editorial_text_prints(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    found = [(where, m.group(0)) for where, text, _ in pages for pattern in EDITORIAL if (m := pattern.search(text))]
    assert not found, found


def test_no_reviewer_note_prints(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    """A record's `note` is for reviewers: take the notes of the printed kinds and look for them."""
    import json

    notes: list[str] = []
    for path in sorted((ROOT / "cards").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for record in data if isinstance(data, list) else [data]:
            for note in (record.get("note"), record.get("source", {}).get("note")):
                if isinstance(note, str) and len(note) > 25:
                    notes.append(note[:25])
    text = " ".join(" ".join(t.split()) for _, t, _ in pages)
    assert notes
    assert [n for n in notes if n in text] == []


def test_inferences_do_not_print_as_facts(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    def text_of(fragment: str) -> str:
        return " ".join(t for where, t, _ in pages if fragment in where)

    assert "Air Elemental" in text_of("homm3.summoned-unit")  # the spell's own words (000:470)
    assert "Summoned Unit (Air)" not in text_of("homm3.summoned-unit")
    assert "Air Elementals" not in text_of("homm3.summoned-unit")
    assert "Asylum" not in text_of("homm4.town")
    assert "Town Card (rulebook example)" not in text_of("homm4.town")  # issue 28: no editorial name
    horsemen = text_of("mk.horseman")
    # issue 28 round 3b: named by head; round 3c (N12): the subtitle says what the Horseman does to it (002:1479)
    assert "raises the War head" in horsemen and "raises the Pestilence head" in horsemen
    assert not re.search(r"Horseman \((War|Death|Famine|Pestilence)\)|rides for the", horsemen)


def _size(char: dict[str, Any]) -> float:
    """The font size a character is drawn at: its box height, or its width when turned a quarter."""
    return float(char["height"] if char["upright"] else char["width"])


def test_no_text_under_6_pt(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    small = sorted(
        {(where, c["text"], round(_size(c), 2)) for where, _, chars in pages for c in chars if _size(c) < 5.99}
    )
    assert not small, small[:20]


def _player_strings(node: Any, path: str) -> list[tuple[str, str]]:
    """Every string a sheet or card may print: all fields but `note`, `source` and `inferred`."""
    if isinstance(node, dict):
        return [
            found
            for key, value in node.items()
            if key not in ("note", "source", "inferred")
            for found in _player_strings(value, f"{path}/{key}")
        ]
    if isinstance(node, list):
        return [found for i, value in enumerate(node) for found in _player_strings(value, f"{path}/{i}")]
    return [(path, node)] if isinstance(node, str) else []


def test_no_record_field_that_prints_holds_editorial_text(records: list[dict[str, Any]]) -> None:
    found = [
        (record["id"], path, text)
        for record in records
        for path, text in _player_strings(record, "")
        for pattern in EDITORIAL
        if pattern.search(text)
    ]
    assert not found, found[:10]


def test_sheets_were_built(sheet_pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    pdfs = {where.split(" p.")[0] for where, _, _ in sheet_pages}
    assert sum("/setup/" in p for p in pdfs) == 17
    assert {"homm3-conflux/campaign-masters-of-the-elements.pdf", "mage-knight/aids/quests.pdf"} <= pdfs
    assert sum("/aids/" in p for p in pdfs) >= 13  # issue 28: HoMM IV folds 5 aids into 2


def test_sheets_print_no_editorial_text(sheet_pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    found = [
        (where, m.group(0)) for where, text, _ in sheet_pages for pattern in EDITORIAL if (m := pattern.search(text))
    ]
    assert not found, found[:10]
    assert not [(where, word) for where, text, _ in sheet_pages for word in PLACEHOLDERS if word in text]


def test_sheets_print_no_source_note(sheet_pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    """`source.note` is for reviewers only: none of them, whole, appears on any sheet page."""
    import json

    notes: list[str] = []
    for path in sorted((ROOT / "cards").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for record in data if isinstance(data, list) else [data]:
            note = record.get("source", {}).get("note")
            if isinstance(note, str) and len(note) > 20:
                notes.append(" ".join(note.split()))
    text = " ".join(" ".join(t.split()) for _, t, _ in sheet_pages)
    assert len(notes) > 5
    assert [n for n in notes if n in text] == []


def test_sheets_point_to_the_rulebook_page_for_map_diagrams(
    sheet_pages: list[tuple[str, str, list[dict[str, Any]]]],
) -> None:
    """The diagrams are not reproduced: the sheet says so once, with the page the seed gives."""

    def text_of(fragment: str) -> str:
        return " ".join(" ".join(t.split()) for where, t, _ in sheet_pages if fragment in where)

    # 000_6347cdb41225c97f.txt: "The printed book shows the scenario map layout on page 21."
    assert text_of("setup/troubled-walking-on-clouds.pdf").count("Map layout: see the rulebook, page 21.") == 1
    # "The printed book shows the sector layouts for 2-player and 3-player games on pages 14 and 15."
    assert "Map layout: see the rulebook, pages 14, 15." in text_of("setup/too-many-monsters.pdf")
    # 002_27974ad6e42770ae.txt: "Against the Horsemen, Overview 28" ... "as shown in the diagram."
    assert "Map diagram: see the rulebook, page 28." in text_of("setup/against-the-horsemen.pdf")


def test_sheets_draw_no_text_under_6_pt(sheet_pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    small = sorted(
        {(where, c["text"], round(_size(c), 2)) for where, _, chars in sheet_pages for c in chars if _size(c) < 5.99}
    )
    assert not small, small[:20]


def test_sheets_print_no_doubled_word_or_repeated_fact(
    sheet_pages: list[tuple[str, str, list[dict[str, Any]]]],
) -> None:
    """A tier label before a unit named by its tier ("Azure Azure Dragons"), a time limit said twice."""
    text = " ".join(" ".join(t.split()) for _, t, _ in sheet_pages)
    assert not re.search(r"\b(Bronze|Silver|Gold|Azure) \1\b", text)
    assert "the game is a draw. If nobody" not in text
    deck_order = re.search(r"Bronze .*? Silver .*? Gold", text[text.index("Keep only these cards") :])
    assert deck_order and "Gold" not in deck_order.group(0)[: deck_order.group(0).index("Silver")]


def test_aids_print_every_quest_and_hero_faq(
    sheet_pages: list[tuple[str, str, list[dict[str, Any]]]], by_kind: dict[str, list[dict[str, Any]]]
) -> None:
    """The quests aid prints each quest's FAQ; the rules reference prints each hero's FAQ, in the records' words."""

    def text_of(fragment: str) -> str:
        return " ".join(" ".join(t.split()) for where, t, _ in sheet_pages if fragment in where)

    quests, rules = text_of("mage-knight/aids/quests.pdf"), text_of("mage-knight/aids/rules-reference.pdf")
    quest_faqs = [q["faq"] for q in by_kind["mk.quest"] if q.get("faq")]
    hero_faqs = [part for h in by_kind["mk.hero"] for e in h.get("faq", []) for part in (e["topic"], e["answer"])]
    assert len(quest_faqs) >= 5 and "The card you discard cannot be a Wound." in hero_faqs
    assert [f for f in quest_faqs if " ".join(f.split()) not in quests] == []
    # a ruling table cell may wrap the topic: compare word by word
    assert [f for f in hero_faqs if not all(word in rules for word in f.split())] == []


def _faces(output: Path, pdf: str, title: str) -> list[str]:
    """The text of the print-shop pages (one card face each) of `pdf` whose first line is `title`."""
    (path,) = output.glob(f"*/printshop/{pdf}")
    return [page.text for page in read_pages(path) if page.text.split("\n")[0] == title]


def test_spells_with_only_a_campaign_ai_rule_print_that_rule(built: Path) -> None:
    """Chain Lightning, Fireball, Stone Skin...: the rulebooks give no effect of their own, so the text
    box holds how campaign AI Heroes cast them (issue 28: no near-empty card), inside the box."""
    text_box = (0.984314, 0.964706, 0.909804)  # the layout's text box fill, #fbf6e8
    mm = 72 / 25.4
    seen = {}
    with pdfplumber.open(built / "homm3-conflux" / "printshop" / "homm3.spell.pdf") as pdf:
        for page in pdf.pages:
            text = page.extract_text() or ""
            title = text.split("\n")[0]
            boxes = [c for c in page.curves if tuple(round(v, 6) for v in c["non_stroking_color"] or ()) == text_box]
            if title in ("Chain Lightning", "Fireball", "Stone Skin", "Cure", "Fire Shield", "Weakness", "Blind"):
                seen[title] = [round(b["height"] / mm, 1) for b in boxes]
                if title != "Blind":
                    assert "Campaign AI:" in text, title
                    body = [c for c in page.chars if c["top"] > boxes[0]["top"]]
                    assert all(c["bottom"] <= boxes[0]["bottom"] for c in body if c["top"] < boxes[0]["bottom"]), title
    for title in ("Chain Lightning", "Fireball", "Stone Skin", "Cure", "Fire Shield", "Weakness", "Blind"):
        assert len(seen[title]) == 1 and seen[title][0] > 30, (title, seen[title])


def test_unit_cards_print_known_stats_and_no_inferred_phase(
    built: Path,
) -> None:
    # 001_84a3812162bd4827.txt: "a Stack of three Golden Golems (which are Level 2 Creatures)"
    golems = _faces(built, "homm4.unit.pdf", "Golden Golems")
    assert golems and all("LEVEL" in t and "2" in t for t in golems)
    # the Phases of both units come only from worked examples ("Phase 3 has come in the Round, and
    # a Bandit ... attacks"; "the Golden Golems' turn to attack comes in Phase 7"): marked inferred
    bandits = _faces(built, "homm4.unit.pdf", "Bandits")
    assert bandits and golems
    assert not [t for t in bandits + golems if "PHASE" in t]


def test_sheets_print_tile_codes_as_the_rulebook_prints_them(
    sheet_pages: list[tuple[str, str, list[dict[str, Any]]]],
) -> None:
    def text_of(fragment: str) -> str:
        return " ".join(" ".join(t.split()) for where, t, _ in sheet_pages if fragment in where)

    # 000_6347cdb41225c97f.txt, scenario 1: "... Castle (F3, F6, F9), Tower (F1–F3), Fortress (F13–F15) ..."
    # prints the Tower tiles' own codes (round 3b): F2 and F3 are a Dungeon and a Castle tile
    first = text_of("setup/troubled-walking-on-clouds.pdf")
    assert "Tower: Tower Far tile (#F1–#F3)" in first and "(F1–F3)" not in first
    # scenario 4: "... Castle (F3, F6, F9), Tower (#F1–#F3, #F7), Fortress (F13–F15) ..."
    assert "Tower: Tower Far tile (#F1, #F2, #F3, #F7)" in text_of("setup/master-of-the-elements.pdf")


def test_mk_sheets_point_to_the_rulebook_for_what_they_do_not_reproduce(
    sheet_pages: list[tuple[str, str, list[dict[str, Any]]]],
) -> None:
    def text_of(fragment: str) -> str:
        return " ".join(" ".join(t.split()) for where, t, _ in sheet_pages if fragment in where)

    # 002_27974ad6e42770ae.txt: "... as shown in the table below." (the table's text is garbled)
    assert "(see the rulebook, page 31)" in text_of("setup/against-the-dragon.pdf")
    # "2. T ... turn, unless moving fewer spaces is enough ... they will only move 1 space" (cut off)
    assert "How far it moves each turn: see the rulebook, page 36." in text_of("setup/apocalypse-is-here.pdf")


def test_unit_tokens_print_no_inferred_expansion(
    built: Path, sheet_pages: list[tuple[str, str, list[dict[str, Any]]]]
) -> None:
    # 004_a850f7203ac9cad0.txt names the units' expansions ("Sorceresses (Cove)", "Ogres (Stronghold)",
    # "Behemoths (Stronghold)"), not the tokens'; it heads "Clone (Cove)" with the token's own
    for title, expansion in (("Weakness", "Cove"), ("Attack", "Stronghold"), ("Corrosion", "Stronghold")):
        faces = _faces(built, "homm3.combat-token.pdf", title)
        assert faces and not [f for f in faces if expansion in f], title
    assert all("Cove" in f for f in _faces(built, "homm3.combat-token.pdf", "Clone"))
    aid = " ".join(" ".join(t.split()) for where, t, _ in sheet_pages if "aids/combat-tokens.pdf" in where)
    assert "Weakness Token · faces: -1 Attack / -2 Attack · one per unit" in aid
    assert "Corrosion Token · one per unit" in aid  # no face: the guide shows none
    assert "Clone · Cove" in aid


def test_unit_cards_without_text_give_the_space_to_the_emblem(built: Path) -> None:
    """Bandits and Golden Golems have stats and no text: no empty text box, a large emblem, the stat
    row at the foot of the card (print-shop pages: 3 mm of bleed around the 63 x 88 mm trim)."""
    mm = 72 / 25.4
    seen: dict[str, tuple[list[float], dict[str, float]]] = {}
    with pdfplumber.open(built / "homm4" / "printshop" / "homm4.unit.pdf") as pdf:
        for page in pdf.pages:
            title = (page.extract_text() or "").split("\n")[0]
            if title in ("Bandits", "Golden Golems"):
                discs = [round(c["height"] / mm, 1) for c in page.curves if abs(c["height"] - c["width"]) < 0.5]
                labels = {w["text"]: w["top"] / mm - 3 for w in page.extract_words() if w["text"].isupper()}
                seen[title] = (discs, labels)
    for title in ("Bandits", "Golden Golems"):
        discs, labels = seen[title]
        assert max(discs) >= 35, (title, discs)  # the emblem disc; 23 mm above a text box
        assert labels["MELEE"] > 70, (title, labels)  # the stat row sits at the foot
    assert seen["Golden Golems"][1]["LEVEL"] < 25 and seen["Golden Golems"][1]["DEFENSE"] > 70


def test_secondary_skills_without_level_rows_give_the_space_to_the_emblem(built: Path) -> None:
    """Attack and Defense have no effect by level: a large emblem, the required Primary Skill below it;
    Sorcery has a Basic row and no Primary Skill: its emblem fills the space above the row."""
    mm = 72 / 25.4
    seen: dict[str, tuple[float, dict[str, float]]] = {}
    with pdfplumber.open(built / "homm4" / "printshop" / "homm4.secondary-skill.pdf") as pdf:
        for page in pdf.pages:
            title = (page.extract_text() or "").split("\n")[0]
            discs = [c["height"] / mm for c in page.curves if abs(c["height"] - c["width"]) < 0.5]
            words: dict[str, float] = {}
            for w in page.extract_words():  # a word's first (highest) place: Sorcery's effect line also says "Basic"
                words[w["text"]] = min(words.get(w["text"], 999.0), w["top"] / mm - 3)
            seen[title] = (max(discs), words)
    for title in ("Attack", "Defense"):
        disc, words = seen[title]
        assert disc >= 28 and words["Required"] > 55, (title, disc, words.get("Required"))
    assert seen["Sorcery"][0] >= 24 and 50 < seen["Sorcery"][1]["Basic"] < 55  # the Basic row stays in place


def test_town_cards_mark_only_the_levels_they_describe(built: Path) -> None:
    """A level's numbered mark prints only beside a level the record has (the example Town Card has
    four, Heaven only level 4, Stronghold none); with no level 1-3 row the emblem takes the space."""
    mm = 72 / 25.4
    seen: dict[str, tuple[int, float]] = {}
    with pdfplumber.open(built / "homm4" / "printshop" / "homm4.town.pdf") as pdf:
        for page in pdf.pages:
            title = (page.extract_text() or "").split("\n")[0]
            discs = [c["height"] / mm for c in page.curves if abs(c["height"] - c["width"]) < 0.5]
            seen[title] = (sum(abs(d - 7) < 0.3 for d in discs), max(discs))
    assert seen["Chaos · Nature · Death Town"][0] == 4
    assert seen["Heaven"][0] == 1 and seen["Stronghold"][0] == 0
    assert seen["Heaven"][1] >= 25 and seen["Stronghold"][1] >= 25
    assert seen["Chaos · Nature · Death Town"][1] < 15


def test_units_and_cards_aid_says_where_each_card_is_called_for(
    sheet_pages: list[tuple[str, str, list[dict[str, Any]]]],
) -> None:
    """The Conflux cards with no statistics or effects in the rulebooks, on one aid: where each
    scenario calls for them, in the scenarios' own words (000 = the Conflux rulebook)."""
    text = " ".join(" ".join(t.split()) for where, t, _ in sheet_pages if "aids/units-and-cards.pdf" in where)
    # 000: "Lord of Air's Guardians: A Pack of Sprites, a Pack of Storm Elementals, ..."
    assert "Sprites Troubled Walking on Clouds: In Lord of Air's Guardians' army: a Pack of Sprites." in text
    # 000: "b) Silver deck: Nomads, Vampires, Liches, Medusas, Minotaurs, Energy Elementals."
    # the keep rule is said once, above the tier tables; each kept card's row says only that it is kept
    assert "Nomads Hard Place: Kept in the deck." in text
    assert text.count("strips each Neutral Unit deck down to the cards its setup sheet lists") == 1

    # 000: "(the second one requires the Tower Expansion)"; 000: "Find the cards in their relevant
    # Neutral Unit and Summon decks in the Conflux Expansion"
    # (the text runs line by line across a row: a name cell's second line comes amid the next cell's)
    def row(first: str, next_row: str) -> str:
        start = text.index(first)
        return text[start : text.index(next_row, start)]

    # 000: "choose one of the following options (the second one requires the Tower Expansion): • Add a
    # Few Crusaders, a Few Zealots, and a Few Champions to your army. • Add a Few Genies, ..."; each
    # unit's row names its own choice; the Genies' box line is the second "Tower Expansion" of its row
    assert "Crusaders Master of the Elements: Round 6: one of 2 choices: add a Few Crusaders," in text
    assert row("Genies Master of the Elements", "Magi Master of the Elements").count("Tower Expansion") == 2
    assert "Tower Expansion" not in row("Crusaders Master of the Elements", "Zealots Master of the Elements")
    assert "Conflux Expansion" in row(
        "Phoenixes Dancing in Water and Fire: In Lord of Fire's Guardians' army: Gold", "Azure tier"
    )
    # 000: "Skill: "Armorer" Ability card.**" and its rule
    assert "Armorer Hard Place: The AI Skill card. Each activation puts a Defense token" in text
    # 000: "You cannot use the following cards: ... Fire Magic, Air Magic, Water Magic, and Earth Magic."
    # each of the 8 Magic cards' rows points to the rule, printed in full once under the table
    assert text.count("Troubled Walking on Clouds, Dancing in Water and Fire: You cannot use these cards:") == 9
    assert text.count("see the note under this table") == 8 + 3  # and the 3 Hard Place completion lines
    assert text.count("If you draw one from the Spell or Ability deck, discard it and draw a replacement.") == 1
    assert text.count("Take the pair you took as your bonus out of your deck") == 1
    # 000: "Town Buildings: City Hall, Citadel, Dwelling (Bronze tier), Dwelling (Silver tier), ..."
    assert "Starts built (Bronze and Silver tier)." in text
    assert (
        "Magical Pyre Hard Place: The Gold Dwelling, Magical Pyre, cannot be built until a story event unlocks it. Conflux Gold Dwelling"
        in text
    )
    # 004: "Ogres (Stronghold) place Attack Tokens on allied units"
    assert "Ogres Put an Attack Token (+1 or +2 Attack) on an allied unit. Stronghold Expansion" in text
    assert not re.search(r"(?:^|\. ):\s", text)  # no sentence without its scenario
