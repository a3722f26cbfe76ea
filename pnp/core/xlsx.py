"""The one XLSX writer: a one-sheet workbook of rows, written by openpyxl, byte-identical for the
same rows (`pnp export records --format xlsx`, and translators' sheets from `pnp translate extract`).

Every cell is what its value is, never what its text looks like: text stays text (a record's
"=1+1" or "007" is not run nor turned into a number), numbers are written exactly (repr, not
rounded to 16 digits), booleans as booleans, None as an empty cell. Characters XML cannot hold
are written as spreadsheets escape them (`_x0001_`). The first row is the header, bold and
frozen. openpyxl is imported when a workbook is written, so `pnp check` never loads it; the
zip entries' dates and the document's times are fixed, so the same rows give the same bytes.
"""

from __future__ import annotations

import datetime
import io
import re
import zipfile
from collections.abc import Collection, Iterable, Sequence
from typing import Any

FIXED_TIME = (2000, 1, 1, 0, 0, 0)  # zip entries (the earliest a zip date can be is 1980)
FIXED_DATE = datetime.datetime(*FIXED_TIME)  # the document's created and modified times
MAX_SHEET_NAME = 31  # Excel's limit on a sheet's name
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")  # what XML cannot hold (tab and newline it can)
NOT_IN_SHEET_NAME = re.compile(r"[\\/*?:\[\]]")  # characters Excel refuses in a sheet's name


def sheet_name(name: str) -> str:
    """A name Excel accepts for a sheet: no \\ / * ? : [ ], at most 31 characters, not empty."""
    return NOT_IN_SHEET_NAME.sub("_", name)[:MAX_SHEET_NAME] or "Sheet1"


def xlsx_bytes(
    name: str,
    rows: Iterable[Sequence[Any]],
    widths: Sequence[float] = (),
    wrapped: Collection[int] = (),
) -> bytes:
    """A workbook of one sheet named `name` (made acceptable: `sheet_name`) holding `rows`, the
    first the header. `widths`: of the first columns, in characters; `wrapped`: the (1-based)
    columns whose cells below the header wrap their text, aligned to the top."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    book = Workbook(write_only=True)
    sheet = book.create_sheet(sheet_name(name))
    for column, width in enumerate(widths, start=1):
        sheet.column_dimensions[get_column_letter(column)].width = width
    sheet.freeze_panes = "A2"
    bold, wrap = Font(bold=True), Alignment(wrap_text=True, vertical="top")
    for number, values in enumerate(rows, start=1):
        cells: list[Any] = []
        for column, value in enumerate(values, start=1):
            styled = number == 1 or column in wrapped
            plain = _plain(value)
            if plain is not _NOT_PLAIN and not styled:
                cells.append(plain)  # openpyxl types it as we would (and faster than a cell of ours)
                continue
            cell = WriteOnlyCell(sheet)
            _set_value(cell, value)
            if number == 1:
                cell.font = bold
            elif column in wrapped:
                cell.alignment = wrap
            cells.append(cell)
        sheet.append(cells)
    book.properties.creator = "pnp"
    book.properties.created = FIXED_DATE
    buffer = io.BytesIO()
    book.save(buffer)
    return _fixed_dates(buffer.getvalue())


_NOT_PLAIN = object()


def _plain(value: Any) -> Any:
    """The value as openpyxl may be given it bare, when it would type it as `_set_value` does
    (text that looks like no formula nor error, a number its 16 digits hold); else _NOT_PLAIN."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = _xml_safe(value)
        return text if text[:1] not in ("=", "#") else _NOT_PLAIN
    if isinstance(value, int):
        return value if abs(value) < 10**15 else _NOT_PLAIN
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return value if float(f"{value:.16g}") == value else _NOT_PLAIN
    return _NOT_PLAIN


def _set_value(cell: Any, value: Any) -> None:
    """The cell holds the value as its own type: text is never read as a formula, an error or a
    number, and a number keeps every digit."""
    if value is None or isinstance(value, bool):
        cell.value = value
    elif isinstance(value, int | float) and value == value and abs(value) != float("inf"):
        cell.value = repr(value)  # exact digits: openpyxl would round to 16
        cell.data_type = "n"
    else:
        cell.value = _xml_safe(str(value))
        cell.data_type = "s"  # "=1+1" and "#N/A" stay text (openpyxl would make a formula, an error)


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot hold most control characters: written as spreadsheets escape them (_x0001_)."""
    if not CONTROL.search(text):
        return text
    return "".join(c if c in "\t\n" or ord(c) >= 32 else f"_x{ord(c):04X}_" for c in text)


def _fixed_dates(data: bytes) -> bytes:
    """The workbook with fixed dates: its zip entries', and the modified time openpyxl stamps
    at saving (docProps/core.xml)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            part = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                part = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2000-01-01T00:00:00Z", part)
            target.writestr(fixed, part)
    return out.getvalue()
