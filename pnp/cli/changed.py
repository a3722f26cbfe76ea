"""What changing some files can break, for `pnp check-changed FILE...` (the pre-commit hook).

A changed record file is checked as a record (its references still resolve against the whole
project). A change to anything else of the project that pnp reads (pnp.toml, a schema, a layout,
icons.json, a sheet or any other JSON, YAML or TOML file outside the records and output folders)
can break any record, so it asks for a whole-project check. Files of no project, and files pnp
does not read (a README, a built PDF, hidden files such as .pre-commit-config.yaml), ask for nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pnp.project.config import PROJECT_FILE, Project, find_project_file, load_project
from pnp.project.records import iter_record_paths

PROJECT_DATA_SUFFIXES = {".json", ".yaml", ".yml", ".toml", ".po"}  # .po: a catalog (pnp.translation)


@dataclass(frozen=True, slots=True)
class CheckPlan:
    """One project to check: the whole of it, or only `records` (never empty then)."""

    project: Project
    whole: bool
    records: tuple[Path, ...] = ()


def plan_checks(files: Iterable[Path]) -> list[CheckPlan]:
    """The checks the changed `files` call for, one per project they belong to."""
    by_root: dict[Path, list[Path]] = {}
    for file in files:
        absolute = file.resolve()
        found = find_project_file(absolute.parent)
        if found is not None:
            by_root.setdefault(found.parent, []).append(absolute)
    plans = []
    for root, changed in sorted(by_root.items()):
        project = load_project(explicit=root)
        walked = [project.records, *project.kind_files]  # pnp.toml [kinds] names files anywhere
        record_files = {path.resolve() for path, _ in iter_record_paths(walked, str)}
        records = tuple(sorted(path for path in changed if path in record_files))
        whole = any(path not in record_files and _is_project_input(project, path) for path in changed)
        if whole or records:
            plans.append(CheckPlan(project, whole, () if whole else records))
    return plans


def _is_project_input(project: Project, path: Path) -> bool:
    if path.is_relative_to(project.output) or path.is_relative_to(project.records):
        return False
    if any(part.startswith(".") for part in path.relative_to(project.root).parts):
        return False  # hidden, as pnp reads no hidden file: .github/, .pre-commit-config.yaml
    if path == project.root / PROJECT_FILE or path.is_relative_to(project.schemas):
        return True
    if any(spec.schema is not None and spec.schema.parent == path.parent for spec in project.kinds.values()):
        return True  # a schema [kinds] names, or one beside it that it may refer to
    if project.kinds and not project.layouts.exists():  # a data repository: its other files are not pnp's
        return False
    return path.is_relative_to(project.layouts) or path.suffix.lower() in PROJECT_DATA_SUFFIXES
