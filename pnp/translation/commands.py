"""`pnp translate extract`, `import` and `status`: the catalogs and translators' sheets on disk.

Extract writes translations/messages.pot and updates each language's .po (and, for translators
who work in spreadsheets, a .xlsx or .csv with one row per entry); import takes such a sheet back
into the .po, each problem located at its cell; status counts each language's entries.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.problems import Problem
from pnp.project.config import ConfigError
from pnp.translation.catalogs import merged_catalog, po_bytes, read_catalog
from pnp.translation.checks import check_catalog
from pnp.translation.sources import source_units
from pnp.translation.units import (
    FOLDER,
    SHEET_COLUMNS,
    TEMPLATE,
    Unit,
    entry_key,
    keyed_by_text,
    target_languages,
    with_moved_shared,
)

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

    from pnp.project.loaded import LoadedProject
    from pnp.project.tabular import Sheet


@dataclass(frozen=True, slots=True)
class Status:
    """One language's entries for `pnp translate status`: how many of the source units are
    translated, missing or stale, and how many entries match no unit."""

    language: str
    total: int
    translated: int
    missing: int
    stale: int
    unknown: int
    error: str = ""  # the catalog could not be read: its located problem line (pnp check's)


def status(loaded: LoadedProject) -> list[Status]:
    project = loaded.project
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    rows = []
    for lang in target_languages(project):
        catalog = with_moved_shared(read_catalog(project, lang), units)
        if catalog.error:  # counted as nothing translated would hide the mistake: say it, located
            where, finding = next(iter(check_catalog(loaded, catalog, {})))
            problem = where.locate(finding)
            line = f"{problem.place}: {problem.severity}[{problem.code}]: {problem.message}"
            counted = sum(1 for u in units.values() if not u.override_of)
            rows.append(Status(lang, counted, 0, counted, 0, 0, line))
            continue
        missing = stale = translated = 0
        for key, unit in units.items():
            entry = catalog.entries.get(key)
            if entry is None and unit.override_of:
                continue  # a shared text's record: counted once, as its kind's entry
            if entry is None or not entry.msgstr:
                missing += 1
            elif entry.fuzzy or entry.msgid != unit.source:
                stale += 1
            else:
                translated += 1
        unknown = sum(1 for key in catalog.entries if key not in units)
        rows.append(Status(lang, translated + missing + stale, translated, missing, stale, unknown))
    return rows


def extract(loaded: LoadedProject, fmt: str = "po") -> list[Path]:
    """Write translations/messages.pot and update every language's .po (and .xlsx / .csv when asked)."""
    from pnp.core.output import write_bytes

    project = loaded.project
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    folder = project.root / FOLDER
    if folder.is_symlink() or not folder.resolve().is_relative_to(project.root):
        raise ConfigError(f"{folder}: the translations folder must be a real folder inside the project")
    written = []
    template = merged_catalog(project, "", units, None, {})
    written.append(_write_if_changed(folder / TEMPLATE, po_bytes(template), write_bytes))
    for lang in target_languages(project):
        found = read_catalog(project, lang)
        if found.error:
            raise ConfigError(f"{found.file.display}: {found.error}; fix it before extracting")
        catalog = merged_catalog(project, lang, units, found.catalog, {})
        written.append(_write_if_changed(found.path, po_bytes(catalog), write_bytes))
        if fmt in ("xlsx", "csv"):
            rows = _sheet_rows(catalog, units)
            data = _xlsx_bytes(lang, rows) if fmt == "xlsx" else _csv_bytes(rows)
            written.append(_write_if_changed(folder / f"{lang}.{fmt}", data, write_bytes))
    return [p for p in written if p is not None]


def _write_if_changed(path: Path, data: bytes, write_bytes: Any) -> Path | None:
    if path.is_file() and path.read_bytes() == data:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, data)
    return path


def _sheet_rows(catalog: Catalog, units: dict[str, Unit]) -> list[tuple[str, str, str, str, str]]:
    rows = [SHEET_COLUMNS]
    for message in catalog:
        if not message.id or not isinstance(message.id, str):
            continue
        unit = units.get(entry_key(message.context or "", message.id))
        string = message.string if isinstance(message.string, str) else ""
        state = "missing" if not string else "stale" if "fuzzy" in message.flags else "translated"
        where = f"{unit.location[0]}:{unit.location[1]}" if unit else ""
        rows.append((message.context or "", message.id, string, state, where))
    return rows


def _xlsx_bytes(lang: str, rows: list[tuple[str, str, str, str, str]]) -> bytes:
    """A workbook for translators (pnp/core/xlsx.py): byte-identical for the same rows."""
    from pnp.core.xlsx import xlsx_bytes

    return xlsx_bytes(lang, rows, widths=(24, 60, 60, 11, 28), wrapped={2, 3})


def _csv_bytes(rows: list[tuple[str, str, str, str, str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def import_sheet(loaded: LoadedProject, path: Path, lang: str) -> tuple[list[Problem], Path | None]:
    """Take a translator's .xlsx or .csv into translations/<lang>.po; problems (located at the cell)
    stop the import. A row whose source differs from today's source is imported as fuzzy (stale)."""
    from pnp.core.output import write_bytes

    project = loaded.project
    if lang not in target_languages(project):
        raise ConfigError(
            f"language {lang!r} is not in [build] languages of {project.display(project.root / 'pnp.toml')}"
        )
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    if path.stat().st_size > project.max_file_bytes:
        raise ConfigError(f"{path}: over the {project.max_file_bytes // 1048576} MB limit")
    display = project.display(path)
    sheet = _read_rows(path, display, project.max_file_bytes)
    rows = sheet.rows
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    by_context = {u.context: u for u in units.values() if not keyed_by_text(u.context)}
    found = read_catalog(project, lang)
    if found.error:
        raise ConfigError(f"{found.file.display}: {found.error}")
    overrides: dict[str, tuple[str, bool]] = {}
    problems: list[Problem] = []
    header = [_cell_string(c).strip().lower() for c in rows[0][1]] if rows else []
    if "context" not in header or "translation" not in header:
        message = f"the first row must name the columns {', '.join(SHEET_COLUMNS)} (as 'pnp translate extract --format xlsx' writes them)"
        return [Problem(display, 1, 1, "", "catalog-error", "error", message)], None
    at = {name: header.index(name) for name in SHEET_COLUMNS if name in header}
    for number, row in rows[1:]:
        cells = [_cell_string(c) for c in row]
        cells += [""] * (len(header) - len(cells))
        broken = [c for c in (at["context"] + 1, at["translation"] + 1) if (number, c) in sheet.errors]
        for column in broken:  # a formula that failed: the reader sees an empty cell
            problems.append(
                Problem(display, number, column, "", "formula-error", "error", sheet.errors[number, column])
            )
        if broken:
            continue
        context, text = cells[at["context"]].strip(), cells[at["translation"]]
        source = cells[at["source"]] if "source" in at else None
        if not context or not text:
            continue
        unit = units.get(entry_key(context, source or "")) if keyed_by_text(context) else by_context.get(context)
        if unit is None:
            column = at["context"] + 1
            message = f"{lang}: no translatable text has context {context!r}; keep the context column as extracted"
            problems.append(Problem(display, number, column, "", "unknown-translation", "error", message))
            continue
        old = found.entries.get(unit.key)
        still_stale = old is not None and old.msgstr == text and (old.fuzzy or old.msgid != unit.source)
        overrides[unit.key] = (text, still_stale or (source is not None and source != unit.source))
    if problems:
        return problems, None
    catalog = merged_catalog(project, lang, units, found.catalog, overrides)
    return [], _write_if_changed(found.path, po_bytes(catalog), write_bytes)


def _read_rows(path: Path, display: str, max_bytes: int) -> Sheet:
    """The sheet's rows as record files are read (pnp/project/tabular.py, with its bounds: the
    workbook's unpacked size); what keeps it from being read is a ConfigError naming the file."""
    from pnp.project.tabular import Sheet, TableError, read_sheets

    if path.suffix.lower() not in (".xlsx", ".csv"):
        raise ConfigError(f"{display}: import reads .xlsx or .csv files")
    try:
        sheets = read_sheets(path, max_bytes)
    except OSError as err:
        raise ConfigError(f"{display}: cannot read file: {err.strerror}") from None
    except TableError as err:
        if err.code == "empty-file":  # no header row: said as for any sheet without one
            return Sheet(None, [])
        if err.detail:
            raise ConfigError(f"{display}: not a readable .xlsx workbook ({err.detail})") from None
        raise ConfigError(f"{display}:{err.row}:{err.column}: {err}") from None
    return sheets[0] if sheets else Sheet(None, [])


def _cell_string(cell: Any) -> str:
    """A cell as the translator typed it: a whole number without the '.0' a workbook stores."""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return "" if cell is None else str(cell)


def render_status(rows: list[Status], fmt: str) -> str:
    if fmt == "json":
        import json

        return json.dumps([asdict(r) for r in rows], indent=2) + "\n"
    if not rows:
        return 'no translations: add [build] languages = ["en", "de"] to pnp.toml\n'
    lines = [f"{'language':<10}{'translated':>12}{'missing':>9}{'stale':>7}{'unknown':>9}"]
    for r in rows:
        percent = f"{100 * r.translated / r.total:.0f}%" if r.total else "-"
        if r.error:
            lines.append(f"{r.language:<10}{'unreadable':>12}  (see below)")
            continue
        lines.append(f"{r.language:<10}{r.translated:>6} {percent:>5}{r.missing:>9}{r.stale:>7}{r.unknown:>9}")
    lines.extend(r.error for r in rows if r.error)
    return "\n".join(lines) + "\n"
