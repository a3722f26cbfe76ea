"""A whole game in German (tests/translate_edition): the words a layout and a sheet write
themselves (`_('Home')`, `{% trans %}`), enum labels on cards, a sentence three ships share
translated once, records in a CSV file located at their rows, every export under output/de/, and
a sheet block too tall only in German found by `pnp check`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from test_translate import check, codes, msgstr_line, page_text, pnp, set_msgstr

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "translate_edition"
SHARED = "Sail to any port."
DOC = (ROOT / "docs" / "translations.md").read_text(encoding="utf-8")


def doc_blocks(language: str, word: str) -> list[str]:
    """The docs' ```language blocks that quote this game (they hold `word`)."""
    return [b for b in re.findall(rf"```{language}\n(.*?)```", DOC, re.S) if word in b]


def doc_lines(word: str) -> list[str]:
    """Output lines docs/translations.md quotes from this game (they hold `word`)."""
    return [
        line for block in doc_blocks("text", word) for line in block.splitlines() if line.startswith("translations/")
    ]


def copy_game(tmp_path: Path) -> Path:
    target = tmp_path / "edition"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("output"))
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The game built (English and German) and exported in German: print shop, PNG, TTS, gallery."""
    game = copy_game(tmp_path_factory.mktemp("edition"))
    done = pnp(game, "translate", "extract")
    assert done.returncode == 0 and "0 written" in done.stderr, done.stderr  # the committed catalog is current
    done = pnp(game, "build")
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr  # no warning: all translated
    for args in (("printshop",), ("png", "--dpi", "30"), ("tts", "--dpi", "30"), ("gallery",)):
        done = pnp(game, "export", *args, "--lang", "de")
        assert done.returncode == 0, done.stdout + done.stderr
    return game


def test_extract_locates_every_text_at_its_file_and_line(built: Path) -> None:
    po = (built / "translations" / "de.po").read_text(encoding="utf-8")
    layout = (built / "layouts" / "isles-ship.json").read_text().split("\n")
    home = next(i for i, line in enumerate(layout, 1) if "_('Home')" in line)
    shore = next(i for i, line in enumerate(layout, 1) if "{% trans" in line)
    quoted = [e for b in doc_blocks("po", "isles") for e in b.strip().split("\n\n") if "junk/ability" not in e]
    assert len(quoted) == 5 and all(entry in po for entry in quoted), quoted  # the docs quote the catalog
    for expected in (
        f'#: layouts/isles-ship.json:{home}\nmsgctxt "layout:isles-ship"\nmsgid "Home"\nmsgstr "Heimat"',
        f'#: layouts/isles-ship.json:{shore}\n#, python-format\nmsgctxt "layout:isles-ship"\n'
        'msgid "%(where)s shore"\nmsgstr "Küste im %(where)s"',
        '#: sheets/fleet.yaml:4\nmsgctxt "sheet:fleet"\nmsgid "Fleet"',
        '#: sheets/fleet.yaml:7\n#, python-format\nmsgctxt "sheet:fleet"\nmsgid "All %(count)s ships"',
        # a record of a CSV file is at its row; a shared sentence lists every row that has it
        '#: cards/ships.csv:5\nmsgctxt "galley/name"',
        f'#: cards/ships.csv:2 cards/ships.csv:3 cards/ships.csv:4\nmsgctxt "kind:isles.ship"\nmsgid "{SHARED}"',
        'msgctxt "label:isles.ship/region/south"\nmsgid "Southern"\nmsgstr "Süden"',
    ):
        assert expected in po, expected
    assert po.count(f'msgid "{SHARED}"') == 1  # translated once for the three ships


def test_german_cards_show_translated_words_labels_and_the_shared_sentence(built: Path) -> None:
    german = page_text(built / "output" / "de" / "isles" / "isles.ship.pdf")
    for text in ("Schaluppe", "Heimat: Norden", "Heimat: Süden", "Küste im Süden", "Schiff", "Rudere gegen den Wind."):
        assert text in german, german
    assert german.count("Segle in einen beliebigen Hafen.") == 3
    for text in ("Home", "Northern", "Southern", "shore", "Ship", "Sail"):
        assert text not in german, german
    english = page_text(built / "output" / "isles" / "isles.ship.pdf")
    for text in ("Home: Northern", "Southern shore", "Ship", SHARED):
        assert text in english, english


def test_german_sheet_shows_its_gettext_words_and_labels(built: Path) -> None:
    german = page_text(built / "output" / "de" / "isles" / "aids" / "fleet.pdf")
    for text in ("Flotte", "Alle 4 Schiffe", "Schiff", "Heimat", "Dschunke", "Norden"):
        assert text in german, german
    assert "All 4 ships" in page_text(built / "output" / "isles" / "aids" / "fleet.pdf")


def test_every_export_in_german_under_output_de(built: Path) -> None:
    out = built / "output" / "de" / "isles"
    printshop = page_text(out / "printshop" / "isles.ship.pdf")
    assert "Heimat: Norden" in printshop and "Home" not in printshop
    assert sorted(p.name for p in (out / "png" / "isles.ship").glob("*-front.png")) == [
        f"{card}-front.png" for card in ("brig", "galley", "junk", "sloop")
    ]
    tts = json.loads((out / "tts" / "isles.ship-1.json").read_text(encoding="utf-8"))
    assert tts["cards"] == ["sloop", "brig", "junk", "galley"] and (out / "tts" / "isles.ship-1.png").is_file()
    gallery = (built / "output" / "de" / "gallery" / "index.html").read_text(encoding="utf-8")
    assert "Schaluppe" in gallery and 'class="card has-fallback"' not in gallery


def test_gallery_marks_an_untranslated_label_and_word_on_the_cards_that_show_them(tmp_path: Path) -> None:
    game = copy_game(tmp_path)
    po = game / "translations" / "de.po"
    set_msgstr(po, "label:isles.ship/region/south", "")
    set_msgstr(po, "layout:isles-ship", "", "Home")
    done = pnp(game, "export", "gallery", "--lang", "de", "--fallback")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("2 texts not yet translated into de") == 1, done.stdout  # one line for the language
    html = (game / "output" / "de" / "gallery" / "index.html").read_text(encoding="utf-8")
    brig = html[html.index('data-name="brigg') :].split(">", 1)[0]
    sloop = html[html.index('data-name="schaluppe') :].split(">", 1)[0]
    assert "label:isles.ship/region/south" in brig and "Home" in brig
    assert "label:isles.ship/region/south" not in sloop and "Home" in sloop  # a northern ship
    done = pnp(game, "build")  # English, then German: the catalog's warning is printed once
    assert done.returncode == 0 and done.stdout.count("warning[missing-translation]") == 1, done.stdout
    assert "pnp build --lang de: 2 texts fell back to en" in done.stderr, done.stderr


def test_an_override_for_one_record_and_a_sentence_that_becomes_shared(tmp_path: Path) -> None:
    game = copy_game(tmp_path)
    po = game / "translations" / "de.po"
    (override,) = doc_blocks("po", "junk/ability")  # as docs/translations.md writes it
    po.write_text(po.read_text(encoding="utf-8") + "\n" + override, encoding="utf-8")
    assert check(game, "--no-render") == (0, [])
    assert pnp(game, "translate", "extract").returncode == 0
    assert 'msgctxt "junk/ability"' in po.read_text(encoding="utf-8")  # extract keeps the override
    assert pnp(game, "build", "--lang", "de").returncode == 0
    german = page_text(game / "output" / "de" / "isles" / "isles.ship.pdf")
    assert "Segle in einen Hafen im Osten." in german and german.count("Segle in einen beliebigen Hafen.") == 2
    # the brig gets the galley's sentence: extract makes it shared, with the galley's translation
    csv = game / "cards" / "ships.csv"
    csv.write_text(csv.read_text().replace(f"south,{SHARED}", "south,Row against the wind."), encoding="utf-8")
    assert pnp(game, "translate", "extract").returncode == 0
    text = po.read_text(encoding="utf-8")
    assert (
        '#: cards/ships.csv:3 cards/ships.csv:5\nmsgctxt "kind:isles.ship"\nmsgid "Row against the wind."\n'
        'msgstr "Rudere gegen den Wind."' in text
    )
    assert 'msgctxt "galley/ability"' not in text
    assert check(game, "--no-render") == (0, [])


def test_placeholders_and_missing_words_are_checked(tmp_path: Path) -> None:
    game = copy_game(tmp_path)
    po = game / "translations" / "de.po"
    set_msgstr(po, "layout:isles-ship", "Küste im %(wo)s", "%(where)s shore")
    status, problems = check(game, "--no-render")
    assert status == 1
    assert codes(problems) == [
        ("translations/de.po", msgstr_line(po, "layout:isles-ship", "%(where)s shore"), "error", "translation-markup")
    ]
    assert "placeholders %(wo)s but the source has %(where)s" in problems[0]["message"]
    quoted = doc_lines("layout:isles-ship has placeholders")
    assert quoted and all(line in pnp(game, "check", "--no-render").stdout for line in quoted)
    set_msgstr(po, "layout:isles-ship", "100 % Küste im %(where)s", "%(where)s shore")  # a % the template would read
    _, problems = check(game, "--no-render")
    assert [p["code"] for p in problems] == ["translation-markup"] and "write %% for a percent" in problems[0][
        "message"
    ]


def test_a_sheet_block_too_tall_only_in_german_is_found_by_check(tmp_path: Path) -> None:
    game = copy_game(tmp_path)
    po = game / "translations" / "de.po"
    set_msgstr(po, "sheet:fleet/blocks/1/columns/1/header", " ".join(["Heimathafenregion"] * 300))
    status, problems = check(game)
    assert status == 1
    line = msgstr_line(po, "sheet:fleet/blocks/1/columns/1/header")
    assert codes(problems) == [("translations/de.po", line, "error", "text-overflow")]
    assert (
        "de: the translation of sheet:fleet/blocks/1/columns/1/header makes sheets/fleet.yaml /blocks/1 "
        "taller than a page" in problems[0]["message"]
    )
    quoted = doc_lines("sheet:fleet/blocks/1/columns/1/header makes")
    assert quoted and all(line in pnp(game, "check").stdout for line in quoted)
    # too tall in English too (another column): reported once, in the sheet file
    sheet = game / "sheets" / "fleet.yaml"
    sheet.write_text(sheet.read_text().replace("header: Ship,", f"header: {' '.join(['Ship'] * 1500)},"))
    _, problems = check(game)
    assert [(p["file"], p["code"]) for p in problems if p["code"] == "text-overflow"] == [
        ("sheets/fleet.yaml", "text-overflow")
    ], problems


def test_a_shared_sentence_edited_on_every_record_is_stale_not_new(tmp_path: Path) -> None:
    game = copy_game(tmp_path)
    po = game / "translations" / "de.po"
    csv = game / "cards" / "ships.csv"
    csv.write_text(csv.read_text().replace(SHARED, "Sail to any free port."), encoding="utf-8")
    status, problems = check(game, "--no-render")
    assert status == 0 and codes(problems) == [
        ("translations/de.po", msgstr_line(po, "kind:isles.ship", SHARED), "warning", "stale-translation")
    ]
    assert "'Sail to any {+free+} port.'" in problems[0]["message"]
    assert pnp(game, "translate", "extract").returncode == 0
    text = po.read_text(encoding="utf-8")
    assert (
        f'#, fuzzy\n#| msgid "{SHARED}"\nmsgctxt "kind:isles.ship"\nmsgid "Sail to any free port."\n'
        'msgstr "Segle in einen beliebigen Hafen."' in text
    )
    assert "#~" not in text  # nothing left obsolete
