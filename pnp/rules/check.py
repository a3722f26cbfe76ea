"""The rules over a loaded project: schemas -> references -> counts -> located problems.

It draws nothing and imports nothing that draws: what drawing finds is pnp.drawing's, and
pnp.verify composes both into what `pnp check` reports.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pnp.core.filefacts import learned, start_learning, take
from pnp.core.limits import cap_per_file
from pnp.core.problems import Finding, Problem, severity_of
from pnp.core.problems import not_found_before as not_found_before  # re-exported
from pnp.core.workers import Child
from pnp.project.config import Project
from pnp.project.loaded import LoadedProject, has_layouts
from pnp.project.records import RecordFile
from pnp.rules import xrefs
from pnp.rules.result import CheckResult as CheckResult  # where it was before; re-exported
from pnp.rules.validation import Validation as Validation  # re-exported
from pnp.rules.validation import auto_jobs, load_and_validate


@dataclass(frozen=True, slots=True)
class CheckOptions:
    paths: tuple[Path, ...] = ()
    ignore: frozenset[str] = frozenset()
    select: frozenset[str] = frozenset()
    strict: bool = False
    render: bool = True  # draw what has a layout, as pnp build does (--no-render: skip)
    render_cache: bool = True  # keep what drawing found in output/.pnp-cache/ (False: write nothing)
    jobs: int = 0  # processes that validate; 0: as many as useful (see auto_jobs)


def cross_check(loaded: LoadedProject, validation: Validation) -> Iterator[tuple[RecordFile, Finding]]:
    """What no schema sees: duplicate ids, references, counts, copies, and the project's other
    files (schema keywords, icons.json, layouts, sheet files) checked statically."""
    yield from file_cross_checks(loaded, validation)
    yield from project_cross_checks(loaded, validation)


def file_cross_checks(
    loaded: LoadedProject, validation: Validation, only: Callable[[RecordFile], bool] | None = None
) -> Iterator[tuple[RecordFile, Finding]]:
    """The cross-checks of each record file's records (references, icons, assets, consistency),
    with the file checks run as they were read; `only`: these files alone."""
    project, schemas, index = loaded.project, loaded.schemas, loaded.index
    icons = frozenset(loaded.icons)
    # A record file that could not be read holds records no one knows: ids it may hold are not
    # called missing (its one located error says what to fix).
    unread = bool(_unread_files(loaded))
    for kind in sorted(index.files_by_kind):
        sites = schemas.sites(kind)
        found = xrefs.check_records(index, kind, sites, icons, project.root, validation.delegated, only)
        yield from (x for x in found if not (unread and x[1].code == "missing-reference"))
    yield from (x for x in validation.file_checks() if only is None or only(x[0]))


def project_cross_checks(loaded: LoadedProject, validation: Validation) -> Iterator[tuple[RecordFile, Finding]]:
    """The cross-checks of the project as a whole: duplicate ids, counts, copies, and its other
    files (schema keywords, icons.json, layouts, sheet files) checked statically."""
    project, index = loaded.project, loaded.index
    yield from xrefs.check_duplicates(index)
    if not _unread_files(loaded):  # cards in a file that could not be read are not counted
        faces = None
        if has_layouts(project):  # a layout's `expand` makes several faces of one record
            from pnp.project.facecount import FaceCounter

            faces = FaceCounter(loaded.layouts, loaded.lookup)
        yield from xrefs.check_counts(index, faces)
    yield from xrefs.check_copies(index, validation.delegated)
    from pnp.rules.projectfiles import check_schema_keywords

    yield from check_schema_keywords(project.schemas, project.display, project.root)
    if project.kinds:
        from pnp.rules.projectfiles import check_declared_schemas

        yield from check_declared_schemas(project)
    if os.path.lexists(project.layouts / "icons.json"):
        from pnp.rules.projectfiles import check_icons

        yield from check_icons(project)
    if has_layouts(project):
        yield from _layout_findings(loaded)
    elif index.files_by_kind and not project.data_only:
        from pnp.rules.projectfiles import no_layouts

        yield from no_layouts(loaded, validation.findings())
    yield from _sheet_findings(loaded)


def _unread_files(loaded: LoadedProject) -> list[RecordFile]:
    """Record files that gave no record because they could not be read or parsed (the error is
    already reported at them): what they hold is unknown."""
    return [f for f in loaded.files if not f.count and any(severity_of(x) == "error" for x in f.findings)]


def _sheet_findings(loaded: LoadedProject) -> Iterator[tuple[RecordFile, Finding]]:
    """Sheet file checks (pnp/project/sheetfiles.py), and kinds that fall back to a generic sheet."""
    if loaded.project.data_only or not loaded.lays_out_sheets:  # nothing to print: no sheet to warn about
        return
    from pnp.project.sheetfiles import check_sheets

    schemas = loaded.schemas
    uncovered = {
        k: f[0] for k, f in loaded.index.files_by_kind.items() if k in schemas.kind_uri and not schemas.is_card(k)
    }
    yield from check_sheets(loaded.sheets, set(schemas.kind_uri), schemas.properties, uncovered)


def _layout_findings(loaded: LoadedProject) -> Iterator[tuple[RecordFile, Finding]]:
    """Layout checks, only when the project has layouts (keeps jinja2 out of plain checks)."""
    from pnp.project.layout import check_layouts, unused_back_choices
    from pnp.project.refkinds import unknown_ref_kinds
    from pnp.rules.projectfiles import check_layout_values

    schemas, layouts = loaded.schemas, loaded.layouts
    first_file = {kind: files[0] for kind, files in loaded.index.files_by_kind.items() if schemas.is_card(kind)}
    yield from check_layouts(layouts, schemas.properties, first_file)
    yield from unknown_ref_kinds(layouts, set(schemas.kind_uri) | set(loaded.index.files_by_kind))
    yield from check_layout_values(layouts, loaded.project.root)
    yield from unused_back_choices(layouts, lambda kind: (record for _, _, record in loaded.records(kind)))


def load_for_check(project: Project, options: CheckOptions) -> tuple[LoadedProject, Validation, list[Path]]:
    """The project loaded as `options` ask (the paths checked, validating children), and the
    resolved paths whose problems are reported."""
    checked_paths = [p.resolve() for p in options.paths]
    extra = [p for p in checked_paths if not p.is_relative_to(project.records)]
    if options.jobs:  # asked for: used whatever the project's size
        loaded, validation = load_and_validate(project, extra, options.jobs, min_bytes=0, forget=True)
    else:
        loaded, validation = load_and_validate(project, extra, auto_jobs(), forget=True)
    return loaded, validation, checked_paths


def result_of(
    loaded: LoadedProject, problems: list[Problem], options: CheckOptions, checked: list[Path]
) -> CheckResult:
    """The reporters' input: the problems, and the files and records checked."""
    files = [f for f in loaded.files if is_checked(f, checked)]
    return CheckResult(
        problems=tuple(problems),
        files=len(files),
        records=sum(f.count for f in files),
        strict=options.strict,
    )


def is_checked(record_file: RecordFile, checked_paths: list[Path]) -> bool:
    if not checked_paths:
        return True
    resolved = record_file.path.resolve()
    return any(resolved == p or resolved.is_relative_to(p) for p in checked_paths)


def rule_problems(
    loaded: LoadedProject, validation: Validation | None, options: CheckOptions, checked: list[Path] | None = None
) -> list[Problem]:
    """What the rules find (parse, schema, cross-checks), located and filtered, not yet sorted:
    the caller adds what drawing finds (pnp.verify), then calls `finish`."""
    if validation is None:
        validation = Validation()
        validation.loaded = loaded
    part = validation.second_part(loaded)
    if not part:
        cross = list(cross_check(loaded, validation))
        validation.take_digests()
        return located([*validation.findings(), *cross], options, checked or [])
    # A large project: a forked helper checks and locates the problems of the files in `part`
    # meanwhile (it inherits the index), this process those of the rest and the project-wide ones.
    helper = Child(_part_in_child, loaded, validation, options, checked or [], part)
    problems = _part_problems(loaded, validation, options, checked or [], part, mine=False)
    problems += located(list(project_cross_checks(loaded, validation)), options, checked or [])
    validation.take_digests()
    answer = helper.result()
    if answer is None:
        return problems + _part_problems(loaded, validation, options, checked or [], part)
    take(answer[1])  # what the helper learned of files (which images decode)
    return problems + answer[0]


def _part_in_child(
    loaded: LoadedProject, validation: Validation, options: CheckOptions, checked: list[Path], part: frozenset[int]
) -> tuple[list[Problem], list[list[Any]]]:
    """`_part_problems` in a forked helper, with the file facts it learned (pnp.core.filefacts)."""
    start_learning()
    return _part_problems(loaded, validation, options, checked, part), learned()


def _part_problems(
    loaded: LoadedProject,
    validation: Validation,
    options: CheckOptions,
    checked: list[Path],
    part: frozenset[int],
    mine: bool = True,
) -> list[Problem]:
    """The parse, schema and per-file cross-check problems of the files in `part` (id() of each;
    `mine` False: of the other files), located."""

    def only(record_file: RecordFile) -> bool:
        return (id(record_file) in part) is mine

    found = [x for x in validation.findings() if only(x[0])]
    return located([*found, *file_cross_checks(loaded, validation, only)], options, checked)


def finish(problems: list[Problem]) -> list[Problem]:
    """Sorted, and capped per file (pnp.core.limits)."""
    problems.sort(key=Problem.sort_key)
    return cap_per_file(problems)


def broken_records(findings: Iterable[tuple[RecordFile, Finding]]) -> set[tuple[int, int]]:
    """(file id, record index) of records with parse or schema errors; index -1: the whole file.
    Drawing skips them: what drawing them finds follows from that error."""
    broken: set[tuple[int, int]] = set()
    for record_file, finding in findings:
        if severity_of(finding) != "error":
            continue
        parts = finding.pointer.split("/")
        if not record_file.is_array:
            broken.add((id(record_file), 0))
        elif len(parts) > 1 and parts[1].isdigit():
            broken.add((id(record_file), int(parts[1])))
        else:
            broken.add((id(record_file), -1))
    return broken


def located(
    findings: Iterable[tuple[RecordFile, Finding]], options: CheckOptions, checked: list[Path]
) -> list[Problem]:
    """Findings as problems at their line and column, without the codes ignored or the files not
    checked; a file's findings located together, then what locating them made dropped."""
    by_file: dict[int, tuple[RecordFile, list[Finding]]] = {}
    for record_file, finding in findings:
        if finding.code in options.ignore or (options.select and finding.code not in options.select):
            continue
        if is_checked(record_file, checked):
            by_file.setdefault(id(record_file), (record_file, []))[1].append(finding)
    problems: list[Problem] = []
    for record_file, found in by_file.values():
        problems.extend(map(record_file.locate, found))
        record_file.forget_text()
    return problems
