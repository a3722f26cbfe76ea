"""Measuring a zipped workbook (XLSX, ODS) before anything reads it: a few kilobytes can stand
for gigabytes, by compression (a zip bomb, or a zip directory that understates what a member
unpacks to) or by cells placed far apart (one cell at XFD1048576, a row repeated a million times
in ODS), and python-calamine would build all of it in memory. Every measure here takes time
linear in the unpacked bytes, which are bounded first, and memory of one chunk.
"""

from __future__ import annotations

import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO
from xml.etree import ElementTree

EXPANSION_RATIO = 100  # a member may unpack to at most 100x its packed size...
RATIO_FLOOR = 1 << 20  # ...once it unpacks to more than 1 MB (tiny members compress well)
HUGE = 10**9  # a repeat count written with too many digits to matter


class ZipRefused(Exception):
    """A workbook refused for its size (a `file-too-large` problem), with the reason."""


@dataclass(slots=True)
class SheetScan:
    """What one sheet's XML says about it before it is read: its used area (rows, columns), how
    many cells it holds, and the cells with a formula error (row, column -> message)."""

    errors: dict[tuple[int, int], str] = field(default_factory=dict)
    rows: int = 0
    columns: int = 0
    row_tags: int = 0  # <row> elements seen
    unreferenced: int = 0  # the most cells of one row written without an `r="B5"` (placed by order)

    @property
    def cells(self) -> int:
        rows = max(self.rows, self.row_tags if self.unreferenced else 0)
        return rows * (self.columns + self.unreferenced)

    def measure(self, part: bytes) -> None:
        """XLSX sheet XML: the furthest row and column a cell holding something names (an empty
        styled cell, `<c r="B5" s="1"/>` or `...></c>`, which calamine skips, costs nothing), and how many
        cells a row places by their order, without a reference."""
        for match in FILLED.finditer(part):
            letters, row = match.group(1), match.group(2)
            self.rows = max(self.rows, int(row) if len(row) < 10 else HUGE)
            self.columns = max(self.columns, column_number(letters.decode()) if len(letters) < 7 else HUGE)
        self.row_tags += part.count(b"<row")
        if part.count(b"<c>") or part.count(b"<c ") > len(CELL_REFERENCE.findall(part)):
            for segment in part.split(b"<row"):
                written = segment.count(b"<c>") + segment.count(b"<c ")
                self.unreferenced = max(self.unreferenced, written - len(CELL_REFERENCE.findall(segment)))


FILLED = re.compile(rb'<c\b[^>]*?\br="([A-Z]+)(\d+)"[^>]*>\s*<(?:v|f|is)\b')  # a cell with a value
CELL_REFERENCE = re.compile(rb'<c\b[^>]*?\br="[A-Z]+\d+"')


def column_number(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def check_unpacked(path: Path, members: list[zipfile.ZipInfo], max_unzipped: int, why: str = "") -> None:
    """Refuse (ZipRefused) a zip whose members unpack to more than `max_unzipped` bytes in all, one
    that unpacks to over EXPANSION_RATIO times its packed size, or one whose deflate stream gives
    more than its zip directory declares (which a reader trusting the stream would unpack).
    `why` follows the total's limit in the message."""
    declared = sum(info.file_size for info in members)
    if declared > max_unzipped:
        raise ZipRefused(
            f"the workbook unpacks to {declared / 1048576:.1f} MB, over {max_unzipped / 1048576:.1f} MB{why}"
        )
    for info in members:
        if info.file_size > RATIO_FLOOR and info.file_size > EXPANSION_RATIO * max(info.compress_size, 1):
            ratio = info.file_size / max(info.compress_size, 1)
            raise ZipRefused(
                f"its part {info.filename!r} unpacks to {info.file_size / 1048576:.1f} MB, {ratio:,.0f} times its "
                f"packed size (at most {EXPANSION_RATIO} times: a zip bomb?)"
            )
    with path.open("rb") as raw:
        for info in members:
            if info.compress_type == zipfile.ZIP_DEFLATED:
                _inflate_within(raw, info)
            elif info.compress_type != zipfile.ZIP_STORED:
                raise zipfile.BadZipFile(f"part {info.filename!r} uses a compression spreadsheets do not use")


def _inflate_within(raw: BinaryIO, info: zipfile.ZipInfo) -> None:
    """Inflate one member's stream, a chunk at a time, and count: more than it declares is refused."""
    raw.seek(info.header_offset)
    header = raw.read(30)
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"part {info.filename!r} has no local header")
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    raw.seek(info.header_offset + 30 + name_length + extra_length)
    inflater = zlib.decompressobj(-15)
    left, produced = info.compress_size, 0
    while left > 0 and not inflater.eof:
        data = raw.read(min(1 << 20, left))
        if not data:
            break
        left -= len(data)
        while data and not inflater.eof:
            produced += len(inflater.decompress(data, 1 << 20))
            if produced > info.file_size:
                raise ZipRefused(
                    f"its part {info.filename!r} unpacks to more than the {info.file_size:,} bytes its zip "
                    "directory declares (a zip bomb, or a damaged file)"
                )
            data = inflater.unconsumed_tail


TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
ROW, CELLS = f"{{{TABLE}}}table-row", (f"{{{TABLE}}}table-cell", f"{{{TABLE}}}covered-table-cell")


def scan_ods(archive: zipfile.ZipFile) -> dict[str, SheetScan]:
    """Each table's used area in an ODS content.xml, repeated rows and columns counted as
    calamine expands them (up to the last one holding a value: trailing empty repeats, which
    LibreOffice writes to the sheet's end, cost nothing)."""
    found: dict[str, SheetScan] = {}
    scan, row, last_column, column = SheetScan(), 0, 0, 0
    open_elements: list[ElementTree.Element] = []  # a row read is dropped from its parent: memory stays flat
    with archive.open("content.xml") as stream:
        for event, element in ElementTree.iterparse(stream, events=("start", "end")):
            if event == "end":
                open_elements.pop()
            else:
                open_elements.append(element)
                if element.tag == f"{{{TABLE}}}table":
                    scan, row = SheetScan(), 0
                    found[element.get(f"{{{TABLE}}}name", "")] = scan
                elif element.tag == ROW:
                    column, last_column = 0, 0
                continue
            if element.tag in CELLS:
                repeat = _repeat(element.get(f"{{{TABLE}}}number-columns-repeated"))
                if element.get(f"{{{OFFICE}}}value-type") or len(element):
                    last_column = column + repeat
                column += repeat
            elif element.tag == ROW:
                repeat = _repeat(element.get(f"{{{TABLE}}}number-rows-repeated"))
                if last_column:
                    scan.rows, scan.columns = row + repeat, max(scan.columns, last_column)
                row += repeat
                if open_elements:
                    open_elements[-1].remove(element)
    return found


def _repeat(written: str | None) -> int:
    if written is None:
        return 1
    return int(written) if written.isdigit() and len(written) < 10 else HUGE
