"""Hostile spreadsheets, second round (issue 26): a spreadsheet's work is bounded by its size, and
CSV pnp writes never runs as a formula.

The attacks run as the real `python -m pnp check` (time and peak memory of the process measured,
tests/casekit.py) on a small project of their own (the fixture's schemas): 50,000 unknown columns
(once quadratic), a header nested 5,000 levels (once a RecursionError), a workbook whose part
unpacks 1,000 times its packed size, one whose zip directory understates what a part unpacks to,
one cell far away (a 5 KB XLSX once took 95 s and 3 GB), an ODS row repeated 200,000 times (an
831-byte file once took 2.5 GB), a million-row CSV. Each is one located line, exit 1, within
60 s and 500 MB. The CSV exports run in this process (tests/runpnp.py).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import struct
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from casekit import run_measured

from tests.runpnp import run

ROOT = Path(__file__).resolve().parents[1]
SOURCE = {"seed": "000_6347cdb41225c97f.txt", "section": "Test"}
SECONDS, MEMORY_MB = 60, 500  # generous on a shared machine; each run takes a few seconds


def project(tmp: Path, toml: str = "") -> Path:
    shutil.copytree(ROOT / "tests" / "fixture" / "schemas", tmp / "schemas")
    (tmp / "cards").mkdir()
    (tmp / "pnp.toml").write_text(f'[project]\nname = "t"\n{toml}', encoding="utf-8")
    return tmp


def check_bounded(root: Path) -> list[str]:
    """`pnp check` as a real process: exit 1 within the bounds; its problem lines."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pnp", "check", "--no-render", "--ignore", "no-layouts"]
    code, out, err, seconds, memory_mb = run_measured(command, root, env, timeout=SECONDS * 2)
    assert code == 1 and "Traceback" not in err and "internal error" not in err, out + err
    assert seconds < SECONDS and memory_mb < MEMORY_MB, (seconds, memory_mb)
    return [line for line in out.splitlines() if ": error[" in line]


def test_fifty_thousand_unknown_columns_take_linear_time(tmp_path: Path) -> None:
    """An 800 KB header of unknown columns: the first 1000 located at their header cell (with
    did-you-mean), the rest counted in one line."""
    root = project(tmp_path)
    header = ["kind", "id", "name", "source.seed", "source.section", *(f"unknown_{i:05}" for i in range(50_000))]
    row = ["test.card", "a", "A", SOURCE["seed"], SOURCE["section"], *("1" for _ in range(50_000))]
    (root / "cards" / "wide.csv").write_text(",".join(header) + "\n" + ",".join(row) + "\n", encoding="utf-8")
    assert (root / "cards" / "wide.csv").stat().st_size > 700_000
    lines = check_bounded(root)
    assert len(lines) == 1001
    assert lines[0].startswith("cards/wide.csv:1:6: error[unknown-column]: column 'unknown_00000' names no field")
    assert "did you mean" in lines[0] or "allowed: " in lines[0]
    assert lines[999].startswith("cards/wide.csv:1:1005: error[unknown-column]: column 'unknown_00999'")
    assert lines[1000].startswith(
        "cards/wide.csv:1:1006: error[limit-exceeded]: 49000 more problems in this file are not shown"
    )


def test_list_columns_by_the_ten_thousand_are_located_in_linear_time(tmp_path: Path) -> None:
    """10,000 `faces.N.text` columns, each item missing its required name: every finding is
    located (at the header row: no column names the field) through a tree of the columns, not a
    search of all of them for each finding (which took minutes)."""
    root = project(tmp_path)
    count = 10_000
    header = ["kind", "id", "name", "source.seed", "source.section", *(f"faces.{i}.text" for i in range(count))]
    row = ["test.card", "a", "A", SOURCE["seed"], SOURCE["section"], *(f"t{i}" for i in range(count))]
    (root / "cards" / "faces.csv").write_text(",".join(header) + "\n" + ",".join(row) + "\n", encoding="utf-8")
    lines = check_bounded(root)
    assert lines[0] == (
        "cards/faces.csv:1:1: error[required-property]: missing required property 'name'; add it (at /0/faces/0)"
    )
    assert lines[999].endswith("(at /0/faces/999)")
    assert lines[-1].startswith("cards/faces.csv:1:1: error[limit-exceeded]: 9000 more problems")


def test_a_header_nested_thousands_of_levels_is_one_located_problem(tmp_path: Path) -> None:
    root = project(tmp_path)
    deep = "faces." + ".".join(["0"] * 5000)
    (root / "cards" / "deep.csv").write_text(f"kind,id,name,{deep}\ntest.card,a,A,x\n", encoding="utf-8")
    done = run(root, "check", "--no-render", "--ignore", "no-layouts", "--ignore", "required-property")
    assert done.returncode == 1 and "Traceback" not in done.stderr and "internal error" not in done.stderr
    shown = "faces." + "0." * 27 + "..." + ".0.0.0.0.0"  # a message quotes 60 + 10 characters of a long header
    assert done.stdout.splitlines()[0] == (
        f"cards/deep.csv:1:4: error[unknown-column]: column header '{shown}' nests fields over 100 levels deep; "
        "no record needs that"
    )


def workbook() -> bytes:
    book = openpyxl.Workbook()
    book.active.title = "Units"
    book.active.append(["kind", "id", "name"])
    book.active.append(["test.card", "a", "A"])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def repacked(original: bytes, change: dict[str, bytes]) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(original))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            archive.writestr(info.filename, change.get(info.filename, source.read(info)), compresslevel=9)
        for name in set(change) - set(source.namelist()):
            archive.writestr(name, change[name], compresslevel=9)
    return out.getvalue()


def understated(data: bytes, member: str, size: int) -> bytes:
    """The zip with `member`'s unpacked size written as `size` in both its headers (CRC kept)."""
    raw = bytearray(data)
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(member)
    raw[info.header_offset + 22 : info.header_offset + 26] = struct.pack("<I", size)
    at = raw.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack("<H", raw[at + 28 : at + 30])[0]
        if raw[at + 46 : at + 46 + length] == member.encode():
            raw[at + 24 : at + 28] = struct.pack("<I", size)
        at = raw.find(b"PK\x01\x02", at + 1)
    return bytes(raw)


def ods(rows: str) -> bytes:
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body>'
        f'<office:spreadsheet><table:table table:name="Units">{rows}</table:table></office:spreadsheet>'
        "</office:body></office:document-content>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        archive.writestr("content.xml", content)
        archive.writestr(
            "META-INF/manifest.xml",
            '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
            'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
            '<manifest:file-entry manifest:full-path="/" '
            'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
            '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
            "</manifest:manifest>",
        )
    return out.getvalue()


def cell(text: str, repeat: int = 1) -> str:
    return (
        f'<table:table-cell table:number-columns-repeated="{repeat}" office:value-type="string">'
        f"<text:p>{text}</text:p></table:table-cell>"
    )


HEADER_ROW = "<table:table-row>" + cell("kind") + cell("id") + cell("name") + "</table:table-row>"
SHEET = "xl/worksheets/sheet1.xml"


def far_cell() -> bytes:
    book = openpyxl.Workbook()
    book.active.title = "Units"
    book.active.append(["kind", "id", "name"])
    book.active["ZZ100000"] = "x"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "make", "says"),
    [
        (
            "bomb.xlsx",
            lambda: repacked(
                workbook(), {SHEET: zipfile.ZipFile(io.BytesIO(workbook())).read(SHEET) + b" " * 8_000_000}
            ),
            "1:1: error[file-too-large]: its part 'xl/worksheets/sheet1.xml' unpacks to 7.6 MB, 978 times its "
            "packed size (at most 100 times: a zip bomb?); nothing of it was read",
        ),
        (
            "liar.xlsx",
            lambda: understated(
                repacked(workbook(), {"xl/media/pad.bin": b"\0" * 3_000_000}), "xl/media/pad.bin", 1000
            ),
            "1:1: error[file-too-large]: its part 'xl/media/pad.bin' unpacks to more than the 1,000 bytes its zip "
            "directory declares (a zip bomb, or a damaged file); nothing of it was read",
        ),
        (
            "far.xlsx",
            far_cell,
            "1:1: error[limit-exceeded]: sheet 'Units' spans 70,200,000 cells (rows x columns, empty ones included), "
            "over the limit of 5,000,000 (table-cells)",
        ),
        (
            "rows.ods",
            lambda: ods(
                HEADER_ROW
                + '<table:table-row table:number-rows-repeated="200000">'
                + cell("test.card")
                + cell("x", 100)
                + "</table:table-row>"
            ),
            "1:1: error[limit-exceeded]: sheet 'Units' has more than 100,000 rows, over the limit of 100,000 (table-rows)",
        ),
    ],
    ids=["ratio bomb", "understated size", "one far cell", "ods repeated row"],
)
def test_a_workbook_standing_for_far_more_than_its_size_is_refused_before_reading(
    tmp_path: Path, name: str, make: object, says: str
) -> None:
    root = project(tmp_path)
    assert callable(make)
    data = make()
    assert len(data) < 100_000  # a small file; what it unpacks or expands to is what is refused
    (root / "cards" / name).write_bytes(data)
    lines = check_bounded(root)
    assert len(lines) == 1 and lines[0].startswith(f"cards/{name}:{says}"), lines


def test_libreoffice_trailing_empty_repeats_are_not_counted(tmp_path: Path) -> None:
    """LibreOffice writes the empty rest of a sheet as one row repeated a million times: free."""
    root = project(tmp_path)
    body = (
        HEADER_ROW
        + "<table:table-row>"
        + cell("test.card")
        + cell("b")
        + cell("B")
        + '<table:table-cell table:number-columns-repeated="1000"/></table:table-row>'
        + '<table:table-row table:number-rows-repeated="1048570">'
        + '<table:table-cell table:number-columns-repeated="1024"/></table:table-row>'
    )
    (root / "cards" / "ok.ods").write_bytes(ods(body))
    assert check_bounded(root) == [
        "cards/ok.ods:Units!A1: error[required-property]: missing required property 'source'; add it (at /0)"
    ]


def test_an_empty_formatted_cell_far_away_is_not_counted(tmp_path: Path) -> None:
    """Calamine skips a cell with a format but no value: so does the measure of the used area."""
    from openpyxl.styles import Font

    root = project(tmp_path)
    book = openpyxl.Workbook()
    book.active.title = "Units"
    book.active.append(["kind", "id", "name", "source.seed", "source.section"])
    book.active.append(["test.card", "a", "A", SOURCE["seed"], SOURCE["section"]])
    book.active["ZZ100000"].font = Font(bold=True)
    book.save(root / "cards" / "styled.xlsx")
    done = run(root, "check", "--no-render", "--ignore", "no-layouts")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_million_row_csv_is_one_located_problem_at_the_row_past_the_limit(tmp_path: Path) -> None:
    root = project(tmp_path)
    with (root / "cards" / "rows.csv").open("w", encoding="utf-8") as handle:
        handle.write("kind,id\n")
        handle.write("x,1\n" * 1_000_000)
    assert check_bounded(root) == [
        "cards/rows.csv:100001:1: error[limit-exceeded]: this file has more than 100,000 rows, over the limit of "
        "100,000 (table-rows); if this is really meant, raise it with table-rows = ... in [limits] of pnp.toml; "
        "or split the file"
    ]


def test_raising_table_rows_reads_more_rows(tmp_path: Path) -> None:
    root = project(tmp_path, "[limits]\ntable-rows = 5\n")
    rows = "".join(f"test.card,c{i},C\n" for i in range(5))
    (root / "cards" / "rows.csv").write_text("kind,id,name\n" + rows, encoding="utf-8")
    done = run(root, "check", "--no-render", "--ignore", "no-layouts", "--ignore", "required-property")
    assert done.stdout.startswith("cards/rows.csv:6:1: error[limit-exceeded]: this file has more than 5 rows")
    (root / "pnp.toml").write_text('[project]\nname = "t"\n[limits]\ntable-rows = 6\n', encoding="utf-8")
    done = run(root, "check", "--no-render", "--ignore", "no-layouts", "--ignore", "required-property")
    assert done.returncode == 0, done.stdout


# --- CSV pnp writes never runs as a formula ------------------------------------------------------

FORMULAS = ['=HYPERLINK("http://x","y")', "+1+1", "-2 damage", "@SUM(A1)", "'=quoted", "'Tis plain"]


def test_export_csv_neutralises_formula_starts_and_reads_back_the_same(tmp_path: Path) -> None:
    """Text starting with = + - @ (tab and CR are written as JSON text in quotes, so start with ")
    gets a leading '; a number stays a number (-3); reading the file back gives the same records."""
    root = project(tmp_path)
    cards = [
        {"kind": "test.card", "id": f"c{i}", "name": name, "source": SOURCE, "value": -3, "tags": ["\t=x"]}
        for i, name in enumerate(FORMULAS)
    ]
    (root / "cards" / "cards.json").write_text(json.dumps(cards), encoding="utf-8")
    done = run(root, "export", "records", "--format", "csv", "test.card", "-o", "cards/back.csv")
    assert done.returncode == 0, done.stdout + done.stderr
    table = list(csv.reader(io.StringIO((root / "cards" / "back.csv").read_text(encoding="utf-8-sig"))))
    header = table[0]
    names = [row[header.index("name")] for row in table[1:]]
    assert names == ['\'=HYPERLINK("http://x","y")', "'+1+1", "'-2 damage", "'@SUM(A1)", "''=quoted", "'Tis plain"]
    assert {row[header.index("value")] for row in table[1:]} == {"-3"}
    for row in table:
        for text in row:
            assert not text.startswith(("=", "+", "-", "@", "\t", "\r")) or text == "-3", text
    (root / "cards" / "cards.json").unlink()
    done = run(root, "export", "records", "--format", "json", "test.card", "-o", "out.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((root / "out.json").read_text(encoding="utf-8")) == cards


def test_export_xlsx_keeps_formula_starts_as_text(tmp_path: Path) -> None:
    root = project(tmp_path)
    cards = [{"kind": "test.card", "id": f"c{i}", "name": n, "source": SOURCE} for i, n in enumerate(FORMULAS)]
    (root / "cards" / "cards.json").write_text(json.dumps(cards), encoding="utf-8")
    assert run(root, "export", "records", "--format", "xlsx", "test.card", "-o", "out.xlsx").returncode == 0
    with zipfile.ZipFile(root / "out.xlsx") as archive:
        assert b"<f>" not in archive.read(SHEET) and b"<f " not in archive.read(SHEET)
    sheet = openpyxl.load_workbook(root / "out.xlsx").active
    header = [c.value for c in sheet[1]]
    column = header.index("name") + 1
    cells = [sheet.cell(row=r, column=column) for r in range(2, len(FORMULAS) + 2)]
    assert [c.value for c in cells] == FORMULAS and {c.data_type for c in cells} == {"s"}
