"""What drawing finds, located where the user must edit it: a record field or a layout line.

`pnp check` and `pnp build` draw through the same `render_kind`; it returns (file, Finding)
pairs with file-absolute pointers. A finding about the layout (a template that fails, a missing
image the layout names, a bad font) is reported once per layout, at the layout file of the
`extends` chain that sets the key, not once per card or copy. `pnp check` keeps its render
findings in a cache (output/.pnp-cache/), keyed by the digests of the records, the layout and the
files they draw, so a repeated check draws only the kinds whose inputs changed.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import asdict
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from pnp.core.paths import project_file
from pnp.core.problems import Finding, Problem, sound_finding
from pnp.drawing.faces import icon_files as icon_files  # re-exported
from pnp.drawing.faces import static_files
from pnp.drawing.locate import layout_site as layout_site  # re-exported
from pnp.drawing.locate import place as place  # re-exported
from pnp.project.records import RecordFile

if TYPE_CHECKING:
    from pnp.drawing.facecache import CheckCache, DrawCounter
    from pnp.drawing.faces import FaceDigests
    from pnp.drawing.facestore import FaceStore
    from pnp.drawing.impose import SheetSpec
    from pnp.project.config import Project
    from pnp.project.layout import Layout
    from pnp.project.loaded import LoadedProject

CACHE_FOLDER = ".pnp-cache"
CACHE_MAX_BYTES = 64 * 1024 * 1024  # what drawing found for one kind: far less in any real project
Located = tuple[RecordFile, Finding]


def code_digest() -> str:
    """pnp's own code and data (pnp.project.stamp.package_digest): a new pnp version redraws everything."""
    from pnp.project.stamp import package_digest

    return package_digest()


def render_kind(
    loaded: LoadedProject,
    layout: Layout,
    kind: str,
    spec: SheetSpec,
    handle: IO[bytes],
    title: str,
    tick: Callable[[int], None] | None = None,
    records: list[tuple[tuple[RecordFile, int], dict[str, Any]]] | None = None,
    name: str = "",
    store: FaceStore | None = None,
    check_cache: CheckCache | None = None,
    jobs: int = 0,
    reserved: int = 0,
) -> list[Located]:
    """Draw one kind's cut sheets into `handle` (all its records, or `records`); returns what
    drawing found, located. `name` labels each sheet's margin (pnp.drawing.pdf.write_cut_sheets);
    `store` reuses the faces drawn by the last build (pnp.drawing.facestore); `check_cache`: where
    `pnp check` keeps this kind's findings, filled so that a check after the build draws nothing;
    `jobs`: processes drawing the faces `store` does not keep (0: one per core, as they need, but
    `reserved` cores: busy with the build's sheets)."""
    from pnp.drawing.bleedcheck import bleed_findings, safe_findings
    from pnp.drawing.facestore import Redraw
    from pnp.drawing.impose import ImpositionError
    from pnp.drawing.pdf import expand_faces, write_cut_sheets
    from pnp.drawing.render import Renderer

    renderer = Renderer(layout, loaded.project.root, loaded.icons, loaded.lookup)
    if records is None:
        records = [((f, i), r) for f, i, r in loaded.records(kind)]
    own = list(renderer.findings)  # the layout's own, as pnp check keeps them (before counting the faces)
    faces, issues = expand_faces(renderer, records)
    safe = safe_findings(renderer, faces)
    bleed, counted = bleed_findings(renderer), [*issues, *safe]
    layout_findings = [*renderer.findings, *issues, *bleed, *safe]
    imposed: list[Finding] = []
    drawn: list[tuple[Any, Finding]] = []
    try:
        try:
            if store is not None:
                from pnp.drawing.drawahead import draw_ahead

                store.draws_alike(renderer)  # a common back: drawn once

                draw_ahead(
                    store, renderer, faces, spec, title, name, jobs, reserved
                )  # later faces drawn on other cores
            pairs = write_cut_sheets(handle, renderer, faces, spec, title, tick, name, store)
        except Redraw:
            assert store is not None
            store.forget()
            pairs = write_cut_sheets(handle, renderer, faces, spec, title, tick, name, store)
        finally:
            if store is not None:
                store.settle()  # the children reaped, whatever happened
        drawn = [(face.origin, finding) for face, finding in pairs]
    except ImpositionError as err:
        imposed = [Finding("layout-error", f"layout {layout.name!r}: {err}", "/size", in_layout=True)]
        layout_findings.extend(imposed)
    if check_cache is not None:
        from pnp.drawing.facecache import remember_build

        remember_build(check_cache, layout, kind, records, (own, bleed, counted, imposed), drawn)
    return place(layout, layout_findings, drawn)


def asset_files(loaded: LoadedProject, layout: Layout, kind: str, icons: list[Path] | None = None) -> list[Path]:
    """Files a kind's drawing depends on: the layout's static images and fonts, and every record
    value at a field its schema declares an asset (`x-asset`); `icons`: icon_files, when known."""
    from pnp.project.index import values_at

    root = loaded.project.root
    files = static_files(root, layout)
    sites = [site for site in loaded.schemas.sites(kind) if site.what == "asset"]
    if sites:
        for _, _, record in loaded.records(kind):
            for site in sites:
                files.extend(root / value for _, value in values_at(record, site.path, "") if isinstance(value, str))
    return [*files, *_templated_images(loaded, layout, kind), *(icon_files(loaded.project) if icons is None else icons)]


def _templated_images(loaded: LoadedProject, layout: Layout, kind: str) -> list[Path]:
    """The files image elements whose `src` is a template (`{{ art }}`) name for each record, so
    that a changed picture redraws its kind even where the schema declares no `x-asset` field.
    (A `src` reading `expand` values or `copy` is rendered without them.)"""
    from pnp.drawing.faces import src_templates

    root = loaded.project.root
    templates = src_templates(layout)
    if not templates:
        return []
    records = [record for _, _, record in loaded.records(kind)]
    names: set[str] = set()
    for template in templates:
        for record in records:
            try:
                names.add(template.render({**record, "record": record}).strip())
            except Exception:  # noqa: BLE001 - nor one that fails on a record
                continue
    paths = [project_file(root, name) for name in sorted(names) if name]
    return [path for path, problem in paths if path is not None and not problem]


def kind_digest(
    loaded: LoadedProject,
    layout: Layout,
    kind: str,
    code: str,
    *options: Any,
    records: list[Any] | None = None,
    icons: list[Path] | None = None,
    hashed: Callable[[Path], str] | None = None,
) -> str:
    """The inputs of one kind's drawing: pnp, options, the layout, the records, the files they draw
    (`icons`: icon_files, when known; `hashed`: the files' SHA-256 where known, FileDigests.of)."""
    from pnp.core.output import digest

    project = loaded.project
    if records is None:
        records = [r for _, _, r in loaded.records(kind)]
    return digest(
        code,
        *options,
        layout.data,
        hashlib.sha256(orjson.dumps(records)).hexdigest(),
        files=[*layout.files, project.layouts / "icons.json", *asset_files(loaded, layout, kind, icons)],
        root=project.root,
        hashed=hashed,
    )


def paper_problem(project: Project, message: str, located: bool = True) -> Problem | None:
    """A face the paper cannot hold as asked: a configuration problem at the [paper] setting to
    change (the grid asked for, the margin, the printer, the paper), never at the layout; None
    when pnp.toml sets none of them (the defaults, or the build's own --margin: `located` False)."""
    blamed = [key for key in ("columns", "rows") if f" {key} of " in message]
    where = project.sheet.located(*blamed, "margin", "printer", "size") if located else None
    if where is None:
        return None
    file, line, column = where
    return Problem(file, line, column, "", "config-error", "error", message)


def paper_geometry(loaded: LoadedProject, spec: SheetSpec) -> None:
    """Raise a located ConfigError when [paper] (margins, printer, grid) shuts a kind's faces out of
    a paper they fit bare; a face larger than the paper is left to the layout-error drawing reports."""
    from dataclasses import replace

    from pnp.core.problems import ConfigError
    from pnp.drawing.impose import MM, ImpositionError, for_faces, grid, oriented, with_cutting
    from pnp.drawing.render import Renderer

    project = loaded.project
    for kind in loaded.kinds_to_build():
        layout = loaded.layouts.by_kind[kind]
        renderer = Renderer(layout, project.root, loaded.icons)
        own = with_cutting(spec, layout.cutting, project.gutter_mm * MM)
        own = replace(for_faces(own, layout.has_back), bleed=renderer.bleed)
        own = oriented(own, renderer.width, renderer.height)
        try:
            grid(renderer.width, renderer.height, own)
        except ImpositionError as err:
            try:
                grid(renderer.width, renderer.height, replace(own, margin=0.0, columns=0, rows=0, per_page=0))
            except ImpositionError:
                continue
            message = f"{kind} (paper {project.paper}): {err}"
            problem = paper_problem(project, message)
            raise ConfigError(message, (problem,) if problem else ()) from None


def check_digests(loaded: LoadedProject, code: str = "", like: FaceDigests | None = None) -> FaceDigests:
    """The face digests `pnp check` keys its findings by: pnp's code, the project's paper, the limits.
    `like`: other digests of the same loaded project (a build's), whose file reads are shared."""
    from pnp.core.limits import current as current_limits
    from pnp.drawing.faces import FaceDigests

    project, paper = loaded.project, loaded.project.sheet
    options = (
        code or code_digest(),
        f"{project.paper} {paper.margin} {paper.orientation} {paper.columns} {paper.rows}",
        repr(current_limits()),
    )
    return like.sharing(*options) if like is not None else FaceDigests(loaded, *options)


def check_cache_file(project: Project, kind: str) -> Path:
    """Where `pnp check` keeps what drawing `kind` found (pnp.drawing.facecache)."""
    return project.output / CACHE_FOLDER / f"{kind}.json"


def keys_file(project: Project, kind: str) -> Path:
    """Where the check and the build keep `kind`'s face keys per record file (beside the check's
    cache: pnp.drawing.facecache.read_keys)."""
    from pnp.drawing.facekeys import KEYS_FOLDER

    cache = check_cache_file(project, kind)
    return cache.parent / KEYS_FOLDER / cache.name


def render_findings(
    loaded: LoadedProject,
    broken: AbstractSet[tuple[int, int]] = frozenset(),
    use_cache: bool = True,
    counter: DrawCounter | None = None,
    jobs: int = 0,
    reserved: int = 0,
    signing_key: bytes | None = None,
) -> list[Located]:
    """`pnp check`: draw every kind with a layout into a throwaway PDF, as `pnp build` does
    (`jobs`, `reserved`: the processes drawing a kind, pnp.drawing.facecache.draw_faces;
    `signing_key`: the project's, for the faces' keys kept per record file).

    Records in `broken` ((file id, index); index -1: the whole file) are not drawn: they failed
    their schema, and what drawing them finds follows from that error. With `use_cache`, only
    the faces whose digest changed since the last check are drawn (pnp.drawing.facecache);
    `counter` counts the faces drawn.
    """
    from pnp.drawing.facecache import kind_findings
    from pnp.drawing.impose import MM, ImpositionError, SheetSpec, parse_paper

    project = loaded.project
    layouts = loaded.layouts
    try:
        width, height = parse_paper(project.paper)
    except ImpositionError:
        return []  # a configuration error, reported by loading pnp.toml
    paper = project.sheet  # [paper]: the sheets pnp build draws on
    spec = SheetSpec(
        width,
        height,
        margin=paper.margin * MM,
        duplex="long",
        orientation=paper.orientation,
        columns=paper.columns,
        rows=paper.rows,
        per_page=paper.per_page,
    )
    if project.sheet.asked:  # [paper] in pnp.toml: a face it shuts out is its error, as pnp build says
        paper_geometry(loaded, spec)
    digests = check_digests(loaded)
    found: list[Located] = []
    for kind in loaded.kinds_to_build():
        layout = layouts.by_kind[kind]
        records = [
            ((f, i), r)
            for f, i, r in loaded.records(kind)
            if not broken or ((id(f), i) not in broken and (id(f), -1) not in broken)
        ]
        cache_file = check_cache_file(project, kind) if use_cache else None
        found.extend(
            kind_findings(
                loaded, layout, kind, spec, records, digests, cache_file, counter, jobs, reserved, signing_key
            )
        )
    return found


def read_cache(path: Path, key: str, files: dict[Path, RecordFile], root: Path) -> list[Located] | None:
    stored = read_cache_keyed(path, files, root)
    return stored[1] if stored is not None and stored[0] == key else None


def read_cache_keyed(path: Path, files: dict[Path, RecordFile], root: Path) -> tuple[str, list[Located]] | None:
    """The key a cache file was written under, and its findings; None when there is none this pnp
    can read (the key says whether they still hold: the caller compares it)."""
    from pnp.core.paths import RefusedFile, read_regular

    try:  # a regular file only: a pipe planted in the cache must not block pnp check
        stored = orjson.loads(read_regular(path, CACHE_MAX_BYTES, root))
        key = stored.get("key")
        if not isinstance(key, str):
            return None
        found = [(files[root / item["file"]], Finding(**item["finding"])) for item in stored["findings"]]
    except (RefusedFile, OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # no cache, or one this pnp cannot read: draw again
    if not all(sound_finding(finding) for _, finding in found):
        return None  # edited by hand, or by another pnp: draw again
    return key, found


def write_cache(path: Path, key: str, found: list[Located], root: Path) -> None:
    write_found(path, key, [(record_file.path, finding) for record_file, finding in found], root)


def write_found(path: Path, key: str, found: list[tuple[Path, Finding]], root: Path) -> None:
    """`write_cache` of findings given by their record file's path."""
    from pnp.core.output import atomic_write

    payload = {
        "key": key,
        "findings": [
            {"file": file.relative_to(root).as_posix(), "finding": asdict(finding)}
            for file, finding in found
            if file.is_relative_to(root)
        ],
    }
    with contextlib.suppress(OSError):  # a read-only checkout: the check still works, only slower next time
        atomic_write(path, lambda handle: handle.write(orjson.dumps(payload)))
