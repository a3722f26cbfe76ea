"""Translations on a fixture game of its own (tests/translate_project: English source, German and
Polish catalogs): every problem code located at its catalog line, and the built PDFs' text."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pdfplumber
import pytest

from tests.runpnp import Ran, run

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "translate_project"


def pnp(project: Path, *args: str) -> Ran:
    return run(project, *args)


def check(project: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    done = pnp(project, "check", "--format", "json", *args)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)["problems"]


def copy_project(tmp_path: Path) -> Path:
    target = tmp_path / "game"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("output"))
    return target


def msgstr_line(po: Path, context: str, msgid: str | None = None) -> int:
    """1-based line of the msgstr of the entry with this msgctxt (and msgid), read from the file."""
    lines = po.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        if line == f'msgctxt "{context}"' and (msgid is None or lines[i + 1] == f'msgid "{msgid}"'):
            return next(j for j in range(i, len(lines)) if lines[j].startswith("msgstr")) + 1
    raise AssertionError(f"no entry {context} in {po}")


def set_msgstr(po: Path, context: str, text: str, msgid: str | None = None) -> None:
    lines = po.read_text(encoding="utf-8").split("\n")
    at = msgstr_line(po, context, msgid) - 1
    lines[at] = "msgstr " + json.dumps(text, ensure_ascii=False)
    po.write_text("\n".join(lines), encoding="utf-8")


def edit_record(project: Path, record_id: str, field: str, value: str) -> None:
    path = project / "cards" / "heroes.json"
    text = path.read_text(encoding="utf-8")
    records = json.loads(text)
    old = next(r for r in records if r["id"] == record_id)[field]
    path.write_text(text.replace(json.dumps(old), json.dumps(value)), encoding="utf-8")


def codes(problems: list[dict[str, Any]]) -> list[tuple[str, int, str, str]]:
    return [(p["file"], p["line"], p["severity"], p["code"]) for p in problems]


@pytest.fixture()
def game(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


def test_the_fixture_is_clean_in_every_language(game: Path) -> None:
    status, problems = check(game, "--render")
    assert (status, problems) == (0, [])


def test_missing_translation_is_a_warning_at_its_msgstr(game: Path) -> None:
    po = game / "translations" / "de.po"
    set_msgstr(po, "knight/title", "")
    status, problems = check(game)
    assert status == 0
    assert codes(problems) == [
        ("translations/de.po", msgstr_line(po, "knight/title"), "warning", "missing-translation")
    ]
    assert "knight/title is not translated" in problems[0]["message"]


def test_missing_catalog_and_missing_entry(game: Path) -> None:
    (game / "translations" / "pl.po").unlink()
    heroes = game / "cards" / "heroes.json"
    heroes.write_text(heroes.read_text().replace('"name": "Healer",', '"name": "Healer", "title": "Mender",'))
    _, problems = check(game)
    assert codes(problems) == [
        ("translations/de.po", 1, "warning", "missing-translation"),
        ("translations/pl.po", 1, "warning", "missing-translation"),
    ]
    assert "no entry for healer/title ('Mender', cards/heroes.json:6)" in problems[0]["message"]
    assert "no catalog for language 'pl'" in problems[1]["message"]


def test_stale_after_the_english_text_changes(game: Path) -> None:
    de, pl = game / "translations" / "de.po", game / "translations" / "pl.po"
    edit_record(game, "healer", "ability", "Heal a wounded hero anywhere.")
    status, problems = check(game)
    assert status == 0  # stale is a warning: the old translation still prints
    assert codes(problems) == [
        ("translations/de.po", msgstr_line(de, "healer/ability"), "warning", "stale-translation"),
        ("translations/pl.po", msgstr_line(pl, "healer/ability"), "warning", "stale-translation"),
    ]
    # a word diff shows what changed, not two texts cut to the same prefix
    assert (
        "changed since it was translated: '... a wounded hero [-next to you.-] {+anywhere.+}'" in problems[0]["message"]
    )
    # extract updates the msgid, marks the entry fuzzy and keeps the old source as #| msgid
    assert pnp(game, "translate", "extract").returncode == 0
    text = de.read_text(encoding="utf-8")
    assert '#, fuzzy\n#| msgid "Heal a wounded hero next to you."\nmsgctxt "healer/ability"' in text
    assert 'msgstr "Heile einen verwundeten Helden neben dir."' in text
    _, problems = check(game)
    assert codes(problems)[0] == (
        "translations/de.po",
        msgstr_line(de, "healer/ability"),
        "warning",
        "stale-translation",
    )
    # the translator updates the text and removes the flag: clean again
    de.write_text(text.replace('#, fuzzy\n#| msgid "Heal a wounded hero next to you."\n', ""), encoding="utf-8")
    set_msgstr(de, "healer/ability", "Heile einen verwundeten Helden irgendwo.")
    _, problems = check(game)
    assert [p["file"] for p in problems] == ["translations/pl.po"]


def test_unknown_id_and_pointer(game: Path) -> None:
    po = game / "translations" / "de.po"
    text = po.read_text(encoding="utf-8")
    text = text.replace('msgctxt "archer/title"', 'msgctxt "archr/title"')
    text = text.replace('msgctxt "knight/title"', 'msgctxt "knight/motto"')
    po.write_text(text, encoding="utf-8")
    status, problems = check(game)
    assert status == 1
    unknown = [p for p in problems if p["code"] == "unknown-translation"]
    assert codes(unknown) == [
        ("translations/de.po", msgstr_line(po, "archr/title"), "error", "unknown-translation"),
        ("translations/de.po", msgstr_line(po, "knight/motto"), "error", "unknown-translation"),
    ]
    assert "no record has id 'archr' (did you mean 'archer'?)" in unknown[0]["message"]
    assert (
        "record 'knight' has no translatable text at /motto; it has: /ability, /name, /title" in unknown[1]["message"]
    )
    # ... and the real entries are now missing; extract turns the unknown ones obsolete (#~)
    assert {p["code"] for p in problems} == {"unknown-translation", "missing-translation"}
    assert pnp(game, "translate", "extract").returncode == 0
    assert '#~ msgctxt "archr/title"' in po.read_text(encoding="utf-8")
    _, problems = check(game)
    assert {p["code"] for p in problems} == {"missing-translation"}


def test_unknown_layout_string(game: Path) -> None:
    po = game / "translations" / "de.po"
    layout = game / "layouts" / "tale-hero.json"
    layout.write_text(layout.read_text().replace('"text": "Hero"', '"text": "Champion"'))
    _, problems = check(game)
    found = {(p["code"], p["line"]) for p in problems if p["file"] == "translations/de.po"}
    assert ("unknown-translation", msgstr_line(po, "layout:tale-hero", "Hero")) in found
    assert ("missing-translation", 1) in found
    message = next(p["message"] for p in problems if p["code"] == "unknown-translation")
    assert "layout 'tale-hero' no longer shows 'Hero'" in message


def test_markup_that_differs_from_the_source(game: Path) -> None:
    po = game / "translations" / "pl.po"
    set_msgstr(po, "archer/ability", "Strzał: zadaj 2 obrażenia.")  # lost {sword}
    set_msgstr(po, "knight/ability", "Straż: zyskaj {shield} 1.")  # lost *bold*
    status, problems = check(game)
    assert status == 1
    assert codes(problems) == [
        ("translations/pl.po", msgstr_line(po, "archer/ability"), "error", "translation-markup"),
        ("translations/pl.po", msgstr_line(po, "knight/ability"), "error", "translation-markup"),
    ]
    assert "has markup none but the source has {sword}" in problems[0]["message"]
    assert "has markup {shield} but the source has {shield} *bold*" in problems[1]["message"]


def test_characters_the_font_cannot_draw(game: Path) -> None:
    po = game / "translations" / "de.po"
    set_msgstr(po, "archer/name", "Bogenschützin 弓")
    status, problems = check(game)
    assert status == 1
    assert codes(problems) == [
        ("translations/de.po", msgstr_line(po, "archer/name"), "error", "undrawable-character"),
    ]
    assert "DejaVuSans-Bold cannot draw '弓' U+5F13" in problems[0]["message"]


def test_catalog_that_cannot_be_read(game: Path) -> None:
    (game / "translations" / "de.po").write_text('msgid "a"\nmsgstr "b"\nthis is not gettext\n', encoding="utf-8")
    status, problems = check(game)
    assert status == 1
    assert codes(problems) == [("translations/de.po", 3, "error", "catalog-error")]
    assert "'this is not gettext' is no msgctxt, msgid or msgstr line" in problems[0]["message"]


LONG_GERMAN = (
    "Einmal schießen: füge einem Gegner in deiner Reichweite {sword} 2 Schaden zu; "
    "danach darfst du dich um ein Feld bewegen, wenn kein Gegner neben dir steht."
)


def test_overflow_only_the_german_text_causes(game: Path) -> None:
    de = game / "translations" / "de.po"
    set_msgstr(de, "archer/ability", LONG_GERMAN)
    assert check(game, "--no-render")[1] == []  # found by drawing, as for the source
    status, problems = check(game)
    assert status == 1
    assert codes(problems) == [("translations/de.po", msgstr_line(de, "archer/ability"), "error", "text-overflow")]
    assert problems[0]["message"].startswith(
        "de: record 'archer', layout 'tale-hero': text of element 'ability' (field 'ability')"
    )
    # pnp build --lang de stops on it, located the same way; Polish still builds
    done = pnp(game, "build", "--lang", "de")
    assert done.returncode == 1
    assert f"translations/de.po:{msgstr_line(de, 'archer/ability')}:1: error[text-overflow]" in done.stdout
    assert not (game / "output" / "de").exists()
    assert pnp(game, "build", "--lang", "pl").returncode == 0


def test_layout_label_overflow_is_located_at_the_label(game: Path) -> None:
    po = game / "translations" / "de.po"
    set_msgstr(po, "layout:tale-hero", "Angriffswert des Helden", msgid="ATK")
    _, problems = check(game, "--render")
    assert codes(problems) == [
        ("translations/de.po", msgstr_line(po, "layout:tale-hero", "ATK"), "error", "text-overflow")
    ]
    assert "element 'attack label'" in problems[0]["message"]


def test_codes_can_be_ignored_as_a_group(game: Path) -> None:
    set_msgstr(game / "translations" / "de.po", "archer/name", "弓")
    assert check(game, "--ignore", "translations") == (0, [])


def test_a_language_that_is_not_configured(game: Path) -> None:
    done = pnp(game, "build", "--lang", "fr")
    assert done.returncode == 2
    assert "language 'fr' is not a translation of this project; translations: de, pl" in done.stderr
    done = pnp(game, "build", "--lang", "en", "tale.hero")  # the source language: the plain build
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Archer" in page_text(game / "output" / "tale" / "tale.hero.pdf")


def test_bad_languages_setting(game: Path) -> None:
    toml = game / "pnp.toml"
    toml.write_text(toml.read_text().replace('languages = ["en", "de", "pl"]', 'languages = "de"'))
    done = pnp(game, "check")
    assert done.returncode == 2
    assert '[build] languages = "de": must be a list of language codes' in done.stdout
    assert re.search(r"Traceback", done.stderr) is None


# --- pnp build --lang -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("built"))
    done = pnp(project, "build", "--lang", "all")
    assert done.returncode == 0, done.stdout + done.stderr
    # one kind with backs: no combined output/<lang>/tale.pdf, which would be the kind's file again
    assert "pnp build --lang de: 1 written" in done.stderr and "pnp build --lang pl: 1 written" in done.stderr
    return project


def page_text(pdf: Path) -> str:
    with pdfplumber.open(pdf) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages)


def test_german_pdf_holds_the_german_text(built: Path) -> None:
    text = page_text(built / "output" / "de" / "tale" / "tale.hero.pdf")
    for german in ("Bogenschützin", "Hüterin des Nordtors", "Wache", "Heile einen verwundeten", "ANG", "Held"):
        assert german in text, text
    for english in ("Archer", "Keeper of the north gate", "Guard", "Heal a wounded", "ATK", "Hero"):
        assert english not in text, text
    assert not (built / "output" / "tale").exists()  # the source language is built by plain pnp build


def test_polish_diacritics_are_drawn_with_dejavu_glyphs(built: Path) -> None:
    from fontTools.ttLib import TTFont

    text = page_text(built / "output" / "pl" / "tale" / "tale.hero.pdf")
    for polish in ("Łuczniczka", "Strażniczka północnej bramy", "obrażenia", "Zaprzysiężona tarcza", "Bohater"):
        assert polish in text, text
    fonts = {
        name: TTFont(str(ROOT / "pnp" / "fonts" / f"{name}.ttf"))
        for name in ("DejaVuSans", "DejaVuSans-Bold", "DejaVuSans-Oblique")
    }
    checked = set()
    with pdfplumber.open(built / "output" / "pl" / "tale" / "tale.hero.pdf") as document:
        for char in document.pages[0].chars:
            if char["text"] not in "ąłżŁęó":
                continue
            name = next(n for n in fonts if char["fontname"].endswith("+" + n))
            font = fonts[name]
            glyph = font.getBestCmap().get(ord(char["text"]))
            assert glyph is not None and glyph != ".notdef", char
            advance = font["hmtx"][glyph][0] * char["size"] / font["head"].unitsPerEm
            assert char["x1"] - char["x0"] == pytest.approx(advance, abs=0.05), char  # its own glyph, not a box
            checked.add(char["text"])
    assert {"ą", "ł", "ż", "Ł"} <= checked


def test_a_missing_translation_stops_the_build_unless_fallback(game: Path) -> None:
    po = game / "translations" / "de.po"
    set_msgstr(po, "healer/ability", "")
    done = pnp(game, "build", "--lang", "de")
    assert done.returncode == 1
    line = msgstr_line(po, "healer/ability")
    assert (
        f"translations/de.po:{line}:1: error[missing-translation]: de: healer/ability is not translated yet"
        in done.stdout
    )
    assert "--fallback draws the en text" in done.stdout
    done = pnp(game, "build", "--lang", "de", "--fallback")
    assert done.returncode == 0, done.stdout
    assert f"translations/de.po:{line}:1: warning[missing-translation]" in done.stdout
    text = page_text(game / "output" / "de" / "tale" / "tale.hero.pdf")
    assert "Heal a wounded hero" in text and "Bogenschützin" in text


# --- spreadsheets for translators -------------------------------------------------------------

FRENCH = {
    "archer/ability": "Tir : inflige {sword} 2 dégâts.",
    "archer/name": "Archère",
    "archer/title": "Gardienne de la porte nord",
    "knight/ability": "*Garde* : gagne {shield} 1.",
    "knight/name": "Chevalier",
    "knight/title": "Bouclier juré",
    "healer/ability": "Soigne un héros blessé à côté de toi.",
    "healer/name": "Guérisseuse",
    "layout:tale-hero/ATK": "ATQ",
    "layout:tale-hero/Hero": "Héros",
}


def add_language(project: Path, lang: str) -> None:
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text().replace('"pl"]', f'"pl", "{lang}"]'))


def test_xlsx_round_trip_extract_fill_import_build(game: Path) -> None:
    from openpyxl import load_workbook

    add_language(game, "fr")
    done = pnp(game, "translate", "extract", "--format", "xlsx")
    assert done.returncode == 0, done.stderr
    sheet_path = game / "translations" / "fr.xlsx"
    first_bytes = sheet_path.read_bytes()
    book = load_workbook(sheet_path)
    sheet = book.active
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0] == ("context", "source", "translation", "status", "location")
    assert ("archer/ability", "Shoot once: deal {sword} 2 damage.", None, "missing", "cards/heroes.json:3") in rows
    assert ("layout:tale-hero", "ATK", None, "missing", "layouts/tale-hero.json:13") in rows
    assert len(rows) == 1 + len(FRENCH)  # not the "code" field: x-text, but "x-translate": false
    for number, (context, source, *_) in enumerate(rows[1:], start=2):
        key = f"{context}/{source}" if context.startswith("layout:") else context
        sheet.cell(row=number, column=3, value=FRENCH[key])
    filled = game / "fr-filled.xlsx"
    book.save(filled)
    done = pnp(game, "translate", "import", "fr-filled.xlsx", "--lang", "fr")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote translations/fr.po" in done.stderr
    po = (game / "translations" / "fr.po").read_text(encoding="utf-8")
    assert 'msgctxt "archer/name"\nmsgid "Archer"\nmsgstr "Archère"' in po
    assert check(game, "--render") == (0, [])
    done = pnp(game, "build", "--lang", "fr")
    assert done.returncode == 0, done.stdout + done.stderr
    text = page_text(game / "output" / "fr" / "tale" / "tale.hero.pdf")
    for french in ("Archère", "Gardienne de la porte nord", "Garde", "Soigne un héros blessé", "ATQ", "Héros"):
        assert french in text, text
    # the same content gives the same workbook, byte for byte (now with the translations in it)
    sheet_path.unlink()
    assert pnp(game, "translate", "extract", "--format", "xlsx").returncode == 0
    again = sheet_path.read_bytes()
    sheet_path.unlink()
    assert pnp(game, "translate", "extract", "--format", "xlsx").returncode == 0
    assert sheet_path.read_bytes() == again != first_bytes


def test_import_reports_rows_it_cannot_place_and_marks_outdated_rows_stale(game: Path) -> None:
    rows = [
        ["context", "source", "translation", "status", "location"],
        ["healer/name", "Healer", "Heilkundige", "", ""],
        ["healer/ability", "Heal someone.", "Heile jemanden.", "", ""],  # translated from an older source
    ]
    sheet = game / "de.csv"
    sheet.write_text("\n".join(",".join(row) for row in rows) + "\n", encoding="utf-8")
    done = pnp(game, "translate", "import", "de.csv", "--lang", "de")
    assert done.returncode == 0, done.stdout + done.stderr
    po = game / "translations" / "de.po"
    assert 'msgstr "Heilkundige"' in po.read_text(encoding="utf-8")
    _, problems = check(game)
    assert codes(problems) == [
        ("translations/de.po", msgstr_line(po, "healer/ability"), "warning", "stale-translation")
    ]
    before = po.read_bytes()
    sheet.write_text(sheet.read_text() + "healer/motto,,Motto,,\n", encoding="utf-8")
    done = pnp(game, "translate", "import", "de.csv", "--lang", "de")
    assert done.returncode == 1
    assert "de.csv:4:1: error[unknown-translation]: de: no translatable text has context 'healer/motto'" in done.stdout
    assert po.read_bytes() == before  # nothing written


def test_import_of_a_file_that_is_not_a_workbook(game: Path) -> None:
    (game / "broken.xlsx").write_bytes(b"not a zip")
    done = pnp(game, "translate", "import", "broken.xlsx", "--lang", "de")
    assert done.returncode == 2
    assert "broken.xlsx: not a readable .xlsx workbook" in done.stderr and "Traceback" not in done.stderr


def test_import_reads_sheets_as_record_files_are_read(game: Path) -> None:
    """The spreadsheet reader of record files (pnp/project/tabular.py): a CSV that cannot be read
    is refused with where, a number cell is the number as typed, and a formula that failed is a
    formula-error at its cell (the reader sees it empty)."""
    (game / "open.csv").write_text('context,source,translation\n"healer/name,Healer,x\n', encoding="utf-8")
    done = pnp(game, "translate", "import", "open.csv", "--lang", "de")
    assert done.returncode == 2 and "open.csv:2:1: CSV syntax: a quoted value opened in this row" in done.stderr
    from openpyxl import Workbook

    book = Workbook()
    book.active.append(["context", "source", "translation"])
    book.active.append(["healer/name", "Healer", 7])
    book.active.append(["healer/ability", "Heal a wounded hero next to you.", "=1/0"])
    book.save(game / "de.xlsx")
    with zipfile.ZipFile(game / "de.xlsx") as archive:  # as Excel saves it: with the error it gave
        parts = {name: archive.read(name) for name in archive.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    parts["xl/worksheets/sheet1.xml"] = (
        sheet.replace('<c r="C3">', '<c r="C3" t="e">')
        .replace("<f>1/0</f><v></v>", "<f>1/0</f><v>#DIV/0!</v>")
        .encode()
    )
    with zipfile.ZipFile(game / "de.xlsx", "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    done = pnp(game, "translate", "import", "de.xlsx", "--lang", "de")
    assert done.returncode == 1
    assert "de.xlsx:3:3: error[formula-error]: the formula in this cell gives the error #DIV/0!" in done.stdout
    book.active["C3"] = None
    book.save(game / "de.xlsx")
    assert pnp(game, "translate", "import", "de.xlsx", "--lang", "de").returncode == 0
    assert 'msgctxt "healer/name"\nmsgid "Healer"\nmsgstr "7"' in (game / "translations" / "de.po").read_text()


# --- pnp translate status ---------------------------------------------------------------------


def test_status_counts_translated_missing_stale_per_language(game: Path) -> None:
    set_msgstr(game / "translations" / "de.po", "knight/title", "")
    edit_record(game, "healer", "ability", "Heal a wounded hero anywhere.")
    done = pnp(game, "translate", "status")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "language    translated  missing  stale  unknown\n"
        "de             8   80%        1      1        0\n"
        "pl             9   90%        0      1        0\n"
    )
    rows = json.loads(pnp(game, "translate", "status", "--format", "json").stdout)
    assert rows[0] == {
        "language": "de",
        "total": 10,
        "translated": 8,
        "missing": 1,
        "stale": 1,
        "unknown": 0,
        "error": "",
    }


def test_extract_is_idempotent_on_the_fixture(game: Path) -> None:
    before = {p.name: p.read_bytes() for p in (game / "translations").iterdir()}
    done = pnp(game, "translate", "extract")
    assert done.returncode == 0 and "pnp translate extract: 0 written" in done.stderr
    assert {p.name: p.read_bytes() for p in (game / "translations").iterdir()} == before


def test_importing_an_untouched_stale_row_keeps_it_stale(game: Path) -> None:
    edit_record(game, "healer", "ability", "Heal a wounded hero anywhere.")
    assert pnp(game, "translate", "extract", "--format", "csv").returncode == 0
    sheet = (game / "translations" / "de.csv").read_text(encoding="utf-8")
    assert "healer/ability,Heal a wounded hero anywhere.,Heile einen verwundeten Helden neben dir.,stale," in sheet
    fixed = sheet.replace("Heilerin,translated", "Heilkundige,translated")
    (game / "de-back.csv").write_text(fixed, encoding="utf-8")
    assert pnp(game, "translate", "import", "de-back.csv", "--lang", "de").returncode == 0
    po = game / "translations" / "de.po"
    assert 'msgstr "Heilkundige"' in po.read_text(encoding="utf-8")
    _, problems = check(game)
    assert ("translations/de.po", msgstr_line(po, "healer/ability"), "warning", "stale-translation") in codes(problems)
