"""The rules over a loaded project: schemas -> references -> counts -> located problems.

It draws nothing and imports nothing that draws: what drawing finds is pnp.drawing's, and
pnp.verify composes both into what `pnp check` reports.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from pnp.core.limits import cap_per_file
from pnp.core.problems import Finding, Problem, severity_of
from pnp.core.problems import not_found_before as not_found_before  # re-exported
from pnp.core.workers import Child, can_fork
from pnp.project.config import Project
from pnp.project.fields import FieldGuide
from pnp.project.jsonfile import json_type
from pnp.project.loaded import (
    LoadedProject,
    file_kinds,
    has_layouts,
    load_icon_specs,
    load_project_records,
    load_record_file,
)
from pnp.project.records import RecordFile
from pnp.project.schemas import SchemaSet
from pnp.rules import xrefs
from pnp.rules.result import CheckResult as CheckResult  # where it was before; re-exported


@dataclass(frozen=True, slots=True)
class CheckOptions:
    paths: tuple[Path, ...] = ()
    ignore: frozenset[str] = frozenset()
    select: frozenset[str] = frozenset()
    strict: bool = False
    render: bool = True  # draw what has a layout, as pnp build does (--no-render: skip)
    render_cache: bool = True  # keep what drawing found in output/.pnp-cache/ (False: write nothing)
    jobs: int = 0  # processes that validate; 0: as many as useful (see auto_jobs)


PARALLEL_MIN_BYTES = 4 * 1024 * 1024  # below this, forking costs more than it saves


def auto_jobs() -> int:
    """Two processes where there are two cores: past that, this process's own parsing and
    cross-checks dominate, and more children only share the validation."""
    return max(1, min(2, os.cpu_count() or 1))


class FileReport(NamedTuple):
    """What a validating child sends back about one file: its parse and schema findings, what
    its file checks found (both located: offsets set), where its records start, and the size
    and SHA-256 of the bytes it read (for the stored result's digest: pnp.verify.cache).
    A named tuple: a thousand of them are unpickled in C (a dataclass's state is set in Python)."""

    findings: list[Finding]
    checks: list[Finding]
    items: list[int] | None = None
    size: int = -1
    digest: bytes | None = None


Reported = list[FileReport]


class Validation:
    """The parse and schema findings of every record file of a loaded project.

    Files given to forked children (see `validation_shares`) are validated there while this
    process loads and cross-checks; the rest are validated here, on first use of `findings`.
    The children also run the rules that need no index on their files (`xrefs.file_checks`):
    `file_checks` gives what they found, and the cross-checks here skip those files (`delegated`).
    """

    def __init__(self, jobs: int = 1, min_bytes: int = PARALLEL_MIN_BYTES) -> None:
        self.jobs, self.min_bytes = jobs, min_bytes
        self.loaded: LoadedProject | None = None
        self._pending: list[tuple[Child[Reported], list[tuple[Path, str]]]] = []
        self._delegated: set[Path] = set()
        self._findings: list[tuple[RecordFile, Finding]] | None = None
        self._checked: list[tuple[RecordFile, Finding]] = []
        self._icons: frozenset[str] = frozenset()

    @property
    def delegated(self) -> set[Path]:
        """The files whose findings and file checks children report."""
        return self._delegated

    def start(self, project: Project, paths: list[tuple[Path, str]]) -> set[Path]:
        """Fork the children that validate shares of `paths`; the paths they take."""
        shares = validation_shares(paths, self.jobs, self.min_bytes)
        if not shares:
            return set()
        schemas = SchemaSet(project.schemas, project.kinds, project.root)
        guide = FieldGuide.for_project(project, schemas)
        self._icons = frozenset(load_icon_specs(project))  # as LoadedProject.icons reads them
        for share in shares:
            child = Child(_validate_share, schemas, share, project, guide, self._icons)
            self._pending.append((child, share))
        self._delegated = {path for share in shares for path, _ in share}
        return self._delegated

    def findings(self) -> list[tuple[RecordFile, Finding]]:
        """Parse and schema findings of every file, this process's first, then the children's."""
        if self._findings is not None:
            return self._findings
        loaded = self.loaded
        assert loaded is not None, "Validation.findings before the project was loaded"
        found: list[tuple[RecordFile, Finding]] = []
        for record_file in loaded.files:
            if record_file.path in self._delegated:
                continue
            found.extend((record_file, f) for f in record_file.findings)
            for _ in _validate_file(loaded.schemas, record_file, found):
                pass
        by_path = {f.path: f for f in loaded.files}
        project = loaded.project
        for child, share in self._pending:
            reported = child.result() or _validate_share(
                loaded.schemas, share, project, FieldGuide.for_project(project, loaded.schemas), self._icons
            )
            for (path, _), report in zip(share, reported, strict=True):
                read_here = by_path.get(path)
                if read_here is None:  # no record file (pnp.project.loaded.load_record_file)
                    continue
                found.extend((read_here, f) for f in report.findings)
                self._checked.extend((read_here, f) for f in report.checks)
                if report.size == len(read_here.raw):  # the same bytes (else: changed since, not adopted)
                    read_here.digest = report.digest
                    if report.items is not None:
                        read_here.adopt_item_starts(report.items)
        self._pending.clear()
        self._findings = found
        return found

    def file_checks(self) -> list[tuple[RecordFile, Finding]]:
        """What the children's file checks found in their files (they are waited for)."""
        self.findings()
        return self._checked


def load_and_validate(
    project: Project, extra: Iterable[Path] = (), jobs: int = 1, min_bytes: int = PARALLEL_MIN_BYTES
) -> tuple[LoadedProject, Validation]:
    """Load the project (pnp.project) with `jobs` - 1 validating children forked before parsing."""
    validation = Validation(jobs, min_bytes)
    loaded = load_project_records(project, extra, lambda paths: validation.start(project, paths))
    validation.loaded = loaded
    return loaded, validation


def validation_shares(paths: list[tuple[Path, str]], jobs: int, min_bytes: int) -> list[list[tuple[Path, str]]]:
    """The files each of `jobs` - 1 children validates: all of them, split evenly.

    This process parses every file anyway (the cross-checks need the records) and then
    cross-checks, which takes about as long as validating everything. No children for projects
    under `min_bytes`, where forking costs more than it saves, or where there is no fork.
    """
    if jobs <= 1 or not can_fork() or not paths:
        return []
    if min_bytes and sum(os.stat(path).st_size for path, _ in paths if os.path.isfile(path)) < min_bytes:
        return []
    return [share for share in (paths[i :: jobs - 1] for i in range(jobs - 1)) if share]


def _validate_share(
    schemas: SchemaSet, share: list[tuple[Path, str]], project: Project, guide: FieldGuide, icons: frozenset[str]
) -> Reported:
    """Each file's parse and schema findings, and what its file checks find (xrefs.file_checks),
    located here (offsets set) to spare the main process."""
    reported: Reported = []
    for path, display in share:
        record_file = load_record_file(project, path, display, guide)
        if record_file is None:
            reported.append(FileReport([], []))
            continue
        found = [(record_file, f) for f in record_file.findings]
        kinds, one_kind = file_kinds(schemas.kind_uri, record_file.records)
        for _ in _validate_file(schemas, record_file, found, (kinds, one_kind)):
            pass
        checked = list(xrefs.file_checks(record_file, kinds, one_kind, schemas.sites, icons))
        raw = record_file.raw
        reported.append(
            FileReport(
                [replace(f, offset=record_file.offset_of(f)) for _, f in found],
                [replace(f, offset=record_file.offset_of(f)) for _, f in checked],
                record_file.item_starts(),  # the main process locates what the cross-checks find with them
                len(raw),
                hashlib.sha256(raw).digest(),
            )
        )
    return reported


def _validate_file(
    schemas: SchemaSet,
    record_file: RecordFile,
    out: list[tuple[RecordFile, Finding]],
    kinds_found: tuple[set[str], bool] | None = None,
) -> Iterator[str]:
    """Yield the kinds present; append schema findings. One Rust call for a clean one-kind file.
    `kinds_found`: what pnp.project.loaded.file_kinds gives for the file, when the caller has it."""
    records = record_file.records
    if not records:
        return
    source = record_file.as_read  # what the schema validates: the file's records as they are
    kinds, one_kind = kinds_found or file_kinds(schemas.kind_uri, records)
    if one_kind and len(kinds) == 1:  # every record an object of this one known kind
        (kind,) = kinds
        target = source if record_file.is_array else source[0]
        validator = schemas.array_validator(kind) if record_file.is_array else schemas.validator(kind)
        if validator.is_valid(target):
            yield kind
            return
        if record_file.is_array and kind in schemas.file_schema:  # the project's own file schema: one pass
            out.extend((record_file, f) for f in schemas.validate_array(kind, source))
            yield kind
            return
        if record_file.is_array:  # the records that fail, found by the fast check, then explained
            valid = list(map(schemas.validator(kind).is_valid, source))  # iter_errors costs 3x is_valid
            for i in [i for i, ok in enumerate(valid) if not ok]:
                out.extend((record_file, f) for f in schemas.validate(kind, source[i], f"/{i}"))
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
        out.extend((record_file, f) for f in schemas.validate(kind, source[i], pointer))
    yield from seen


def cross_check(loaded: LoadedProject, validation: Validation) -> Iterator[tuple[RecordFile, Finding]]:
    """What no schema sees: duplicate ids, references, counts, copies, and the project's other
    files (schema keywords, icons.json, layouts, sheet files) checked statically."""
    project, schemas, index = loaded.project, loaded.schemas, loaded.index
    icons = frozenset(loaded.icons)
    # A record file that could not be read holds records no one knows: ids it may hold are not
    # called missing and its cards are not counted (its one located error says what to fix).
    unread = bool(_unread_files(loaded))
    yield from xrefs.check_duplicates(index)
    for kind in sorted(index.files_by_kind):
        sites = schemas.sites(kind)
        found = xrefs.check_records(index, kind, sites, icons, project.root, validation.delegated)
        yield from (x for x in found if not (unread and x[1].code == "missing-reference"))
    if not unread:
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
    yield from validation.file_checks()  # last: the children work meanwhile


def _unread_files(loaded: LoadedProject) -> list[RecordFile]:
    """Record files that gave no record because they could not be read or parsed (the error is
    already reported at them): what they hold is unknown."""
    return [f for f in loaded.files if not f.records and any(severity_of(x) == "error" for x in f.findings)]


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
        loaded, validation = load_and_validate(project, extra, options.jobs, min_bytes=0)
    else:
        loaded, validation = load_and_validate(project, extra, auto_jobs())
    return loaded, validation, checked_paths


def result_of(
    loaded: LoadedProject, problems: list[Problem], options: CheckOptions, checked: list[Path]
) -> CheckResult:
    """The reporters' input: the problems, and the files and records checked."""
    files = [f for f in loaded.files if is_checked(f, checked)]
    return CheckResult(
        problems=tuple(problems),
        files=len(files),
        records=sum(len(f.records) for f in files),
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
    cross = list(cross_check(loaded, validation))  # first: validating children, if any, work meanwhile
    return located([*validation.findings(), *cross], options, checked or [])


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
    """Findings as problems at their line and column, without the codes ignored or the files not checked."""
    problems: list[Problem] = []
    for record_file, finding in findings:
        if finding.code in options.ignore or (options.select and finding.code not in options.select):
            continue
        if is_checked(record_file, checked):
            problems.append(record_file.locate(finding))
    return problems
