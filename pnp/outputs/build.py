"""`pnp build`: check, then render every kind with a layout into output/, incrementally.

Per game: output/<folder>/<kind>.pdf for each kind, and output/<folder>.pdf with them all.
A build that finds errors writes nothing (with `keep_going`: every record without a parse or
schema error is drawn all the same, and the errors are reported); each file is written atomically; a file whose inputs
(records, layouts, icons, fonts, images, options, pnp itself) did not change is not rewritten.
"""

from __future__ import annotations

import collections
import hashlib
import re
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pnp.core.output import (
    Manifest,
    OutputResult,
    OutputRun,
    atomic_write,
    current,
    digest,
    remove_output,
    unwrapped,
)
from pnp.core.problems import Problem, not_found_before
from pnp.core.progress import progress_bar
from pnp.drawing.impose import MM, Cutting, Duplex, SheetSpec, parse_paper, with_cutting
from pnp.outputs.buildcheck import checked_meanwhile, collections_deferred
from pnp.project.config import Project

if TYPE_CHECKING:  # the check and drawing stages load when a build has work to do (start-up time)
    from pnp.core.workers import Child
    from pnp.drawing.combine import Part
    from pnp.drawing.facekeys import KeptKeys
    from pnp.drawing.facestore import FaceStore
    from pnp.drawing.readme import ReadMe
    from pnp.project.layout import Layout
    from pnp.project.loaded import LoadedProject
    from pnp.translation.translate import Localized


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """What `pnp build` was asked for (its command-line options), pnp.toml's settings where None."""

    paper: str = "a4"
    duplex: Duplex = "long"
    cutting: Cutting | None = None  # None: pnp.toml's [build] cutting
    kinds: tuple[str, ...] = ()
    force: bool = False
    progress: bool = False
    lang: str = ""  # a translation (pnp.translation.translate): drawn into output/<lang>/
    fallback: bool = False  # with lang: draw the source text where a translation is missing
    keep_going: bool = False  # errors found: draw the records without parse or schema errors all the same
    orientation: str | None = None  # None: pnp.toml's [paper] orientation
    margin_mm: float | None = None  # None: pnp.toml's [paper] margin (or its printer's minimum)
    kinds_only: bool = False  # each kind's own file only, no combined files or sheets (pnp watch: they follow)
    jobs: int = 0  # processes drawing a kind's faces (pnp.drawing.drawahead); 0: one per core, as the kind needs


@dataclass(frozen=True, slots=True)
class BuildResult(OutputResult):
    """An OutputResult, with the sheets of paper each written cut-sheet file takes."""

    sheets: tuple[tuple[Path, int], ...] = ()
    fallbacks: int = 0  # a language build with --fallback: source texts drawn for missing translations
    holds: tuple[tuple[str, str], ...] = ()  # (kind, how many faces a sheet holds and why) for each kind drawn
    removed: tuple[Path, ...] = ()  # outputs an earlier build made that this one no longer makes (pnp.outputs.stale)


def output_root(project: Project, paper: str, duplex: str = "") -> Path:
    """output/ for the project's paper and duplex; output/<paper>/, output/<duplex>/ or
    output/<paper>-<duplex>/ for another, so A4 and Letter, long-edge and fold files coexist."""
    parts = []
    if paper.lower() != project.paper.lower():
        parts.append(re.sub(r"[^a-z0-9.]+", "-", paper.lower()).strip("-"))
    if duplex and duplex != project.duplex:
        parts.append(duplex)
    return project.output / "-".join(parts) if parts else project.output


CHECKED_HERE: collections.Counter[Path] = collections.Counter()  # builds checked in this process, by project (tests)


def run_build(project: Project, options: BuildOptions) -> BuildResult:
    from pnp.project.loaded import load_project_records
    from pnp.verify.cache import restore_facts

    restore_facts(project)  # which images decode, as an earlier check or build found them (pnp.core.filefacts)
    home = project  # where the facts are kept (a language build writes into output/LANG/)
    loaded = load_project_records(project)
    ahead: dict[str, Any] = {}  # the faces' keys, made while the child checks (see _keys_ahead)
    meanwhile = partial(_keys_ahead, project, options, loaded, ahead)
    problems = checked_meanwhile(loaded, options.jobs, options.keep_going, meanwhile)  # by a child, meanwhile
    left_out: frozenset[tuple[Path, int]] = frozenset()
    if problems is None:
        from pnp.verify.run import CheckOptions, Validation, broken_record_paths, check_loaded

        CHECKED_HERE[project.root] += 1
        validation = Validation()
        validation.loaded = loaded
        problems = list(check_loaded(loaded, CheckOptions(render=False), validation=validation))
        if options.keep_going and any(p.severity == "error" for p in problems):
            left_out = broken_record_paths(loaded, validation)
    layouts = loaded.layouts
    localized = None
    if options.lang:  # a translation (pnp.translation.translate): drawn once, into output/<lang>/
        from pnp.translation.translate import localize

        localized = localize(loaded, layouts, problems, options.lang, options.fallback)
        loaded, layouts, problems = localized.loaded, localized.layouts, localized.problems
        project = loaded.project = replace(project, output=project.output / options.lang)
    loaded.left_out = left_out  # --keep-going: the records with errors are not drawn (by path: a language's copy too)
    if not options.keep_going and any(p.severity == "error" for p in problems):  # nothing is written
        from pnp.verify.run import CheckOptions, check_loaded

        reported = problems if options.lang else check_loaded(loaded, CheckOptions(render_cache=False))
        return BuildResult((), (), tuple(reported))  # a failed build writes nothing, not even a cache
    stores: list[FaceStore | KeptKeys] = []
    with collections_deferred(), OutputRun(project.output) as run:  # a failed build writes nothing (pnp.core.output)
        result = _build_checked(project, options, loaded, layouts, problems, localized, stores, ahead)
        if result.exit_code and not options.keep_going:
            run.discard()
            return BuildResult((), (), result.problems)
    if stores:  # the faces drawn, kept for the next build (pnp.drawing.facestore), signed with the project's key
        from pnp.verify.keys import project_key

        key = project_key(project)
        with collections_deferred():
            for store in stores:
                store.save(key)
    if localized is not None:
        result = replace(result, fallbacks=localized.fallbacks.count)
    from pnp.verify.cache import keep_facts

    keep_facts(home)
    return result


def _build_checked(
    project: Project,
    options: BuildOptions,
    loaded: LoadedProject,
    layouts: Any,
    problems: list[Problem],
    localized: Localized | None = None,
    stores: list[FaceStore | KeptKeys] | None = None,
    ahead: dict[str, Any] | None = None,
) -> BuildResult:
    """Render a project that passed its check; outputs are staged by the caller's OutputRun.
    `localized`: a language build (drawing's findings in translated text go to the catalog);
    `stores` gets the face store of each kind drawn (and its faces' keys per record file), for the
    caller to keep once the run is done; `ahead`: the faces' keys `_keys_ahead` made."""
    from pnp.drawing.combine import Part, sheet_count, write_combined
    from pnp.drawing.facecache import CheckCache
    from pnp.drawing.facekeys import face_keys, kind_preset
    from pnp.drawing.faces import FaceDigests
    from pnp.drawing.facestore import FaceStore, kind_store
    from pnp.drawing.findings import check_cache_file, check_digests, code_digest, keys_file, kind_digest, render_kind
    from pnp.outputs.readmefile import documents_of, settled_read_me
    from pnp.verify.keys import existing_key

    spec = sheet_spec(project, options)
    manifest = Manifest(project.output, project.root)
    out_root = output_root(project, options.paper, options.duplex)
    code = code_digest()
    written: list[Path] = []
    skipped: list[Path] = []
    per_game: dict[str, list[tuple[Path, str, Layout, str]]] = {}
    sheets: list[tuple[Path, int]] = []
    kinds = loaded.kinds_to_build(options.kinds, layouts)
    plans = []
    # What drawing finds is kept for `pnp check` too, when it draws what the check would draw: the
    # project's paper and margins, every record (no error left any out), no translation.
    as_checked = (
        _draws_as_checked(project, options) and localized is None and not any(p.severity == "error" for p in problems)
    )
    # the faces' digests: `pnp check`'s own where the build draws what the check draws, so that the
    # findings it keeps for the check are keyed by the digests the faces were drawn under
    warm = ahead.get("") if ahead and as_checked else None  # made while the check ran: the same digests
    face_digests = warm or (check_digests(loaded, code) if as_checked else FaceDigests(loaded, code))
    digests_checked = face_digests if as_checked else None
    signing = existing_key(project) if as_checked else None  # signs the faces' keys kept per record file
    holds = kind_holds(loaded, layouts, kinds, spec, options)  # a face that does not fit: ConfigError at [paper]
    # each sheet's label names its kind by the schema's title; a translation has no catalog entry
    # for it, so a language build keeps the kind's key (no source-language words on its pages)
    labels = kind_names(loaded) if localized is None else {}
    for kind in kinds:
        layout = layouts.by_kind[kind]
        game = project.game(kind)
        target = out_root / game.folder / f"{kind}.pdf"
        own = with_cutting(spec, layout.cutting, project.gutter_mm * MM)  # a layout's own cutting style
        kept = keys_file(project, kind) if digests_checked is not None else None  # the check's keys, shared
        if warm is not None and ahead and kind in ahead:
            faces, later = ahead[kind]
        else:
            faces, later = face_keys(loaded, layout, kind, face_digests, kept, signing)  # and through `ref`
        if later is not None and stores is not None:
            stores.append(later)  # kept once the build succeeded, as the face stores are
        preset = kind_preset(loaded, layout, kind, labels.get(kind, kind), face_digests)  # in its bytes
        geometry = (own.margin, own.orientation, own.columns, own.rows, own.per_page, own.mix_sizes)  # [paper]
        key = kind_digest(
            loaded,
            layout,
            kind,
            code,
            options.paper,
            options.duplex,
            own.cutting,
            own.gutter,
            *geometry,
            hashlib.sha256("\n".join(faces.values()).encode()).hexdigest(),  # each record, as drawn
            preset,
            labels.get(kind, kind),  # the sheets' label
            records=[],  # held by the faces' digests
            icons=face_digests.icons(),
            hashed=face_digests.files.of,  # the layout's and the icons' files, hashed for the faces' digests
        )
        per_game.setdefault(game.folder, []).append((target, key, layout, kind))
        plans.append((kind, layout, target, key, faces, preset))
    progress = progress_bar(options.progress, sum(len(faces) for *_, faces, _ in plans))
    drawing = any(options.force or not manifest.fresh(target, key) for _, _, target, key, _, _ in plans)
    sheets_child = _sheets_elsewhere(
        loaded, project, options, manifest, localized, digests_checked is not None, drawing
    )  # laid out on another core meanwhile
    parts_known: dict[str, Part] = {}  # each kind's faces counted once
    store_key: bytes | None = None
    for kind, layout, target, key, faces, preset in plans:
        count = len(faces)
        if not options.force and manifest.fresh(target, key):
            skipped.append(target)
            progress(count)
            continue
        located: list[Problem] = []
        own = with_cutting(spec, layout.cutting, project.gutter_mm * MM)
        if store_key is None:  # the faces of the last build are reused (pnp.drawing.facestore)
            store_key = existing_key(project) or b""
        store = kind_store(loaded, layout, kind, own, face_digests, store_key or None, faces, preset)

        def draw(
            handle: IO[bytes],
            kind: str = kind,
            layout: Layout = layout,
            located: list[Problem] = located,
            own: SheetSpec = own,
            store: FaceStore = store,
        ) -> None:
            game = project.game(kind)
            checked = None if digests_checked is None else CheckCache(check_cache_file(project, kind), digests_checked)
            found = render_kind(
                loaded,
                layout,
                kind,
                own,
                handle,
                f"{game.title}: {kind}",
                name=labels.get(kind, kind),
                store=store,
                check_cache=checked,
                jobs=options.jobs,
                reserved=0 if sheets_child is None else 1,  # a core lays the sheets out meanwhile
            )
            if localized is not None:
                found = localized.relocate(found, kind)
            located.extend(record_file.locate(finding) for record_file, finding in found)
            if not options.keep_going and any(p.severity == "error" for p in located):
                raise _Discard  # the temporary file goes; the previous output stays as it was

        try:
            atomic_write(target, draw)  # straight to the temporary file: no second copy in memory
        except _Discard:
            problems.extend(not_found_before(problems, located))
            progress(count)
            continue
        problems.extend(not_found_before(problems, located))
        progress(count)
        if stores is not None:
            stores.append(store)
        manifest.record(target, key)
        written.append(target)
        if store.faces_drawn is not None:  # the kind's faces as drawn, not counted again (`_part`)
            n, width, height, bleed, shape = store.faces_drawn
            parts_known[kind] = Part(
                target, kind, n, width, height, bleed, layout.has_back, shape, own, labels.get(kind, "")
            )
        sheets.append(
            (target, sheet_count([_part(loaded, layout, kind, target, spec, parts_known, labels.get(kind, ""))], spec))
        )
    for held in stores or ():  # each store's file made on a thread while the build writes the rest,
        if isinstance(held, FaceStore):  # kept once it succeeded; not before: drawing a kind may fork,
            held.prepare(store_key or None)  # and a fork must not copy a thread at work
    laid = None if sheets_child is None else sheets_child.result()  # None: the child failed, laid out here
    if laid is None:
        laid = _lay_out_sheets(loaded, project, options, manifest, localized, digests_checked is not None)
    sheet_results = _write_sheets(laid, manifest, project, localized)  # the read-me lists them
    names = kind_names(loaded)
    for folder, entries in sorted(per_game.items()):
        if options.kinds or options.kinds_only:
            continue  # a partial build does not rewrite the combined file
        combined = out_root / f"{folder}.pdf"
        alone = len(entries) == 1 and (entries[0][2].has_back or options.duplex == "none")
        if alone and combined.exists():  # it would be the kind's file again: not written (docs: README)
            remove_output(combined)
        stopped = not options.keep_going and any(p.severity == "error" for p in problems)
        if stopped or not all(current(path).is_file() for path, *_ in entries):
            continue
        parts = [
            _part(loaded, layout, kind, current(path), spec, parts_known, labels.get(kind, ""))
            for path, _, layout, kind in entries
        ]
        front = b""  # the game's read-me page, first in its combined file
        own_sheets = 0
        if project.read_me:
            documents = documents_of(sheet_results, out_root / folder, out_root)
            settled = settled_read_me(
                project, options.paper, spec, parts, None if alone else combined, out_root, names, documents
            )
            fresh = _read_me(options, spec, settled[0], out_root / folder / READ_ME, manifest, code)
            (skipped if fresh else written).append(out_root / folder / READ_ME)
            _readme, front, own_sheets = settled
        if alone:
            continue
        key = digest(code, [k for _, k, _, _ in entries], hashlib.sha256(front).hexdigest())
        if not options.force and manifest.fresh(combined, key):
            skipped.append(combined)
            continue
        title = project.game(entries[0][3]).title
        if len(parts) == 1:  # nothing to pack: the kind's own sheets, copied (after the read-me)
            atomic_write(combined, partial(_prepended, front=front, path=parts[0].path))
        else:
            atomic_write(
                combined, partial(write_combined, parts=parts, spec=spec, title=title, name=folder, front=front)
            )
        sheets.append((combined, sheet_count(parts, spec) + own_sheets))
        manifest.record(combined, key)
        written.append(combined)
    for result in sheet_results:
        (written if result.written else skipped).append(result.path)
        problems.extend(result.problems)
    removed: list[Path] = []
    if (
        not options.kinds and not options.kinds_only
    ):  # a whole build: what the last one made and this one did not is stale
        from pnp.outputs.stale import drop_stale

        removed = drop_stale(project.output, out_root, [*written, *skipped], manifest, project.root)
    manifest.save()
    unique = tuple(dict.fromkeys(problems))  # copies of one record report a problem once
    drawn = {kind for kind, *_ in plans if out_root / project.game(kind).folder / f"{kind}.pdf" in written}
    told = tuple((kind, text) for kind, text in holds if kind in drawn)
    return BuildResult(
        tuple(written),
        tuple(skipped),
        tuple(sorted(unique, key=Problem.sort_key)),
        tuple(sheets),
        holds=told,
        removed=tuple(removed),
    )


def _keys_ahead(project: Project, options: BuildOptions, loaded: LoadedProject, into: dict[str, Any]) -> None:
    """The faces' keys of the kinds to build (`face_keys`: a build that draws what the check
    draws keys them with the check's digests), made while the forked check still works: at 10,000
    cards it answered after the drawing stage's imports. Put in `into` (the digests under "");
    nothing when the build is not such a build, or when anything fails (made again, and said, later)."""
    from pnp.drawing.facekeys import face_keys
    from pnp.drawing.findings import check_digests, code_digest, keys_file
    from pnp.verify.keys import existing_key

    if options.lang or not _draws_as_checked(project, options):
        return
    try:
        digests = check_digests(loaded, code_digest())
        signing = existing_key(project)
        for kind in loaded.kinds_to_build(options.kinds, loaded.layouts):
            layout = loaded.layouts.by_kind[kind]
            into[kind] = face_keys(loaded, layout, kind, digests, keys_file(project, kind), signing)
        into[""] = digests
    except Exception:  # noqa: BLE001 - a build that cannot key its faces says why when it does it again
        into.clear()


def _draws_as_checked(project: Project, options: BuildOptions) -> bool:
    """Whether the build's sheets are the check's: the project's paper and margins (then what
    drawing finds is kept for `pnp check` too, and the faces are keyed by its digests)."""
    return (
        options.paper.lower() == project.paper.lower()
        and options.duplex in ("long", "short")
        and options.margin_mm is None
        and options.orientation is None
    )


def sheet_spec(project: Project, options: BuildOptions) -> SheetSpec:
    """The build's sheets: its paper, duplex and cutting, and pnp.toml's [paper] (or the options')."""
    width, height = parse_paper(options.paper)
    cutting: Cutting = "gutter" if (options.cutting or project.cutting) == "gutter" else "butted"
    gutter = project.gutter_mm * MM if cutting == "gutter" else 0.0  # butted cards share their cut lines
    paper = project.sheet
    margin = options.margin_mm if options.margin_mm is not None else paper.margin
    return SheetSpec(
        width,
        height,
        margin=margin * MM,
        gutter=gutter,
        duplex=options.duplex,
        cutting=cutting,
        orientation=options.orientation or paper.orientation,
        columns=paper.columns,
        rows=paper.rows,
        per_page=paper.per_page,
        mix_sizes=paper.mix_sizes,
    )


def kind_holds(
    loaded: LoadedProject, layouts: Any, kinds: list[str], spec: SheetSpec, options: BuildOptions
) -> list[tuple[str, str]]:
    """How many faces a sheet holds for each kind, and why; a face the paper cannot hold as asked
    is a configuration error located at the [paper] setting to change (never at the layout)."""
    from pnp.core.problems import ConfigError
    from pnp.drawing.findings import paper_problem
    from pnp.drawing.impose import ImpositionError, for_faces, grid, holds, oriented
    from pnp.drawing.render import Renderer

    found = []
    for kind in kinds:
        layout = layouts.by_kind[kind]
        renderer = Renderer(layout, loaded.project.root, loaded.icons)
        own = with_cutting(spec, layout.cutting, loaded.project.gutter_mm * MM)
        own = oriented(replace(for_faces(own, layout.has_back), bleed=renderer.bleed), renderer.width, renderer.height)
        try:
            found.append((kind, holds(renderer.width, renderer.height, own, options.paper)))
        except ImpositionError as err:
            try:  # on the bare paper (no margins, no grid asked for) it fits: the [paper] settings are at fault
                grid(renderer.width, renderer.height, replace(own, margin=0.0, columns=0, rows=0, per_page=0))
            except ImpositionError:
                continue  # the face is larger than the paper: a layout-error at its size, as drawing reports it
            message = f"{kind} (paper {options.paper}): {err}"
            problem = paper_problem(loaded.project, message, options.margin_mm is None)
            raise ConfigError(message, (problem,) if problem else ()) from None
    return found


READ_ME = "read-me-first.pdf"


def kind_names(loaded: LoadedProject) -> dict[str, str]:
    """Each kind's name for people, as the read-me page lists it: its schema's `title`, when it has one."""
    schemas = loaded.schemas
    named = {kind: schemas.docs[uri].get("title") for kind, uri in schemas.kind_uri.items()}
    return {kind: title.strip() for kind, title in named.items() if isinstance(title, str) and title.strip()}


def _read_me(
    options: BuildOptions, spec: SheetSpec, readme: ReadMe, target: Path, manifest: Manifest, code: str
) -> bool:
    """Write output/<game>/read-me-first.pdf (one page, more for long lists) unless fresh: whether it was."""
    from pnp.drawing.readme import write_read_me

    key = digest(code, repr(readme), spec.page_width, spec.page_height)
    if not options.force and manifest.fresh(target, key):
        return True
    atomic_write(target, partial(write_read_me, readme=readme, pagesize=(spec.page_width, spec.page_height)))
    manifest.record(target, key)
    return False


def _prepended(handle: IO[bytes], front: bytes, path: Path) -> None:
    """The PDF at `path` after the pages of `front` (nothing: the file as it is)."""
    if not front:
        handle.write(path.read_bytes())
        return
    import io
    from typing import BinaryIO, cast

    import pikepdf

    from pnp.drawing.combine import unique_subset_tags

    with pikepdf.open(io.BytesIO(front)) as matter, pikepdf.open(path) as own:
        for number, page in enumerate(matter.pages):
            own.pages.insert(number, page)
        unique_subset_tags(own)  # the read-me's subsets and the kind's, each under its own name
        own.save(cast(BinaryIO, unwrapped(handle)), deterministic_id=True, compress_streams=True)


def _part(
    loaded: LoadedProject, layout: Layout, kind: str, path: Path, spec: SheetSpec, known: dict[str, Part] | None = None,
    title: str = "",
) -> Part:  # fmt: skip
    """A kind's file as the combined file reads it: how many faces, of what size (`known`: the
    parts already worked out in this build, by kind; `title`: its name on the sheets' labels)."""
    from pnp.drawing.combine import Part
    from pnp.drawing.pdf import count_faces
    from pnp.drawing.render import Renderer

    if known is not None and kind in known:
        return replace(known[kind], path=path)
    renderer = Renderer(layout, loaded.project.root, loaded.icons)
    faces = count_faces(renderer, [(None, record) for _, _, record in loaded.records(kind)])
    own = with_cutting(spec, layout.cutting, loaded.project.gutter_mm * MM)
    part = Part(
        path, kind, faces, renderer.width, renderer.height, renderer.bleed, layout.has_back, renderer.shape, own, title
    )
    if known is not None:
        known[kind] = part
    return part


def _lay_out_sheets(
    loaded: LoadedProject,
    project: Project,
    options: BuildOptions,
    manifest: Manifest,
    localized: Localized | None = None,
    as_checked: bool = False,
) -> list[Any]:
    """Sheet files' PDFs (pnp.sheets) laid out, not yet written (pnp.sheets.build.LaidOut), when the
    kinds are not filtered; problems come located. `localized`: a language build (the sheets'
    fixed strings and the cards they show translated); `as_checked`: laid out as `pnp check`
    lays them out, so what they found is kept for it too."""
    if options.kinds or options.kinds_only or not loaded.lays_out_sheets:
        return []  # no sheet file and no kind printed on sheets: pnp.sheets is not even imported
    from pnp.drawing.miniature import token_drawer
    from pnp.sheets.build import lay_out_sheets

    draw, _inputs = token_drawer(loaded, localized.layouts if localized else None)  # digest: pnp/sheets/inputs.py
    out_root = output_root(project, options.paper, options.duplex)
    if localized is None:
        from pnp.drawing.findings import CACHE_FOLDER

        checked = project.output / CACHE_FOLDER / "sheets" if as_checked else None
        return lay_out_sheets(
            loaded, out_root, options.paper, manifest, force=options.force, draw_card=draw, check_cache=checked
        )
    return lay_out_sheets(
        loaded, out_root, options.paper, manifest, force=options.force, draw_card=draw,
        texts=localized.sheets, word=localized.word, words_key=localized.words_key,
    )  # fmt: skip


def _sheets_elsewhere(
    loaded: LoadedProject,
    project: Project,
    options: BuildOptions,
    manifest: Manifest,
    localized: Localized | None,
    as_checked: bool,
    drawing: bool,
) -> Child[list[Any]] | None:
    """The sheets laid out in a forked child while this process draws the kinds (`drawing`: some
    kind is drawn), on a machine with another core; None: laid out here, after the kinds."""
    from pnp.core.workers import Child, can_fork, usable_cores

    if not drawing or options.jobs == 1 or options.kinds or options.kinds_only or not loaded.lays_out_sheets:
        return None
    if not can_fork() or (options.jobs == 0 and usable_cores() < 2):
        return None
    return Child(_lay_out_sheets, loaded, project, options, manifest, localized, as_checked)


def _write_sheets(laid: list[Any], manifest: Manifest, project: Project, localized: Localized | None) -> list[Any]:
    """Write the laid-out sheets (pnp.sheets.build.write_sheets); their results."""
    if not laid:
        return []
    from pnp.sheets.build import write_sheets

    results = write_sheets(laid, manifest, project.root)
    return results if localized is None else localized.sheet_results(results)  # a too-tall block: its catalog entry


class _Discard(Exception):
    """Raised inside an atomic write to throw the new file away."""


def preload_whole_build() -> None:
    """Import now what a whole build needs beyond the kinds' own PDFs (the sheets, the combined
    file's pikepdf), so that builds forked from this process (`pnp watch`'s rest build,
    pnp.live.rest) start with them instead of importing them each time."""
    import pikepdf  # noqa: F401 - imported for the forked builds

    import pnp.drawing.miniature
    import pnp.outputs.stale
    import pnp.sheets.build  # noqa: F401
