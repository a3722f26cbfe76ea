"""Write the spreadsheet inputs of the table-* case folders (workbooks are binary: made here, committed).

python tests/cases/make_tables.py      # then: python tests/cases/regen.py table-... for each case
"""

from __future__ import annotations

import datetime
from pathlib import Path

import openpyxl

CASES = Path(__file__).resolve().parent
SEED = "000_6347cdb41225c97f.txt"
HEADER = ["kind", "id", "name", "source.seed", "source.section", "cost", "element", "ally", "text"]


def card(rid: str, name: str, cost: object, element: str = "fire", ally: str | None = None, text: str = "") -> list:
    return ["test.card", rid, name, SEED, "Test", cost, element, ally, text or None]


def write(path: Path, sheets: dict[str, list[list[object]]], hidden: tuple[str, ...] = ()) -> openpyxl.Workbook:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
        if title in hidden:
            sheet.sheet_state = "hidden"
    book.properties.created = book.properties.modified = datetime.datetime(2026, 1, 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    book.save(path)
    return book


def main() -> None:
    # a type error in a cell, a multi-line cell, a hidden sheet skipped, an empty row skipped
    write(
        CASES / "table-xlsx-type-error/cards/units.xlsx",
        {
            "Units": [
                HEADER,
                card("fire-imp", "Fire Imp", 3, text="Burns.\nTwice."),
                [None] * len(HEADER),
                card("water-imp", "Water Imp", "three", "water"),
            ],
            "Notes": [["not", "records"], ["ignored", "because hidden"]],
        },
        hidden=("Notes",),
    )
    # unknown and duplicate headers, at the header cell, with did-you-mean; a sheet with no kind
    write(
        CASES / "table-unknown-column/cards/units.xlsx",
        {
            "Units": [[*HEADER, "elemnt", "cost"], [*card("fire-imp", "Fire Imp", 3), "fire", 4]],
            "Extra": [[], [None, "id", "name"], [None, "water-imp", "Water Imp"]],
        },
    )
    # kind from [sources] per sheet, lists by separator and by index, merged cells, formula errors
    book = write(
        CASES / "table-xlsx-sources/cards/game.xlsx",
        {
            "Cards": [
                ["id", "name", "source.seed", "source.section", "tags", "faces.0.name", "faces.1.name", "cost"],
                ["fire-imp", "Fire Imp", SEED, "Test", "fire; small", "Front", "Back", 2],
                ["water-imp", "Water Imp", SEED, None, "water", "Front", None, "#REF!"],
                ["earth-golem", "Earth Golem", SEED, "Test", None, None, None, "=1+1"],
            ],
            "Spells": [
                ["id", "name", "source.seed", "source.section", "level"],
                ["bolt", "Bolt", SEED, "Test", datetime.date(2026, 1, 1)],
            ],
        },
    )
    book["Cards"].merge_cells("D3:D4")
    book["Cards"]["D3"] = "Test"
    book.save(CASES / "table-xlsx-sources/cards/game.xlsx")
    for name in ("table-format-github", "table-format-sarif", "table-format-text"):
        write(
            CASES / f"{name}/cards/My Units.xlsx",
            {"Front Row": [HEADER, card("fire-imp", "Fire Imp", 12), card("water-imp", "Water Imp", 1, "mud")]},
        )


if __name__ == "__main__":
    main()
