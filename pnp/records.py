"""Stage 1: find and load record files. Parse problems are returned as values, never raised."""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnp.jsonfile import Parsed, item_offsets, json_type, line_col, locate, parse_bytes
from pnp.paths import RefusedFile, leaves_project, read_regular
from pnp.problems import Finding, Problem, severity_of


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
    _lines: list[int] | None = None

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
        """The finding at its line and column: a bisection in the file's line starts (found once),
        so that locating many problems in one file, even a one-line one, stays linear."""
        offset = self.offset_of(finding)
        if self._lines is None:
            if offset < 4096:  # the common case of a problem near the top: no table needed
                return self.problem(finding, *line_col(self.text, offset))
            self._lines = [0, *(m.end() for m in re.finditer("\n", self.text))]
        line = bisect.bisect_right(self._lines, offset)
        return self.problem(finding, line, offset - self._lines[line - 1] + 1)

    def offset_of(self, finding: Finding) -> int:
        """Character offset in `text` of what the finding is about."""
        if finding.offset is not None:
            return finding.offset
        try:
            if self.is_array and self._items is None:
                self._items = item_offsets(self.text, len(self.records))
            return locate(self.text, finding.pointer, finding.at_key, self._items)
        except ValueError:  # the file did not parse: point at its start
            return 0

    def problem(self, finding: Finding, line: int, column: int) -> Problem:
        """The finding as printed: this file's name, the position, the code's severity."""
        return Problem(
            file=self.display,
            line=line,
            column=column,
            pointer=finding.pointer,
            code=finding.code,
            severity=severity_of(finding),
            message=finding.message,
        )


def iter_record_paths(
    roots: Iterable[Path], display: Callable[[Path], str], project: Path | None = None
) -> Iterator[tuple[Path, str]]:
    """(path, display name) of every *.json file under the given files and folders.

    Sorted as pathlib sorts (by path components), hidden folders and files skipped, each file
    once even when reached twice (by two roots or through a symlink). Walked with os.scandir,
    and a folder's display name computed once: this runs for every file of a large project.
    With `project`, a symbolic link (to a file or a folder) leading out of it is not followed but
    listed itself, so that `load_file` reports it.
    """
    seen: set[tuple[int, int]] = set()
    for root in roots:
        if not root.is_dir():
            if root.is_file() and _first_visit(seen, os.stat(root)):
                yield root, display(root)
            continue
        found: list[tuple[list[str], str]] = []
        _walk_json(str(root), [], found, {_inode(os.stat(root))}, project)
        found.sort(key=lambda item: item[0])
        base = display(root)
        for parts, full in found:
            try:
                stat = os.stat(full)
            except OSError:
                stat = os.lstat(full)  # a dangling symlink: load_file reports it
            if _first_visit(seen, stat):
                yield Path(full), os.path.join(base, *parts)


def _walk_json(
    folder: str,
    parts: list[str],
    found: list[tuple[list[str], str]],
    active: set[tuple[int, int]],
    project: Path | None,
) -> None:
    """Collect (relative parts, path) of *.json files; symlinked folders inside `project`
    followed (loops cut), links out of it collected as they are; an unreadable folder collected
    too, so that it is reported rather than skipped."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        if parts:
            found.append((parts, folder))
        return
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        if (
            project is not None
            and entry.is_symlink()
            and leaves_project(entry.path, project)
            or name.endswith(".json")
            and not entry.is_dir()
        ):
            found.append(([*parts, name], entry.path))
        elif entry.is_dir():
            try:
                marker = _inode(entry.stat())
            except OSError:
                continue
            if marker not in active:
                _walk_json(entry.path, [*parts, name], found, active | {marker}, project)


def _inode(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _first_visit(seen: set[tuple[int, int]], stat: os.stat_result) -> bool:
    marker = _inode(stat)
    if marker in seen:
        return False
    seen.add(marker)
    return True


def load_file(
    path: Path, display: str, max_bytes: int, check_duplicates: bool = True, project: Path | None = None
) -> RecordFile:
    """Read and parse one record file; problems become its findings.

    `check_duplicates=False` skips the duplicate-key check (see parse_bytes) for a file whose
    findings another process reports. Only a regular file is read (see pnp.paths), and with
    `project`, only when a symbolic link to it stays inside the project.
    """
    try:
        raw = read_regular(path, max_bytes, project)
    except RefusedFile as refused:
        return RecordFile(path, display, b"", [], False, [Finding(refused.code, refused.message, offset=0)])
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
