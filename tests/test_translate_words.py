"""Translations of the sheet words no sheet file holds (a kind's enum labels, pnp's own headings on
a generic reference sheet), a sheet block that only one language makes taller than a page, and a
language's catalog problems on the gallery's cards; on the fixture game of tests/translate_project
with a relic kind printed on a generic reference sheet."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from test_translate import check, copy_project, msgstr_line, page_text, pnp, set_msgstr

RELIC_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://pnp.invalid/tale/tale.relic.schema.json",
    "title": "Relics",
    "x-card": False,
    "type": "object",
    "properties": {
        "kind": {"const": "tale.relic"},
        "id": {"type": "string"},
        "name": {"type": "string"},
        "power": {"enum": ["fire", "frost"], "x-labels": {"fire": "Burning", "frost": "Freezing"}},
    },
    "required": ["kind", "id", "name", "power"],
    "additionalProperties": False,
}
GERMAN = {
    "ember/name": "Glut",
    "label:tale.relic/power/fire": "Brennend",
    "label:tale.relic/power/frost": "Frierend",
    "pnp:tale.relic/title": "Relikte",
    "pnp:tale.relic/subtitle": "Alle Relikte des Spiels",
    "pnp:tale.relic/fields/id": "Kennung",
    "pnp:tale.relic/fields/name": "Benennung",
    "pnp:tale.relic/fields/power": "Kraft",
}
SHEET = """\
document: collection
kinds: [tale.hero]
output: "{game}/aids/heroes.pdf"
title: Hero reference
blocks:
  - type: table
    rows: records
    as: h
    columns:
      - {header: Hero, value: "{{ h.name }}"}
      - {header: Ability, value: "{{ h.title }}"}
"""
LONG = " ".join(["Fähigkeitenüberschrift"] * 300)  # a table header taller than a page


def relic_game(tmp_path: Path) -> Path:
    game = copy_project(tmp_path)
    schema = json.dumps(RELIC_SCHEMA, indent=2).replace('{\n        "fire"', '{"fire"')
    (game / "schemas" / "tale.relic.schema.json").write_text(schema, encoding="utf-8")
    relics = [{"kind": "tale.relic", "id": "ember", "name": "Ember", "power": "fire"}]
    (game / "cards" / "relics.json").write_text(json.dumps(relics, indent=2), encoding="utf-8")
    done = pnp(game, "translate", "extract")
    assert done.returncode == 0, done.stderr
    return game


def test_enum_labels_and_generic_headings_are_extracted_checked_and_built(tmp_path: Path) -> None:
    game = relic_game(tmp_path)
    po = game / "translations" / "de.po"
    text = po.read_text(encoding="utf-8")
    schema_lines = (game / "schemas" / "tale.relic.schema.json").read_text().split("\n")
    label_line = next(i for i, line in enumerate(schema_lines, 1) if '"Burning"' in line)
    assert (
        f'#: schemas/tale.relic.schema.json:{label_line}\nmsgctxt "label:tale.relic/power/fire"\n'
        'msgid "Burning"\nmsgstr ""' in text
    )
    assert 'msgctxt "pnp:tale.relic/fields/power"\nmsgid "Power"' in text
    assert 'msgctxt "pnp:tale.relic/fields/kind"' not in text  # a fields block skips the kind
    status, problems = check(game, "--no-render", "--select", "translations")
    assert status == 0
    missing = [p for p in problems if p["file"] == "translations/de.po"]  # one line for the language
    assert [(p["line"], p["code"]) for p in missing] == [
        (min(msgstr_line(po, context) for context in GERMAN), "missing-translation")
    ]
    assert f"{len(GERMAN)} texts not yet translated into de" in missing[0]["message"]
    for context, german in GERMAN.items():
        set_msgstr(po, context, german)
    set_msgstr(po, "label:tale.relic/power/frost", "Frierend {sword}")
    _, problems = check(game, "--no-render", "--select", "translations")
    assert [(p["line"], p["code"]) for p in problems if p["file"] == "translations/de.po"] == [
        (msgstr_line(po, "label:tale.relic/power/frost"), "translation-markup")
    ]
    set_msgstr(po, "label:tale.relic/power/frost", "Frierend")
    done = pnp(game, "build", "--lang", "de")
    assert done.returncode == 0, done.stdout + done.stderr
    sheet = page_text(game / "output" / "de" / "tale" / "sheets" / "tale.relic.pdf")
    for german in ("Relikte", "Alle Relikte des Spiels", "Kennung", "Benennung", "Kraft", "Brennend", "Glut"):
        assert german in sheet, sheet
    for english in ("Relics", "Every record", "Burning", "Power", "Name", "Ember"):
        assert english not in sheet, sheet
    assert pnp(game, "build", "--lang", "en").returncode == 0
    english = page_text(game / "output" / "tale" / "sheets" / "tale.relic.pdf")
    assert "Burning" in english and "Every record of Relics" in english and "tale.relic" not in english
    # a changed word rebuilds the sheet; a changed English label makes its entry stale
    set_msgstr(po, "label:tale.relic/power/fire", "Lodernd")
    assert pnp(game, "build", "--lang", "de").returncode == 0
    assert "Lodernd" in page_text(game / "output" / "de" / "tale" / "sheets" / "tale.relic.pdf")
    schema_path = game / "schemas" / "tale.relic.schema.json"
    schema_path.write_text(schema_path.read_text().replace('"Burning"', '"Blazing"'), encoding="utf-8")
    _, problems = check(game, "--no-render", "--select", "translations")
    stale = [p for p in problems if p["file"] == "translations/de.po"]
    assert [(p["line"], p["code"]) for p in stale] == [
        (msgstr_line(po, "label:tale.relic/power/fire"), "stale-translation")
    ]
    assert "'[-Burning-] {+Blazing+}'" in stale[0]["message"]


def test_a_sheet_block_too_tall_in_one_language_is_located_at_its_entry(tmp_path: Path) -> None:
    game = copy_project(tmp_path)
    (game / "sheets").mkdir()
    (game / "sheets" / "heroes.yaml").write_text(SHEET, encoding="utf-8")
    assert pnp(game, "translate", "extract").returncode == 0
    po = game / "translations" / "de.po"
    set_msgstr(po, "sheet:heroes/title", "Heldenübersicht")
    set_msgstr(po, "sheet:heroes/blocks/0/columns/0/header", "Held")
    set_msgstr(po, "sheet:heroes/blocks/0/columns/1/header", LONG)
    assert pnp(game, "build", "--lang", "pl", "--fallback").returncode == 0  # only German is too long
    done = pnp(game, "build", "--lang", "de")
    assert done.returncode == 1
    line = msgstr_line(po, "sheet:heroes/blocks/0/columns/1/header")
    assert (
        f"translations/de.po:{line}:1: error[text-overflow]: de: the translation of "
        "sheet:heroes/blocks/0/columns/1/header makes sheets/heroes.yaml /blocks/0 taller than a page" in done.stdout
    ), done.stdout
    # two translations in the block grew about as much: not knowable, the sheet file, the language named
    set_msgstr(po, "sheet:heroes/blocks/0/columns/0/header", LONG)
    done = pnp(game, "build", "--lang", "de")
    assert done.returncode == 1
    assert "sheets/heroes.yaml:6:5: error[text-overflow]: de: record '': a block of this sheet" in done.stdout
    # a table cell: the record field it shows
    set_msgstr(po, "sheet:heroes/blocks/0/columns/0/header", "Held")
    set_msgstr(po, "sheet:heroes/blocks/0/columns/1/header", "Titel")
    set_msgstr(po, "archer/title", " ".join(["Hüterin"] * 900))
    done = pnp(game, "build", "--lang", "de")
    line = msgstr_line(po, "archer/title")
    assert (
        f"translations/de.po:{line}:1: error[text-overflow]: de: the translation of archer/title makes "
        "sheets/heroes.yaml /blocks/0/columns/1/value taller than a page: record 'archer'" in done.stdout
    ), done.stdout


class CardProblems(HTMLParser):
    """(severity, code) of the problems listed on each card figure of the gallery, by figure id."""

    def __init__(self) -> None:
        super().__init__()
        self.cards: dict[str, list[tuple[str, str]]] = {}
        self._card = ""
        self._severity = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "figure":
            self._card = str(found.get("id"))
            self.cards[self._card] = []
        elif tag == "li" and self._card:
            self._severity = str(found.get("class"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "figure":
            self._card = ""

    def handle_data(self, data: str) -> None:
        if self._card and self._severity and data.startswith(self._severity + "["):
            self.cards[self._card].append((self._severity, data[len(self._severity) + 1 : -1]))
            self._severity = ""

    def problems_of(self, card: str) -> list[tuple[str, str]]:
        return self.cards[card]


def test_gallery_with_errors_shows_catalog_problems_on_their_cards(tmp_path: Path) -> None:
    game = copy_project(tmp_path)
    po = game / "translations" / "de.po"
    set_msgstr(po, "healer/ability", "Heile {sword} einen Helden.")  # markup not as in the source
    set_msgstr(po, "archer/title", " ".join(["Hüterin"] * 40))  # overflows the archer's card
    done = pnp(game, "export", "gallery", "--lang", "de", "--with-errors", "--dpi", "20")
    assert done.returncode == 1, done.stdout + done.stderr
    html = (game / "output" / "de" / "gallery" / "index.html").read_text(encoding="utf-8")
    parser = CardProblems()
    parser.feed(html)
    assert parser.problems_of("card-tale.hero-3") == [("error", "translation-markup")]
    assert parser.problems_of("card-tale.hero-1") == [("error", "text-overflow")]
    assert parser.problems_of("card-tale.hero-2") == []
    assert 'class="unplaced"' not in html, html
    assert f"translations/de.po:{msgstr_line(po, 'healer/ability')}:1" in html
