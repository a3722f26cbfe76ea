"""Stage 1: find and load record files. Parse problems are returned as values, never raised."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.paths import RefusedFile, leaves_project, read_regular, refuse_unless_regular
from pnp.core.problems import Finding
from pnp.project.jsonfile import Parsed, as_json_numbers, json_type, parse_bytes
from pnp.project.recordfile import Locator as Locator  # re-exported
from pnp.project.recordfile import RecordFile as RecordFile  # re-exported

if TYPE_CHECKING:
    from pnp.project.fields import FieldGuide

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


def iter_record_paths(
    roots: Iterable[Path],
    display: Callable[[Path], str],
    project: Path | None = None,
    sizes: dict[Path, int] | None = None,
) -> Iterator[tuple[Path, str]]:
    """(path, display name) of every record file (RECORD_SUFFIXES) under the given files and folders.

    Sorted as pathlib sorts (by path components), hidden folders and files skipped, each file
    once even when reached twice (by two roots or through a symlink). Walked with os.scandir,
    and a folder's display name computed once: this runs for every file of a large project.
    With `project`, a symbolic link (to a file or a folder) leading out of it is not followed but
    listed itself, so that `load_file` reports it. `sizes` gets each file's size as the walk
    found it (the validating children's shares are weighed by it without a second stat).
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
            size = None
            try:
                stat = os.stat(full)
                size = stat.st_size
            except OSError:
                stat = os.lstat(full)  # a dangling symlink: load_file reports it
            if _first_visit(seen, stat):
                path = root.joinpath(*parts)  # the same Path as Path(full), made from parsed parts (faster)
                if sizes is not None and size is not None:
                    sizes[path] = size
                yield path, os.path.join(base, *parts)


def _walk_json(
    folder: str,
    parts: list[str],
    found: list[tuple[list[str], str]],
    active: set[tuple[int, int]],
    project: Path | None,
) -> None:
    """Collect (relative parts, path) of record files; symlinked folders inside `project`
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
        if name.startswith((".", "~$")):  # hidden; ~$name.xlsx: the lock file Excel keeps while it has one open
            continue
        if (
            project is not None
            and entry.is_symlink()
            and leaves_project(entry.path, project)
            or os.path.splitext(name)[1].lower() in RECORD_SUFFIXES
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
    path: Path,
    display: str,
    max_bytes: int,
    *,
    project: Path | None,
    check_duplicates: bool = True,
    guide: FieldGuide | None = None,
) -> RecordFile:
    """Read and parse one record file; problems become its findings.

    `check_duplicates=False` skips the duplicate-key check (see parse_bytes) for a file whose
    findings another process reports. `guide` (the project's schemas and [sources]) turns
    spreadsheet cells into typed fields. Only a regular file is read (see pnp.core.paths), and with
    `project`, only when a symbolic link to it stays inside the project.
    """
    reader = RECORD_SUFFIXES.get(path.suffix.lower(), "json")
    if reader != "json":  # read by their own parsers: the same rules first (regular, inside)
        try:
            refuse_unless_regular(path, project)
        except RefusedFile as refused:
            return RecordFile(path, display, b"", [], False, [Finding(refused.code, refused.message, offset=0)])
    if reader in ("yaml", "table"):
        if reader == "yaml":
            from pnp.project.yamlfile import load_yaml_records

            loaded = load_yaml_records(path, display, max_bytes, project)
        else:
            from pnp.project.tabular import load_table

            loaded = load_table(path, display, max_bytes, guide)
        loaded.findings.extend(as_json_numbers(loaded.records, loaded.pointer))  # numbers as JSON has them
        return loaded
    try:
        raw = read_regular(path, max_bytes, project)
    except RefusedFile as refused:
        return RecordFile(path, display, b"", [], False, [Finding(refused.code, refused.message, offset=0)])
    parsed: Parsed = parse_bytes(raw, check_duplicates)
    record_file = RecordFile(path, display, raw, [], False, list(parsed.findings), parsed.text)
    if parsed.ok and not _take_records(record_file, parsed.data):
        record_file.findings.append(
            Finding(
                "not-a-record",
                f"the top-level value is {json_type(parsed.data)}, not a record; "
                "a record file holds one object or an array of objects",
            )
        )
    return record_file


def _take_records(record_file: RecordFile, data: Any) -> bool:
    """A parsed JSON document as the file's records; False when it holds none (a bare value)."""
    if isinstance(data, list):
        record_file.is_array = True
        record_file.records = data
    elif isinstance(data, dict):
        record_file.records = [data]
    else:
        return False
    return True


def parse_later(declared: tuple[str, str] | None) -> Callable[[RecordFile], None]:
    """How a JSON record file whose records were not kept gets them back from its bytes, exactly
    as `load_file` and `declare_kind` (`declared`: kind, id field) made them; its findings are
    in already (the duplicate keys are not looked for again)."""

    def fill(record_file: RecordFile) -> None:
        parsed = parse_bytes(record_file.raw, check_duplicates=False)
        if parsed.ok and _take_records(record_file, parsed.data) and declared is not None:
            declare_kind(record_file, *declared)

    return fill


def read_elsewhere(
    path: Path,
    display: str,
    raw: bytes,
    findings: list[Finding],
    count: int,
    is_array: bool,
    columns: dict[str, list[Any]] | None,
    declared: tuple[str, str] | None,
) -> RecordFile:
    """A JSON record file another process read and checked: its bytes, its parse findings, its
    record count and the columns it sent; its records are parsed here on first use (`parse_later`)."""
    record_file = RecordFile(path, display, raw, [], is_array, findings, kind=declared[0] if declared else None)
    if count:
        record_file.forget_records(columns, parse_later(declared), count)
    return record_file


def declare_kind(record_file: RecordFile, kind: str, id_field: str) -> None:
    """Give a file's records the kind pnp.toml [kinds] declares for it, without touching the file.

    Records without a `kind` get it, and (when the kind's id field is not `id`) an `id` that
    repeats it, in a view: `records` has them, `source` keeps the records as read (what their
    schema validates). A table's rows got the declared kind from its reader: `source` drops it.
    """
    record_file.kind = kind
    source = record_file.records
    table = record_file.locator is not None and record_file.path.suffix.lower() in TABLE_SUFFIXES
    view: list[Any] = []
    bare: list[Any] = []
    changed = False
    for record in source:
        if type(record) is not dict:
            view.append(record)
            bare.append(record)
            continue
        added: dict[str, Any] = {}
        if "kind" not in record:
            added["kind"] = kind
        if id_field != "id" and "id" not in record and id_field in record:
            added["id"] = record[id_field]
        if table and record.get("kind") == kind:
            bare.append({k: v for k, v in record.items() if k != "kind"})
            changed = True
        else:
            bare.append(record)
        if added:
            view.append({**added, **record})
            changed = True
        else:
            view.append(record)
    if changed:
        record_file.source = bare
        record_file.records = view


TABLE_SUFFIXES = frozenset(suffix for suffix, reader in RECORD_SUFFIXES.items() if reader == "table")
