"""The project file `pnp.toml`: where a content project keeps records, schemas, layouts, output.

`pnp` run anywhere inside a project finds the nearest `pnp.toml` above the working directory.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pnp import limits as limits_module
from pnp.limits import Limits

PROJECT_FILE = "pnp.toml"
DEFAULT_MAX_FILE_MB = 20


class ConfigError(Exception):
    """A usage or configuration problem: reported on one line, exit status 2."""


@dataclass(frozen=True, slots=True)
class Game:
    """A game of the project: kinds `PREFIX.*` build into output/FOLDER/."""

    prefix: str
    title: str
    folder: str


@dataclass(frozen=True, slots=True)
class Project:
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
    limits: Limits = limits_module.DEFAULT

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
        if candidate.is_file():
            return candidate
    return None


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
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    root = path.parent.resolve()
    section = table.get("project", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [project] must be a table")
    known = {"name", "records", "schemas", "layouts", "output", "max-file-mb"}
    unknown = sorted(set(section) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown setting {unknown[0]!r} in [project]; known: {', '.join(sorted(known))}")

    def folder(key: str, default: str) -> Path:
        value = section.get(key, default)
        if not isinstance(value, str):
            raise ConfigError(f"{path}: [project] {key} must be a string path")
        resolved = (root / value).resolve()
        if not resolved.is_relative_to(root):
            raise ConfigError(f"{path}: [project] {key} = {value!r} points outside the project")
        return resolved

    games: dict[str, Game] = {}
    for prefix, spec in (table.get("games") or {}).items():
        if not isinstance(spec, dict):
            raise ConfigError(f"{path}: [games.{prefix}] must be a table with title and folder")
        folder_name = str(spec.get("folder", prefix))
        if "/" in folder_name or folder_name.startswith("."):
            raise ConfigError(f"{path}: [games.{prefix}] folder must be a plain folder name")
        games[prefix] = Game(prefix, str(spec.get("title", prefix)), folder_name)
    build = table.get("build") or {}
    paper = str(build.get("paper", "a4"))
    duplex = str(build.get("duplex", "long"))
    if duplex not in ("long", "short", "none"):
        raise ConfigError(f"{path}: [build] duplex must be long, short or none")
    unknown_tables = sorted(set(table) - {"project", "games", "build", "limits"})
    if unknown_tables:
        raise ConfigError(
            f"{path}: unknown table [{unknown_tables[0]}]; known: [project], [games.PREFIX], [build], [limits]"
        )
    try:
        limits = limits_module.read_table(table.get("limits"), str(path))
    except ValueError as err:
        raise ConfigError(str(err)) from None
    limits_module.use(limits)
    max_mb = section.get("max-file-mb", DEFAULT_MAX_FILE_MB)
    if not isinstance(max_mb, (int, float)) or max_mb <= 0:
        raise ConfigError(f"{path}: [project] max-file-mb must be a positive number")
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
        limits=limits,
    )
