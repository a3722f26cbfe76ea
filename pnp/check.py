"""The check pipeline: records -> schemas -> xrefs -> one CheckResult. No reportlab here."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pnp import xrefs
from pnp.checkresult import CheckResult as CheckResult  # where it was before; re-exported
from pnp.config import ConfigError, Project
from pnp.fields import FieldGuide
from pnp.jsonfile import json_type, parse_bytes
from pnp.limits import cap_per_file
from pnp.paths import RefusedFile, read_regular
from pnp.problems import Finding, Problem
from pnp.records import RecordFile, iter_record_paths, load_file
from pnp.schemas import SchemaSet
from pnp.workers import Child, can_fork


@dataclass(frozen=True, slots=True)
class CheckOptions:
    paths: tuple[Path, ...] = ()
    ignore: frozenset[str] = frozenset()
    select: frozenset[str] = frozenset()
    strict: bool = False
    render: bool = True  # draw what has a layout, as pnp build does (--no-render: skip)
    render_cache: bool = True  # keep what drawing found in output/.pnp-cache/ (False: write nothing)
    jobs: int = 0  # processes that validate; 0: as many as useful (see auto_jobs)


@dataclass(slots=True)
class LoadedProject:
    """Everything the later stages need: files, schemas, the index. Shared with `pnp build`."""

    project: Project
    schemas: SchemaSet
    files: list[RecordFile]
    index: xrefs.Index
    kinds_by_file: dict[int, set[str]]
    _findings: list[tuple[RecordFile, Finding]]
    _pending: list[tuple[Child[list[list[Finding]]], list[tuple[Path, str]], dict[Path, RecordFile]]] = field(
        default_factory=list
    )

    def records(self, kind: str) -> Iterator[tuple[RecordFile, int, dict[str, Any]]]:
        return self.index.records_of(kind)

    @property
    def findings(self) -> list[tuple[RecordFile, Finding]]:
        """Parse and schema findings of every file; waits for validating children, if any."""
        for child, share, by_path in self._pending:
            reported = child.result() or _validate_share(
                self.schemas,
                share,
                self.project.max_file_bytes,
                FieldGuide.for_project(self.project, self.schemas),
                self.project.root,
            )
            for (path, _), file_findings in zip(share, reported, strict=True):
                self._findings.extend((by_path[path], f) for f in file_findings)
        self._pending.clear()
        return self._findings


def load_icon_specs(project: Project) -> dict[str, dict[str, Any]]:
    """layouts/icons.json: the inline icons text may use, by name (pnp check validates the file)."""
    path = project.layouts / "icons.json"
    try:  # a pipe or a link out of the project is never read (check_icons reports it)
        parsed = parse_bytes(read_regular(path, project.max_file_bytes))
    except RefusedFile:
        return {}
    icons = parsed.data.get("icons") if isinstance(parsed.data, dict) else None
    return icons if parsed.ok and isinstance(icons, dict) else {}


PARALLEL_MIN_BYTES = 4 * 1024 * 1024  # below this, forking costs more than it saves


def auto_jobs() -> int:
    """Two processes where there are two cores: past that, this process's own parsing and
    cross-checks dominate, and more children only share the validation."""
    return max(1, min(2, os.cpu_count() or 1))


def load_project_records(
    project: Project, extra: Iterable[Path] = (), jobs: int = 1, min_bytes: int = PARALLEL_MIN_BYTES
) -> LoadedProject:
    """Load and schema-validate every record file of the project (and `extra` paths).

    With `jobs` > 1, forked children validate files (see `_validation_shares`) while this
    process parses every file, indexes the records and cross-checks them; the children's
    findings, already located, are collected when `findings` is first read.
    """
    schemas = SchemaSet(project.schemas)
    if not project.records.exists():
        raise ConfigError(
            f"{project.display(project.records)}: the records folder does not exist; "
            "create it or set 'records' in [project] of pnp.toml"
        )
    paths = list(iter_record_paths([project.records, *extra], project.display, project.root))
    guide = FieldGuide.for_project(project, schemas)
    shares = _validation_shares(paths, jobs, min_bytes)
    children = [Child(_validate_share, schemas, share, project.max_file_bytes, guide, project.root) for share in shares]
    delegated = {path for share in shares for path, _ in share}
    files: list[RecordFile] = []
    findings: list[tuple[RecordFile, Finding]] = []
    kinds_by_file: dict[int, set[str]] = {}
    index = xrefs.Index()
    was_enabled = gc.isenabled()
    gc.disable()  # hundreds of thousands of small containers: collection only costs time here
    try:
        by_path: dict[Path, RecordFile] = {}
        for path, display in paths:
            mine = path not in delegated
            record_file = load_file(
                path, display, project.max_file_bytes, check_duplicates=mine, guide=guide, project=project.root
            )
            files.append(record_file)
            by_path[path] = record_file
            if mine:
                findings.extend((record_file, f) for f in record_file.findings)
                kinds = set(_validate_file(schemas, record_file, findings))
            else:
                kinds = _kinds_of(schemas, record_file.records)
            kinds_by_file[id(record_file)] = kinds
            index.add_file(record_file, kinds)
    finally:
        gc.freeze()  # the loaded records live to the end: later collections need not walk them
        if was_enabled:
            gc.enable()
    pending = [(child, share, by_path) for child, share in zip(children, shares, strict=True)]
    return LoadedProject(project, schemas, files, index, kinds_by_file, findings, pending)


def _validation_shares(paths: list[tuple[Path, str]], jobs: int, min_bytes: int) -> list[list[tuple[Path, str]]]:
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
    schemas: SchemaSet,
    share: list[tuple[Path, str]],
    max_bytes: int,
    guide: FieldGuide,
    root: Path | None = None,
) -> list[list[Finding]]:
    """Each file's parse and schema findings, located here (offsets set) to spare the main process."""
    reported: list[list[Finding]] = []
    for path, display in share:
        record_file = load_file(path, display, max_bytes, guide=guide, project=root)
        found = [(record_file, f) for f in record_file.findings]
        for _ in _validate_file(schemas, record_file, found):
            pass
        reported.append([replace(f, offset=record_file.offset_of(f)) for _, f in found])
    return reported


def _kinds_of(schemas: SchemaSet, records: list[Any]) -> set[str]:
    """The known kinds among a file's records: what `_validate_file` yields, without validating."""
    try:
        kinds = {record["kind"] for record in records}
    except (TypeError, KeyError):
        kinds = {k for r in records if type(r) is dict and type(k := r.get("kind")) is str}
    return {k for k in kinds if type(k) is str and k in schemas.kind_uri}


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
    # A record file that could not be read holds records no one knows: ids it may hold are not
    # called missing and its cards are not counted (its one located error says what to fix).
    unread = bool(_unread_files(loaded))
    yield from xrefs.check_duplicates(index)
    for kind in sorted(index.files_by_kind):
        sites = schemas.sites(kind)
        found = xrefs.check_records(index, kind, sites, icons, project.root)
        yield from (x for x in found if not (unread and x[1].code == "missing-reference"))
    if not unread:
        yield from xrefs.check_counts(index)
    yield from xrefs.check_copies(index)
    from pnp.projectfiles import check_schema_keywords

    yield from check_schema_keywords(project.schemas, project.display)
    if os.path.lexists(project.layouts / "icons.json"):
        from pnp.projectfiles import check_icons

        yield from check_icons(project)
    if has_layouts(project):
        yield from _layout_findings(loaded)
    elif index.files_by_kind:
        from pnp.projectfiles import no_layouts

        yield from no_layouts(loaded)

    yield from _sheet_findings(loaded)


def _unread_files(loaded: LoadedProject) -> list[RecordFile]:
    """Record files that gave no record because they could not be read or parsed (the error is
    already reported at them): what they hold is unknown."""
    from pnp.problems import severity_of

    return [f for f in loaded.files if not f.records and any(severity_of(x) == "error" for x in f.findings)]


def has_layouts(project: Project) -> bool:
    return any(p.name != "icons.json" and p.suffix in (".json", ".yaml", ".yml") for p in project.layouts.glob("*"))


def _sheet_findings(loaded: LoadedProject) -> Iterator[tuple[RecordFile, Finding]]:
    """Sheet file checks (pnp/sheets/spec.py), and kinds that fall back to a generic sheet."""
    from pnp.sheets.spec import SheetSet, check_sheets

    project, schemas = loaded.project, loaded.schemas
    sheets = SheetSet(project.sheets or project.root / "sheets", project.display)
    uncovered = {
        k: f[0] for k, f in loaded.index.files_by_kind.items() if k in schemas.kind_uri and not schemas.is_card(k)
    }
    yield from check_sheets(sheets, set(schemas.kind_uri), schemas.properties, uncovered)


def _layout_findings(loaded: LoadedProject) -> Iterator[tuple[RecordFile, Finding]]:
    """Layout checks, only when the project has layouts (keeps jinja2 out of plain checks)."""
    from pnp.layout import LayoutSet, check_layouts, unused_back_choices
    from pnp.projectfiles import check_layout_values

    schemas = loaded.schemas
    layouts = LayoutSet(loaded.project.layouts, loaded.project.display, set(schemas.kind_uri))
    first_file = {kind: files[0] for kind, files in loaded.index.files_by_kind.items() if schemas.is_card(kind)}
    yield from check_layouts(layouts, schemas.properties, first_file)
    yield from check_layout_values(layouts, loaded.project.root)
    yield from unused_back_choices(layouts, lambda kind: (record for _, _, record in loaded.records(kind)))


def run_check(project: Project, options: CheckOptions) -> CheckResult:
    return check_project(project, options)[1]


def check_project(project: Project, options: CheckOptions) -> tuple[LoadedProject, CheckResult]:
    """The result, and the loaded records (a caller about to exit may skip freeing them)."""
    checked_paths = [p.resolve() for p in options.paths]
    extra = [p for p in checked_paths if not p.is_relative_to(project.records)]
    if options.jobs:  # asked for: used whatever the project's size
        loaded = load_project_records(project, extra, options.jobs, min_bytes=0)
    else:
        loaded = load_project_records(project, extra, auto_jobs())
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
    cross = list(cross_check(loaded))  # first: validating children, if any, work meanwhile
    problems = _located([*loaded.findings, *cross], options, checked)
    if options.render and has_layouts(loaded.project):
        from pnp.diagnose import render_findings

        drawn = render_findings(loaded, options.render_cache)
        problems.extend(not_found_before(problems, _located(drawn, options, checked)))
    sheet_errors = any(p.code.startswith("sheet-") and p.severity == "error" for p in problems)
    if options.render and not sheet_errors:  # broken sheet files: laying them out only repeats that
        from pnp.diagnose import sheet_render_findings

        laid_out = sheet_render_findings(loaded, options.render_cache)
        problems.extend(not_found_before(problems, _located(laid_out, options, checked)))
    if loaded.project.languages[1:]:  # catalogs per language (pnp.translate; drawn unless --no-render)
        from pnp.translate import translation_findings

        problems.extend(_located(translation_findings(loaded, options.render), options, checked))
    problems.sort(key=Problem.sort_key)
    return cap_per_file(problems)


def not_found_before(problems: list[Problem], drawn: list[Problem]) -> list[Problem]:
    """What only drawing finds: a code already reported at the same place, or inside it (the
    static check named the font family's `regular` file where drawing met the element's
    `font`), is not reported twice."""
    found = {(p.file, p.line, p.column, p.code) for p in problems}
    inside: dict[tuple[str, str], list[str]] = {}
    for p in problems:
        if p.pointer:
            inside.setdefault((p.file, p.code), []).append(p.pointer)

    def met_before(d: Problem) -> bool:
        if (d.file, d.line, d.column, d.code) in found:
            return True
        prefix = d.pointer + "/"
        return bool(d.pointer) and any(at.startswith(prefix) for at in inside.get((d.file, d.code), ()))

    return [d for d in drawn if not met_before(d)]


def _located(
    findings: Iterable[tuple[RecordFile, Finding]], options: CheckOptions, checked: list[Path]
) -> list[Problem]:
    problems: list[Problem] = []
    for record_file, finding in findings:
        if finding.code in options.ignore or (options.select and finding.code not in options.select):
            continue
        if _is_checked(record_file, checked):
            problems.append(record_file.locate(finding))
    return problems
