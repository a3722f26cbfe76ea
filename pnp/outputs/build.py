"""`pnp build`: check, then render every kind with a layout into output/, incrementally.

Per game: output/<folder>/<kind>.pdf for each kind, and output/<folder>.pdf with them all.
A build that finds errors writes nothing (with `keep_going`: every record without a parse or
schema error is drawn all the same, and the errors are reported); each file is written atomically; a file whose inputs
(records, layouts, icons, fonts, images, options, pnp itself) did not change is not rewritten.
"""

from __future__ import annotations

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
    write_bytes,
)
from pnp.core.problems import Problem, not_found_before
from pnp.core.progress import progress_bar
from pnp.drawing.impose import MM, Cutting, Duplex, SheetSpec, parse_paper, with_cutting
from pnp.project.config import Project

if TYPE_CHECKING:  # the check and drawing stages load when a build has work to do (start-up time)
    from pnp.drawing.combine import Part
    from pnp.drawing.facestore import FaceStore
    from pnp.project.layout import Layout
    from pnp.project.loaded import LoadedProject
    from pnp.translation.translate import Localized


@dataclass(frozen=True, slots=True)
class BuildOptions:
    paper: str = "a4"
    duplex: Duplex = "long"
    cutting: Cutting | None = None  # None: pnp.toml's [build] cutting
    kinds: tuple[str, ...] = ()
    force: bool = False
    progress: bool = False
    lang: str = ""  # a translation (pnp.translation.translate): drawn into output/<lang>/
    fallback: bool = False  # with lang: draw the source text where a translation is missing
    keep_going: bool = False  # errors found: draw the records without parse or schema errors all the same


@dataclass(frozen=True, slots=True)
class BuildResult(OutputResult):
    """An OutputResult, with the sheets of paper each written cut-sheet file takes."""

    sheets: tuple[tuple[Path, int], ...] = ()
    fallbacks: int = 0  # a language build with --fallback: source texts drawn for missing translations


def output_root(project: Project, paper: str) -> Path:
    """output/ for the project's paper; output/<paper>/ for another, so A4 and Letter coexist."""
    if paper.lower() == project.paper.lower():
        return project.output
    return project.output / re.sub(r"[^a-z0-9.]+", "-", paper.lower()).strip("-")


def run_build(project: Project, options: BuildOptions) -> BuildResult:
    from pnp.project.loaded import load_project_records
    from pnp.verify.run import CheckOptions, Validation, broken_record_paths, check_loaded

    loaded = load_project_records(project)
    validation = Validation()
    validation.loaded = loaded
    problems = list(check_loaded(loaded, CheckOptions(render=False), validation=validation))
    left_out: frozenset[tuple[Path, int]] = frozenset()
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
        reported = problems if options.lang else check_loaded(loaded, CheckOptions(render_cache=False))
        return BuildResult((), (), tuple(reported))  # a failed build writes nothing, not even a cache
    stores: list[FaceStore] = []
    with OutputRun(project.output) as run:  # a failed build writes nothing: see pnp.core.output
        result = _build_checked(project, options, loaded, layouts, problems, localized, stores)
        if result.exit_code and not options.keep_going:
            run.discard()
            return BuildResult((), (), result.problems)
    if stores:  # the faces drawn, kept for the next build (pnp.drawing.facestore), signed with the project's key
        from pnp.verify.cache import project_key

        key = project_key(project)
        for store in stores:
            store.save(key)
    if localized is not None:
        result = replace(result, fallbacks=localized.fallbacks.count)
    return result


def _build_checked(
    project: Project,
    options: BuildOptions,
    loaded: LoadedProject,
    layouts: Any,
    problems: list[Problem],
    localized: Localized | None = None,
    stores: list[FaceStore] | None = None,
) -> BuildResult:
    """Render a project that passed its check; outputs are staged by the caller's OutputRun.
    `localized`: a language build (drawing's findings in translated text go to the catalog);
    `stores` gets the face store of each kind drawn, for the caller to keep once the run is done."""
    from pnp.drawing.combine import sheet_count, write_combined
    from pnp.drawing.faces import FaceDigests
    from pnp.drawing.facestore import face_keys, kind_seed, kind_store
    from pnp.drawing.findings import code_digest, kind_digest, render_kind
    from pnp.verify.cache import existing_key

    width, height = parse_paper(options.paper)
    cutting: Cutting = "gutter" if (options.cutting or project.cutting) == "gutter" else "butted"
    gutter = project.gutter_mm * MM if cutting == "gutter" else 0.0  # butted cards share their cut lines
    spec = SheetSpec(width, height, gutter=gutter, duplex=options.duplex, cutting=cutting)
    manifest = Manifest(project.output, project.root)
    out_root = output_root(project, options.paper)
    code = code_digest()
    written: list[Path] = []
    skipped: list[Path] = []
    per_game: dict[str, list[tuple[Path, str, Layout, str]]] = {}
    sheets: list[tuple[Path, int]] = []
    kinds = loaded.kinds_to_build(options.kinds, layouts)
    plans = []
    face_digests = FaceDigests(loaded, code)
    for kind in kinds:
        layout = layouts.by_kind[kind]
        game = project.game(kind)
        target = out_root / game.folder / f"{kind}.pdf"
        own = with_cutting(spec, layout.cutting, project.gutter_mm * MM)  # a layout's own cutting style
        faces = face_keys(loaded, layout, kind, face_digests)  # a record a face shows through `ref` too
        seed = kind_seed(loaded, layout, kind)  # the characters its fonts are seeded with: in its bytes
        key = kind_digest(
            loaded, layout, kind, code, options.paper, options.duplex, own.cutting, own.gutter, [*faces.values(), seed]
        )
        per_game.setdefault(game.folder, []).append((target, key, layout, kind))
        plans.append((kind, layout, target, key, faces, seed))
    progress = progress_bar(options.progress, sum(len(faces) for *_, faces, _ in plans))
    store_key: bytes | None = None
    for kind, layout, target, key, faces, seed in plans:
        count = len(faces)
        if not options.force and manifest.fresh(target, key):
            skipped.append(target)
            progress(count)
            continue
        located: list[Problem] = []
        own = with_cutting(spec, layout.cutting, project.gutter_mm * MM)
        if store_key is None:  # the faces of the last build are reused (pnp.drawing.facestore)
            store_key = existing_key(project) or b""
        store = kind_store(loaded, layout, kind, own, face_digests, store_key or None, faces, seed)

        def draw(
            handle: IO[bytes],
            kind: str = kind,
            layout: Layout = layout,
            located: list[Problem] = located,
            own: SheetSpec = own,
            store: FaceStore = store,
        ) -> None:
            game = project.game(kind)
            found = render_kind(loaded, layout, kind, own, handle, f"{game.title}: {kind}", name=kind, store=store)
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
        sheets.append((target, sheet_count([_part(loaded, layout, kind, target, spec)], spec)))
    for folder, entries in sorted(per_game.items()):
        if options.kinds:
            continue  # a partial build does not rewrite the combined file
        combined = out_root / f"{folder}.pdf"
        if len(entries) == 1 and (entries[0][2].has_back or options.duplex == "none"):
            if combined.exists():  # it would be the kind's file again: not written (docs: README)
                remove_output(combined)
            continue
        key = digest(code, [k for _, k, _, _ in entries])
        if not options.force and manifest.fresh(combined, key):
            skipped.append(combined)
            continue
        stopped = not options.keep_going and any(p.severity == "error" for p in problems)
        if stopped or not all(current(path).is_file() for path, *_ in entries):
            continue
        parts = [_part(loaded, layout, kind, current(path), spec) for path, _, layout, kind in entries]
        title = project.game(entries[0][3]).title
        if len(parts) == 1:  # nothing to pack: the kind's own sheets, copied
            write_bytes(combined, parts[0].path.read_bytes())
        else:
            atomic_write(combined, partial(write_combined, parts=parts, spec=spec, title=title, name=folder))
        sheets.append((combined, sheet_count(parts, spec)))
        manifest.record(combined, key)
        written.append(combined)
    for result in _build_sheets(loaded, project, options, manifest, localized):
        (written if result.written else skipped).append(result.path)
        problems.extend(result.problems)
    manifest.save()
    unique = tuple(dict.fromkeys(problems))  # copies of one record report a problem once
    return BuildResult(tuple(written), tuple(skipped), tuple(sorted(unique, key=Problem.sort_key)), tuple(sheets))


def _part(loaded: LoadedProject, layout: Layout, kind: str, path: Path, spec: SheetSpec) -> Part:
    """A kind's file as the combined file reads it: how many faces, of what size."""
    from pnp.drawing.combine import Part
    from pnp.drawing.pdf import expand_faces
    from pnp.drawing.render import Renderer

    renderer = Renderer(layout, loaded.project.root, loaded.icons)
    faces, _ = expand_faces(renderer, [(None, record) for _, _, record in loaded.records(kind)])
    own = with_cutting(spec, layout.cutting, loaded.project.gutter_mm * MM)
    return Part(
        path, kind, len(faces), renderer.width, renderer.height, renderer.bleed, layout.has_back, renderer.shape, own
    )


def _build_sheets(
    loaded: LoadedProject,
    project: Project,
    options: BuildOptions,
    manifest: Manifest,
    localized: Localized | None = None,
) -> list[Any]:
    """Sheet files' PDFs (pnp.sheets), when the kinds are not filtered; problems come located.
    `localized`: a language build (the sheets' fixed strings and the cards they show translated)."""
    if options.kinds:
        return []
    from pnp.drawing.miniature import token_drawer
    from pnp.sheets.build import build_sheets

    draw, _inputs = token_drawer(loaded, localized.layouts if localized else None)  # digest: pnp/sheets/inputs.py
    out_root = output_root(project, options.paper)
    if localized is None:
        return build_sheets(loaded, out_root, options.paper, manifest, force=options.force, draw_card=draw)
    results = build_sheets(
        loaded, out_root, options.paper, manifest, force=options.force, draw_card=draw,
        texts=localized.sheets, word=localized.word, words_key=localized.words_key,
    )  # fmt: skip
    return localized.sheet_results(results)  # a too-tall block goes to the catalog entry that makes it so


class _Discard(Exception):
    """Raised inside an atomic write to throw the new file away."""
