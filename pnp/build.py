"""`pnp build`: check, then render every kind with a layout into output/, incrementally.

Per game: output/<folder>/<kind>.pdf for each kind, and output/<folder>.pdf with them all.
A build that finds errors writes nothing; each file is written atomically; a file whose inputs
(records, layouts, icons, fonts, images, options, pnp itself) did not change is not rewritten.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pnp.config import Project
from pnp.impose import MM, Cutting, Duplex, SheetSpec, parse_paper, with_cutting
from pnp.output import Manifest, OutputResult, OutputRun, atomic_write, current, digest, remove_output, write_bytes
from pnp.problems import Problem, severity_of

if TYPE_CHECKING:  # the check and drawing stages load when a build has work to do (start-up time)
    from pnp.check import LoadedProject
    from pnp.combine import Part
    from pnp.layout import Layout
    from pnp.translate import Localized


@dataclass(frozen=True, slots=True)
class BuildOptions:
    paper: str = "a4"
    duplex: Duplex = "long"
    cutting: Cutting | None = None  # None: pnp.toml's [build] cutting
    kinds: tuple[str, ...] = ()
    force: bool = False
    progress: bool = False
    lang: str = ""  # a translation (pnp.translate): drawn into output/<lang>/
    fallback: bool = False  # with lang: draw the source text where a translation is missing


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


def kinds_to_build(loaded: LoadedProject, layouts: Any, wanted: tuple[str, ...]) -> list[str]:
    kinds = sorted(k for k in loaded.index.files_by_kind if k in layouts.by_kind)
    if wanted:
        unknown = [k for k in wanted if k not in loaded.schemas.kind_uri]
        if unknown:
            from pnp.config import ConfigError

            raise ConfigError(f"unknown kind {unknown[0]!r}; known kinds: {', '.join(loaded.schemas.kinds)}")
        kinds = [k for k in kinds if k in wanted]
    return kinds


def run_build(project: Project, options: BuildOptions) -> BuildResult:
    from pnp.check import CheckOptions, check_loaded, load_project_records

    loaded = load_project_records(project)
    problems = list(check_loaded(loaded, CheckOptions(render=False)))
    from pnp.layout import LayoutSet

    layouts = LayoutSet(project.layouts, project.display, set(loaded.schemas.kind_uri))
    localized = None
    if options.lang:  # a translation (pnp.translate): drawn once, into output/<lang>/
        from pnp.translate import localize

        localized = localize(loaded, layouts, problems, options.lang, options.fallback)
        loaded, layouts, problems = localized.loaded, localized.layouts, localized.problems
        project = loaded.project = replace(project, output=project.output / options.lang)
    if any(p.severity == "error" for p in problems):  # nothing is written; report what check reports
        reported = problems if options.lang else check_loaded(loaded, CheckOptions(render_cache=False))
        return BuildResult((), (), tuple(reported))  # a failed build writes nothing, not even a cache
    with OutputRun(project.output) as run:  # a failed build writes nothing: see pnp.output
        result = _build_checked(project, options, loaded, layouts, problems, localized)
        if result.exit_code:
            run.discard()
            return BuildResult((), (), result.problems)
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
) -> BuildResult:
    """Render a project that passed its check; outputs are staged by the caller's OutputRun.
    `localized`: a language build (drawing's findings in translated text go to the catalog)."""
    from pnp.check import not_found_before
    from pnp.combine import sheet_count, write_combined
    from pnp.diagnose import code_digest, kind_digest, render_kind

    width, height = parse_paper(options.paper)
    cutting: Cutting = "gutter" if (options.cutting or project.cutting) == "gutter" else "butted"
    gutter = project.gutter_mm * MM if cutting == "gutter" else 0.0  # butted cards share their cut lines
    spec = SheetSpec(width, height, gutter=gutter, duplex=options.duplex, cutting=cutting)
    manifest = Manifest(project.output)
    out_root = output_root(project, options.paper)
    code = code_digest()
    written: list[Path] = []
    skipped: list[Path] = []
    per_game: dict[str, list[tuple[Path, str, Layout, str]]] = {}
    sheets: list[tuple[Path, int]] = []
    kinds = kinds_to_build(loaded, layouts, options.kinds)
    plans = []
    for kind in kinds:
        layout = layouts.by_kind[kind]
        game = project.game(kind)
        target = out_root / game.folder / f"{kind}.pdf"
        own = with_cutting(spec, layout.cutting, project.gutter_mm * MM)  # a layout's own cutting style
        key = kind_digest(loaded, layout, kind, code, options.paper, options.duplex, own.cutting, own.gutter)
        per_game.setdefault(game.folder, []).append((target, key, layout, kind))
        plans.append((kind, layout, target, key, sum(1 for _ in loaded.records(kind))))
    progress = _progress(options.progress, sum(n for *_, n in plans if True))
    for kind, layout, target, key, count in plans:
        if not options.force and manifest.fresh(target, key):
            skipped.append(target)
            progress(count)
            continue
        located: list[Problem] = []

        def draw(
            handle: IO[bytes], kind: str = kind, layout: Layout = layout, located: list[Problem] = located
        ) -> None:
            game = project.game(kind)
            own = with_cutting(spec, layout.cutting, project.gutter_mm * MM)
            found = render_kind(loaded, layout, kind, own, handle, f"{game.title}: {kind}", name=kind)
            if localized is not None:
                found = localized.relocate(found, kind)
            located.extend(record_file.locate(finding) for record_file, finding in found)
            if any(p.severity == "error" for p in located):
                raise _Discard  # the temporary file goes; the previous output stays as it was

        try:
            atomic_write(target, draw)  # straight to the temporary file: no second copy in memory
        except _Discard:
            problems.extend(not_found_before(problems, located))
            progress(count)
            continue
        problems.extend(not_found_before(problems, located))
        progress(count)
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
        if any(p.severity == "error" for p in problems) or not all(current(path).is_file() for path, *_ in entries):
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
    from pnp.check import load_icon_specs
    from pnp.combine import Part
    from pnp.pdf import expand_faces
    from pnp.render import Renderer

    renderer = Renderer(layout, loaded.project.root, load_icon_specs(loaded.project))
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


def token_drawer(loaded: LoadedProject, layouts: Any = None) -> tuple[Callable[..., bool], list[Path]]:
    """A hook drawing a token's front from its own layout, scaled into a square (for the aids);
    `layouts`: a language's translated layouts (default: the project's)."""
    from pnp.check import load_icon_specs
    from pnp.impose import Box
    from pnp.layout import LayoutSet
    from pnp.render import Renderer

    project = loaded.project
    if layouts is None:
        layouts = LayoutSet(project.layouts, project.display, set(loaded.schemas.kind_uri))
    icons = load_icon_specs(project)
    renderers: dict[str, Renderer] = {}

    def lookup(record_id: str) -> dict[str, Any] | None:
        entry = loaded.index.first.get(record_id)
        return entry[1].records[entry[2]] if entry else None

    def draw(canvas: Any, record: dict[str, Any], x: float, y: float, size: float) -> bool:
        layout = layouts.by_kind.get(str(record.get("kind")))
        if layout is None:
            return False
        renderer = renderers.get(layout.name)
        if renderer is None:
            renderer = renderers[layout.name] = Renderer(layout, project.root, icons, lookup)
        scale = size / max(renderer.width, renderer.height)
        box = Box(0, 0, renderer.width, renderer.height)
        canvas.saveState()
        canvas.translate(x + (size - renderer.width * scale) / 2, y + (size - renderer.height * scale) / 2)
        canvas.scale(scale, scale)
        if renderer.shape == "round":  # the token as cut: a disc, not its square bleed
            path = canvas.beginPath()
            path.circle(renderer.width / 2, renderer.height / 2, min(renderer.width, renderer.height) / 2)
            canvas.clipPath(path, stroke=0, fill=0)
        issues = renderer.draw(canvas, "front", record, box, {"copy": 1}, clip=box)
        canvas.restoreState()
        return not any(severity_of(issue) == "error" for issue in issues)

    inputs = sorted({path for layout in layouts.layouts.values() for path in layout.files})
    return draw, inputs


class _Discard(Exception):
    """Raised inside an atomic write to throw the new file away."""


def _progress(enabled: bool, total: int) -> Callable[[int], None]:
    """A progress bar on a terminal; nothing otherwise."""
    if not enabled or not sys.stderr.isatty() or total == 0:
        return lambda n: None
    import click

    bar = click.progressbar(length=total, label="rendering", file=sys.stderr)
    bar.__enter__()
    done = [0]

    def tick(n: int) -> None:
        done[0] += n
        bar.update(n)
        if done[0] >= total:
            bar.__exit__(None, None, None)

    return tick
