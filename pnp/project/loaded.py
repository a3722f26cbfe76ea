"""One loaded project: every record file parsed once with positions, indexed once, and the
layouts, icons and sheet files read once, for every later stage (rules, drawing, outputs).

Loading knows no rule: it reports what it cannot read as findings on the files (parse errors
as values), and never validates a record against its schema or checks a reference (that is
pnp.rules). It draws nothing either (that is pnp.drawing).
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pnp.core.paths import RefusedFile, read_regular
from pnp.core.problems import ConfigError
from pnp.project.config import Project
from pnp.project.fields import FieldGuide
from pnp.project.index import Index
from pnp.project.jsonfile import parse_bytes
from pnp.project.recordfile import sheet_paths
from pnp.project.records import RecordFile, declare_kind, iter_record_paths, load_file
from pnp.project.schemas import SchemaSet

if TYPE_CHECKING:
    from pnp.project.layout import LayoutSet
    from pnp.project.sheetfiles import SheetSet

Record = dict[str, Any]


@dataclass(eq=False)
class LoadedProject:
    """Everything the later stages need: the project, its schemas, its record files and their
    index. Layouts, icons and sheet files are read on first use (a plain check of a project
    without layouts never imports jinja2), then kept."""

    project: Project
    schemas: SchemaSet
    files: list[RecordFile]
    index: Index
    kinds_by_file: dict[int, set[str]]
    _layouts: LayoutSet | None = field(default=None, repr=False)
    _icons: dict[str, dict[str, Any]] | None = field(default=None, repr=False)
    _sheets: SheetSet | None = field(default=None, repr=False)
    # (file path, record index; -1: the whole file) of records left out of every later stage
    # (`pnp build --keep-going`: records with parse or schema errors are not drawn)
    left_out: frozenset[tuple[Path, int]] = field(default=frozenset(), repr=False)

    def records(self, kind: str) -> Iterator[tuple[RecordFile, int, Record]]:
        if not self.left_out:
            return self.index.records_of(kind)
        out = self.left_out
        return (
            (f, i, r) for f, i, r in self.index.records_of(kind) if (f.path, i) not in out and (f.path, -1) not in out
        )

    def lookup(self, record_id: Any, kind: str | None = None) -> Record | None:
        """The record with this id (the first one, where ids repeat), for templates' `ref`;
        None for an id no record has, or a value that is no id. A kind declared in pnp.toml
        [kinds] has ids of its own (its id field's values): `kind` names where to look; without
        it, the ids shared by the other kinds first, then the declared kinds in order."""
        entry = self.index.find(record_id, kind)
        return entry[1].records[entry[2]] if entry else None

    def referenced(self, records: Iterable[Record]) -> list[tuple[str, Record]]:
        """Every record a `ref` on these records' values may show, sorted: for each value that is
        an id, the record it names among the shared ids and in each declared kind (`ref` may name
        the kind). What a face that shows `| ref` depends on."""
        index = self.index
        found: dict[tuple[str, str], Record] = {}
        stack: list[Any] = [{k: v for k, v in r.items() if k != "id"} for r in records]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
            elif type(value) is str or (type(value) is int and index.scoped):
                key = str(value)
                entry = index.first.get(key)
                if entry is not None:
                    found.setdefault(("", key), entry[1].records[entry[2]])
                for kind, ids in index.scoped.items():
                    entry = ids.get(key)
                    if entry is not None:
                        found.setdefault((kind, key), entry[1].records[entry[2]])
        return [(f"{kind}\0{key}", record) for (kind, key), record in sorted(found.items())]

    @property
    def layouts(self) -> LayoutSet:
        """Every layout, resolved (`extends`), with what was found reading them."""
        if self._layouts is None:
            from pnp.project.layout import LayoutSet

            project = self.project
            self._layouts = LayoutSet(project.layouts, project.display, set(self.schemas.kind_uri), project.root)
            self._add_labels(self._layouts)
        return self._layouts

    @layouts.setter
    def layouts(self, layouts: LayoutSet) -> None:
        """A language's translated layouts in place of the project's (pnp.translation)."""
        self._layouts = layouts

    def _add_labels(self, layouts: LayoutSet) -> None:
        """Each layout that uses the `label` filter gets its kinds' enum labels from their schemas."""
        from pnp.project.templatewords import uses_label

        for layout in layouts.layouts.values():
            if uses_label(layout.data):
                from pnp.project.sheetfiles import schema_labels  # only then: it costs a build 1.5 ms

                layout.labels = {k: schema_labels(self.schemas, k) for k in layout.kinds if k in self.schemas.kind_uri}

    @property
    def icons(self) -> dict[str, dict[str, Any]]:
        """layouts/icons.json: the inline icons text may use, by name."""
        if self._icons is None:
            self._icons = load_icon_specs(self.project)
        return self._icons

    @property
    def lays_out_sheets(self) -> bool:
        """Whether there is a sheet to read or lay out: a sheet file, or records of a kind printed
        on sheets ("x-card": false) that a generic sheet shows. Without one, the sheet checks have
        nothing to do, and pnp check spares itself importing them (and jinja2)."""
        if self._sheets is not None and self._sheets.paths:
            return True
        schemas = self.schemas
        if any(k in schemas.kind_uri and not schemas.is_card(k) for k in self.index.files_by_kind):
            return True
        return bool(sheet_paths(self.project.sheets or self.project.root / "sheets"))

    @property
    def sheets(self) -> SheetSet:
        """Every sheet file (sheets/), read and checked against pnp's sheet schema."""
        if self._sheets is None:
            self._sheets = read_sheet_files(self.project)
        return self._sheets

    def kinds_to_build(self, wanted: tuple[str, ...] = (), layouts: LayoutSet | None = None) -> list[str]:
        """Kinds with records and a layout, sorted; only `wanted` ones when given (unknown: ConfigError)."""
        by_kind = (layouts or self.layouts).by_kind
        kinds = sorted(k for k in self.index.files_by_kind if k in by_kind)
        if wanted:
            unknown = [k for k in wanted if k not in self.schemas.kind_uri]
            if unknown:
                raise ConfigError(f"unknown kind {unknown[0]!r}; known kinds: {', '.join(self.schemas.kinds)}")
            kinds = [k for k in kinds if k in wanted]
        return kinds


def read_sheet_files(project: Project) -> SheetSet:
    """The sheet files, read afresh: a copy of their texts to translate (pnp.translation)."""
    from pnp.project.sheetfiles import SheetSet

    return SheetSet(project.sheets or project.root / "sheets", project.display, project.root)


def load_icon_specs(project: Project) -> dict[str, dict[str, Any]]:
    """layouts/icons.json: the inline icons text may use, by name (pnp check validates the file)."""
    path = project.layouts / "icons.json"
    try:  # a pipe or a link out of the project is never read (check_icons reports it)
        parsed = parse_bytes(read_regular(path, project.max_file_bytes, project.root))
    except RefusedFile:
        return {}
    icons = parsed.data.get("icons") if isinstance(parsed.data, dict) else None
    return icons if parsed.ok and isinstance(icons, dict) else {}


def has_layouts(project: Project) -> bool:
    return any(p.name != "icons.json" and p.suffix in (".json", ".yaml", ".yml") for p in project.layouts.glob("*"))


def record_paths(
    project: Project, extra: Iterable[Path] = (), sizes: dict[Path, int] | None = None
) -> list[tuple[Path, str]]:
    """(path, display name) of every record file of the project, and of `extra` files or folders:
    the records folder's, then the files pnp.toml [kinds] names (a project with [kinds] needs no
    records folder). `sizes`: see iter_record_paths."""
    roots = [*sorted(project.kind_files), *extra]
    if project.records.exists():
        roots.insert(0, project.records)
    elif not project.kinds:
        raise ConfigError(
            f"{project.display(project.records)}: the records folder does not exist; "
            "create it or set 'records' in [project] of pnp.toml"
        )
    return list(iter_record_paths(roots, project.display, project.root, sizes))


def load_record_file(
    project: Project, path: Path, display: str, guide: FieldGuide | None, check_duplicates: bool = True
) -> RecordFile | None:
    """One record file, read, with the kind pnp.toml [kinds] gives it; None for a file that holds
    no records: in a project with [kinds], a file no kind names and none of whose items has a
    `kind` (a package.json beside the data)."""
    record_file = load_file(
        path, display, project.max_file_bytes, check_duplicates=check_duplicates, guide=guide, project=project.root
    )
    spec = project.declared_kind(path)
    if spec is not None:
        declare_kind(record_file, spec.name, spec.id)
    elif (
        project.kinds and record_file.records and not any(type(r) is dict and "kind" in r for r in record_file.records)
    ):
        return None
    return record_file


class Readers(Protocol):
    """Who else reads record files while this process loads (pnp.rules.validation's children).

    `start` sees the paths (and their sizes, where the walk found them) first and returns those
    others read; `read_here` sees each file this
    process loaded, as it is loaded (to check it meanwhile); `collect` waits for the others and
    gives their files (None: a file that holds no records), each in their order.
    """

    def start(
        self,
        project: Project,
        paths: list[tuple[Path, str]],
        schemas: SchemaSet,
        guide: FieldGuide,
        sizes: dict[Path, int] | None = None,
    ) -> set[Path]: ...

    def read_here(self, record_file: RecordFile, kinds: set[str], one_kind: bool) -> None: ...

    def collect(self) -> dict[Path, tuple[RecordFile, set[str], bool] | None]: ...


def load_project_records(project: Project, extra: Iterable[Path] = (), readers: Readers | None = None) -> LoadedProject:
    """Parse and index every record file of the project (and `extra` paths).

    With `readers`, the files they `start` on are read by them (their records parsed here only
    on first use). The index is that of the files in their order, whoever read them (the first of
    two records with one id is the same): this process indexes its files as it reads them, the
    others once they are in, and then puts what depends on the order in order (Index.reorder);
    kinds with ids of their own are indexed once every file is in, in order.
    """
    schemas = SchemaSet(project.schemas, project.kinds, project.root)
    sizes: dict[Path, int] = {}
    paths = record_paths(project, extra, sizes)
    guide = FieldGuide.for_project(project, schemas)
    elsewhere = readers.start(project, paths, schemas, guide, sizes) if readers else set()
    read: dict[Path, tuple[RecordFile, set[str], bool] | None] = {}
    known = schemas.kind_uri
    index = Index(id_fields={name: spec.id for name, spec in project.kinds.items()})
    early = bool(elsewhere) and not project.kinds  # index this process's files while the children read
    was_enabled = gc.isenabled()
    gc.disable()  # hundreds of thousands of small containers: collection only costs time here
    try:
        for path, display in paths:
            if path in elsewhere:
                continue
            record_file = load_record_file(project, path, display, guide)
            if record_file is None:
                continue
            kinds, one_kind = file_kinds(known, record_file.records)
            read[path] = (record_file, kinds, one_kind)
            if readers:
                readers.read_here(record_file, kinds, one_kind)
            if early:
                index.add_file(record_file, kinds, one_kind)
        if elsewhere and readers:
            read.update(readers.collect())
        files: list[RecordFile] = []
        kinds_by_file: dict[int, set[str]] = {}
        for path, _ in paths:
            found = read.get(path)
            if found is None:
                continue
            record_file, kinds, one_kind = found
            files.append(record_file)
            kinds_by_file[id(record_file)] = kinds
            if not early or path in elsewhere:
                index.add_file(record_file, kinds, one_kind)
        if early:
            index.reorder([(f, tuple(kinds_by_file[id(f)])) for f in files])
    finally:
        gc.freeze()  # the loaded records live to the end: later collections need not walk them
        if was_enabled:
            gc.enable()
    return LoadedProject(project, schemas, files, index, kinds_by_file)


def kinds_of(known: dict[str, Any] | set[str], records: list[Any]) -> set[str]:
    """The known kinds among a file's records (records of no known kind are the rules' to report)."""
    return file_kinds(known, records)[0]


def file_kinds(known: dict[str, Any] | set[str], records: list[Any]) -> tuple[set[str], bool]:
    """The known kinds among a file's records, and whether every record is an object of the one
    kind found (what the index's fast path needs to know)."""
    try:
        kinds = {record["kind"] for record in records}  # JSON has no other type `["kind"]` works on
        one_kind = len(kinds) == 1
    except (TypeError, KeyError):
        kinds = {k for r in records if type(r) is dict and type(k := r.get("kind")) is str}
        one_kind = False
    return {k for k in kinds if type(k) is str and k in known}, one_kind
