"""The check pipeline: records -> schemas -> xrefs -> one CheckResult. No reportlab here."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pnp import xrefs
from pnp.config import ConfigError, Project
from pnp.jsonfile import json_type, parse_bytes
from pnp.problems import Finding, Problem
from pnp.records import RecordFile, iter_record_paths, load_file
from pnp.schemas import SchemaSet


@dataclass(frozen=True, slots=True)
class CheckOptions:
    paths: tuple[Path, ...] = ()
    ignore: frozenset[str] = frozenset()
    select: frozenset[str] = frozenset()
    strict: bool = False
    render: bool = False


@dataclass(frozen=True, slots=True)
class CheckResult:
    problems: tuple[Problem, ...]
    files: int
    records: int
    strict: bool = False

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for p in self.problems if p.severity == "warning")

    @property
    def exit_code(self) -> int:
        if self.errors or (self.strict and self.warnings):
            return 1
        return 0


@dataclass(slots=True)
class LoadedProject:
    """Everything the later stages need: files, schemas, the index. Shared with `pnp build`."""

    project: Project
    schemas: SchemaSet
    files: list[RecordFile]
    index: xrefs.Index
    kinds_by_file: dict[int, set[str]]
    findings: list[tuple[RecordFile, Finding]]

    def records(self, kind: str) -> Iterator[tuple[RecordFile, int, dict[str, Any]]]:
        return self.index.records_of(kind)


def load_icon_specs(project: Project) -> dict[str, dict[str, Any]]:
    """layouts/icons.json: the inline icons text may use, by name."""
    path = project.layouts / "icons.json"
    if not path.is_file():
        return {}
    parsed = parse_bytes(path.read_bytes())
    icons = parsed.data.get("icons") if isinstance(parsed.data, dict) else None
    if not parsed.ok or not isinstance(icons, dict):
        raise ConfigError(f"{path}: must be a JSON object with an 'icons' object")
    return icons


def load_project_records(project: Project, extra: Iterable[Path] = ()) -> LoadedProject:
    """Load and schema-validate every record file of the project (and `extra` paths)."""
    schemas = SchemaSet(project.schemas)
    roots = [project.records] if project.records.is_dir() else []
    files: list[RecordFile] = []
    findings: list[tuple[RecordFile, Finding]] = []
    kinds_by_file: dict[int, set[str]] = {}
    index = xrefs.Index()
    was_enabled = gc.isenabled()
    gc.disable()  # hundreds of thousands of small containers: collection only costs time here
    try:
        for path, display in iter_record_paths([*roots, *extra], project.display):
            record_file = load_file(path, display, project.max_file_bytes)
            files.append(record_file)
            findings.extend((record_file, f) for f in record_file.findings)
            kinds = set(_validate_file(schemas, record_file, findings))
            kinds_by_file[id(record_file)] = kinds
            index.add_file(record_file, kinds)
    finally:
        gc.freeze()  # the loaded records live to the end: later collections need not walk them
        if was_enabled:
            gc.enable()
    return LoadedProject(project, schemas, files, index, kinds_by_file, findings)


def _validate_file(schemas: SchemaSet, record_file: RecordFile, out: list[tuple[RecordFile, Finding]]) -> Iterator[str]:
    """Yield the kinds present; append schema findings. One Rust call for a clean one-kind file."""
    records = record_file.records
    if not records:
        return
    try:
        kinds = {record["kind"] for record in records}
    except (TypeError, KeyError):
        kinds = set()
    if len(kinds) == 1:
        (kind,) = kinds
        if isinstance(kind, str) and kind in schemas.kind_uri:
            target = records if record_file.is_array else records[0]
            validator = schemas.array_validator(kind) if record_file.is_array else schemas.validator(kind)
            if validator.is_valid(target):
                yield kind
                return
            if record_file.is_array:  # one pass over the array; instance paths start at the index
                out.extend((record_file, f) for f in schemas.validate_array(kind, records))
                yield kind
                return
    seen: set[str] = set()
    for i, record in enumerate(records):
        pointer = record_file.pointer(i)
        if not isinstance(record, dict):
            out.append(
                (
                    record_file,
                    Finding(
                        "not-a-record",
                        f"item {i} is {json_type(record)}, not a record object; every item must be an object",
                        pointer,
                    ),
                )
            )
            continue
        if "kind" not in record:
            out.append(
                (
                    record_file,
                    Finding(
                        "missing-kind",
                        f"record has no 'kind'; add one such as {', '.join(schemas.kinds[:3])}",
                        pointer,
                    ),
                )
            )
            continue
        kind = record["kind"]
        if not isinstance(kind, str) or kind not in schemas.kind_uri:
            out.append((record_file, Finding("unknown-kind", schemas.unknown_kind_message(kind), pointer + "/kind")))
            continue
        seen.add(kind)
        out.extend((record_file, f) for f in schemas.validate(kind, record, pointer))
    yield from seen


def cross_check(loaded: LoadedProject) -> Iterator[tuple[RecordFile, Finding]]:
    project, schemas, index = loaded.project, loaded.schemas, loaded.index
    icons = frozenset(load_icon_specs(project))
    yield from xrefs.check_duplicates(index)
    for kind in sorted(index.files_by_kind):
        sites = schemas.sites(kind)
        yield from xrefs.check_records(index, kind, sites, icons, project.root)
    yield from xrefs.check_counts(index)
    if any(p.name != "icons.json" and p.suffix in (".json", ".yaml", ".yml") for p in project.layouts.glob("*")):
        yield from _layout_findings(loaded)


def _layout_findings(loaded: LoadedProject) -> Iterator[tuple[RecordFile, Finding]]:
    """Layout checks, only when the project has layouts (keeps jinja2 out of plain checks)."""
    from pnp.layout import LayoutSet, check_layouts

    schemas = loaded.schemas
    layouts = LayoutSet(loaded.project.layouts, loaded.project.display, set(schemas.kind_uri))
    first_file = {kind: files[0] for kind, files in loaded.index.files_by_kind.items() if schemas.is_card(kind)}
    yield from check_layouts(layouts, schemas.properties, first_file)


def run_check(project: Project, options: CheckOptions) -> CheckResult:
    return check_project(project, options)[1]


def check_project(project: Project, options: CheckOptions) -> tuple[LoadedProject, CheckResult]:
    """The result, and the loaded records (a caller about to exit may skip freeing them)."""
    checked_paths = [p.resolve() for p in options.paths]
    extra = [p for p in checked_paths if not p.is_relative_to(project.records)]
    loaded = load_project_records(project, extra)
    problems = check_loaded(loaded, options, checked_paths)
    files = [f for f in loaded.files if _is_checked(f, checked_paths)]
    result = CheckResult(
        problems=tuple(problems),
        files=len(files),
        records=sum(len(f.records) for f in files),
        strict=options.strict,
    )
    return loaded, result


def _is_checked(record_file: RecordFile, checked_paths: list[Path]) -> bool:
    if not checked_paths:
        return True
    resolved = record_file.path.resolve()
    return any(resolved == p or resolved.is_relative_to(p) for p in checked_paths)


def check_loaded(
    loaded: LoadedProject, options: CheckOptions, checked_paths: list[Path] | None = None
) -> list[Problem]:
    """Every problem of a loaded project, located, filtered and sorted."""
    checked = checked_paths or []
    all_findings = list(loaded.findings)
    all_findings.extend(cross_check(loaded))
    if options.render:
        from pnp.build import render_findings

        all_findings.extend(render_findings(loaded))
    problems: list[Problem] = []
    for record_file, finding in all_findings:
        if finding.code in options.ignore or (options.select and finding.code not in options.select):
            continue
        if _is_checked(record_file, checked):
            problems.append(record_file.locate(finding))
    problems.sort(key=Problem.sort_key)
    return problems
