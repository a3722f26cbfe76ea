"""Two versions of a project side by side: records by kind and id, field by field (JSON pointers),
faces by their digests (pnp.drawing.faces), and the project's other files by content.

A face is changed when its digest is: its record, its layout (and every file the layout extends),
icons.json and the icon images, the fonts and images it draws, or a record it shows through `ref`.
So a layout colour changed marks every face of the kinds drawn with that layout, and nothing else.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from pnp.core.paths import RefusedFile, read_regular
from pnp.core.pointers import escape
from pnp.core.problems import ConfigError, Finding, Problem
from pnp.project.config import Project, load_project
from pnp.project.loaded import LoadedProject, load_project_records
from pnp.project.recordfile import RecordFile

Status = Literal["added", "removed", "changed"]
Record = dict[str, Any]
MAX_PROJECT_FILES = 20_000  # files of the folders compared by content (pnp.toml, schemas, layouts, sheets)
ABSENT: Any = object()  # a field one side does not have


@dataclass(frozen=True, slots=True)
class Version:
    """One version of the project, loaded: `label` names it in every report ("v1.2", "working tree")."""

    label: str
    loaded: LoadedProject
    problems: tuple[Problem, ...]  # errors reading its record files and layouts (they stop pnp diff)

    @property
    def project(self) -> Project:
        return self.loaded.project


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One field that differs: `before` or `after` is ABSENT where a side lacks the field."""

    pointer: str
    before: Any
    after: Any

    @property
    def status(self) -> Status:
        if self.before is ABSENT:
            return "added"
        return "removed" if self.after is ABSENT else "changed"


@dataclass(frozen=True, slots=True)
class RecordChange:
    kind: str
    id: str
    status: Status
    place: str  # FILE:LINE (or FILE:Sheet!C12) of the record: in the new version, or the old when removed
    title: str  # what a player calls it: its name field when it has one, else its id
    fields: tuple[FieldChange, ...] = ()


@dataclass(frozen=True, slots=True)
class FaceChange:
    """The faces of one record whose digest changed, and why: "record" (its data), "layout" (the
    layout, icons, fonts or images every face of the kind draws), "files" (an image or font the
    record names, or a record it shows)."""

    kind: str
    id: str
    status: Status
    title: str
    layout: str
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str  # relative to the project's folder, with "/"
    status: Status


@dataclass(frozen=True, slots=True)
class Diff:
    before: str
    after: str
    records: tuple[RecordChange, ...]
    faces: tuple[FaceChange, ...]
    files: tuple[FileChange, ...]

    @property
    def changed(self) -> bool:
        return bool(self.records or self.faces or self.files)


def load_version(root: Path, label: str) -> Version:
    """The project at `root` loaded; `problems`: what makes it unreadable (a pnp.toml that cannot
    be loaded raises ConfigError with its problems). Only what loses records or layouts counts: a
    record file or a layout that does not parse. Schema and reference errors are pnp check's to
    report, so that a release checked by an older pnp stays comparable under a stricter one."""
    project = load_project(explicit=root / "pnp.toml")
    loaded = load_project_records(project)
    found = [record_file.locate(finding) for record_file in loaded.files for finding in record_file.findings]
    found += [source.locate(finding) for source, finding in loaded.layouts.findings]
    errors = sorted({p for p in found if p.severity == "error"}, key=Problem.sort_key)
    return Version(label, loaded, tuple(errors))


def compare(old: Version, new: Version) -> Diff:
    """What changed from `old` to `new`, each list sorted (kind, id; path)."""
    old_records, new_records = records_by_key(old.loaded), records_by_key(new.loaded)
    records: list[RecordChange] = []
    for key in sorted(old_records.keys() | new_records.keys()):
        before, after = old_records.get(key), new_records.get(key)
        if before is None and after is not None:
            records.append(RecordChange(*key, "added", after.place, after.title))
        elif after is None and before is not None:
            records.append(RecordChange(*key, "removed", before.place, before.title))
        elif before is not None and after is not None:
            changes = tuple(field_changes(before.record, after.record))
            if changes:
                records.append(RecordChange(*key, "changed", after.place, after.title, changes))
    data_changed = {(change.kind, change.id) for change in records if change.status == "changed"}
    old_faces, new_faces = face_digests(old.loaded), face_digests(new.loaded)
    faces: list[FaceChange] = []
    for key in sorted(old_faces.keys() | new_faces.keys()):
        was, now = old_faces.get(key), new_faces.get(key)
        if now is None and was is not None:
            faces.append(FaceChange(*key, "removed", was.title, was.layout, ("record",)))
        elif now is not None and (was is None or was.digest != now.digest):
            reasons = _reasons(was, now, key in data_changed)
            faces.append(FaceChange(*key, "added" if was is None else "changed", now.title, now.layout, reasons))
    return Diff(old.label, new.label, tuple(records), tuple(faces), tuple(file_changes(old.project, new.project)))


def _reasons(was: FaceDigest | None, now: FaceDigest, record_changed: bool) -> tuple[str, ...]:
    if was is None:
        return ("record",)
    reasons = []
    if record_changed:
        reasons.append("record")
    if was.layout_key != now.layout_key:
        reasons.append("layout")
    return tuple(reasons) or ("files",)


# --- records -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placed:
    record: Record
    source: RecordFile
    pointer: str
    title: str
    root: Path

    @property
    def place(self) -> str:
        """Located only when reported: most records of a big project did not change."""
        return place_of(self.root, self.source, self.pointer)


def records_by_key(loaded: LoadedProject) -> dict[tuple[str, str], Placed]:
    """Every record of a known kind by (kind, id); a repeated id is keyed `id#2`, `id#3`, ..."""
    found: dict[tuple[str, str], Placed] = {}
    root = loaded.project.root
    for kind in sorted(loaded.index.files_by_kind):
        id_field = loaded.index.id_field(kind)
        for record_file, index, record in loaded.index.records_of(kind):
            if type(record) is not dict:
                continue
            base = _text(record.get(id_field, f"#{index + 1} of {_relative(root, record_file.path)}"))
            key, n = (kind, base), 1
            while key in found:
                n += 1
                key = (kind, f"{base}#{n}")
            found[key] = Placed(record, record_file, record_file.pointer(index), title_of(record, key[1]), root)
    return found


def title_of(record: Record, fallback: str) -> str:
    """The record's name (or title) when it has one as text, else `fallback` (its id)."""
    for field in ("name", "title"):
        value = record.get(field)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return fallback


def place_of(root: Path, record_file: RecordFile, pointer: str) -> str:
    """FILE:LINE (FILE:Sheet!C12 in a workbook) of `pointer`, FILE relative to the project's folder."""
    problem = record_file.locate(Finding("duplicate-id", "", pointer))
    return f"{_relative(root, record_file.path)}:{problem.cell or problem.line}"


def _relative(root: Path, path: Path) -> str:
    absolute = Path(os.path.abspath(path))
    return absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else str(path)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value, default=str).decode()


def field_changes(before: Any, after: Any, pointer: str = "") -> Iterator[FieldChange]:
    """Each differing leaf, by JSON pointer: objects key by key (sorted), lists of one length item
    by item; anything else (a list grown or shrunk, a value of another type) as a whole."""
    if type(before) is dict and type(after) is dict:
        for key in sorted(before.keys() | after.keys(), key=str):
            at = f"{pointer}/{escape(str(key))}"
            if key not in before:
                yield FieldChange(at, ABSENT, after[key])
            elif key not in after:
                yield FieldChange(at, before[key], ABSENT)
            else:
                yield from field_changes(before[key], after[key], at)
    elif type(before) is list and type(after) is list and len(before) == len(after):
        for n, (was, now) in enumerate(zip(before, after, strict=True)):
            yield from field_changes(was, now, f"{pointer}/{n}")
    elif type(before) is not type(after) or before != after:
        yield FieldChange(pointer, before, after)


# --- faces --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FaceDigest:
    digest: str
    layout_key: str
    layout: str
    title: str


def face_digests(loaded: LoadedProject) -> dict[tuple[str, str], FaceDigest]:
    """The digest of every drawn record's faces, by (kind, id), as `records_by_key` keys them."""
    from pnp.drawing.faces import FaceDigests

    digests = FaceDigests(loaded, "pnp diff")  # the same options on both sides: only the inputs differ
    keyed = records_by_key(loaded)
    by_identity = {id(placed.record): key for key, placed in keyed.items()}
    layouts = loaded.layouts
    found: dict[tuple[str, str], FaceDigest] = {}
    for kind in loaded.kinds_to_build((), layouts):
        layout = layouts.by_kind[kind]
        layout_key = digests.layout_key(layout, kind)
        for _, _, record in loaded.records(kind):
            key = by_identity.get(id(record))
            if key is not None:
                digest = digests.record_key(layout, kind, record)
                found[key] = FaceDigest(digest, layout_key, layout.name, keyed[key].title)
    return found


# --- the project's other files ----------------------------------------------------------------


def file_changes(old: Project, new: Project) -> list[FileChange]:
    """pnp.toml and the files of the schemas, layouts and sheets folders, compared by content."""
    before, after = project_files(old), project_files(new)
    changes = []
    for path in sorted(before.keys() | after.keys()):
        if path not in before:
            changes.append(FileChange(path, "added"))
        elif path not in after:
            changes.append(FileChange(path, "removed"))
        elif before[path] != after[path]:
            changes.append(FileChange(path, "changed"))
    return changes


def project_files(project: Project) -> dict[str, str]:
    """Content digests of pnp.toml and of every regular file under the schemas, layouts and sheets
    folders (inside the project, hidden files and links left out), by path from the project's folder."""
    root = project.root
    folders = sorted({project.schemas, project.layouts, project.sheets or root / "sheets"})
    found: dict[str, str] = {}
    paths = [root / "pnp.toml"]
    for folder in folders:
        if not folder.is_dir() or folder.is_symlink() or not folder.resolve().is_relative_to(root.resolve()):
            continue
        for directory, subfolders, names in os.walk(folder):
            subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
            paths.extend(Path(directory) / name for name in sorted(names) if not name.startswith("."))
            if len(paths) > MAX_PROJECT_FILES:
                raise ConfigError(f"{folder}: over {MAX_PROJECT_FILES} files; pnp diff compares projects below that")
    for path in paths:
        try:
            data = read_regular(path, project.max_file_bytes, root)
        except RefusedFile:
            continue  # a link, a pipe or a file over the size limit: pnp never reads it
        found[_relative(root, path)] = hashlib.sha256(data).hexdigest()
    return found
