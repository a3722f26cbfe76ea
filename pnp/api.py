"""pnp as a library: open a project, check it, build it, export it; results are values.

What the command line prints, these return: problems as `Problem` values (file, line, column,
pointer, code, severity, message), files written as paths. A configuration mistake raises
`ConfigError` (the CLI's exit status 2); problems in records never raise. See docs/api.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, cast

from pnp.core.problems import Problem
from pnp.drawing.impose import Duplex
from pnp.outputs.build import BuildOptions, BuildResult, run_build
from pnp.outputs.export import ExportOptions, ExportResult, run_gallery, run_png, run_printshop, run_tts
from pnp.outputs.scaffold import scaffold
from pnp.project.config import PROJECT_FILE, ConfigError, Project, load_project
from pnp.verify.run import CheckOptions, CheckResult, run_check

__all__ = [
    "BuildOptions",
    "BuildResult",
    "CheckOptions",
    "CheckResult",
    "ConfigError",
    "ExportFormat",
    "ExportOptions",
    "ExportResult",
    "Problem",
    "Project",
    "build",
    "check",
    "export",
    "new_project",
    "open_project",
]

ExportFormat = Literal["printshop", "png", "tts", "gallery"]
EXPORTERS = {"printshop": run_printshop, "png": run_png, "tts": run_tts, "gallery": run_gallery}


def open_project(path: str | os.PathLike[str] = ".") -> Project:
    """The project of `path`: its pnp.toml, a folder holding one, or any folder below one."""
    where = Path(path)
    if not where.exists():
        raise ConfigError(f"{where}: no such file or folder")
    if where.is_file() or (where / PROJECT_FILE).is_file():
        return load_project(explicit=where)
    return load_project(start=where)


def new_project(folder: str | os.PathLike[str], name: str | None = None) -> Project:
    """What `pnp new` writes, in `folder` (new or empty), for the game `name` (default: the folder's name)."""
    where = Path(folder)
    scaffold(where, name)
    return load_project(explicit=where)


def check(project: Project, options: CheckOptions | None = None) -> CheckResult:
    """Every problem of the project (or of `options.paths`), sorted by file and position."""
    return run_check(project, options or CheckOptions())


def build(project: Project, options: BuildOptions | None = None) -> BuildResult:
    """Check, then render every kind into output/; with errors nothing is written (see `.problems`).

    Without options, the paper and duplex of the project's pnp.toml.
    """
    return run_build(project, options or BuildOptions(paper=project.paper, duplex=_duplex(project)))


def export(project: Project, fmt: ExportFormat, options: ExportOptions | None = None) -> ExportResult:
    """One of `pnp export`'s formats: printshop PDFs, PNG images, Tabletop Simulator sheets, gallery."""
    if fmt not in EXPORTERS:
        raise ConfigError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORTERS)}")
    return EXPORTERS[fmt](project, options or ExportOptions())


def _duplex(project: Project) -> Duplex:
    """pnp.toml's duplex, which config.py has already limited to these four."""
    return cast(Duplex, project.duplex) if project.duplex in ("short", "fold", "none") else "long"
