"""Reading a project's record files for a check: each file parsed, validated against its
schema and checked on its own (xrefs.file_checks) by one process only.

On a large project forked children read their share of the JSON files while this process
reads the rest; each child sends back what the project-wide checks need (`FileReport`): the
records themselves stay in the child, and are parsed here only if something asks for them.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import mmap
import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import accumulate, repeat
from pathlib import Path
from typing import Any, NamedTuple

from pnp.core.problems import Finding
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
from pnp.project.records import RecordFile, parse_later, read_elsewhere
from pnp.project.schemas import SchemaSet
from pnp.rules import xrefs

PARALLEL_MIN_BYTES = 4 * 1024 * 1024  # below this, forking costs more than it saves


MAX_AUTO_JOBS = 4  # past four processes, what runs in this one alone (start-up, the index) dominates


def auto_jobs() -> int:
    """A process per core, up to MAX_AUTO_JOBS: the children share the reading of the files."""
    return max(
        1, min(MAX_AUTO_JOBS, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    )


class FileReport(NamedTuple):
    """What a child sends back about one file it read: its bytes, its parse and schema findings
    (the first `parsed` are the file's own parse findings) and what its file checks found, both
    located (offsets set); its record count, kinds (as pnp.project.loaded.file_kinds gives them)
    and the columns the index and reference checks read (pnp.project.recordfile.RecordFile.column),
    and where its records start (its SHA-256 is taken later: Validation.take_digests).
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


Reported = list[FileReport | None]  # None: a file that holds no records (see load_record_file)


class Slots:
    """A buffer shared with a forked child, a slot per file of its share as large as the file
    was when listed: the child puts the bytes it read there (a copy, where pickling them through
    the pipe cost ten times more); a file that grew since is sent in its report instead."""

    def __init__(self, share: list[tuple[Path, str]], max_bytes: int) -> None:
        sizes = [min(_size(path), max_bytes) for path, _ in share]  # a bigger file is refused unread
        self.starts = [0, *accumulate(sizes)]
        self.buffer: mmap.mmap | None = None
        with contextlib.suppress(OSError, ValueError):  # no room for it: the bytes go through the pipe
            self.buffer = mmap.mmap(-1, max(1, self.starts[-1]))  # anonymous, shared across fork

    def put(self, k: int, raw: bytes) -> bool:
        start, end = self.starts[k], self.starts[k + 1]
        if self.buffer is None or len(raw) > end - start:
            return False
        self.buffer[start : start + len(raw)] = raw
        return True

    def close(self) -> None:
        if self.buffer is not None:
            self.buffer.close()

    def get(self, k: int, size: int) -> bytes:
        assert self.buffer is not None, "Slots.get of a file that was not put"
        start = self.starts[k]
        return self.buffer[start : start + size]

    def view(self, k: int, size: int) -> memoryview:
        """The bytes `get` gives, not copied (the buffer stays open while a view is alive)."""
        assert self.buffer is not None, "Slots.view of a file that was not put"
        start = self.starts[k]
        return memoryview(self.buffer)[start : start + size]


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

    def __init__(self, jobs: int = 1, min_bytes: int = PARALLEL_MIN_BYTES, forget: bool = False) -> None:
        self.jobs, self.min_bytes = jobs, min_bytes
        self.loaded: LoadedProject | None = None
        self._pending: list[tuple[Child[Reported], list[tuple[Path, str]], Slots]] = []
        self._context: tuple[Project, SchemaSet, FieldGuide, frozenset[str]] | None = None
        self._found: list[tuple[RecordFile, Finding]] = []
        self._checked: list[tuple[RecordFile, Finding]] = []
        self._validated: set[Path] = set()
        self._file_checked: set[Path] = set()
        self._forked = False
        self._mine: list[RecordFile] = []  # the JSON files this process read while children read others
        self._hasher: tuple[Child[list[bytes]], list[RecordFile]] | None = None
        self._forget = False
        self._id_fields: list[str] = []
        self.forget = forget  # drop the records of a file once checked where nothing draws them

    @property
    def delegated(self) -> set[Path]:
        """The files whose file checks are done (the cross-checks skip those)."""
        return self._file_checked

    def start(
        self,
        project: Project,
        paths: list[tuple[Path, str]],
        schemas: SchemaSet,
        guide: FieldGuide,
        sizes: dict[Path, int] | None = None,
    ) -> set[Path]:
        """Fork the children that read shares of `paths` (weighed by `sizes`, else by a stat of
        each); the paths they take."""
        icons = frozenset(load_icon_specs(project))  # as LoadedProject.icons reads them
        self._context = (project, schemas, guide, icons)
        self._id_fields = sorted({spec.id for spec in project.kinds.values()})
        self._forget = self.forget and not has_layouts(project)
        self._forked = False
        for share in validation_shares(paths, self.jobs, self.min_bytes, sizes):
            self._forked = True
            slots = Slots(share, project.max_file_bytes)
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
        if self._pending and record_file.raw and record_file.locator is None:
            self._mine.append(record_file)  # hashed once the children are done (see collect)
        self._validated.add(record_file.path)
        self._file_checked.add(record_file.path)
        if self._forget and record_file.locator is None and record_file.raw and record_file.count:
            self._forget_records(record_file, kinds, one_kind)

    def _forget_records(self, record_file: RecordFile, kinds: set[str], one_kind: bool) -> None:
        """Keep only the columns of a JSON file whose records nothing will draw (a check without
        layouts): 100,000 records held to the end cost a fifth of such a check in page faults.
        They are parsed again from `raw` if a rule asks for them (pnp.project.records.parse_later)."""
        assert self._context is not None
        project, schemas, _, _ = self._context
        columns = _columns(record_file.records, kinds, one_kind, schemas, self._id_fields)
        if columns is None:
            return
        spec = project.declared_kind(record_file.path)
        record_file.forget_records(
            _with_kinds(columns, kinds, record_file.count), parse_later((spec.name, spec.id) if spec else None)
        )

    def collect(self) -> dict[Path, Read | None]:
        """The files the children read, with what they found (a failed child's share is read here)."""
        assert self._context is not None, "Validation.collect before start"
        project, _, guide, _ = self._context
        read: dict[Path, Read | None] = {}
        buffers: list[tuple[RecordFile, bytes | memoryview]] = []  # what the hasher digests
        for child, share, slots in self._pending:
            reported = child.result()
            if reported is None:  # no fork, or the child failed: nothing is lost, it is done here
                read.update(self._read_share_here(share))  # (hashed with this process's files)
                slots.close()
                continue
            for k, ((path, display), report) in enumerate(zip(share, reported, strict=True)):
                if report is None:
                    read[path] = None
                    continue
                record_file, kinds, one_kind = self._adopt(project, path, display, report.raw or b"", report)
                if report.raw is None:  # in the shared buffer, left there until used (see RecordFile.raw)
                    record_file.fetch_later(report.size, functools.partial(slots.get, k, report.size))
                buffers.append((record_file, slots.view(k, report.size) if report.raw is None else report.raw))
                read[path] = record_file, kinds, one_kind
        self._pending.clear()
        buffers += [(f, f.raw) for f in self._mine]
        if buffers:  # digested on the core the children leave idle while this process indexes
            self._hasher = (Child(_digests, [raw for _, raw in buffers]), [f for f, _ in buffers])
        self._mine = []
        return read

    def take_digests(self) -> None:
        """Give each JSON file read the SHA-256 of its bytes, as `collect`'s forked hasher found it
        (the stored result's digest: pnp.verify.cache); without it, the digest is taken when needed."""
        if self._hasher is None:
            return
        hasher, files = self._hasher
        self._hasher = None
        digests = hasher.result()
        if digests is not None and len(digests) == len(files):
            for record_file, digest in zip(files, digests, strict=True):
                record_file.digest = digest

    def leave_digests(self) -> None:
        """Forget the hasher `collect` forked (in a forked copy of this process: its answer goes to
        the process that forked it, which takes it with `take_digests`)."""
        self._hasher = None

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
        columns = None if report.columns is None else _with_kinds(report.columns, report.kinds, report.records)
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
        if report.items is not None:
            record_file.adopt_item_starts(report.items)
        self._found.extend((record_file, f) for f in report.findings)
        self._checked.extend((record_file, f) for f in report.checks)
        self._validated.add(path)
        self._file_checked.add(path)
        return record_file, report.kinds, report.one_kind

    def second_part(self, loaded: LoadedProject) -> frozenset[int]:
        """The files (id() of each) whose cross-checks and locating a forked helper takes once the
        index is made: none unless children read files (a large project, or `--jobs`); else about
        half the bytes, this process keeping a little less (it also runs the project-wide checks)."""
        if not self._forked or self.jobs <= 1:
            return frozenset()
        loads = [0.0, 0.0]  # the helper's, this process's
        part: set[int] = set()
        for record_file in loaded.files:
            size = max(1, record_file.size or record_file.count * 100)
            if loads[0] <= loads[1]:
                part.add(id(record_file))
                loads[0] += size
            else:
                loads[1] += size * MAIN_COST
        return frozenset(part)

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
    project: Project,
    extra: Iterable[Path] = (),
    jobs: int = 1,
    min_bytes: int = PARALLEL_MIN_BYTES,
    forget: bool = False,
) -> tuple[LoadedProject, Validation]:
    """Load the project (pnp.project), each file validated and checked as it is read, with
    `jobs` - 1 children forked before parsing to read their share of the files; `forget`: keep
    only columns of the records where no layout will draw them (see Validation._forget_records)."""
    validation = Validation(jobs, min_bytes, forget)
    loaded = load_project_records(project, extra, validation)
    validation.loaded = loaded
    return loaded, validation


MAIN_COST = 1.15  # after the index: this process also runs the project-wide checks and waits for the helper
CHILD_COST = 1.25  # a child's file costs more than this process's: its columns, record starts and findings go back


def validation_shares(
    paths: list[tuple[Path, str]], jobs: int, min_bytes: int, sizes: dict[Path, int] | None = None
) -> list[list[tuple[Path, str]]]:
    """The JSON files each of `jobs` - 1 children reads; this process reads the rest (and every
    YAML or table file), then cross-checks.

    Each file goes to the process with the least work so far (a child first on a tie), a
    child's bytes counting CHILD_COST times: so that the children end about when this process
    does. No children for projects under `min_bytes`, where forking costs more than it saves,
    or where there is no fork.
    """
    if jobs <= 1 or not can_fork() or not paths:
        return []
    known = sizes or {}
    json_files = [
        (path, display, known[path] if path in known else _size(path))
        for path, display in paths
        if path.suffix.lower() == ".json"
    ]
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
        columns = _columns(records, kinds, one_kind, schemas, id_fields)
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
                # found here already where the file has findings: the main process locates what
                # the cross-checks find with them (elsewhere, found there when it has to)
                record_file.item_starts() if found or checked else None,
            )
        )
    return reported


def _digests(raws: list[bytes | memoryview]) -> list[bytes]:
    """The SHA-256 of each (in a forked child: hashlib runs in C, tens of megabytes)."""
    return [hashlib.sha256(raw).digest() for raw in raws]


def _columns(
    records: list[Any], kinds: set[str], one_kind: bool, schemas: SchemaSet, id_fields: list[str]
) -> dict[str, list[Any]] | None:
    """What the index and the reference checks read of a file's records (RecordFile.column): the
    ids, the kinds (unless one kind: see Validation._adopt) and the top-level references. None
    where an item is no object: such a file is parsed again if its records are asked for."""
    if not (one_kind or all(type(r) is dict for r in records)):
        return None
    keys = {"id", *id_fields, *(k for kind in kinds for k in xrefs.column_keys(schemas.sites(kind)))}
    if not (one_kind and len(kinds) == 1):
        keys.add("kind")
    return {key: list(map(dict.get, records, repeat(key))) for key in sorted(keys)}


def _with_kinds(columns: dict[str, list[Any]], kinds: set[str], count: int) -> dict[str, list[Any]]:
    """`columns` with the `kind` column `_columns` leaves out when every record has the one kind."""
    if "kind" not in columns:
        (kind,) = kinds
        columns["kind"] = [kind] * count
    return columns


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
