"""Records from spreadsheets: CSV/TSV, and XLSX/ODS workbooks read by python-calamine.

A header row names the fields (dotted for nesting, indexed for lists: `abilities.0.name`);
every other non-empty row is one record. The kind comes from a `kind` column or from pnp.toml
[sources]; the schema types each cell (pnp/project/fields.py). Every problem is located at a cell:
findings carry a cell number (`cell_offset`) that `TableLocator` turns into row, column and
`Sheet!C12`, so schema, reference and layout checks locate spreadsheet records like JSON ones.
"""

from __future__ import annotations

import codecs
import csv
import difflib
import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree import ElementTree

from pnp.core.pointers import unescape
from pnp.core.problems import Finding
from pnp.project.fields import ABSENT, CellError, Field, FieldGuide, convert
from pnp.project.recordfile import RecordFile

WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".ods", ".xls")
ZIPPED = (".xlsx", ".xlsm", ".xlsb", ".ods")  # .xls (Excel 97-2003) is not a zip: no unpacked-size check
# What a failed formula shows, in a CSV saved from a sheet or an ODS cell: never card data.
ERROR_LITERALS = frozenset(
    {
        "#REF!",
        "#DIV/0!",
        "#N/A",
        "#NAME?",
        "#NULL!",
        "#NUM!",
        "#VALUE!",
        "#SPILL!",
        "#CALC!",
        "#GETTING_DATA",
        "#ERROR!",
    }
)
ODS_ERROR = re.compile(r"Err:\d{3}")
EXPANSION_LIMIT = 10  # a workbook may unzip to at most 10x max-file-mb (zip bombs)
ROW_BITS, SHEET_BITS = 16, 40


def cell_offset(sheet: int, row: int, column: int) -> int:
    """One int for a cell, as Finding.offset carries it (row < 2**24, column < 2**16)."""
    return (sheet << SHEET_BITS) | (min(row, (1 << 24) - 1) << ROW_BITS) | min(column, (1 << ROW_BITS) - 1)


def column_letters(column: int) -> str:
    letters = ""
    while column > 0:
        column, rest = divmod(column - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def cell_name(sheet: str | None, row: int, column: int) -> str:
    """`Units!C12` ('My Units'!C12 when the name has spaces), or "" for CSV."""
    if sheet is None:
        return ""
    quoted = sheet if re.fullmatch(r"\w+", sheet) else "'" + sheet.replace("'", "''") + "'"
    return f"{quoted}!{column_letters(column)}{row}"


@dataclass(slots=True)
class TableLocator:
    """Where each record and column of a table file is, to locate findings at cells."""

    sheets: list[str | None] = field(default_factory=list)
    header_rows: list[int] = field(default_factory=list)
    columns: list[dict[tuple[str, ...], int]] = field(default_factory=list)
    rows: list[tuple[int, int]] = field(default_factory=list)  # per record: (sheet, row)
    moved: dict[int, dict[tuple[str, ...], int]] = field(default_factory=dict)  # record -> path -> column

    def _column(self, record: int, columns: dict[tuple[str, ...], int], path: tuple[str, ...]) -> int | None:
        """The column of a field path (list items closed up over empty cells are in `moved`), or
        of the first of its group of columns (stats.attack, stats.defense for `stats`)."""
        moved = self.moved.get(record) or {}
        found = moved.get(path, columns.get(path))
        if found is None:
            end = len(path)
            group = [c for p, c in moved.items() if p[:end] == path] or [
                c for p, c in columns.items() if p[:end] == path
            ]
            found = min(group, default=None)
        return found

    def offset_of(self, finding: Finding) -> int:
        parts = [unescape(p) for p in finding.pointer.split("/")[1:]]
        if not parts or not parts[0].isdigit() or int(parts[0]) >= len(self.rows):
            return cell_offset(0, self.header_rows[0] if self.header_rows else 1, 1)
        sheet, row = self.rows[int(parts[0])]
        columns = self.columns[sheet]
        path = tuple(parts[1:])
        if finding.at_key:
            return cell_offset(sheet, self.header_rows[sheet], columns.get(path, _first(columns)))
        if finding.missing:  # a required field: its empty cell, or the header row where no column names it
            column = self._column(int(parts[0]), columns, (*path, finding.missing))
            return cell_offset(sheet, row if column else self.header_rows[sheet], column or _first(columns))
        for end in range(len(path), 0, -1):
            column = self._column(int(parts[0]), columns, path[:end])
            if column is not None:
                return cell_offset(sheet, row, column)
        return cell_offset(sheet, row, _first(columns))

    def position(self, offset: int) -> tuple[int, int, str]:
        sheet = offset >> SHEET_BITS
        row = (offset >> ROW_BITS) & ((1 << 24) - 1)
        column = offset & ((1 << ROW_BITS) - 1)
        row, column = max(row, 1), max(column, 1)
        name = self.sheets[sheet] if sheet < len(self.sheets) else None
        return row, column, cell_name(name, row, column)


def _first(columns: dict[tuple[str, ...], int]) -> int:
    return min(columns.values(), default=1)


@dataclass(slots=True)
class Sheet:
    """One sheet's cells: (row number, cells from column 1) and known cell errors."""

    name: str | None
    rows: list[tuple[int, list[Any]]]
    errors: dict[tuple[int, int], str] = field(default_factory=dict)
    merged: list[tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=list)
    ragged: bool = False  # CSV: a row must have as many cells as the header


def load_table(path: Path, display: str, max_bytes: int, guide: FieldGuide | None) -> RecordFile:
    """Read a CSV/TSV file or a workbook into records; every problem becomes a located finding."""
    locator = TableLocator()
    record_file = RecordFile(path, display, b"", [], True, [], locator=locator)
    guide = guide or FieldGuide(None, path.parent, {})
    try:
        size = path.stat().st_size
        if size > max_bytes:
            message = (
                f"file is {size / 1048576:.1f} MB, over the {max_bytes / 1048576:.0f} MB limit; "
                "split it into smaller files (or raise max-file-mb in pnp.toml)"
            )
            return _failed(record_file, "file-too-large", message)
        sheets = read_sheets(path, max_bytes)
    except OSError as err:
        return _failed(record_file, "unreadable-file", f"cannot read file: {err.strerror}")
    except TableError as err:
        locator.sheets.append(None)
        record_file.findings.append(Finding(err.code, str(err), offset=cell_offset(0, err.row, err.column)))
        return record_file
    for index, sheet in enumerate(sheets):
        locator.sheets.append(sheet.name)
        locator.header_rows.append(1)
        locator.columns.append({})
        _sheet_records(path, index, sheet, guide, record_file)
    if not record_file.records and not record_file.findings:
        message = "no records: the file has no rows under a header row (hidden sheets are skipped)"
        record_file.findings.append(Finding("empty-file", message, offset=cell_offset(0, 1, 1)))
    return record_file


def _failed(record_file: RecordFile, code: str, message: str) -> RecordFile:
    assert isinstance(record_file.locator, TableLocator)
    record_file.locator.sheets.append(None)
    record_file.findings.append(Finding(code, message, offset=cell_offset(0, 1, 1)))
    return record_file


class TableError(Exception):
    """A file that cannot be read as a table at all, with where it goes wrong (and, for a
    damaged workbook, `detail`: what the reading library said, for callers that word it their way)."""

    def __init__(self, code: str, message: str, row: int = 1, column: int = 1, detail: str = "") -> None:
        super().__init__(message)
        self.code, self.row, self.column, self.detail = code, row, column, detail


# --- reading -----------------------------------------------------------------------------


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
    start = 1
    try:
        for cells in reader:
            rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as err:
        detail = (
            "a quoted value opened in this row is never closed" if "end of data" in str(err) else f"{err} in this row"
        )
        message = f'CSV syntax: {detail}; close the quote (a quote inside a quoted value is written twice: "")'
        raise TableError("csv-syntax", message, start) from None
    return Sheet(None, rows, ragged=True)


def _read_workbook(path: Path, max_unzipped: int) -> list[Sheet]:
    """Every visible worksheet of an XLSX/ODS file, with cell errors (XLSX) and merged cells."""
    unzipped, errors = 0, {}
    try:
        if path.suffix.lower() in ZIPPED:
            with zipfile.ZipFile(path) as archive:
                unzipped = sum(info.file_size for info in archive.infolist())
                errors = _xlsx_cell_errors(archive) if path.suffix.lower() in (".xlsx", ".xlsm") else {}
    except (zipfile.BadZipFile, OSError, EOFError, KeyError, ElementTree.ParseError, ValueError) as err:
        raise _damaged(path, err) from None
    if unzipped > max_unzipped:
        raise TableError(
            "file-too-large",
            f"the workbook unpacks to {unzipped / 1048576:.1f} MB, over {max_unzipped / 1048576:.1f} MB "
            f"({EXPANSION_LIMIT}x max-file-mb); split it into smaller workbooks",
        )
    import python_calamine

    sheets: list[Sheet] = []
    try:
        with python_calamine.CalamineWorkbook.from_path(str(path)) as book:
            for meta in book.sheets_metadata:
                if meta.visible != python_calamine.SheetVisibleEnum.Visible:
                    continue
                if meta.typ != python_calamine.SheetTypeEnum.WorkSheet:
                    continue
                sheet = book.get_sheet_by_name(meta.name)
                grid = sheet.to_python(skip_empty_area=False)
                rows = [(i + 1, list(cells)) for i, cells in enumerate(grid)]
                merged = list(sheet.merged_cell_ranges or [])
                sheets.append(Sheet(meta.name, rows, errors.get(meta.name, {}), merged))
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


def _xlsx_cell_errors(archive: zipfile.ZipFile) -> dict[str, dict[tuple[int, int], str]]:
    """Cells calamine reads as empty though they are not: formula errors (#REF!) and formulas
    with no saved value. Sheet XML is scanned in chunks, so memory stays bounded."""
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
    found: dict[str, dict[tuple[int, int], str]] = {}
    for sheet in book.iter(f"{MAIN}sheet"):
        member = targets.get(sheet.get(REL_ID, ""), "")
        if member in names:
            errors = dict(_scan_sheet(archive, member))
            if errors:
                found[sheet.get("name", "")] = errors
    return found


def _scan_sheet(archive: zipfile.ZipFile, member: str) -> Iterator[tuple[tuple[int, int], str]]:
    with archive.open(member) as stream:
        pending = b""
        while True:
            chunk = stream.read(1 << 20)
            data = pending + chunk
            cut = len(data) if not chunk else data.rfind(b"<c ")
            if cut <= 0:
                cut = 0 if chunk else len(data)
            part, pending = data[:cut], data[cut:]
            if b't="e"' in part or b"<f" in part:
                yield from _cell_errors(part)
            if not chunk:
                break


def _cell_errors(part: bytes) -> Iterator[tuple[tuple[int, int], str]]:
    for match in CELL.finditer(part):
        attributes, content = match.group(1), match.group(2) or b""
        ref = CELL_REF.search(attributes)
        if ref is None:
            continue
        where = (int(ref.group(2)), _column_number(ref.group(1).decode()))
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


def _column_number(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


# --- rows to records ---------------------------------------------------------------------


def cell_text(cell: Any) -> str:
    """A cell as text: a whole number without its '.0' (header 2024, not 2024.0)."""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return "" if cell is None else str(cell).strip()


def _is_empty(cell: Any) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def _fill_merged(sheet: Sheet) -> None:
    """A cell merged down over several rows gives its value to each of them (a group's faction,
    say); merged across columns, the value stays in the first column only."""
    by_row = {number: cells for number, cells in sheet.rows}
    for (top, left), (bottom, _right) in sheet.merged:
        source = by_row.get(top + 1)
        if source is None or left >= len(source):
            continue
        for row in range(top + 2, bottom + 2):
            cells = by_row.get(row)
            if cells is not None and left < len(cells) and _is_empty(cells[left]):
                cells[left] = source[left]


def _sheet_records(path: Path, index: int, sheet: Sheet, guide: FieldGuide, record_file: RecordFile) -> None:
    locator = record_file.locator
    assert isinstance(locator, TableLocator)
    out = record_file.findings
    empty = {number for number, cells in sheet.rows if all(_is_empty(c) for c in cells)}
    if sheet.merged:
        _fill_merged(sheet)
    rows = [(number, cells) for number, cells in sheet.rows if number not in empty]
    if not rows:
        return
    header_row, header = rows[0]
    locator.header_rows[index] = header_row
    default_kind = guide.kind_of(path, sheet.name)
    paths: dict[int, tuple[str, ...]] = {}  # column number -> field path
    first_at: dict[tuple[str, ...], int] = {}
    for position, cell in enumerate(header, start=1):
        if _is_empty(cell):
            continue
        name = cell_text(cell)
        parts = tuple(part.strip() for part in name.split("."))
        at = cell_offset(index, header_row, position)
        if not all(parts):
            out.append(
                Finding("unknown-column", f"column header {name!r} has an empty part; write stats.attack", offset=at)
            )
            continue
        clash = next((p for p in first_at if p[: len(parts)] == parts or parts[: len(p)] == p), None)
        if clash is not None:
            first = cell_name(sheet.name, header_row, first_at[clash]) or f"column {first_at[clash]}"
            what = "appears twice" if clash == parts else f"overlaps column {'.'.join(clash)!r}"
            out.append(Finding("duplicate-column", f"column {name!r} {what} (first at {first}); keep one", offset=at))
            continue
        first_at[parts] = position
        paths[position] = parts
    kind_column = next((c for c, p in paths.items() if p == ("kind",)), None)
    kinds = {default_kind} if default_kind else set()
    if kind_column is not None:
        kinds |= {str(cells[kind_column - 1]).strip() for _, cells in rows[1:] if len(cells) >= kind_column}
    kinds = {k for k in kinds if k and guide.knows(k)}
    if kind_column is None and default_kind is None:
        where = f"sheet {sheet.name!r} of this workbook" if sheet.name is not None else "this file"
        out.append(
            Finding(
                "missing-kind",
                f"{where} has no kind column and pnp.toml [sources] gives it no kind; add a column "
                f"named kind, or map the file{' and sheet' if sheet.name is not None else ''} in [sources]",
                offset=cell_offset(index, header_row, min(paths, default=1)),
            )
        )
        return
    for position in list(paths):
        problem = _unknown_column(paths[position], kinds, guide)
        if problem:
            out.append(Finding("unknown-column", problem, offset=cell_offset(index, header_row, position)))
            del paths[position]
    locator.columns[index] = {p: c for c, p in paths.items()}
    width = len(header)
    unnamed: set[int] = set()
    for number, cells in rows[1:]:
        if sheet.ragged and len(cells) != width:
            if len(cells) < width or any(not _is_empty(c) for c in cells[width:]):
                out.append(_ragged(index, number, cells, width))
                continue
            cells = cells[:width]  # trailing empty cells past the header: harmless
        for position, cell in enumerate(cells, start=1):
            if position in unnamed or position in paths or _is_empty(cell) or position == kind_column:
                continue
            if _is_empty(header[position - 1] if position <= width else None):
                unnamed.add(position)
                message = (
                    f"this cell has a value but its column has no header in row {header_row}; "
                    "name the field there, or clear the column"
                )
                out.append(Finding("unknown-column", message, offset=cell_offset(index, number, position)))
        record, moved = _record(index, number, cells, paths, kind_column, default_kind, sheet, guide, out)
        if moved:
            locator.moved[len(locator.rows)] = moved
        locator.rows.append((index, number))
        record_file.records.append(record)


def _unknown_column(parts: tuple[str, ...], kinds: set[str], guide: FieldGuide) -> str:
    """Why a header names no field of any of the sheet's kinds ("" when it names one)."""
    if parts == ("kind",) or not kinds:
        return ""
    allowed: set[str] = set()
    depth = 0
    for kind in sorted(kinds):
        unknown = guide.unknown(kind, parts)
        if unknown is None:
            return ""
        depth = unknown[0]
        allowed.update(unknown[1])
    name, wrong = ".".join(parts), parts[depth]
    close = difflib.get_close_matches(wrong, sorted(allowed), n=1, cutoff=0.6)
    hint = f"did you mean {'.'.join((*parts[:depth], close[0]))!r}? " if close else ""
    where = f" in {'.'.join(parts[:depth])}" if depth else ""
    return (
        f"column {name!r} names no field of {', '.join(sorted(kinds))} ({wrong!r} is not allowed{where}); "
        f"{hint}allowed: {', '.join(sorted(allowed))} (nested fields: stats.attack, lists: tags.0)"
    )


def _ragged(index: int, number: int, cells: list[Any], width: int) -> Finding:
    if len(cells) > width:
        message = (
            f"row has {len(cells)} cells but the header has {width}; a value past the last column "
            "(an unquoted comma in a value?): quote the value or add a header"
        )
        return Finding("ragged-row", message, offset=cell_offset(index, number, width + 1))
    message = (
        f"row has {len(cells)} cells but the header has {width}; add the missing separators "
        "(empty cells still need their commas)"
    )
    return Finding("ragged-row", message, offset=cell_offset(index, number, max(len(cells), 1)))


def _record(
    index: int,
    number: int,
    cells: list[Any],
    paths: dict[int, tuple[str, ...]],
    kind_column: int | None,
    default_kind: str | None,
    sheet: Sheet,
    guide: FieldGuide,
    out: list[Finding],
) -> tuple[dict[str, Any], dict[tuple[str, ...], int]]:
    """One row's record, and the columns of list items that moved up over empty cells."""
    kind = default_kind
    if kind_column is not None and kind_column <= len(cells) and not _is_empty(cells[kind_column - 1]):
        kind = str(cells[kind_column - 1]).strip()
    record: dict[str, Any] = {"kind": kind} if kind is not None else {}
    nested: set[str] = set()
    placed: list[tuple[tuple[str, ...], int]] = []
    errors = sheet.errors
    width = len(cells)
    for position, parts, allowed in _plan(paths, kind or "", guide):
        if position > width:
            continue
        if errors and (number, position) in errors:
            out.append(Finding("formula-error", errors[number, position], offset=cell_offset(index, number, position)))
            continue
        cell = cells[position - 1]
        if type(cell) is str and cell[:1] in "#E" and (cell in ERROR_LITERALS or ODS_ERROR.fullmatch(cell)):
            message = (
                f"the cell holds the spreadsheet error {cell} (a formula that failed where this file was "
                "saved); correct the formula or type the value"
            )
            out.append(Finding("formula-error", message, offset=cell_offset(index, number, position)))
            continue
        try:
            value = convert(cell, allowed)
        except CellError as err:
            out.append(Finding(err.code, str(err), offset=cell_offset(index, number, position)))
            continue
        if value is ABSENT:
            continue
        if len(parts) == 1:
            record[parts[0]] = value
            continue
        nested.add(parts[0])
        placed.append((parts, position))
        node = record
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                break
            node = child
        else:
            node[parts[-1]] = value
    renumbered: dict[tuple[str, ...], dict[str, str]] = {}
    for key in nested:
        record[key] = _lists(record[key], kind or "", (key,), guide, renumbered)
    moved: dict[tuple[str, ...], int] = {}
    if renumbered:
        for parts, position in placed:
            actual = tuple(renumbered.get(parts[:i], {}).get(part, part) for i, part in enumerate(parts))
            if actual != parts:
                moved[actual] = position
    return record, moved


def _plan(paths: dict[int, tuple[str, ...]], kind: str, guide: FieldGuide) -> list[tuple[int, tuple[str, ...], Field]]:
    """(column, field path, what the schema allows there) for a kind: made once per sheet and kind."""
    key = (id(paths), kind)
    found = guide.plans.get(key)
    if found is None or found[0] is not paths:
        columns = [(c, p, guide.field(kind, p)) for c, p in paths.items() if p != ("kind",)]
        found = (paths, columns)
        guide.plans[key] = found
    return found[1]


def _lists(
    node: Any, kind: str, path: tuple[str, ...], guide: FieldGuide, renumbered: dict[tuple[str, ...], dict[str, str]]
) -> Any:
    """Objects whose keys are 0, 1, 2... (from indexed headers) become lists, in index order;
    items after an empty one move up (`renumbered` records it, in header terms)."""
    if not isinstance(node, dict):
        return node
    for key, value in node.items():
        node[key] = _lists(value, kind, (*path, key), guide, renumbered)
    types = guide.field(kind, path).types
    if node and all(key.isdigit() for key in node) and ("array" in types or not types):
        order = sorted(node, key=int)
        if order != [str(i) for i in range(len(order))]:
            renumbered[path] = {old: str(new) for new, old in enumerate(order)}
        return [node[key] for key in order]
    return node
