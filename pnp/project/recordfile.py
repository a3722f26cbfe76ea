"""A record file as loaded: its records, where each one is, and its parse findings."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, Protocol

from pnp.core.problems import Finding, Problem, severity_of
from pnp.project.jsonfile import item_offsets, line_col, locate

YAML_SUFFIXES = (".yaml", ".yml")  # read by pnp.project.yamlfile (PyYAML is imported only to read one)


def sheet_paths(folder: Path) -> list[Path]:
    """Sheet files of a folder: *.json, *.yaml and *.yml, sorted. Links and special files are
    listed too, never skipped in silence: reading refuses them with a located problem (a link
    out of the project, a pipe), as for record and layout files (pnp.core.paths)."""
    if not folder.is_dir():
        return []
    suffixes = (".json", *YAML_SUFFIXES)
    return sorted(p for p in folder.iterdir() if p.suffix in suffixes and not p.is_dir())


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
    """One file of records. `records` is empty when the file could not be used.

    A file another process read and checked (pnp.rules.validation's children) comes with its
    record count and the columns the cross-checks need (`column`); its bytes are fetched from the
    buffer that child shared (`fetch_later`) and its records parsed here only when something asks
    for them (`raw`, `records`), which a plain check does only to locate a problem.
    """

    path: Path
    display: str
    _raw: bytes  # `raw`
    _records: list[Any] | None  # None: not parsed yet (`_fill` parses `raw` on first use)
    is_array: bool
    findings: list[Finding] = field(default_factory=list)
    _text: str | None = None
    _items: list[int] | None = None
    locator: Locator | None = None
    _lines: list[int] | None = None
    _located: int = 0  # problems located without the table of line starts
    kind: str | None = None  # the kind pnp.toml [kinds] gives the file (records without `kind` have it)
    source: list[Any] | None = None  # the records as the file has them, where `records` adds to them
    digest: bytes | None = None  # SHA-256 of `raw`, where the process that read the file computed it
    _columns: dict[str, list[Any]] | None = None  # key -> each record's value (None: absent), as sent
    _count: int = 0  # how many records, while `_records` is not parsed
    _fill: Callable[[RecordFile], None] | None = None  # parses `raw` into `records` (see `records`)
    _fetch: Callable[[], bytes] | None = None  # gives `raw`, not fetched yet (see `fetch_later`)
    _size: int = 0  # len(raw), while it is not fetched
    _refetch: Callable[[], bytes] | None = None  # gives `raw` again after `forget_text` (see `fetch_later`)

    @property
    def raw(self) -> bytes:
        """The file's bytes (for a file another process read, fetched on first use)."""
        if self._fetch is not None:
            fetch, self._fetch = self._fetch, None
            self._raw = fetch()
        return self._raw

    @property
    def size(self) -> int:
        """len(raw), without fetching it."""
        return self._size if self._fetch is not None else len(self._raw)

    def fetch_later(self, size: int, fetch: Callable[[], bytes]) -> None:
        """Take the file's `size` bytes from `fetch()` on first use of `raw` (not before: copying
        a child's 16 MB out of its buffer cost a 100,000-record check 0.012 s, in its one-core part)."""
        self._raw, self._size, self._fetch, self._refetch = b"", size, fetch, fetch

    @property
    def records(self) -> list[Any]:
        """The file's records: parsed from `raw` on first use for a file another process read."""
        if self._records is None:
            fill, self._fill, self._records = self._fill, None, []
            if fill is not None:
                fill(self)
        return self._records

    @records.setter
    def records(self, records: list[Any]) -> None:
        self._records = records

    @property
    def count(self) -> int:
        """How many records the file has, without parsing one."""
        return self._count if self._records is None else len(self._records)

    def forget_records(
        self, columns: dict[str, list[Any]] | None, fill: Callable[[RecordFile], None], count: int | None = None
    ) -> None:
        """Keep `columns` of the records instead of the records, which `fill` makes again from
        `raw` on first use; `count`: how many records (default: as many as now)."""
        self._count = len(self._records or ()) if count is None else count
        self._columns, self._fill, self._records = columns, fill, None
        self.source = None  # the records as read, where a declared kind added to them: made again too

    def column(self, key: str) -> list[Any]:
        """Each record's value of `key`, None where it has none (or is no object): what the index
        and the reference checks read, so that a file read elsewhere is not parsed for them."""
        if self._columns is not None:
            found = self._columns.get(key)
            if found is not None:
                return found
        records = self.records
        try:
            return list(map(dict.get, records, repeat(key)))  # C-level: every record an object
        except TypeError:
            return [r.get(key) if type(r) is dict else None for r in records]

    @property
    def as_read(self) -> list[Any]:
        """The records as the file holds them (what a schema validates): `records` without what
        loading added (the kind, the id, for a file of a kind declared in pnp.toml)."""
        return self.records if self.source is None else self.source

    def pointer(self, index: int) -> str:
        return f"/{index}" if self.is_array else ""

    @property
    def text(self) -> str:
        """The decoded text, only needed to locate problems (decoded on first use)."""
        if self._text is None:
            raw = self.raw[3:] if self.raw.startswith(b"\xef\xbb\xbf") else self.raw
            self._text = raw.decode("utf-8", errors="replace")
        return self._text

    def forget_text(self) -> None:
        """Drop what locating made (the decoded text, its line starts, bytes fetched from another
        process's buffer) once the file's problems are located: held for every file to the end,
        they cost a 100,000-record check tens of megabytes of page faults. Made again if asked."""
        if self.findings or self.locator is not None:  # the text of a file that did not parse is kept
            return
        self._text = self._lines = None
        if self._refetch is not None and self._fetch is None:
            self._raw, self._fetch = b"", self._refetch

    def locate(self, finding: Finding) -> Problem:
        """The finding at its line and column: for text, a bisection in the file's line starts
        (found once), so that locating many problems in one file, even a one-line one, stays linear."""
        offset = self.offset_of(finding)
        if self.locator is not None:
            line, column, cell = self.locator.position(offset)
            return self.problem(finding, line, column, cell)
        if self._lines is None:
            self._located += 1
            if offset < 4096 or self._located <= 8:  # a few problems in a file: counted in C, no table
                return self.problem(finding, *line_col(self.text, offset))
            self._lines = [0, *(m.end() for m in re.finditer("\n", self.text))]
        line = bisect.bisect_right(self._lines, offset)
        return self.problem(finding, line, offset - self._lines[line - 1] + 1)

    def item_starts(self) -> list[int] | None:
        """Where each record of a pretty-printed JSON array file starts in `text` (found once, by
        searching its lines: no item is decoded); None for other files."""
        if self.locator is not None or not self.is_array:
            return None
        if self._items is None:
            self._items = item_offsets(self.text, self.count, decode=False)
        return self._items

    def adopt_item_starts(self, items: list[int]) -> None:
        """Record starts found by a process that read the same bytes (pnp.rules.validation's children)."""
        if self.locator is None and self.is_array and self._items is None and len(items) == self.count:
            self._items = items

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
                self._items = item_offsets(self.text, self.count) or []
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
