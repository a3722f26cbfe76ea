"""Translations beyond the cut sheets, on the fixture game of tests/translate_project: exports per
language (print shop, PNG, Tabletop Simulator, gallery) into output/<lang>/, the gallery's marks
for --fallback text, sheet files' fixed strings in the catalog, and a language build that draws
each card once."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_translate import check, codes, copy_project, msgstr_line, page_text, pnp, set_msgstr

GERMAN = ("Bogenschützin", "Hüterin des Nordtors", "Wache", "Heile einen verwundeten", "ANG", "Held")
ENGLISH = ("Archer", "Keeper of the north gate", "Guard", "Heal a wounded", "ATK", "Hero")

SHEET = """\
document: collection
kinds: [tale.hero]
output: "{game}/aids/heroes.pdf"
title: Hero reference
labels:
  attack: {"1": weak}
blocks:
  - type: heading
    text: Abilities
  - type: text
    text: Roll *twice* for each hero.
  - type: table
    rows: records
    as: h
    columns:
      - {header: Hero, value: "{{ h.name }}"}
      - {header: Ability, value: "{{ h.ability }}"}
      - {header: Attack, value: "{{ h.attack | label('attack') }}"}
"""
SHEET_GERMAN = {
    "sheet:heroes/title": "Heldenübersicht",
    "sheet:heroes/blocks/0/text": "Fähigkeiten",
    "sheet:heroes/blocks/1/text": "Würfle *zweimal* für jeden Helden.",
    "sheet:heroes/blocks/2/columns/0/header": "Heldin",
    "sheet:heroes/blocks/2/columns/1/header": "Fähigkeit",
    "sheet:heroes/blocks/2/columns/2/header": "Angriff",
    "sheet:heroes/labels/attack/1": "schwach",
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture game exported in every language (print shop) and in German (PNG, TTS), and in English."""
    project = copy_project(tmp_path_factory.mktemp("exported"))
    for args in (
        ("printshop", "--lang", "all"),
        ("png", "--lang", "de", "--dpi", "30"),
        ("png", "--dpi", "30"),
        ("tts", "--lang", "de", "--dpi", "30"),
    ):
        done = pnp(project, "export", *args)
        assert done.returncode == 0, done.stdout + done.stderr
    return project


def test_printshop_per_language_holds_the_translated_text(exported: Path) -> None:
    german = page_text(exported / "output" / "de" / "tale" / "printshop" / "tale.hero.pdf")
    for text in GERMAN:
        assert text in german, german
    for text in ENGLISH:
        assert text not in german, german
    polish = page_text(exported / "output" / "pl" / "tale" / "printshop" / "tale.hero.pdf")
    assert "Łuczniczka" in polish and "Bogenschützin" not in polish
    assert not (exported / "output" / "tale" / "printshop").exists()  # --lang all: the translations only


def test_png_and_tts_per_language(exported: Path) -> None:
    german = exported / "output" / "de" / "tale" / "png" / "tale.hero"
    english = exported / "output" / "tale" / "png" / "tale.hero"
    names = sorted(p.name for p in german.glob("*.png"))
    assert names == sorted(
        f"{card}-{side}.png" for card in ("archer", "knight", "healer") for side in ("front", "back")
    )
    assert sorted(p.name for p in english.glob("*.png")) == names
    assert (german / "archer-front.png").read_bytes() != (english / "archer-front.png").read_bytes()  # other words
    assert (german / "archer-back.png").read_bytes() == (english / "archer-back.png").read_bytes()  # no text there
    tts = json.loads((exported / "output" / "de" / "tale" / "tts" / "tale.hero-1.json").read_text(encoding="utf-8"))
    assert tts["cards"] == ["archer", "knight", "healer"] and tts["face"] == "tale.hero-1.png"
    assert (exported / "output" / "de" / "tale" / "tts" / "tale.hero-1.png").is_file()
    assert not (exported / "output" / "tale" / "tts").exists()


class Cards(HTMLParser):
    """The gallery's card figures: id -> attributes, and the text of each card's fallback badge."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: list[dict[str, str | None]] = []
        self.badges: dict[int, str] = {}
        self._in_badge = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "figure":
            self.figures.append(found)
        if tag == "span" and found.get("class") == "fallback":
            self._in_badge = True

    def handle_data(self, data: str) -> None:
        if self._in_badge:
            self.badges[len(self.figures) - 1] = data
            self._in_badge = False


def test_gallery_marks_the_cards_drawn_with_fallback_text(tmp_path: Path) -> None:
    game = copy_project(tmp_path)
    po = game / "translations" / "de.po"
    set_msgstr(po, "healer/ability", "")
    done = pnp(game, "export", "gallery", "--lang", "de", "--dpi", "20")
    assert done.returncode == 1
    line = msgstr_line(po, "healer/ability")
    assert f"translations/de.po:{line}:1: error[missing-translation]" in done.stdout
    assert "(--lang de --fallback draws the en text)" in done.stdout
    done = pnp(game, "export", "gallery", "--lang", "de", "--fallback", "--dpi", "20")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pnp export gallery --lang de: 7 written" in done.stderr
    page = Cards()
    html = (game / "output" / "de" / "gallery" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="de">' in html
    page.feed(html)
    by_id = {str(f["id"]): (i, f) for i, f in enumerate(page.figures) if str(f.get("id", "")).startswith("card-")}
    marks = {str(f["data-name"]): f for _, f in by_id.values()}  # translated name, then id
    healer = marks["heilerin healer"]
    assert json.loads(str(healer["data-fallback"])) == ["ability"]
    assert "has-fallback" in str(healer["class"])
    healer_index = next(i for i, f in by_id.values() if f is healer)
    assert page.badges[healer_index] == "en text"
    archer = marks["bogenschutzin archer"]
    assert "data-fallback" not in archer and "has-fallback" not in str(archer["class"])
    assert len(page.badges) == 1
    # build says how many texts fell back
    done = pnp(game, "build", "--lang", "de", "--fallback")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pnp build --lang de: 1 text fell back to en" in done.stderr
    assert "fell back" not in pnp(game, "build", "--lang", "pl").stderr


def test_sheet_strings_are_extracted_checked_and_built(tmp_path: Path) -> None:
    game = copy_project(tmp_path)
    (game / "sheets").mkdir()
    sheet = game / "sheets" / "heroes.yaml"
    sheet.write_text(SHEET, encoding="utf-8")
    assert pnp(game, "translate", "extract").returncode == 0
    po = game / "translations" / "de.po"
    text = po.read_text(encoding="utf-8")
    assert '#: sheets/heroes.yaml:4\nmsgctxt "sheet:heroes/title"\nmsgid "Hero reference"\nmsgstr ""' in text
    assert '#: sheets/heroes.yaml:16\nmsgctxt "sheet:heroes/blocks/2/columns/0/header"\nmsgid "Hero"' in text
    assert "{{ h.name }}" not in text  # templates show fields, which are translated as fields
    status, problems = check(game, "--no-render")
    assert status == 0
    missing = [p for p in problems if p["file"] == "translations/de.po"]  # one line for the language
    assert [(p["line"], p["code"]) for p in missing] == [
        (min(msgstr_line(po, context) for context in SHEET_GERMAN), "missing-translation")
    ]
    assert (
        f"de: {len(SHEET_GERMAN)} texts not yet translated into de: run 'pnp translate status'" in missing[0]["message"]
    )
    for context, german in SHEET_GERMAN.items():
        set_msgstr(po, context, german)
    set_msgstr(game / "translations" / "pl.po", "sheet:heroes/title", "Bohaterowie")
    _, problems = check(game, "--no-render", "--select", "translations")
    assert [p for p in problems if p["file"] == "translations/de.po"] == []
    # built in German: the sheet's headings, labels and the records' fields it shows
    done = pnp(game, "build", "--lang", "de")
    assert done.returncode == 0, done.stdout + done.stderr
    aid = page_text(game / "output" / "de" / "tale" / "aids" / "heroes.pdf")
    for german in (
        "Heldenübersicht",
        "Fähigkeiten",
        "Würfle zweimal",
        "Heldin",
        "Fähigkeit",
        "Bogenschützin",
        "schwach",
    ):
        assert german in aid, aid
    for english in ("Hero reference", "Abilities", "Roll", "Archer", "weak"):
        assert english not in aid, aid
    # markup that differs, then a stale entry after the English heading changes, then an unknown pointer
    set_msgstr(po, "sheet:heroes/blocks/1/text", "Würfle zweimal für jeden Helden.")
    sheet.write_text(SHEET.replace("text: Abilities", "text: Hero abilities"), encoding="utf-8")
    text = po.read_text(encoding="utf-8")
    po.write_text(text.replace('msgctxt "sheet:heroes/title"', 'msgctxt "sheet:heroes/blocks/9/text"'))
    _, problems = check(game, "--no-render", "--select", "translations")
    assert sorted(codes([p for p in problems if p["file"] == "translations/de.po"])) == sorted(
        [
            ("translations/de.po", msgstr_line(po, "sheet:heroes/blocks/9/text"), "error", "unknown-translation"),
            ("translations/de.po", msgstr_line(po, "sheet:heroes/blocks/0/text"), "warning", "stale-translation"),
            ("translations/de.po", msgstr_line(po, "sheet:heroes/blocks/1/text"), "error", "translation-markup"),
            ("translations/de.po", 1, "warning", "missing-translation"),  # the title's entry is gone
        ]
    )
    messages = {p["code"]: p["message"] for p in problems if p["file"] == "translations/de.po"}
    assert "sheet 'heroes' has no fixed text at /blocks/9/text" in messages["unknown-translation"]
    assert "'[-Abilities-] {+Hero abilities+}'" in messages["stale-translation"]


def test_a_language_build_draws_each_card_once(tmp_path: Path) -> None:
    """Check and overflow location share the build's own drawing: 3 cards' fronts, and their one
    common back (a face every record draws alike is drawn once: pnp.drawing.facestore), 4 faces."""
    from pnp.drawing.render import FACES_DRAWN
    from pnp.outputs.build import BuildOptions, run_build
    from pnp.project.config import load_project

    game = copy_project(tmp_path)
    project = load_project(game)
    drawn = []
    for options in (BuildOptions(lang="de"), BuildOptions(lang="pl", force=True), BuildOptions(force=True)):
        before = FACES_DRAWN["tale-hero"]
        result = run_build(project, options)
        assert result.exit_code == 0 and result.written, result.problems
        drawn.append(FACES_DRAWN["tale-hero"] - before)
    assert drawn == [4, 4, 4]


def test_an_export_stops_on_overflow_located_in_the_catalog(tmp_path: Path) -> None:
    from test_translate import LONG_GERMAN

    game = copy_project(tmp_path)
    po = game / "translations" / "de.po"
    set_msgstr(po, "archer/ability", LONG_GERMAN)
    done = pnp(game, "export", "printshop", "--lang", "de")
    assert done.returncode == 1
    assert f"translations/de.po:{msgstr_line(po, 'archer/ability')}:1: error[text-overflow]: de: record 'archer'" in (
        done.stdout
    )
    assert not (game / "output" / "de" / "tale" / "printshop").exists()
    assert pnp(game, "export", "printshop", "--lang", "pl").returncode == 0


def test_a_plain_build_writes_every_configured_language_as_check_promises(tmp_path: Path) -> None:
    """[build] languages: `pnp build` with no --lang builds the source and each translation; a
    missing translation is the warning `pnp check` reports (the source text is drawn), so what
    check passes, build builds; `--lang de` alone still asks for a complete translation."""
    game = copy_project(tmp_path)
    po = game / "translations" / "de.po"
    set_msgstr(po, "healer/ability", "")
    status, problems = check(game)
    assert status == 0 and [p["code"] for p in problems] == ["missing-translation"]
    assert problems[0]["severity"] == "warning"
    done = pnp(game, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    line = msgstr_line(po, "healer/ability")
    assert f"translations/de.po:{line}:1: warning[missing-translation]" in done.stdout
    assert "pnp build --lang de: 1 text fell back to en" in done.stderr
    english = page_text(game / "output" / "tale" / "tale.hero.pdf")
    german = page_text(game / "output" / "de" / "tale" / "tale.hero.pdf")
    polish = page_text(game / "output" / "pl" / "tale" / "tale.hero.pdf")
    assert "Archer" in english and "Bogenschützin" in german and "Bogenschützin" not in polish
    assert "Heal a wounded" in german  # the healer's ability, drawn in the source language
    assert "Heal a wounded" not in polish
    strict = pnp(game, "build", "--lang", "de")
    assert strict.returncode == 1 and f"de.po:{line}:1: error[missing-translation]" in strict.stdout


@pytest.mark.parametrize("attack", ["fifo", "link out"])
def test_status_of_a_catalog_pnp_cannot_read_is_a_located_mistake(tmp_path: Path, attack: str) -> None:
    """Not "0% translated" with exit 0: the catalog's problem, located as pnp check locates it."""
    import os

    game = copy_project(tmp_path)
    po = game / "translations" / "pl.po"
    po.unlink()
    if attack == "fifo":
        os.mkfifo(po)
    else:
        outside = tmp_path / "outside.po"
        outside.write_text('msgid ""\nmsgstr ""\n', encoding="utf-8")
        po.symlink_to(outside)
    done = pnp(game, "translate", "status")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert "translations/pl.po:1:1: error[catalog-error]: pl: " in done.stdout
    assert "de            10  100%" in done.stdout
    status, problems = check(game)
    assert status == 1 and [p["code"] for p in problems] == ["catalog-error"]
