"""Reading a CSV/TSV file or a workbook (XLSX, ODS... through python-calamine) into sheets of
cells, with the work bounded by the file's size: a workbook whose members unpack to far more than
the file (a zip bomb) is refused from its zip directory, before a byte is unpacked.

pnp/project/tabular.py turns the sheets into records; `pnp init-schema` and `pnp translate
import` read sheets through `read_sheets` too.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree import ElementTree

from pnp.core import limits
from pnp.project.zipcheck import SheetScan, ZipRefused, check_unpacked, column_number, scan_ods

WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".ods", ".xls")
ZIPPED = (".xlsx", ".xlsm", ".xlsb", ".ods")  # .xls (Excel 97-2003) is not a zip: no unpacked-size check
EXPANSION_LIMIT = 10  # a workbook may unzip to at most 10x max-file-mb (zip bombs)


@dataclass(slots=True)
class Sheet:
    """One sheet's cells: (row number, cells from column 1) and known cell errors."""

    name: str | None
    rows: list[tuple[int, list[Any]]]
    errors: dict[tuple[int, int], str] = field(default_factory=dict)
    merged: list[tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=list)
    ragged: bool = False  # CSV: a row must have as many cells as the header


class TableError(Exception):
    """A file that cannot be read as a table at all, with where it goes wrong (and, for a
    damaged workbook, `detail`: what the reading library said, for callers that word it their way)."""

    def __init__(self, code: str, message: str, row: int = 1, column: int = 1, detail: str = "") -> None:
        super().__init__(message)
        self.code, self.row, self.column, self.detail = code, row, column, detail


# What makes a spreadsheet app run a CSV cell as a formula (OWASP "CSV injection"): pnp writes
# such a text cell with a leading ' (which the apps show as text), and reading a CSV drops it.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
ESCAPED = re.compile("'+[=+\\-@\t\r]")


def neutralised(text: str) -> str:
    """A text cell as pnp writes it to CSV: one more leading ' before a formula start (`=cmd()`
    -> `'=cmd()`, and `'=x` -> `''=x`, so reading back gives the text written)."""
    if text.startswith(FORMULA_STARTS) or (text[:1] == "'" and ESCAPED.match(text)):
        return "'" + text
    return text


def _unneutralised(cell: str) -> str:
    return cell[1:] if cell[:1] == "'" and ESCAPED.match(cell) else cell


def read_sheets(path: Path, max_bytes: int) -> list[Sheet]:
    """The visible sheets of a workbook, or the one sheet of a CSV/TSV file; raises TableError."""
    if path.suffix.lower() in WORKBOOK_SUFFIXES:
        return _read_workbook(path, max_bytes * EXPANSION_LIMIT)
    return [_read_csv(path.read_bytes(), "\t" if path.suffix.lower() == ".tsv" else ",")]


def _read_csv(raw: bytes, delimiter: str) -> Sheet:
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise TableError(
            "invalid-encoding", "file is UTF-16; save it as CSV UTF-8 (Excel: 'CSV UTF-8 (Comma delimited)')"
        )
    if raw.startswith(codecs.BOM_UTF8):  # Excel writes one: accepted
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        before = raw[: err.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", errors="replace")) + 1
        bad = raw[err.start : err.start + 1].hex()
        raise TableError(
            "invalid-encoding",
            f"byte 0x{bad} is not valid UTF-8; save the file as CSV UTF-8 (Excel: 'CSV UTF-8 (Comma delimited)')",
            line,
            column,
        ) from None
    if not text.strip():
        raise TableError("empty-file", "file is empty; a CSV record file holds a header row and one row per record")
    first_line = text.split("\n", 1)[0]
    if delimiter == "," and first_line.count(";") > first_line.count(","):
        delimiter = ";"  # Excel in locales with a decimal comma writes "CSV" with semicolons
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[tuple[int, list[Any]]] = []
    start, cells_read, bound = 1, 0, limits.current()
    try:
        for cells in reader:
            if any(cell[:1] == "'" for cell in cells):
                cells = [_unneutralised(cell) for cell in cells]
            rows.append((start, cells))
            cells_read += len(cells)
            if len(rows) > bound.table_rows or cells_read > bound.table_cells:
                raise TableError("limit-exceeded", _too_big(len(rows), cells_read, "this file"), start)
            start = reader.line_num + 1
    except csv.Error as err:
        raise TableError("csv-syntax", _csv_syntax(str(err)), start) from None
    return Sheet(None, rows, ragged=True)


def _csv_syntax(error: str) -> str:
    if "field larger than field limit" in error:
        return (
            f"CSV syntax: a value in this row is over {csv.field_size_limit():,} characters: a quote left open "
            'swallows the rows after it (close it; a quote inside a quoted value is written twice: ""), '
            "or shorten the value"
        )
    detail = "a quoted value opened in this row is never closed" if "end of data" in error else f"{error} in this row"
    return f'CSV syntax: {detail}; close the quote (a quote inside a quoted value is written twice: "")'


def _too_big(rows: int, cells: int, where: str) -> str:
    bound = limits.current()
    if rows > bound.table_rows:
        return limits.exceeded("table_rows", f"{where} has more than {bound.table_rows:,} rows") + (
            "; or split the file"
        )
    return limits.exceeded("table_cells", f"{where} spans {cells:,} cells (rows x columns, empty ones included)") + (
        "; or split the file, or clear cells far from the table"
    )


def _read_workbook(path: Path, max_unzipped: int) -> list[Sheet]:
    """Every visible worksheet of an XLSX/ODS file, with cell errors (XLSX) and merged cells.
    Before calamine reads a byte, the zip's members are measured (declared and actual unpacked
    sizes, and their ratio to the packed ones) and each sheet's used area is measured from its
    XML: a small file standing for gigabytes of cells is refused, not read."""
    scans: dict[str, SheetScan] = {}
    try:
        if path.suffix.lower() in ZIPPED:
            with zipfile.ZipFile(path) as archive:
                check_unpacked(path, archive.infolist(), max_unzipped, f" ({EXPANSION_LIMIT}x max-file-mb)")
                if path.suffix.lower() in (".xlsx", ".xlsm"):
                    scans = _scan_xlsx(archive)
                elif path.suffix.lower() == ".ods" and "content.xml" in archive.namelist():
                    scans = scan_ods(archive)
    except ZipRefused as err:
        raise TableError(
            "file-too-large",
            f"{err}; nothing of it was read: split it into smaller workbooks",
        ) from None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError, ElementTree.ParseError, ValueError, zlib.error) as err:
        raise _damaged(path, err) from None
    bound = limits.current()
    for name, scan in scans.items():  # every sheet, hidden ones too: calamine reads all of an ODS
        if scan.rows > bound.table_rows or scan.cells > bound.table_cells:
            raise TableError("limit-exceeded", _too_big(scan.rows, scan.cells, f"sheet {name!r}"))
    import python_calamine

    sheets: list[Sheet] = []
    try:
        with python_calamine.CalamineWorkbook.from_path(str(path)) as book:
            for meta in book.sheets_metadata:
                if meta.visible != python_calamine.SheetVisibleEnum.Visible:
                    continue
                if meta.typ != python_calamine.SheetTypeEnum.WorkSheet:
                    continue
                scan = scans.get(meta.name, SheetScan())
                sheet = book.get_sheet_by_name(meta.name)
                grid = sheet.to_python(skip_empty_area=False)
                rows = [(i + 1, list(cells)) for i, cells in enumerate(grid)]
                merged = list(sheet.merged_cell_ranges or [])
                sheets.append(Sheet(meta.name, rows, scan.errors, merged))
    except python_calamine.PasswordError:
        raise TableError("bad-workbook", "the workbook is protected by a password; save a copy without one") from None
    except BaseException as err:  # calamine's errors, and a Rust panic (a BaseException)
        if isinstance(err, KeyboardInterrupt | SystemExit | MemoryError):
            raise
        raise _damaged(path, err) from None
    return sheets


def _damaged(path: Path, err: BaseException) -> TableError:
    detail = str(err).splitlines()[0][:120] if str(err) else type(err).__name__
    message = (
        f"not a readable {path.suffix.lower()[1:].upper()} workbook ({detail}); the file is damaged or of "
        "another type: open it in a spreadsheet app and save it again"
    )
    return TableError("bad-workbook", message, detail=detail)


MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
REL_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
CELL = re.compile(rb"<c\b([^>]*?)(?:/>|>(.*?)</c>)", re.DOTALL)
CELL_REF = re.compile(rb'\br="([A-Z]+)(\d+)"')
VALUE = re.compile(rb"<v>([^<]*)</v>")


def _scan_xlsx(archive: zipfile.ZipFile) -> dict[str, SheetScan]:
    """Each sheet's used area, and the cells calamine reads as empty though they are not: formula
    errors (#REF!) and formulas with no saved value. Sheet XML is scanned in chunks, so memory
    stays bounded."""
    names = set(archive.namelist())
    if "xl/workbook.xml" not in names:
        return {}
    book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    targets: dict[str, str] = {}
    if "xl/_rels/workbook.xml.rels" in names:
        for rel in ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels")).iter(f"{RELS}Relationship"):
            target = rel.get("Target", "")
            resolved = target.lstrip("/") if target.startswith("/") else str(PurePosixPath("xl") / target)
            targets[rel.get("Id", "")] = resolved
    found: dict[str, SheetScan] = {}
    for sheet in book.iter(f"{MAIN}sheet"):
        member = targets.get(sheet.get(REL_ID, ""), "")
        if member in names:
            found[sheet.get("name", "")] = _scan_sheet(archive, member)
    return found


def _scan_sheet(archive: zipfile.ZipFile, member: str) -> SheetScan:
    scan = SheetScan()
    with archive.open(member) as stream:
        pending = b""
        while True:
            chunk = stream.read(1 << 20)
            data = pending + chunk
            cut = len(data) if not chunk else data.rfind(b"<c ")
            if cut <= 0:
                cut = 0 if chunk else len(data)
            part, pending = data[:cut], data[cut:]
            scan.measure(part)
            if b't="e"' in part or b"<f" in part:
                scan.errors.update(_cell_errors(part))
            if not chunk:
                break
    return scan


def _cell_errors(part: bytes) -> Iterator[tuple[tuple[int, int], str]]:
    for match in CELL.finditer(part):
        attributes, content = match.group(1), match.group(2) or b""
        ref = CELL_REF.search(attributes)
        if ref is None:
            continue
        where = (int(ref.group(2)), column_number(ref.group(1).decode()))
        value = VALUE.search(content)
        if b't="e"' in attributes:
            shown = value.group(1).decode("utf-8", errors="replace") if value else "#N/A"
            yield where, f"the formula in this cell gives the error {shown}; correct the formula or type the value"
        elif b"<f" in content and not (value and value.group(1)) and b't="str"' not in attributes:
            yield (
                where,
                (
                    "this formula has no saved value (the file was written by a program that does not calculate); "
                    "open the file in a spreadsheet app and save it, or type the value"
                ),
            )
