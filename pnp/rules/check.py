"""The rules over a loaded project: schemas -> references -> counts -> located problems.

It draws nothing and imports nothing that draws: what drawing finds is pnp.drawing's, and
pnp.verify composes both into what `pnp check` reports.
"""

from __future__ import annotations

import hashlib
import mmap
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import accumulate
from pathlib import Path
from typing import Any, NamedTuple

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
from pnp.project.records import RecordFile, read_elsewhere
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
    """What a child sends back about one file it read: its bytes, its parse and schema findings
    (the first `parsed` are the file's own parse findings) and what its file checks found, both
    located (offsets set); its record count, kinds (as pnp.project.loaded.file_kinds gives them)
    and the columns the index and reference checks read (pnp.project.recordfile.RecordFile.column);
    where its records start, and the SHA-256 of its bytes (the stored result's digest).
    A named tuple: a thousand of them are unpickled in C (a dataclass's state is set in Python)."""

    raw: bytes | None  # None: in the share's shared buffer (`Slots`), `size` bytes long
    size: int
    parsed: int
    findings: list[Finding]
    checks: list[Finding]
    records: int
    is_array: bool
    kinds: set[str]
    one_kind: bool
    columns: dict[str, list[Any]] | None
    items: list[int] | None
    digest: bytes


Reported = list[FileReport | None]  # None: a file that holds no records (see load_record_file)


class Slots:
    """A buffer shared with a forked child, a slot per file of its share as large as the file
    was when listed: the child puts the bytes it read there (a copy, where pickling them through
    the pipe cost ten times more); a file that grew since is sent in its report instead."""

    def __init__(self, share: list[tuple[Path, str]]) -> None:
        sizes = [_size(path) for path, _ in share]
        self.starts = [0, *accumulate(sizes)]
        self.buffer = mmap.mmap(-1, max(1, self.starts[-1]))  # anonymous, shared across fork

    def put(self, k: int, raw: bytes) -> bool:
        start, end = self.starts[k], self.starts[k + 1]
        if len(raw) > end - start:
            return False
        self.buffer[start : start + len(raw)] = raw
        return True

    def get(self, k: int, size: int) -> bytes:
        start = self.starts[k]
        return self.buffer[start : start + size]


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


Read = tuple[RecordFile, set[str], bool]  # a file, its known kinds, whether all its records are of one kind


class Validation:
    """The parse and schema findings of every record file of a loaded project, and what the
    checks that need no index find in each file (`xrefs.file_checks`).

    Loading hands each file to `read_here` as it is parsed, and forked children (see
    `validation_shares`) read, validate and check their share of the JSON files meanwhile,
    sending back what the project-wide checks need (`FileReport`): no file is parsed twice.
    Files loaded without it (pnp build's load) are validated on first use of `findings`.
    """

    def __init__(self, jobs: int = 1, min_bytes: int = PARALLEL_MIN_BYTES) -> None:
        self.jobs, self.min_bytes = jobs, min_bytes
        self.loaded: LoadedProject | None = None
        self._pending: list[tuple[Child[Reported], list[tuple[Path, str]], Slots]] = []
        self._context: tuple[Project, SchemaSet, FieldGuide, frozenset[str]] | None = None
        self._found: list[tuple[RecordFile, Finding]] = []
        self._checked: list[tuple[RecordFile, Finding]] = []
        self._validated: set[Path] = set()
        self._file_checked: set[Path] = set()

    @property
    def delegated(self) -> set[Path]:
        """The files whose file checks are done (the cross-checks skip those)."""
        return self._file_checked

    def start(
        self, project: Project, paths: list[tuple[Path, str]], schemas: SchemaSet, guide: FieldGuide
    ) -> set[Path]:
        """Fork the children that read shares of `paths`; the paths they take."""
        icons = frozenset(load_icon_specs(project))  # as LoadedProject.icons reads them
        self._context = (project, schemas, guide, icons)
        for share in validation_shares(paths, self.jobs, self.min_bytes):
            slots = Slots(share)
            self._pending.append((Child(_read_share, project, share, schemas, guide, icons, slots), share, slots))
        return {path for _, share, _ in self._pending for path, _ in share}

    def read_here(self, record_file: RecordFile, kinds: set[str], one_kind: bool) -> None:
        """Validate and check a file this process just loaded (the children work meanwhile)."""
        assert self._context is not None, "Validation.read_here before start"
        _, schemas, _, icons = self._context
        self._found.extend((record_file, f) for f in record_file.findings)
        for _ in _validate_file(schemas, record_file, self._found, (kinds, one_kind)):
            pass
        self._checked.extend(xrefs.file_checks(record_file, kinds, one_kind, schemas.sites, icons))
        if self._pending and record_file.raw:  # the stored result's digest, while the children work
            record_file.digest = hashlib.sha256(record_file.raw).digest()
        self._validated.add(record_file.path)
        self._file_checked.add(record_file.path)

    def collect(self) -> dict[Path, Read | None]:
        """The files the children read, with what they found (a failed child's share is read here)."""
        assert self._context is not None, "Validation.collect before start"
        project, _, guide, _ = self._context
        read: dict[Path, Read | None] = {}
        for child, share, slots in self._pending:
            reported = child.result()
            if reported is None:  # no fork, or the child failed: nothing is lost, it is done here
                read.update(self._read_share_here(share))
            else:
                for k, ((path, display), report) in enumerate(zip(share, reported, strict=True)):
                    raw = None if report is None else slots.get(k, report.size) if report.raw is None else report.raw
                    read[path] = (
                        None if report is None or raw is None else self._adopt(project, path, display, raw, report)
                    )
            slots.buffer.close()
        self._pending.clear()
        return read

    def _read_share_here(self, share: list[tuple[Path, str]]) -> dict[Path, Read | None]:
        assert self._context is not None
        project, schemas, guide, _ = self._context
        read: dict[Path, Read | None] = {}
        for path, display in share:
            record_file = load_record_file(project, path, display, guide)
            if record_file is None:
                read[path] = None
                continue
            kinds, one_kind = file_kinds(schemas.kind_uri, record_file.records)
            self.read_here(record_file, kinds, one_kind)
            read[path] = (record_file, kinds, one_kind)
        return read

    def _adopt(self, project: Project, path: Path, display: str, raw: bytes, report: FileReport) -> Read:
        """A file a child read, as this process's record file, with what the child found in it."""
        spec = project.declared_kind(path)
        columns = report.columns
        if columns is not None and "kind" not in columns and len(report.kinds) == 1 and report.one_kind:
            columns["kind"] = [next(iter(report.kinds))] * report.records  # one kind: not sent
        record_file = read_elsewhere(
            path,
            display,
            raw,
            report.findings[: report.parsed],
            report.records,
            report.is_array,
            columns,
            (spec.name, spec.id) if spec else None,
        )
        record_file.digest = report.digest
        if report.items is not None:
            record_file.adopt_item_starts(report.items)
        self._found.extend((record_file, f) for f in report.findings)
        self._checked.extend((record_file, f) for f in report.checks)
        self._validated.add(path)
        self._file_checked.add(path)
        return record_file, report.kinds, report.one_kind

    def findings(self) -> list[tuple[RecordFile, Finding]]:
        """Parse and schema findings of every file (those not yet validated are validated now)."""
        loaded = self.loaded
        assert loaded is not None, "Validation.findings before the project was loaded"
        for record_file in loaded.files:
            if record_file.path in self._validated:
                continue
            self._found.extend((record_file, f) for f in record_file.findings)
            for _ in _validate_file(loaded.schemas, record_file, self._found):
                pass
            self._validated.add(record_file.path)
        return self._found

    def file_checks(self) -> list[tuple[RecordFile, Finding]]:
        """What the file checks found in the files they ran on (`delegated`)."""
        return self._checked


def load_and_validate(
    project: Project, extra: Iterable[Path] = (), jobs: int = 1, min_bytes: int = PARALLEL_MIN_BYTES
) -> tuple[LoadedProject, Validation]:
    """Load the project (pnp.project), each file validated and checked as it is read, with
    `jobs` - 1 children forked before parsing to read their share of the files."""
    validation = Validation(jobs, min_bytes)
    loaded = load_project_records(project, extra, validation)
    validation.loaded = loaded
    return loaded, validation


CHILD_COST = 1.25  # a child's file costs more than this process's: its columns, record starts and findings go back


def validation_shares(paths: list[tuple[Path, str]], jobs: int, min_bytes: int) -> list[list[tuple[Path, str]]]:
    """The JSON files each of `jobs` - 1 children reads; this process reads the rest (and every
    YAML or table file), then cross-checks.

    Each file goes to the process with the least work so far (a child first on a tie), a
    child's bytes counting CHILD_COST times: so that the children end about when this process
    does. No children for projects under `min_bytes`, where forking costs more than it saves,
    or where there is no fork.
    """
    if jobs <= 1 or not can_fork() or not paths:
        return []
    json_files = [(path, display, _size(path)) for path, display in paths if path.suffix.lower() == ".json"]
    if min_bytes and sum(size for _, _, size in json_files) < min_bytes:
        return []
    loads = [0.0] * jobs  # the children's, then this process's
    shares: list[list[tuple[Path, str]]] = [[] for _ in range(jobs - 1)]
    for path, display, size in json_files:
        k = loads.index(min(loads))
        if k < jobs - 1:
            shares[k].append((path, display))
            loads[k] += max(1, size) * CHILD_COST
        else:
            loads[k] += max(1, size)
    return [share for share in shares if share]


def _read_share(
    project: Project,
    share: list[tuple[Path, str]],
    schemas: SchemaSet,
    guide: FieldGuide,
    icons: frozenset[str],
    slots: Slots | None = None,
) -> Reported:
    """Each file read, validated and checked (xrefs.file_checks), its findings located here
    (offsets set), with the columns the main process's index and reference checks read."""
    reported: Reported = []
    id_fields = sorted({spec.id for spec in project.kinds.values()})
    for k, (path, display) in enumerate(share):
        record_file = load_record_file(project, path, display, guide)
        if record_file is None:
            reported.append(None)
            continue
        records = record_file.records
        kinds, one_kind = file_kinds(schemas.kind_uri, records)
        found = [(record_file, f) for f in record_file.findings]
        for _ in _validate_file(schemas, record_file, found, (kinds, one_kind)):
            pass
        checked = list(xrefs.file_checks(record_file, kinds, one_kind, schemas.sites, icons))
        columns = None
        if one_kind or all(type(r) is dict for r in records):  # else: parsed in the main process if asked
            keys = {"id", *id_fields, *(k for kind in kinds for k in xrefs.column_keys(schemas.sites(kind)))}
            if not (one_kind and len(kinds) == 1):
                keys.add("kind")
            columns = {key: [r.get(key) for r in records] for key in sorted(keys)}
        raw = record_file.raw
        reported.append(
            FileReport(
                None if slots is not None and slots.put(k, raw) else raw,
                len(raw),
                len(record_file.findings),
                [replace(f, offset=record_file.offset_of(f)) for _, f in found],
                [replace(f, offset=record_file.offset_of(f)) for _, f in checked],
                len(records),
                record_file.is_array,
                kinds,
                one_kind,
                columns,
                record_file.item_starts(),  # the main process locates what the cross-checks find with them
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
