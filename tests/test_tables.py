"""Spreadsheet record files (CSV, TSV, XLSX, ODS) through the CLI on small fixture projects:
what the cells become (read back with `pnp export records --format json`), and the problems
that stay at their cell. Case folders tests/cases/table-* hold the located-problem outputs."""

from __future__ import annotations

import datetime
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from tests.runpnp import Ran, run

ROOT = Path(__file__).resolve().parents[1]
SEED = "000_6347cdb41225c97f.txt"
SOURCE = {"seed": SEED, "section": "Test"}


def pnp(*args: str, cwd: Path) -> Ran:
    """The CLI (in this process); `check` leaves out the no-layouts warning these data-only projects all get."""
    if args[:1] == ("check",):
        args = ("check", "--ignore", "no-layouts", *args[1:])
    return run(cwd, *args)


def project(tmp: Path, sources: str = "") -> Path:
    shutil.copytree(ROOT / "tests" / "fixture" / "schemas", tmp / "schemas")
    (tmp / "cards").mkdir()
    (tmp / "pnp.toml").write_text(f'[project]\nname = "t"\n{sources}', encoding="utf-8")
    return tmp


def records_of(root: Path, kind: str) -> list[dict[str, Any]]:
    done = pnp("export", "records", "--format", "json", kind, "-o", "out.json", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((root / "out.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_workbook_cells_become_typed_fields(tmp_path: Path) -> None:
    """Kind from [sources] per sheet; dotted and indexed headers; a declared separator; numbers,
    booleans-as-text and numbers-as-text typed by the schema; a multi-line cell; a cell merged
    down; empty rows and columns, hidden sheets and empty cells skipped."""
    root = project(tmp_path, '[sources]\n"cards/game.xlsx" = {Cards = "test.card", Spells = "test.spell"}\n')
    book = openpyxl.Workbook()
    cards = book.active
    cards.title = "Cards"
    cards.append([])
    cards.append(
        [
            "id",
            "name",
            None,
            "source.seed",
            "source.section",
            "cost",
            "tags.0",
            "tags.1",
            "faces.0.name",
            "faces.0.summons.0",
            "faces.1.name",
            "value",
            "text",
        ]
    )
    cards.append(
        ["imp", "Imp", None, SEED, "Test", "3", "fire", "small", "Front", "golem", "Back", "X", "Burns.\nTwice."]
    )
    cards.append([])
    cards.append(["golem", "Golem", None, SEED, None, 4.0, None, None, None, None, None, 7, None])
    cards.merge_cells("E3:E5")
    cards["E3"] = "Test"
    spells = book.create_sheet("Spells")
    spells.append(["id", "name", "source.seed", "source.section", "level"])
    spells.append(["bolt", "Bolt", SEED, "Test", "2"])
    notes = book.create_sheet("Notes")
    notes.append(["anything", "at", "all"])
    notes.sheet_state = "hidden"
    book.save(root / "cards" / "game.xlsx")
    assert records_of(root, "test.card") == [
        {
            "kind": "test.card",
            "id": "imp",
            "name": "Imp",
            "source": SOURCE,
            "cost": 3,
            "tags": ["fire", "small"],
            "faces": [{"name": "Front", "summons": ["golem"]}, {"name": "Back"}],
            "value": "X",
            "text": "Burns.\nTwice.",
        },
        {"kind": "test.card", "id": "golem", "name": "Golem", "source": SOURCE, "cost": 4, "value": 7},
    ]
    assert records_of(root, "test.spell") == [
        {"kind": "test.spell", "id": "bolt", "name": "Bolt", "source": SOURCE, "level": 2}
    ]


def test_csv_with_excel_bom_and_separator(tmp_path: Path) -> None:
    root = project(tmp_path, '[sources]\n"cards/cards.csv" = "test.card"\nlist-separator = ";"\n')
    text = (
        f'id,name,source.seed,source.section,tags,element\r\nimp,"Imp, the\r\nsmall",{SEED},Test,fire; small,fire\r\n'
    )
    (root / "cards" / "cards.csv").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    tsv = f"kind\tid\tname\tsource.seed\tsource.section\tlevel\ntest.spell\tbolt\tBolt\t{SEED}\tTest\t5\n"
    (root / "cards" / "spells.tsv").write_text(tsv, encoding="utf-8")
    assert records_of(root, "test.card") == [
        {
            "kind": "test.card",
            "id": "imp",
            "name": "Imp, the\nsmall",
            "source": SOURCE,
            "tags": ["fire", "small"],
            "element": "fire",
        }
    ]
    assert records_of(root, "test.spell")[0]["level"] == 5


def write_ods(path: Path, rows: list[list[str]]) -> None:
    """A minimal OpenDocument spreadsheet, as LibreOffice's content.xml lays it out."""
    cells = "".join(
        "<table:table-row>"
        + "".join(f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>' for v in row)
        + "</table:table-row>"
        for row in rows
    )
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body>'
        f'<office:spreadsheet><table:table table:name="Spells">{cells}</table:table></office:spreadsheet>'
        "</office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>'
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", zipfile.ZIP_STORED)
        archive.writestr("content.xml", content)
        archive.writestr("META-INF/manifest.xml", manifest)


def test_ods_sheet_is_read_and_located(tmp_path: Path) -> None:
    root = project(tmp_path)
    header = ["kind", "id", "name", "source.seed", "source.section", "level"]
    write_ods(root / "cards" / "spells.ods", [header, ["test.spell", "bolt", "Bolt", SEED, "Test", "nine"]])
    done = pnp("check", cwd=root)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        'cards/spells.ods:Spells!F2: error[type-mismatch]: expected integer, got string "nine" (at /0/level)'
    )


def test_a_record_of_a_workbook_references_a_json_one_and_back(tmp_path: Path) -> None:
    root = project(tmp_path)
    book = openpyxl.Workbook()
    book.active.append(["kind", "id", "name", "source.seed", "source.section", "ally"])
    book.active.append(["test.card", "imp", "Imp", SEED, "Test", "golem"])
    book.save(root / "cards" / "imps.xlsx")
    golem = {"kind": "test.card", "id": "golem", "name": "Golem", "source": SOURCE, "ally": "imp"}
    (root / "cards" / "golem.json").write_text(json.dumps([golem]), encoding="utf-8")
    (root / "cards" / "~$imps.xlsx").write_bytes(b"\x05owner")  # Excel's lock file while imps.xlsx is open
    done = pnp("check", cwd=root)
    assert done.returncode == 0, done.stdout
    assert done.stdout == "2 files, 2 records: 0 errors, 0 warnings\n"


def test_duplicate_ids_name_the_other_cell(tmp_path: Path) -> None:
    root = project(tmp_path)
    text = f"kind,id,name,source.seed,source.section\ntest.card,imp,Imp,{SEED},Test\ntest.card,imp,Imp2,{SEED},Test\n"
    (root / "cards" / "cards.csv").write_text(text, encoding="utf-8")
    book = openpyxl.Workbook()
    book.active.title = "More"
    book.active.append(["kind", "id", "name", "source.seed", "source.section"])
    book.active.append(["test.card", "imp", "Imp3", SEED, "Test"])
    book.save(root / "cards" / "more.xlsx")
    lines = pnp("check", cwd=root).stdout.splitlines()
    assert lines[0].startswith("cards/cards.csv:2:2: error[duplicate-id]: id 'imp' is used more than once: also at ")
    assert "cards/more.xlsx:More!B2 (test.card)" in lines[0]


def test_oversized_workbook_is_one_problem(tmp_path: Path) -> None:
    """A workbook that unpacks past 10 x max-file-mb (a zip bomb) is refused before reading it."""
    root = project(tmp_path)
    (root / "pnp.toml").write_text('[project]\nname = "t"\nmax-file-mb = 0.05\n', encoding="utf-8")
    book = openpyxl.Workbook()
    book.active.append(["kind", "id", "name"])
    book.save(root / "cards" / "big.xlsx")
    with zipfile.ZipFile(root / "cards" / "big.xlsx", "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/media/padding.bin", b"\0" * 2_000_000)
    assert (root / "cards" / "big.xlsx").stat().st_size < 0.05 * 1048576
    done = pnp("check", cwd=root)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stdout.splitlines()[0] == (
        "cards/big.xlsx:1:1: error[file-too-large]: the workbook unpacks to 1.9 MB, over 0.5 MB (10x max-file-mb); "
        "nothing of it was read: split it into smaller workbooks"
    )


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        ('[sources]\n"cards/nothing.csv" = "test.card"\n', "is no file of this project"),
        ('[sources]\n"cards/x.csv" = 3\n', "must name a kind, or map sheet names to kinds"),
        ("[sources]\nlist-separator = 1\n", "list-separator must be a string"),
    ],
)
def test_bad_sources_table_is_a_configuration_error(tmp_path: Path, sources: str, message: str) -> None:
    root = project(tmp_path, sources)
    (root / "cards" / "x.csv").write_text("id\n", encoding="utf-8")
    done = pnp("check", cwd=root)
    assert done.returncode == 2 and message in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_export_csv_then_read_back(tmp_path: Path) -> None:
    root = project(tmp_path)
    card = {
        "kind": "test.card",
        "id": "imp",
        "name": 'Imp, "small"',
        "source": SOURCE,
        "tags": [],
        "faces": [{"name": "A", "text": "line\nbreak"}],
        "cost": 2,
        "value": "X",
    }
    (root / "cards" / "cards.json").write_text(json.dumps([card]), encoding="utf-8")
    done = pnp("export", "records", "--format", "csv", "test.card", "-o", "cards/back.csv", cwd=root)
    assert done.returncode == 0, done.stderr
    data = (root / "cards" / "back.csv").read_bytes()
    assert data.startswith(b"\xef\xbb\xbfkind,id,name,source.seed,source.section,tags,faces.0.name,faces.0.text,")
    (root / "cards" / "cards.json").unlink()
    assert records_of(root, "test.card") == [card]


def test_init_schema_proposes_a_schema_the_file_then_passes(tmp_path: Path) -> None:
    """The proposal types each column from its values; with it, the same file checks clean,
    and a wrong value in a new row is caught at its cell."""
    root = project(tmp_path, '[sources]\n"cards/units.csv" = "mygame.unit"\n')
    rows = [
        "id,name,cost,element,tags.0,tags.1,stats.attack,flying,abilities.0.name",
        "imp,Imp,1,fire,small,red,2,yes,Burn",
        "golem,Golem,4,earth,big,,5,no,",
        "sprite,Sprite,2,fire,,,1,yes,",
        "wisp,Wisp,2,fire,,,1,no,",
    ]
    (root / "cards" / "units.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    done = pnp("init-schema", "cards/units.csv", "--kind", "mygame.unit", cwd=root)
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    properties = schema["properties"]
    assert properties["cost"] == {"type": "integer", "minimum": 0}
    assert properties["element"] == {"enum": ["earth", "fire"]}
    assert properties["flying"] == {"type": "boolean"}
    assert properties["tags"] == {"type": "array", "items": {"type": "string", "minLength": 1}}
    assert properties["stats"]["properties"]["attack"] == {"type": "integer", "minimum": 0}
    assert properties["abilities"]["items"]["properties"]["name"] == {"type": "string", "minLength": 1}
    assert schema["required"] == ["kind", "id", "name", "cost", "element", "stats", "flying"]
    (root / "schemas" / "mygame.unit.schema.json").write_text(done.stdout, encoding="utf-8")
    assert pnp("check", cwd=root).stdout == "1 files, 4 records: 0 errors, 0 warnings\n"
    with (root / "cards" / "units.csv").open("a", encoding="utf-8") as handle:
        handle.write("ghost,Ghost,lots,air,,,1,no,\n")
    lines = pnp("check", cwd=root).stdout.splitlines()
    assert lines[:2] == [
        'cards/units.csv:6:3: error[type-mismatch]: expected integer, got string "lots" (at /4/cost)',
        'cards/units.csv:6:4: error[enum-mismatch]: "air" is not allowed; use one of: "earth", "fire" (at /4/element)',
    ]


def test_schema_declares_separator_and_dates(tmp_path: Path) -> None:
    """x-separator on a list; a date cell where the schema wants a date string; checkbox booleans;
    a kind column overriding [sources] for the rows that fill it."""
    root = project(tmp_path, '[sources]\n"cards/events.xlsx" = "test.event"\n')
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pnp.invalid/schemas/test.event.schema.json",
        "type": "object",
        "properties": {
            "kind": {"const": "test.event"},
            "id": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "integer"}, "x-separator": "/"},
            "when": {"type": "string", "format": "date"},
            "done": {"type": "boolean"},
        },
        "required": ["kind", "id"],
        "additionalProperties": False,
    }
    (root / "schemas" / "test.event.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    book = openpyxl.Workbook()
    book.active.append(["kind", "id", "tags", "when", "done", "name", "source.seed", "source.section", "level"])
    book.active.append([None, "launch", "1 / 2/3", datetime.date(2026, 3, 4), True])
    book.active.append(["test.spell", "bolt", None, None, None, "Bolt", SEED, "Test", 1])
    book.save(root / "cards" / "events.xlsx")
    assert records_of(root, "test.event") == [
        {"kind": "test.event", "id": "launch", "tags": [1, 2, 3], "when": "2026-03-04", "done": True}
    ]
    assert records_of(root, "test.spell") == [
        {"kind": "test.spell", "id": "bolt", "name": "Bolt", "source": SOURCE, "level": 1}
    ]


def test_a_project_built_from_a_workbook_prints_the_same_cards(tmp_path: Path) -> None:
    """`pnp new`'s project built from its JSON, then from the same records as an XLSX file:
    byte-identical PDFs (layouts, references and sheets see the same records)."""
    root = tmp_path / "game"
    assert pnp("new", str(root), cwd=tmp_path).returncode == 0
    assert pnp("build", cwd=root).returncode == 0
    from_json = {p.relative_to(root): p.read_bytes() for p in sorted((root / "output").rglob("*.pdf"))}
    done = pnp("export", "records", "--format", "xlsx", "game.card", "-o", "cards/cards.xlsx", cwd=root)
    assert done.returncode == 0, done.stderr
    (root / "cards" / "cards.json").unlink()
    assert pnp("build", "--force", cwd=root).returncode == 0
    from_xlsx = {p.relative_to(root): p.read_bytes() for p in sorted((root / "output").rglob("*.pdf"))}
    assert from_json and from_xlsx == from_json


def test_list_items_after_empty_cells_move_up_and_stay_located(tmp_path: Path) -> None:
    root = project(tmp_path)
    book = openpyxl.Workbook()
    book.active.title = "Cards"
    header = ["kind", "id", "name", "source.seed", "source.section", "faces.0.name", "faces.0.summons.0"]
    book.active.append([*header, "faces.1.name", "faces.1.summons.0"])
    book.active.append(["test.card", "imp", "Imp", SEED, "Test", None, None, "Back", "nobody"])
    book.save(root / "cards" / "cards.xlsx")
    lines = pnp("check", cwd=root).stdout.splitlines()
    assert lines[0] == (
        "cards/cards.xlsx:Cards!I2: error[missing-reference]: 'nobody' names no test.card or test.spell record; "
        "add that record, or correct the id (at /0/faces/0/summons/0)"
    )


def test_semicolon_csv_and_error_literals(tmp_path: Path) -> None:
    """Excel with a decimal comma saves "CSV" with semicolons; a broken formula is saved as #REF!."""
    root = project(tmp_path)
    rows = ["kind;id;name;source.seed;source.section;text", f"test.card;imp;Imp;{SEED};Test;#REF!"]
    (root / "cards" / "cards.csv").write_text("\r\n".join(rows) + "\r\n", encoding="utf-8")
    lines = pnp("check", cwd=root).stdout.splitlines()
    assert lines == [
        "cards/cards.csv:2:6: error[formula-error]: the cell holds the spreadsheet error #REF! (a formula that "
        "failed where this file was saved); correct the formula or type the value",
        "1 files, 1 records: 1 error, 0 warnings",
    ]


def test_the_xlsx_writer_keeps_each_value_its_own_type(tmp_path: Path) -> None:
    """pnp/core/xlsx.py, which `pnp export records` and `pnp translate extract` write with: text
    that looks like a formula, an error or a number stays text, numbers keep every digit,
    characters XML cannot hold are escaped, the sheet's name is one Excel accepts; the same rows
    give the same bytes."""
    from pnp.core.xlsx import xlsx_bytes
    from pnp.project.tableread import read_sheets

    rows = [
        ["text", "number", "flag"],
        ["=1+1", 0.30000000000000004, True],
        ["#REF!", 2**60, False],
        ["007", -3, None],
        ["a\x01b", 1.5, None],
    ]
    data = xlsx_bytes("a/b:c" + "x" * 40, rows, widths=(20,), wrapped={1})
    assert xlsx_bytes("a/b:c" + "x" * 40, rows, widths=(20,), wrapped={1}) == data
    (tmp_path / "out.xlsx").write_bytes(data)
    (sheet,) = read_sheets(tmp_path / "out.xlsx", 1 << 20)
    assert sheet.name == "a_b_c" + "x" * 26 and sheet.errors == {}
    assert [cells for _, cells in sheet.rows] == [
        ["text", "number", "flag"],
        ["=1+1", 0.30000000000000004, True],
        ["#REF!", float(2**60), False],
        ["007", -3.0, ""],
        ["a\x01b", 1.5, ""],
    ]
    book = openpyxl.load_workbook(tmp_path / "out.xlsx")
    assert [c.data_type for c in book.active["A"]] == ["s"] * 5 and book.active.freeze_panes == "A2"
    with zipfile.ZipFile(tmp_path / "out.xlsx") as archive:
        assert {info.date_time for info in archive.infolist()} == {(2000, 1, 1, 0, 0, 0)}
        assert b"2000-01-01T00:00:00Z</dcterms:modified>" in archive.read("docProps/core.xml")


def test_a_missing_required_cell_is_located_at_its_column(tmp_path: Path) -> None:
    """A required field left empty: its own cell, not the row's first; in a nested object (the
    `source` group's `source.seed`) too; a required field no column names: the header row."""
    root = project(tmp_path)
    rows = [
        "kind,id,name,source.seed,source.section",
        f"test.card,imp,Imp,{SEED},Test",
        f"test.card,golem,Golem,{SEED},Test",
        f"test.card,wisp,,{SEED},Test",
        "test.card,bat,Bat,,Test",
    ]
    (root / "cards" / "units.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    book = openpyxl.Workbook()
    book.active.title = "Units"
    book.active.append(["kind", "id", "name", "source.section"])  # no source.seed column
    book.active.append(["test.card", "troll", "Troll", "Test"])
    book.active.append(["test.card", "orc", "Orc", "Test"])
    book.active.append(["test.card", "elf", None, "Test"])
    book.save(root / "cards" / "units.xlsx")
    done = pnp("check", cwd=root)
    assert done.returncode == 1
    required = sorted(line for line in done.stdout.splitlines() if "required-property" in line)
    assert required == [
        "cards/units.csv:4:3: error[required-property]: missing required property 'name'; add it (at /2)",
        "cards/units.csv:5:4: error[required-property]: missing required property 'seed'; add it (at /3/source)",
        "cards/units.xlsx:Units!A1: error[required-property]: missing required property 'seed'; add it (at /0/source)",
        "cards/units.xlsx:Units!A1: error[required-property]: missing required property 'seed'; add it (at /1/source)",
        "cards/units.xlsx:Units!A1: error[required-property]: missing required property 'seed'; add it (at /2/source)",
        "cards/units.xlsx:Units!C4: error[required-property]: missing required property 'name'; add it (at /2)",
    ], done.stdout
