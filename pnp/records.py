"""Stage 1: find and load record files. Parse problems are returned as values, never raised."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pnp.jsonfile import Parsed, item_offsets, json_type, line_col, locate, parse_bytes
from pnp.problems import Finding, Problem, severity_of

if TYPE_CHECKING:
    from pnp.fields import FieldGuide

# Record files by suffix: JSON here; the others are read by the modules named (imported on use).
RECORD_SUFFIXES: dict[str, str] = {
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".csv": "table",
    ".tsv": "table",
    ".xlsx": "table",
    ".xlsm": "table",
    ".xlsb": "table",
    ".xls": "table",
    ".ods": "table",
}


class Locator(Protocol):
    """Where a finding is, for files that are not located by their JSON text (YAML, tables).

    `offset_of` turns a finding's pointer into an int in the file's own terms (a character
    offset, or a cell number); `position` turns that int into (line, column, cell label).
    Ints travel between processes (see check._validate_share), hence the two steps.
    """

    def offset_of(self, finding: Finding) -> int: ...

    def position(self, offset: int) -> tuple[int, int, str]: ...


@dataclass(slots=True)
class RecordFile:
    """One file of records. `records` is empty when the file could not be used."""

    path: Path
    display: str
    raw: bytes
    records: list[Any]
    is_array: bool
    findings: list[Finding] = field(default_factory=list)
    _text: str | None = None
    _items: list[int] | None = None
    locator: Locator | None = None

    def pointer(self, index: int) -> str:
        return f"/{index}" if self.is_array else ""

    @property
    def text(self) -> str:
        """The decoded text, only needed to locate problems (decoded on first use)."""
        if self._text is None:
            raw = self.raw[3:] if self.raw.startswith(b"\xef\xbb\xbf") else self.raw
            self._text = raw.decode("utf-8", errors="replace")
        return self._text

    def locate(self, finding: Finding) -> Problem:
        if self.locator is not None:
            line, column, cell = self.locator.position(self.offset_of(finding))
            return self.problem(finding, line, column, cell)
        return self.problem(finding, *line_col(self.text, self.offset_of(finding)))

    def where(self, pointer: str) -> str:
        """A short place for messages that name another record: FILE:LINE, or FILE:CELL."""
        problem = self.locate(Finding("duplicate-id", "", pointer))
        return f"{self.display}:{problem.cell or problem.line}"

    def offset_in_value(self, pointer: str, token: str) -> int | None:
        """The offset of `token` inside the string value at `pointer` (JSON text only)."""
        if self.locator is not None:
            return None
        start = locate(self.text, pointer)
        found = self.text.find(token, start)
        return found if found >= 0 else start

    def offset_of(self, finding: Finding) -> int:
        """Offset of what the finding is about: in `text`, or in the locator's terms."""
        if finding.offset is not None:
            return finding.offset
        if self.locator is not None:
            return self.locator.offset_of(finding)
        try:
            if self.is_array and self._items is None:
                self._items = item_offsets(self.text, len(self.records))
            return locate(self.text, finding.pointer, finding.at_key, self._items)
        except ValueError:  # the file did not parse: point at its start
            return 0

    def problem(self, finding: Finding, line: int, column: int, cell: str = "") -> Problem:
        """The finding as printed: this file's name, the position, the code's severity."""
        return Problem(
            file=self.display,
            line=line,
            column=column,
            pointer=finding.pointer,
            code=finding.code,
            severity=severity_of(finding),
            message=finding.message,
            cell=cell,
        )


def iter_record_paths(roots: Iterable[Path], display: Callable[[Path], str]) -> Iterator[tuple[Path, str]]:
    """(path, display name) of every record file (RECORD_SUFFIXES) under the given files and folders.

    Sorted as pathlib sorts (by path components), hidden folders and files skipped, each file
    once even when reached twice (by two roots or through a symlink). Walked with os.scandir,
    and a folder's display name computed once: this runs for every file of a large project.
    """
    seen: set[tuple[int, int]] = set()
    for root in roots:
        if not root.is_dir():
            if root.is_file() and _first_visit(seen, os.stat(root)):
                yield root, display(root)
            continue
        found: list[tuple[list[str], str]] = []
        _walk_json(str(root), [], found, {_inode(os.stat(root))})
        found.sort(key=lambda item: item[0])
        base = display(root)
        for parts, full in found:
            try:
                stat = os.stat(full)
            except OSError:
                stat = os.lstat(full)  # a dangling symlink: load_file reports it
            if _first_visit(seen, stat):
                yield Path(full), os.path.join(base, *parts)


def _walk_json(folder: str, parts: list[str], found: list[tuple[list[str], str]], active: set[tuple[int, int]]) -> None:
    """Collect (relative parts, path) of record files; symlinked folders followed, loops cut."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith((".", "~$")):  # hidden; ~$name.xlsx: the lock file Excel keeps while it has one open
            continue
        if os.path.splitext(name)[1].lower() in RECORD_SUFFIXES and not entry.is_dir():
            found.append(([*parts, name], entry.path))
        elif entry.is_dir():
            try:
                marker = _inode(entry.stat())
            except OSError:
                continue
            if marker not in active:
                _walk_json(entry.path, [*parts, name], found, active | {marker})


def _inode(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _first_visit(seen: set[tuple[int, int]], stat: os.stat_result) -> bool:
    marker = _inode(stat)
    if marker in seen:
        return False
    seen.add(marker)
    return True


def load_file(
    path: Path, display: str, max_bytes: int, check_duplicates: bool = True, guide: FieldGuide | None = None
) -> RecordFile:
    """Read and parse one record file; problems become its findings.

    `check_duplicates=False` skips the duplicate-key check (see parse_bytes) for a file whose
    findings another process reports. `guide` (the project's schemas and [sources]) turns
    spreadsheet cells into typed fields.
    """
    reader = RECORD_SUFFIXES.get(path.suffix.lower(), "json")
    if reader == "yaml":
        from pnp.yamlfile import load_yaml_records

        return load_yaml_records(path, display, max_bytes)
    if reader == "table":
        from pnp.tabular import load_table

        return load_table(path, display, max_bytes, guide)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            finding = Finding(
                "file-too-large",
                f"file is {size / 1048576:.1f} MB, over the {max_bytes / 1048576:.0f} MB limit; "
                "split it into smaller files (or raise max-file-mb in pnp.toml)",
                offset=0,
            )
            return RecordFile(path, display, b"", [], False, [finding])
        raw = path.read_bytes()
    except OSError as err:
        finding = Finding("unreadable-file", f"cannot read file: {err.strerror}", offset=0)
        return RecordFile(path, display, b"", [], False, [finding])
    parsed: Parsed = parse_bytes(raw, check_duplicates)
    record_file = RecordFile(path, display, raw, [], False, list(parsed.findings), parsed.text)
    if not parsed.ok:
        return record_file
    data = parsed.data
    if isinstance(data, list):
        record_file.is_array = True
        record_file.records = data
    elif isinstance(data, dict):
        record_file.records = [data]
    else:
        record_file.findings.append(
            Finding(
                "not-a-record",
                f"the top-level value is {json_type(data)}, not a record; "
                "a record file holds one object or an array of objects",
            )
        )
    return record_file
