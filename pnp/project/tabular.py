"""Records from spreadsheets: CSV/TSV, and XLSX/ODS workbooks read by python-calamine.

A header row names the fields (dotted for nesting, indexed for lists: `abilities.0.name`);
every other non-empty row is one record. The kind comes from a `kind` column or from pnp.toml
[sources]; the schema types each cell (pnp/project/fields.py). Every problem is located at a cell:
findings carry a cell number (`cell_offset`) that `TableLocator` turns into row, column and
`Sheet!C12`, so schema, reference and layout checks locate spreadsheet records like JSON ones.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnp.core import limits
from pnp.core.pointers import unescape
from pnp.core.problems import Finding
from pnp.project.fields import ABSENT, CellError, Field, FieldGuide, convert
from pnp.project.recordfile import RecordFile
from pnp.project.tableread import Sheet, TableError, read_sheets

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
ROW_BITS, SHEET_BITS = 16, 40
HEADER_DEPTH = 100  # parts of a dotted header: deeper would overrun the stages that recurse


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
    groups: dict[int, _Group] = field(default_factory=dict)  # id of a columns dict -> its groups

    def _column(self, record: int, columns: dict[tuple[str, ...], int], path: tuple[str, ...]) -> int | None:
        """The column of a field path (list items closed up over empty cells are in `moved`), or
        of the first of its group of columns (stats.attack, stats.defense for `stats`)."""
        moved = self.moved.get(record) or {}
        found = moved.get(path, columns.get(path))
        if found is None:
            found = self._group(moved).least(path) if moved else None
            if found is None:
                found = self._group(columns).least(path)
        return found

    def _first(self, columns: dict[tuple[str, ...], int]) -> int:
        """The sheet's first named column (1 when it has none)."""
        first = self._group(columns).first
        return 1 if first is None else first

    def _group(self, columns: dict[tuple[str, ...], int]) -> _Group:
        """The columns as a tree of their parts, made once per dict (a finding per list item of
        50,000 columns would otherwise search them all each time)."""
        group = self.groups.get(id(columns))
        if group is None or group.source is not columns:
            group = _Group(columns)
            for path, column in columns.items():
                group.add(path, column)
            self.groups[id(columns)] = group
        return group

    def offset_of(self, finding: Finding) -> int:
        parts = [unescape(p) for p in finding.pointer.split("/")[1:]]
        if not parts or not parts[0].isdigit() or int(parts[0]) >= len(self.rows):
            return cell_offset(0, self.header_rows[0] if self.header_rows else 1, 1)
        sheet, row = self.rows[int(parts[0])]
        columns = self.columns[sheet]
        path = tuple(parts[1:])
        if finding.at_key:
            return cell_offset(sheet, self.header_rows[sheet], columns.get(path) or self._first(columns))
        if finding.missing:  # a required field: its empty cell, or the header row where no column names it
            column = self._column(int(parts[0]), columns, (*path, finding.missing))
            return cell_offset(sheet, row if column else self.header_rows[sheet], column or self._first(columns))
        for end in range(len(path), 0, -1):
            column = self._column(int(parts[0]), columns, path[:end])
            if column is not None:
                return cell_offset(sheet, row, column)
        return cell_offset(sheet, row, self._first(columns))

    def position(self, offset: int) -> tuple[int, int, str]:
        sheet = offset >> SHEET_BITS
        row = (offset >> ROW_BITS) & ((1 << 24) - 1)
        column = offset & ((1 << ROW_BITS) - 1)
        row, column = max(row, 1), max(column, 1)
        name = self.sheets[sheet] if sheet < len(self.sheets) else None
        return row, column, cell_name(name, row, column)


@dataclass(slots=True)
class _Group:
    """The columns under each start of a field path: the first of them, in work of the path's depth."""

    source: dict[tuple[str, ...], int] | None = None
    children: dict[str, _Group] = field(default_factory=dict)
    first: int | None = None

    def add(self, path: tuple[str, ...], column: int) -> None:
        self.first = column if self.first is None else min(self.first, column)
        node = self
        for part in path:
            node = node.children.setdefault(part, _Group())
            node.first = column if node.first is None else min(node.first, column)

    def least(self, path: tuple[str, ...]) -> int | None:
        node: _Group | None = self
        for part in path:
            node = node.children.get(part) if node is not None else None
        return node.first if node is not None else None


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
    first_at: dict[tuple[str, ...], int] = {}  # prefix-free: no column's path starts another's
    tree = _HeaderTree()
    for position, cell in enumerate(header, start=1):
        if _is_empty(cell):
            continue
        name = cell_text(cell)
        parts = tuple(part.strip() for part in name.split(".", HEADER_DEPTH))
        at = cell_offset(index, header_row, position)
        if not all(parts):
            message = f"column header {_shown(name)!r} has an empty part; write stats.attack"
            out.append(Finding("unknown-column", message, offset=at))
            continue
        if len(parts) > HEADER_DEPTH:
            message = (
                f"column header {_shown(name)!r} nests fields over {HEADER_DEPTH} levels deep; no record needs that"
            )
            out.append(Finding("unknown-column", message, offset=at))
            continue
        clash = tree.clash(parts)
        if clash is not None:
            first = cell_name(sheet.name, header_row, first_at[clash]) or f"column {first_at[clash]}"
            what = "appears twice" if clash == parts else f"overlaps column {_shown('.'.join(clash))!r}"
            message = f"column {_shown(name)!r} {what} (first at {first}); keep one"
            out.append(Finding("duplicate-column", message, offset=at))
            continue
        first_at[parts] = position
        tree.add(parts)
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
    shown = limits.current().problems_per_file  # past that many, no message is shown: no did-you-mean
    for position in list(paths):
        problem = _unknown_column(paths[position], kinds, guide, suggest=shown > 0)
        if problem:
            shown -= 1
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


@dataclass(slots=True)
class _HeaderTree:
    """The header paths seen so far, as a tree of their parts: whether a new path repeats one,
    starts one or starts with one is found in work of its depth, not of the number of columns
    (50,000 columns stay linear), and memory stays linear in the header's size."""

    children: dict[str, _HeaderTree] = field(default_factory=dict)
    path: tuple[str, ...] | None = None  # the path that ends here
    first: tuple[str, ...] | None = None  # the first path through here

    def clash(self, parts: tuple[str, ...]) -> tuple[str, ...] | None:
        """The earlier path that is `parts`, a start of it, or starts with it (None: no clash)."""
        node: _HeaderTree | None = self
        for part in parts:
            node = node.children.get(part) if node is not None else None
            if node is None:
                return None
            if node.path is not None:
                return node.path
        return node.first if node is not None else None

    def add(self, parts: tuple[str, ...]) -> None:
        node = self
        for part in parts:
            node = node.children.setdefault(part, _HeaderTree())
            if node.first is None:
                node.first = parts
        node.path = parts


def _unknown_column(parts: tuple[str, ...], kinds: set[str], guide: FieldGuide, suggest: bool = True) -> str:
    """Why a header names no field of any of the sheet's kinds ("" when it names one); without
    `suggest` (a column past those a report shows), no did-you-mean is looked for."""
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
    name, wrong = _shown(".".join(parts)), _shown(parts[depth])
    if not suggest:
        return f"column {name!r} names no field of {', '.join(sorted(kinds))}"
    close = difflib.get_close_matches(wrong, sorted(allowed), n=1, cutoff=0.6)
    hint = f"did you mean {'.'.join((*parts[:depth], close[0]))!r}? " if close else ""
    where = f" in {'.'.join(parts[:depth])}" if depth else ""
    return (
        f"column {name!r} names no field of {', '.join(sorted(kinds))} ({wrong!r} is not allowed{where}); "
        f"{hint}allowed: {', '.join(sorted(allowed))} (nested fields: stats.attack, lists: tags.0)"
    )


def _shown(name: str) -> str:
    """A header as a message quotes it: at most 80 characters (a header cell may hold a megabyte)."""
    return name if len(name) <= 80 else name[:60] + "..." + name[-10:]


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
