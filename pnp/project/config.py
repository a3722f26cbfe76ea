"""The project file `pnp.toml`: where a content project keeps records, schemas, layouts, output.

`pnp` run anywhere inside a project finds the nearest `pnp.toml` above the working directory.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from pnp.core import limits as limits_module
from pnp.core.limits import Limits
from pnp.core.problems import ConfigError as ConfigError  # re-exported: raised by loading pnp.toml
from pnp.core.problems import Problem
from pnp.core.units import ORIENTATIONS, PRINTERS, PaperSettings
from pnp.project.kindspec import KindSpec, read_kinds

PROJECT_FILE = "pnp.toml"
DEFAULT_MAX_FILE_MB = 20


@dataclass(frozen=True, slots=True)
class Game:
    """A game of the project: kinds `PREFIX.*` build into output/FOLDER/."""

    prefix: str
    title: str
    folder: str
    not_included: tuple[str, ...] = ()  # [games.X] not-included: what the kit leaves out (the read-me page)


@dataclass(frozen=True, slots=True)
class Project:
    """pnp.toml read: where everything is, the games and kinds, and the build's settings."""

    root: Path
    name: str
    records: Path
    schemas: Path
    layouts: Path
    output: Path
    max_file_bytes: int
    games: dict[str, Game]
    paper: str = "a4"
    duplex: str = "long"
    cutting: str = "butted"  # [build] cutting: butted (shared cut lines) or gutter (pnp.drawing.impose.SheetSpec)
    gutter_mm: float = 0.0  # [build] gutter: with cutting = "gutter", extra space between two cards' bleeds
    languages: tuple[str, ...] = ()  # [build] languages: the source language first (pnp.translation.translate)
    # [sources]: spreadsheet files (relative to the root) -> kind, or sheet name -> kind
    sources: dict[str, str | dict[str, str]] = field(default_factory=dict)
    list_separator: str = ""  # [sources] list-separator: splits a cell into a list
    sheets: Path | None = None  # sheet files (docs/sheets.md); None: <root>/sheets
    limits: Limits = limits_module.DEFAULT
    # [kinds]: kinds declared in pnp.toml (pnp.project.kindspec), and the files their globs match
    kinds: dict[str, KindSpec] = field(default_factory=dict)
    kind_files: dict[Path, str] = field(default_factory=dict)
    sheet: PaperSettings = PaperSettings()  # [paper]: orientation, margins, printer, grid
    read_me: bool = True  # [build] read-me: each game's "read me first" page (pnp.drawing.readme)

    @property
    def data_only(self) -> bool:
        """A project of kinds declared in [kinds] with no layouts/ and no sheets/ folder: a data
        repository checked in CI, where pnp warns of nothing it would print."""
        return bool(self.kinds) and not self.layouts.exists() and not (self.sheets or self.root / "sheets").exists()

    def declared_kind(self, path: Path) -> KindSpec | None:
        """The [kinds] entry whose files include `path`, if any."""
        if not self.kind_files:
            return None
        name = self.kind_files.get(Path(os.path.abspath(path)))
        return self.kinds[name] if name is not None else None

    def game(self, kind: str) -> Game:
        """The game a kind belongs to (by its prefix), with a default for unlisted ones."""
        prefix = kind.split(".", 1)[0]
        return self.games.get(prefix) or Game(prefix, prefix, prefix)

    def display(self, path: Path) -> str:
        """A path as the user should see it: relative to the working directory when inside it."""
        absolute = Path(os.path.abspath(path))  # not resolve(): a symlink keeps its own name
        for base in (Path(os.path.abspath(Path.cwd())), self.root):
            if absolute.is_relative_to(base):
                return str(absolute.relative_to(base))
        return str(path)


def find_project_file(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / PROJECT_FILE
        if os.path.lexists(candidate) and not candidate.is_dir():  # a pipe or a link is refused when read
            return candidate
    return None


PROJECT_FILE_MAX_BYTES = 1024 * 1024


SOURCE_FOLDERS = (("records", "cards"), ("schemas", "schemas"), ("layouts", "layouts"), ("sheets", "sheets"))


def load_project(start: Path | None = None, explicit: Path | None = None) -> Project:
    """Read `pnp.toml` (from `explicit`, or the nearest one above `start`)."""
    if explicit is not None:
        path = explicit / PROJECT_FILE if explicit.is_dir() else explicit
        if not path.is_file():
            raise ConfigError(f"{path}: no project file here; run 'pnp new DIR' to create a project")
    else:
        found = find_project_file((start or Path.cwd()).resolve())
        if found is None:
            raise ConfigError(
                f"no {PROJECT_FILE} in {start or Path.cwd()} or any folder above it; "
                "run pnp inside a project, or create one with 'pnp new DIR'"
            )
        path = found
    from pnp.core.paths import RefusedFile, read_regular

    try:  # a regular file inside its folder only: a pipe never blocks, a link out is never read
        raw = read_regular(path, PROJECT_FILE_MAX_BYTES, path.parent.resolve())
        text = raw.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark, as Notepad may write
    except RefusedFile as refused:
        raise ConfigError(f"{path}: {refused.message}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    try:
        table = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise ConfigError(f"{path}: not valid TOML: nested too deeply to read; flatten the values") from None
    root = path.parent.resolve()
    settings = ProjectFileCheck(path, text, table)
    section = settings.table("project")

    def folder(key: str, default: str) -> Path:
        value = section.get(key, default)
        resolved: Path = (root / value).resolve()
        if not resolved.is_relative_to(root):
            settings.fail("project", key, f"[project] {key} = {value!r} points outside the project")
        if key == "output":  # what pnp writes must never be read back as the project's own files
            for other, other_default in SOURCE_FOLDERS:
                source = (root / str(section.get(other, other_default))).resolve()
                inside = other == "records" and resolved.is_relative_to(source)  # records are walked
                if resolved in (root, source) or inside:
                    where = {root: "is the project folder", source: f"is the {other} folder"}.get(
                        resolved, f"lies in the {other} folder"
                    )
                    message = (
                        f"[project] output = {value!r} {where}: pnp would read its own outputs back; "
                        'keep them apart, such as records = "cards" and output = "output"'
                    )
                    settings.fail("project", key, message)
        return resolved

    games: dict[str, Game] = {}
    for prefix in settings.tables("games"):
        spec = settings.table("games", prefix)
        folder_name = str(spec.get("folder", prefix))
        plain = not ({"/", "\\", "\x00"} & set(folder_name)) and len(folder_name.encode(errors="replace")) <= 255
        if not folder_name.strip() or not plain or folder_name.startswith("."):
            what = "may not be empty" if not folder_name.strip() else "must be a plain folder name of at most 255 bytes"
            settings.fail(f"games.{prefix}", "folder", f'[games.{prefix}] folder {what} (such as folder = "{prefix}")')
        missing = tuple(str(item) for item in spec.get("not-included", []))
        games[prefix] = Game(prefix, str(spec.get("title", prefix)), folder_name, missing)
    build = settings.table("build")
    paper = str(build.get("paper", "a4"))
    sheet, sized = _paper_table(settings)
    if sized is not None:
        if "paper" in build and str(build["paper"]).lower() != sized.lower():
            settings.fail(
                "paper", "size", f'[paper] size = "{sized}" and [build] paper = "{paper}": set the paper once'
            )
        paper = sized
    duplex = str(build.get("duplex", "long"))
    cutting = str(build.get("cutting", "butted"))
    gutter_mm = float(build.get("gutter", 0))
    languages = build.get("languages", [])
    sources, list_separator = _sources(settings, root)
    schema_folder = (root / str(section.get("schemas", "schemas"))).resolve()
    kinds, kind_files = read_kinds(settings.data.get("kinds"), root, settings.fail, _hint, schema_folder)
    try:
        limits = limits_module.read_table(settings.data.get("limits"))
    except limits_module.LimitsError as err:
        settings.fail("limits", err.key, str(err))
    limits_module.use(limits)
    _check_paper_size(settings, paper, limits.paper_mm)
    _check_margins(settings, paper, sheet)

    max_mb = section.get("max-file-mb", DEFAULT_MAX_FILE_MB)
    return Project(
        root=root,
        name=str(section.get("name", root.name)),
        records=folder("records", "cards"),
        schemas=folder("schemas", "schemas"),
        layouts=folder("layouts", "layouts"),
        output=folder("output", "output"),
        max_file_bytes=int(max_mb * 1024 * 1024),
        games=games,
        paper=paper,
        duplex=duplex,
        cutting=cutting,
        gutter_mm=gutter_mm,
        languages=tuple(dict.fromkeys(languages)),
        sources=sources,
        list_separator=list_separator,
        sheets=folder("sheets", "sheets"),
        limits=limits,
        kinds=kinds,
        kind_files=kind_files,
        sheet=sheet,
        read_me=bool(build.get("read-me", True)),
    )


DUPLEX_MODES = ("long", "short", "fold", "none")
CUTTING_STYLES = ("butted", "gutter")
MAX_FILE_MB_CEILING = 1024
# Every table and key of pnp.toml: its type ("str", "number") and a check of its value.
KEYS: dict[str, dict[str, str]] = {
    "project": {
        "name": "str",
        "records": "str",
        "schemas": "str",
        "layouts": "str",
        "sheets": "str",
        "output": "str",
        "max-file-mb": "number",
    },
    "build": {
        "paper": "paper",
        "duplex": "duplex",
        "cutting": "cutting",
        "gutter": "gutter",
        "languages": "languages",
        "read-me": "bool",
    },
    "games.*": {"title": "str", "folder": "str", "not-included": "strings"},
    "paper": {
        "size": "paper",
        "orientation": "orientation",
        "printer": "printer",
        "margin": "margin",
        "cards-per-page": "count",
        "rows": "count",
        "columns": "count",
        "mix-sizes": "mix",
    },
}
MAX_GRID = 50  # rows, columns: no paper holds more cards across
MIX_MODES = ("last-sheets",)  # [paper] mix-sizes as a string (true: "all", every face)


def _mix_mode(value: Any) -> str:
    """[paper] mix-sizes as pnp.drawing.combine reads it: "" (each size its grid), "all" (true:
    every face shelf-packed together) or "last-sheets" (each size's part-filled last sheet)."""
    if value is True:
        return "all"
    return str(value) if value in MIX_MODES else ""


class ProjectFileCheck:
    """Reads pnp.toml's tables and checks each key against KEYS; the first mistake raises a
    ConfigError located at its line and column, with a did-you-mean."""

    def __init__(self, path: Path, text: str, data: dict[str, Any]) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.data = data
        for name, value in data.items():
            known = ["project", "build", "paper", "games", "sources", "limits", "kinds"]
            if name not in known:
                self.fail(
                    name,
                    None,
                    f"unknown table [{name}]{_hint(name, known)}; "
                    "tables: [project], [build], [paper], [games.PREFIX], [sources], [limits], [kinds.NAME]",
                )
            if not isinstance(value, dict):
                self.fail(name, None, f"{name} must be a table: [{name}]")

    def tables(self, name: str) -> list[str]:
        """The sub-table names of [name.*] ([games.ember] -> ember)."""
        return list(self.data.get(name) or {})

    def table(self, *names: str) -> dict[str, Any]:
        node: Any = self.data
        for name in names:
            node = node.get(name, {}) if isinstance(node, dict) else {}
        dotted = ".".join(names)
        if not isinstance(node, dict):
            self.fail(dotted, None, f"[{dotted}] must be a table with {', '.join(KEYS['games.*'])}")
        rules = KEYS[dotted if dotted in KEYS else f"{names[0]}.*"]
        for key, value in node.items():
            if key not in rules:
                known = sorted(rules)
                self.fail(
                    dotted, key, f"unknown key {key!r} in [{dotted}]{_hint(key, known)}; keys: {', '.join(known)}"
                )
            problem = _value_problem(rules[key], value)
            if problem:
                self.fail(dotted, key, f"[{dotted}] {key} = {_show(value)}: {problem}")
        checked: dict[str, Any] = node
        return checked

    def fail(self, table: str, key: str | None, message: str) -> NoReturn:
        line, column = self.position(table, key)
        display = _display(self.path)
        problem = Problem(display, line, column, "", "config-error", "error", message)
        raise ConfigError(f"{display}:{line}:{column}: error[config-error]: {message}", (problem,))

    def position(self, table: str, key: str | None) -> tuple[int, int]:
        """Line and column of `key` in [table] (or of the table's header); 1:1 when not found."""
        current = ""
        header_at: tuple[int, int] | None = None
        for number, raw in enumerate(self.lines, start=1):
            stripped = raw.strip()
            if stripped.startswith("["):
                current = stripped.strip("[]").split("#")[0].strip().strip("[]").replace(" ", "").replace('"', "")
                if current == table:
                    header_at = (number, raw.index("[") + 1)
                continue
            if key is None or current != table:
                continue
            name = stripped.split("=", 1)[0].strip().strip('"')
            if "=" in stripped and name == key:
                return number, raw.index(stripped[0]) + 1
        if header_at is not None:
            return header_at
        return 1, 1


def _value_problem(rule: str, value: Any) -> str | None:
    if rule == "str" and not isinstance(value, str):
        return "must be a string (in quotes)"
    if rule == "number" and (
        isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf")
    ):
        return "must be a positive number"  # nan and inf too: TOML has both
    if rule == "number" and value > MAX_FILE_MB_CEILING:  # the one number: max-file-mb
        return f"may be at most {MAX_FILE_MB_CEILING} (a hard ceiling: pnp reads a record file whole)"
    if rule == "languages" and (
        not isinstance(value, list)
        or not all(isinstance(code, str) and re.fullmatch(r"[a-z]{2,3}([_-][A-Za-z0-9]{2,8})?", code) for code in value)
    ):
        return 'must be a list of language codes, source first: ["en", "de"]'
    if rule == "duplex" and value not in DUPLEX_MODES:
        return f"duplex must be long, short, fold or none{_hint(str(value), list(DUPLEX_MODES))}"
    if rule == "cutting" and value not in CUTTING_STYLES:
        return f"cutting must be butted or gutter{_hint(str(value), list(CUTTING_STYLES))}"
    if rule == "gutter" and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 50):
        return "gutter must be a number of millimetres from 0 to 50 (space between two cards' bleeds)"
    if rule == "strings" and (
        not isinstance(value, list) or len(value) > 100 or not all(isinstance(v, str) and len(v) <= 200 for v in value)
    ):
        return 'must be a list of at most 100 short texts: ["a pencil", "six counters"]'
    if rule == "bool" and not isinstance(value, bool):
        return "must be true or false"
    if rule == "mix" and not (isinstance(value, bool) or value in MIX_MODES):
        hint = _hint(value, list(MIX_MODES)) if isinstance(value, str) else ""
        return 'must be true (every face shelf-packed together), false, or "last-sheets"' + hint
    if rule == "orientation" and value not in ORIENTATIONS:
        return f"orientation must be portrait, landscape or auto{_hint(str(value), list(ORIENTATIONS))}"
    if rule == "printer" and value not in PRINTERS:
        names = ", ".join(f"{name} ({mm:g} mm)" for name, mm in PRINTERS.items())
        return f"printer must be one of {names}{_hint(str(value), list(PRINTERS))}"
    if rule == "margin" and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100):
        return "margin must be a number of millimetres from 0 to 100 (the paper's edge to the nearest ink)"
    if rule == "count" and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_GRID**2):
        return f"must be a whole number from 1 to {MAX_GRID**2}"
    if rule == "paper":
        from pnp.core.units import PAPERS, ImpositionError, parse_paper

        if not isinstance(value, str):
            return 'must be a string such as "a4"'
        try:
            width, height = parse_paper(value)
        except ImpositionError:
            return f"unknown paper{_hint(value.lower(), sorted(PAPERS))}; use a4, letter, a3, legal or WIDTHxHEIGHT with mm, in or pt (210x297mm)"
        if width <= 0 or height <= 0:
            return "paper width and height must be over 0"
    return None


def _check_paper_size(settings: Any, paper: str, paper_mm: float) -> None:
    """[build] paper longer than the paper-mm limit: a pnp.toml error at the paper (it is the
    paper that no printer takes, not the layouts drawn on it)."""
    from pnp.core.units import MM, ImpositionError, parse_paper

    try:
        longer = max(parse_paper(paper)) / MM
    except ImpositionError:
        return  # reported by the paper rule
    if longer > paper_mm:
        settings.fail("build", "paper", limits_module.exceeded("paper_mm", f"paper {paper} is {longer:.6g} mm long"))


def _paper_table(settings: ProjectFileCheck) -> tuple[PaperSettings, str | None]:
    """[paper]: its settings, and its size when it names one."""
    table = settings.table("paper")
    for key in ("rows", "columns"):
        if key in table and table[key] > MAX_GRID:
            settings.fail("paper", key, f"[paper] {key} = {table[key]}: at most {MAX_GRID}")
    where = []
    for key in table:
        where.append((key, _display(settings.path), *settings.position("paper", key)))
    if "size" not in table and "paper" in settings.table("build"):  # the paper named in [build]
        where.append(("size", _display(settings.path), *settings.position("build", "paper")))
    sheet = PaperSettings(
        orientation=str(table.get("orientation", "")),
        printer=str(table.get("printer", "home")),
        margin_mm=float(table["margin"]) if "margin" in table else None,
        per_page=int(table.get("cards-per-page", 0)),
        rows=int(table.get("rows", 0)),
        columns=int(table.get("columns", 0)),
        mix_sizes=_mix_mode(table.get("mix-sizes", False)),
        where=tuple(where),
    )
    return sheet, (str(table["size"]) if "size" in table else None)


def _check_margins(settings: ProjectFileCheck, paper: str, sheet: PaperSettings) -> None:
    """Margins a printer cannot print, or that leave no paper: errors at [paper] margin."""
    from pnp.core.units import MM, ImpositionError, parse_paper

    least = PRINTERS[sheet.printer]
    if sheet.margin < least:
        settings.fail(
            "paper",
            "margin",
            f"[paper] margin = {sheet.margin:g} is inside the {least:g} mm a {sheet.printer} printer cannot print; "
            f'use margin = {least:g} or more, or printer = "borderless" for a printer that prints to the edge',
        )
    try:
        shorter = min(parse_paper(paper)) / MM
    except ImpositionError:
        return  # reported by the paper rule
    if 2 * sheet.margin >= shorter:
        settings.fail(
            "paper",
            "margin" if sheet.margin_mm is not None else "printer",
            f"margins of {sheet.margin:g} mm leave nothing of {paper} paper ({shorter:.1f} mm across); "
            "use smaller margins or a larger paper",
        )


def _hint(name: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _show(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _display(path: Path) -> str:
    """pnp.toml as the user should see it: relative to the working directory when inside it."""
    absolute = Path(os.path.abspath(path))
    cwd = Path(os.path.abspath(Path.cwd()))
    return str(absolute.relative_to(cwd)) if absolute.is_relative_to(cwd) else str(path)


def _sources(settings: ProjectFileCheck, root: Path) -> tuple[dict[str, str | dict[str, str]], str]:
    """[sources]: "cards/units.csv" = "kind", "cards/game.xlsx" = {Units = "kind"}, list-separator."""
    table = settings.data.get("sources") or {}
    separator = table.get("list-separator", "")
    if not isinstance(separator, str):
        settings.fail("sources", "list-separator", '[sources] list-separator must be a string such as ";"')
    sources: dict[str, str | dict[str, str]] = {}
    for key, value in table.items():
        if key == "list-separator":
            continue
        sheets_ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        if not isinstance(value, str) and not sheets_ok:
            settings.fail(
                "sources",
                key,
                f"[sources] {key!r} must name a kind, or map sheet names to kinds: "
                '"cards/units.xlsx" = {Units = "mygame.unit"}',
            )
        source = (root / key).resolve()
        if not source.is_relative_to(root) or not source.is_file():
            settings.fail(
                "sources", key, f"[sources] {key!r} is no file of this project (paths start at pnp.toml's folder)"
            )
        sources[os.path.normpath(key)] = value
    return sources, separator
