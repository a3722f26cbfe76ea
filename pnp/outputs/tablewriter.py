"""Records of one kind written out as CSV, XLSX or JSON (`pnp export records`).

The columns are those the spreadsheet reader (pnp/project/tabular.py) reads back: dotted headers for
nested fields, indexed ones for lists. A value a cell cannot hold faithfully (an empty list, a
list with a null or an empty string in it) is written as JSON text in one cell, which the
reader parses where the schema expects a list or an object. So JSON -> XLSX -> JSON gives the
same records. Outputs are deterministic: the XLSX is written by pnp's one XLSX writer
(pnp/core/xlsx.py), byte-identical for the same records.
"""

from __future__ import annotations

import csv
import errno
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pnp.core.output import OutputError, OutputResult, atomic_write
from pnp.project.config import ConfigError, Project
from pnp.project.fields import FALSE_WORDS, NUMBER, TRUE_WORDS
from pnp.project.tableread import neutralised

Path_ = tuple[str, ...]
FORMATS = ("csv", "xlsx", "json")
NOT_A_FOLDER = (errno.ENOTDIR, errno.EEXIST)


def export_records(project: Project, kinds: tuple[str, ...], fmt: str, output: Path | None) -> OutputResult:
    """Check the project, then write the records of each kind (in file order) to
    output/records/KIND.EXT, or to `output`: a file for one kind, a folder for several (or all:
    no kinds named). Nothing is written while the files of those kinds have errors."""
    from pnp.verify.run import CheckOptions, check_project

    loaded, result = check_project(project, CheckOptions())
    by_kind = loaded.index.files_by_kind
    for kind in kinds:
        if kind not in by_kind:
            known = ", ".join(sorted(by_kind)) or "none"
            raise ConfigError(f"no records of kind {kind!r}; kinds with records: {known}")
    chosen = kinds or tuple(sorted(by_kind))
    shown = {f.display for kind in chosen for f in by_kind[kind]} | {f.display for f in loaded.files if not f.records}
    problems = tuple(p for p in result.problems if p.file in shown)
    if any(p.severity == "error" for p in problems):
        return OutputResult((), (), problems)
    written: list[Path] = []
    for kind in chosen:
        records = [record for _, _, record in loaded.records(kind)]
        if output is not None and len(kinds) == 1:
            target = output
        else:
            target = (output or project.output / "records") / f"{kind}.{fmt}"
        data = (
            write_csv(records) if fmt == "csv" else write_xlsx(records, kind) if fmt == "xlsx" else write_json(records)
        )
        try:
            atomic_write(target, lambda handle, data=data: handle.write(data))  # type: ignore[misc]
        except OSError as err:  # a file where a folder should be, a full disk, a name too long
            why = "a file stands where a folder should be" if err.errno in NOT_A_FOLDER else err.strerror or err
            raise OutputError(f"cannot write {target}: {why}; nothing more was written") from None
        except ValueError as err:  # a NUL byte in -o
            raise OutputError(f"cannot write {str(target)!r}: {err}") from None
        written.append(target)
    return OutputResult(tuple(written), (), problems)


def flatten(record: dict[str, Any], whole: frozenset[Path_] = frozenset()) -> Iterator[tuple[Path_, Any]]:
    """(path, cell value) of every leaf of a record, in the record's own order; values at a
    path in `whole`, and what cells cannot hold, as JSON text in one cell."""
    yield from _flatten(record, (), whole)


def _flatten(value: Any, path: Path_, whole: frozenset[Path_]) -> Iterator[tuple[Path_, Any]]:
    if isinstance(value, dict | list) and path and (path in whole or not _cells_can_hold(value)):
        yield path, json.dumps(value, ensure_ascii=False)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _flatten(item, (*path, str(key)), whole)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _flatten(item, (*path, str(i)), whole)
    else:
        yield path, value


def _whole(records: list[dict[str, Any]]) -> frozenset[Path_]:
    """Paths written as JSON in one cell for every record, because some record needs it (an
    empty list here, items there would make overlapping columns)."""
    found: set[Path_] = set()
    while True:
        leaves = {path for record in records for path, _ in flatten(record, frozenset(found))}
        overlapping = {path for path in leaves if any(path[:end] in leaves for end in range(1, len(path)))}
        shorter = {path[:end] for path in overlapping for end in range(1, len(path)) if path[:end] in leaves}
        if not shorter - found:
            return frozenset(found)
        found |= shorter


def _cells_can_hold(value: Any) -> bool:
    """False for what empty cells would lose: empty containers, nulls, blank strings, dotted keys."""
    if isinstance(value, dict):
        return bool(value) and all(
            "." not in str(k) and str(k).strip() == str(k) and _cells_can_hold(v) for k, v in value.items()
        )
    if isinstance(value, list):
        return bool(value) and all(_cells_can_hold(v) for v in value)
    if isinstance(value, str):
        return bool(value.strip()) and value == value.strip() and "\r" not in value and not _reads_as_other(value)
    return value is not None


def _reads_as_other(text: str) -> bool:
    """Text that a cell of a field allowing numbers or booleans too would read back as one."""
    return bool(NUMBER.fullmatch(text)) or text.lower() in TRUE_WORDS | FALSE_WORDS | {"null"}


def columns(records: list[dict[str, Any]]) -> tuple[list[Path_], frozenset[Path_]]:
    """Every path of the records: kind and id first, then fields in first-seen order, list
    items by index."""
    whole = _whole(records)
    rank: dict[Path_, int] = {("kind",): -2, ("id",): -1}
    for record in records:
        for path, _ in flatten(record, whole):
            for end in range(1, len(path) + 1):
                rank.setdefault(path[:end], len(rank))
    leaves = {path for record in records for path, _ in flatten(record, whole)}

    def key(path: Path_) -> tuple[tuple[int, int], ...]:
        return tuple((0, int(p)) if p.isdigit() else (1, rank[path[: i + 1]]) for i, p in enumerate(path))

    return sorted(leaves, key=key), whole


def rows(records: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    header, whole = columns(records)
    index = {path: i for i, path in enumerate(header)}
    table: list[list[Any]] = []
    for record in records:
        row: list[Any] = [None] * len(header)
        for path, value in flatten(record, whole):
            row[index[path]] = value
        table.append(row)
    return [".".join(path) for path in header], table


def write_json(records: list[dict[str, Any]]) -> bytes:
    return (json.dumps(records, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


def write_csv(records: list[dict[str, Any]]) -> bytes:
    """UTF-8 with a byte-order mark (so Excel reads accents right; pnp accepts it), CRLF rows.
    Text that a spreadsheet app would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets
    a leading ' (neutralised); numbers are written as numbers (-3 is a number, not a formula)."""
    header, table = rows(records)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([neutralised(name) for name in header])
    writer.writerows([neutralised(v) if isinstance(v, str) else _text(v) for v in row] for row in table)
    return b"\xef\xbb\xbf" + out.getvalue().encode("utf-8")


def write_xlsx(records: list[dict[str, Any]], sheet: str) -> bytes:
    """A one-sheet workbook (pnp/core/xlsx.py): text stays text, numbers and booleans typed, the
    header row frozen."""
    from pnp.core.xlsx import xlsx_bytes

    header, table = rows(records)
    return xlsx_bytes(sheet, [header, *table])
